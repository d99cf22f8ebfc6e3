//! A `.tflite` model as umac uses it: each subgraph's tensors (shape, element type,
//! quantization, constant data) and operators (builtin code, operands, options), read through
//! the planus accessors of `schema/tflite.fbs` and checked on the way.
//!
//! A file is untrusted input. planus checks every offset and length against the buffer as it
//! reads; on top of that this module checks what the format cannot express (tensor indices in
//! range, constant data as long as its tensor, element counts that fit in memory), so that a
//! malformed file is an [`Error`], never a panic, a hang or an unbounded allocation: every
//! vector collected here is bounded by the file's size.

use crate::tflite::{
    BUILTIN_OPERATORS, Error,
    schema::tflite::{BufferRef, BuiltinOptionsRef, ModelRef, OperatorCodeRef, SubGraphRef, TensorRef},
};
use planus::ReadAsRoot;

/// The largest tensor umac accepts, in bytes (no microcontroller holds more).
pub const MAX_TENSOR_BYTES: u64 = 1 << 31;

/// An element type (TFLite's `TensorType`) umac reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    F32,
    I32,
    I16,
    I8,
    I64,
    Bool,
    /// A resource variable's handle (VAR_HANDLE's output): no data umac computes with.
    Resource,
    /// UINT8: bytes only a custom operator reads (the program and memories of Vela's `ethos-u`);
    /// the reader takes them for custom operators alone.
    U8,
}

impl DType {
    fn from_code(code: i8) -> Option<DType> {
        Some(match code {
            0 => DType::F32,
            2 => DType::I32,
            4 => DType::I64,
            6 => DType::Bool,
            7 => DType::I16,
            9 => DType::I8,
            13 => DType::Resource,
            3 => DType::U8,
            _ => return None,
        })
    }
    /// TFLite's name of element type `code`.
    pub fn name_of(code: i8) -> &'static str {
        const NAMES: [&str; 19] = [
            "FLOAT32",
            "FLOAT16",
            "INT32",
            "UINT8",
            "INT64",
            "STRING",
            "BOOL",
            "INT16",
            "COMPLEX64",
            "INT8",
            "FLOAT64",
            "COMPLEX128",
            "UINT64",
            "RESOURCE",
            "VARIANT",
            "UINT32",
            "UINT16",
            "INT4",
            "BFLOAT16",
        ];
        usize::try_from(code).ok().and_then(|c| NAMES.get(c)).copied().unwrap_or("UNKNOWN")
    }
    /// TFLite's name of this type.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "FLOAT32",
            DType::I32 => "INT32",
            DType::I16 => "INT16",
            DType::I8 => "INT8",
            DType::I64 => "INT64",
            DType::Bool => "BOOL",
            DType::Resource => "RESOURCE",
            DType::U8 => "UINT8",
        }
    }
    /// The MLIR element type.
    pub fn mlir(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::I32 => "i32",
            DType::I16 => "i16",
            DType::I8 => "i8",
            DType::I64 => "i64",
            DType::Bool => "i1",
            DType::Resource => "none",
            DType::U8 => "ui8",
        }
    }
    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::I16 => 2,
            DType::I8 | DType::Bool | DType::U8 => 1,
            // TFLite Micro keeps a resource's id.
            DType::Resource => 4,
            DType::I64 => 8,
        }
    }
}

/// Scale and zero point of a quantized tensor: one pair, or one per index of `dimension`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Quantization {
    pub scale: Vec<f32>,
    pub zero_point: Vec<i64>,
    pub dimension: usize,
}

impl Quantization {
    /// The scale and zero point of a per-tensor quantization.
    pub fn single(&self) -> Option<(f32, i64)> {
        match (self.scale.as_slice(), self.zero_point.as_slice()) {
            ([scale], [zero_point]) => Some((*scale, *zero_point)),
            ([scale], []) => Some((*scale, 0)),
            _ => None,
        }
    }
}

/// One tensor of the subgraph.
#[derive(Clone, Debug)]
pub struct Tensor<'a> {
    pub name: String,
    pub shape: Vec<i64>,
    pub dtype: DType,
    pub quantization: Option<Quantization>,
    /// Constant data (little endian, row major), for tensors with a buffer.
    pub data: Option<&'a [u8]>,
    /// TFLite's variable tensors (an LSTM's state), which persist from one inference to the next.
    pub is_variable: bool,
}

