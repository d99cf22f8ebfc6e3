//! Composite patterns: a small builder for dataflow patterns over TOSA ops, and the matcher.
//!
//! A [`Pattern`] is a root op followed by a chain of trailing ops, each consuming the previous
//! one's single result (and only user): `conv2d → optional add → optional rescale → optional
//! clamp`. A root operand may also be required to come from a chain of producers
//! ([`Pattern::input`]), which join the composite: the rescales in front of a quantized add.
//! Each [`OpPattern`] matches an op by name (or any op), with predicates on attributes,
//! operand types and shapes, and constraints on operands ([`wildcard`], [`constant`]). Every
//! predicate carries a description, so the placement report can say which one failed when an op
//! almost matched.
//! ```ignore
//! Pattern::new("vanilla.conv2d", op("tosa.conv2d").element_type(0, "i8").ints("dilation", "dilation 1x1", |d| d == [1, 1]))
//!     .optional(op("tosa.add").operand(1, constant()))
//!     .optional(op("tosa.rescale"))
//!     .optional(op("tosa.clamp"))
//! ```

pub use crate::view::{OpView, TensorType};
use melior::ir::{
    OperationRef, Value, ValueLike,
    operation::{OperationLike, OperationResult},
};
use std::sync::Arc;

type Check = Arc<dyn Fn(&OpView) -> bool + Send + Sync>;

/// A condition on an op, with the description the placement report prints when it fails.
#[derive(Clone)]
pub struct Predicate {
    /// What must hold, e.g. `dilation is 1x1`.
    pub description: String,
    check: Check,
}

/// What an operand of a matched op must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Anything: it becomes an input of the outlined function.
    Wildcard,
    /// The result of a constant op (`tosa.const`, `arith.constant`): copied into the outlined
    /// function, so the backend sees its value.
    Constant,
}

/// Any value.
pub fn wildcard() -> Operand {
    Operand::Wildcard
}

/// A constant.
pub fn constant() -> Operand {
    Operand::Constant
}

/// One op of a pattern.
#[derive(Clone)]
pub struct OpPattern {
    /// The op name, or `None` for any op.
    name: Option<String>,
    /// How strategies refer to the matched op (default: the op name, or `any`).
    role: String,
    operands: Vec<(usize, Operand)>,
    predicates: Vec<Predicate>,
}

/// An op named `name` (e.g. `tosa.conv2d`).
pub fn op(name: &str) -> OpPattern {
    OpPattern { name: Some(name.to_string()), role: name.to_string(), operands: Vec::new(), predicates: Vec::new() }
}

/// A `tosa.rescale` of int32 accumulators to signed int8 with 32-bit multipliers and TOSA's
/// SINGLE_ROUND or DOUBLE_ROUND rounding: what an accelerator's output stage computes after a
/// convolution. Narrow it further with predicates (constant scales, ranges).
pub fn requantize_to_int8() -> OpPattern {
    op("tosa.rescale")
        .attr_is("scale32", "true")
        .attr_is("input_unsigned", "false")
        .attr_is("output_unsigned", "false")
        .result_element_type("i8")
        .when("rounds SINGLE_ROUND or DOUBLE_ROUND", |o| {
            matches!(o.attr_text("rounding_mode").as_deref(), Some("SINGLE_ROUND" | "DOUBLE_ROUND"))
        })
}

/// Any op (a wildcard op), to be narrowed with predicates.
pub fn any_op() -> OpPattern {
    OpPattern { name: None, role: "any".into(), operands: Vec::new(), predicates: Vec::new() }
}

impl OpPattern {
    /// Names the matched op for strategies ([`crate::Composite::get`]).
    pub fn role(mut self, role: &str) -> Self {
        self.role = role.to_string();
        self
    }

    /// Requires operand `index` to be `what`.
    pub fn operand(mut self, index: usize, what: Operand) -> Self {
        self.operands.push((index, what));
        self
    }

