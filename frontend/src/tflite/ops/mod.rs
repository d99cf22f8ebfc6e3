//! TFLite operators to TOSA, one file per family. Each legalization writes what TFLite Micro's
//! kernel computes: the integer ones as its fixed-point arithmetic (TOSA `rescale` with the
//! multipliers it derives from the same scales), the float ones as its float math.

mod activation;
mod batch_space;
mod compare;
mod control_flow;
mod conv;
mod div_int8;
mod elementwise;
mod gather;
mod int_ops;
mod l2_int8;
mod log_softmax_int8;
pub(crate) mod lstm;
mod matmul;
mod movement;
mod pool;
mod quantize;
mod reduce;
mod resize;
mod shape;
mod softmax;
mod supported;
mod svdf;
mod transpose_conv;
mod unary;
mod variables;

pub use supported::SUPPORTED;
use variables::Variables;

use crate::tflite::{
    Error,
    emit::{Func, Ty, Value, escape, float},
    model::{DType, Model, Operator, Subgraph, Tensor},
    quant::multiplier32,
};

/// The legalization in progress: the function being written, the value of each tensor of the
/// subgraph it writes, and the model's resource variables.
pub(crate) struct Cx<'m, 'a> {
    pub model: &'m Model<'a>,
    /// The subgraph being written (the main one, or a CALL_ONCE's init subgraph inside it) and
    /// its index.
    pub graph: &'m Subgraph<'a>,
    pub graph_index: usize,
    /// The subgraphs whose IF, WHILE or CALL_ONCE is being written, outermost first.
    pub active: Vec<usize>,
    pub func: Func,
    values: Vec<Option<Value>>,
    file: String,
    pub variables: Variables<'m, 'a>,
    /// For a partial legalization ([`legalize_between`]), the operators of the main subgraph
    /// its results need.
    needed: Option<Vec<bool>>,
}

/// An operator's error: what is wrong, and whether it is only not supported (yet).
pub(crate) struct OpError {
    pub(crate) message: String,
    unsupported: bool,
}

pub(crate) type OpResult<T = ()> = Result<T, OpError>;

/// An error for a malformed or inconsistent operator.
pub(crate) fn bad<T>(message: impl Into<String>) -> OpResult<T> {
    Err(OpError { message: message.into(), unsupported: false })
}

/// An error for something this reader does not legalize.
pub(crate) fn unsupported<T>(message: impl Into<String>) -> OpResult<T> {
    Err(OpError { message: message.into(), unsupported: true })
}

/// The MLIR type of a tensor.
pub(crate) fn ty(tensor: &Tensor) -> Ty {
    Ty::new(&tensor.shape, tensor.dtype.mlir())
}

/// Legalizes the model's first subgraph (and what its CALL_ONCEs run).
pub fn legalize(model: &Model, file: &str) -> Result<String, Error> {
    let graph = model.main();
    legalize_between(model, file, &graph.inputs, &graph.outputs, false)
}

/// Legalizes the part of the model's first subgraph that computes tensors `results` from tensors
/// `arguments` (the function's parameters, in order). With `partial`, only the operators the
/// results need are written, and of those not custom operators, operators that cannot run yet
/// (an input neither an argument, a constant, a variable nor computed) or whose outputs are all
/// arguments: what stays is the part of the graph a CPU runs between a device's operators.
pub(crate) fn legalize_between(
    model: &Model,
    file: &str,
    arguments: &[usize],
    results: &[usize],
    partial: bool,
) -> Result<String, Error> {
    let file_location = format!("\"{}\":0:0", escape(file));
    let graph = model.main();
    let mut cx = Cx {
        model,
        graph,
        graph_index: 0,
        active: Vec::new(),
        func: Func::new(&file_location),
        values: vec![None; graph.tensors.len()],
        file: file.into(),
        variables: Variables::scan(model),
        needed: partial.then(|| needed(graph, arguments, results)),
    };
    let mut values = Vec::new();
    let opaque = |t: &&usize| matches!(graph.tensors[**t].dtype, DType::Resource | DType::U8);
    if let Some(&t) = arguments.iter().chain(results).find(opaque) {
        let tensor = &graph.tensors[t];
        return Err(Error::model(format!("the model's input or output '{}' is {}", tensor.name, tensor.dtype.name())));
    }
    for (i, &t) in arguments.iter().enumerate() {
        let value = Func::argument(i, ty(&graph.tensors[t]));
        cx.values[t] = Some(value.clone());
        values.push(value);
    }
    legalize_ops(&mut cx)?;
    let mut returned = Vec::new();
    for &t in results {
        match &cx.values[t] {
            Some(value) => returned.push(value.clone()),
            None if partial => {
                return Err(Error::model(format!(
                    "no operator computes tensor #{t} ('{}') from the tensors given",
                    graph.tensors[t].name
                )));
            }
            None => {
                return Err(Error::model(format!(
                    "the model's output '{}' (tensor #{t}) is written by no operator",
                    graph.tensors[t].name
                )));
            }
        }
    }
    let names = |list: &[usize]| -> String {
        list.iter().map(|&t| escape(&graph.tensors[t].name).replace(',', "_")).collect::<Vec<_>>().join(",")
    };
    let entry = format!("{{inputs = \"{}\", outputs = \"{}\"}}", names(arguments), names(results));
    Ok(cx.func.finish(&values, &returned, &entry))
}

