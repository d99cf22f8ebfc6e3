//! `.tflite` models: conversion to TOSA with Arm's `tosa-converter-for-tflite` (installed by
//! `scripts/bootstrap` into the project's venv), and the quantization parameters of the model's
//! inputs and outputs, read from the flatbuffer (TOSA carries plain integer tensors).

use melior::{
    Context,
    ir::{
        Location, Module,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use sha2::Digest as _;
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};
use umac_dialects::{ContextOptions, create_context, source};
use umac_frontend::tflite::{BUILTIN_OPERATORS, DType};

/// Finds the converter: `$UMAC_TFLITE_CONVERTER`, the project venv next to the executable's
/// build tree (`<repo>/.venv`), or `PATH`.
pub fn converter() -> Result<PathBuf, String> {
    const NAME: &str = "tosa-converter-for-tflite";
    if let Some(path) = std::env::var_os("UMAC_TFLITE_CONVERTER") {
        return Ok(PathBuf::from(path));
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(4) {
            let candidate = dir.join(".venv/bin").join(NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            if dir.join(NAME).is_file() {
                return Ok(dir.join(NAME));
            }
        }
    }
    Err(format!(
        "cannot convert a .tflite model: {NAME} was not found (run scripts/bootstrap, which installs it into \
         .venv, or set UMAC_TFLITE_CONVERTER)"
    ))
}

/// The quantization of a model's inputs and outputs, in order.
pub type IoQuantization = (Vec<Quantization>, Vec<Quantization>);

/// A model as `umac` takes it.
pub struct Model {
    /// TOSA MLIR text or bytecode.
    pub bytes: Vec<u8>,
    /// A `.tflite` model's inputs' and outputs' quantization.
    pub quantization: Option<IoQuantization>,
    /// The SHA-256 of the file as given (the `.tflite` file, not its conversion), in hex.
    pub sha256: String,
}

/// Reads the model at `path`: TOSA MLIR text or bytecode as it is, a TOSA flatbuffer (`.tosa`)
/// written as TOSA MLIR by umac's reader, a `.tflite` file legalized to TOSA (see
/// [`tflite_to_tosa`]) with its inputs' and outputs' quantization.
pub fn read_model(path: &Path) -> Result<Model, String> {
    let display = path.display().to_string();
    let raw = std::fs::read(path).map_err(|e| format!("could not open model '{display}': {e}"))?;
    let sha256 = sha2::Sha256::digest(&raw).iter().map(|b| format!("{b:02x}")).collect();
    if is_tosa_flatbuffer(path) {
        let text = umac_frontend::tosa::to_mlir(&raw, &display).map_err(|e| format!("{display}: {e}"))?;
        return Ok(Model { bytes: text.into_bytes(), quantization: None, sha256 });
    }
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tflite")) {
        return Ok(Model { bytes: raw, quantization: None, sha256 });
    }
    let quantization = io_quantization(&raw).map_err(|e| format!("{display}: {e}"))?;
    Ok(Model { bytes: tflite_to_tosa(path, &raw)?, quantization: Some(quantization), sha256 })
}

/// Whether `path` names a TOSA flatbuffer (`.tosa`).
pub fn is_tosa_flatbuffer(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tosa"))
}

/// The TOSA of the `.tflite` file at `path` (see [`tflite_to_tosa`]).
pub fn convert_tflite(path: &Path) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("could not open model '{}': {e}", path.display()))?;
    tflite_to_tosa(path, &raw)
}

/// Which reader turns `.tflite` files into TOSA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// umac's own (`umac_frontend::tflite`), with the converter for operators it does not legalize yet
    /// when the converter is installed.
    Native,
    /// Arm's `tosa-converter-for-tflite` only.
    Converter,
}

/// The reader `UMAC_TFLITE_READER` names (`native`, the default, or `converter`).
pub fn reader() -> Result<Reader, String> {
    match std::env::var("UMAC_TFLITE_READER").as_deref() {
        Err(_) | Ok("") | Ok("native") => Ok(Reader::Native),
        Ok("converter") => Ok(Reader::Converter),
        Ok(other) => Err(format!("UMAC_TFLITE_READER is '{other}': it takes 'native' or 'converter'")),
    }
}