impl Tensor<'_> {
    /// Its number of elements.
    pub fn elements(&self) -> i64 {
        self.shape.iter().product()
    }
}

/// Options of an operator, as its builtin options table gives them (absent tables give
/// TFLite's defaults).
#[derive(Clone, Debug, Default)]
pub enum Options {
    #[default]
    None,
    Conv {
        same: bool,
        stride: [i64; 2],
        dilation: [i64; 2],
        activation: i8,
        depth_multiplier: i64,
    },
    Pool {
        same: bool,
        stride: [i64; 2],
        filter: [i64; 2],
        activation: i8,
    },
    FullyConnected {
        activation: i8,
        shuffled: bool,
        keep_num_dims: bool,
    },
    Softmax {
        beta: f32,
    },
    Concatenation {
        axis: i64,
        activation: i8,
    },
    Arithmetic {
        activation: i8,
        pot_scale_int16: bool,
    },
    Reshape {
        new_shape: Option<Vec<i64>>,
    },
    Reducer {
        keep_dims: bool,
    },
    Squeeze {
        dims: Vec<i64>,
    },
    StridedSlice {
        begin_mask: i32,
        end_mask: i32,
        ellipsis_mask: i32,
        new_axis_mask: i32,
        shrink_axis_mask: i32,
        offset: bool,
    },
    TransposeConv {
        same: bool,
        stride: [i64; 2],
        activation: i8,
    },
    Lstm {
        activation: i8,
        cell_clip: f32,
        proj_clip: f32,
        time_major: bool,
        asymmetric: bool,
        diagonal: bool,
    },
    LeakyRelu {
        alpha: f32,
    },
    Resize {
        align_corners: bool,
        half_pixel_centers: bool,
    },
    Axis {
        axis: i64,
        count: i64,
    },
    Block {
        size: i64,
    },
    Gather {
        axis: i64,
        batch_dims: i64,
    },
    MirrorPad {
        symmetric: bool,
    },
    Cumsum {
        exclusive: bool,
        reverse: bool,
    },
    BatchMatMul {
        adj_x: bool,
        adj_y: bool,
    },
    Svdf {
        rank: i64,
        activation: i8,
        /// Hybrid (float32 input, int8 weights) quantizes its input asymmetrically.
        asymmetric: bool,
    },
    /// VAR_HANDLE: which resource variable.
    VarHandle {
        container: String,
        shared_name: String,
    },
    /// IF: the subgraphs it picks from.
    If {
        then_graph: i64,
        else_graph: i64,
    },
    /// WHILE: its condition and body subgraphs.
    While {
        cond_graph: i64,
        body_graph: i64,
    },
    /// CALL_ONCE: the subgraph it runs on the first inference.
    CallOnce {
        init: i64,
    },
    /// Options of a kind umac does not read.
    Other,
}

impl Options {
    /// The bytes its vectors and strings hold.
    fn heap_bytes(&self) -> usize {
        match self {
            Options::Reshape { new_shape } => 8 * new_shape.as_ref().map_or(0, Vec::len),
            Options::Squeeze { dims } => 8 * dims.len(),
            Options::VarHandle { container, shared_name } => container.len() + shared_name.len(),
            _ => 0,
        }
    }
}

/// One operator of the subgraph.
#[derive(Clone, Debug)]
pub struct Operator {
    /// Its index in the subgraph (as Netron and TFLite Micro number it).
    pub index: usize,
    /// Its builtin code (32 for custom operators).
    pub code: i32,
    /// Its name: the builtin operator's (`CONV_2D`) or the custom code.
    pub kind: String,
    /// Its operands' tensors, `None` for an absent optional operand (-1).
    pub inputs: Vec<Option<usize>>,
    pub outputs: Vec<usize>,
    pub options: Options,
}

/// One subgraph: its tensors and operators, and which tensors are its inputs and outputs.
#[derive(Clone, Debug)]
pub struct Subgraph<'a> {
    pub tensors: Vec<Tensor<'a>>,
    pub operators: Vec<Operator>,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
}

/// A model: its subgraphs. TFLite runs the first; the others are what control flow (CALL_ONCE,
/// IF, WHILE) invokes.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    pub subgraphs: Vec<Subgraph<'a>>,
}

