//! Capturing what LLVM writes straight to standard error.
//!
//! LLVM's command-line option parser, which MLIR uses for pass options, reports a bad value
//! (`max-iterations=x`) on `llvm::errs()` instead of through the pipeline parser's error callback.
//! Capturing file descriptor 2 around that call lets the message become part of our located
//! diagnostic instead of a stray line.

use std::io::Write;

/// Runs `f` with file descriptor 2 redirected to a temporary file; returns what was written.
/// If the redirection cannot be set up, `f` runs with stderr untouched. Fd 2 is the process's:
/// one capture runs at a time (two threads interleaving their `dup2`s would leave stderr
/// pointing at a closed capture's file, and each would read the other's messages).
pub fn capture_stderr<R>(f: impl FnOnce() -> R) -> (R, String) {
    static REDIRECT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = REDIRECT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
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

#[cfg(test)]
mod tests {
    use super::capture_stderr;

    /// The file fd 2 refers to (device and inode).
    fn stderr_file() -> (u64, u64) {
        // SAFETY: fstat fills the zeroed struct for an open descriptor.
        unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            assert_eq!(libc::fstat(2, &mut stat), 0);
            (stat.st_dev as u64, stat.st_ino as u64)
        }
    }

    #[test]
    fn captures_from_threads_at_once_each_its_own() {
        let before = stderr_file();
        let threads: Vec<_> = (0..8)
            .map(|k| {
                std::thread::spawn(move || {
                    for round in 0..20 {
                        let message = format!("capture test: thread {k} round {round}\n");
                        let ((), captured) = capture_stderr(|| {
                            std::thread::yield_now();
                            // SAFETY: writes the message's bytes to fd 2.
                            unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
                            std::thread::yield_now();
                        });
                        // Only this thread's line (other tests may write to stderr meanwhile).
                        let ours: Vec<&str> = captured.lines().filter(|l| l.starts_with("capture test:")).collect();
                        assert_eq!(ours, [message.trim_end()]);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(stderr_file(), before, "fd 2 is the file it was");
    }
}
