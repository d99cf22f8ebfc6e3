//! The backend API with test backends: pattern features, target priority, region merging,
//! strategies, prototypes, codegen hooks and phases — each checked on small TOSA functions run
//! through the same pipeline text `umac compile` builds.

use crate::{
    Attr, Backend, Builder, Composite, ConfiguredBackend, Error, ExternArg, ExternCall, ExternCallSite, GraphStep,
    Kernel, Param, Phase, PhasePass, SourceFile, Strategy, TargetAttr, TargetAttrs, TargetSet, Ty, any_op,
    flow::{Runs, accelerator_steps, describe_calls, extern_functions, fill_hooks, pre_partition_steps},
    kernel::Scalar,
    op,
    partition::{Placement, partition, plan},
    register_backends,
};
use melior::ir::{Module, operation::OperationLike as _};
use umac_dialects::{
    ContextOptions, create_context,
    ir::symbol_name,
    source::{parse_module, print_module},
};
use umac_lowering::{Step, build_pass_manager, stages::TOSA_TO_LINALG};

/// Claims `tosa.abs` (optionally followed by `tosa.bitwise_not`) and lowers it to `abs_kernel`, or to
/// the reference lowering when `reference` is set.
pub(crate) struct Abs {
    name: &'static str,
    merge: bool,
    reference: bool,
    /// A schedule (with `reference`): `Strategy::Schedule`.
    schedule: &'static str,
    /// `replace_call_extern`: a symbol to call instead; or the call's definition.
    replace: Option<&'static str>,
    define: Option<DefineFn>,
    passes: &'static [(Phase, &'static str)],
    /// The parameter names the call binds (the prototype's are `x`, `n`, `y`).
    names: [&'static str; 2],
    /// Passes `n` as an address in its region `buf` (64 bytes of `<name>.sram`): byte 16 with
    /// the `bitwise_not`, else byte 8, the composite then releasing the region.
    regions: bool,
    /// With `regions`: `buf` a static buffer of the calling processor instead.
    fixed: bool,
}

/// `abs_kernel` and its variant: `void abs_kernel(const int32_t *x, int32_t n, int32_t *y)`.
fn abs_kernel(symbol: &'static str) -> Kernel {
    Kernel {
        symbol,
        parameters: vec![Param::input("x", Scalar::I32), Param::int32("n"), Param::output("y", Some(Scalar::I32))],
        address: 0,
        source: SourceFile { path: "abs.c", text: "" },
        headers: vec![],
    }
}

impl Backend for Abs {
    fn name(&self) -> &'static str {
        self.name
    }
    fn attributes(&self) -> Vec<TargetAttr> {
        vec![TargetAttr::int("n", 16, "a number")]
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<crate::Pattern> {
        vec![
            crate::Pattern::new(&format!("{}.abs", self.name), op("tosa.abs").element_type(0, "i32"))
                .optional(op("tosa.bitwise_not")),
        ]
    }
    fn strategy(&self, composite: &Composite, _: &TargetAttrs) -> Result<Strategy, Error> {
        if self.reference {
            return Ok(if self.schedule.is_empty() {
                Strategy::Reference
            } else {
                Strategy::Schedule(self.schedule.into())
            });
        }
        let n = composite.last().result_type().map(|t| t.dims().iter().product::<i64>()).unwrap_or(0);
        let call =
            ExternCall::new("abs_kernel").arg(self.names[0], ExternArg::Operand { role: "tosa.abs".into(), index: 0 });
        let call = if self.regions {
            let alone = composite.ops.len() == 1;
            let call = if self.fixed {
                call.static_region("buf", 64)
            } else {
                call.region("buf", 64, &format!("{}.sram", self.name))
            };
            let call = call
                .arg(self.names[1], ExternArg::Address { region: "buf".into(), offset: if alone { 8 } else { 16 } });
            if alone { call.release("buf") } else { call }
        } else {
            call.arg(self.names[1], ExternArg::I32(n))
        };
        Ok(Strategy::Extern(match self.define {
            Some(define) => call.defined_by(std::sync::Arc::new(define)),
            None => call,
        }))
    }
    fn passes(&self, _: &TargetAttrs) -> Vec<PhasePass> {
        self.passes.iter().map(|(phase, p)| PhasePass { phase: *phase, pipeline: p.to_string() }).collect()
    }
    fn merge_compiler_regions(&self) -> bool {
        self.merge
    }
    fn replace_call_extern(&self, call: &ExternCallSite) -> Option<String> {
        assert_eq!(call.argument_types, ["memref<4xi32>", "i32", "memref<4xi32>"]);
        assert_eq!(
            (call.callee.as_str(), call.composite.as_str()),
            ("abs_kernel", format!("{}.abs", self.name).as_str())
        );
        assert!(self.define.is_none(), "a defined callee is not replaced");
        self.replace.map(String::from)
    }
    fn kernels(&self) -> Vec<Kernel> {
        vec![abs_kernel("abs_kernel"), abs_kernel("abs_kernel_v2")]
    }
    fn describe_call(&self, call: &ExternCallSite, _: &[Option<i64>], _: &TargetAttrs) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "kernel": call.kernel }))
    }
}