impl<'a> Model<'a> {
    /// The subgraph TFLite runs.
    pub fn main(&self) -> &Subgraph<'a> {
        &self.subgraphs[0]
    }
}

fn malformed(what: impl std::fmt::Display) -> Error {
    Error::model(format!("malformed .tflite file: {what}"))
}

/// Reads `bytes` as a TFLite model.
pub fn read(bytes: &[u8]) -> Result<Model<'_>, Error> {
    if bytes.len() >= 8 && &bytes[4..8] != b"TFL3" {
        return Err(Error::model("not a .tflite file (its flatbuffer identifier is not TFL3)".to_string()));
    }
    let model = ModelRef::read_as_root(bytes).map_err(malformed)?;
    let buffers = model.buffers().map_err(malformed)?;
    let subgraphs = model.subgraphs().map_err(malformed)?.ok_or_else(|| malformed("it has no subgraph"))?;
    if subgraphs.is_empty() {
        return Err(malformed("it has no subgraph"));
    }
    let codes = model.operator_codes().map_err(malformed)?;
    let mut read_subgraphs = Vec::new();
    let mut budget = Budget(16 * bytes.len() + (1 << 20));
    for (index, subgraph) in subgraphs.iter().enumerate() {
        let subgraph = subgraph.map_err(malformed)?;
        let graph =
            read_subgraph(&subgraph, buffers.as_ref(), codes.as_ref(), &mut budget).map_err(|e| match index {
                0 => e,
                _ => Error { message: format!("subgraph #{index}: {}", e.message), ..e },
            })?;
        read_subgraphs.push(graph);
    }
    Ok(Model { subgraphs: read_subgraphs })
}

/// The memory reading a file may take, in bytes. A flatbuffer may point many times at one table
/// (one subgraph listed a million times, one tensor or operator with a long shape or operand list
/// in every slot), so what it describes can be quadratic in its size: each tensor and operator
/// read is charged what it holds, and a file whose tables add up to more than 16 times its size
/// is refused.
struct Budget(usize);

impl Budget {
    fn charge(&mut self, bytes: usize) -> Result<(), Error> {
        self.0 = self.0.checked_sub(bytes).ok_or_else(|| {
            malformed("its tables describe more than 16 times its size (tables shared many times over)")
        })?;
        Ok(())
    }
}

