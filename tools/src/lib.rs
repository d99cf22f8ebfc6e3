//! The command-line tools' shared code. `umac-opt` lives in [`opt`].

pub mod opt;