/// Claims any op whose result is int32 (a wildcard op with a predicate).
struct Any;

impl Backend for Any {
    fn name(&self) -> &'static str {
        "any"
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<crate::Pattern> {
        vec![crate::Pattern::new("any.i32", any_op().result_element_type("i32"))]
    }
    fn strategy(&self, _: &Composite, _: &TargetAttrs) -> Result<Strategy, Error> {
        Ok(Strategy::Reference)
    }
}

/// A backend without a dialect whose graph step rewrites every `tosa.clz` into `tosa.abs` before
/// partitioning, when its attribute `rewrite` is 1.
struct Graphed;

impl Backend for Graphed {
    fn name(&self) -> &'static str {
        "graphed"
    }
    fn attributes(&self) -> Vec<TargetAttr> {
        vec![TargetAttr::int("rewrite", 1, "rewrite clz into abs")]
    }
    fn patterns(&self, _: &TargetAttrs) -> Vec<crate::Pattern> {
        vec![crate::Pattern::new("graphed.abs", op("tosa.abs"))]
    }
    fn strategy(&self, _: &Composite, _: &TargetAttrs) -> Result<Strategy, Error> {
        Ok(Strategy::Reference)
    }
    fn graph_steps(&self) -> &'static [GraphStep] {
        &[GraphStep { name: "clz-to-abs", summary: "tosa.clz becomes tosa.abs", run: clz_to_abs }]
    }
}

fn clz_to_abs(module: melior::ir::OperationRef, attributes: &TargetAttrs) -> Result<(), Error> {
    if attributes.int("rewrite") != 1 {
        return Ok(());
    }
    for clz in umac_dialects::ir::collect(module, |op| umac_dialects::ir::op_name(op) == "tosa.clz") {
        // SAFETY: the op is alive; the new op takes its operand, type and location and replaces it.
        unsafe {
            use mlir_sys::*;
            let result = mlirOperationGetResult(clz, 0);
            let abs = umac_dialects::ir::build(
                "tosa.abs",
                mlirOperationGetLocation(clz),
                &[mlirOperationGetOperand(clz, 0)],
                &[mlirValueGetType(result)],
                &[],
            );
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(clz), clz, abs);
            mlirValueReplaceAllUsesOfWith(result, mlirOperationGetResult(abs, 0));
            mlirOperationDestroy(clz);
        }
    }
    Ok(())
}

const fn abs(name: &'static str) -> Abs {
    Abs {
        name,
        merge: true,
        reference: false,
        schedule: "",
        replace: None,
        define: None,
        passes: &[],
        names: ["x", "n"],
        regions: false,
        fixed: false,
    }
}

