//! The NIF's global allocator: mimalloc for everything up to `HUGE`, the system's malloc beyond.
//!
//! Why not the system's malloc alone: the BEAM sets malloc's thresholds itself (`mallopt`),
//! which turns off glibc's adaptive mmap threshold, so every allocation of 128 KiB or more is
//! a fresh `mmap` and its free an `munmap`. A block's column (64Ki rows × 8 bytes) is such an
//! allocation: every block of every query paid the kernel's fresh pages (W1, 100M rows: 800 MB
//! of page faults, 1526 mmap/munmap pairs). mimalloc keeps freed memory for the next block.
//!
//! Why not mimalloc alone: it grows a huge buffer by allocating anew and copying, where glibc
//! grows an mmapped one in place (`mremap`). `query_arrow`'s result (one IPC stream, 800 MB for
//! W1) grows by doubling: with mimalloc that copied it at every step and took three times as
//! long. Buffers of `HUGE` bytes and more go to the system's malloc, the rest to mimalloc; the
//! layout of each free or realloc says which one owns it (a `GlobalAlloc` gets the size it
//! allocated), and a realloc across `HUGE` moves the bytes from one to the other.

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// The size from which the system's malloc serves (and grows in place).
const HUGE: usize = 64 << 20;

pub struct Split;

// SAFETY: each call goes to the allocator that owns the block, decided by its size alone, which
// Rust passes unchanged from the allocation to its free or realloc; a realloc across `HUGE`
// allocates in the other allocator, copies the smaller size and frees the old block in its own.
unsafe impl GlobalAlloc for Split {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() >= HUGE {
            System.alloc(l)
        } else {
            MiMalloc.alloc(l)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if l.size() >= HUGE {
            System.alloc_zeroed(l)
        } else {
            MiMalloc.alloc_zeroed(l)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if l.size() >= HUGE {
            System.dealloc(p, l)
        } else {
            MiMalloc.dealloc(p, l)
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        match (l.size() >= HUGE, new_size >= HUGE) {
            (true, true) => System.realloc(p, l, new_size),
            (false, false) => MiMalloc.realloc(p, l, new_size),
            (_, to_huge) => {
                // SAFETY: the caller guarantees new_size, rounded to the alignment, fits isize.
                let nl = Layout::from_size_align_unchecked(new_size, l.align());
                let q = if to_huge { System.alloc(nl) } else { MiMalloc.alloc(nl) };
                if !q.is_null() {
                    std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                    self.dealloc(p, l);
                }
                q
            }
        }
    }
}
