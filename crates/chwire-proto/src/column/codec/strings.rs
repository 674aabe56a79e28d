//! String columns into offsets plus one byte buffer: from length-prefixed values (revisions
//! below 54492, Native files, LowCardinality dictionaries) or from the offsets and bytes
//! ClickHouse sends from 54492 on, which are that layout already.

use super::super::StringColumn;
use super::fixed::read_offsets;
use super::{shift, strings_with_sizes};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::wire::Reader;

/// A String column of `rows` rows in the layout of the reader's revision.
pub(super) fn read_strings(r: &mut Reader<'_>, rows: usize) -> ReadResult<StringColumn> {
    if strings_with_sizes(r.revision()) {
        read_sized_strings(r, rows)
    } else {
        read_prefixed_strings(r, rows)
    }
}

/// From 54492: N UInt64 end offsets (the first value starts at 0), then all the bytes. The
/// offsets become the column's (behind its leading 0) with one copy, the bytes with another;
/// the offsets are checked before anything is reserved for the bytes (non-decreasing, each
/// value within `max_string_len`, the total within what the block may hold).
#[cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
fn read_sized_strings(r: &mut Reader<'_>, rows: usize) -> ReadResult<StringColumn> {
    let offsets = read_offsets(r, rows)?;
    let total = check_sizes(&offsets, r.limits())?;
    let data = r.bytes(total)?.to_vec();
    // Checked above: offsets start at 0 (read_offsets), never decrease, end at data.len().
    Ok(StringColumn { offsets, data })
}

/// The bytes a String column of the sizes layout holds, from its offsets (a leading 0, then
/// the end of each value), checked before anything is reserved for them: non-decreasing,
/// each value within `max_string_len`, the total within what a block may hold.
#[cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
pub(crate) fn check_sizes(offsets: &[u64], limits: &crate::limits::Limits) -> ReadResult<usize> {
    let max_len = limits.max_string_len as u64;
    let mut prev = offsets.first().copied().unwrap_or(0);
    for (row, &end) in offsets.iter().skip(1).enumerate() {
        let Some(len) = end.checked_sub(prev) else {
            return Err(DecodeError::malformed("String offsets", format!("offsets decrease at row {row} ({prev} then {end})")).into());
        };
        if len > max_len {
            return Err(DecodeError::LimitExceeded { what: "string bytes", size: len, limit: max_len }.into());
        }
        prev = end;
    }
    let total = usize::try_from(prev).map_err(|_| DecodeError::malformed("String offsets", "more bytes than memory"))?;
    let max_block = limits.max_block_bytes;
    if total > max_block {
        return Err(DecodeError::LimitExceeded { what: "block bytes", size: prev, limit: max_block as u64 }.into());
    }
    Ok(total)
}

// The hot loop of every String column, left with plain arithmetic and indexing on proven
// bounds: `p` only grows by bytes that pass 1 has seen in `src` (`p <= src.len()`, checked
// before each step), `len <= src.len() - p`, so `total` and `q` stay below `src.len()`, and
// `windows(2)` yields pairs. The fuzz targets `native_column` and `packets` run it.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
fn read_prefixed_strings(r: &mut Reader<'_>, rows: usize) -> ReadResult<StringColumn> {
    let src = r.rest();
    // Pass 1: walk the length prefixes, building the offsets and checking that every value
    // is there. Each row takes at least one byte, so the offsets' capacity is bounded by
    // what was received.
    let mut col = StringColumn::with_capacity(rows.min(src.len()), 0);
    let (offsets, data) = col.parts_mut();
    let mut p = 0usize;
    let mut total = 0u64;
    // Pass 2 recomputes where each value starts from its length, which assumes minimal
    // length prefixes (what ClickHouse writes); a longer encoding switches to a slower copy.
    let mut minimal = true;
    let max_len = r.limits().max_string_len;
    for _ in 0..rows {
        let len = match src.get(p) {
            Some(&b) if b < 0x80 && usize::from(b) <= max_len => {
                p += 1;
                b as usize
            }
            Some(_) => {
                let mut sub = r.sub(&src[p..]);
                let len = sub.varuint_len("string bytes", max_len).map_err(|e| shift(e, r.position() + p))?;
                minimal &= sub.position() == crate::wire::varuint_size(len as u64);
                p += sub.position();
                len
            }
            None => return Err(ReadError::Incomplete { needed: r.position() + p + 1 }),
        };
        if src.len() - p < len {
            return Err(ReadError::Incomplete { needed: r.position() + p + len });
        }
        p += len;
        total += len as u64;
        offsets.push(total);
    }
    // Pass 2: copy the bytes into one buffer of the exact size (plus slack so short values
    // are moved with one fixed-size 16-byte copy instead of a call to memcpy).
    const SLACK: usize = 16;
    let total = total as usize;
    if !minimal {
        let mut slow = r.sub(&src[..p]);
        data.reserve_exact(total);
        for _ in 0..rows {
            data.extend_from_slice(slow.value_bytes()?);
        }
        r.skip(p)?;
        return Ok(col);
    }
    data.reserve_exact(total + SLACK);
    let dst = data.as_mut_ptr();
    let mut q = 0usize;
    for w in offsets.windows(2) {
        let (start, len) = (w[0] as usize, (w[1] - w[0]) as usize);
        q += crate::wire::varuint_size(len as u64);
        // SAFETY: pass 1 checked `q + len <= src.len()`; the destination holds `total + SLACK`
        // bytes and `start + len <= total`. The 16-byte copy reads `src[q..q + 16]` only when
        // that is in bounds and writes `dst[start..start + 16]`, within `total + SLACK`.
        unsafe {
            if len <= SLACK && q + SLACK <= src.len() {
                std::ptr::copy_nonoverlapping(src.as_ptr().add(q), dst.add(start), SLACK);
            } else {
                std::ptr::copy_nonoverlapping(src.as_ptr().add(q), dst.add(start), len);
            }
        }
        q += len;
    }
    // SAFETY: every byte in 0..total was written by the copies above (offsets tile 0..total).
    unsafe { data.set_len(total) };
    debug_assert_eq!(q, p, "minimal length prefixes");
    r.skip(p)?;
    Ok(col)
}
