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
            convert(path).map_err(|converter| format!("{display}: {e}; and the converter failed: {converter}"))
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

/// One operator of a model's first subgraph, as the tools name it.
pub use umac_frontend::tflite::Listed as Operator;

/// The operators by the names of their outputs.
fn outputs(operators: &[Operator]) -> HashMap<&str, &Operator> {
    operators.iter().flat_map(|op| op.outputs.iter().map(move |t| (t.as_str(), op))).collect()
}

/// The operators of the first subgraph, in order. A malformed file is an error, never a panic.
pub fn operators(bytes: &[u8]) -> Result<Vec<Operator>, String> {
    umac_frontend::tflite::operators(bytes).map_err(|e| e.to_string())
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
pub use umac_frontend::tflite::Quantization;

/// The quantization of the first subgraph's inputs and outputs, in order. A malformed file is
/// an error, never a panic.
pub fn io_quantization(bytes: &[u8]) -> Result<IoQuantization, String> {
    umac_frontend::tflite::io_quantization(bytes).map_err(|e| e.to_string())
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
        let operators = [Operator {
            index: 7,
            kind: "CONV_2D".into(),
            outputs: vec!["conv1".into()],
            output_types: vec!["INT8"],
            input_tensors: vec![Some(0), Some(1), None],
            output_tensors: vec![2],
        }];
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
        assert_eq!(inputs, vec![Quantization { scale: vec![0.584_702_9], zero_point: vec![83], dimension: 0 }]);
        assert_eq!(outputs, vec![Quantization { scale: vec![0.003_906_25], zero_point: vec![-128], dimension: 0 }]);
    }
}
