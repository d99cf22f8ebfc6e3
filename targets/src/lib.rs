//! umac's targets: the host, where a model is compiled in memory by one of two engines and run
//! on tensors ([`host`]), and firmware objects for Cortex-M CPUs and the host ([`firmware`]).

pub mod backend;
pub mod firmware;
pub mod host;
