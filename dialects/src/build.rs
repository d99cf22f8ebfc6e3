//! Building IR op by op, without MLIR text: a [`Builder`] owns a detached `func.func` while its
//! body is written ([`Builder::function`]), or writes in front of an op it then replaces
//! ([`Builder::before`]); it appends each op at the end of the innermost open block, and opens
//! blocks for the regions of `scf.for` and `scf.if`. Values are [`Value`]s, plain
//! handles checked against the builder that made them, so a value never reaches another function.
//!
//! ```ignore
//! let mut b = Builder::function(context, "twice", &[Ty::I32], "example");
//! let x = b.arg(0);
//! let y = b.addi(x, x);
//! let f = b.finish(&[])?; // func.func private @twice(%x: i32) { %y = arith.addi %x, %x; return }
//! ```

use crate::{Error, text::str_ref};
use melior::{
    Context,
    ir::{Operation, OperationRef},
};
use mlir_sys::*;
use std::sync::atomic::{AtomicU64, Ordering};
use types::{named, ty};

mod buffers;
mod linalg;
mod tosa;
mod types;

pub use buffers::memref_type;
pub use types::{Attr, Cmp, CmpF, RawType, Ty, projection};

/// A value of the function being built: an argument, a block argument or an op's result.
#[derive(Clone, Copy, Debug)]
pub struct Value {
    raw: MlirValue,
    builder: u64,
}

impl PartialEq for Value {
    /// The same value (not merely an equal one).
    fn eq(&self, other: &Value) -> bool {
        self.raw.ptr == other.raw.ptr
    }
}

impl Eq for Value {}

impl Value {
    /// The MLIR value, for rewrites the builder does not do (replacing a block argument's uses).
    pub fn to_raw(self) -> MlirValue {
        self.raw
    }
}

/// The `llvm.getelementptr` index marking a dynamic index among the constant ones.
const DYNAMIC_INDEX: i32 = i32::MIN;

static BUILDERS: AtomicU64 = AtomicU64::new(0);

/// Builds one function (see the module documentation).
pub struct Builder<'c> {
    context: &'c Context,
    location: MlirLocation,
    /// The function, owned until [`Builder::finish`] hands it out (null when writing before an op).
    function: MlirOperation,
    /// The op written in front of ([`Builder::before`]).
    anchor: Option<MlirOperation>,
    /// The blocks open, the function's body first.
    blocks: Vec<MlirBlock>,
    arguments: Vec<Value>,
    id: u64,
    /// The first thing that went wrong (an attribute that does not parse).
    error: Option<String>,
}

