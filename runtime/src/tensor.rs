//! A dense tensor: element type, shape, and little-endian bytes in row-major order.

use std::fmt;

/// Element types umac exchanges with users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// Booleans, one byte each (0 or 1).
    Bool,
    /// Signed 8-bit.
    I8,
    /// Unsigned 8-bit.
    U8,
    /// Signed 16-bit.
    I16,
    /// Signed 32-bit.
    I32,
    /// Signed 64-bit.
    I64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// The numpy name (`int8`, `float32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::U8 => "uint8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Tells whether values are floating point.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dense row-major tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Element type.
    pub dtype: DType,
    /// Sizes of each dimension.
    pub shape: Vec<usize>,
    /// `shape.iter().product() * dtype.size()` bytes, little-endian.
    pub data: Vec<u8>,
}

impl Tensor {
    /// A zero-filled tensor.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Self {
        let len: usize = shape.iter().product();
        Self { dtype, shape: shape.to_vec(), data: vec![0; len * dtype.size()] }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Tells whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shape as `1x49x10x1` (a scalar shows as `scalar`).
    pub fn shape_text(&self) -> String {
        shape_text(&self.shape)
    }

    /// The tensors along the first axis (`N x ...` gives `N` tensors of shape `...`), or `None`
    /// for a scalar.
    pub fn unstack(&self) -> Option<Vec<Tensor>> {
        let (&count, inner) = self.shape.split_first()?;
        let bytes = inner.iter().product::<usize>() * self.dtype.size();
        Some(
            (0..count)
                .map(|k| Tensor {
                    dtype: self.dtype,
                    shape: inner.to_vec(),
                    data: self.data[k * bytes..(k + 1) * bytes].to_vec(),
                })
                .collect(),
        )
    }

    /// `parts` along a new first axis: [`Tensor::unstack`]'s inverse. `None` when they differ in
    /// type or shape, or there are none.
    pub fn stack(parts: &[Tensor]) -> Option<Tensor> {
        let first = parts.first()?;
        if parts.iter().any(|p| p.dtype != first.dtype || p.shape != first.shape) {
            return None;
        }
        let shape = std::iter::once(parts.len()).chain(first.shape.iter().copied()).collect();
        Some(Tensor { dtype: first.dtype, shape, data: parts.iter().flat_map(|p| p.data.iter().copied()).collect() })
    }

    /// Element `i` as f64 (for comparisons and printing).
    pub fn get_f64(&self, i: usize) -> f64 {
        let size = self.dtype.size();
        let b = &self.data[i * size..(i + 1) * size];
        match self.dtype {
            DType::Bool | DType::U8 => f64::from(b[0]),
            DType::I8 => f64::from(b[0] as i8),
            DType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            DType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DType::I64 => i64::from_le_bytes(b.try_into().unwrap_or_default()) as f64,
            DType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DType::F64 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        }
    }
}

/// `1x49x10x1`, or `scalar` for rank 0.
pub fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        "scalar".to_string()
    } else {
        shape.iter().map(ToString::to_string).collect::<Vec<_>>().join("x")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstack_and_stack_are_inverses() {
        let t = Tensor { dtype: DType::I16, shape: vec![3, 2], data: (0u8..12).collect() };
        let parts = t.unstack().unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1], Tensor { dtype: DType::I16, shape: vec![2], data: vec![4, 5, 6, 7] });
        assert_eq!(Tensor::stack(&parts), Some(t));
        // A scalar has no first axis; parts of two shapes or types do not stack; nor do none.
        assert_eq!(Tensor::zeros(DType::I8, &[]).unstack(), None);
        let odd = [Tensor::zeros(DType::I8, &[2]), Tensor::zeros(DType::I8, &[3])];
        assert_eq!(Tensor::stack(&odd), None);
        assert_eq!(Tensor::stack(&[Tensor::zeros(DType::I8, &[2]), Tensor::zeros(DType::U8, &[2])]), None);
        assert_eq!(Tensor::stack(&[]), None);
        // An empty first axis gives no tensors.
        assert_eq!(Tensor::zeros(DType::F32, &[0, 4]).unstack(), Some(vec![]));
    }
}
