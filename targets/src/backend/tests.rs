//! The backend API with test backends: pattern features, target priority, region merging,
//! strategies, codegen hooks and phases — each checked on small TOSA functions.

use super::{
    Backend, Composite, ConfiguredBackend, ExternArg, ExternCall, ExternCallSite, Phase, PhasePass, Replacement,
    Strategy, TargetAttrs, TargetSet, any_op,
    flow::{Stage, extern_functions, lower_in_stages, partition_and_legalize},
    op,
    partition::partition,
};
use melior::ir::{Module, operation::OperationLike as _};
use umac_dialects::{
    ContextOptions, create_context,
    source::{SourceChunk, parse_module, print_module},
};

/// Claims `tosa.abs` (optionally followed by `tosa.bitwise_not`) and lowers it to `abs_kernel`, or to
/// the reference lowering when `reference` is set.
struct Abs {
    name: &'static str,
    merge: bool,
    reference: bool,
    /// A schedule (with `reference`): `Strategy::Schedule`.
    schedule: &'static str,
    /// `replace_call_extern`: a symbol to call instead, or (starting with `func.func`) a definition.
    replace: Option<&'static str>,
    passes: &'static [(Phase, &'static str)],
}

impl Backend for Abs {
    fn name(&self) -> &'static str {
        self.name
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<super::Pattern> {
        vec![
            super::Pattern::new(&format!("{}.abs", self.name), op("tosa.abs").element_type(0, "i32"))
                .optional(op("tosa.bitwise_not")),
        ]
    }
    fn strategy(&self, composite: &Composite, _: &TargetAttrs) -> Result<Strategy, String> {
        if self.reference {
            return Ok(if self.schedule.is_empty() {
                Strategy::Reference
            } else {
                Strategy::Schedule(self.schedule.into())
            });
        }
        let n = composite.last().result_type().map(|t| t.dims().iter().product::<i64>()).unwrap_or(0);
        Ok(Strategy::Extern(ExternCall {
            callee: "abs_kernel".into(),
            arguments: vec![ExternArg::Operand { role: "tosa.abs".into(), index: 0 }, ExternArg::I32(n)],
        }))
    }
    fn passes(&self, _: &TargetAttrs) -> Vec<PhasePass> {
        self.passes.iter().map(|(phase, p)| PhasePass { phase: *phase, pipeline: p.to_string() }).collect()
    }
    fn merge_compiler_regions(&self) -> bool {
        self.merge
    }
    fn replace_call_extern(&self, call: &ExternCallSite) -> Option<Replacement> {
        assert_eq!(call.argument_types, ["memref<4xi32>", "i32", "memref<4xi32>"]);
        assert_eq!(
            (call.callee.as_str(), call.composite.as_str()),
            ("abs_kernel", format!("{}.abs", self.name).as_str())
        );
        self.replace.map(|r| {
            if r.starts_with("func.func") { Replacement::Definition(r.into()) } else { Replacement::Symbol(r.into()) }
        })
    }
}

/// Claims any op whose result is int32 (a wildcard op with a predicate).
struct Any;

impl Backend for Any {
    fn name(&self) -> &'static str {
        "any"
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<super::Pattern> {
        vec![super::Pattern::new("any.i32", any_op().result_element_type("i32"))]
    }
    fn strategy(&self, _: &Composite, _: &TargetAttrs) -> Result<Strategy, String> {
        Ok(Strategy::Reference)
    }
}

const fn abs(name: &'static str) -> Abs {
    Abs { name, merge: true, reference: false, schedule: "", replace: None, passes: &[] }
}

fn set(backends: Vec<&'static dyn Backend>) -> TargetSet {
    TargetSet {
        accelerators: backends
            .into_iter()
            .map(|backend| ConfiguredBackend { backend, attributes: TargetAttrs::default() })
            .collect(),
        cpu: None,
    }
}

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

fn with_module(text: &str, work: impl FnOnce(&melior::Context, &mut Module)) {
    let context = create_context(ContextOptions::default());
    let mut module =
        parse_module(&context, &SourceChunk { name: "test.mlir", bytes: text.as_bytes(), first_line: 1 }).unwrap();
    work(&context, &mut module);
}

