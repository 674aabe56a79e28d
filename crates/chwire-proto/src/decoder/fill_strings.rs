//! A String column filled as its values arrive, in either layout: length-prefixed values
//! (before 54492) or the end offsets of all values, then their bytes (54492 on).
//!
//! A String column's size is not known from its header: before this, a column whose bytes
//! had not all arrived was decoded from its start again after every read (each try walking
//! the length prefixes of everything received so far: ten tries per 65,536-row block of
//! W8's strings, where a `perf record` put 30 % of chwire's time on the loads of those
//! prefixes). Here the decoder keeps the column being built ([`StringFilling`]) and each call
//! of [`super::PacketDecoder::decode`] appends the values that arrived whole and consumes
//! their bytes: every byte is looked at once, right after the read that brought it, and the
//! receive buffer never holds a whole column. The same works on the decompressed bytes of a
//! compressed block. In the sizes layout (where the size is known once the offsets are in,
//! but the buffer used to grow, and be moved, to hold the column, then be copied from out of
//! the cache) the offsets are taken as they come, checked whole, then the bytes.
//!
//! Memory follows what arrived: the offsets and bytes grow with the values received (the
//! row count is the server's claim and reserves nothing beyond what the buffer holds).

use crate::column::{check_sizes, Column, ColumnData, StringColumn};
use crate::decoder::FILL_AHEAD;
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::limits::Limits;
use crate::types::DataType;
use crate::wire::Reader;

/// A String column being received: the values that arrived whole.
#[derive(Debug)]
pub(super) struct StringFilling {
    name: String,
    rows: usize,
    col: StringColumn,
    /// The sizes layout: `None` while the offsets arrive, then the bytes the values hold.
    /// `Err(())`: the length-prefixed layout.
    sized: Result<Option<usize>, ()>,
}

/// Room kept past the bytes so that a short value is moved with one 16-byte copy.
const SLACK: usize = 16;

impl StringFilling {
    /// Start receiving a String column of `rows` rows, `available` bytes of which (at most)
    /// have arrived.
    pub(super) fn start(name: String, rows: usize, available: usize, with_sizes: bool) -> StringFilling {
        // Each value takes at least its one-byte prefix (or its 8-byte offset): what arrived
        // bounds the rows in it.
        let (cap, sized) = if with_sizes { (available / 8, Ok(None)) } else { (available, Err(())) };
        StringFilling { name, rows, col: StringColumn::with_capacity(rows.min(cap), 0), sized }
    }

    pub(super) fn name(&self) -> &str {
        &self.name
    }

    pub(super) fn is_complete(&self) -> bool {
        match self.sized {
            Err(()) => self.col.len() == self.rows,
            Ok(None) => false,
            Ok(Some(total)) => self.col.data().len() == total,
        }
    }

    /// [`StringFilling::take_prefixed`] or [`StringFilling::take_sized`], by the layout.
    /// `consumed`: the block's bytes before `src` (this column's received ones among them).
    pub(super) fn take_from(&mut self, src: &[u8], limits: Limits, consumed: usize) -> (usize, ReadResult<()>) {
        if self.sized.is_err() {
            self.take_prefixed(src, limits)
        } else {
            self.take_sized(src, limits, consumed)
        }
    }