/// The TOSA (text or bytecode) of the `.tflite` model `raw` read from `path`. umac's reader
/// legalizes it; an operator that reader does not take is converted by the converter when it is
/// installed (with a note saying so), else it is an error naming the operator.
pub fn tflite_to_tosa(path: &Path, raw: &[u8]) -> Result<Vec<u8>, String> {
    let display = path.display().to_string();
    if reader()? == Reader::Converter {
        return convert(path);
    }
    match umac_frontend::tflite::to_tosa(raw, &display) {
        Ok(text) => Ok(text.into_bytes()),
        Err(e) if e.unsupported && converter().is_ok() => {
            eprintln!("{display}: note: {e}; converting the model with tosa-converter-for-tflite instead");
            convert(path)
        }
        Err(e) => Err(format!("{display}: {e}")),
    }
}

/// Converts `model` to TOSA bytecode and returns it, each op located at the TFLite operator it
/// was converted from ([`name_operators`]). The converter's errors name the operator too.
pub fn convert(model: &Path) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(model).map_err(|e| format!("could not open model '{}': {e}", model.display()))?;
    let operators = operators(&raw).map_err(|e| format!("{}: {e}", model.display()))?;
    let tool = converter()?;
    let dir = crate::scratch::Scratch::new("umac-tflite")?;
    let out = dir.path().join("model.mlirbc");
    let result = std::process::Command::new(&tool)
        .arg(model)
        .arg("--bytecode")
        .arg("--emit-debug-info")
        .arg("-o")
        .arg(&out)
        .output();
    let bytes = match result {
        Ok(output) if output.status.success() => std::fs::read(&out).map_err(|e| e.to_string()),
        Ok(output) => Err(format!(
            "{} could not convert it:\n{}",
            tool.display(),
            converter_errors(&model.display().to_string(), &String::from_utf8_lossy(&output.stderr), &operators)
        )),
        Err(e) => Err(format!("cannot run {}: {e}", tool.display())),
    };
    drop(dir);
    let bytes = bytes.map_err(|e| format!("{}: {e}", model.display()))?;
    // The converter's own output always parses; anything else is a broken converter.
    let context = create_context(ContextOptions { allow_unregistered_dialects: true, threading: false });
    let Some(module) = source::parse_module(&context, &model.display().to_string(), &bytes) else {
        return Err(format!("{}: {} wrote TOSA that does not parse", model.display(), tool.display()));
    };
    name_operators(&context, &module, &operators);
    super::tflite_lstm::attach(&context, &module, &raw).map_err(|e| format!("{}: error: {e}", model.display()))?;
    Ok(source::write_bytecode(&module))
}

/// The converter's error lines (its other output is logging), located errors rewritten as umac
/// writes them: at a tensor an operator writes (`loc("conv1"("model.tflite":0:0)): error: ...`)
/// `model.tflite: error: operator #3 (CONV_2D, output 'conv1'): ...`, elsewhere
/// `model.tflite: error: ...`.
fn converter_errors(model: &str, stderr: &str, operators: &[Operator]) -> String {
    let by_output = outputs(operators);
    let lines: Vec<String> = stderr
        .lines()
        .filter(|line| line.contains("error:") || line.starts_with("[ERROR]"))
        .map(|line| {
            let located = line.strip_prefix("loc(\"").and_then(|rest| {
                let (tensor, rest) = rest.split_once('"')?;
                let (_, message) = rest.split_once("error: ")?;
                Some(match by_output.get(tensor) {
                    Some(operator) => format!("{model}: error: {}: {message}", operator.label()),
                    None => format!("{model}: error: {message}"),
                })
            });
            located.unwrap_or_else(|| line.trim().to_string())
        })
        .collect();
    if lines.is_empty() { stderr.trim().to_string() } else { lines.join("\n") }
}

/// One operator of a model's first subgraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operator {
    /// Its index in the subgraph (as Netron and TFLite Micro number it).
    pub index: usize,
    /// What it computes, as TFLite names it: a builtin operator (`CONV_2D`) or a custom one's code.
    pub kind: String,
    /// Its output tensors' names.
    pub outputs: Vec<String>,
    /// Its output tensors' element types, as TFLite names them (`INT8`, `FLOAT32`), in order.
    pub output_types: Vec<&'static str>,
}

