//! A backend's custom schedule (`Strategy::Schedule`) lowers the ops it claimed towards loop IR
//! before they are inlined back; the model computes the same numbers as without the backend on
//! both host engines.

use umac_backend::{
    Backend, Composite, ConfiguredBackend, Error, Pattern, Strategy, TargetAttrs, TargetSet, op, register_backends,
};
use umac_dialects::{ContextOptions, source::parse_module};
use umac_driver::create_context;
use umac_driver::host::{CompileOptions, ENGINES, compile};
use umac_runtime::{DType, Tensor};

/// Claims `tosa.abs` (optionally followed by `tosa.bitwise_not`) and schedules it with
/// `tosa-to-linalg`.
struct Scheduled;

impl Backend for Scheduled {
    fn name(&self) -> &'static str {
        "scheduled"
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<Pattern> {
        vec![Pattern::new("scheduled.abs", op("tosa.abs").element_type(0, "i32")).optional(op("tosa.bitwise_not"))]
    }
    fn strategy(&self, _: &Composite, _: &TargetAttrs) -> Result<Strategy, Error> {
        Ok(Strategy::Schedule("tosa-to-linalg".into()))
    }
}

static SCHEDULED: Scheduled = Scheduled;

const MODEL: &str = r#"
func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  %a = tosa.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  %n = tosa.bitwise_not %a : (tensor<4xi32>) -> tensor<4xi32>
  %b = tosa.abs %n : (tensor<4xi32>) -> tensor<4xi32>
  %c = tosa.clz %b : (tensor<4xi32>) -> tensor<4xi32>
  %d = tosa.abs %c : (tensor<4xi32>) -> tensor<4xi32>
  return %d : tensor<4xi32>
}
"#;

#[test]
fn a_schedule_computes_what_the_cpu_path_computes() {
    // This test process knows only this backend.
    register_backends(vec![&SCHEDULED]);
    let input = Tensor {
        dtype: DType::I32,
        shape: vec![4],
        data: [-7i32, 0, 5, i32::MIN].iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    for engine in ENGINES {
        let run = |targets: TargetSet| {
            let context = create_context(ContextOptions::default());
            let mut module = parse_module(&context, "test.mlir", MODEL.as_bytes()).unwrap();
            let options = CompileOptions { targets, ..Default::default() };
            let program =
                compile(&context, &mut module, "main", std::slice::from_ref(&input), *engine, options).unwrap();
            assert_eq!(program.placements().iter().filter(|p| p.target == "scheduled").count(), 4);
            program.run(std::slice::from_ref(&input)).unwrap().remove(0).data
        };
        let scheduled = TargetSet {
            accelerators: vec![ConfiguredBackend { backend: &SCHEDULED, attributes: TargetAttrs::default() }],
            cpu: None,
        };
        let with = run(scheduled);
        let context = create_context(ContextOptions::default());
        let mut module = parse_module(&context, "test.mlir", MODEL.as_bytes()).unwrap();
        let plain = compile(&context, &mut module, "main", std::slice::from_ref(&input), *engine, Default::default())
            .unwrap()
            .run(std::slice::from_ref(&input))
            .unwrap()
            .remove(0)
            .data;
        assert_eq!(with, plain, "{}", engine.name());
    }
}
