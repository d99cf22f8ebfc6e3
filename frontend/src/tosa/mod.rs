//! TOSA 1.0 flatbuffers (`.tosa`, the TOSA serialization format that ExecuTorch's Arm backend and
//! tosa-tools write): read through planus accessors of `schema/tosa.fbs` and written as TOSA MLIR
//! text op for op, as tosa-tools' `tosa-opt --tosa-deserialize` would, each op located at
//! `loc("op #3 (CONV2D, output 'x')"("model.tosa":0:3))`.
//!
//! The graph is the first basic block of the first region (`main`); its inputs become
//! `@main`'s arguments, its outputs its results. Constants are the `CONST` and `CONST_SHAPE` ops'
//! data. Control flow (`COND_IF`, `WHILE_LOOP`), variables, block-scaled and shape-arithmetic ops
//! are errors at the op.

mod attributes;

use crate::{
    Error,
    emit::{Func, Ty, Value, escape},
};
use attributes::attributes;
use planus::ReadAsRoot;
use schema::tosa::{TosaBasicBlockRef, TosaGraphRef, TosaOperatorRef};
use std::collections::HashMap;

#[allow(clippy::all, dead_code, unused_imports, missing_docs, unreachable_pub)]
mod schema {
    include!(concat!(env!("OUT_DIR"), "/tosa_schema.rs"));
}

/// The format's operators by their code (`Op` in `tosa.fbs`, from 1), as TOSA names them.
const OPS: [&str; 75] = [
    "ARGMAX",
    "AVG_POOL2D",
    "CONV2D",
    "CONV3D",
    "DEPTHWISE_CONV2D",
    "FFT2D",
    "MATMUL",
    "MAX_POOL2D",
    "RFFT2D",
    "TRANSPOSE_CONV2D",
    "CLAMP",
    "ERF",
    "SIGMOID",
    "TANH",
    "ADD",
    "ARITHMETIC_RIGHT_SHIFT",
    "BITWISE_AND",
    "BITWISE_OR",
    "BITWISE_XOR",
    "INTDIV",
    "LOGICAL_AND",
    "LOGICAL_LEFT_SHIFT",
    "LOGICAL_RIGHT_SHIFT",
    "LOGICAL_OR",
    "LOGICAL_XOR",
    "MAXIMUM",
    "MINIMUM",
    "MUL",
    "POW",
    "SUB",
    "TABLE",
    "ABS",
    "BITWISE_NOT",
    "CEIL",
    "CLZ",
    "COS",
    "EXP",
    "FLOOR",
    "LOG",
    "LOGICAL_NOT",
    "NEGATE",
    "RECIPROCAL",
    "RSQRT",
    "SIN",
    "SELECT",
    "EQUAL",
    "GREATER",
    "GREATER_EQUAL",
    "REDUCE_ALL",
    "REDUCE_ANY",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "REDUCE_PRODUCT",
    "REDUCE_SUM",
    "CONCAT",
    "PAD",
    "RESHAPE",
    "REVERSE",
    "SLICE",
    "TILE",
    "TRANSPOSE",
    "GATHER",
    "SCATTER",
    "RESIZE",
    "CAST",
    "RESCALE",
    "CONST",
    "IDENTITY",
    "CUSTOM",
    "COND_IF",
    "WHILE_LOOP",
    "VARIABLE",
    "VARIABLE_WRITE",
    "VARIABLE_READ",
    "CONST_SHAPE",
];

/// The ops this reader writes: every op of TOSA 1.0's base profiles but control flow and variables.
const LAST_READ: usize = 69; // CUSTOM

/// The name of op `code`.
fn op_name(code: u32) -> String {
    code.checked_sub(1)
        .and_then(|c| OPS.get(c as usize))
        .map_or_else(|| format!("op code {code}"), |name| name.to_string())
}

/// The MLIR element type of a TOSA `DType`, `None` for shapes and types umac does not take.
fn element(code: u32) -> Option<&'static str> {
    Some(match code {
        1 => "i1",
        3 => "i8",
        4 => "i16",
        5 => "i32",
        6 => "i48",
        7 => "f32",
        8 => "f16",
        9 => "bf16",
        17 => "i64",
        _ => return None,
    })
}

const SHAPE: u32 = 10;

fn malformed(what: impl std::fmt::Display) -> Error {
    Error::model(format!("malformed .tosa file: {what}"))
}

/// A tensor or shape of the block.
struct Declared<'a> {
    ty: Ty,
    /// `Some(rank)` for a `!tosa.shape`.
    shape_rank: Option<usize>,
    data: Option<&'a [u8]>,
}

