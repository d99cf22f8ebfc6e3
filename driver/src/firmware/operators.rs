//! The executor's operators as `metadata.json` lists them: the operator functions in call order,
//! each with the source ops it computes (named by their locations in the model), its
//! multiply-accumulates and the bytes of the buffers and constants it reads and writes.

use crate::{Error, signature::entry_function};
use melior::ir::{
    Module, OperationRef, TypeLike, ValueLike,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use std::collections::{BTreeMap, BTreeSet};
use umac_dialects::{
    ir::{function_type, op_name, static_memref_bits, static_tensor_shape, string_value, symbol_name, top_level_ops},
    location::{FileLineCol, file_line_col, file_line_cols},
    umac::{COMPOSITE_ATTR, TARGET_ATTR},
};

/// One operator function of the executor.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Operator {
    /// Its index in the executor's calls (the id the profiling hooks are called with).
    pub id: usize,
    /// Its symbol in the object.
    pub function: String,
    /// The accelerator it was partitioned to (`None`: the CPU).
    pub target: Option<String>,
    /// The composite pattern it computes, for an accelerator's function.
    pub composite: Option<String>,
    /// The source ops it computes, as `op at file:line:col`, in source order.
    pub source_ops: Vec<String>,
    /// The multiply-accumulates of its source ops (each counted in the first operator computing
    /// it): convolutions, depthwise and transposed convolutions, matrix products.
    pub macs: u64,
    /// The bytes of the buffers it is passed (inputs, outputs, workspace views) and of the
    /// constants it reads.
    pub bytes: u64,
}

/// A computing op of the model: its name and multiply-accumulates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceOp {
    /// The op's name (`tosa.conv2d`).
    pub name: String,
    /// Its multiply-accumulates ([`macs`]).
    pub macs: u64,
}

/// The entry's computing ops (not constants) by source position, with their multiply-accumulates,
/// read from the TOSA model before it is lowered.
pub fn source_ops(module: &Module, entry: &str) -> Result<BTreeMap<FileLineCol, SourceOp>, Error> {
    let function = entry_function(module, entry)?;
    let mut ops = BTreeMap::new();
    function.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(&op);
        // Constants become data, not work of an operator.
        let computes = !name.starts_with("tosa.const") && name != "arith.constant" && name != "func.return";
        if computes && let Some(at) = file_line_col(op.location()) {
            let macs = macs(&op);
            let entry = ops.entry(at).or_insert(SourceOp { name, macs: 0 });
            entry.macs += macs;
        }
        WalkResult::Advance
    });
    Ok(ops)
}