    /// Requires `check` to hold; `description` says what it checks.
    pub fn when(mut self, description: &str, check: impl Fn(&OpView) -> bool + Send + Sync + 'static) -> Self {
        self.predicates.push(Predicate { description: description.to_string(), check: Arc::new(check) });
        self
    }

    /// Requires the integer-array attribute `attr` (e.g. `stride`) to satisfy `check`.
    pub fn ints(self, attr: &str, description: &str, check: impl Fn(&[i64]) -> bool + Send + Sync + 'static) -> Self {
        let attr = attr.to_string();
        self.when(description, move |op| op.ints(&attr).is_some_and(|v| check(&v)))
    }

    /// Requires the attribute `attr` to print as `value` (enums, strings, booleans, integers).
    pub fn attr_is(self, attr: &str, value: &str) -> Self {
        let (attr, value) = (attr.to_string(), value.to_string());
        self.when(&format!("{attr} is {value}"), move |op| op.attr_text(&attr).as_deref() == Some(value.as_str()))
    }

    /// Requires operand `index` to have element type `element` (`i8`, `i32`, `f32`...).
    pub fn element_type(self, index: usize, element: &str) -> Self {
        let element = element.to_string();
        self.when(&format!("operand #{index} has element type {element}"), move |op| {
            op.operand_type(index).is_some_and(|t| t.element == element)
        })
    }

    /// Requires the result to have element type `element`.
    pub fn result_element_type(self, element: &str) -> Self {
        let element = element.to_string();
        self.when(&format!("the result has element type {element}"), move |op| {
            op.result_type().is_some_and(|t| t.element == element)
        })
    }

    /// Requires operand `index` to be a ranked tensor of rank `rank` with a static shape.
    pub fn static_rank(self, index: usize, rank: usize) -> Self {
        self.when(&format!("operand #{index} has a static shape of rank {rank}"), move |op| {
            op.operand_type(index).is_some_and(|t| t.shape.len() == rank && t.is_static())
        })
    }

    fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("any op")
    }

    /// The op name it matches, `None` for any op (for documentation: `docs/supported-ops.md` is
    /// generated from the patterns).
    pub fn op_name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// What a matching op must satisfy besides its name, in the order the matcher checks it, each
    /// worded as the placement report words the check that failed.
    pub fn conditions(&self) -> Vec<String> {
        let operands = self.operands.iter().map(|&(index, what)| operand_condition(index, what));
        operands.chain(self.predicates.iter().map(|p| p.description.clone())).collect()
    }

    /// Whether `op` has this pattern's name (the precondition of a near miss).
    pub(crate) fn names(&self, op: &OpView) -> bool {
        self.name.as_deref().is_none_or(|n| n == op.name())
    }

    /// Checks `op` against the name, operands and predicates: `Err` holds the first that failed.
    /// The description of the first check `op` fails, `None` when it passes them all.
    pub(crate) fn failed_check(&self, op: &OpView) -> Option<String> {
        if !self.names(op) {
            return Some(format!("is not {}", self.label()));
        }
        for (index, what) in &self.operands {
            let ok = match what {
                Operand::Wildcard => *index < op.operand_count(),
                Operand::Constant => op.operand_is_constant(*index),
            };
            if !ok {
                return Some(operand_condition(*index, *what));
            }
        }
        for predicate in &self.predicates {
            if !(predicate.check)(op) {
                return Some(predicate.description.clone());
            }
        }
        None
    }

    pub(crate) fn role_name(&self) -> &str {
        &self.role
    }
}

/// The condition an operand constraint states: `operand #1 is a constant`.
fn operand_condition(index: usize, what: Operand) -> String {
    format!("operand #{index} is {}", if what == Operand::Constant { "a constant" } else { "present" })
}

/// A composite pattern: a root op and trailing ops; its name becomes `umac.composite`.
#[derive(Clone)]
pub struct Pattern {
    /// The composite's name, e.g. `vanilla.conv2d`.
    pub name: String,
    pub(crate) root: OpPattern,
    /// Per root operand, the chain that must produce it (first producer first), each op with
    /// whether it is optional.
    pub(crate) inputs: Vec<(usize, Vec<(OpPattern, bool)>)>,
    pub(crate) trailing: Vec<(OpPattern, bool)>,
}

