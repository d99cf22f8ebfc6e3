//! The command-line tools: `umac-opt` lives in [`opt`], `umac` in [`umac`]; both run their work
//! in a [`crash_guard`]ed worker process.

pub mod crash_guard;
pub mod diagnostics;
pub mod opt;
pub mod scratch;
pub mod umac;
