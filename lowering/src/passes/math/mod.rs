//! Scalar math without libm: rounding, exponentials, logarithms, sines, square roots as float
//! arithmetic (`float_ops` writes their arithmetic).

pub mod expand_exp_tanh;
pub mod expand_log_sin_cos;
pub mod expand_rounding;
pub mod expand_sqrt;
mod float_ops;