/// Reads one subgraph, checked.
fn read_subgraph<'a>(
    subgraph: &SubGraphRef<'a>,
    buffers: Option<&planus::Vector<'a, planus::Result<BufferRef<'a>>>>,
    codes: Option<&planus::Vector<'a, planus::Result<OperatorCodeRef<'a>>>>,
    budget: &mut Budget,
) -> Result<Subgraph<'a>, Error> {
    let mut tensors = Vec::new();
    for (index, tensor) in subgraph.tensors().map_err(malformed)?.into_iter().flatten().enumerate() {
        let tensor = tensor.map_err(malformed)?;
        let name = tensor.name().map_err(malformed)?.unwrap_or_default().to_string();
        let at = |e: Error| Error { message: format!("tensor #{index} ('{name}'): {}", e.message), ..e };
        let tensor = read_tensor(&tensor, buffers, &name).map_err(at)?;
        let quantized = tensor.quantization.as_ref().map_or(0, |q| 12 * q.scale.len().max(q.zero_point.len()));
        budget.charge(std::mem::size_of::<Tensor>() + 8 * tensor.shape.len() + name.len() + quantized)?;
        tensors.push(tensor);
    }
    let tensor_index = |raw: i32, what: &str| -> Result<usize, Error> {
        usize::try_from(raw)
            .ok()
            .filter(|&i| i < tensors.len())
            .ok_or_else(|| malformed(format!("{what} refers to tensor {raw}, of {}", tensors.len())))
    };
    let indices = |vector: Option<planus::Vector<'_, i32>>, what: &str| -> Result<Vec<usize>, Error> {
        vector.into_iter().flatten().map(|raw| tensor_index(raw, what)).collect()
    };
    let inputs = indices(subgraph.inputs().map_err(malformed)?, "an input of the subgraph")?;
    let outputs = indices(subgraph.outputs().map_err(malformed)?, "an output of the subgraph")?;
    budget.charge(8 * (inputs.len() + outputs.len()))?;

    let mut operators = Vec::new();
    for (index, op) in subgraph.operators().map_err(malformed)?.into_iter().flatten().enumerate() {
        let op = op.map_err(malformed)?;
        let at = |e: planus::Error| malformed(format!("operator #{index}: {e}"));
        let opcode = op.opcode_index().map_err(at)?;
        let code =
            codes.and_then(|codes| codes.get(opcode as usize)).transpose().map_err(at)?.ok_or_else(|| {
                malformed(format!("operator #{index} has operator code {opcode}, which the model lacks"))
            })?;
        // TFLite's GetBuiltinCode: the larger of the two fields.
        let builtin = code.builtin_code().map_err(at)?.max(i32::from(code.deprecated_builtin_code().map_err(at)?));
        let kind = match (builtin, code.custom_code().map_err(at)?) {
            (32, Some(custom)) => custom.to_string(),
            (builtin, _) => usize::try_from(builtin)
                .ok()
                .and_then(|c| BUILTIN_OPERATORS.get(c))
                .map_or_else(|| format!("builtin operator {builtin}"), |name| name.to_string()),
        };
        let op_inputs = op
            .inputs()
            .map_err(at)?
            .into_iter()
            .flatten()
            .map(|raw| if raw == -1 { Ok(None) } else { tensor_index(raw, &format!("operator #{index}")).map(Some) })
            .collect::<Result<Vec<_>, _>>()?;
        let op_outputs = indices(op.outputs().map_err(at)?, &format!("operator #{index}"))?;
        let options = match op.builtin_options() {
            // Options of a kind newer than the schema umac has: not ones umac reads.
            Err(e) if matches!(e.error_kind, planus::errors::ErrorKind::UnknownUnionTag { .. }) => Options::Other,
            read => options(read.map_err(at)?).map_err(at)?,
        };
        let held = kind.len() + 16 * op_inputs.len() + 8 * op_outputs.len() + options.heap_bytes();
        budget.charge(std::mem::size_of::<Operator>() + held)?;
        operators.push(Operator { index, code: builtin, kind, inputs: op_inputs, outputs: op_outputs, options });
    }
    // UINT8 tensors are for custom operators alone (a device program's bytes and memories).
    for (t, tensor) in tensors.iter().enumerate().filter(|(_, tensor)| tensor.dtype == DType::U8) {
        let users: Vec<&Operator> =
            operators.iter().filter(|op| op.inputs.contains(&Some(t)) || op.outputs.contains(&t)).collect();
        if inputs.contains(&t) || outputs.contains(&t) || users.is_empty() || users.iter().any(|op| op.code != 32) {
            return Err(Error::model(format!("tensor #{t} ('{}'): umac does not take UINT8 tensors", tensor.name)));
        }
    }
    Ok(Subgraph { tensors, operators, inputs, outputs })
}

fn read_tensor<'a>(
    tensor: &TensorRef<'a>,
    buffers: Option<&planus::Vector<'a, planus::Result<BufferRef<'a>>>>,
    name: &str,
) -> Result<Tensor<'a>, Error> {
    let e = |e: planus::Error| Error::model(format!("malformed: {e}"));
    let code = tensor.type_().map_err(e)?;
    let dtype = DType::from_code(code)
        .ok_or_else(|| Error::model(format!("umac does not take {} tensors", DType::name_of(code))))?;
    if tensor.sparsity().map_err(e)?.is_some() {
        return Err(Error::model("it is sparse, which umac does not read (TFLite Micro does not either)".into()));
    }
    let shape: Vec<i64> = tensor.shape().map_err(e)?.into_iter().flatten().map(i64::from).collect();
    // Empty dimensions count as one in `extent`, so that no product of dimensions overflows.
    let (mut bytes, mut extent) = (dtype.bytes(), dtype.bytes());
    for &dim in &shape {
        let dim =
            u64::try_from(dim).map_err(|_| Error::model(format!("its shape {shape:?} has a negative dimension")))?;
        bytes = bytes.saturating_mul(dim);
        extent = extent.saturating_mul(dim.max(1));
    }
    if extent > MAX_TENSOR_BYTES {
        return Err(Error::model(format!("its shape {shape:?} takes more than {MAX_TENSOR_BYTES} bytes")));
    }
    let quantization = match tensor.quantization().map_err(e)? {
        None => None,
        Some(q) => {
            let scale: Vec<f32> = q.scale().map_err(e)?.into_iter().flatten().collect();
            let zero_point: Vec<i64> = q.zero_point().map_err(e)?.into_iter().flatten().collect();
            let dimension = usize::try_from(q.quantized_dimension().map_err(e)?)
                .map_err(|_| Error::model("its quantized dimension is negative".into()))?;
            if q.details().map_err(e)?.is_some() {
                return Err(Error::model("it has custom quantization, which umac does not read".into()));
            }
            (!scale.is_empty()).then_some(Quantization { scale, zero_point, dimension })
        }
    };
    let data = buffer_data(tensor, buffers)?;
    if let Some(data) = data
        && data.len() as u64 != bytes
    {
        return Err(Error::model(format!(
            "its data has {} bytes, its shape {shape:?} of {} takes {bytes}",
            data.len(),
            dtype.name()
        )));
    }
    Ok(Tensor {
        name: name.to_string(),
        shape,
        dtype,
        quantization,
        data,
        is_variable: tensor.is_variable().map_err(e)?,
    })
}

