//! The output of `umac compile`: a directory, self-contained: beside `N.o`, `N.h` and
//! `metadata.json` it holds the C source and headers of every kernel the object calls
//! (`kernels/`, `include/`), so a firmware build needs nothing from umac's source tree; or the
//! same files as a Model Library Format archive (`--output-format=mlf`), laid out as microTVM's.

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
    /// The object file (with `--emit=c`, the C source).
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
    for (path, bytes) in files(name, firmware) {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, bytes).map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    let code = if firmware.c_source.is_some() { "c" } else { "o" };
    Ok(Written {
        object: dir.join(format!("{name}.{code}")),
        header: dir.join(format!("{name}.h")),
        kernel_sources: firmware.kernels.iter().map(|k| dir.join(source_path(k))).collect(),
        include_dir: dir.join(INCLUDE_DIR),
    })
}

/// The files of the output directory, by their paths in it: `N.o`, `N.h`, `metadata.json`, the
/// kernels' sources and headers.
pub fn files(name: &str, firmware: &Firmware) -> Vec<(String, Vec<u8>)> {
    let code = match &firmware.c_source {
        Some(text) => (format!("{name}.c"), text.clone().into_bytes()),
        None => (format!("{name}.o"), firmware.object.clone()),
    };
    let mut files = vec![
        code,
        (format!("{name}.h"), firmware.header.clone().into_bytes()),
        ("metadata.json".to_string(), metadata_text(&firmware.metadata).into_bytes()),
    ];
    for kernel in &firmware.kernels {
        files.push((source_path(kernel), kernel.source.text.as_bytes().to_vec()));
        for file in &kernel.headers {
            files.push((header_path(file), file.text.as_bytes().to_vec()));
        }
    }
    files
}

fn metadata_text(metadata: &serde_json::Value) -> String {
    serde_json::to_string_pretty(metadata).unwrap_or_default() + "\n"
}

/// Where each file of the output directory goes in a Model Library Format archive, laid out as
/// microTVM's: `codegen/host/lib/` the object, `codegen/host/include/` its header,
/// `codegen/host/src/` the kernels' C sources, `runtime/include/` their headers; `metadata.json`
/// and a `README.md` at the top.
fn mlf_path(path: &str, name: &str) -> String {
    if path == format!("{name}.o") {
        format!("codegen/host/lib/{path}")
    } else if path == format!("{name}.c") {
        format!("codegen/host/src/{path}")
    } else if path == format!("{name}.h") {
        format!("codegen/host/include/{path}")
    } else if let Some(source) = path.strip_prefix(&format!("{KERNELS_DIR}/")) {
        format!("codegen/host/src/{source}")
    } else if let Some(header) = path.strip_prefix(&format!("{INCLUDE_DIR}/")) {
        format!("runtime/include/{header}")
    } else {
        path.to_string()
    }
}

/// The README of a Model Library Format archive.
fn mlf_readme(name: &str, firmware: &Firmware) -> String {
    let upper = name.to_ascii_uppercase();
    let kernels = if firmware.kernels.is_empty() {
        String::new()
    } else {
        "- `codegen/host/src/`: the C kernels the object calls (compile them with the firmware,\n  \
         `-I runtime/include`);\n- `runtime/include/`: their headers.\n"
            .to_string()
    };
    format!(
        "# {name}: a model compiled by umac {} for {}\n\n\
         A Model Library Format archive, laid out as microTVM's:\n\n\
         - `metadata.json`: inputs, outputs, workspace, sections, operators (umac's metadata, with\n  \
         `\"mlf\"` naming this layout);\n\
         - {code}: the model{what} (weights included: there is no\n  \
         `parameters/` directory to load at run time);\n\
         - `codegen/host/include/{name}.h`: its interface, `{name}_run(inputs, outputs, workspace)`;\n\
         {kernels}\n\
         Link it into the firmware and call `{name}_run` with a workspace of\n\
         `{upper}_WORKSPACE_SIZE` bytes aligned to `{upper}_WORKSPACE_ALIGNMENT`; nothing is allocated.\n",
        env!("CARGO_PKG_VERSION"),
        firmware.cpu.name,
        code = if firmware.c_source.is_some() {
            format!("`codegen/host/src/{name}.c`")
        } else {
            format!("`codegen/host/lib/{name}.o`")
        },
        what = if firmware.c_source.is_some() { " as C source" } else { ", one object" },
    )
}

/// Writes `firmware`, compiled as `name`, as a Model Library Format archive at `path` (a tar,
/// the same bytes for the same compile: entries in a fixed order, no times or owners).
pub fn write_mlf(path: &Path, name: &str, firmware: &Firmware) -> Result<(), Error> {
    let mut metadata = firmware.metadata.clone();
    metadata["mlf"] = serde_json::json!({"layout": "microTVM Model Library Format", "version": 1});
    // The kernels' files as the archive places them.
    if let Some(functions) = metadata.get_mut("extern_functions").and_then(|f| f.as_array_mut()) {
        for function in functions {
            let moved = |v: &serde_json::Value| serde_json::json!(mlf_path(v.as_str().unwrap_or_default(), name));
            function["source"] = moved(&function["source"]);
            function["include_dir"] = serde_json::json!("runtime/include");
            if let Some(headers) = function.get_mut("headers").and_then(|h| h.as_array_mut()) {
                headers.iter_mut().for_each(|h| *h = moved(h));
            }
        }
    }
    let mut entries: Vec<(String, Vec<u8>)> = files(name, firmware)
        .into_iter()
        .map(|(file, bytes)| {
            let bytes = if file == "metadata.json" { metadata_text(&metadata).into_bytes() } else { bytes };
            (mlf_path(&file, name), bytes)
        })
        .collect();
    entries.push(("README.md".into(), mlf_readme(name, firmware).into_bytes()));
    entries.sort();
    let mut archive = tar::Builder::new(Vec::new());
    for (file, bytes) in &entries {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        archive
            .append_data(&mut header, file, bytes.as_slice())
            .map_err(|e| Error::Usage(format!("cannot archive {file}: {e}")))?;
    }
    let bytes = archive.into_inner().map_err(|e| Error::Usage(format!("cannot finish the archive: {e}")))?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::Usage(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, bytes).map_err(|e| Error::Usage(format!("cannot write {}: {e}", path.display())))
}
