//! The binary's allocator: the system's, except that large blocks are
//! mapped with their pages filled in at once (`MAP_POPULATE`).
//!
//! `apply` on a 2 MB file holds about 12 MB in a few large blocks (the
//! file, its line spans, the matcher's index, the new text), each written
//! once from start to end. glibc maps such blocks too, but lazily, so the
//! kernel takes one page fault per 4 KB page on first touch: about 3,000
//! faults, each a trap into the kernel and back, which in a virtual machine
//! cost more than the work on the page. Populated at `mmap`, the same pages
//! are zeroed in one call with no trap a page. Every large block here is
//! reserved at the size it will use (the core reserves exactly), so little
//! is filled for nothing. Small blocks and over-aligned ones go to the
//! system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on are mapped and populated.
const LARGE: usize = 256 << 10;
const PAGE: usize = 4096;

pub struct Populated;

fn large(size: usize, align: usize) -> bool {
    size >= LARGE && align <= PAGE
}

/// A fresh populated mapping of `size` bytes, or null.
fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address the kernel picks
    // touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

// SAFETY: every block is given back to the allocator that made it: the
// size and alignment of its layout decide both ways (`large`), and
// `realloc` moves a block across the threshold by allocating, copying and
// freeing through those same paths.
unsafe impl GlobalAlloc for Populated {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if large(l.size(), l.align()) {
            map(l.size())
        } else {
            System.alloc(l)
        }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if large(l.size(), l.align()) {
            // Anonymous mappings are zero-filled.
            map(l.size())
        } else {
            System.alloc_zeroed(l)
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if large(l.size(), l.align()) {
            libc::munmap(p.cast(), l.size());
        } else {
            System.dealloc(p, l)
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        match (large(l.size(), l.align()), large(new, l.align())) {
            (false, false) => System.realloc(p, l, new),
            (true, true) => {
                let q = libc::mremap(p.cast(), l.size(), new, libc::MREMAP_MAYMOVE);
                if q == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    q.cast()
                }
            }
            _ => {
                let n = Layout::from_size_align_unchecked(new, l.align());
                let q = self.alloc(n);
                if !q.is_null() {
                    std::ptr::copy_nonoverlapping(p, q, l.size().min(new));
                    self.dealloc(p, l);
                }
                q
            }
        }
    }
}
