//! The C kernels accelerators call, compiled into this crate (`runtime/kernels/`, declared in
//! `runtime/include/umac/`), with their addresses for the host JITs and their sources for firmware.

use std::path::{Path, PathBuf};

unsafe extern "C" {
    /// `vanilla_conv2d_s8` of `runtime/include/umac/vanilla.h` (its arguments are described there).
    fn vanilla_conv2d_s8();
}

/// A C kernel: its symbol, where the host JITs find it, and its source for firmware builds.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The C symbol.
    pub symbol: &'static str,
    /// Its address in this process.
    pub address: usize,
    /// Its source file, relative to `runtime/`.
    pub source: &'static str,
}

impl Kernel {
    /// The absolute path of its C source.
    pub fn source_path(&self) -> PathBuf {
        runtime_dir().join(self.source)
    }
}

/// Every kernel of the runtime.
pub fn kernels() -> Vec<Kernel> {
    vec![Kernel {
        symbol: "vanilla_conv2d_s8",
        address: vanilla_conv2d_s8 as *const () as usize,
        source: "kernels/vanilla.c",
    }]
}

/// Finds a kernel by its C symbol.
pub fn kernel(symbol: &str) -> Option<Kernel> {
    kernels().into_iter().find(|k| k.symbol == symbol)
}

/// The runtime's directory (`kernels/`, `include/`, `firmware/`).
pub fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}
