//! Buffers between guard pages, to run generated code where any access outside its planned
//! buffers faults: each buffer gets pages of its own with an inaccessible page before and after
//! it, and sits against one of the two (its end against the page after, or its start against the
//! page before), so a read or write one byte past the end (or before the start) is a segmentation
//! fault. Inputs are read-only: a write into one faults too. (Unix only: `mmap`/`mprotect`.)

use std::io;

/// Which edge of its pages a buffer is placed against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// The buffer ends where the guard page after it begins: overruns fault.
    End,
    /// The buffer starts where the guard page before it ends: underruns fault.
    Start,
}

/// Both placements, for running a program once against each guard.
pub const EDGES: [Edge; 2] = [Edge::End, Edge::Start];

/// A buffer of `len` bytes between guard pages.
pub struct GuardedBuffer {
    mapping: *mut libc::c_void,
    mapped: usize,
    data: *mut u8,
    len: usize,
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

impl GuardedBuffer {
    /// A buffer holding `contents` (or `len` bytes of `fill`), its start a multiple of `align`
    /// (at the `End` edge the buffer then ends up to `align - 1` bytes before the guard), read-only
    /// when `read_only`.
    pub fn new(
        len: usize,
        contents: Option<&[u8]>,
        fill: u8,
        align: usize,
        edge: Edge,
        read_only: bool,
    ) -> io::Result<Self> {
        let page = page_size();
        let pages = len.div_ceil(page).max(1);
        let mapped = (pages + 2) * page;
        // SAFETY: an anonymous private mapping of `mapped` bytes, inaccessible until the data
        // pages are opened below; every pointer formed stays inside it.
        unsafe {
            let mapping = libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if mapping == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let first = mapping.cast::<u8>().add(page);
            let buffer = GuardedBuffer { mapping, mapped, data: first, len };
            if libc::mprotect(first.cast(), pages * page, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return Err(io::Error::last_os_error());
            }
            let offset = match edge {
                Edge::Start => 0,
                Edge::End => (pages * page - len) / align.max(1) * align.max(1),
            };
            let data = first.add(offset);
            std::ptr::write_bytes(data, fill, len);
            if let Some(contents) = contents {
                std::ptr::copy_nonoverlapping(contents.as_ptr(), data, contents.len().min(len));
            }
            if read_only && libc::mprotect(first.cast(), pages * page, libc::PROT_READ) != 0 {
                return Err(io::Error::last_os_error());
            }
            let placed = GuardedBuffer { mapping, mapped, data, len };
            // The mapping is `placed`'s now: `buffer` (which would unmap it on an error above)
            // must not.
            std::mem::forget(buffer);
            Ok(placed)
        }
    }

    /// The buffer's first byte.
    pub fn as_ptr(&self) -> *const u8 {
        self.data
    }

    /// The buffer's first byte, for writing.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.data
    }

    /// The buffer's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` readable bytes from `data`, inside the mapping this value owns.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for GuardedBuffer {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `new` with this size and is not used after.
        unsafe {
            libc::munmap(self.mapping, self.mapped);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_sit_against_their_guard() {
        let page = page_size();
        for len in [1, 13, page, page + 1] {
            let at_end = GuardedBuffer::new(len, Some(&vec![7; len]), 0, 1, Edge::End, true).unwrap();
            assert_eq!((at_end.as_ptr() as usize + len) % page, 0, "{len} bytes end at a page boundary");
            assert!(at_end.bytes().iter().all(|&b| b == 7));
            let at_start = GuardedBuffer::new(len, None, 0xa5, 16, Edge::Start, false).unwrap();
            assert_eq!(at_start.as_ptr() as usize % page, 0);
            assert!(at_start.bytes().iter().all(|&b| b == 0xa5));
        }
        // A write one byte past the end, one byte before the start, or into a read-only buffer
        // kills the process with SIGSEGV (in a child, so the test survives it).
        let faults = |touch: &dyn Fn()| {
            // SAFETY: the child only writes to memory and exits; the parent waits for it.
            unsafe {
                let child = libc::fork();
                assert!(child >= 0);
                if child == 0 {
                    touch();
                    libc::_exit(0);
                }
                let mut status = 0;
                assert_eq!(libc::waitpid(child, &mut status, 0), child);
                libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV
            }
        };
        let mut end = GuardedBuffer::new(13, None, 0, 1, Edge::End, false).unwrap();
        let mut start = GuardedBuffer::new(13, None, 0, 1, Edge::Start, false).unwrap();
        let input = GuardedBuffer::new(13, None, 0, 1, Edge::End, true).unwrap();
        let (past, before, read_only) = (end.as_mut_ptr(), start.as_mut_ptr(), input.as_ptr().cast_mut());
        // SAFETY (the closures): each writes one byte inside its mapping; whether the page may be
        // written is what is tested.
        assert!(!faults(&|| unsafe { past.add(12).write_volatile(1) }), "the last byte is writable");
        assert!(faults(&|| unsafe { past.add(13).write_volatile(1) }), "one past the end faults");
        assert!(faults(&|| unsafe { before.sub(1).write_volatile(1) }), "one before the start faults");
        assert!(faults(&|| unsafe { read_only.write_volatile(1) }), "an input is read-only");
        // 16-byte aligned at the end: up to 15 bytes before the guard.
        let aligned = GuardedBuffer::new(20, None, 0, 16, Edge::End, false).unwrap();
        assert_eq!(aligned.as_ptr() as usize % 16, 0);
        assert_eq!(page - (aligned.as_ptr() as usize % page), 32);
    }
}
