//! Sparse serialization: non-default values and their positions, expanded on read.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::{ColumnData, StringColumn};
use super::{decode_body, read_prefix};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::types::DataType;
use crate::wire::Reader;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerializationKind {
    Default,
    Sparse,
}

/// Reads the `has_custom` byte and, if set, the kind of the column.
pub fn skip_or_read_custom_kind(r: &mut Reader<'_>, column: &str) -> ReadResult<SerializationKind> {
    if r.u8()? == 0 {
        return Ok(SerializationKind::Default);
    }
    match r.u8()? {
        0 => Ok(SerializationKind::Default),
        1 => Ok(SerializationKind::Sparse),
        k => Err(DecodeError::UnsupportedSerialization(k, column.to_string()).into()),
    }
}

pub(super) const END_OF_GRANULE_FLAG: u64 = 1 << 62;

/// Decode a sparse column: the offsets stream (defaults before each non-default value,
/// then the trailing default count flagged with END_OF_GRANULE), then the non-default
/// values; expanded into an ordinary column of `rows` rows.
pub fn decode_sparse(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    let prefix = read_prefix(ty, r)?;
    let mut positions = Vec::new();
    let mut pos: u64 = 0;
    loop {
        let v = r.varuint()?;
        let count = v & !END_OF_GRANULE_FLAG;
        pos = pos
            .checked_add(count)
            .filter(|&p| p <= rows as u64)
            .ok_or_else(|| DecodeError::malformed("sparse offsets", format!("offsets exceed the block's {rows} rows")))?;
        if v & END_OF_GRANULE_FLAG != 0 {
            break;
        }
        if pos >= rows as u64 {
            return Err(DecodeError::malformed("sparse offsets", format!("non-default value at row {pos} of {rows}")).into());
        }
        positions.push(pos as usize);
        pos = pos.saturating_add(1); // pos < rows
    }
    if pos != rows as u64 {
        return Err(DecodeError::malformed("sparse offsets", format!("offsets cover {pos} rows, the block has {rows}")).into());
    }
    let values = decode_body(ty, positions.len(), &prefix, r)?;
    expand_sparse(ty, values, &positions, rows, r.limits().max_block_bytes).map_err(ReadError::Invalid)
}

fn scatter<T: Copy + Default>(values: Vec<T>, positions: &[usize], rows: usize) -> Vec<T> {
    let mut out = vec![T::default(); rows];
    for (v, &p) in values.into_iter().zip(positions) {
        if let Some(slot) = out.get_mut(p) {
            *slot = v; // positions are below `rows`, checked by decode_sparse
        }
    }
    out
}

/// The defaults are materialized: a column of `rows` rows, at most `max_bytes` of fixed-width
/// values (the sparse form is small whatever the width of its type).
fn expand_sparse(ty: &DataType, values: ColumnData, positions: &[usize], rows: usize, max_bytes: usize) -> Result<ColumnData, DecodeError> {
    use ColumnData as D;
    Ok(match values {
        D::UInt8(v) => D::UInt8(scatter(v, positions, rows)),
        D::UInt16(v) => D::UInt16(scatter(v, positions, rows)),
        D::UInt32(v) => D::UInt32(scatter(v, positions, rows)),
        D::UInt64(v) => D::UInt64(scatter(v, positions, rows)),
        D::Int8(v) => D::Int8(scatter(v, positions, rows)),
        D::Int16(v) => D::Int16(scatter(v, positions, rows)),
        D::Int32(v) => D::Int32(scatter(v, positions, rows)),
        D::Int64(v) => D::Int64(scatter(v, positions, rows)),
        D::Float32(v) => D::Float32(scatter(v, positions, rows)),
        D::Float64(v) => D::Float64(scatter(v, positions, rows)),
        D::Fixed { width, data } => {
            let size = rows.checked_mul(width).filter(|&s| s <= max_bytes).ok_or(DecodeError::LimitExceeded {
                what: "sparse column bytes",
                size: (rows as u64).saturating_mul(width as u64),
                limit: max_bytes as u64,
            })?;
            let mut out = vec![0u8; size];
            for (i, &p) in positions.iter().enumerate() {
                let value = data.get(i.saturating_mul(width)..).and_then(|d| d.get(..width));
                let slot = out.get_mut(p.saturating_mul(width)..).and_then(|d| d.get_mut(..width));
                match (value, slot) {
                    (Some(value), Some(slot)) => slot.copy_from_slice(value),
                    _ => return Err(DecodeError::malformed("sparse column", format!("value {i} or row {p} is outside the column"))),
                }
            }
            D::Fixed { width, data: out }
        }
        D::String(s) => {
            let mut out = StringColumn::with_capacity(rows, s.data().len());
            let mut next = positions.iter().enumerate().peekable();
            for row in 0..rows {
                match next.peek() {
                    Some(&(i, &p)) if p == row => {
                        out.push(s.get(i));
                        next.next();
                    }
                    _ => out.push(b""),
                }
            }
            D::String(out)
        }
        _ => return Err(DecodeError::UnsupportedSerialization(1, format!("sparse {ty}"))),
    })
}