impl Pattern {
    /// A pattern named `name` starting at `root`.
    pub fn new(name: &str, root: OpPattern) -> Self {
        Pattern { name: name.to_string(), root, inputs: Vec::new(), trailing: Vec::new() }
    }

    /// Requires the root's operand `index` to be the result of `chain` (listed in dataflow order,
    /// each op with whether it is optional): each op's only user is the next one, the last's is
    /// the root; the chain's first op reads the composite's input. The ops join the composite.
    pub fn input(mut self, index: usize, chain: Vec<(OpPattern, bool)>) -> Self {
        self.inputs.push((index, chain));
        self
    }

    /// Then `next` consumes the previous op's result, if it matches (else the chain goes on with
    /// the following trailing op).
    pub fn optional(mut self, next: OpPattern) -> Self {
        self.trailing.push((next, true));
        self
    }

    /// Then `next` must consume the previous op's result.
    pub fn then(mut self, next: OpPattern) -> Self {
        self.trailing.push((next, false));
        self
    }

    /// The root op.
    pub fn root(&self) -> &OpPattern {
        &self.root
    }

    /// The chains that must produce root operands ([`Pattern::input`]): per operand index, the
    /// ops in dataflow order, each with whether it is optional.
    pub fn input_chains(&self) -> &[(usize, Vec<(OpPattern, bool)>)] {
        &self.inputs
    }

    /// The ops after the root, in order, each with whether it is optional.
    pub fn trailing_ops(&self) -> &[(OpPattern, bool)] {
        &self.trailing
    }
}

/// What a pattern matched: the ops with their roles, in dataflow order (each input chain, the
/// root, the trailing ops), so each op's users come after it and the last op gives the result.
#[derive(Clone, Debug)]
pub struct Match<'c, 'a> {
    /// The ops and the roles the pattern gave them.
    pub ops: Vec<(String, OperationRef<'c, 'a>)>,
    /// The index of the root in `ops`.
    pub root: usize,
}

impl<'c, 'a> Match<'c, 'a> {
    /// The pattern's root op (where diagnostics about the composite go).
    pub fn root_op(&self) -> OperationRef<'c, 'a> {
        self.ops[self.root].1
    }
}

/// How matching `pattern` at `root` went: a match, a near miss (the op has the root's name but
/// a predicate failed), or nothing.
pub(crate) enum Outcome<'c, 'a> {
    Matched(Match<'c, 'a>),
    NearMiss(String),
    NoMatch,
}

/// Matches `pattern` with `root` as its root; `claimed` tells which ops are taken already.
pub(crate) fn match_at<'c, 'a>(
    pattern: &Pattern,
    root: OperationRef<'c, 'a>,
    claimed: &dyn Fn(&OperationRef) -> bool,
) -> Outcome<'c, 'a> {
    let view = OpView::new(root);
    if !pattern.root.names(&view) {
        return Outcome::NoMatch;
    }
    if let Some(failed) = pattern.root.failed_check(&view) {
        return Outcome::NearMiss(failed);
    }
    let mut ops = Vec::new();
    for (index, chain) in &pattern.inputs {
        match producers(&view, *index, chain, claimed) {
            Ok(mut found) => ops.append(&mut found),
            Err(failed) => return Outcome::NearMiss(failed.to_string()),
        }
    }
    let root_index = ops.len();
    ops.push((pattern.root.role_name().to_string(), root));
    let mut current = root;
    for (next, optional) in &pattern.trailing {
        let user = single_user(&current).filter(|u| !claimed(u));
        match user {
            Some(user) if next.failed_check(&OpView::new(user)).is_none() => {
                ops.push((next.role_name().to_string(), user));
                current = user;
            }
            _ if *optional => {}
            Some(user) => {
                return match next.failed_check(&OpView::new(user)) {
                    Some(failed) => Outcome::NearMiss(format!("{} {failed}", next.label())),
                    None => Outcome::NoMatch,
                };
            }
            None => return Outcome::NearMiss(format!("its result is used by exactly one {}", next.label())),
        }
    }
    Outcome::Matched(Match { ops, root: root_index })
}

