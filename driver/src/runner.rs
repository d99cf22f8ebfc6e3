//! The compile pipeline and its runner. Every step of turning a model into an artifact is a
//! registered pass, and the steps of one compile form one textual pipeline — the entry's
//! specialization, the accelerators' partitioning and legalization, then umac's lowering stages
//! with the accelerators' phase hooks filled in. `--print-pipeline` prints it; `umac-opt` replays
//! it. The driver runs it in named parts, reading the module between parts (the placement plan
//! before partitioning, the kernels after legalization, the workspace after planning); running
//! the parts one after the other is running the whole pipeline.

use crate::{
    Error,
    signature::{EntrySignature, TensorSig},
};
use melior::{
    Context,
    ir::Module,
    pass::{PassIrPrintingOptions, PassManager},
};
use std::path::PathBuf;
use umac_backend::{
    TargetSet,
    flow::{Runs, accelerator_steps, fill_hooks, pre_partition_steps},
};
use umac_dialects::source::print_module;
use umac_lowering::{build_pass_manager, options::quote, stages};

/// The part that makes the entry function what the lowering expects (static shapes, plain
/// arguments, and on request intermediates exposed and a new name).
pub const ENTRY: &str = "entry";
/// The accelerators' passes before partitioning (the driver plans the placement after it).
pub const PRE_PARTITION: &str = "pre-partition";
/// The part that partitions the model for the accelerators and legalizes what they claimed.
pub const ACCELERATORS: &str = "accelerators";
/// The part that lowers to the executor's operator functions on a planned workspace.
pub const OPERATORS: &str = "operators";
/// The part that lowers the operators to the llvm dialect.
pub const LLVM: &str = "llvm";
/// The part that lowers to the Cranelift engine's loop level.
pub const LOOPS: &str = "loops";

/// One named part of a compile pipeline: pipeline text without the anchor (empty when the
/// compile needs nothing there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its name ([`ENTRY`], [`ACCELERATORS`], ...).
    pub name: &'static str,
    /// Its passes.
    pub text: String,
}

/// What the entry part does.
#[derive(Clone, Debug, Default)]
pub struct EntrySteps<'a> {
    /// The entry function.
    pub entry: &'a str,
    /// The static shapes of its arguments, when it has dynamic dimensions.
    pub shapes: Option<&'a [Vec<i64>]>,
    /// Return every layer's result too (`umac run --dump-intermediates`, `--engine both`).
    pub expose_intermediates: bool,
    /// Rename it (firmware: symbols derive from the name).
    pub rename: Option<&'a str>,
}

impl<'a> EntrySteps<'a> {
    /// The steps for `entry` with `signature`, run on inputs of `shapes` (specialized to them
    /// when the signature has dynamic dimensions).
    pub fn new(entry: &'a str, signature: &EntrySignature, shapes: &'a [Vec<i64>]) -> Self {
        let dynamic = signature.inputs.iter().any(TensorSig::is_dynamic);
        EntrySteps { entry, shapes: dynamic.then_some(shapes), expose_intermediates: false, rename: None }
    }

    fn text(&self) -> String {
        let entry = quote(self.entry);
        let mut steps = vec![
            // TFLite operators the converter left (LSTMs) become TOSA first; TOSA's variables
            // (state a model carries between inferences) become `ml_program` globals.
            "umac-legalize-tfl-lstm".to_string(),
            "tosa-to-mlprogram".to_string(),
            "umac-isolate-global-values".to_string(),
            stages::specialize_entry(self.entry, self.shapes),
            format!("umac-strip-entry-attributes{{entry={entry}}}"),
        ];
        if self.expose_intermediates {
            steps.push(format!("umac-expose-intermediates{{entry={entry}}}"));
        }
        if let Some(name) = self.rename {
            steps.push(format!("umac-rename-entry{{entry={entry} name={}}}", quote(name)));
        }
        steps.push(stages::GRAPH_OPTIMIZATIONS.to_string());
        steps.join(",")
    }
}

/// How a model is lowered after the accelerators' part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// Firmware: planned operators built for the CPU, then the llvm dialect with `index_bits`.
    Firmware {
        /// Bits of `index` (32 on Cortex-M).
        index_bits: u32,
        /// The border split, the CPU's vectors or DSP extension, its rescale width.
        operators: stages::OperatorOptions,
    },
    /// The LLVM host engine: planned operators without the border split, with the vector
    /// schedules, then the llvm dialect.
    HostLlvm,
    /// The Cranelift engine: the plain loop level.
    HostLoops,
}

