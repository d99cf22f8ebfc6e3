//! The AOT executor: one function per operator, the profiling hooks around their calls, calls of C
//! functions.

pub mod lower_call_extern;
pub mod outline_operators;
pub mod profile_hooks;
