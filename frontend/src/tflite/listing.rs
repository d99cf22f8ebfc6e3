//! What the tools need of a `.tflite` file when Arm's converter writes its TOSA: the operators'
//! names (to locate the converter's ops at them), the inputs' and outputs' quantization, and the
//! LSTMs' `umac.lstm` dictionaries; and the data a custom operator carries (an NPU's compiled
//! program, say). The listing reads only what it names, so that models the reader does not take
//! (their tensors' types, say) still get named.

use super::{
    Error, Quantization,
    builtin_operators::BUILTIN_OPERATORS,
    model::{DType, buffer_data, read},
    ops::lstm,
    schema::tflite::{ModelRef, SubGraphRef},
};
use planus::ReadAsRoot;

/// One operator of the first subgraph, as the tools name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its index in the subgraph (as Netron and TFLite Micro number it).
    pub index: usize,
    /// Its builtin name (`CONV_2D`) or custom code.
    pub kind: String,
    /// Its outputs' names.
    pub outputs: Vec<String>,
    /// Its outputs' element types, as TFLite names them (`INT8`).
    pub output_types: Vec<&'static str>,
    /// The indices of its input tensors (`None`: an absent operand) and of its output tensors.
    pub input_tensors: Vec<Option<usize>>,
    pub output_tensors: Vec<usize>,
}

impl Listed {
    /// `operator #3 (CONV_2D, output 'conv1')`.
    pub fn label(&self) -> String {
        match self.outputs.first() {
            Some(tensor) => format!("operator #{} ({}, output '{tensor}')", self.index, self.kind),
            None => format!("operator #{} ({})", self.index, self.kind),
        }
    }
}

fn malformed(e: impl std::fmt::Display) -> Error {
    Error::model(format!("malformed .tflite file: {e}"))
}

fn first_subgraph(bytes: &[u8]) -> Result<(ModelRef<'_>, SubGraphRef<'_>), Error> {
    if bytes.len() >= 8 && &bytes[4..8] != b"TFL3" {
        return Err(Error::model("not a .tflite file (its flatbuffer identifier is not TFL3)".into()));
    }
    let model = ModelRef::read_as_root(bytes).map_err(malformed)?;
    let subgraphs = model.subgraphs().map_err(malformed)?.ok_or_else(|| malformed("it has no subgraph"))?;
    let subgraph = subgraphs.get(0).ok_or_else(|| malformed("it has no subgraph"))?.map_err(malformed)?;
    Ok((model, subgraph))
}

/// The operators of the first subgraph, in order.
pub fn operators(bytes: &[u8]) -> Result<Vec<Listed>, Error> {
    let (model, subgraph) = first_subgraph(bytes)?;
    let codes = model.operator_codes().map_err(malformed)?;
    let tensors = subgraph.tensors().map_err(malformed)?;
    let mut listed = Vec::new();
    for (index, op) in subgraph.operators().map_err(malformed)?.into_iter().flatten().enumerate() {
        let op = op.map_err(malformed)?;
        let opcode = op.opcode_index().map_err(malformed)? as usize;
        let code =
            codes.and_then(|c| c.get(opcode)).transpose().map_err(malformed)?.ok_or_else(|| {
                malformed(format!("operator #{index} has operator code {opcode}, which the model lacks"))
            })?;
        let builtin =
            code.builtin_code().map_err(malformed)?.max(i32::from(code.deprecated_builtin_code().map_err(malformed)?));
        let kind = match (builtin, code.custom_code().map_err(malformed)?) {
            (32, Some(custom)) => custom.to_string(),
            (builtin, _) => usize::try_from(builtin)
                .ok()
                .and_then(|c| BUILTIN_OPERATORS.get(c))
                .map_or_else(|| format!("builtin operator {builtin}"), |name| name.to_string()),
        };
        let (mut outputs, mut output_types, mut output_tensors) = (Vec::new(), Vec::new(), Vec::new());
        let input_tensors =
            op.inputs().map_err(malformed)?.into_iter().flatten().map(|t| usize::try_from(t).ok()).collect();
        for t in op.outputs().map_err(malformed)?.into_iter().flatten() {
            let tensor = tensors
                .and_then(|v| usize::try_from(t).ok().and_then(|t| v.get(t)))
                .transpose()
                .map_err(malformed)?
                .ok_or_else(|| malformed(format!("operator #{index} writes tensor {t}, which the model lacks")))?;
            outputs.push(tensor.name().map_err(malformed)?.unwrap_or_default().to_string());
            output_types.push(DType::name_of(tensor.type_().map_err(malformed)?));
            output_tensors.push(t as usize);
        }
        listed.push(Listed { index, kind, outputs, output_types, input_tensors, output_tensors });
    }
    Ok(listed)
}