impl Operator {
    /// How umac names it: `operator #3 (CONV_2D, output 'conv1')`.
    pub fn label(&self) -> String {
        match self.outputs.first() {
            Some(tensor) => format!("operator #{} ({}, output '{tensor}')", self.index, self.kind),
            None => format!("operator #{} ({})", self.index, self.kind),
        }
    }
}

/// The operators by the names of their outputs.
fn outputs(operators: &[Operator]) -> HashMap<&str, &Operator> {
    operators.iter().flat_map(|op| op.outputs.iter().map(move |t| (t.as_str(), op))).collect()
}

/// The operators of the first subgraph, in order. A malformed file is an error, never a panic.
pub fn operators(bytes: &[u8]) -> Result<Vec<Operator>, String> {
    let fb = FlatBuffer(bytes);
    let bad = || "malformed .tflite flatbuffer".to_string();
    let model = fb.root().ok_or_else(bad)?;
    // OperatorCode: deprecated_builtin_code (int8, field 0), custom_code (1), builtin_code (int32, 3);
    // the code is the larger of the two (TFLite's GetBuiltinCode).
    let codes = fb.vector(model, 1).ok_or_else(bad)?;
    let kinds: Vec<String> = (0..codes.1)
        .map(|i| {
            let code = fb.table_at_vector(codes, i).ok_or_else(bad)?;
            let deprecated = fb.scalar(code, 0, 1).ok_or_else(bad)? as i8;
            let builtin = (fb.scalar(code, 3, 4).ok_or_else(bad)? as i32).max(i32::from(deprecated));
            Ok(match (builtin, fb.string(code, 1)) {
                (32, Some(custom)) => custom,
                (code, _) => usize::try_from(code)
                    .ok()
                    .and_then(|c| BUILTIN_OPERATORS.get(c))
                    .map_or_else(|| format!("builtin operator {code}"), |name| name.to_string()),
            })
        })
        .collect::<Result<_, String>>()?;
    let (subgraph, tensors) = fb.first_subgraph().ok_or_else(bad)?;
    let Some(list) = fb.vector(subgraph, 3) else {
        return Ok(vec![]);
    };
    (0..list.1)
        .map(|index| {
            let op = fb.table_at_vector(list, index).ok_or_else(bad)?;
            let kind = kinds.get(fb.scalar(op, 0, 4).ok_or_else(bad)? as usize).ok_or_else(bad)?.clone();
            // Tensor: type (field 1, a byte), name (field 3).
            let (outputs, output_types) = fb
                .vector(op, 2)
                .map(|(at, n)| {
                    (0..n)
                        .map(|k| {
                            let tensor = fb.table_at_vector(tensors, fb.u32(at + 4 * k)? as usize)?;
                            let element = DType::name_of(fb.scalar(tensor, 1, 1)? as u8 as i8);
                            Some((fb.string(tensor, 3).unwrap_or_default(), element))
                        })
                        .collect::<Option<(Vec<String>, Vec<&'static str>)>>()
                })
                .unwrap_or(Some((vec![], vec![])))
                .ok_or_else(bad)?;
            Ok(Operator { index, kind, outputs, output_types })
        })
        .collect()
}

/// Locates each op the converter made from a TFLite operator at that operator. The converter
/// locates it at the name of the operator's output tensor (`loc("conv1"("model.tflite":0:0))`);
/// umac at `loc("operator #3 (CONV_2D, output 'conv1')"("model.tflite":0:3))`, a position on
/// line 0 whose column is the operator's index, so that diagnostics, `--report` and
/// `metadata.json` name the operator a user finds in Netron (see `umac_dialects::FileLineCol`).
/// Ops located at a tensor no operator writes (the weights) keep their location.
pub fn name_operators(context: &Context, module: &Module, operators: &[Operator]) {
    let by_output = outputs(operators);
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let location = op.location();
        if !location.is_name() {
            return WalkResult::Advance;
        }
        let child = location.name_child_location();
        let tensor = location.name_value();
        let found = tensor.as_string_ref().as_str().ok().and_then(|t| by_output.get(t));
        if let (true, Some(operator)) = (child.is_file_line_col_range(), found)
            && child.file_line_col_range_start_line() == 0
        {
            let file = child.file_line_col_range_filename();
            let file = file.as_string_ref().as_str().unwrap_or_default();
            let at = Location::new(context, file, 0, operator.index);
            umac_dialects::set_location(&op, Location::name(context, &operator.label(), at));
        }
        WalkResult::Advance
    });
}