/// The complete pipeline of one compile, in parts.
#[derive(Clone, Debug, Default)]
pub struct CompilePipeline {
    /// The parts, in order.
    pub parts: Vec<Part>,
}

impl CompilePipeline {
    /// The pipeline for `entry` steps, `targets`' accelerators and `lowering`.
    pub fn new(entry: &EntrySteps, targets: &TargetSet, lowering: Lowering) -> Self {
        let fill = |steps: &[umac_lowering::Step]| fill_hooks(steps, targets).join(",");
        let runs = if matches!(lowering, Lowering::Firmware { .. }) { Runs::Accelerators } else { Runs::Host };
        let mut parts = vec![
            Part { name: ENTRY, text: entry.text() },
            Part { name: PRE_PARTITION, text: fill(&pre_partition_steps(targets)) },
            Part { name: ACCELERATORS, text: fill(&accelerator_steps(targets, runs)) },
        ];
        match lowering {
            Lowering::Firmware { index_bits, operators } => {
                parts.push(Part { name: OPERATORS, text: fill(&stages::planned_operators(operators)) });
                parts.push(Part { name: LLVM, text: fill(&stages::operators_to_llvm(index_bits, operators)) });
            }
            Lowering::HostLlvm => {
                // Every host umac runs on (x86-64, AArch64) has 128-bit vectors: the vector
                // schedules take KWS 529 -> 425 us, VWW 1761 -> 1513, IC 1647 -> 1429. Spending
                // workspace on patches and per-pixel tiles: KWS 368 -> 272 us, VWW 1327 -> 785,
                // IC 1340 -> 684.
                // Registers as wide as the host's (AVX-512: KWS 272 -> 252 us, VWW 786 -> 726).
                let vector_bits = umac_codegen_llvm::Target::host().vector_bits();
                let operators =
                    stages::OperatorOptions { vectors: true, spend_workspace: true, vector_bits, ..Default::default() };
                parts.push(Part { name: OPERATORS, text: fill(&stages::planned_operators(operators)) });
                parts.push(Part { name: LLVM, text: fill(&stages::operators_to_llvm(usize::BITS, operators)) });
            }
            Lowering::HostLoops => parts.push(Part { name: LOOPS, text: fill(&stages::host_loops()) }),
        }
        CompilePipeline { parts }
    }

    /// The whole pipeline as `umac-opt --pass-pipeline` takes it.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.parts.iter().map(|p| p.text.as_str()).filter(|t| !t.is_empty()).collect();
        format!("builtin.module({})", texts.join(","))
    }
}

/// What the caller wants to see of a compile.
#[derive(Clone, Debug, Default)]
pub struct Observe {
    /// Print the IR after every pass to standard error (`--mlir-print-ir-after-all`).
    pub print_ir_after_all: bool,
    /// Write the final module (the llvm dialect, or the Cranelift engine's loop level) here
    /// (`--emit-mlir`), exactly as `umac-opt` would print it.
    pub emit_mlir: Option<PathBuf>,
}

/// Runs a compile pipeline's parts on one module; with `UMAC_DUMP_IR=DIR`, writes the pipeline
/// (`DIR/pipeline.txt`) and the module after each part (`DIR/<k>-<part>.mlir`).
pub struct Runner<'c, 'p> {
    context: &'c Context,
    pipeline: &'p CompilePipeline,
    observe: &'p Observe,
    dump: Option<PathBuf>,
}