/// The multiply-accumulates of a TOSA op with static shapes (0 for any other op): a convolution's
/// output elements times its window times its input channels (`tosa.conv2d`, `tosa.conv3d`), a
/// depthwise convolution's output elements times its window, a transposed convolution's input
/// elements times its output channels and window, a matrix product's output elements times its
/// inner dimension.
pub fn macs(op: &OperationRef) -> u64 {
    let shape = |value: Option<melior::ir::Value>| value.and_then(|v| static_tensor_shape(v.r#type().to_raw()));
    let operand = |i: usize| shape(op.operand(i).ok());
    let result = shape(op.result(0).ok().map(Into::into));
    let product = |dims: &[i64]| dims.iter().map(|&d| d.max(0) as u64).product::<u64>();
    let name = op_name(op);
    let (Some(out), Some(weights)) = (result, operand(1)) else {
        return 0;
    };
    match name.as_str() {
        // weights [OC, KH, KW, IC] / [OC, KD, KH, KW, IC]: every output element takes KH·KW·IC.
        "tosa.conv2d" | "tosa.conv3d" => product(&out) * product(&weights[1..]),
        // weights [KH, KW, C, M]: every output element takes KH·KW.
        "tosa.depthwise_conv2d" if weights.len() == 4 => product(&out) * product(&weights[..2]),
        // weights [OC, KH, KW, IC]: every input element meets OC·KH·KW weights.
        "tosa.transpose_conv2d" => operand(0).map_or(0, |input| product(&input) * product(&weights[..3])),
        // [N, H, C] x [N, C, W]: every output element takes C.
        "tosa.matmul" if weights.len() == 3 => product(&out) * weights[1].max(0) as u64,
        _ => 0,
    }
}

/// The operator function `op` calls, if it is a call of one in the executor `executor` (a
/// `func.call`, not of a profiling hook): operator ids count these calls.
pub fn operator_call(op: &OperationRef, executor: &str) -> Option<String> {
    if op_name(op) != "func.call" {
        return None;
    }
    let callee = op.attribute("callee").ok().map(umac_dialects::text::attribute_text)?;
    let callee = callee.trim_start_matches('@').to_string();
    (!umac_dialects::umac::profile_hook_names(executor).contains(&callee)).then_some(callee)
}

/// The executor's calls, in order (the profiling hooks aside), with the source ops each operator
/// function computes.
pub fn operator_functions(module: &Module, name: &str, source_ops: &BTreeMap<FileLineCol, SourceOp>) -> Vec<Operator> {
    let mut functions: BTreeMap<String, OperationRef> = BTreeMap::new();
    for op in top_level_ops(module.as_operation()) {
        if let Some(symbol) = symbol_name(&op) {
            functions.insert(symbol, op);
        }
    }
    let Some(executor) = functions.get(name) else {
        return vec![];
    };
    let mut calls = Vec::new();
    executor.walk(WalkOrder::PreOrder, |op| {
        if let Some(callee) = operator_call(&op, name) {
            calls.push(callee);
        }
        WalkResult::Advance
    });
    let mut counted = BTreeSet::new();
    calls
        .into_iter()
        .enumerate()
        .map(|(id, function)| {
            let mut at: Vec<FileLineCol> = Vec::new();
            let (mut target, mut composite, mut bytes) = (None, None, 0);
            if let Some(op) = functions.get(&function) {
                let text = |attr: &str| op.attribute(attr).ok().and_then(string_value);
                (target, composite) = (text(TARGET_ATTR), text(COMPOSITE_ATTR));
                bytes = operator_bytes(op);
                op.walk(WalkOrder::PreOrder, |nested| {
                    for key in file_line_cols(nested.location()) {
                        if source_ops.contains_key(&key) && !at.contains(&key) {
                            at.push(key);
                        }
                    }
                    WalkResult::Advance
                });
            }
            at.sort();
            let macs = at.iter().filter(|key| counted.insert((*key).clone())).map(|key| source_ops[key].macs).sum();
            let source_ops = at.into_iter().map(|key| format!("{} at {key}", source_ops[&key].name)).collect();
            Operator { id, function, target, composite, source_ops, macs, bytes }
        })
        .collect()
}

/// The bytes of an operator function's buffer arguments and of the constant globals it reads.
fn operator_bytes(function: &OperationRef) -> u64 {
    let size = |ty| static_memref_bits(ty).map_or(0, |(elements, bits)| (elements * bits / 8).max(0) as u64);
    // SAFETY: the function is alive; its type is read, not changed.
    let (inputs, _) = unsafe { function_type(function.to_raw()) };
    let mut bytes: u64 = inputs.into_iter().map(size).sum();
    let mut globals = BTreeSet::new();
    function.walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) == "memref.get_global"
            && let Ok(global) = op.attribute("name").map(umac_dialects::text::attribute_text)
            && globals.insert(global)
            && let Ok(result) = op.result(0)
        {
            bytes += size(result.r#type().to_raw());
        }
        WalkResult::Advance
    });
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use umac_dialects::{ContextOptions, create_context, source::parse_module};

    /// Hand-counted: a 3x3 convolution of 2 input to 4 output channels over a 5x6 output is
    /// 5·6·4 outputs of 3·3·2 products (2160); a 3x3 depthwise convolution with multiplier 2 over
    /// 3 channels and a 4x4 output, 4·4·6 outputs of 9 (864); a [2,3,5] x [2,5,7] matrix product,
    /// 2·3·7 outputs of 5 (210); a transposed 2x2 convolution of 3 to 4 channels over a 2x2
    /// input, 2·2·3 inputs each meeting 4·2·2 weights (192); an addition, none.
    #[test]
    fn multiply_accumulates_are_counted_by_hand() {
        let text = r#"
func.func @main(%x: tensor<1x7x8x2xi8>, %w: tensor<4x3x3x2xi8>, %b: tensor<4xi32>, %zp: tensor<1xi8>,
                %d: tensor<1x6x6x3xi8>, %dw: tensor<3x3x3x2xi8>, %db: tensor<6xi32>,
                %a: tensor<2x3x5xi8>, %m: tensor<2x5x7xi8>,
                %t: tensor<1x2x2x3xi8>, %tw: tensor<4x2x2x3xi8>,
                %p: tensor<1x4xi32>) -> () {
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x7x8x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x6x4xi32>
  %e = tosa.depthwise_conv2d %d, %dw, %db, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x3xi8>, tensor<3x3x3x2xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x6xi32>
  %f = tosa.matmul %a, %m, %zp, %zp : (tensor<2x3x5xi8>, tensor<2x5x7xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3x7xi32>
  %g = tosa.transpose_conv2d %t, %tw, %b, %zp, %zp {acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x3xi8>, tensor<4x2x2x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x4xi32>
  %h = tosa.add %p, %p : (tensor<1x4xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
  return
}
"#;
        let context = create_context(ContextOptions::default());
        let module = parse_module(&context, "macs.mlir", text.as_bytes()).expect("parses");
        let mut counted = Vec::new();
        module.as_operation().walk(WalkOrder::PreOrder, |op| {
            if op_name(&op).starts_with("tosa.") {
                counted.push((op_name(&op), macs(&op)));
            }
            WalkResult::Advance
        });
        let expected = [
            ("tosa.conv2d", 2160),
            ("tosa.depthwise_conv2d", 864),
            ("tosa.matmul", 210),
            ("tosa.transpose_conv2d", 192),
            ("tosa.add", 0),
        ];
        let expected: Vec<(String, u64)> = expected.iter().map(|(n, m)| (n.to_string(), *m)).collect();
        assert_eq!(counted, expected);
    }
}
