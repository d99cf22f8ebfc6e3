//! Instructions a firmware run executes, counted exactly from QEMU's execution trace: in all
//! (inside `harness_run`: the model and the memory functions it calls) and per function of the
//! program (the model's operators are functions `N_op<k>_<kind>`), so a benchmark shows where
//! the time goes.

use crate::{
    Error,
    firmware::{ArmBoard, Platform, harness, qemu_command},
};
use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

/// A function of a program: its name, address and size in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub address: u64,
    pub size: u64,
}

/// The function symbols of an Arm ELF `program` (`arm-none-eabi-nm`), by address.
pub fn symbols(program: &Path) -> Result<Vec<Symbol>, Error> {
    let out = Command::new("arm-none-eabi-nm")
        .args(["-S", "--defined-only"])
        .arg(program)
        .output()
        .map_err(|e| harness(format!("arm-none-eabi-nm: {e}")))?;
    let mut symbols: Vec<Symbol> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [address, size, kind, name] = fields[..] else { return None };
            if !matches!(kind, "T" | "t" | "W" | "w") {
                return None;
            }
            let address = u64::from_str_radix(address, 16).ok()? & !1;
            let size = u64::from_str_radix(size, 16).ok()?;
            Some(Symbol { name: name.to_string(), address, size })
        })
        .collect();
    symbols.sort_by_key(|s| (s.address, s.size));
    Ok(symbols)
}

/// The instructions of one inference: in all, and per function (most first; instructions at an
/// address no function covers count under `?`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    pub total: u64,
    pub functions: Vec<(String, u64)>,
}

/// Counts, from the executed PCs `pcs` in order, the instructions from the first inside
/// `symbols`' `harness_run` until the first back inside `main`, per function of `symbols`.
pub fn attribute(pcs: impl IntoIterator<Item = u64>, symbols: &[Symbol]) -> Result<Profile, Error> {
    let find = |name: &str| {
        symbols.iter().find(|s| s.name == name).ok_or_else(|| harness(format!("no symbol {name} in the program")))
    };
    let (start, back) = (find("harness_run")?, find("main")?);
    let inside = |pc: u64, s: &Symbol| pc >= s.address && pc < s.address + s.size;
    let mut counts = vec![0u64; symbols.len() + 1];
    let mut counting = false;
    for pc in pcs {
        if !counting {
            counting = inside(pc, start);
        } else if inside(pc, back) {
            let mut functions: Vec<(String, u64)> = symbols
                .iter()
                .map(|s| s.name.clone())
                .chain(["?".to_string()])
                .zip(counts)
                .filter(|(_, n)| *n > 0)
                .collect();
            functions.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            return Ok(Profile { total: functions.iter().map(|f| f.1).sum(), functions });
        }
        if counting {
            // The innermost (last starting, then smallest) function covering the PC.
            let at = symbols.partition_point(|s| s.address <= pc);
            let owner = symbols[..at].iter().rposition(|s| inside(pc, s)).unwrap_or(symbols.len());
            counts[owner] += 1;
        }
    }
    Err(harness("the trace never entered harness_run and came back to main".into()))
}

/// Runs `program` on `board` under QEMU with its single-step execution trace and profiles the
/// first inference ([`attribute`]), killing QEMU after `timeout`.
pub fn profile(board: ArmBoard, program: &Path, timeout: Duration) -> Result<Profile, Error> {
    let symbols = symbols(program)?;
    let platform = Platform::Arm { board, cpu: "", hard_float: false };
    let mut command = qemu_command(platform, program).ok_or_else(|| harness("no board".into()))?;
    // `-d exec,nochain -singlestep`: one "Trace" line per executed instruction, with its PC.
    command.args(["-singlestep", "-d", "exec,nochain", "-D", "/dev/stderr"]);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| harness(format!("cannot start {command:?}: {e}")))?;
    let stderr = child.stderr.take().ok_or_else(|| harness("no trace stream".into()))?;
    let started = std::time::Instant::now();
    let mut timed_out = false;
    // "Trace 0: 0x7f... [00000000/000004d0/00000110/ff200000] harness_run"
    let pcs = BufReader::with_capacity(1 << 20, stderr)
        .lines()
        .map_while(Result::ok)
        .take_while(|_| {
            timed_out = started.elapsed() > timeout;
            !timed_out
        })
        .filter_map(|line| {
            let pc = line.split('[').nth(1)?.split('/').nth(1)?;
            u64::from_str_radix(pc.trim(), 16).ok().map(|pc| pc & !1)
        });
    let result = attribute(pcs, &symbols);
    let _ = child.kill();
    let _ = child.wait();
    if timed_out {
        return Err(harness(format!("timed out after {timeout:?}")));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbol(name: &str, address: u64, size: u64) -> Symbol {
        Symbol { name: name.into(), address, size }
    }

    #[test]
    fn instructions_are_counted_per_function_between_harness_run_and_main() {
        let symbols = [
            symbol("main", 0x100, 0x20),
            symbol("harness_run", 0x200, 0x10),
            symbol("m_op0_conv2d", 0x300, 0x40),
            symbol("m_op1_add", 0x340, 0x10),
            symbol("memcpy", 0x400, 0x8),
        ];
        // main, then harness_run (2), the conv (3, one in memcpy), the add (2), an address no
        // symbol covers (1), harness_run (1), back in main: 10 instructions; the rest is ignored.
        let pcs = [0x100, 0x104, 0x200, 0x202, 0x300, 0x304, 0x400, 0x308, 0x340, 0x342, 0x500, 0x204, 0x108, 0x300];
        let profile = attribute(pcs, &symbols).unwrap();
        assert_eq!(profile.total, 10);
        let expected = [("harness_run", 3), ("m_op0_conv2d", 3), ("m_op1_add", 2), ("?", 1), ("memcpy", 1)];
        assert_eq!(profile.functions, expected.map(|(n, c)| (n.to_string(), c)).to_vec());
        // A trace that never returns to main is an error, not a count.
        assert!(attribute(pcs[..12].iter().copied(), &symbols).is_err());
    }
}
