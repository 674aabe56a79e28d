//! LowCardinality columns: a dictionary plus one key per row.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::{ColumnData, LcKeys, LowCardinalityColumn};
use super::fixed::read_vec;
use super::{decode_column, encode_column};
use crate::error::{DecodeError, ReadResult};
use crate::revision::Revision;
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

/// The only LowCardinality key version (SharedDictionariesWithAdditionalKeys).
pub(super) const LC_KEY_VERSION: u64 = 1;
pub(super) const LC_HAS_ADDITIONAL_KEYS: u64 = 1 << 9;
pub(super) const LC_NEED_UPDATE_DICTIONARY: u64 = 1 << 10;
pub(super) const LC_NEED_GLOBAL_DICTIONARY: u64 = 1 << 8;

pub(super) fn read_low_cardinality(inner: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<LowCardinalityColumn> {
    let flags = r.u64_le()?;
    if flags & LC_NEED_GLOBAL_DICTIONARY != 0 {
        return Err(DecodeError::malformed("LowCardinality", "a global dictionary is not allowed in Native blocks").into());
    }
    if flags & !(0xff | LC_HAS_ADDITIONAL_KEYS | LC_NEED_UPDATE_DICTIONARY | LC_NEED_GLOBAL_DICTIONARY) != 0 {
        return Err(DecodeError::malformed("LowCardinality", format!("unknown flags 0x{flags:x}")).into());
    }
    let dictionary = if flags & LC_HAS_ADDITIONAL_KEYS != 0 {
        let n = r.u64_le()?;
        let n = usize::try_from(n).map_err(|_| DecodeError::malformed("LowCardinality", "dictionary too large"))?;
        // The dictionary keeps the per-value String layout whatever the revision.
        r.with_revision(Revision(0), |r| decode_column(inner.strip_nullable(), n, r))?
    } else {
        ColumnData::empty_for(inner.strip_nullable()).map_err(|e| DecodeError::malformed("LowCardinality", e.to_string()))?
    };
    let n = r.u64_le()?;
    if n != rows as u64 {
        return Err(DecodeError::malformed("LowCardinality", format!("{n} indexes for a block of {rows} rows")).into());
    }
    let keys = match flags & 0xff {
        0 => LcKeys::U8(read_vec(r, rows)?),
        1 => LcKeys::U16(read_vec(r, rows)?),
        2 => LcKeys::U32(read_vec(r, rows)?),
        3 => LcKeys::U64(read_vec(r, rows)?),
        w => return Err(DecodeError::malformed("LowCardinality", format!("unknown index width code {w}")).into()),
    };
    if let Some(max) = keys.max() {
        if max >= dictionary.len() as u64 {
            return Err(
                DecodeError::malformed("LowCardinality", format!("index {max} outside a dictionary of {}", dictionary.len())).into()
            );
        }
    }
    Ok(LowCardinalityColumn { dictionary, keys })
}

/// The body of a LowCardinality column: flags, the dictionary, the keys.
pub(super) fn write_low_cardinality(l: &LowCardinalityColumn, out: &mut Vec<u8>) {
    let (code, keys): (u64, &[u8]) = match &l.keys {
        LcKeys::U8(v) => (0, v),
        LcKeys::U16(v) => (1, bytemuck::cast_slice(v)),
        LcKeys::U32(v) => (2, bytemuck::cast_slice(v)),
        LcKeys::U64(v) => (3, bytemuck::cast_slice(v)),
    };
    out.put_u64_le(code | LC_HAS_ADDITIONAL_KEYS | LC_NEED_UPDATE_DICTIONARY);
    out.put_u64_le(l.dictionary.len() as u64);
    // Dictionary types have no prefix of their own (strings, numbers, dates), and keep the
    // per-value String layout whatever the revision.
    encode_column(&l.dictionary, out);
    out.put_u64_le(l.keys.len() as u64);
    out.extend_from_slice(keys);
}
