//! Which commands and field values a stream uses, against those Vela's streams in the tests use
//! (`fields.txt`, kept by `tests/fields.rs`): a later stream that uses a command or value no
//! tested stream showed is visible (`umac run --report` lists them), since the functional model
//! was proven only on what the tests ran.
//!
//! An entry is a command's name, or `COMMAND field=VALUE` for each enumerated field (its value's
//! name) and each field of at most 4 bits (flags and small counts); addresses, lengths, sizes and
//! scales are not listed value by value.

use crate::{
    commands::{Field, Show},
    stream::Instruction,
};
use std::collections::BTreeSet;

/// The entries the tests' Vela streams showed, one a line.
pub const SHOWN: &str = include_str!("../fields.txt");

fn listed(field: &Field) -> bool {
    matches!(field.show, Show::Enum(_)) || field.width <= 4
}

/// The entries of `instructions`.
pub fn entries(instructions: &[Instruction]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for i in instructions {
        out.insert(i.command.name.to_string());
        for field in i.command.fields.iter().filter(|f| listed(f)) {
            let value = field.value(i.param, i.payload);
            out.insert(format!("{} {}={}", i.command.name, field.name, field.show(value)));
        }
    }
    out
}

/// The entries of `instructions` that no tested stream showed.
pub fn unseen(instructions: &[Instruction]) -> Vec<String> {
    let shown: BTreeSet<&str> = SHOWN.lines().collect();
    entries(instructions).into_iter().filter(|e| !shown.contains(e.as_str())).collect()
}
