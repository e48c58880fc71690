//! The binary's allocator: the system's, except that large blocks are
//! mapped on their own, backed by huge pages where the kernel allows it,
//! and filled in at once.
//!
//! `apply` on a 2 MB file holds about 10 MB in a few large blocks (the
//! file, its line spans, the matcher's index, the new text), each written
//! once from start to end. glibc maps such blocks too, but lazily, so the
//! kernel takes one page fault per 4 KB page on first touch: about 3,000
//! faults, each a trap into the kernel and back, plus the accounting of
//! each page, which in a virtual machine cost more than the work on the
//! page. Here a large block starts on a 2 MB boundary and is marked for
//! transparent huge pages (`MADV_HUGEPAGE`: each whole 2 MB of it is one
//! page, one fault and one clear), then populated in one call
//! (`MADV_POPULATE_WRITE`): no trap a page. Where the kernel has neither,
//! the block is an ordinary mapping that faults as glibc's would. Every
//! large block here is reserved at the size it will use (the core reserves
//! exactly), so little is filled for nothing. Small blocks and over-aligned
//! ones go to the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on are mapped on their own.
const LARGE: usize = 256 << 10;
const PAGE: usize = 4096;
const HUGE: usize = 2 << 20;

pub struct Populated;

fn large(size: usize, align: usize) -> bool {
    size >= LARGE && align <= PAGE
}

/// The length mapped for a block of `size` bytes: whole pages, and a whole
/// huge page for a tail of 512 KB or more. Populating small pages costs
/// about five times as much a byte as clearing a huge page (in a profile of
/// `apply`, 3 MB in small pages take more kernel time than 10 MB in huge
/// ones), so a huge page is cheaper even where it is mostly spare.
fn mapped_len(size: usize) -> usize {
    let tail = size % HUGE;
    if tail >= HUGE / 4 {
        size - tail + HUGE
    } else {
        size.next_multiple_of(PAGE)
    }
}

/// A fresh mapping of `len` bytes starting on a huge-page boundary, marked
/// for huge pages and populated, or null.
fn map(len: usize) -> *mut u8 {
    let fail = std::ptr::null_mut();
    let Some(over) = len.checked_add(HUGE) else {
        return fail;
    };
    // SAFETY: an anonymous private mapping at an address the kernel picks
    // touches no existing memory; the trimming unmaps only parts of it.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return fail;
        }
        let base = p as usize;
        let start = base.next_multiple_of(HUGE);
        if start > base {
            libc::munmap(p, start - base);
        }
        if base + over > start + len {
            libc::munmap(
                (start + len) as *mut libc::c_void,
                base + over - start - len,
            );
        }
        let q = start as *mut libc::c_void;
        // Both are hints: an older kernel refuses them and the pages fault
        // on first touch instead.
        libc::madvise(q, len, libc::MADV_HUGEPAGE);
        libc::madvise(q, len, libc::MADV_POPULATE_WRITE);
        q.cast()
    }
}

// SAFETY: every block is given back to the allocator that made it: the
// size and alignment of its layout decide both ways (`large`), and
// `realloc` moves a block across the threshold by allocating, copying and
// freeing through those same paths.
unsafe impl GlobalAlloc for Populated {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if large(l.size(), l.align()) {
            map(mapped_len(l.size()))
        } else {
            System.alloc(l)
        }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if large(l.size(), l.align()) {
            // Anonymous mappings are zero-filled.
            map(mapped_len(l.size()))
        } else {
            System.alloc_zeroed(l)
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if large(l.size(), l.align()) {
            libc::munmap(p.cast(), mapped_len(l.size()));
        } else {
            System.dealloc(p, l)
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        match (large(l.size(), l.align()), large(new, l.align())) {
            (false, false) => System.realloc(p, l, new),
            (true, true) => {
                let (from, to) = (mapped_len(l.size()), mapped_len(new));
                let q = libc::mremap(p.cast(), from, to, libc::MREMAP_MAYMOVE);
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
