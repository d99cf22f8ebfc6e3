//! `.npy` files through the `npyz` crate.

use crate::{DType, Error, Tensor};
use npyz::{DType as NpyDType, TypeChar, WriterBuilder};
use std::{fs::File, io::BufWriter, path::Path};

/// Reads a C-order `.npy` file of one of the [`DType`]s.
pub fn read_npy(path: &Path) -> Result<Tensor, Error> {
    let shown = path.display().to_string();
    let format = |message: String| Error::Format { path: shown.clone(), message };
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: shown.clone(), source })?;
    let file = npyz::NpyFile::new(&bytes[..]).map_err(|e| format(format!("not an .npy file: {e}")))?;
    if file.order() != npyz::Order::C {
        return Err(format("Fortran-order arrays are not supported; save it with numpy.ascontiguousarray".into()));
    }
    let shape: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let NpyDType::Plain(ts) = file.dtype() else {
        return Err(format("structured dtypes are not supported".into()));
    };
    let dtype = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Bool, 1) => DType::Bool,
        (TypeChar::Int, 1) => DType::I8,
        (TypeChar::Uint, 1) => DType::U8,
        (TypeChar::Int, 2) => DType::I16,
        (TypeChar::Int, 4) => DType::I32,
        (TypeChar::Int, 8) => DType::I64,
        (TypeChar::Float, 4) => DType::F32,
        (TypeChar::Float, 8) => DType::F64,
        _ => {
            return Err(format(format!(
                "dtype '{ts}' is not supported (use bool, int8, uint8, int16, int32, int64, float32 or float64)"
            )));
        }
    };
    let data: Vec<u8> = match dtype {
        DType::Bool => file.into_vec::<bool>().map(|v| v.into_iter().map(u8::from).collect()),
        DType::I8 => file.into_vec::<i8>().map(|v| v.into_iter().map(|x| x as u8).collect()),
        DType::U8 => file.into_vec::<u8>(),
        DType::I16 => file.into_vec::<i16>().map(|v| v.into_iter().flat_map(i16::to_le_bytes).collect()),
        DType::I32 => file.into_vec::<i32>().map(|v| v.into_iter().flat_map(i32::to_le_bytes).collect()),
        DType::I64 => file.into_vec::<i64>().map(|v| v.into_iter().flat_map(i64::to_le_bytes).collect()),
        DType::F32 => file.into_vec::<f32>().map(|v| v.into_iter().flat_map(f32::to_le_bytes).collect()),
        DType::F64 => file.into_vec::<f64>().map(|v| v.into_iter().flat_map(f64::to_le_bytes).collect()),
    }
    .map_err(|e| format(format!("cannot read the data: {e}")))?;
    Ok(Tensor { dtype, shape, data })
}

/// Writes a tensor as a C-order `.npy` file.
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<(), Error> {
    let shown = path.display().to_string();
    let io = |source: std::io::Error| Error::Io { path: shown.clone(), source };
    let file = BufWriter::new(File::create(path).map_err(io)?);
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    let size = tensor.dtype.size();
    let chunks = tensor.data.chunks_exact(size);
    macro_rules! write_as {
        ($t:ty, $conv:expr) => {{
            let mut writer =
                npyz::WriteOptions::<$t>::new().default_dtype().shape(&shape).writer(file).begin_nd().map_err(io)?;
            writer.extend(chunks.map($conv)).map_err(io)?;
            writer.finish().map_err(io)
        }};
    }
    match tensor.dtype {
        DType::Bool => write_as!(bool, |c: &[u8]| c[0] != 0),
        DType::I8 => write_as!(i8, |c: &[u8]| c[0] as i8),
        DType::U8 => write_as!(u8, |c: &[u8]| c[0]),
        DType::I16 => write_as!(i16, |c: &[u8]| i16::from_le_bytes([c[0], c[1]])),
        DType::I32 => write_as!(i32, |c: &[u8]| i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        DType::I64 => write_as!(i64, |c: &[u8]| i64::from_le_bytes(c.try_into().unwrap_or_default())),
        DType::F32 => write_as!(f32, |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        DType::F64 => write_as!(f64, |c: &[u8]| f64::from_le_bytes(c.try_into().unwrap_or_default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_dtype() {
        let dir = std::env::temp_dir().join(format!("umac-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for dtype in [DType::Bool, DType::I8, DType::U8, DType::I16, DType::I32, DType::I64, DType::F32, DType::F64] {
            let mut t = Tensor::zeros(dtype, &[2, 3]);
            for (i, b) in t.data.iter_mut().enumerate() {
                *b = if dtype == DType::Bool { (i % 2) as u8 } else { (i * 37 % 251) as u8 };
            }
            let path = dir.join(format!("{dtype}.npy"));
            write_npy(&path, &t).unwrap();
            assert_eq!(read_npy(&path).unwrap(), t, "{dtype}");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn rejects_garbage_with_the_file_name() {
        let path = std::env::temp_dir().join(format!("umac-bad-{}.npy", std::process::id()));
        std::fs::write(&path, b"not numpy").unwrap();
        let e = read_npy(&path).unwrap_err().to_string();
        assert!(e.contains("umac-bad") && e.contains("not an .npy file"), "{e}");
        std::fs::remove_file(path).unwrap();
    }
}