/// Which operators of `graph` the tensors `results` need, up to the tensors `arguments`: those
/// writing a result or an input of another needed one, custom operators not followed further.
fn needed(graph: &Subgraph, arguments: &[usize], results: &[usize]) -> Vec<bool> {
    let mut wanted = vec![false; graph.tensors.len()];
    for &t in results {
        wanted[t] = true;
    }
    let mut needed = vec![false; graph.operators.len()];
    for (k, op) in graph.operators.iter().enumerate().rev() {
        if op.code == 32 || !op.outputs.iter().any(|&t| wanted[t]) {
            continue;
        }
        needed[k] = true;
        for &t in op.inputs.iter().flatten() {
            wanted[t] |= !arguments.contains(&t);
        }
    }
    needed
}

/// Whether the partial legalization leaves `op` of the main subgraph out (see
/// [`legalize_between`]): not `needed` (custom operators never are), or not ready to run, or
/// done already.
fn left_out(cx: &Cx, needed: &[bool], op: &Operator) -> bool {
    let graph = cx.graph;
    let unready = op.inputs.iter().flatten().any(|&t| {
        let tensor = &graph.tensors[t];
        cx.values[t].is_none() && tensor.data.is_none() && !tensor.is_variable
    });
    let done = !op.outputs.is_empty() && op.outputs.iter().all(|&t| cx.values[t].is_some());
    !needed[op.index] || unready || done
}

/// Writes the operators of `cx`'s subgraph in order, each located at its index: line 0 of the file
/// for the main subgraph, line `k` for subgraph `k`.
fn legalize_ops(cx: &mut Cx) -> Result<(), Error> {
    let (graph, g) = (cx.graph, cx.graph_index);
    for op in &graph.operators {
        if g == 0 && cx.needed.as_deref().is_some_and(|needed| left_out(cx, needed, op)) {
            continue;
        }
        let label = op.label(graph);
        let shown = if g == 0 { label.clone() } else { format!("subgraph #{g} {label}") };
        cx.func.set_location(format!("\"{}\"(\"{}\":{g}:{})", escape(&shown), escape(&cx.file), op.index));
        legalize_op(cx, op).map_err(|e| Error {
            operator: Some(label.clone()),
            message: e.message,
            unsupported: e.unsupported,
        })?;
    }
    Ok(())
}

/// Writes the operators of subgraph `g` where the function stands (inside a region), with its
/// own tensor values, its inputs bound to `inputs`; returns the values of its outputs. `cx` is as
/// before afterwards.
pub(crate) fn legalize_subgraph(cx: &mut Cx, g: usize, inputs: &[Value]) -> Result<Vec<Value>, Error> {
    let graph = &cx.model.subgraphs[g];
    let mut values = vec![None; graph.tensors.len()];
    for (&t, value) in graph.inputs.iter().zip(inputs) {
        values[t] = Some(value.clone());
    }
    let outer = (cx.graph, cx.graph_index, std::mem::replace(&mut cx.values, values));
    (cx.graph, cx.graph_index) = (graph, g);
    cx.active.push(outer.1);
    let result = legalize_ops(cx).and_then(|()| {
        let outputs = graph.outputs.iter().map(|&t| cx.values[t].clone().ok_or(t));
        outputs.collect::<Result<Vec<_>, _>>().map_err(|t| {
            Error::model(format!("its output '{}' (tensor #{t}) is written by no operator", graph.tensors[t].name))
        })
    });
    cx.active.pop();
    (cx.graph, cx.graph_index, cx.values) = outer;
    result
}