/// The quantization of the first subgraph's inputs and outputs, in order (empty for float ones).
pub fn io_quantization(bytes: &[u8]) -> Result<(Vec<Quantization>, Vec<Quantization>), Error> {
    let (_, subgraph) = first_subgraph(bytes)?;
    let tensors = subgraph.tensors().map_err(malformed)?;
    let read_list = |list: Option<planus::Vector<'_, i32>>| -> Result<Vec<Quantization>, Error> {
        list.into_iter()
            .flatten()
            .map(|t| {
                let tensor = tensors
                    .and_then(|v| usize::try_from(t).ok().and_then(|t| v.get(t)))
                    .transpose()
                    .map_err(malformed)?
                    .ok_or_else(|| malformed(format!("the subgraph names tensor {t}, which it lacks")))?;
                let Some(q) = tensor.quantization().map_err(malformed)? else { return Ok(Quantization::default()) };
                Ok(Quantization {
                    scale: q.scale().map_err(malformed)?.into_iter().flatten().collect(),
                    zero_point: q.zero_point().map_err(malformed)?.into_iter().flatten().collect(),
                    dimension: usize::try_from(q.quantized_dimension().map_err(malformed)?).unwrap_or(0),
                })
            })
            .collect()
    };
    Ok((read_list(subgraph.inputs().map_err(malformed)?)?, read_list(subgraph.outputs().map_err(malformed)?)?))
}

/// The `umac.lstm` dictionary of operator `index`, an UNIDIRECTIONAL_SEQUENCE_LSTM.
pub fn lstm_attribute(bytes: &[u8], index: usize) -> Result<String, Error> {
    let model = read(bytes)?;
    let main = model.main();
    let op = main.operators.get(index).ok_or_else(|| Error::model(format!("it has no operator #{index}")))?;
    lstm::attribute(main, op).map_err(|e| Error {
        operator: Some(op.label(main)),
        message: e.message,
        unsupported: false,
    })
}

/// The constant data of each input of operator `index` of the first subgraph, in order (`None`
/// for an absent operand or a tensor without data), whatever the tensors' types: what a custom
/// operator carries, such as the program Arm's Vela compiles for an Ethos-U's `ethos-u` operator.
pub fn operand_data(bytes: &[u8], index: usize) -> Result<Vec<Option<&[u8]>>, Error> {
    let (model, subgraph) = first_subgraph(bytes)?;
    let buffers = model.buffers().map_err(malformed)?;
    let tensors = subgraph.tensors().map_err(malformed)?;
    let op = subgraph
        .operators()
        .map_err(malformed)?
        .and_then(|ops| ops.get(index))
        .transpose()
        .map_err(malformed)?
        .ok_or_else(|| Error::model(format!("it has no operator #{index}")))?;
    let mut data = Vec::new();
    for t in op.inputs().map_err(malformed)?.into_iter().flatten() {
        if t == -1 {
            data.push(None);
            continue;
        }
        let tensor = tensors
            .and_then(|v| usize::try_from(t).ok().and_then(|t| v.get(t)))
            .transpose()
            .map_err(malformed)?
            .ok_or_else(|| malformed(format!("operator #{index} reads tensor {t}, which the model lacks")))?;
        data.push(
            buffer_data(&tensor, buffers.as_ref())
                .map_err(|e| Error { message: format!("operator #{index}'s input tensor {t}: {}", e.message), ..e })?,
        );
    }
    Ok(data)
}

