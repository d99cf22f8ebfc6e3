//! The jobs: the kinds of NPU jobs and the arguments of their kernels' calls (`code.rs`), the job
//! each composite or primitive op runs as (`jobs.rs`), and how a call splits it (`split.rs`).
//! Every level above (graph, schedule, code generation) works on these; they depend on none.

pub(crate) mod code;
pub(crate) mod jobs;
pub(crate) mod split;
