//! The output directory of `umac compile`: self-contained. Beside `N.o`, `N.h` and
//! `metadata.json` it holds the C source and headers of every kernel the object calls
//! (`kernels/`, `include/`), so a firmware build needs nothing from umac's source tree.

use super::Firmware;
use crate::Error;
use std::path::{Path, PathBuf};
use umac_backend::{Kernel, SourceFile};

/// Where kernel sources go, relative to the output directory.
pub const KERNELS_DIR: &str = "kernels";
/// Where kernel headers go (the directory to pass with `-I`), relative to the output directory.
pub const INCLUDE_DIR: &str = "include";

/// A kernel's source, relative to the output directory: `kernels/vanilla.c`.
pub fn source_path(kernel: &Kernel) -> String {
    format!("{KERNELS_DIR}/{}", kernel.source.path)
}

/// A kernel header, relative to the output directory: `include/umac/vanilla.h`.
pub fn header_path(header: &SourceFile) -> String {
    format!("{INCLUDE_DIR}/{}", header.path)
}

/// What [`write`] wrote.
pub struct Written {
    /// The object file.
    pub object: PathBuf,
    /// The header.
    pub header: PathBuf,
    /// The kernels' C sources, to compile with the firmware.
    pub kernel_sources: Vec<PathBuf>,
    /// The directory holding the kernels' headers.
    pub include_dir: PathBuf,
}

/// Writes `firmware`, compiled as `name`, into `dir` (created if missing).
pub fn write(dir: &Path, name: &str, firmware: &Firmware) -> Result<Written, Error> {
    let put = |path: &Path, bytes: &[u8]| -> Result<(), Error> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(path, bytes).map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))
    };
    let object = dir.join(format!("{name}.o"));
    put(&object, &firmware.object)?;
    let header = dir.join(format!("{name}.h"));
    put(&header, firmware.header.as_bytes())?;
    let text = serde_json::to_string_pretty(&firmware.metadata).unwrap_or_default() + "\n";
    put(&dir.join("metadata.json"), text.as_bytes())?;
    let mut kernel_sources = Vec::new();
    for kernel in &firmware.kernels {
        let source = dir.join(source_path(kernel));
        put(&source, kernel.source.text.as_bytes())?;
        kernel_sources.push(source);
        for file in &kernel.headers {
            put(&dir.join(header_path(file)), file.text.as_bytes())?;
        }
    }
    Ok(Written { object, header, kernel_sources, include_dir: dir.join(INCLUDE_DIR) })
}