/// Reads the TOSA flatbuffer `bytes` (named `file` in locations) and returns its graph as TOSA
/// MLIR text: `func.func @main`.
pub fn to_mlir(bytes: &[u8], file: &str) -> Result<String, Error> {
    if bytes.len() >= 8 && &bytes[4..8] != b"TOSA" {
        return Err(Error::model("not a .tosa file (its flatbuffer identifier is not TOSA)".into()));
    }
    let graph = TosaGraphRef::read_as_root(bytes).map_err(malformed)?;
    if let Some(version) = graph.version().map_err(malformed)? {
        let major = version.major().map_err(malformed)?;
        if major != 1 {
            let minor = version.minor().map_err(malformed)?;
            return Err(Error::model(format!("it is TOSA {major}.{minor}; umac reads TOSA 1.0")));
        }
    }
    let regions = graph.regions().map_err(malformed)?.ok_or_else(|| malformed("it has no region"))?;
    let region = regions.get(0).ok_or_else(|| malformed("it has no region"))?.map_err(malformed)?;
    let blocks = region.blocks().map_err(malformed)?.ok_or_else(|| malformed("its region has no block"))?;
    let block = blocks.get(0).ok_or_else(|| malformed("its region has no block"))?.map_err(malformed)?;
    write_block(&block, file)
}

fn declarations<'a>(block: &TosaBasicBlockRef<'a>) -> Result<HashMap<&'a str, Declared<'a>>, Error> {
    let mut declared = HashMap::new();
    for (i, tensor) in block.tensors().map_err(malformed)?.into_iter().flatten().enumerate() {
        let tensor = tensor.map_err(malformed)?;
        let name = tensor.name().map_err(malformed)?.ok_or_else(|| malformed(format!("tensor #{i} has no name")))?;
        let at = |m: String| Error::model(format!("tensor '{name}': {m}"));
        let shape: Vec<i64> = tensor.shape().map_err(malformed)?.into_iter().flatten().map(i64::from).collect();
        if shape.iter().any(|&d| d < 0) || tensor.is_unranked().map_err(malformed)? {
            return Err(at(format!("its shape {shape:?} is not static")));
        }
        if tensor.offset().map_err(malformed)? > 1 {
            return Err(at("its data lies outside the flatbuffer, which umac does not read".into()));
        }
        let code = tensor.type_().map_err(malformed)?;
        let data = tensor.data().map_err(malformed)?.filter(|d| !d.is_empty());
        let declaration = if code == SHAPE {
            let rank = shape.first().copied().unwrap_or(0) as usize;
            if data.is_some_and(|d| d.len() != 8 * rank) {
                return Err(at(format!("its data is not {rank} 64-bit values")));
            }
            Declared { ty: Ty::new(&[], "index"), shape_rank: Some(rank), data }
        } else {
            let elem = element(code).ok_or_else(|| at(format!("umac does not take its element type (code {code})")))?;
            let ty = Ty::new(&shape, elem);
            let data = match data {
                Some(data) => Some(data_of(&ty, data).ok_or_else(|| {
                    at(format!("its data has {} bytes, fewer than its type {} takes", data.len(), ty.text()))
                })?),
                None => None,
            };
            Declared { ty, shape_rank: None, data }
        };
        declared.insert(name, declaration);
    }
    for shape in block.shapes().map_err(malformed)?.into_iter().flatten() {
        let shape = shape.map_err(malformed)?;
        let Some(name) = shape.name().map_err(malformed)? else { continue };
        let rank = shape.rank().map_err(malformed)? as usize;
        let data = shape.data().map_err(malformed)?.filter(|d| !d.is_empty());
        if data.is_some_and(|d| d.len() != 8 * rank) {
            return Err(Error::model(format!("shape '{name}': its data is not {rank} 64-bit values")));
        }
        declared.insert(name, Declared { ty: Ty::new(&[], "index"), shape_rank: Some(rank), data });
    }
    Ok(declared)
}

/// The bytes of a constant's elements. Longer data is cut to the type's size, as tosa-tools'
/// deserializer reads it (ExecuTorch writes a weight zero point of type `tensor<1xi8>` with one
/// byte per output channel); `None` for shorter data.
fn data_of<'a>(ty: &Ty, data: &'a [u8]) -> Option<&'a [u8]> {
    let width = match ty.elem {
        "i1" | "i8" => 1,
        "i16" | "f16" | "bf16" => 2,
        "i32" | "f32" => 4,
        "i48" => 6,
        _ => 8,
    };
    let mut bytes: u64 = width;
    for &d in &ty.shape {
        bytes = bytes.saturating_mul(d as u64);
    }
    data.get(..usize::try_from(bytes).ok()?)
}

