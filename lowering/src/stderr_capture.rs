//! Capturing what LLVM writes straight to standard error.
//!
//! LLVM's command-line option parser, which MLIR uses for pass options, reports a bad value
//! (`max-iterations=x`) on `llvm::errs()` instead of through the pipeline parser's error callback.
//! Capturing file descriptor 2 around that call lets the message become part of our located
//! diagnostic instead of a stray line.

use std::io::Write;

/// Runs `f` with file descriptor 2 redirected to a temporary file; returns what was written.
/// If the redirection cannot be set up, `f` runs with stderr untouched.
pub fn capture_stderr<R>(f: impl FnOnce() -> R) -> (R, String) {
    let _ = std::io::stderr().flush();
    // SAFETY: plain POSIX calls on descriptors we own; fd 2 is restored before returning, and
    // the temporary file is closed on every path.
    unsafe {
        let file = libc::tmpfile();
        if file.is_null() {
            return (f(), String::new());
        }
        let saved = libc::dup(2);
        if saved < 0 || libc::dup2(libc::fileno(file), 2) < 0 {
            if saved >= 0 {
                libc::close(saved);
            }
            libc::fclose(file);
            return (f(), String::new());
        }
        let result = f();
        libc::dup2(saved, 2);
        libc::close(saved);
        let fd = libc::fileno(file);
        let mut captured = Vec::new();
        if libc::lseek(fd, 0, libc::SEEK_SET) == 0 {
            let mut buffer = [0u8; 4096];
            loop {
                let n = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
                if n <= 0 {
                    break;
                }
                captured.extend_from_slice(&buffer[..n as usize]);
            }
        }
        libc::fclose(file);
        (result, String::from_utf8_lossy(&captured).into_owned())
    }
}
