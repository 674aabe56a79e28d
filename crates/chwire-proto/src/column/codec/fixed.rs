//! Fixed-width columns and offsets: one bounds check and one bulk copy.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::error::{DecodeError, ReadError, ReadResult};
use crate::wire::Reader;

/// Bulk copy of `rows` little-endian values into a new vector.
pub(super) fn read_vec<T: bytemuck::Pod>(r: &mut Reader<'_>, rows: usize) -> ReadResult<Vec<T>> {
    let size = rows.checked_mul(std::mem::size_of::<T>()).ok_or(ReadError::Invalid(DecodeError::LimitExceeded {
        what: "column",
        size: u64::MAX,
        limit: usize::MAX as u64,
    }))?;
    let bytes = r.bytes(size)?;
    let mut v = Vec::<T>::with_capacity(rows);
    // SAFETY: `T: Pod` accepts any bit pattern; the destination has capacity for `rows`
    // values (`size` bytes) and does not overlap the source; `set_len` follows the copy.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), size);
        v.set_len(rows);
    }
    Ok(v)
}

/// Offsets as N cumulative ends on the wire, stored as N + 1 starting at 0.
pub(super) fn read_offsets(r: &mut Reader<'_>, rows: usize) -> ReadResult<Vec<u64>> {
    let size = rows.checked_mul(8).ok_or(ReadError::Invalid(DecodeError::malformed("offsets", "row count overflows")))?;
    let bytes = r.bytes(size)?;
    // `size` fits a usize, so `rows + 1` does.
    let len = rows.saturating_add(1);
    let mut v = Vec::<u64>::with_capacity(len);
    v.push(0);
    // SAFETY: capacity is rows + 1 values; one is set, the copy fills the other `rows`
    // (`size` bytes, any bit pattern is a valid u64); the source does not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().add(1).cast::<u8>(), size);
        v.set_len(len);
    }
    Ok(v)
}
