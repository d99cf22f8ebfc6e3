//! Loops inside the operators: loop order, vectorized and DSP dot products, vectorized elementwise
//! loops, border and interior split.

pub mod channels_innermost;
pub mod split_borders;
pub mod vectorize_dot_products;
pub mod vectorize_elementwise_loops;