static FIRST: Abs = abs("first");
static SECOND: Abs = abs("second");
static ANY: Any = Any;
static SEPARATE: Abs = Abs { merge: false, ..abs("separate") };
static REFERENCE: Abs = Abs { reference: true, ..abs("reference") };
static SCHEDULED: Abs = Abs { reference: true, schedule: "tosa-to-linalg", ..abs("scheduled") };
static BROKEN: Abs = Abs { reference: true, schedule: "no-such-pass", ..abs("broken") };
static RENAMED: Abs = Abs { replace: Some("abs_kernel_v2"), ..abs("renamed") };
/// Defines the kernel as a function that returns at once.
static DEFINED: Abs = Abs { define: Some(|_| Ok(())), ..abs("defined") };
/// Defines it and records what it defined, for `describe_call`.
static DESCRIBED: Abs = Abs {
    define: Some(|b| {
        b.set_function_attribute(
            &crate::kernel_attribute("described"),
            Attr::Dict(&[("bands", Attr::Int(Ty::I64, 3)), ("x", Attr::Unit)]),
        );
        Ok(())
    }),
    ..abs("described")
};
/// Defines it with an attribute that does not parse.
static MISDEFINED: Abs = Abs {
    define: Some(|b| {
        b.set_function_attribute("broken", Attr::Parsed("#not<an"));
        Ok(())
    }),
    ..abs("misdefined")
};
/// Cannot define it.
static REGIONED: Abs = Abs { define: Some(|_| Ok(())), regions: true, ..abs("regioned") };
static STATIC: Abs = Abs { define: Some(|_| Ok(())), regions: true, fixed: true, ..abs("static") };
static UNDEFINED: Abs = Abs { define: Some(|_| Err(Error::Unsupported("no".into()))), ..abs("undefined") };
static UNDECLARED: Abs = Abs { replace: Some("abs_kernel_v3"), ..abs("undeclared") };
static WRONG_NAMES: Abs = Abs { names: ["x", "count"], ..abs("wrongnames") };
static PHASED: Abs = Abs { passes: &[(Phase::Loop2, "strip-debuginfo")], ..abs("phased") };
static GRAPHED: Graphed = Graphed;

/// A test backend's definition of its kernel.
type DefineFn = fn(&mut Builder) -> Result<(), Error>;

/// Registers every test backend (once per test process: the registry is set once).
pub(crate) fn register_test_backends() {
    register_backends(vec![
        &FIRST,
        &SECOND,
        &ANY,
        &SEPARATE,
        &REFERENCE,
        &SCHEDULED,
        &BROKEN,
        &RENAMED,
        &DEFINED,
        &DESCRIBED,
        &REGIONED,
        &STATIC,
        &MISDEFINED,
        &UNDEFINED,
        &UNDECLARED,
        &WRONG_NAMES,
        &PHASED,
        &GRAPHED,
    ]);
}

fn set(backends: Vec<&'static dyn Backend>) -> TargetSet {
    TargetSet {
        accelerators: backends
            .into_iter()
            .map(|backend| ConfiguredBackend { backend, attributes: TargetAttrs::defaults(&backend.attributes()) })
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
    register_test_backends();
    let context = create_context(ContextOptions::default());
    let mut module = parse_module(&context, "test.mlir", text.as_bytes()).unwrap();
    work(&context, &mut module);
}

fn text(module: &Module) -> String {
    print_module(module)
}

/// Runs `steps` (hooks filled for `targets`) as one pipeline, as `umac compile` does.
fn run(context: &melior::Context, module: &mut Module, steps: &[Step], targets: &TargetSet) -> Result<(), Error> {
    let pipeline = format!("builtin.module({})", fill_hooks(steps, targets).join(","));
    let manager = build_pass_manager(context, &pipeline, "builtin.module")?;
    manager.run(module).map_err(|_| Error::Reported)
}

/// The placements, then the accelerator steps of the pipeline.
fn partition_and_legalize(
    context: &melior::Context,
    module: &mut Module,
    targets: &TargetSet,
) -> Result<Vec<Placement>, Error> {
    let placements = plan(module.as_operation(), &targets.accelerators)?.placements;
    run(context, module, &accelerator_steps(targets, Runs::Accelerators), targets)?;
    Ok(placements)
}

#[test]
fn the_earlier_target_wins_and_regions_merge() {
    with_module(MODEL, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&FIRST, &ANY]).accelerators).unwrap();
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
        let placements = partition(module.as_operation(), &set(vec![&ANY, &FIRST]).accelerators).unwrap();
        assert!(placements.iter().all(|p| p.target == "any"), "{placements:?}");
    });
}

