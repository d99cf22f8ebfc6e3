//! `umac-order-constant-globals`: gives the constant globals bufferization made
//! (`memref.global "private" constant @__constant_...`) names and a module position that depend
//! on the program only, so the same model always compiles to the same bytes.
//!
//! MLIR 22's `one-shot-bufferize{bufferize-function-boundaries}` visits functions in an order
//! that depends on where they sit in memory, and names and places each global as it meets its
//! constant; with several functions (a partitioned model) the names and the order of globals
//! then change from run to run. This pass takes the globals in the order of their first
//! `memref.get_global` in the module (functions top to bottom), and names and places them as
//! bufferization itself does for a single function: the first global of a shape keeps its plain
//! name, later ones get `_<n>` from one counter, and each global is inserted at the top of the
//! module (the last one first). On a module with one function this changes nothing.
//! ```mlir
//! memref.global "private" constant @__constant_4xi8_3 ...   // met second
//! memref.global "private" constant @__constant_4xi8 ...     // met first
//! ```

use crate::{
    Error,
    pass::{UmacPass, boxed},
    registry::{PassInfo, PassKind},
};
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use umac_dialects::{
    ir::{attribute, collect, op_name, symbol_name, top_level_ops},
    text::{str_ref, string_from},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-order-constant-globals",
    summary: "Name and order bufferization's constant globals by first use (reproducible output)",
    anchor: "builtin.module",
    options: &[],
    kind: PassKind::Pass(|_| boxed(OrderConstantGlobals)),
};

/// The prefix of the globals bufferization makes for constants.
const PREFIX: &str = "__constant_";

struct OrderConstantGlobals;

impl UmacPass for OrderConstantGlobals {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let is_constant_global = |op: &OperationRef| {
            op_name(op) == "memref.global"
                && op.attribute("constant").is_ok()
                && symbol_name(op).is_some_and(|name| name.starts_with(PREFIX))
        };
        let globals: Vec<OperationRef> = top_level_ops(operation).into_iter().filter(is_constant_global).collect();
        if globals.is_empty() {
            return Ok(());
        }
        let by_name: HashMap<String, usize> =
            globals.iter().enumerate().map(|(i, g)| (symbol_name(g).unwrap_or_default(), i)).collect();
        // Creation order: first use, module order; unused globals last, as they stand.
        let mut order: Vec<usize> = Vec::new();
        let mut seen = HashSet::new();
        for user in collect(operation, |op| op_name(op) == "memref.get_global") {
            // SAFETY: the op is alive; its `name` is a flat symbol reference (verified).
            let name = unsafe {
                attribute(user, "name")
                    .filter(|a| mlirAttributeIsAFlatSymbolRef(*a))
                    .map(|a| string_from(mlirFlatSymbolRefAttrGetValue(a)))
            };
            if let Some(&index) = name.as_ref().and_then(|n| by_name.get(n))
                && seen.insert(index)
            {
                order.push(index);
            }
        }
        order.extend((0..globals.len()).filter(|i| !seen.contains(i)));

        // Names as MLIR's symbol table makes them: the base if free, else `<base>_<counter>`.
        let mut taken: HashSet<String> =
            top_level_ops(operation).iter().filter(|op| !is_constant_global(op)).filter_map(symbol_name).collect();
        let mut counter = 0usize;
        let mut names = vec![String::new(); globals.len()];
        for &index in &order {
            let base = base_name(&symbol_name(&globals[index]).unwrap_or_default()).to_string();
            let mut name = base.clone();
            while taken.contains(&name) {
                name = format!("{base}_{counter}");
                counter += 1;
            }
            taken.insert(name.clone());
            names[index] = name;
        }
        let renamed: HashMap<String, String> = globals
            .iter()
            .zip(&names)
            .filter_map(|(global, name)| symbol_name(global).filter(|from| from != name).map(|f| (f, name.clone())))
            .collect();
        // SAFETY: the globals are live top-level ops of the module; every symbol reference to
        // them (bufferization's `memref.get_global`s, or any op's flat symbol reference
        // attribute) is rewritten in one walk of the module, from the old names to the new
        // (one `mlirSymbolTableReplaceAllSymbolUses` per global walked the module twice per
        // global: a quarter of VWW's lowering time).
        unsafe {
            let module = operation.to_raw();
            let context = mlirOperationGetContext(module);
            for op in collect(operation, |_| true) {
                for i in 0..mlirOperationGetNumAttributes(op) {
                    let named = mlirOperationGetAttribute(op, i);
                    if !mlirAttributeIsAFlatSymbolRef(named.attribute) {
                        continue;
                    }
                    let target = string_from(mlirFlatSymbolRefAttrGetValue(named.attribute));
                    if let Some(to) = renamed.get(&target) {
                        let reference = mlirFlatSymbolRefAttrGet(context, str_ref(to));
                        mlirOperationSetAttributeByName(op, mlirIdentifierStr(named.name), reference);
                    }
                }
            }
            for (global, name) in globals.iter().zip(&names) {
                mlirOperationSetAttributeByName(
                    global.to_raw(),
                    str_ref("sym_name"),
                    mlirStringAttrGet(context, str_ref(name)),
                );
            }
            let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
            for &index in &order {
                let first = mlirBlockGetFirstOperation(body);
                let global = globals[index].to_raw();
                if first.ptr != global.ptr {
                    mlirOperationMoveBefore(global, first);
                }
            }
        }
        Ok(())
    }
}

/// `__constant_4xi8_12` → `__constant_4xi8` (bufferization's names end in the element type; a
/// `_<digits>` suffix is the symbol table's).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, digits))
            if base.len() > PREFIX.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::base_name;

    #[test]
    fn base_names() {
        assert_eq!(base_name("__constant_4xi8_12"), "__constant_4xi8");
        assert_eq!(base_name("__constant_4xi8"), "__constant_4xi8");
        assert_eq!(base_name("__constant_128x1x1x640xi8"), "__constant_128x1x1x640xi8");
        assert_eq!(base_name("__constant_1xi32_0"), "__constant_1xi32");
    }
}
