//! The command-line tools: `umac-opt` lives in [`opt`], `umac` in [`umac`].

pub mod opt;
pub mod umac;