impl<'c> Builder<'c> {
    /// Starts `func.func private @symbol` taking `inputs` and returning nothing; every op gets
    /// the location `loc("<origin>")`.
    pub fn function(context: &'c Context, symbol: &str, inputs: &[Ty], origin: &str) -> Builder<'c> {
        let id = BUILDERS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: everything is created in the live `context`; the block moves into the function,
        // which the builder owns until `finish` (or destroys on drop).
        unsafe {
            let raw = context.to_raw();
            let location = mlirLocationNameGet(raw, str_ref(origin), mlirLocationUnknownGet(raw));
            let types: Vec<MlirType> = inputs.iter().map(|t| ty(raw, *t)).collect();
            let locations = vec![location; types.len()];
            let body = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
            let function_type = crate::ir::function_type_get(raw, &types, &[]);
            let function = crate::ir::private_function(symbol, function_type, Some(body), location, &[]);
            let arguments =
                (0..types.len()).map(|i| Value { raw: mlirBlockGetArgument(body, i as isize), builder: id }).collect();
            Builder { context, location, function, blocks: vec![body], arguments, id, error: None, anchor: None }
        }
    }

    /// Writes in front of `op`, with its location; the arguments are its operands.
    /// [`Builder::replace`] then puts what was written in its place. `op` must stay in place
    /// while the builder writes (nothing else rewrites the IR meanwhile).
    pub fn before(context: &'c Context, op: OperationRef<'c, '_>) -> Builder<'c> {
        let id = BUILDERS.fetch_add(1, Ordering::Relaxed);
        let raw = op.to_raw();
        // SAFETY: the op is live (borrowed) in a block of `context`.
        unsafe {
            let arguments = (0..mlirOperationGetNumOperands(raw))
                .map(|i| Value { raw: mlirOperationGetOperand(raw, i), builder: id })
                .collect();
            Builder {
                context,
                location: mlirOperationGetLocation(raw),
                function: MlirOperation { ptr: std::ptr::null_mut() },
                blocks: vec![mlirOperationGetBlock(raw)],
                arguments,
                id,
                error: None,
                anchor: Some(raw),
            }
        }
    }

    /// Replaces the op written in front of ([`Builder::before`]) by `results`, one per result
    /// of it, and erases it.
    pub fn replace(mut self, results: &[Value]) -> Result<(), Error> {
        let anchor = self.anchor.take().ok_or_else(|| Error::Internal("a function's builder replaces no op".into()))?;
        if let Some(error) = self.error.take() {
            return Err(Error::Internal(error));
        }
        let results: Vec<MlirValue> = results.iter().map(|v| self.check(*v)).collect();
        // SAFETY: the anchor is live (the builder wrote in front of it, never erased it); the
        // results are values of its block's function, which dominate its uses.
        unsafe {
            if mlirOperationGetNumResults(anchor) != results.len() as isize {
                return Err(Error::Internal(format!(
                    "'{}' has {} results, replaced by {}",
                    crate::ir::name(anchor),
                    mlirOperationGetNumResults(anchor),
                    results.len()
                )));
            }
            for (i, value) in results.iter().enumerate() {
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(anchor, i as isize), *value);
            }
            mlirOperationDestroy(anchor);
        }
        Ok(())
    }

    /// Gives the ops written from now on `location` (e.g. the fused location of the ops they
    /// replace).
    pub fn set_location(&mut self, location: MlirLocation) {
        self.location = location;
    }

    /// Argument `i` of the function.
    pub fn arg(&self, i: usize) -> Value {
        self.arguments[i]
    }

    /// A value the IR already has, for an op written in front of an op ([`Builder::before`]):
    /// it must be defined before that op (an operand of an op producing one of its operands).
    pub fn existing(&self, value: MlirValue) -> Value {
        Value { raw: value, builder: self.id }
    }

    /// How many arguments the function takes.
    pub fn arg_count(&self) -> usize {
        self.arguments.len()
    }

    /// Makes the function public (it starts private).
    pub fn set_public(&mut self) {
        if !self.function.ptr.is_null() {
            // SAFETY: the function is live and owned by the builder.
            unsafe { mlirOperationRemoveAttributeByName(self.function, str_ref("sym_visibility")) };
        }
    }

    /// Sets a discardable attribute of the function, e.g. `passthrough`.
    pub fn set_function_attribute(&mut self, name: &str, value: Attr) {
        let value = self.attribute(value);
        // SAFETY: the function is live and owned by the builder; the attribute is of its context.
        unsafe { mlirOperationSetAttributeByName(self.function, str_ref(name), value) };
    }

    /// Appends op `name` with `operands`, results of `results` and `attributes` to the innermost
    /// open block; returns its results.
    pub fn op(&mut self, name: &str, operands: &[Value], results: &[Ty], attributes: &[(&str, Attr)]) -> Vec<Value> {
        let op = self.create(name, operands, results, attributes, &[]);
        self.append(op)
    }

    /// [`Builder::op`] for an op of one result.
    pub fn op1(&mut self, name: &str, operands: &[Value], result: Ty, attributes: &[(&str, Attr)]) -> Value {
        self.op(name, operands, &[result], attributes)[0]
    }

    /// `arith.constant value : ty`.
    pub fn constant(&mut self, ty: Ty, value: i64) -> Value {
        self.op1("arith.constant", &[], ty, &[("value", Attr::Int(ty, value))])
    }

    /// `arith.addi`.
    pub fn addi(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.addi", a, b)
    }

    /// `arith.muli`.
    pub fn muli(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.muli", a, b)
    }

    /// `arith.andi`.
    pub fn andi(&mut self, a: Value, b: Value) -> Value {
        self.binary("arith.andi", a, b)
    }

    /// `arith.cmpi predicate, a, b` (of vectors: a vector of `i1`).
    pub fn cmpi(&mut self, predicate: Cmp, a: Value, b: Value) -> Value {
        let result = self.shaped_like(self.type_of(a), Ty::I1);
        self.op1("arith.cmpi", &[a, b], result, &[("predicate", Attr::Int(Ty::I64, predicate as i64))])
    }

    /// `arith.cmpf predicate, a, b` (of vectors: a vector of `i1`).
    pub fn cmpf(&mut self, predicate: CmpF, a: Value, b: Value) -> Value {
        let result = self.shaped_like(self.type_of(a), Ty::I1);
        self.op1("arith.cmpf", &[a, b], result, &[("predicate", Attr::Int(Ty::I64, predicate as i64))])
    }

    /// `arith.select condition, a, b`.
    pub fn select(&mut self, condition: Value, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.op1("arith.select", &[condition, a, b], ty, &[])
    }

    /// `arith.index_cast value : ... to ty`.
    pub fn index_cast(&mut self, value: Value, ty: Ty) -> Value {
        self.op1("arith.index_cast", &[value], ty, &[])
    }

    /// `llvm.inttoptr value : i32 to !llvm.ptr`.
    pub fn inttoptr(&mut self, value: Value) -> Value {
        self.op1("llvm.inttoptr", &[value], Ty::Ptr, &[])
    }

    /// `llvm.ptrtoint pointer : !llvm.ptr to ty`.
    pub fn ptrtoint(&mut self, pointer: Value, ty: Ty) -> Value {
        self.op1("llvm.ptrtoint", &[pointer], ty, &[])
    }

    /// `llvm.alloca count x element : (i32) -> !llvm.ptr`.
    pub fn alloca(&mut self, count: Value, element: Ty) -> Value {
        self.op1("llvm.alloca", &[count], Ty::Ptr, &[("elem_type", Attr::Type(element))])
    }

    /// `llvm.getelementptr base[index] : (!llvm.ptr) -> !llvm.ptr, element` with a constant index.
    pub fn gep(&mut self, base: Value, index: i32, element: Ty) -> Value {
        let attributes = [("rawConstantIndices", Attr::I32Array(&[index])), ("elem_type", Attr::Type(element))];
        self.op1("llvm.getelementptr", &[base], Ty::Ptr, &attributes)
    }

    /// `llvm.getelementptr base[index]` with an index value.
    pub fn gep_dynamic(&mut self, base: Value, index: Value, element: Ty) -> Value {
        let attributes = [("rawConstantIndices", Attr::I32Array(&[DYNAMIC_INDEX])), ("elem_type", Attr::Type(element))];
        self.op1("llvm.getelementptr", &[base, index], Ty::Ptr, &attributes)
    }

    /// `llvm.load pointer : !llvm.ptr -> ty`.
    pub fn load(&mut self, pointer: Value, ty: Ty) -> Value {
        self.op1("llvm.load", &[pointer], ty, &[])
    }

    /// `llvm.store value, pointer`.
    pub fn store(&mut self, value: Value, pointer: Value) {
        self.op("llvm.store", &[value, pointer], &[], &[]);
    }

    /// `llvm.inline_asm has_side_effects asm, constraints operands` without a result.
    pub fn inline_asm(&mut self, asm: &str, constraints: &str, operands: &[Value]) {
        self.op("llvm.inline_asm", operands, &[], &Self::asm(asm, constraints));
    }

    /// `llvm.inline_asm has_side_effects asm, constraints operands` with a result of `ty`.
    pub fn inline_asm_value(&mut self, asm: &str, constraints: &str, operands: &[Value], ty: Ty) -> Value {
        self.op1("llvm.inline_asm", operands, ty, &Self::asm(asm, constraints))
    }

    fn asm<'a>(asm: &'a str, constraints: &'a str) -> [(&'static str, Attr<'a>); 3] {
        [("asm_string", Attr::Str(asm)), ("constraints", Attr::Str(constraints)), ("has_side_effects", Attr::Unit)]
    }

