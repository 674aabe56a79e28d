//! Framing primitives: VarUInt, length-prefixed strings, little-endian fixed-width values.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::error::{DecodeError, ReadError, ReadResult};
use crate::limits::Limits;
use crate::revision::Revision;

/// Largest string the decoder accepts by default (the server's own cap; see
/// [`Limits::max_string_len`]).
pub const MAX_STRING_SIZE: usize = Limits::DEFAULT.max_string_len;

/// A cursor over a byte slice. Every read checks the bounds first; running out of bytes
/// gives [`ReadError::Incomplete`] with the total number of bytes needed.
///
/// A reader also carries the revision its column data was written at (0, the Native file
/// format's, unless set): column layouts differ by revision (String offsets from 54492,
/// aggregate-function state versions), and every codec below it reads it from here.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    limits: Limits,
    rev: Revision,
}

impl<'a> Reader<'a> {
    /// A reader with the default [`Limits`], for data at revision 0.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0, limits: Limits::DEFAULT, rev: Revision(0) }
    }

    /// A reader applying `limits` to every length it reads (and passing them on to
    /// [`Reader::sub`] readers).
    pub fn with_limits(buf: &'a [u8], limits: Limits) -> Self {
        Reader { buf, pos: 0, limits, rev: Revision(0) }
    }

    /// This reader for column data written at revision `rev` (the negotiated one).
    pub fn at_revision(mut self, rev: Revision) -> Self {
        self.rev = rev;
        self
    }

    /// A reader over another slice with this reader's limits and revision.
    pub fn sub<'b>(&self, buf: &'b [u8]) -> Reader<'b> {
        Reader { buf, pos: 0, limits: self.limits, rev: self.rev }
    }

    /// The limits this reader applies.
    #[inline]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The revision the column data was written at.
    #[inline]
    pub fn revision(&self) -> Revision {
        self.rev
    }

    /// Run `f` with the revision set to `rev` (e.g. a LowCardinality dictionary, whose
    /// Strings keep the per-value layout whatever the revision), then restore it.
    pub fn with_revision<T>(&mut self, rev: Revision, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.rev, rev);
        let out = f(self);
        self.rev = saved;
        out
    }

    /// Bytes consumed so far, from the start of the slice.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not consumed yet.
    #[inline]
    pub fn remaining(&self) -> usize {
        // `pos` never passes the end: every advance is checked by `need`.
        self.buf.len().saturating_sub(self.pos)
    }

    /// Whether every byte has been consumed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    #[inline]
    fn need(&self, n: usize) -> ReadResult<()> {
        if self.remaining() < n {
            Err(ReadError::Incomplete { needed: self.pos.saturating_add(n) })
        } else {
            Ok(())
        }
    }

    /// The unread bytes (without consuming them).
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    /// Consume `n` bytes already inspected through [`Reader::rest`].
    #[inline]
    pub fn skip(&mut self, n: usize) -> ReadResult<()> {
        self.need(n)?;
        self.pos = self.pos.saturating_add(n);
        Ok(())
    }

    /// Take the next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> ReadResult<&'a [u8]> {
        let end = self.pos.saturating_add(n);
        match self.buf.get(self.pos..end) {
            Some(s) => {
                self.pos = end;
                Ok(s)
            }
            None => Err(ReadError::Incomplete { needed: end }),
        }
    }

    /// Take the next `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> ReadResult<[u8; N]> {
        let b = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// Take one byte.
    #[inline]
    pub fn u8(&mut self) -> ReadResult<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos = self.pos.saturating_add(1);
                Ok(b)
            }
            None => Err(ReadError::Incomplete { needed: self.pos.saturating_add(1) }),
        }
    }

    /// Take one byte as a bool (anything but 0 is `true`).
    pub fn bool(&mut self) -> ReadResult<bool> {
        Ok(self.u8()? != 0)
    }

    /// Take a little-endian `i32`.
    pub fn i32_le(&mut self) -> ReadResult<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    /// Take a little-endian `u32`.
    pub fn u32_le(&mut self) -> ReadResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Take a little-endian `u64`.
    pub fn u64_le(&mut self) -> ReadResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Unsigned LEB128, at most 10 bytes.
    #[inline]
    pub fn varuint(&mut self) -> ReadResult<u64> {
        let mut x: u64 = 0;
        let mut shift = 0u32;
        for i in 0..10 {
            let b = self.u8()?;
            if i == 9 && b > 1 {
                return Err(DecodeError::malformed("VarUInt", "value exceeds 64 bits").into());
            }
            // i < 10: the shift stays below 64.
            x |= u64::from(b & 0x7f).wrapping_shl(shift);
            shift = shift.wrapping_add(7);
            if b & 0x80 == 0 {
                return Ok(x);
            }
        }
        Err(DecodeError::malformed("VarUInt", "more than 10 bytes").into())
    }

    /// A VarUInt that must be at most `limit` (a [`DecodeError::LimitExceeded`] naming `what`
    /// otherwise).
    pub fn varuint_len(&mut self, what: &'static str, limit: usize) -> ReadResult<usize> {
        let v = self.varuint()?;
        if v > limit as u64 {
            return Err(DecodeError::LimitExceeded { what, size: v, limit: limit as u64 }.into());
        }
        Ok(v as usize)
    }

    /// A length-prefixed byte string of the protocol (names, messages): at most
    /// [`MAX_STRING_SIZE`] bytes.
    pub fn str_bytes(&mut self) -> ReadResult<&'a [u8]> {
        let n = self.varuint_len("string bytes", MAX_STRING_SIZE)?;
        self.bytes(n)
    }

    /// A length-prefixed string value of a column: at most
    /// [`Limits::max_string_len`] bytes.
    pub fn value_bytes(&mut self) -> ReadResult<&'a [u8]> {
        let n = self.varuint_len("string bytes", self.limits.max_string_len)?;
        self.bytes(n)
    }

    /// A length-prefixed string, decoded lossily as UTF-8 (server texts: names, messages).
    pub fn string(&mut self) -> ReadResult<String> {
        Ok(String::from_utf8_lossy(self.str_bytes()?).into_owned())
    }
}