fn write_block(block: &TosaBasicBlockRef, file: &str) -> Result<String, Error> {
    let declared = declarations(block)?;
    let mut func = Func::new(&format!("\"{}\":0:0", escape(file)));
    let mut values: HashMap<String, Value> = HashMap::new();
    let names = |list: Option<planus::Vector<'_, planus::Result<&str>>>| -> Result<Vec<String>, Error> {
        list.into_iter().flatten().map(|n| n.map(str::to_string).map_err(malformed)).collect()
    };
    let inputs = names(block.inputs().map_err(malformed)?)?;
    let mut arguments = Vec::new();
    for (i, name) in inputs.iter().enumerate() {
        let declaration =
            declared.get(name.as_str()).ok_or_else(|| malformed(format!("input '{name}' is not declared")))?;
        if declaration.shape_rank.is_some() {
            return Err(Error::model(format!("input '{name}' is a shape; umac takes tensors as inputs")));
        }
        let value = Func::argument(i, declaration.ty.clone());
        values.insert(name.clone(), value.clone());
        arguments.push(value);
    }
    for (index, op) in block.operators().map_err(malformed)?.into_iter().flatten().enumerate() {
        let op = op.map_err(malformed)?;
        let code = op.op().map_err(malformed)?;
        let outputs = names(op.outputs().map_err(malformed)?)?;
        let label = match outputs.first() {
            Some(out) => format!("op #{index} ({}, output '{out}')", op_name(code)),
            None => format!("op #{index} ({})", op_name(code)),
        };
        func.set_location(format!("\"{}\"(\"{}\":0:{index})", escape(&label), escape(file)));
        let at = |message: String, unsupported: bool| Error { operator: Some(label.clone()), message, unsupported };
        write_op(&mut func, &op, code, &declared, &mut values, &outputs).map_err(|e| at(e.message, e.unsupported))?;
    }
    let mut results = Vec::new();
    for name in names(block.outputs().map_err(malformed)?)? {
        let value = values.get(&name).ok_or_else(|| Error::model(format!("output '{name}' is written by no op")))?;
        results.push(value.clone());
    }
    let list = |names: &[String]| names.iter().map(|n| escape(n).replace(',', "_")).collect::<Vec<_>>().join(",");
    let output_names: Vec<String> = names(block.outputs().map_err(malformed)?)?;
    let entry = format!("{{inputs = \"{}\", outputs = \"{}\"}}", list(&inputs), list(&output_names));
    Ok(func.finish(&arguments, &results, &entry))
}

fn write_op(
    func: &mut Func,
    op: &TosaOperatorRef,
    code: u32,
    declared: &HashMap<&str, Declared>,
    values: &mut HashMap<String, Value>,
    outputs: &[String],
) -> Result<(), Error> {
    let bad = Error::model;
    let [output] = outputs else { return Err(bad(format!("it has {} outputs; TOSA ops have one", outputs.len()))) };
    if values.contains_key(output) {
        return Err(bad(format!("its output '{output}' is already written")));
    }
    let result = declared.get(output.as_str()).ok_or_else(|| bad(format!("its output '{output}' is not declared")))?;
    let name = op_name(code);
    let value = match name.as_str() {
        "CONST" | "CONST_SHAPE" => constant(func, output, result)?,
        _ if code as usize > LAST_READ || code == 0 => {
            return Err(Error::unsupported(format!("umac does not read {name} ops")));
        }
        _ => {
            let mut operands = Vec::new();
            for input in op.inputs().map_err(|e| bad(e.to_string()))?.into_iter().flatten() {
                let input = input.map_err(|e| bad(e.to_string()))?;
                let value = match values.get(input) {
                    Some(v) => v.clone(),
                    None => match declared.get(input) {
                        Some(d) if d.data.is_some() => constant(func, input, d)?,
                        _ => return Err(bad(format!("its input '{input}' is computed by no earlier op"))),
                    },
                };
                values.insert(input.to_string(), value.clone());
                operands.push(value);
            }
            let attribute = op.attr().map_err(|e| bad(e.to_string()))?;
            let attributes = attributes(&name, attribute, &operands)?;
            let operands: Vec<&Value> = operands.iter().collect();
            let mlir = name.to_ascii_lowercase();
            if result.shape_rank.is_some() {
                return Err(bad(format!("its output '{output}' is a shape")));
            }
            func.op(&mlir, &operands, &attributes, result.ty.clone())
        }
    };
    values.insert(output.clone(), value);
    Ok(())
}

/// A `tosa.const` or `tosa.const_shape` of a declared tensor or shape with data.
fn constant(func: &mut Func, name: &str, declared: &Declared) -> Result<Value, Error> {
    let Some(data) = declared.data else { return Err(Error::model(format!("the constant '{name}' has no data"))) };
    match declared.shape_rank {
        Some(_) => {
            let dims: Vec<i64> =
                data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect();
            Ok(func.shape(&dims))
        }
        None if declared.ty.elem == "i1" => match data {
            [b] => Ok(func.constant(declared.ty.clone(), (if *b != 0 { "true" } else { "false" }).to_string())),
            _ => Err(Error::unsupported(format!(
                "the boolean constant '{name}' has several elements, which umac does not read"
            ))),
        },
        None => Ok(func.bytes(declared.ty.clone(), data)),
    }
}