/// Scale and zero point of one tensor (per tensor or per channel).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Quantization {
    /// Scales.
    pub scale: Vec<f32>,
    /// Zero points.
    pub zero_point: Vec<i64>,
}

/// The quantization of the first subgraph's inputs and outputs, in order. A malformed file is
/// an error, never a panic.
pub fn io_quantization(bytes: &[u8]) -> Result<IoQuantization, String> {
    let fb = FlatBuffer(bytes);
    let bad = || "malformed .tflite flatbuffer".to_string();
    let (subgraph, tensors) = fb.first_subgraph().ok_or_else(bad)?;
    let read = |field: usize| -> Result<Vec<Quantization>, String> {
        let Some(indices) = fb.vector(subgraph, field) else {
            return Ok(vec![]);
        };
        (0..indices.1)
            .map(|i| {
                let index = fb.u32(indices.0 + 4 * i).ok_or_else(bad)? as usize;
                let tensor = fb.table_at_vector(tensors, index).ok_or_else(bad)?;
                Ok(fb.quantization(tensor))
            })
            .collect()
    };
    Ok((read(1)?, read(2)?))
}

/// Bounds-checked reads of a flatbuffer: tables are byte positions, vectors (position of the
/// first element, length).
pub(super) struct FlatBuffer<'a>(pub(super) &'a [u8]);

