//! linalg ops for the [`Builder`]: `linalg.generic` with its region, named ops (a convolution)
//! with the body MLIR's own builders give them, and `linalg.index`.

use super::{Attr, Builder, Ty, Value};
use mlir_sys::*;

impl Builder<'_> {
    /// `linalg.generic` over `ins` and `outs` (tensors), indexed by `maps`, its loops
    /// `iterators` (`"parallel"`, `"reduction"`), with the discardable `attributes`: `body`
    /// writes the region given its arguments (an element of each operand) and returns what it
    /// yields; returns the results, one per `outs`, of their types.
    pub fn generic(
        &mut self,
        [ins, outs]: [&[Value]; 2],
        maps: &[Attr],
        iterators: &[&str],
        attributes: &[(&str, Attr)],
        body: impl FnOnce(&mut Self, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let operands = [ins, outs].concat();
        let elements: Vec<Ty> = operands.iter().map(|v| self.element_of(self.type_of(*v))).collect();
        let block = self.open(&elements);
        let arguments = self.block_arguments(block);
        let yields = body(self, &arguments);
        self.op("linalg.yield", &yields, &[], &[]);
        self.close();
        let iterators: Vec<String> = iterators.iter().map(|i| format!("#linalg.iterator_type<{i}>")).collect();
        let iterators: Vec<Attr> = iterators.iter().map(|i| Attr::Parsed(i)).collect();
        let sizes = [ins.len() as i32, outs.len() as i32];
        let mut all = vec![("indexing_maps", Attr::Array(maps)), ("iterator_types", Attr::Array(&iterators))];
        all.extend_from_slice(attributes);
        all.push(("operandSegmentSizes", Attr::I32Array(&sizes)));
        let results: Vec<Ty> = outs.iter().map(|v| self.type_of(*v)).collect();
        let op = self.create("linalg.generic", &operands, &results, &all, &[Some(block)]);
        self.append(op)
    }

    /// The named linalg op `name` (e.g. `linalg.conv_2d_nhwc_fhwc`) over `ins` and `outs`
    /// (tensors) with `attributes`, its body the one MLIR's builders write (its ops at the
    /// builder's location); returns its results.
    pub fn named_linalg(&mut self, name: &str, [ins, outs]: [&[Value]; 2], attributes: &[(&str, Attr)]) -> Vec<Value> {
        let operands = [ins, outs].concat();
        let sizes = [ins.len() as i32, outs.len() as i32];
        let mut all = attributes.to_vec();
        all.push(("operandSegmentSizes", Attr::I32Array(&sizes)));
        let results: Vec<Ty> = outs.iter().map(|v| self.type_of(*v)).collect();
        let op = self.create(name, &operands, &results, &all, &[None]);
        // SAFETY: `op` is live and detached, a linalg named op whose one region is empty: the
        // call fills it from the op's operand types with one block, whose ops are then live.
        unsafe {
            mlirLinalgFillBuiltinNamedOpRegion(op);
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
            let mut body = mlirBlockGetFirstOperation(block);
            while !body.ptr.is_null() {
                mlirOperationSetLocation(body, self.location);
                body = mlirOperationGetNextInBlock(body);
            }
        }
        self.append(op)
    }

    /// `linalg.index dim`: the index of loop `dim` of the enclosing `linalg.generic`.
    pub fn linalg_index(&mut self, dim: i64) -> Value {
        self.op1("linalg.index", &[], Ty::Index, &[("dim", Attr::Int(Ty::I64, dim))])
    }
}
