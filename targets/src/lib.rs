//! umac's targets. Today: the host, where a model is compiled in memory by one of two engines
//! and run on tensors ([`host`]).

pub mod host;
