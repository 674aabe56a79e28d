//! A column's body as pieces for a vectored write: the bytes of fixed-width values, null maps
//! and array offsets are borrowed from the column (their wire form is their memory), the rest
//! is encoded into a scratch buffer. Writing a block so moves each large fixed-width column
//! from its buffer to the output once, instead of copying it into an encoded block first.

use super::{encode_column_at, fixed_bytes, strings_with_sizes, ColumnData};
use crate::revision::Revision;
use std::ops::Range;

/// Bodies smaller than this are copied into the scratch buffer (a piece per tiny column would
/// cost more than the copy).
const BORROW_FROM: usize = 4096;

/// Part of an encoded block: a range of the scratch buffer, or bytes of a column.
#[derive(Debug, Clone)]
pub enum Piece<'a> {
    Encoded(Range<usize>),
    Borrowed(&'a [u8]),
}

/// Pieces being gathered: bytes appended to `scratch` since `run` become one `Encoded` piece
/// when a borrowed one follows them (or at [`Pieces::finish`]).
pub struct Pieces<'a> {
    pieces: Vec<Piece<'a>>,
    run: usize,
}

impl<'a> Pieces<'a> {
    pub fn new(scratch: &[u8]) -> Self {
        Pieces { pieces: Vec::new(), run: scratch.len() }
    }

    fn borrow(&mut self, scratch: &mut Vec<u8>, bytes: &'a [u8]) {
        if bytes.len() < BORROW_FROM {
            scratch.extend_from_slice(bytes);
            return;
        }
        if scratch.len() > self.run {
            self.pieces.push(Piece::Encoded(self.run..scratch.len()));
        }
        self.pieces.push(Piece::Borrowed(bytes));
        self.run = scratch.len();
    }

    /// The pieces, the last run of `scratch` included.
    pub fn finish(mut self, scratch: &[u8]) -> Vec<Piece<'a>> {
        if scratch.len() > self.run {
            self.pieces.push(Piece::Encoded(self.run..scratch.len()));
        }
        self.pieces
    }
}

/// The body of `data` (as [`encode_column_at`] writes it at `rev`) appended to `pieces`.
pub fn column_pieces<'a>(data: &'a ColumnData, rev: Revision, scratch: &mut Vec<u8>, pieces: &mut Pieces<'a>) {
    use ColumnData as D;
    if let Some(bytes) = fixed_bytes(data) {
        return pieces.borrow(scratch, bytes);
    }
    match data {
        D::Nullable(n) => {
            pieces.borrow(scratch, &n.nulls);
            column_pieces(&n.values, rev, scratch, pieces);
        }
        D::Array(a) => {
            pieces.borrow(scratch, bytemuck::cast_slice(a.offsets.get(1..).unwrap_or_default()));
            column_pieces(&a.values, rev, scratch, pieces);
        }
        // From 54492 a String's wire form is its offsets and its bytes, as they are in memory.
        D::String(s) if strings_with_sizes(rev) => {
            pieces.borrow(scratch, bytemuck::cast_slice(s.offsets().get(1..).unwrap_or_default()));
            pieces.borrow(scratch, s.data());
        }
        D::Tuple(t) if !t.elements.is_empty() => t.elements.iter().for_each(|e| column_pieces(e, rev, scratch, pieces)),
        other => encode_column_at(other, rev, scratch),
    }
}