#[test]
fn planning_changes_nothing_and_agrees_with_partitioning() {
    with_module(MODEL, |_, module| {
        let before = text(module);
        let planned = plan(module.as_operation(), &set(vec![&FIRST, &ANY]).accelerators).unwrap().placements;
        assert_eq!(text(module), before);
        let done = partition(module.as_operation(), &set(vec![&FIRST, &ANY]).accelerators).unwrap();
        assert_eq!(planned, done);
    });
}

#[test]
fn merging_can_be_turned_off() {
    with_module(MODEL, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&SEPARATE]).accelerators).unwrap();
        let functions: Vec<&str> = placements.iter().filter_map(|p| p.function.as_deref()).collect();
        assert_eq!(functions, ["separate_0", "separate_0", "separate_1", "separate_2"]);
        assert_eq!(placements[3].target, "cpu");
    });
}

#[test]
fn the_pipeline_names_the_targets_with_their_attributes() {
    register_test_backends();
    let targets = set(vec![&FIRST, &ANY]);
    assert_eq!(
        fill_hooks(&accelerator_steps(&targets, Runs::Accelerators), &targets),
        ["umac-partition{targets={first -n=16,any}}", "umac-legalize-first{attributes=-n=16}", "umac-legalize-any"]
    );
    assert!(accelerator_steps(&TargetSet::default(), Runs::Accelerators).is_empty());
}

/// A graph step runs before partitioning with the target's attributes (registered for a backend
/// without a dialect too): what it rewrites is what the partitioner then claims.
#[test]
fn graph_steps_run_before_partitioning() {
    register_test_backends();
    let targets = set(vec![&GRAPHED]);
    let pre = fill_hooks(&pre_partition_steps(&targets), &targets);
    assert_eq!(pre, ["umac-clz-to-abs-graphed{attributes=-rewrite=1}"]);
    assert!(pre_partition_steps(&TargetSet::default()).is_empty());
    with_module(MODEL, |context, module| {
        run(context, module, &pre_partition_steps(&targets), &targets).unwrap();
        let placements = plan(module.as_operation(), &targets.accelerators).unwrap().placements;
        let claimed: Vec<&str> = placements.iter().filter(|p| p.target == "graphed").map(|p| p.op.as_str()).collect();
        // Three abs ops and the clz rewritten into one.
        assert_eq!(claimed, ["tosa.abs", "tosa.abs", "tosa.abs", "tosa.abs"]);
    });
    // With the attribute off, the step changes nothing.
    let off = TargetSet {
        accelerators: vec![ConfiguredBackend {
            backend: &GRAPHED,
            attributes: crate::target_string::parse_accelerators("graphed -rewrite=0").unwrap().remove(0).attributes,
        }],
        cpu: None,
    };
    with_module(MODEL, |context, module| {
        run(context, module, &pre_partition_steps(&off), &off).unwrap();
        assert!(text(module).contains("tosa.clz"));
    });
}