impl<'c, 'p> Runner<'c, 'p> {
    /// A runner for `pipeline`.
    pub fn new(context: &'c Context, pipeline: &'p CompilePipeline, observe: &'p Observe) -> Self {
        crate::register_targets();
        let dump = std::env::var_os("UMAC_DUMP_IR").map(PathBuf::from);
        if let Some(dir) = &dump {
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join("pipeline.txt"), pipeline.text() + "\n");
        }
        Runner { context, pipeline, observe, dump }
    }

    /// Runs the part named `name` (nothing when it is empty). A failing pass has reported its
    /// errors at the offending ops.
    pub fn run(&self, module: &mut Module, name: &str) -> Result<(), Error> {
        let Some((index, part)) = self.pipeline.parts.iter().enumerate().find(|(_, p)| p.name == name) else {
            return Err(Error::Compile(format!("internal error: the pipeline has no part '{name}'")));
        };
        if !part.text.is_empty() {
            let manager = build_pass_manager(self.context, &format!("builtin.module({})", part.text), "builtin.module")
                .map_err(|e| Error::Compile(format!("internal error: the {name} pipeline does not parse: {e}")))?;
            self.configure(&manager);
            manager.run(module).map_err(|_| Error::Reported)?;
        }
        if let Some(dir) = &self.dump {
            let _ = std::fs::write(dir.join(format!("{index}-{name}.mlir")), print_module(module));
        }
        if index + 1 == self.pipeline.parts.len()
            && let Some(path) = &self.observe.emit_mlir
        {
            std::fs::write(path, print_module(module))
                .map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
        }
        Ok(())
    }

    fn configure(&self, manager: &PassManager) {
        if self.observe.print_ir_after_all {
            manager.enable_ir_printing(&PassIrPrintingOptions {
                before_all: false,
                after_all: true,
                module_scope: false,
                on_change: false,
                on_failure: false,
                flags: Default::default(),
                tree_printing_path: PathBuf::new(),
            });
        }
    }
}

/// With `UMAC_DUMP_IR=DIR`, writes `text` to `DIR/<file>` (the LLVM IR and objects code
/// generation makes from the last part).
pub fn dump(file: &str, bytes: impl AsRef<[u8]>) {
    if let Some(dir) = std::env::var_os("UMAC_DUMP_IR") {
        let _ = std::fs::write(PathBuf::from(dir).join(file), bytes);
    }
}

/// Whether [`dump`] writes anything (so that text is only made for it when it does).
pub fn dumping() -> bool {
    std::env::var_os("UMAC_DUMP_IR").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_form_one_pipeline() {
        let entry =
            EntrySteps { entry: "main", shapes: Some(&[vec![2, 4]]), rename: Some("kws"), ..Default::default() };
        let pipeline = CompilePipeline::new(
            &entry,
            &TargetSet::default(),
            Lowering::Firmware {
                index_bits: 32,
                operators: stages::OperatorOptions { split_borders: true, ..Default::default() },
            },
        );
        let names: Vec<&str> = pipeline.parts.iter().map(|p| p.name).collect();
        assert_eq!(names, [ENTRY, PRE_PARTITION, ACCELERATORS, OPERATORS, LLVM]);
        assert_eq!(
            pipeline.parts[0].text,
            "umac-legalize-tfl-lstm,tosa-to-mlprogram,umac-isolate-global-values,umac-specialize-entry{entry=main shapes=2x4},\
             umac-strip-entry-attributes{entry=main},umac-rename-entry{entry=main name=kws},\
             func.func(umac-tabulate-lookups)"
        );
        assert!(pipeline.parts[1].text.is_empty() && pipeline.parts[2].text.is_empty(), "no accelerators, no part");
        let text = pipeline.text();
        assert!(text.starts_with("builtin.module(umac-legalize-tfl-lstm,tosa-to-mlprogram,umac-isolate-global-values,umac-specialize-entry{"), "{text}");
        assert!(!text.contains(",,"), "empty parts leave no gap: {text}");
        assert!(text.contains("umac-split-borders") && text.contains("index-bitwidth=32"), "{text}");
        let host = CompilePipeline::new(
            &EntrySteps { entry: "main", ..Default::default() },
            &TargetSet::default(),
            Lowering::HostLlvm,
        );
        assert!(!host.text().contains("umac-split-borders"));
        assert!(host.text().contains("umac-vectorize-dot-products,umac-vectorize-elementwise-loops{"));
        assert!(host.text().contains("channel-offsets=true}"));
        assert!(host.text().contains("umac-im2col{all-windows=true}"));
        assert!(host.text().contains("umac-tile-and-fuse{vectors=true pixels=true}"));
        assert!(host.text().starts_with(
            "builtin.module(umac-legalize-tfl-lstm,tosa-to-mlprogram,umac-isolate-global-values,umac-resolve-slice-sizes,"
        ));
    }
}