fn legalize_op(cx: &mut Cx, op: &Operator) -> OpResult {
    for &output in &op.outputs {
        if cx.values[output].is_some() || cx.graph.tensors[output].data.is_some() {
            return bad(format!("its output '{}' is already written", cx.graph.tensors[output].name));
        }
    }
    match op.kind.as_str() {
        "CONV_2D" => conv::conv2d(cx, op),
        "DEPTHWISE_CONV_2D" => conv::depthwise(cx, op),
        "FULLY_CONNECTED" => conv::fully_connected(cx, op),
        "BATCH_MATMUL" => matmul::batch_matmul(cx, op),
        "AVERAGE_POOL_2D" | "MAX_POOL_2D" | "L2_POOL_2D" => pool::pool(cx, op),
        "MEAN" | "SUM" | "REDUCE_MAX" | "REDUCE_MIN" => reduce::reduce(cx, op),
        "ARG_MAX" | "ARG_MIN" => reduce::arg(cx, op),
        "CUMSUM" => reduce::cumsum(cx, op),
        "EQUAL" | "NOT_EQUAL" | "GREATER" | "GREATER_EQUAL" | "LESS" | "LESS_EQUAL" => compare::comparison(cx, op),
        "SELECT" | "SELECT_V2" => compare::select(cx, op),
        "LOGICAL_AND" | "LOGICAL_OR" | "LOGICAL_NOT" => compare::logical(cx, op),
        "CAST" => compare::cast(cx, op),
        "RESIZE_BILINEAR" | "RESIZE_NEAREST_NEIGHBOR" => resize::resize(cx, op),
        "FLOOR_DIV" | "FLOOR_MOD" => compare::floor_div_mod(cx, op),
        "ADD" => elementwise::add_sub(cx, op, false),
        "SUB" => elementwise::add_sub(cx, op, true),
        "MUL" => elementwise::mul(cx, op),
        "LEAKY_RELU" => elementwise::leaky_relu(cx, op),
        "PRELU" => elementwise::prelu(cx, op),
        "ADD_N" => elementwise::add_n(cx, op),
        "GATHER_ND" => gather::gather_nd(cx, op),
        "EMBEDDING_LOOKUP" => gather::embedding_lookup(cx, op),
        "BROADCAST_ARGS" => movement::broadcast_args(cx, op),
        "LOG_SOFTMAX" => softmax::log_softmax(cx, op),
        "L2_NORMALIZATION" => reduce::l2_normalization(cx, op),
        "QUANTIZE" => quantize::quantize(cx, op),
        "DEQUANTIZE" => quantize::dequantize(cx, op),
        "PAD" | "PADV2" => shape::pad(cx, op),
        "MIRROR_PAD" => shape::mirror_pad(cx, op),
        "SPACE_TO_BATCH_ND" => batch_space::space_to_batch(cx, op),
        "BATCH_TO_SPACE_ND" => batch_space::batch_to_space(cx, op),
        "TRANSPOSE_CONV" => transpose_conv::transpose_conv(cx, op),
        "RESHAPE" => shape::reshape(cx, op),
        "STRIDED_SLICE" => shape::strided_slice(cx, op),
        "SOFTMAX" => softmax::softmax(cx, op),
        "UNIDIRECTIONAL_SEQUENCE_LSTM" => lstm::lstm(cx, op),
        "SVDF" => svdf::svdf(cx, op),
        "VAR_HANDLE" => variables::var_handle(cx, op),
        "READ_VARIABLE" => variables::read(cx, op),
        "ASSIGN_VARIABLE" => variables::assign(cx, op),
        "CALL_ONCE" => variables::call_once(cx, op),
        "IF" => control_flow::if_op(cx, op),
        "WHILE" => control_flow::while_op(cx, op),
        "CONCATENATION" => movement::concatenation(cx, op),
        "TRANSPOSE" => movement::transpose(cx, op),
        "SQUEEZE" | "EXPAND_DIMS" => movement::reshape_like(cx, op),
        "PACK" => movement::pack(cx, op),
        "UNPACK" => movement::unpack(cx, op),
        "SPLIT" | "SPLIT_V" => movement::split(cx, op),
        "SLICE" => movement::slice_op(cx, op),
        "GATHER" => movement::gather(cx, op),
        "SPACE_TO_DEPTH" | "DEPTH_TO_SPACE" => movement::space_depth(cx, op),
        "REVERSE_V2" => movement::reverse(cx, op),
        "BROADCAST_TO" => movement::broadcast_to(cx, op),
        "ZEROS_LIKE" => movement::zeros_like(cx, op),
        "FILL" => movement::fill(cx, op),
        "SHAPE" => movement::shape(cx, op),
        "ABS" | "NEG" | "EXP" | "LOG" | "SQRT" | "RSQRT" | "FLOOR" | "CEIL" | "ROUND" | "SIN" | "COS" | "TANH"
        | "LOGISTIC" | "RELU" | "RELU6" | "HARD_SWISH" | "ELU" | "SQUARE" => unary::float_unary(cx, op),
        "MAXIMUM" | "MINIMUM" | "DIV" | "SQUARED_DIFFERENCE" => unary::binary(cx, op),
        // Another compiler's program (Vela's `ethos-u`): nothing converts it to TOSA.
        _ if op.code == 32 => bad(
            "it is a custom operator, which no .tflite reader converts to TOSA (umac run runs those a device of umac's runs)",
        ),
        _ => unsupported("umac's .tflite reader does not legalize this operator"),
    }
}