    /// `scf.for` from `lower` to `upper` by `step` (index values) carrying `inits`, with the
    /// discardable `attributes`: `body` writes an iteration given the induction variable and the
    /// carried values and returns what it yields; returns the loop's results.
    pub fn for_loop(
        &mut self,
        [lower, upper, step]: [Value; 3],
        inits: &[Value],
        attributes: &[(&str, Attr)],
        body: impl FnOnce(&mut Self, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let types: Vec<Ty> = inits.iter().map(|v| self.type_of(*v)).collect();
        let block = self.open(&[&[Ty::Index][..], &types].concat());
        let arguments = self.block_arguments(block);
        let yields = body(self, arguments[0], &arguments[1..]);
        self.op("scf.yield", &yields, &[], &[]);
        self.close();
        let operands = [&[lower, upper, step][..], inits].concat();
        let op = self.create("scf.for", &operands, &types, attributes, &[Some(block)]);
        self.append(op)
    }

    /// `scf.if condition` with results of `results` and the discardable `attributes`: `then`
    /// and `otherwise` write the branches and return what they yield; returns the results.
    pub fn if_else(
        &mut self,
        condition: Value,
        results: &[Ty],
        attributes: &[(&str, Attr)],
        then: impl FnOnce(&mut Self) -> Vec<Value>,
        otherwise: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        let taken = self.branch(then);
        let other = self.branch(otherwise);
        let op = self.create("scf.if", &[condition], results, attributes, &[Some(taken), Some(other)]);
        self.append(op)
    }

    /// `scf.if condition` without results or else branch around what `then` writes.
    pub fn when(&mut self, condition: Value, then: impl FnOnce(&mut Self)) {
        let taken = self.branch(|b| {
            then(b);
            Vec::new()
        });
        let op = self.create("scf.if", &[condition], &[], &[], &[Some(taken), None]);
        self.append(op);
    }

    /// Op `name` with one region of one block without arguments, whose ops (with its
    /// terminator, if it has one) `body` writes; returns the op's results.
    pub fn region_op(
        &mut self,
        name: &str,
        (operands, results): (&[Value], &[Ty]),
        attributes: &[(&str, Attr)],
        body: impl FnOnce(&mut Self),
    ) -> Vec<Value> {
        let block = self.open(&[]);
        body(self);
        self.close();
        let op = self.create(name, operands, results, attributes, &[Some(block)]);
        self.append(op)
    }

    /// Ends writing in front of an op ([`Builder::before`]) and leaves the op in place; an
    /// attribute or type that did not parse is an internal error.
    pub fn done(mut self) -> Result<(), Error> {
        self.anchor = None;
        match self.error.take() {
            Some(error) => Err(Error::Internal(error)),
            None => Ok(()),
        }
    }

    /// Ends the body with `func.return` and hands the function out; an attribute that did not
    /// parse is an internal error.
    pub fn finish(mut self) -> Result<Operation<'c>, Error> {
        if self.function.ptr.is_null() {
            return Err(Error::Internal("a builder writing before an op has no function to finish".into()));
        }
        self.op("func.return", &[], &[], &[]);
        if let Some(error) = self.error.take() {
            return Err(Error::Internal(error));
        }
        let function = std::mem::replace(&mut self.function, MlirOperation { ptr: std::ptr::null_mut() });
        // SAFETY: the builder owned the function, a live op of `context`; ownership moves out.
        Ok(unsafe { Operation::from_raw(function) })
    }