impl FlatBuffer<'_> {
    /// The model's first subgraph and its vector of tensors.
    pub(super) fn first_subgraph(&self) -> Option<(usize, (usize, usize))> {
        let subgraph = self.table_at_vector(self.vector(self.root()?, 2)?, 0)?;
        Some((subgraph, self.vector(subgraph, 0)?))
    }
    /// The quantization of tensor table `tensor` (empty when it has none).
    pub(super) fn quantization(&self, tensor: usize) -> Quantization {
        let Some(q) = self.table(tensor, 4) else {
            return Quantization::default();
        };
        let scale = self
            .vector(q, 2)
            .map(|(at, n)| (0..n).filter_map(|k| self.u32(at + 4 * k).map(f32::from_bits)).collect())
            .unwrap_or_default();
        let zero_point = self
            .vector(q, 3)
            .map(|(at, n)| (0..n).filter_map(|k| self.u64(at + 8 * k).map(|v| v as i64)).collect())
            .unwrap_or_default();
        Quantization { scale, zero_point }
    }
    fn u16(&self, at: usize) -> Option<u16> {
        Some(u16::from_le_bytes(self.0.get(at..at + 2)?.try_into().ok()?))
    }
    pub(super) fn u32(&self, at: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.0.get(at..at + 4)?.try_into().ok()?))
    }
    pub(super) fn u64(&self, at: usize) -> Option<u64> {
        Some(u64::from_le_bytes(self.0.get(at..at + 8)?.try_into().ok()?))
    }
    /// Scalar field `field` of `table`, `bytes` wide, little endian (0, the default, if absent).
    pub(super) fn scalar(&self, table: usize, field: usize, bytes: usize) -> Option<u32> {
        let Some(at) = self.field(table, field) else {
            return Some(0);
        };
        let raw = self.0.get(at..at + bytes)?;
        Some(raw.iter().rev().fold(0u32, |v, &b| (v << 8) | u32::from(b)))
    }
    /// String field `field` of `table`, if present and in bounds.
    fn string(&self, table: usize, field: usize) -> Option<String> {
        let at = self.indirect(self.field(table, field)?)?;
        let len = self.u32(at)? as usize;
        Some(String::from_utf8_lossy(self.0.get(at + 4..at + 4 + len)?).into_owned())
    }
    pub(super) fn root(&self) -> Option<usize> {
        Some(self.u32(0)? as usize)
    }
    /// The position of field `field` of `table`, if present.
    fn field(&self, table: usize, field: usize) -> Option<usize> {
        let vtable = (table as i64 - i64::from(self.u32(table)? as i32)) as usize;
        let size = self.u16(vtable)? as usize;
        let slot = 4 + 2 * field;
        if slot + 2 > size {
            return None;
        }
        let offset = self.u16(vtable + slot)? as usize;
        (offset != 0).then_some(table + offset)
    }
    fn indirect(&self, at: usize) -> Option<usize> {
        Some(at + self.u32(at)? as usize)
    }
    pub(super) fn table(&self, table: usize, field: usize) -> Option<usize> {
        self.indirect(self.field(table, field)?)
    }
    pub(super) fn vector(&self, table: usize, field: usize) -> Option<(usize, usize)> {
        let at = self.indirect(self.field(table, field)?)?;
        let len = self.u32(at)? as usize;
        // Every element takes at least one byte: a length past the end is malformed.
        (at + 4 + len <= self.0.len()).then_some((at + 4, len))
    }
    pub(super) fn table_at_vector(&self, vector: (usize, usize), index: usize) -> Option<usize> {
        (index < vector.1).then(|| self.indirect(vector.0 + 4 * index)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_files_are_errors() {
        assert!(io_quantization(&[]).is_err());
        assert!(io_quantization(&[0xff; 64]).is_err());
        assert!(io_quantization(&[4, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }

    /// TFLite's own python schema reads test/models/ops-16x8/pad.tflite as these operators.
    #[test]
    fn reads_the_operators() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/ops-16x8/pad.tflite");
        let operators = operators(&std::fs::read(path).unwrap()).unwrap();
        let expected = [
            ("PAD", "model_4/zero_padding2d_1/Pad"),
            ("MUL", "model_4/multiply_1/mul"),
            ("RESHAPE", "model_4/flatten_2/Reshape"),
            ("FULLY_CONNECTED", "StatefulPartitionedCall:0"),
        ];
        let read: Vec<(usize, &str, Vec<&str>)> = operators
            .iter()
            .map(|o| (o.index, o.kind.as_str(), o.outputs.iter().map(String::as_str).collect()))
            .collect();
        let expected: Vec<(usize, &str, Vec<&str>)> =
            expected.iter().enumerate().map(|(i, (kind, output))| (i, *kind, vec![*output])).collect();
        assert_eq!(read, expected);
        assert_eq!(operators[1].label(), "operator #1 (MUL, output 'model_4/multiply_1/mul')");
        // int16x8: int16 activations.
        assert!(operators.iter().all(|o| o.output_types == ["INT16"]), "{operators:?}");
        // Cut anywhere, the file is an error, not a panic.
        let bytes =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/ops-16x8/pad.tflite")).unwrap();
        for len in (0..bytes.len()).step_by(97) {
            let _ = super::operators(&bytes[..len]);
        }
    }

    /// The converter's errors at a tensor name the operator writing it; its logging is dropped.
    #[test]
    fn converter_errors_name_the_operator() {
        let operators =
            [Operator { index: 7, kind: "CONV_2D".into(), outputs: vec!["conv1".into()], output_types: vec!["INT8"] }];
        let stderr = "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n\
                      loc(\"conv1\"(\"m.tflite\":0:0)): error: 'tfl.conv_2d' op quantized type mismatch\n\
                      loc(\"m.tflite\":0:0): error: couldn't parse flatbuffer\n\
                      [ERROR] Conversion failed: Could not convert the TFLite model\n";
        assert_eq!(
            converter_errors("m.tflite", stderr, &operators),
            "m.tflite: error: operator #7 (CONV_2D, output 'conv1'): 'tfl.conv_2d' op quantized type mismatch\n\
             m.tflite: error: couldn't parse flatbuffer\n\
             [ERROR] Conversion failed: Could not convert the TFLite model"
        );
    }

    #[test]
    fn reads_the_kws_model() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models/mlperf-tiny/kws/model.tflite");
        let bytes = std::fs::read(&path).unwrap();
        let (inputs, outputs) = io_quantization(&bytes).unwrap();
        // test/models/mlperf-tiny/kws/meta.json: input scale 0.5847029089927673, zp 83;
        // output scale 0.00390625, zp -128.
        assert_eq!(inputs, vec![Quantization { scale: vec![0.584_702_9], zero_point: vec![83] }]);
        assert_eq!(outputs, vec![Quantization { scale: vec![0.003_906_25], zero_point: vec![-128] }]);
    }
}