/// The data of the model's metadata entry `name` (e.g. `OfflineMemoryAllocation`, where an
/// offline planner such as Arm's Vela records where each tensor lies in the arena), if it has one.
pub fn metadata<'a>(bytes: &'a [u8], name: &str) -> Result<Option<&'a [u8]>, Error> {
    let (model, _) = first_subgraph(bytes)?;
    let buffers = model.buffers().map_err(malformed)?;
    for entry in model.metadata().map_err(malformed)?.into_iter().flatten() {
        let entry = entry.map_err(malformed)?;
        if entry.name().map_err(malformed)? != Some(name) {
            continue;
        }
        let index = entry.buffer().map_err(malformed)? as usize;
        let buffer = buffers
            .and_then(|b| b.get(index))
            .transpose()
            .map_err(malformed)?
            .ok_or_else(|| malformed(format!("metadata '{name}' names buffer {index}, which the model lacks")))?;
        return Ok(Some(buffer.data().map_err(malformed)?.unwrap_or_default()));
    }
    Ok(None)
}

/// The indices of the first subgraph's input and output tensors.
pub fn io_tensors(bytes: &[u8]) -> Result<(Vec<usize>, Vec<usize>), Error> {
    let (_, subgraph) = first_subgraph(bytes)?;
    let list =
        |v: Option<planus::Vector<'_, i32>>| v.into_iter().flatten().filter_map(|t| usize::try_from(t).ok()).collect();
    Ok((list(subgraph.inputs().map_err(malformed)?), list(subgraph.outputs().map_err(malformed)?)))
}

/// One tensor of the first subgraph, as the listing reads it whatever its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedTensor {
    pub name: String,
    pub shape: Vec<i64>,
    /// Its element type as TFLite names it (`INT8`).
    pub type_name: &'static str,
    /// Its bytes: the shape's elements times the element type's size (`None` for a type whose
    /// size the listing does not know, such as STRING, or a negative dimension).
    pub bytes: Option<u64>,
    /// A variable tensor: state an operator keeps between inferences (an LSTM's). TFLite Micro
    /// sets it to its zero point at first (an int8 tensor's), or to zeros.
    pub is_variable: bool,
    /// Its first zero point, if it is quantized.
    pub zero_point: Option<i64>,
}

/// The tensors of the first subgraph, by index.
pub fn tensors(bytes: &[u8]) -> Result<Vec<ListedTensor>, Error> {
    let (_, subgraph) = first_subgraph(bytes)?;
    let mut listed = Vec::new();
    for tensor in subgraph.tensors().map_err(malformed)?.into_iter().flatten() {
        let tensor = tensor.map_err(malformed)?;
        let code = tensor.type_().map_err(malformed)?;
        // TFLite's element types by code (`DType::name_of` names them).
        let size = match code {
            3 | 6 | 9 => Some(1u64),
            1 | 7 | 16 | 18 => Some(2),
            0 | 2 | 15 => Some(4),
            4 | 8 | 10 | 12 => Some(8),
            11 => Some(16),
            _ => None,
        };
        let shape: Vec<i64> = tensor.shape().map_err(malformed)?.into_iter().flatten().map(i64::from).collect();
        let elements = shape.iter().try_fold(1u64, |n, &d| u64::try_from(d).ok().and_then(|d| n.checked_mul(d)));
        listed.push(ListedTensor {
            name: tensor.name().map_err(malformed)?.unwrap_or_default().to_string(),
            shape,
            type_name: DType::name_of(code),
            bytes: size.zip(elements).and_then(|(s, n)| s.checked_mul(n)),
            is_variable: tensor.is_variable().map_err(malformed)?,
            zero_point: match tensor.quantization().map_err(malformed)? {
                Some(q) => q.zero_point().map_err(malformed)?.and_then(|z| z.iter().next()),
                None => None,
            },
        });
    }
    Ok(listed)
}
