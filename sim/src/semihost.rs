//! Semihosting (the Arm/RISC-V semihosting interface): the operation in `a0`, its argument in
//! `a1`. What picolibc's `--oslib=semihost` start-up and standard I/O use is implemented;
//! anything else stops the run naming the operation.

use crate::machine::{Machine, Stop};

/// What a semihosting call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Continue with this value in `a0`.
    Return(u32),
    /// The program exited with this status.
    Exit(i32),
}

/// `ADP_Stopped_ApplicationExit`: the reason of a normal exit.
const APPLICATION_EXIT: u32 = 0x20026;

/// Handles for the console (`:tt` opened for reading, writing, appending) and the
/// `:semihosting-features` file.
const CONSOLE_IN: u32 = 1;
const CONSOLE_OUT: u32 = 2;
const FEATURES: u32 = 3;

/// The `:semihosting-features` file: magic, then the extension bits (`SYS_EXIT_EXTENDED`
/// supported; `:tt` opened for appending is not a separate standard error).
const FEATURE_BYTES: [u8; 5] = [b'S', b'H', b'F', b'B', 0b01];

/// What semihosting remembers between calls: the read position in the features file.
#[derive(Clone, Debug, Default)]
pub struct State {
    features_position: u32,
}

fn word(m: &Machine, pc: u32, addr: u32) -> Result<u32, Stop> {
    m.memory
        .load(addr, 4)
        .map(|(w, _)| w)
        .map_err(|_| stop(m, pc, format!("semihosting block at {addr:#010x} is outside memory")))
}

fn stop(m: &Machine, pc: u32, message: String) -> Stop {
    Stop { pc, function: m.function_at(pc).map(|f| f.name.clone()), message }
}

/// Performs the semihosting call at `pc` (the `ebreak` of the sequence).
pub fn call(m: &mut Machine, pc: u32) -> Result<Outcome, Stop> {
    let (op, arg) = (m.x[10], m.x[11]);
    let arg_word = |m: &Machine, i: u32| word(m, pc, arg.wrapping_add(4 * i));
    let bytes = |m: &Machine, addr: u32, len: u32| {
        m.memory
            .bytes(addr, len)
            .map(<[u8]>::to_vec)
            .map_err(|_| stop(m, pc, format!("semihosting buffer at {addr:#010x} (+{len}) is outside memory")))
    };
    Ok(Outcome::Return(match op {
        // SYS_OPEN: only the console exists.
        0x01 => {
            let (name, mode, len) = (arg_word(m, 0)?, arg_word(m, 1)?, arg_word(m, 2)?);
            match bytes(m, name, len)?.as_slice() {
                b":tt" if mode < 4 => CONSOLE_IN,
                b":tt" => CONSOLE_OUT,
                b":semihosting-features" => {
                    m.semihost.features_position = 0;
                    FEATURES
                }
                _ => u32::MAX,
            }
        }
        // SYS_CLOSE
        0x02 => 0,
        // SYS_WRITEC
        0x03 => {
            let c = bytes(m, arg, 1)?;
            m.output.extend(c);
            0
        }
        // SYS_WRITE0
        0x04 => {
            let text = m
                .memory
                .c_string(arg, 1 << 20)
                .map_err(|_| stop(m, pc, "SYS_WRITE0 string is not terminated inside memory".into()))?;
            m.output.extend(text);
            0
        }
        // SYS_WRITE: returns the number of bytes not written.
        0x05 => {
            let (handle, buffer, len) = (arg_word(m, 0)?, arg_word(m, 1)?, arg_word(m, 2)?);
            if handle != CONSOLE_OUT {
                return Ok(Outcome::Return(len));
            }
            let data = bytes(m, buffer, len)?;
            m.output.extend(data);
            0
        }
        // SYS_READ: returns the number of bytes not read; the console is at its end.
        0x06 => {
            let (handle, buffer, len) = (arg_word(m, 0)?, arg_word(m, 1)?, arg_word(m, 2)?);
            if handle != FEATURES {
                return Ok(Outcome::Return(len));
            }
            let from = (m.semihost.features_position as usize).min(FEATURE_BYTES.len());
            let data = &FEATURE_BYTES[from..(from + len as usize).min(FEATURE_BYTES.len())];
            m.memory.write_bytes(buffer, data).map_err(|_| stop(m, pc, "SYS_READ buffer outside memory".into()))?;
            m.semihost.features_position += data.len() as u32;
            len - data.len() as u32
        }
        // SYS_ISTTY
        0x09 => u32::from(arg_word(m, 0)? != FEATURES),
        // SYS_SEEK
        0x0a => {
            if arg_word(m, 0)? == FEATURES {
                m.semihost.features_position = arg_word(m, 1)?;
            }
            0
        }
        // SYS_FLEN
        0x0c => {
            if arg_word(m, 0)? == FEATURES {
                FEATURE_BYTES.len() as u32
            } else {
                0
            }
        }
        // SYS_CLOCK: centiseconds, taking one cycle as 10 ns (a 100 MHz core).
        0x10 => (m.cycles / 1_000_000) as u32,
        // SYS_TIME
        0x11 => 0,
        // SYS_ERRNO
        0x13 => 0,
        // SYS_GET_CMDLINE: an empty command line.
        0x15 => {
            let buffer = arg_word(m, 0)?;
            m.memory.store(buffer, 1, 0).map_err(|_| stop(m, pc, "SYS_GET_CMDLINE buffer outside memory".into()))?;
            m.memory
                .store(arg.wrapping_add(4), 4, 0)
                .map_err(|_| stop(m, pc, "SYS_GET_CMDLINE block outside memory".into()))?;
            0
        }
        // SYS_EXIT: on a 32-bit core the argument is the reason itself.
        0x18 => return Ok(Outcome::Exit(if arg == APPLICATION_EXIT { 0 } else { 1 })),
        // SYS_EXIT_EXTENDED: a block of reason and status.
        0x20 => {
            let (reason, status) = (arg_word(m, 0)?, arg_word(m, 1)?);
            return Ok(Outcome::Exit(if reason == APPLICATION_EXIT { status as i32 } else { 1 }));
        }
        _ => return Err(stop(m, pc, format!("semihosting operation {op:#x} is not supported"))),
    }))
}