impl<'m, 'a> Cx<'m, 'a> {
    /// Operand `k`'s tensor.
    pub fn tensor(&self, op: &Operator, k: usize) -> OpResult<&'m Tensor<'a>> {
        match op.inputs.get(k) {
            Some(Some(t)) => Ok(&self.graph.tensors[*t]),
            _ => bad(format!("it has no operand #{k}")),
        }
    }
    /// Operand `k`'s tensor, `None` when absent.
    pub fn optional(&self, op: &Operator, k: usize) -> Option<&'m Tensor<'a>> {
        op.inputs.get(k).copied().flatten().map(|t| &self.graph.tensors[t])
    }
    /// Output `k`'s tensor.
    pub fn output(&self, op: &Operator, k: usize) -> OpResult<&'m Tensor<'a>> {
        match op.outputs.get(k) {
            Some(t) => Ok(&self.graph.tensors[*t]),
            None => bad(format!("it has no output #{k}")),
        }
    }
    /// The value of operand `k`: what an earlier operator wrote, an input, or its constant data.
    pub fn value(&mut self, op: &Operator, k: usize) -> OpResult<Value> {
        let Some(Some(t)) = op.inputs.get(k) else { return bad(format!("it has no operand #{k}")) };
        if let Some(value) = &self.values[*t] {
            return Ok(value.clone());
        }
        let tensor = &self.graph.tensors[*t];
        match tensor.data {
            // MLIR's hex form of i1 is not a byte per element: a BOOL constant is written as
            // i8 (TFLite's bools are bytes 0 or 1) and cast.
            Some(data) if tensor.dtype == DType::Bool => {
                let bytes = self.func.bytes(ty(tensor).with_elem("i8"), data);
                Ok(self.func.op("cast", &[&bytes], "", ty(tensor)))
            }
            Some(data) => Ok(self.func.bytes(ty(tensor), data)),
            None => bad(format!("its operand #{k} ('{}') is computed by no earlier operator", tensor.name)),
        }
    }
    /// Records `value` as output `k` of `op`.
    pub fn define(&mut self, op: &Operator, k: usize, value: Value) -> OpResult {
        let tensor = self.output(op, k)?;
        if value.ty.shape != tensor.shape || value.ty.elem != tensor.dtype.mlir() {
            return bad(format!(
                "internal error: the legalization gives {}, the model says {}",
                value.ty.text(),
                ty(tensor).text()
            ));
        }
        self.values[op.outputs[k]] = Some(value);
        Ok(())
    }

