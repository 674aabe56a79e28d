//! Enum columns: Int8/Int16 on the wire, and every value must be one of the type's.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::ColumnData;
use super::fixed::read_vec;
use crate::error::{DecodeError, ReadResult};
use crate::types::DataType;
use crate::wire::Reader;

/// The values of an `Enum8`/`Enum16` column, not yet checked.
pub(super) fn decode_fixed(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    Ok(match ty {
        DataType::Enum8(_) => ColumnData::Int8(read_vec(r, rows)?),
        _ => ColumnData::Int16(read_vec(r, rows)?),
    })
}

/// Checks that every value of an Enum column (outside NULL rows) is one of the type's
/// values: a value without a name would print as nothing, silently.
pub(super) fn check_enum(ty: &DataType, data: &ColumnData, nulls: Option<&[u8]>) -> ReadResult<()> {
    let is_null = |row: usize| nulls.and_then(|n| n.get(row)).is_some_and(|&b| b != 0);
    // One bit per possible Int16 value (8 KiB); Enum8 values use the low 256 after the shift.
    let mut known = vec![0u64; 1 << 10];
    let mut mark = |v: i16| {
        let i = usize::from(v as u16);
        if let Some(word) = known.get_mut(i >> 6) {
            *word |= 1 << (i & 63);
        }
    };
    match ty {
        DataType::Enum8(items) => items.iter().for_each(|(_, v)| mark(i16::from(*v))),
        DataType::Enum16(items) => items.iter().for_each(|(_, v)| mark(*v)),
        _ => return Ok(()),
    }
    let has = |v: i16| {
        let i = usize::from(v as u16);
        known.get(i >> 6).is_some_and(|w| w & (1 << (i & 63)) != 0)
    };
    let bad = match data {
        ColumnData::Int8(v) => {
            v.iter().enumerate().find(|&(row, &x)| !has(i16::from(x)) && !is_null(row)).map(|(row, &x)| (row, i16::from(x)))
        }
        ColumnData::Int16(v) => v.iter().enumerate().find(|&(row, &x)| !has(x) && !is_null(row)).map(|(row, &x)| (row, x)),
        _ => None,
    };
    match bad {
        Some((row, v)) => Err(DecodeError::malformed("Enum value", format!("{v} at row {row} is not a value of {ty}")).into()),
        None => Ok(()),
    }
}
