//! `.tflite` models: conversion to TOSA with Arm's `tosa-converter-for-tflite` (installed by
//! `scripts/bootstrap` into the project's venv), and the quantization parameters of the model's
//! inputs and outputs, read from the flatbuffer (TOSA carries plain integer tensors).

use std::path::{Path, PathBuf};

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

/// Reads the model at `path` as `umac` takes it: TOSA MLIR text or bytecode as it is, a `.tflite`
/// file converted to TOSA bytecode (with its inputs' and outputs' quantization).
pub fn read_model(path: &Path) -> Result<(Vec<u8>, Option<IoQuantization>), String> {
    let display = path.display().to_string();
    let raw = std::fs::read(path).map_err(|e| format!("could not open model '{display}': {e}"))?;
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tflite")) {
        return Ok((raw, None));
    }
    let quantization = io_quantization(&raw).map_err(|e| format!("{display}: {e}"))?;
    Ok((convert(path)?, Some(quantization)))
}

/// Converts `model` to TOSA bytecode and returns it.
pub fn convert(model: &Path) -> Result<Vec<u8>, String> {
    let tool = converter()?;
    let dir = std::env::temp_dir().join(format!("umac-tflite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let out = dir.join("model.mlirbc");
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
            "{} could not convert {}: {}",
            tool.display(),
            model.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run {}: {e}", tool.display())),
    };
    let _ = std::fs::remove_dir_all(&dir);
    bytes
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
    let model = fb.root().ok_or_else(bad)?;
    let subgraphs = fb.vector(model, 2).ok_or_else(bad)?;
    let subgraph = fb.table_at_vector(subgraphs, 0).ok_or_else(bad)?;
    let tensors = fb.vector(subgraph, 0).ok_or_else(bad)?;
    let read = |field: usize| -> Result<Vec<Quantization>, String> {
        let Some(indices) = fb.vector(subgraph, field) else {
            return Ok(vec![]);
        };
        (0..indices.1)
            .map(|i| {
                let index = fb.u32(indices.0 + 4 * i).ok_or_else(bad)? as usize;
                let tensor = fb.table_at_vector(tensors, index).ok_or_else(bad)?;
                let Some(q) = fb.table(tensor, 4) else {
                    return Ok(Quantization::default());
                };
                let scale = fb
                    .vector(q, 2)
                    .map(|(at, n)| (0..n).filter_map(|k| fb.u32(at + 4 * k).map(f32::from_bits)).collect())
                    .unwrap_or_default();
                let zero_point = fb
                    .vector(q, 3)
                    .map(|(at, n)| (0..n).filter_map(|k| fb.u64(at + 8 * k).map(|v| v as i64)).collect())
                    .unwrap_or_default();
                Ok(Quantization { scale, zero_point })
            })
            .collect()
    };
    Ok((read(1)?, read(2)?))
}

/// Bounds-checked reads of a flatbuffer: tables are byte positions, vectors (position of the
/// first element, length).
struct FlatBuffer<'a>(&'a [u8]);

impl FlatBuffer<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        Some(u16::from_le_bytes(self.0.get(at..at + 2)?.try_into().ok()?))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.0.get(at..at + 4)?.try_into().ok()?))
    }
    fn u64(&self, at: usize) -> Option<u64> {
        Some(u64::from_le_bytes(self.0.get(at..at + 8)?.try_into().ok()?))
    }
    fn root(&self) -> Option<usize> {
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
    fn table(&self, table: usize, field: usize) -> Option<usize> {
        self.indirect(self.field(table, field)?)
    }
    fn vector(&self, table: usize, field: usize) -> Option<(usize, usize)> {
        let at = self.indirect(self.field(table, field)?)?;
        let len = self.u32(at)? as usize;
        // Every element takes at least one byte: a length past the end is malformed.
        (at + 4 + len <= self.0.len()).then_some((at + 4, len))
    }
    fn table_at_vector(&self, vector: (usize, usize), index: usize) -> Option<usize> {
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

    #[test]
    fn reads_the_kws_model() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/models/mlperf-tiny/kws/model.tflite");
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipped: {} not found", path.display());
            return;
        };
        let (inputs, outputs) = io_quantization(&bytes).unwrap();
        // ../shared/models/mlperf-tiny/kws/meta.json: input scale 0.5847029089927673, zp 83;
        // output scale 0.00390625, zp -128.
        assert_eq!(inputs, vec![Quantization { scale: vec![0.584_702_9], zero_point: vec![83] }]);
        assert_eq!(outputs, vec![Quantization { scale: vec![0.003_906_25], zero_point: vec![-128] }]);
    }
}
