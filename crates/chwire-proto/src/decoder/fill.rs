//! A fixed-width column filled as its bytes arrive.
//!
//! When a block's column is fixed-width (numbers, dates, FixedString, UUID, …, at the top
//! level, default serialization) and its header has arrived but its values have not all, the
//! decoder allocates the column's vector and keeps it here ([`Filling`]): each call of
//! [`super::PacketDecoder::decode`] copies what the receive buffer holds into it and consumes
//! it. The bytes are copied once, right after the read that brought them (while they are in
//! the cache), and the receive buffer never has to hold (nor grow to, nor move) a whole
//! column. Reading the socket straight into the vector was measured too and cost more (see
//! docs/BENCHMARKS.md, "W1 on 26.9: the column copy").
//!
//! Allocation follows the receive buffer's rule: at most [`FILL_AHEAD`] or twice what
//! arrived ahead of the bytes, never what the row count claims (the whole column must fit
//! the block limit before anything is allocated).

use std::mem::MaybeUninit;

use bytes::buf::UninitSlice;
use bytes::{Buf, BytesMut};

use crate::column::{Column, ColumnData};
use crate::error::{DecodeError, ReadResult};
use crate::types::{DataType, Physical};

/// Room a column may reserve ahead of its bytes (like the IO layers' read size).
pub const FILL_AHEAD: usize = 1 << 20;

/// The widest value a fixed-width vector holds (`u128`).
const MAX_ELEM: usize = 16;

/// A fixed-width column being received. Its vector's length counts the whole values that
/// arrived; the first bytes of a value that arrived in part lie in its spare capacity.
#[derive(Debug)]
pub(super) struct Filling {
    name: String,
    ty: DataType,
    data: ColumnData,
    /// Bytes received.
    filled: usize,
    /// Bytes the column has.
    total: usize,
}

/// Calls `$f` with the vector of a fixed-width `ColumnData` (and its element type).
macro_rules! with_vec {
    ($data:expr, $f:ident ( $($arg:expr),* )) => {
        match $data {
            ColumnData::UInt8(v) | ColumnData::Fixed { data: v, .. } => $f(v, $($arg),*),
            ColumnData::UInt16(v) => $f(v, $($arg),*),
            ColumnData::UInt32(v) => $f(v, $($arg),*),
            ColumnData::UInt64(v) => $f(v, $($arg),*),
            ColumnData::UInt128(v) => $f(v, $($arg),*),
            ColumnData::Int8(v) => $f(v, $($arg),*),
            ColumnData::Int16(v) => $f(v, $($arg),*),
            ColumnData::Int32(v) => $f(v, $($arg),*),
            ColumnData::Int64(v) => $f(v, $($arg),*),
            ColumnData::Int128(v) => $f(v, $($arg),*),
            ColumnData::Float32(v) => $f(v, $($arg),*),
            ColumnData::Float64(v) => $f(v, $($arg),*),
            // `Filling::start` makes only the variants above.
            _ => unreachable!("a fixed-width column"),
        }
    };
}

/// The empty vector of `ty`'s fixed-width storage with room for `cap` bytes (rounded up to
/// whole values, at most `rows` values), and the bytes per row; `None` for other types.
fn fixed_storage(ty: &DataType, rows: usize, cap: usize) -> Option<(ColumnData, usize)> {
    fn vec<T>(rows: usize, cap: usize) -> Vec<T> {
        Vec::with_capacity(cap.div_ceil(std::mem::size_of::<T>()).min(rows))
    }
    // Enums check their values (decode_body): they take the ordinary path.
    if matches!(ty, DataType::Enum8(_) | DataType::Enum16(_)) {
        return None;
    }
    Some(match ty.physical() {
        Physical::U8 => (ColumnData::UInt8(vec(rows, cap)), 1),
        Physical::U16 => (ColumnData::UInt16(vec(rows, cap)), 2),
        Physical::U32 => (ColumnData::UInt32(vec(rows, cap)), 4),
        Physical::U64 => (ColumnData::UInt64(vec(rows, cap)), 8),
        Physical::U128 => (ColumnData::UInt128(vec(rows, cap)), 16),
        Physical::I8 => (ColumnData::Int8(vec(rows, cap)), 1),
        Physical::I16 => (ColumnData::Int16(vec(rows, cap)), 2),
        Physical::I32 => (ColumnData::Int32(vec(rows, cap)), 4),
        Physical::I64 => (ColumnData::Int64(vec(rows, cap)), 8),
        Physical::I128 => (ColumnData::Int128(vec(rows, cap)), 16),
        Physical::F32 => (ColumnData::Float32(vec(rows, cap)), 4),
        Physical::F64 => (ColumnData::Float64(vec(rows, cap)), 8),
        Physical::Fixed(width) if width > 0 => {
            (ColumnData::Fixed { width, data: Vec::with_capacity(cap.min(rows.saturating_mul(width))) }, width)
        }
        _ => return None,
    })
}

/// The bytes of a fixed-width column of `rows` rows of `ty`, or `None` for other types.
pub(super) fn fixed_size(ty: &DataType, rows: usize) -> ReadResult<Option<usize>> {
    let Some((_, width)) = fixed_storage(ty, 0, 0) else { return Ok(None) };
    rows.checked_mul(width)
        .map(Some)
        .ok_or_else(|| DecodeError::LimitExceeded { what: "column", size: u64::MAX, limit: usize::MAX as u64 }.into())
}