fn text(module: &Module) -> String {
    print_module(module, Default::default())
}

#[test]
fn the_earlier_target_wins_and_regions_merge() {
    static FIRST: Abs = abs("first");
    with_module(MODEL, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&FIRST, &Any]).accelerators).unwrap();
        let targets: Vec<(&str, &str)> = placements.iter().map(|p| (p.op.as_str(), p.target.as_str())).collect();
        // abs+negate and abs merge (the second consumes the first); clz goes to `any`, which
        // also matches the abs ops but comes second; the last abs is separated by clz.
        assert_eq!(
            targets,
            [
                ("tosa.abs", "first"),
                ("tosa.bitwise_not", "first"),
                ("tosa.abs", "first"),
                ("tosa.clz", "any"),
                ("tosa.abs", "first")
            ]
        );
        let functions: Vec<&str> = placements.iter().filter_map(|p| p.function.as_deref()).collect();
        assert_eq!(functions, ["first_0", "first_0", "first_0", "any_0", "first_1"]);
        let ir = text(module);
        assert!(ir.contains("umac.composite = \"first.abs\", umac.target = \"first\""), "{ir}");
    });
    with_module(MODEL, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&Any, &FIRST]).accelerators).unwrap();
        assert!(placements.iter().all(|p| p.target == "any"), "{placements:?}");
    });
}

#[test]
fn merging_can_be_turned_off() {
    static SEPARATE: Abs = Abs { merge: false, ..abs("separate") };
    with_module(MODEL, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&SEPARATE]).accelerators).unwrap();
        let functions: Vec<&str> = placements.iter().filter_map(|p| p.function.as_deref()).collect();
        assert_eq!(functions, ["separate_0", "separate_0", "separate_1", "separate_2"]);
        assert_eq!(placements[3].target, "cpu");
    });
}

#[test]
fn the_reference_strategy_inlines_back() {
    static REFERENCE: Abs = Abs { reference: true, ..abs("reference") };
    with_module(MODEL, |context, module| {
        let placements = partition_and_legalize(context, module, &set(vec![&REFERENCE])).unwrap();
        assert_eq!(placements[0].target, "reference");
        let ir = text(module);
        assert!(!ir.contains("call @reference") && !ir.contains("func.func private"), "{ir}");
        assert_eq!(ir.matches("tosa.abs").count(), 3, "{ir}");
    });
}

#[test]
fn a_schedule_lowers_the_claimed_ops_only() {
    static SCHEDULED: Abs = Abs { reference: true, schedule: "tosa-to-linalg", ..abs("scheduled") };
    with_module(MODEL, |context, module| {
        partition_and_legalize(context, module, &set(vec![&SCHEDULED])).unwrap();
        let ir = text(module);
        // The claimed abs/bitwise_not ops are loops now, inlined back; clz was not claimed.
        assert!(
            !ir.contains("tosa.abs") && !ir.contains("tosa.bitwise_not") && !ir.contains("func.func private"),
            "{ir}"
        );
        assert!(ir.contains("tosa.clz") && ir.contains("linalg.generic"), "{ir}");
    });
    // The same numbers as without the backend, on both engines.
    let input = umac_runtime::Tensor {
        dtype: umac_runtime::DType::I32,
        shape: vec![4],
        data: [-7i32, 0, 5, i32::MIN].iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    for engine in crate::host::ENGINES {
        let run = |targets: TargetSet| {
            let mut out = Vec::new();
            with_module(MODEL, |context, module| {
                let options = crate::host::CompileOptions { intermediates: false, targets };
                let program =
                    crate::host::compile(context, module, "main", std::slice::from_ref(&input), *engine, options)
                        .unwrap();
                out = program.run(std::slice::from_ref(&input)).unwrap().remove(0).data;
            });
            out
        };
        assert_eq!(run(set(vec![&SCHEDULED])), run(TargetSet::default()), "{}", engine.name());
    }
    static BROKEN: Abs = Abs { reference: true, schedule: "no-such-pass", ..abs("broken") };
    with_module(MODEL, |context, module| {
        assert!(partition_and_legalize(context, module, &set(vec![&BROKEN])).is_err());
    });
}

const SINGLE: &str = "func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  %a = tosa.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  %b = tosa.clz %a : (tensor<4xi32>) -> tensor<4xi32>
  return %b : tensor<4xi32>
}
";