/// The data of `tensor`'s buffer, `None` when it has none (or an empty one).
pub(crate) fn buffer_data<'a>(
    tensor: &TensorRef<'a>,
    buffers: Option<&planus::Vector<'a, planus::Result<BufferRef<'a>>>>,
) -> Result<Option<&'a [u8]>, Error> {
    let e = |e: planus::Error| Error::model(format!("malformed: {e}"));
    let buffer = tensor.buffer().map_err(e)? as usize;
    match (buffer, buffers) {
        (0, _) => Ok(None),
        (index, Some(buffers)) => {
            let buffer = buffers
                .get(index)
                .ok_or_else(|| {
                    Error::model(format!("its buffer {index} is not in the model's {} buffers", buffers.len()))
                })?
                .map_err(e)?;
            if buffer.offset().map_err(e)? > 1 {
                return Err(Error::model(
                    "its data lies outside the flatbuffer (a model over 2 GB), which umac does not read".into(),
                ));
            }
            Ok(buffer.data().map_err(e)?.filter(|d| !d.is_empty()))
        }
        (index, None) => Err(Error::model(format!("its buffer {index} is not in the model, which has no buffers"))),
    }
}

fn options(options: Option<BuiltinOptionsRef<'_>>) -> planus::Result<Options> {
    let Some(options) = options else { return Ok(Options::None) };
    Ok(match options {
        BuiltinOptionsRef::Conv2D(o) => Options::Conv {
            same: o.padding()? == 0,
            stride: [o.stride_h()?.into(), o.stride_w()?.into()],
            dilation: [o.dilation_h_factor()?.into(), o.dilation_w_factor()?.into()],
            activation: o.fused_activation_function()?,
            depth_multiplier: 1,
        },
        BuiltinOptionsRef::DepthwiseConv2D(o) => Options::Conv {
            same: o.padding()? == 0,
            stride: [o.stride_h()?.into(), o.stride_w()?.into()],
            dilation: [o.dilation_h_factor()?.into(), o.dilation_w_factor()?.into()],
            activation: o.fused_activation_function()?,
            depth_multiplier: o.depth_multiplier()?.into(),
        },
        BuiltinOptionsRef::Pool2D(o) => Options::Pool {
            same: o.padding()? == 0,
            stride: [o.stride_h()?.into(), o.stride_w()?.into()],
            filter: [o.filter_height()?.into(), o.filter_width()?.into()],
            activation: o.fused_activation_function()?,
        },
        BuiltinOptionsRef::FullyConnected(o) => Options::FullyConnected {
            activation: o.fused_activation_function()?,
            shuffled: o.weights_format()? != 0,
            keep_num_dims: o.keep_num_dims()?,
        },
        BuiltinOptionsRef::Softmax(o) => Options::Softmax { beta: o.beta()? },
        BuiltinOptionsRef::Concatenation(o) => {
            Options::Concatenation { axis: o.axis()?.into(), activation: o.fused_activation_function()? }
        }
        BuiltinOptionsRef::Add(o) | BuiltinOptionsRef::Sub(o) => {
            Options::Arithmetic { activation: o.fused_activation_function()?, pot_scale_int16: o.pot_scale_int16()? }
        }
        BuiltinOptionsRef::Mul(o) | BuiltinOptionsRef::Div(o) => {
            Options::Arithmetic { activation: o.fused_activation_function()?, pot_scale_int16: true }
        }
        BuiltinOptionsRef::Reshape(o) => {
            Options::Reshape { new_shape: o.new_shape()?.map(|v| v.iter().map(i64::from).collect()) }
        }
        BuiltinOptionsRef::Reducer(o) => Options::Reducer { keep_dims: o.keep_dims()? },
        BuiltinOptionsRef::Squeeze(o) => {
            Options::Squeeze { dims: o.squeeze_dims()?.into_iter().flatten().map(i64::from).collect() }
        }
        BuiltinOptionsRef::StridedSlice(o) => Options::StridedSlice {
            begin_mask: o.begin_mask()?,
            end_mask: o.end_mask()?,
            ellipsis_mask: o.ellipsis_mask()?,
            new_axis_mask: o.new_axis_mask()?,
            shrink_axis_mask: o.shrink_axis_mask()?,
            offset: o.offset()?,
        },
        BuiltinOptionsRef::TransposeConv(o) => Options::TransposeConv {
            same: o.padding()? == 0,
            stride: [o.stride_h()?.into(), o.stride_w()?.into()],
            activation: o.fused_activation_function()?,
        },
        BuiltinOptionsRef::UnidirectionalSequenceLstm(o) => Options::Lstm {
            activation: o.fused_activation_function()?,
            cell_clip: o.cell_clip()?,
            proj_clip: o.proj_clip()?,
            time_major: o.time_major()?,
            asymmetric: o.asymmetric_quantize_inputs()?,
            diagonal: o.diagonal_recurrent_tensors()?,
        },
        BuiltinOptionsRef::LeakyRelu(o) => Options::LeakyRelu { alpha: o.alpha()? },
        BuiltinOptionsRef::ResizeBilinear(o) => {
            Options::Resize { align_corners: o.align_corners()?, half_pixel_centers: o.half_pixel_centers()? }
        }
        BuiltinOptionsRef::ResizeNearestNeighbor(o) => {
            Options::Resize { align_corners: o.align_corners()?, half_pixel_centers: o.half_pixel_centers()? }
        }
        BuiltinOptionsRef::Pack(o) => Options::Axis { axis: o.axis()?.into(), count: o.values_count()?.into() },
        BuiltinOptionsRef::Unpack(o) => Options::Axis { axis: o.axis()?.into(), count: o.num()?.into() },
        BuiltinOptionsRef::Split(o) | BuiltinOptionsRef::SplitV(o) => {
            Options::Axis { axis: 0, count: o.num_splits()?.into() }
        }
        BuiltinOptionsRef::SpaceToDepth(o) | BuiltinOptionsRef::DepthToSpace(o) => {
            Options::Block { size: o.block_size()?.into() }
        }
        BuiltinOptionsRef::Gather(o) => Options::Gather { axis: o.axis()?.into(), batch_dims: o.batch_dims()?.into() },
        BuiltinOptionsRef::MirrorPad(o) => Options::MirrorPad { symmetric: o.mode()? == 1 },
        BuiltinOptionsRef::Cumsum(o) => Options::Cumsum { exclusive: o.exclusive()?, reverse: o.reverse()? },
        BuiltinOptionsRef::Svdf(o) => Options::Svdf {
            rank: o.rank()?.into(),
            activation: o.fused_activation_function()?,
            asymmetric: o.asymmetric_quantize_inputs()?,
        },
        BuiltinOptionsRef::VarHandle(o) => Options::VarHandle {
            container: o.container()?.unwrap_or_default().to_string(),
            shared_name: o.shared_name()?.unwrap_or_default().to_string(),
        },
        BuiltinOptionsRef::If(o) => {
            Options::If { then_graph: o.then_subgraph_index()?.into(), else_graph: o.else_subgraph_index()?.into() }
        }
        BuiltinOptionsRef::While(o) => {
            Options::While { cond_graph: o.cond_subgraph_index()?.into(), body_graph: o.body_subgraph_index()?.into() }
        }
        BuiltinOptionsRef::CallOnce(o) => Options::CallOnce { init: o.init_subgraph_index()?.into() },
        BuiltinOptionsRef::BatchMatMul(o) => Options::BatchMatMul { adj_x: o.adj_x()?, adj_y: o.adj_y()? },
        _ => Options::Other,
    })
}
