//! The libgcc helpers an RV32 model calls (`__udivdi3` for 64-bit division, `__addsf3`, ... for
//! floats on a CPU without an FPU), taken from the RISC-V toolchain's libgcc as a firmware link
//! takes them: the archive's members that define what the model needs, and what those need.

use crate::Error;
use object::{Object, ObjectSymbol, read::archive::ArchiveFile};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

/// The environment variable naming the libgcc.a to take the helpers from (default: the one
/// `riscv64-unknown-elf-gcc -march=rv32im -mabi=ilp32` links).
pub const LIBGCC_VARIABLE: &str = "UMAC_LIBGCC";

/// The C compiler asked where its RV32IM libgcc is.
const COMPILER: &str = "riscv64-unknown-elf-gcc";

/// Where libgcc.a for RV32IM (ilp32) is.
fn libgcc_path() -> Result<PathBuf, Error> {
    if let Some(path) = std::env::var_os(LIBGCC_VARIABLE) {
        return Ok(PathBuf::from(path));
    }
    let missing = |why: String| {
        Error::Run(format!(
            "the model calls libgcc's helpers (64-bit division, floats without an FPU), which the simulator \
             links from the RISC-V toolchain: {why}; install gcc-riscv64-unknown-elf (scripts/bootstrap does) or \
             set {LIBGCC_VARIABLE} to an RV32IM libgcc.a"
        ))
    };
    let output = std::process::Command::new(COMPILER)
        .args(["-march=rv32im", "-mabi=ilp32", "-print-libgcc-file-name"])
        .output()
        .map_err(|e| missing(format!("cannot run {COMPILER} ({e})")))?;
    let path = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    if !output.status.success() || !path.is_file() {
        return Err(missing(format!("{COMPILER} names no libgcc.a ('{}')", path.display())));
    }
    Ok(path)
}

/// The members of libgcc (name, bytes) that define `needed` and what they need in turn, in the
/// archive's order; `defined` are the symbols the program defines already.
pub fn helpers(needed: &[&str], defined: &BTreeSet<String>) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let path = libgcc_path()?;
    let bytes = std::fs::read(&path).map_err(|e| Error::Run(format!("{}: {e}", path.display())))?;
    resolve(&bytes, needed, defined).map_err(|e| Error::Run(format!("{}: {e}", path.display())))
}

/// Why an archive could not give the helpers: shown after its path.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum ResolveError {
    /// Not an archive, or a member that cannot be read.
    #[error("{0}")]
    Archive(String),
    /// A symbol no member defines.
    #[error("no member defines {0}")]
    Undefined(String),
}

/// [`helpers`] on the archive `bytes`.
fn resolve(bytes: &[u8], needed: &[&str], defined: &BTreeSet<String>) -> Result<Vec<(String, Vec<u8>)>, ResolveError> {
    let unreadable = |e: object::Error| ResolveError::Archive(e.to_string());
    let archive = ArchiveFile::parse(bytes).map_err(|e| ResolveError::Archive(format!("not an archive: {e}")))?;
    // Each member's name, bytes, definitions and undefined symbols.
    let mut members = Vec::new();
    let mut definer: HashMap<String, usize> = HashMap::new();
    for member in archive.members() {
        let member = member.map_err(unreadable)?;
        let data = member.data(bytes).map_err(unreadable)?;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let Ok(file) = object::File::parse(data) else { continue };
        let mut undefined = Vec::new();
        for symbol in file.symbols() {
            let Ok(symbol_name) = symbol.name() else { continue };
            if symbol.is_undefined() && !symbol_name.is_empty() {
                undefined.push(symbol_name.to_string());
            } else if symbol.is_global() && !symbol.is_undefined() {
                definer.entry(symbol_name.to_string()).or_insert(members.len());
            }
        }
        members.push((name, data, undefined));
    }
    let mut chosen = BTreeSet::new();
    let mut queue: Vec<String> = needed.iter().map(|s| s.to_string()).collect();
    let mut seen: BTreeSet<String> = defined.clone();
    while let Some(symbol) = queue.pop() {
        if !seen.insert(symbol.clone()) {
            continue;
        }
        let Some(&index) = definer.get(&symbol) else {
            return Err(ResolveError::Undefined(symbol));
        };
        if chosen.insert(index) {
            queue.extend(members[index].2.iter().cloned());
        }
    }
    Ok(chosen.into_iter().map(|i| (members[i].0.clone(), members[i].1.to_vec())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The members that define __addsf3 and __mulsf3 (and whatever they call) come out, nothing
    /// else; a helper no member defines is an error naming it.
    #[test]
    fn takes_the_members_that_define_what_is_needed() {
        let Ok(path) = libgcc_path() else {
            panic!("the RISC-V toolchain's libgcc (scripts/bootstrap installs it) is missing");
        };
        let bytes = std::fs::read(path).unwrap();
        let members = resolve(&bytes, &["__addsf3", "__mulsf3"], &BTreeSet::new()).unwrap();
        let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.iter().any(|n| n.contains("addsf3")), "{names:?}");
        assert!(names.iter().any(|n| n.contains("mulsf3")), "{names:?}");
        assert!(names.len() < 8, "{names:?}");
        assert!(!names.iter().any(|n| n.contains("divdf3")), "{names:?}");
        let error = resolve(&bytes, &["__no_such_helper"], &BTreeSet::new()).unwrap_err();
        assert_eq!(error.to_string(), "no member defines __no_such_helper");
        // What the program defines itself is not taken again.
        let defined = BTreeSet::from(["__addsf3".to_string()]);
        let members = resolve(&bytes, &["__addsf3"], &defined).unwrap();
        assert!(members.is_empty());
    }
}