    /// The type of `value` (a [`Ty::Of`] unless it is one of the others).
    pub fn type_of(&self, value: Value) -> Ty {
        let raw = self.check(value);
        // SAFETY: the value is live (checked to be this builder's); types compare by identity.
        unsafe { named(self.context.to_raw(), mlirValueGetType(raw)) }
    }

    /// `element` in the shape of `shape`: a vector or ranked tensor of it when `shape` is one
    /// (with its dimensions; a tensor's encoding is dropped), else `element` itself.
    pub fn shaped_like(&self, shape: Ty, element: Ty) -> Ty {
        // SAFETY: the types are of the live context; the dimensions are read within the rank.
        unsafe {
            let context = self.context.to_raw();
            let shaped = ty(context, shape);
            let vector = mlirTypeIsAVector(shaped);
            if !vector && !mlirTypeIsARankedTensor(shaped) {
                return element;
            }
            let dims: Vec<i64> =
                (0..mlirShapedTypeGetRank(shaped)).map(|d| mlirShapedTypeGetDimSize(shaped, d as isize)).collect();
            let (rank, element) = (dims.len() as isize, ty(context, element));
            Ty::Of(RawType(if vector {
                mlirVectorTypeGet(rank, dims.as_ptr(), element)
            } else {
                mlirRankedTensorTypeGet(rank, dims.as_ptr(), element, mlirAttributeGetNull())
            }))
        }
    }