#[test]
fn the_reference_strategy_inlines_back() {
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
    with_module(SINGLE, |context, module| {
        partition_and_legalize(context, module, &set(vec![&FIRST])).unwrap();
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
        let described = describe_calls(module, &set(vec![&DEFINED]));
        assert_eq!(described[0].plan, serde_json::json!({"kernel": null}));
    });
    // What the definition recorded reaches `describe_call`, read from the IR.
    with_module(SINGLE, |context, module| {
        partition_and_legalize(context, module, &set(vec![&DESCRIBED])).unwrap();
        let described = describe_calls(module, &set(vec![&DESCRIBED]));
        assert_eq!(described.len(), 1);
        assert_eq!(described[0].plan, serde_json::json!({"kernel": [["bands", [3]], ["x", []]]}));
    });
    for rejected in [&MISDEFINED, &UNDEFINED, &UNDECLARED] {
        with_module(SINGLE, |context, module| {
            assert!(partition_and_legalize(context, module, &set(vec![rejected])).is_err(), "{}", rejected.name);
        });
    }
}

/// A region the calls of a function name is one buffer in its memory space, allocated at the
/// function's entry; each call passes addresses in it, and the one releasing it frees it.
#[test]
fn calls_share_regions_of_an_accelerators_memory() {
    with_module(MODEL, |context, module| {
        partition_and_legalize(context, module, &set(vec![&REGIONED])).unwrap();
        let ir = text(module);
        let functions: Vec<&str> = ir.split("func.func private @regioned_").skip(1).collect();
        assert_eq!(functions.len(), 2, "{ir}");
        // [abs, bitwise_not] then [abs]: one buffer, byte 16 then byte 8, freed after the second.
        let first = functions[0];
        let alloc = "%alloc = memref.alloc() {alignment = 16 : i64} : memref<64xi8, \"regioned.sram\">";
        assert_eq!(first.matches("memref.alloc() {alignment = 16 : i64} : memref<64xi8").count(), 1, "{first}");
        assert_eq!(first.lines().nth(1).map(str::trim), Some(alloc), "allocated first: {first}");
        let pointers = "memref.extract_aligned_pointer_as_index %alloc : memref<64xi8, \"regioned.sram\"> -> index";
        assert_eq!(first.matches(pointers).count(), 2, "{first}");
        for offset in ["%c16_i32 = arith.constant 16 : i32", "%c8_i32 = arith.constant 8 : i32"] {
            assert!(first.contains(offset), "{first}");
        }
        let calls: Vec<usize> = first.match_indices("umac.call_extern").map(|(i, _)| i).collect();
        let dealloc = first.find("memref.dealloc %alloc : memref<64xi8, \"regioned.sram\">").expect("freed");
        assert!(calls.len() == 2 && dealloc > calls[1], "after the second call: {first}");
        // The function after (its own [abs]) has its own buffer.
        assert_eq!(functions[1].matches("memref<64xi8, \"regioned.sram\">").count(), 3, "{}", functions[1]);
    });
}

/// A static region: one `llvm.mlir.global` per function before it (zeroed, word-aligned, in
/// `LOCAL_SECTION`), whose address the function takes once at its entry and its calls point
/// into; nothing frees it.
#[test]
fn calls_share_a_static_buffer() {
    with_module(MODEL, |context, module| {
        partition_and_legalize(context, module, &set(vec![&STATIC])).unwrap();
        let ir = text(module);
        for f in ["static_0", "static_1"] {
            let global = format!(
                "llvm.mlir.global internal @__umac_{f}_buf(dense<0> : tensor<64xi8>) {{addr_space = 0 : i32, \
                 alignment = 4 : i64, section = \"{}\"}} : !llvm.array<64 x i8>\n  func.func private @{f}(",
                crate::LOCAL_SECTION
            );
            assert!(ir.contains(&global), "{f}'s buffer before it: {ir}");
        }
        let functions: Vec<&str> = ir.split("func.func private @static_").skip(1).collect();
        assert_eq!(functions.len(), 2, "{ir}");
        let first: Vec<&str> = functions[0].lines().map(str::trim).collect();
        assert_eq!(first[1], "%0 = llvm.mlir.addressof @__umac_static_0_buf : !llvm.ptr", "{ir}");
        assert_eq!(first[2], "%1 = llvm.ptrtoint %0 : !llvm.ptr to i32", "{ir}");
        // Both calls point into it (bytes 16 and 8), neither takes a pointer of a buffer.
        assert_eq!(functions[0].matches("= arith.addi %1, %c").count(), 2, "{ir}");
        assert!(!ir.contains("memref.extract_aligned_pointer_as_index"), "{ir}");
        assert!(!ir.contains("memref.alloca") && !ir.contains("memref<64xi8"), "{ir}");
    });
}

