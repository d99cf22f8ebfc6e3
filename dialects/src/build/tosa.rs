//! TOSA's constants for the [`Builder`]: `tosa.const` and `tosa.const_shape`.

use super::{Attr, Builder, Ty, Value};

impl Builder<'_> {
    /// `tosa.const` of the integers `values` (one for a splat), a tensor of type `ty`.
    pub fn tosa_const(&mut self, ty: Ty, values: &[i64]) -> Value {
        self.op1("tosa.const", &[], ty, &[("values", Attr::Dense(ty, values))])
    }

    /// `tosa.const_shape` of `values`, a `!tosa.shape<rank>`.
    pub fn tosa_shape(&mut self, values: &[i64]) -> Value {
        let ty = self.parsed_type(&format!("!tosa.shape<{}>", values.len()));
        let index = self.tensor(&[values.len() as i64], Ty::Index);
        self.op1("tosa.const_shape", &[], ty, &[("values", Attr::Dense(index, values))])
    }
}