    /// `tensor<dims x element>`.
    pub fn tensor(&self, dims: &[i64], element: Ty) -> Ty {
        // SAFETY: the element type is of the live context; the null encoding is none.
        unsafe {
            let element = ty(self.context.to_raw(), element);
            Ty::Of(RawType(mlirRankedTensorTypeGet(
                dims.len() as isize,
                dims.as_ptr(),
                element,
                mlirAttributeGetNull(),
            )))
        }
    }

    /// `vector<dims x element>`.
    pub fn vector(&self, dims: &[i64], element: Ty) -> Ty {
        // SAFETY: the element type is of the live context.
        unsafe {
            let element = ty(self.context.to_raw(), element);
            Ty::Of(RawType(mlirVectorTypeGet(dims.len() as isize, dims.as_ptr(), element)))
        }
    }

    /// `llvm.call_intrinsic "<intrinsic>"(operands)` with a result of `result`.
    pub fn call_intrinsic(&mut self, intrinsic: &str, operands: &[Value], result: Ty) -> Value {
        let sizes = [operands.len() as i32, 0];
        let attributes = [
            ("intrin", Attr::Str(intrinsic)),
            ("op_bundle_sizes", Attr::I32Array(&[])),
            ("operandSegmentSizes", Attr::I32Array(&sizes)),
        ];
        self.op1("llvm.call_intrinsic", operands, result, &attributes)
    }

    /// The element type of the vector or tensor type `t` (`t` itself for another type).
    pub fn element_of(&self, t: Ty) -> Ty {
        // SAFETY: the type is of the live context.
        unsafe {
            let raw = ty(self.context.to_raw(), t);
            if !mlirTypeIsAShaped(raw) {
                return t;
            }
            named(self.context.to_raw(), mlirShapedTypeGetElementType(raw))
        }
    }

    /// A fixed type in MLIR syntax that the C API has no constructor for, e.g. `!tosa.shape<4>`;
    /// one that does not parse is an internal error at [`Builder::finish`] or [`Builder::replace`].
    pub fn parsed_type(&mut self, text: &str) -> Ty {
        // SAFETY: the context is live; the text outlives the call.
        unsafe {
            let parsed = mlirTypeParseGet(self.context.to_raw(), str_ref(text));
            if parsed.ptr.is_null() {
                self.error.get_or_insert_with(|| format!("the type '{text}' does not parse"));
                return Ty::I1;
            }
            Ty::Of(RawType(parsed))
        }
    }