    /// `tosa.rescale` of `x` to `elem`: `(x - input_zp) · multiplier · 2^-shift + output_zp`,
    /// one multiplier per channel (the last dimension) when several are given.
    #[allow(clippy::too_many_arguments)]
    pub fn rescale(
        &mut self,
        x: &Value,
        elem: &'static str,
        multipliers: &[(i32, i8)],
        input_zp: i64,
        output_zp: i64,
        double_round: bool,
        scale32: bool,
    ) -> Value {
        let n = multipliers.len() as i64;
        let m: Vec<i64> = multipliers.iter().map(|m| i64::from(m.0)).collect();
        let s: Vec<i64> = multipliers.iter().map(|m| i64::from(m.1)).collect();
        let multiplier = self.func.ints(&[n], if scale32 { "i32" } else { "i16" }, &m);
        let shift = self.func.ints(&[n], "i8", &s);
        let izp = self.func.scalar(x.ty.elem, input_zp);
        let ozp = self.func.scalar(elem, output_zp);
        let attributes = format!(
            "input_unsigned = false, output_unsigned = false, per_channel = {}, rounding_mode = {}, scale32 = {scale32}",
            multipliers.len() > 1,
            if double_round { "DOUBLE_ROUND" } else { "SINGLE_ROUND" }
        );
        self.func.op("rescale", &[x, &multiplier, &shift, &izp, &ozp], &attributes, x.ty.with_elem(elem))
    }

    /// `tosa.clamp` to `[low, high]` of `x`'s integer type.
    pub fn clamp_int(&mut self, x: &Value, low: i64, high: i64) -> Value {
        let attributes = format!("max_val = {high} : {elem}, min_val = {low} : {elem}", elem = x.ty.elem);
        self.func.op("clamp", &[x], &attributes, x.ty.clone())
    }

    /// `tosa.clamp` to `[low, high]` of a float `x`.
    pub fn clamp_f32(&mut self, x: &Value, low: f32, high: f32) -> Value {
        let attributes = format!("max_val = {} : f32, min_val = {} : f32", float(high), float(low));
        self.func.op("clamp", &[x], &attributes, x.ty.clone())
    }

    /// A fused activation on a quantized result (TFLite Micro's CalculateActivationRangeQuantized):
    /// the clamp to the type's range narrowed by the activation, always written.
    pub fn quantized_activation(&mut self, x: &Value, activation: i8, out: &Tensor) -> OpResult<Value> {
        let (low, high) = activation_range(activation, out)?;
        Ok(self.clamp_int(x, low, high))
    }

    /// A fused activation on a float result: a clamp for the RELUs, tanh; nothing for none.
    pub fn float_activation(&mut self, x: &Value, activation: i8) -> OpResult<Value> {
        Ok(match activation {
            0 => x.clone(),
            1 => self.clamp_f32(x, 0.0, f32::MAX),
            2 => self.clamp_f32(x, -1.0, 1.0),
            3 => self.clamp_f32(x, 0.0, 6.0),
            4 => self.func.op("tanh", &[x], "", x.ty.clone()),
            code => return unsupported(format!("fused activation {code} is not one TFLite Micro computes")),
        })
    }
}

/// The integer range of a quantized `out` after fused activation `activation` (TFLite's
/// CalculateActivationRangeQuantized: the float bounds quantized with rounding, within the type).
pub(crate) fn activation_range(activation: i8, out: &Tensor) -> OpResult<(i64, i64)> {
    let (qmin, qmax) = int_range(out.dtype)?;
    let (scale, zp) = per_tensor(out, "its output")?;
    // Saturating: a tiny scale takes the bound past i64 (then past the type's range).
    let quantize = |f: f32| i64::from(zp as i32).saturating_add((f / scale).round() as i64);
    Ok(match activation {
        0 => (qmin, qmax),
        1 => (qmin.max(quantize(0.0)), qmax),
        2 => (qmin.max(quantize(-1.0)), qmax.min(quantize(1.0))),
        3 => (qmin.max(quantize(0.0)), qmax.min(quantize(6.0))),
        code => return unsupported(format!("fused activation {code} on a quantized result")),
    })
}