/// Append-only encoding helpers on a `Vec<u8>` the caller owns.
pub trait WriteExt {
    /// Append one byte.
    fn put_u8(&mut self, v: u8);
    /// Append an unsigned LEB128 VarUInt.
    fn put_varuint(&mut self, v: u64);
    /// Append a string: its length as a VarUInt, then its bytes.
    fn put_str(&mut self, s: impl AsRef<[u8]>);
    /// Append a little-endian `i32`.
    fn put_i32_le(&mut self, v: i32);
    /// Append a little-endian `u32`.
    fn put_u32_le(&mut self, v: u32);
    /// Append a little-endian `u64`.
    fn put_u64_le(&mut self, v: u64);
}

impl WriteExt for Vec<u8> {
    #[inline]
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    #[inline]
    fn put_varuint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.push(v as u8);
    }
    #[inline]
    fn put_str(&mut self, s: impl AsRef<[u8]>) {
        let s = s.as_ref();
        self.put_varuint(s.len() as u64);
        self.extend_from_slice(s);
    }
    fn put_i32_le(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32_le(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64_le(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
}

/// Number of bytes `v` takes as VarUInt.
pub fn varuint_size(v: u64) -> usize {
    let bits = 64usize.saturating_sub((v | 1).leading_zeros() as usize);
    bits.div_ceil(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varuint_round_trip_and_sizes() {
        for &(v, bytes) in &[
            (0u64, &[0x00u8][..]),
            (1, &[0x01]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
            (u64::MAX, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
        ] {
            let mut out = Vec::new();
            out.put_varuint(v);
            assert_eq!(out, bytes, "encode {v}");
            assert_eq!(varuint_size(v), bytes.len());
            let mut r = Reader::new(bytes);
            assert_eq!(r.varuint().unwrap(), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn varuint_truncated_and_overlong() {
        assert_eq!(Reader::new(&[0x80]).varuint(), Err(ReadError::Incomplete { needed: 2 }));
        let overlong = [0xff; 11];
        assert!(matches!(Reader::new(&overlong).varuint(), Err(ReadError::Invalid(_))));
        let too_big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert!(matches!(Reader::new(&too_big).varuint(), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn strings() {
        let mut out = Vec::new();
        out.put_str("héllo");
        assert_eq!(out[0], 6);
        let mut r = Reader::new(&out);
        assert_eq!(r.string().unwrap(), "héllo");
        assert_eq!(Reader::new(&out[..3]).string(), Err(ReadError::Incomplete { needed: 7 }));
        // A length above the cap is an error, not an allocation.
        let mut huge = Vec::new();
        huge.put_varuint(u64::MAX >> 1);
        assert!(matches!(Reader::new(&huge).string(), Err(ReadError::Invalid(DecodeError::LimitExceeded { .. }))));
    }
}