/// Why an input chain of a pattern did not match: its text is the near miss's reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum ChainMismatch {
    #[error("operand #{operand} comes from a {label}")]
    OtherOp { operand: usize, label: String },
    #[error("operand #{operand}'s {label}: {why}")]
    FailedCheck { operand: usize, label: String, why: String },
    #[error("operand #{operand} is the result of a {label} used only here")]
    Missing { operand: usize, label: String },
}

/// The ops of `chain` producing operand `index` of `consumer`, in dataflow order, or what failed.
fn producers<'c, 'a>(
    consumer: &OpView<'c, 'a>,
    index: usize,
    chain: &[(OpPattern, bool)],
    claimed: &dyn Fn(&OperationRef) -> bool,
) -> Result<Vec<(String, OperationRef<'c, 'a>)>, ChainMismatch> {
    let mut found = Vec::new();
    let mut user = consumer.operation();
    let mut operand = index;
    for (producer, optional) in chain.iter().rev() {
        let defining = user.operand(operand).ok().and_then(|v| producer_of(v, &user)).filter(|p| !claimed(p));
        match defining {
            Some(op) if producer.failed_check(&OpView::new(op)).is_none() => {
                found.push((producer.role_name().to_string(), op));
                user = op;
                operand = 0;
            }
            _ if *optional => {}
            Some(op) if !producer.names(&OpView::new(op)) => {
                return Err(ChainMismatch::OtherOp { operand, label: producer.label().to_string() });
            }
            Some(op) => {
                let why = producer.failed_check(&OpView::new(op)).unwrap_or_default();
                return Err(ChainMismatch::FailedCheck { operand, label: producer.label().to_string(), why });
            }
            None => return Err(ChainMismatch::Missing { operand, label: producer.label().to_string() }),
        }
    }
    found.reverse();
    Ok(found)
}

/// The op defining `value` when `user` is its only user, in the same block.
fn producer_of<'c, 'a>(value: Value<'c, 'a>, user: &OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let op = OperationResult::try_from(value).ok()?.owner();
    single_user(&op).filter(|u| u.to_raw().ptr == user.to_raw().ptr).map(|_| op)
}

/// The uses of `op`'s first result: each user with the operand number it is used as.
pub(crate) fn uses<'c, 'a>(op: &OperationRef<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    let Ok(result) = op.result(0) else { return Vec::new() };
    let mut found = Vec::new();
    // SAFETY: the value is alive; its use list is read without modification.
    unsafe {
        let mut next = mlir_sys::mlirValueGetFirstUse(result.to_raw());
        while !next.ptr.is_null() {
            let index = mlir_sys::mlirOpOperandGetOperandNumber(next) as usize;
            found.push((OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(next)), index));
            next = mlir_sys::mlirOpOperandGetNextUse(next);
        }
    }
    found
}

/// The only user of `op`'s only result, in the same block.
pub(crate) fn single_user<'c, 'a>(op: &OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    if op.result_count() != 1 {
        return None;
    }
    let result = op.result(0).ok()?;
    let raw = result.to_raw();
    // SAFETY: the value is alive; the use list is read without modification.
    unsafe {
        let owner = umac_dialects::ir::only_user(raw)?;
        let same_block = mlir_sys::mlirOperationGetBlock(owner).ptr == mlir_sys::mlirOperationGetBlock(op.to_raw()).ptr;
        same_block.then(|| OperationRef::from_raw(owner))
    }
}

/// Ops that are constants: copied into outlined functions rather than passed in.
pub fn is_constant_op(name: &str) -> bool {
    matches!(name, "tosa.const" | "tosa.const_shape" | "arith.constant")
}