/// The range of an integer type.
pub(crate) fn int_range(dtype: DType) -> OpResult<(i64, i64)> {
    match dtype {
        DType::I8 => Ok((-128, 127)),
        DType::I16 => Ok((-32768, 32767)),
        DType::I32 => Ok((i64::from(i32::MIN), i64::from(i32::MAX))),
        other => unsupported(format!("{} here is not a quantized type", other.name())),
    }
}

/// The per-tensor scale and zero point of `tensor`.
pub(crate) fn per_tensor(tensor: &Tensor, what: &str) -> OpResult<(f32, i64)> {
    match tensor.quantization.as_ref().map(|q| q.single()) {
        Some(Some((scale, zp))) => {
            // A zero point its type cannot hold (TFLite Micro truncates it to 32 bits).
            let (low, high) = int_range(tensor.dtype).unwrap_or((i64::from(i32::MIN), i64::from(i32::MAX)));
            if !(low..=high).contains(&zp) {
                return bad(format!("{what} ('{}') has zero point {zp}, outside {}", tensor.name, tensor.dtype.name()));
            }
            Ok((scale, zp))
        }
        Some(None) => unsupported(format!("{what} ('{}') is quantized per channel here", tensor.name)),
        None => bad(format!("{what} ('{}') is {} without quantization", tensor.name, tensor.dtype.name())),
    }
}

/// The integers of a constant INT32 (or INT64) operand.
pub(crate) fn constant_ints(tensor: &Tensor) -> OpResult<Vec<i64>> {
    match (tensor.data, tensor.dtype) {
        (Some(data), DType::I32) => {
            Ok(data.chunks_exact(4).map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
        }
        (Some(data), DType::I64) => {
            Ok(data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default())).collect())
        }
        (Some(_), other) => bad(format!("'{}' is {}, not INT32", tensor.name, other.name())),
        (None, _) => unsupported(format!("'{}' is not a constant", tensor.name)),
    }
}

/// `x` reshaped to `rank` dimensions with leading ones (TOSA broadcasts equal ranks only).
pub(crate) fn to_rank(cx: &mut Cx, x: &Value, rank: usize) -> Value {
    if x.ty.rank() >= rank {
        return x.clone();
    }
    let mut shape = vec![1; rank - x.ty.rank()];
    shape.extend_from_slice(&x.ty.shape);
    cx.func.reshape(x, &shape)
}

/// `axis` of a rank-`rank` tensor made non-negative (a negative axis counts from the end), checked.
pub(crate) fn positive_axis(axis: i64, rank: usize) -> OpResult<usize> {
    let fixed = if axis < 0 { axis + rank as i64 } else { axis };
    match usize::try_from(fixed) {
        Ok(a) if a < rank => Ok(a),
        _ => bad(format!("axis {axis} is out of range for rank {rank}")),
    }
}

/// Output `k` must be `shape` of the input's element type.
pub(crate) fn check_output(cx: &Cx, op: &Operator, k: usize, shape: &[i64], dtype: DType) -> OpResult {
    let out = cx.output(op, k)?;
    if out.shape != shape || out.dtype != dtype {
        return bad(format!(
            "its output '{}' is {:?} {}, TFLite Micro writes {shape:?} {}",
            out.name,
            out.shape,
            out.dtype.name(),
            dtype.name()
        ));
    }
    Ok(())
}

/// `x` at `indices` along `axis`: a `tosa.gather` on `x` as `[1, dim, rest]`, the axis first
/// (transposed there and back when it is not), so that the index table holds `indices` once.
pub(crate) fn gather_along(cx: &mut Cx, x: &Value, axis: usize, indices: &[i64]) -> Value {
    let shape = x.ty.shape.clone();
    let outer: i64 = shape[..axis].iter().product();
    let count = indices.len() as i64;
    let table: Vec<u8> = indices.iter().flat_map(|&i| (i as i32).to_le_bytes()).collect();
    let table = cx.func.bytes(Ty::new(&[1, count], "i32"), &table);
    // The axis first: perms [axis, 0, 1, ..] (nothing to move when only ones precede it).
    let mut perms: Vec<usize> = (0..shape.len()).collect();
    let moved = if outer == 1 {
        x.clone()
    } else {
        perms.remove(axis);
        perms.insert(0, axis);
        transpose_value(cx, x, &perms)
    };
    let rest: i64 = moved.ty.shape.iter().product::<i64>() / shape[axis].max(1);
    let values = cx.func.reshape(&moved, &[1, shape[axis], rest]);
    let gathered = cx.func.op("gather", &[&values, &table], "", x.ty.with_shape(&[1, count, rest]));
    let mut moved_shape = moved.ty.shape.clone();
    moved_shape[if outer == 1 { axis } else { 0 }] = count;
    let result = cx.func.reshape(&gathered, &moved_shape);
    if outer == 1 {
        return result;
    }
    let mut inverse = vec![0; perms.len()];
    for (i, &p) in perms.iter().enumerate() {
        inverse[p] = i;
    }
    transpose_value(cx, &result, &inverse)
}