    /// The binary op `name` (`arith.subi`, `arith.shrui`, ...) of `a` and `b`, its result of
    /// `a`'s type.
    pub fn binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.op1(name, &[a, b], ty, &[])
    }

    fn check(&self, value: Value) -> MlirValue {
        assert_eq!(value.builder, self.id, "a value of another function");
        value.raw
    }

    fn attribute(&mut self, attribute: Attr) -> MlirAttribute {
        // SAFETY: the context is live.
        unsafe { types::attribute(self.context.to_raw(), attribute, &mut self.error) }
    }

    /// A detached op; `regions` take over the blocks given (`None`: an empty region).
    fn create(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[Ty],
        attributes: &[(&str, Attr)],
        regions: &[Option<MlirBlock>],
    ) -> MlirOperation {
        let operands: Vec<MlirValue> = operands.iter().map(|v| self.check(*v)).collect();
        let attributes: Vec<(&str, MlirAttribute)> = attributes.iter().map(|(n, a)| (*n, self.attribute(*a))).collect();
        // SAFETY: operands are this builder's live values, types and attributes of its context;
        // the blocks are detached.
        unsafe {
            let context = self.context.to_raw();
            // (`build_with_regions` loads the op's dialect first, as the parser does.)
            let types: Vec<MlirType> = results.iter().map(|t| ty(context, *t)).collect();
            crate::ir::build_with_regions(name, self.location, &operands, &types, &attributes, regions)
        }
    }

    /// Appends `op` to the innermost open block (in front of the anchor, outside any region
    /// open); returns its results.
    fn append(&mut self, op: MlirOperation) -> Vec<Value> {
        let block = *self.blocks.last().expect("a block is open");
        // SAFETY: `op` is detached and live; the block (in the function) takes it over.
        unsafe {
            match self.anchor.filter(|_| self.blocks.len() == 1) {
                Some(anchor) => mlirBlockInsertOwnedOperationBefore(block, anchor, op),
                None => mlirBlockAppendOwnedOperation(block, op),
            }
            (0..mlirOperationGetNumResults(op))
                .map(|i| Value { raw: mlirOperationGetResult(op, i), builder: self.id })
                .collect()
        }
    }

    /// Opens a detached block with arguments of `types`: ops go there until [`Builder::close`].
    fn open(&mut self, types: &[Ty]) -> MlirBlock {
        // SAFETY: the types are of the live context; the block is detached until a region takes it.
        unsafe {
            let context = self.context.to_raw();
            let types: Vec<MlirType> = types.iter().map(|t| ty(context, *t)).collect();
            let locations = vec![self.location; types.len()];
            let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
            self.blocks.push(block);
            block
        }
    }

    fn close(&mut self) {
        assert!(self.blocks.len() > 1, "the function's body stays open");
        self.blocks.pop();
    }

    /// A branch of `scf.if`: a block of what `write` writes, ended by `scf.yield` of what it returns.
    fn branch(&mut self, write: impl FnOnce(&mut Self) -> Vec<Value>) -> MlirBlock {
        let block = self.open(&[]);
        let yields = write(self);
        self.op("scf.yield", &yields, &[], &[]);
        self.close();
        block
    }

    fn block_arguments(&self, block: MlirBlock) -> Vec<Value> {
        // SAFETY: the block is live (open in this builder).
        unsafe {
            (0..mlirBlockGetNumArguments(block))
                .map(|i| Value { raw: mlirBlockGetArgument(block, i), builder: self.id })
                .collect()
        }
    }
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: the blocks still open past the first (a panic while writing a region) are
        // detached, so the builder owns them; it owns the function unless it handed it out.
        unsafe {
            for block in self.blocks.drain(1..) {
                mlirBlockDestroy(block);
            }
            if !self.function.ptr.is_null() {
                mlirOperationDestroy(self.function);
            }
        }
    }
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