/// What `describe_call` gets for an address: the constant its arithmetic folds to, once the
/// backend placed the region.
#[test]
fn described_scalars_fold_integer_arithmetic() {
    let source = "func.func @f(%p: index) -> i32 {
  %c = arith.constant 268435840 : index
  %i = arith.index_cast %c : index to i32
  %o = arith.constant 8 : i32
  %a = arith.addi %i, %o : i32
  %four = arith.constant 4 : i32
  %m = arith.muli %a, %four : i32
  %q = arith.index_cast %p : index to i32
  %b = arith.addi %q, %o : i32
  %r = arith.addi %m, %b : i32
  return %r : i32
}";
    with_module(source, |_, module| {
        let mut values = std::collections::HashMap::new();
        module.as_operation().walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            if let Ok(result) = op.result(0) {
                values.insert(
                    umac_dialects::ir::op_name(&op) + &values.len().to_string(),
                    crate::flow::constant_of(result.into()),
                );
            }
            melior::ir::operation::WalkResult::Advance
        });
        let folded = |prefix: &str| {
            let mut found: Vec<_> =
                values.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), *v)).collect();
            found.sort();
            found.into_iter().map(|(_, v)| v).collect::<Vec<_>>()
        };
        // The muli folds ((0x10000180 + 8) * 4); what reads %p does not.
        assert_eq!(folded("arith.muli"), [Some((268435840 + 8) * 4)]);
        let adds = folded("arith.addi");
        assert_eq!(adds.iter().filter(|v| **v == Some(268435848)).count(), 1, "{adds:?}");
        assert_eq!(adds.iter().filter(|v| v.is_none()).count(), 2, "{adds:?}");
    });
}

#[test]
fn calls_that_do_not_fit_the_prototype_are_reported_at_the_composite() {
    with_module(SINGLE, |context, module| {
        let diagnostics = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = diagnostics.clone();
        umac_dialects::attach_handler(context, move |d| {
            sink.borrow_mut().push(format!("{}: {}", d.location.as_ref().map_or(0, |l| l.line), d.message));
            true
        });
        assert!(partition_and_legalize(context, module, &set(vec![&WRONG_NAMES])).is_err());
        assert_eq!(
            diagnostics.borrow().as_slice(),
            ["2: wrongnames.abs: argument #1 of abs_kernel is named 'count', the prototype's parameter #1 is 'n'"]
        );
    });
}

#[test]
fn function_phases_run_on_the_backends_functions_only() {
    // `strip-debuginfo` on the backend's function only (a function phase) keeps the locations of
    // @main.
    with_module(SINGLE, |context, module| {
        let targets = set(vec![&PHASED]);
        partition_and_legalize(context, module, &targets).unwrap();
        let steps = [
            Step::Passes(TOSA_TO_LINALG.into()),
            Step::Hook(Phase::Loop0),
            Step::Hook(Phase::Loop1),
            Step::Passes("one-shot-bufferize{bufferize-function-boundaries}".into()),
            Step::Hook(Phase::Loop2),
        ];
        assert_eq!(fill_hooks(&steps, &targets)[2], "umac-on-target-functions{target=phased pipeline=strip-debuginfo}");
        run(context, module, &steps, &targets).unwrap();
        // Ops of @phased_0 lost their locations; @main's kept theirs.
        let mut located = std::collections::BTreeMap::new();
        for function in umac_dialects::ir::top_level_ops(module.as_operation()) {
            let mut known = (0, 0);
            function.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
                if umac_dialects::location::file_line_col(op.location()).is_some() {
                    known.0 += 1;
                } else {
                    known.1 += 1;
                }
                melior::ir::operation::WalkResult::Advance
            });
            located.insert(symbol_name(&function).unwrap_or_default(), known);
        }
        assert_eq!(located["phased_0"].0, 0, "{located:?}");
        assert!(located["main"].0 > 0 && located["phased_0"].1 > 0, "{located:?}");
    });
}

