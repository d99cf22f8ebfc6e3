//! A directory of this process's own under the system's temporary directory, removed when
//! dropped: where a converted model is written for a tool to read.

use std::path::{Path, PathBuf};

/// The directory; removed (with its files) on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates `<tmp>/<prefix>-<pid>`.
    pub fn new(prefix: &str) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
