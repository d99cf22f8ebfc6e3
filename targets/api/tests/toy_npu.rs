//! A second NPU, added the way a newcomer adds one, without touching the simulator's machine, the
//! driver or the lowering: a device implementing `umac_sim::Device` (a ReLU unit behind custom-1,
//! working on its own time), a backend that claims int8 `tosa.clamp` at zero, defines the call as
//! a function issuing the unit's instructions and supplies the device, and a model compiled for
//! `toy,rv32im` and run on the simulator, byte for byte, with the unit's work in the report.

use std::sync::Arc;
use umac_backend::{
    Attr, Backend, Builder, Composite, Error, ExternArg, ExternCall, Pattern, Strategy, TargetAttrs, Ty, op,
};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::{
    create_context,
    firmware::{FirmwareOptions, compile},
    simulator::{devices, simulate},
};
use umac_runtime::{DType, Tensor};
use umac_sim::{
    Device,
    device::{DeviceError, Figures, Instruction, Outcome, Run, Work},
    memory::Memory,
};

/// The device: custom-1 funct3 1 sets the length, funct3 0 starts `dst[i] = max(src[i], 0)` from
/// rs1 to rs2 (4 bytes a cycle after 10 of latency) and returns a token, funct3 2 waits for one.
#[derive(Default)]
struct ReluUnit {
    len: u32,
    /// Each job's end and issuing pc.
    jobs: Vec<(u64, u32)>,
    bytes: u64,
}

impl Device for ReluUnit {
    fn name(&self) -> &str {
        "toy"
    }
    fn custom_opcodes(&self) -> &[u8] {
        &[1]
    }
    fn execute(&mut self, memory: &mut Memory, insn: Instruction, now: u64) -> Result<Outcome, DeviceError> {
        match insn.funct3 {
            1 => self.len = insn.rs1,
            0 => {
                let src = memory.bytes(insn.rs1, self.len).map_err(|f| DeviceError(format!("relu reads {f:?}")))?;
                let out: Vec<u8> = src.iter().map(|&b| (b as i8).max(0) as u8).collect();
                memory.write_bytes(insn.rs2, &out).map_err(|f| DeviceError(format!("relu writes {f:?}")))?;
                let end = now + 10 + u64::from(self.len.div_ceil(4));
                self.jobs.push((end, insn.pc));
                self.bytes += u64::from(self.len);
                return Ok(Outcome { value: self.jobs.len() as u32, completes: Some(end), ..Outcome::default() });
            }
            2 => {
                let (end, _) =
                    *self.jobs.get((insn.rs1 as usize).wrapping_sub(1)).ok_or("no such token".to_string())?;
                let stall = end.saturating_sub(now);
                return Ok(Outcome { cycles: stall, stall, ..Outcome::default() });
            }
            f => return Err(DeviceError(format!("no funct3 {f}"))),
        }
        Ok(Outcome::default())
    }
    fn busy_until(&self) -> u64 {
        self.jobs.iter().map(|j| j.0).max().unwrap_or(0)
    }
    fn pending(&self, now: u64) -> Option<(u32, String)> {
        let &(end, pc) = self.jobs.iter().filter(|j| j.0 > now).max_by_key(|j| j.0)?;
        Some((pc, format!("a relu job runs until cycle {end}")))
    }
    fn figures(&self, _run: &Run) -> Figures {
        let text = format!("  toy relu unit: {} jobs, {} bytes\n", self.jobs.len(), self.bytes);
        Figures {
            work: Work::default(),
            units: vec![("relu".into(), self.jobs.len() as u64, 0)],
            text,
            ..Figures::default()
        }
    }
}

/// The backend.
struct Toy;