#[test]
fn near_misses_name_the_failed_predicate() {
    let i8 = "func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {\n  %a = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>\n  return %a : tensor<4xi8>\n}\n";
    with_module(i8, |_, module| {
        let placements = partition(module.as_operation(), &set(vec![&FIRST]).accelerators).unwrap();
        assert_eq!(placements[0].target, "cpu");
        assert_eq!(placements[0].reason.as_deref(), Some("first.abs: operand #0 has element type i32 failed"));
        assert_eq!(placements[0].location, "test.mlir:2:8");
    });
}

/// Input chains: `add(not(abs(x)), clz(y))` with `abs` required and `not` optional in front of
/// operand 0, `clz` in front of operand 1, and an optional trailing `abs`.
const CHAINS: &str = "func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %a = tosa.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  %n = tosa.bitwise_not %a : (tensor<4xi32>) -> tensor<4xi32>
  %c = tosa.clz %y : (tensor<4xi32>) -> tensor<4xi32>
  %s = tosa.add %n, %c : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %t = tosa.abs %s : (tensor<4xi32>) -> tensor<4xi32>
  %a2 = tosa.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  %c2 = tosa.clz %y : (tensor<4xi32>) -> tensor<4xi32>
  %s2 = tosa.add %a2, %c2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %u = tosa.add %s2, %c2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %t, %u : tensor<4xi32>, tensor<4xi32>
}
";

#[test]
fn input_chains_join_the_composite_in_dataflow_order() {
    use crate::pattern::{Outcome, match_at};
    let pattern = crate::Pattern::new("t.add", op("tosa.add"))
        .input(0, vec![(op("tosa.abs").role("x.abs"), false), (op("tosa.bitwise_not"), true)])
        .input(1, vec![(op("tosa.clz"), false)])
        .optional(op("tosa.abs"));
    with_module(CHAINS, |_, module| {
        use melior::ir::{BlockLike as _, RegionLike as _};
        let function = module.body().first_operation().unwrap();
        let body = function.region(0).unwrap().first_block().unwrap();
        let ops: Vec<_> = std::iter::successors(body.first_operation(), |o| o.next_in_block()).collect();
        let outcome = |i: usize| match_at(&pattern, ops[i], &|_| false);
        // The first add: abs, not, clz, the root, the trailing abs.
        let Outcome::Matched(m) = outcome(3) else { panic!("the first add does not match") };
        let roles: Vec<&str> = m.ops.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles, ["x.abs", "tosa.bitwise_not", "tosa.clz", "tosa.add", "tosa.abs"]);
        assert_eq!(m.root, 3);
        assert_eq!(m.root_op(), ops[3]);
        // The second: `not` is optional, but %c2 has two users, so clz cannot join.
        let Outcome::NearMiss(why) = outcome(7) else { panic!("the second add matches") };
        assert_eq!(why, "operand #1 is the result of a tosa.clz used only here");
        // The third: its operand 0 is an add, not an abs.
        let Outcome::NearMiss(why) = outcome(8) else { panic!("the third add matches") };
        assert_eq!(why, "operand #0 comes from a tosa.abs");
        // Claimed producers are not taken again.
        let claimed = |o: &melior::ir::OperationRef| *o == ops[2];
        assert!(matches!(match_at(&pattern, ops[3], &claimed), Outcome::NearMiss(_)));
    });
}
