//! ZSTD contexts kept per thread: creating a context (and sizing its tables) costs tens of
//! microseconds, which dominated small frames (a 10 KB frame took ~60 µs in each direction).
//! Each thread keeps one compression context (its level set per call when it differs) and one
//! decompression context; a context holds a few hundred KB to a few MB while the thread lives.

use std::cell::{Cell, RefCell};
use zstd::bulk::{Compressor, Decompressor};

thread_local! {
    static COMPRESSOR: RefCell<Option<(i32, Compressor<'static>)>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<Decompressor<'static>>> = const { RefCell::new(None) };
    /// Contexts this thread has created (both kinds): what the tests count.
    static CREATED: Cell<usize> = const { Cell::new(0) };
}

/// Compress `src` as one ZSTD frame at `level` into `dst` (sized by `compress_bound`).
pub(super) fn compress(src: &[u8], dst: &mut [u8], level: i32) -> std::io::Result<usize> {
    COMPRESSOR.with_borrow_mut(|slot| {
        let c = match slot {
            Some((l, c)) if *l == level => c,
            Some((l, c)) => {
                c.set_compression_level(level)?;
                *l = level;
                c
            }
            None => {
                CREATED.set(CREATED.get() + 1);
                &mut slot.insert((level, Compressor::new(level)?)).1
            }
        };
        c.compress_to_buffer(src, dst)
    })
}

/// Decompress the ZSTD frame `src` into `dst`; the number of bytes written.
pub(super) fn decompress(src: &[u8], dst: &mut [u8]) -> std::io::Result<usize> {
    DECOMPRESSOR.with_borrow_mut(|slot| {
        let d = match slot {
            Some(d) => d,
            None => {
                CREATED.set(CREATED.get() + 1);
                slot.insert(Decompressor::new()?)
            }
        };
        d.decompress_to_buffer(src, dst)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many frames on one thread, at two levels, create one context of each kind.
    #[test]
    fn one_context_per_thread() {
        std::thread::spawn(|| {
            let data = "x".repeat(10_000).into_bytes();
            let mut frame = vec![0u8; zstd::zstd_safe::compress_bound(data.len())];
            let mut back = vec![0u8; data.len()];
            for i in 0..100 {
                let n = compress(&data, &mut frame, if i % 2 == 0 { 1 } else { 3 }).unwrap();
                assert_eq!(decompress(&frame[..n], &mut back).unwrap(), data.len());
                assert_eq!(back, data);
            }
            assert_eq!(CREATED.get(), 2);
        })
        .join()
        .unwrap();
    }

    /// A corrupt frame is an error and leaves the context usable.
    #[test]
    fn errors_leave_the_context_usable() {
        let data = b"abcabcabcabc".repeat(100);
        let mut frame = vec![0u8; zstd::zstd_safe::compress_bound(data.len())];
        let n = compress(&data, &mut frame, 1).unwrap();
        let mut bad = frame[..n].to_vec();
        let last = bad.len() - 2;
        bad[last] ^= 0xff;
        let mut back = vec![0u8; data.len()];
        assert!(decompress(&bad[..4], &mut back).is_err());
        assert_eq!(decompress(&frame[..n], &mut back).unwrap(), data.len());
        assert_eq!(back, data);
    }
}