    /// The sizes layout: the offsets that arrived whole, then (once all are in and checked)
    /// the bytes. Returns what [`StringFilling::take_prefixed`] returns.
    fn take_sized(&mut self, src: &[u8], limits: Limits, consumed: usize) -> (usize, ReadResult<()>) {
        let rows = self.rows;
        let (offsets, data) = self.col.parts_mut();
        let mut p = 0usize;
        if self.sized == Ok(None) {
            let want = rows.saturating_sub(offsets.len().saturating_sub(1));
            let whole = src.chunks_exact(8).take(want);
            p = whole.len().saturating_mul(8);
            offsets.extend(whole.map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())));
            if offsets.len() <= rows {
                return (p, Err(ReadError::Incomplete { needed: p.saturating_add(8) }));
            }
            let total = match check_sizes(offsets, &limits) {
                Ok(total) => total,
                Err(e) => return (p, Err(e)),
            };
            // The whole block's claim, as for a fixed-width column: its bytes so far and these.
            let claimed = consumed.saturating_add(p).saturating_add(total);
            if claimed > limits.max_block_bytes {
                let limit = limits.max_block_bytes as u64;
                return (p, Err(DecodeError::LimitExceeded { what: "block bytes", size: claimed as u64, limit }.into()));
            }
            self.sized = Ok(Some(total));
            // Room for what arrived and as much again (FILL_AHEAD at least), never past the column.
            data.reserve_exact(total.min(src.len().saturating_sub(p).saturating_mul(2).max(FILL_AHEAD)));
        }
        let total = self.sized.ok().flatten().unwrap_or(0);
        let rest = src.get(p..).unwrap_or_default();
        let n = total.saturating_sub(data.len()).min(rest.len());
        data.extend_from_slice(rest.get(..n).unwrap_or_default());
        p = p.saturating_add(n);
        if data.len() < total {
            return (p, Err(ReadError::Incomplete { needed: p.saturating_add(1) }));
        }
        (p, Ok(()))
    }

    /// The length-prefixed layout: append the values that lie whole in `src` (from its
    /// start) and return the bytes they took. `Err(Incomplete { needed })`: the column is not
    /// complete, and what follows needs `needed` bytes of `src` (counted from its start,
    /// before those taken).
    fn take_prefixed(&mut self, src: &[u8], limits: Limits) -> (usize, ReadResult<()>) {
        let max_len = limits.max_string_len;
        let rows = self.rows;
        let (offsets, data) = self.col.parts_mut();
        // Room for what arrived (at most FILL_AHEAD ahead: `src` may hold much more than this
        // column), grown below when a value needs it.
        let mut p = 0usize;
        let mut done = offsets.len().saturating_sub(1);
        while done < rows {
            let (len, head) = match src.get(p) {
                Some(&b) if b < 0x80 && usize::from(b) <= max_len => (usize::from(b), 1),
                Some(_) => {
                    let rest = src.get(p..).unwrap_or_default();
                    let mut r = Reader::with_limits(rest, limits);
                    match r.varuint_len("string bytes", max_len) {
                        Ok(len) => (len, r.position()),
                        Err(ReadError::Incomplete { .. }) => {
                            return (p, Err(ReadError::Incomplete { needed: src.len().saturating_add(1) }))
                        }
                        Err(e) => return (p, Err(e)),
                    }
                }
                None => return (p, Err(ReadError::Incomplete { needed: p.saturating_add(1) })),
            };
            let start = p.saturating_add(head);
            let end = start.saturating_add(len);
            let Some(value) = src.get(start..end) else {
                return (p, Err(ReadError::Incomplete { needed: end }));
            };
            let at = data.len();
            if data.capacity().saturating_sub(at) < len.saturating_add(SLACK) {
                data.reserve(len.saturating_add(SLACK).max(src.len().saturating_sub(p).min(FILL_AHEAD)));
            }
            // SAFETY: the check above left `capacity - at >= len + 16`. The 16-byte copy reads
            // `src[start..start + 16]` only when that is in bounds; bytes past `at + len` it
            // writes are spare capacity, outside the vector's length.
            unsafe {
                let dst = data.as_mut_ptr().add(at);
                if len <= SLACK && start.saturating_add(SLACK) <= src.len() {
                    std::ptr::copy_nonoverlapping(src.as_ptr().add(start), dst, SLACK);
                } else {
                    std::ptr::copy_nonoverlapping(value.as_ptr(), dst, len);
                }
                data.set_len(at.saturating_add(len));
            }
            offsets.push(data.len() as u64);
            p = end;
            done = done.saturating_add(1);
        }
        (p, Ok(()))
    }

    /// The column, once complete.
    pub(super) fn finish(self) -> (String, Column) {
        debug_assert!(self.is_complete());
        let mut col = self.col;
        let (_, data) = col.parts_mut();
        // Room was reserved per read: give back what a large column left unused.
        if data.capacity().saturating_sub(data.len()) > (data.len() >> 2).saturating_add(64 << 10) {
            data.shrink_to_fit();
        }
        (self.name, Column::from_trusted(DataType::String, ColumnData::String(col)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::WriteExt;

    fn prefixed(values: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            out.put_str(v);
        }
        out
    }

    #[test]
    fn values_arrive_in_pieces() {
        let long = vec![b'x'; 300];
        let values: Vec<&[u8]> = vec![b"", b"a", &long, b"0123456789abcdefg", b"z"];
        let bytes = prefixed(&values);
        // Every split of the bytes into two reads gives the same column.
        for cut in 0..=bytes.len() {
            let mut f = StringFilling::start("s".into(), values.len(), cut, false);
            let mut buf = bytes[..cut].to_vec();
            let (used, res) = f.take_from(&buf, Limits::default(), 0);
            if cut < bytes.len() {
                let Err(ReadError::Incomplete { needed }) = res else { panic!("cut {cut}: {res:?}") };
                assert!(needed > cut, "cut {cut}: needed {needed}");
            }
            buf.drain(..used);
            buf.extend_from_slice(&bytes[cut..]);
            let (used2, res) = f.take_from(&buf, Limits::default(), 0);
            res.unwrap();
            assert_eq!(used + used2, bytes.len(), "cut {cut}");
            let (_, col) = f.finish();
            let strings = col.as_strings().unwrap();
            let got: Vec<&[u8]> = (0..strings.len()).map(|i| strings.get(i)).collect();
            assert_eq!(got, values, "cut {cut}");
        }
    }

    #[test]
    fn a_value_over_the_limit_is_refused() {
        let bytes = prefixed(&[&[b'x'; 40]]);
        let limits = Limits { max_string_len: 39, ..Limits::default() };
        let mut f = StringFilling::start("s".into(), 1, bytes.len(), false);
        let (_, res) = f.take_from(&bytes, limits, 0);
        assert!(matches!(res, Err(ReadError::Invalid(DecodeError::LimitExceeded { .. }))), "{res:?}");
    }
}