/// A constant lookup table of i32 `values`, as [`lookup`] takes it (`[1, entries, 1]`).
pub(crate) fn i32_table(cx: &mut Cx, values: &[i32]) -> Value {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    cx.func.bytes(Ty::new(&[1, values.len() as i64, 1], "i32"), &bytes)
}

/// `table[index]` for each element of the i32 `index` (every value an entry of the table): one
/// `tosa.gather` on the `[1, entries, 1]` constant `table`, the result in `index`'s shape.
pub(crate) fn lookup(cx: &mut Cx, table: &Value, index: &Value) -> Value {
    let total: i64 = index.ty.shape.iter().product();
    let flat = cx.func.reshape(index, &[1, total]);
    let picked = cx.func.op("gather", &[table, &flat], "", Ty::new(&[1, total, 1], table.ty.elem));
    cx.func.reshape(&picked, &index.ty.shape)
}

/// `tosa.transpose` by `perms` (output dimension `i` is input dimension `perms[i]`).
pub(crate) fn transpose_value(cx: &mut Cx, x: &Value, perms: &[usize]) -> Value {
    let shape: Vec<i64> = perms.iter().map(|&p| x.ty.shape[p]).collect();
    let list = perms.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    cx.func.op("transpose", &[x], &format!("perms = array<i32: {list}>"), x.ty.with_shape(&shape))
}

/// `x` repeated to `shape` (its rank, every dimension 1 or that of `shape`).
pub(crate) fn tile_to(cx: &mut Cx, x: &Value, shape: &[i64]) -> OpResult<Value> {
    let mut ones = vec![1; shape.len() - x.ty.rank()];
    ones.extend_from_slice(&x.ty.shape);
    let x = cx.func.reshape(x, &ones);
    let mut multiples = Vec::with_capacity(shape.len());
    for (&have, &want) in ones.iter().zip(shape) {
        match have {
            _ if have == want => multiples.push(1),
            1 => multiples.push(want),
            _ => return bad(format!("{:?} does not broadcast to {shape:?}", x.ty.shape)),
        }
    }
    if multiples.iter().all(|&m| m == 1) {
        return Ok(x);
    }
    let multiples = cx.func.shape(&multiples);
    Ok(cx.func.op("tile", &[&x, &multiples], "", x.ty.with_shape(shape)))
}

/// `tosa.concat` along `axis` (nothing to write for one operand).
pub(crate) fn concat(cx: &mut Cx, values: &[Value], axis: usize) -> Value {
    if let [single] = values {
        return single.clone();
    }
    let mut shape = values[0].ty.shape.clone();
    shape[axis] = values.iter().map(|v| v.ty.shape[axis]).sum();
    let operands: Vec<&Value> = values.iter().collect();
    cx.func.op("concat", &operands, &format!("axis = {axis} : i32"), values[0].ty.with_shape(&shape))
}

/// `tosa.slice` of `x` from `start`, `size` elements along each dimension.
pub(crate) fn slice(cx: &mut Cx, x: &Value, start: &[i64], size: &[i64]) -> Value {
    if start.iter().all(|&s| s == 0) && size == x.ty.shape {
        return x.clone();
    }
    let start = cx.func.shape(start);
    let sizes = cx.func.shape(size);
    cx.func.op("slice", &[x, &start, &sizes], "", x.ty.with_shape(size))
}

/// The multiplier and shift of a real scale (see [`multiplier32`]).
pub(crate) fn scale32(scale: f64) -> (i32, i8) {
    multiplier32(scale)
}