/// The spare capacity of `v` from byte `filled` on (bytes `len * size .. filled` are the
/// start of a value that arrived in part).
fn spare<T: bytemuck::Pod>(v: &mut Vec<T>, filled: usize) -> &mut [MaybeUninit<u8>] {
    let cap = v.capacity().saturating_mul(std::mem::size_of::<T>());
    let ptr = v.as_mut_ptr().cast::<MaybeUninit<u8>>();
    // SAFETY: the allocation holds `cap` bytes; `filled <= cap` (a `Filling` never counts
    // more bytes than its vector has room for); `MaybeUninit<u8>` needs no initialisation
    // nor alignment; the slice borrows `v` mutably.
    unsafe { std::slice::from_raw_parts_mut(ptr.add(filled.min(cap)), cap.saturating_sub(filled)) }
}

/// Count `filled` bytes of `v` as written: its length becomes the whole values among them.
///
/// # Safety
/// The first `filled` bytes of `v`'s allocation are initialised, and `filled` is within it.
unsafe fn set_filled<T: bytemuck::Pod>(v: &mut Vec<T>, filled: usize) {
    // SAFETY: the caller's; any bit pattern is a valid `T`.
    unsafe { v.set_len(filled.checked_div(std::mem::size_of::<T>()).unwrap_or(0)) };
}

/// Grow `v` to at least `cap` bytes, keeping the `filled` bytes received (also those of a
/// value that arrived in part, which lie beyond its length).
fn grow<T: bytemuck::Pod>(v: &mut Vec<T>, filled: usize, cap: usize) {
    let size = std::mem::size_of::<T>();
    let whole = v.len().saturating_mul(size);
    let mut part = [0u8; MAX_ELEM];
    let n = filled.saturating_sub(whole).min(MAX_ELEM);
    let tail = spare(v, whole);
    for (dst, src) in part.iter_mut().zip(tail.iter()).take(n) {
        // SAFETY: bytes `whole..filled` were written (they are the value received in part).
        *dst = unsafe { src.assume_init_read() };
    }
    v.reserve_exact(cap.div_ceil(size).saturating_sub(v.len()));
    for (dst, src) in spare(v, whole).iter_mut().zip(part.iter()).take(n) {
        dst.write(*src);
    }
}

impl Filling {
    /// Start receiving a fixed-width column (`None`: `ty` is not one) of `total` bytes, of
    /// which `available` have arrived.
    pub(super) fn start(name: String, ty: DataType, rows: usize, total: usize, available: usize) -> Option<Filling> {
        let cap = total.min(available.saturating_mul(2).max(FILL_AHEAD));
        let (data, _) = fixed_storage(&ty, rows, cap)?;
        Some(Filling { name, ty, data, filled: 0, total })
    }

    /// Bytes still to come.
    pub(super) fn missing(&self) -> usize {
        self.total.saturating_sub(self.filled)
    }

    /// Room for the next `at_least` bytes (fewer at the column's end), after growing the
    /// vector if needed: to twice what arrived (at least [`FILL_AHEAD`]) or what is there,
    /// never past the column.
    fn room(&mut self, at_least: usize) -> &mut [MaybeUninit<u8>] {
        let (filled, total) = (self.filled, self.total);
        let want = at_least.min(total.saturating_sub(filled));
        let mut have = with_vec!(&mut self.data, spare(filled)).len();
        if have < want {
            let cap = total.min(filled.saturating_mul(2).max(FILL_AHEAD).max(filled.saturating_add(want)));
            with_vec!(&mut self.data, grow(filled, cap));
            have = with_vec!(&mut self.data, spare(filled)).len();
        }
        let room = with_vec!(&mut self.data, spare(filled));
        let n = have.min(total.saturating_sub(filled));
        room.get_mut(..n).unwrap_or_default()
    }

    /// Count `n` more bytes as written into [`Filling::room`].
    ///
    /// # Safety
    /// The first `n` bytes of the last `room` were initialised (so `n` is within it, and
    /// within the column).
    unsafe fn advance(&mut self, n: usize) {
        let filled = self.filled.saturating_add(n);
        debug_assert!(filled <= self.total, "a fixed-width column advanced past its end");
        self.filled = filled;
        // SAFETY: the caller's (the bytes before `self.filled` were written already).
        unsafe { with_vec!(&mut self.data, set_filled(filled)) };
    }

    /// Copy what `buf` holds of the column into it (consuming those bytes).
    pub(super) fn take_from(&mut self, buf: &mut BytesMut) {
        let n = buf.len().min(self.missing());
        if n == 0 {
            return;
        }
        let room = self.room(n);
        let n = n.min(room.len());
        if let (Some(dst), Some(src)) = (room.get_mut(..n), buf.get(..n)) {
            UninitSlice::uninit(dst).copy_from_slice(src);
            // SAFETY: the copy initialised the first `n` bytes of the room.
            unsafe { self.advance(n) };
            buf.advance(n);
        }
    }

    pub(super) fn is_complete(&self) -> bool {
        self.filled == self.total
    }

    /// The column, once complete.
    pub(super) fn finish(self) -> (String, Column) {
        debug_assert!(self.is_complete());
        (self.name, Column::from_trusted(self.ty, self.data))
    }
}