impl Backend for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }
    fn cpu(&self) -> Option<&'static str> {
        Some("rv32im")
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<Pattern> {
        let relu = op("tosa.clamp").element_type(0, "i8").when("clamps at zero", |o| o.int("min_val") == Some(0));
        vec![Pattern::new("toy.relu", relu)]
    }
    fn strategy(&self, composite: &Composite, _: &TargetAttrs) -> Result<Strategy, Error> {
        let len: i64 = composite.last().result_type().ok_or("no result type")?.dims().iter().product();
        let input = ExternArg::Operand { role: "tosa.clamp".into(), index: 0 };
        let call = ExternCall::new("toy_relu").arg("input", input).arg("len", ExternArg::I32(len));
        Ok(Strategy::Extern(call.defined_by(Arc::new(relu))))
    }
    fn device(&self, _: &TargetAttrs) -> Result<Option<Box<dyn Device>>, Error> {
        Ok(Some(Box::new(ReluUnit::default())))
    }
}

static TOY: Toy = Toy;

/// The call (`toy_relu(input, len, output)`), defined as the control unit's code: length, start,
/// wait.
fn relu(b: &mut Builder) -> Result<(), Error> {
    b.set_function_attribute("passthrough", Attr::Strings(&["noinline"]));
    let (input, len, output) = (b.arg(0), b.arg(1), b.arg(2));
    let src = b.index_cast(input, Ty::I32);
    let dst = b.index_cast(output, Ty::I32);
    b.inline_asm(".insn r CUSTOM_1, 1, 0, x0, $0, x0", "r,~{memory}", &[len]);
    let token = b.inline_asm_value(".insn r CUSTOM_1, 0, 0, $0, $1, $2", "=r,r,r,~{memory}", &[src, dst], Ty::I32);
    b.inline_asm(".insn r CUSTOM_1, 2, 0, x0, $0, x0", "r,~{memory}", &[token]);
    Ok(())
}

const MODEL: &str = "func.func @main(%x: tensor<1x100xi8>) -> tensor<1x100xi8> {
  %0 = tosa.clamp %x {min_val = 0 : i8, max_val = 127 : i8} : (tensor<1x100xi8>) -> tensor<1x100xi8>
  return %0 : tensor<1x100xi8>
}";

#[test]
fn a_toy_npu_runs_a_model_on_the_simulator() {
    // The registry's accelerators and the toy (the first registration wins in a process).
    let mut backends = umac_targets::backends();
    backends.push(&TOY);
    umac_backend::register_backends(backends);
    let accelerators = umac_backend::parse_target_string("toy").unwrap();
    let options = FirmwareOptions {
        constants_section: None,
        name: "relu".into(),
        optimize_for_size: false,
        shapes: None,
        max_workspace: None,
        max_flash: None,
        source: "relu.mlir".into(),
        source_sha256: None,
        profile_hooks: false,
        pools: vec![],
        emit_c: false,
        shared_with: vec![],
        accelerators: accelerators.clone(),
        observe: Default::default(),
    };
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "relu.mlir", MODEL.as_bytes()).unwrap();
    let firmware = compile(&context, &mut module, "main", umac_backend::cpu::RV32IM, &options).unwrap();
    assert!(firmware.placements.iter().any(|p| p.op == "tosa.clamp" && p.target == "toy"), "the clamp is the toy's");
    let data: Vec<u8> = (0..100).map(|i| (i * 37 % 256) as u8).collect();
    let input = Tensor { dtype: DType::I8, shape: vec![1, 100], data: data.clone() };
    let run = simulate(&firmware, &[input], devices(&accelerators).unwrap()).unwrap();
    let expected: Vec<u8> = data.iter().map(|&b| (b as i8).max(0) as u8).collect();
    assert_eq!(run.outputs[0].data, expected);
    assert!(run.report.text.contains("toy relu unit: 1 jobs, 100 bytes"), "{}", run.report.text);
    // A device with no peak rates has no roofline.
    assert!(!run.report.text.contains("roofline bound"), "{}", run.report.text);
    assert_eq!(run.report.units, [("relu".to_string(), 1, 0)]);
    // The call waited for its job: 10 + 25 cycles of it at least.
    let kernel = &run.report.kernels[0];
    assert_eq!(kernel.kernel.npu_instructions, 3);
    assert!(kernel.kernel.cycles >= 35, "{:?}", kernel.kernel);
}