#[test]
fn extern_calls_and_the_replace_hook() {
    static PLAIN: Abs = abs("plain");
    static RENAMED: Abs = Abs { replace: Some("abs_kernel_v2"), ..abs("renamed") };
    static DEFINED: Abs = Abs {
        replace: Some("func.func private @abs_kernel(%in: index, %n: i32, %out: index) { return }"),
        ..abs("defined")
    };
    static MISNAMED: Abs = Abs { replace: Some("func.func private @other(%in: index) { return }"), ..abs("misnamed") };
    with_module(SINGLE, |context, module| {
        partition_and_legalize(context, module, &set(vec![&PLAIN])).unwrap();
        let ir = text(module);
        assert!(ir.contains("\"umac.call_extern\"(%0, %c4_i32, %alloc) {callee = @abs_kernel"), "{ir}");
        assert_eq!(extern_functions(module), ["abs_kernel"]);
    });
    with_module(SINGLE, |context, module| {
        partition_and_legalize(context, module, &set(vec![&RENAMED])).unwrap();
        assert_eq!(extern_functions(module), ["abs_kernel_v2"]);
    });
    with_module(SINGLE, |context, module| {
        partition_and_legalize(context, module, &set(vec![&DEFINED])).unwrap();
        assert!(extern_functions(module).is_empty(), "the object defines it: nothing to link");
        assert!(text(module).contains("func.func private @abs_kernel(%arg0: index, %arg1: i32, %arg2: index)"));
    });
    with_module(SINGLE, |context, module| {
        assert!(partition_and_legalize(context, module, &set(vec![&MISNAMED])).is_err());
    });
}

#[test]
fn function_phases_run_on_the_backends_functions_only() {
    // Each phase's pass leaves a mark: `strip-debuginfo` on the backend's function only (a
    // function phase) keeps the locations of @main.
    static PHASED: Abs = Abs { passes: &[(Phase::Loop2, "strip-debuginfo")], ..abs("phased") };
    with_module(SINGLE, |context, module| {
        let targets = set(vec![&PHASED]);
        partition_and_legalize(context, module, &targets).unwrap();
        let stages = [
            Stage { pipeline: umac_lowering::pipelines::TOSA_TO_LINALG, then: &[Phase::Loop0, Phase::Loop1] },
            Stage { pipeline: "one-shot-bufferize{bufferize-function-boundaries}", then: &[Phase::Loop2] },
        ];
        lower_in_stages(context, module, &stages, &targets).unwrap();
        // Ops of @phased_0 lost their locations; @main's kept theirs.
        let mut located = std::collections::BTreeMap::new();
        let body = module.body();
        let mut next = melior::ir::BlockLike::first_operation(&body);
        while let Some(function) = next {
            next = function.next_in_block();
            let name =
                function.attribute("sym_name").ok().and_then(umac_dialects::umac::string_value).unwrap_or_default();
            let mut known = (0, 0);
            function.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
                if umac_dialects::location::file_line_col(op.location()).is_some() {
                    known.0 += 1;
                } else {
                    known.1 += 1;
                }
                melior::ir::operation::WalkResult::Advance
            });
            located.insert(name, known);
        }
        assert_eq!(located["phased_0"].0, 0, "{located:?}");
        assert!(located["main"].0 > 0 && located["phased_0"].1 > 0, "{located:?}");
    });
}

#[test]
fn near_misses_name_the_failed_predicate() {
    static FIRST: Abs = abs("first");
    let i8 = "func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {\n  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>\n  return %a : tensor<4xi8>\n}\n";
    with_module(i8, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&FIRST]).accelerators).unwrap();
        assert_eq!(placements[0].target, "cpu");
        assert_eq!(placements[0].reason.as_deref(), Some("first.abs: operand #0 has element type i32 failed"));
        assert_eq!(placements[0].location, "test.mlir:2:8");
    });
}
