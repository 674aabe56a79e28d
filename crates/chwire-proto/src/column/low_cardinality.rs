//! `LowCardinality`: a dictionary plus one key per row.

use super::*;

/// Indexes into a LowCardinality dictionary, at the width the writer chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LcKeys {
    /// One-byte keys (dictionaries up to 256 values).
    U8(Vec<u8>),
    /// Two-byte keys.
    U16(Vec<u16>),
    /// Four-byte keys.
    U32(Vec<u32>),
    /// Eight-byte keys.
    U64(Vec<u64>),
}

impl LcKeys {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            LcKeys::U8(v) => v.len(),
            LcKeys::U16(v) => v.len(),
            LcKeys::U32(v) => v.len(),
            LcKeys::U64(v) => v.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dictionary index of row `i`.
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        match self {
            LcKeys::U8(v) => v[i] as usize,
            LcKeys::U16(v) => v[i] as usize,
            LcKeys::U32(v) => v[i] as usize,
            LcKeys::U64(v) => v[i] as usize,
        }
    }

    pub(crate) fn max(&self) -> Option<u64> {
        match self {
            LcKeys::U8(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U16(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U32(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U64(v) => v.iter().max().copied(),
        }
    }
}

/// `LowCardinality(T)`: a dictionary of distinct values (of `T` without `Nullable`; for
/// `LowCardinality(Nullable(T))` entry 0 stands for NULL) and one index per row — the shape
/// of an Arrow dictionary array.
#[derive(Debug, Clone, PartialEq)]
pub struct LowCardinalityColumn {
    /// The distinct values (of `T` without `Nullable`).
    pub dictionary: ColumnData,
    /// One dictionary index per row.
    pub keys: LcKeys,
}

impl LowCardinalityColumn {
    /// Build `LowCardinality(String)` (or `LowCardinality(Nullable(String))` with `nullable`,
    /// where `None` is NULL) from values, deduplicating them into the dictionary. Entry 0 is
    /// the default value (for Nullable: NULL, then the default), as ClickHouse lays it out;
    /// keys take the narrowest width the dictionary allows.
    pub fn from_strings<'a, I>(values: I, nullable: bool) -> LowCardinalityColumn
    where
        I: IntoIterator<Item = Option<&'a [u8]>>,
    {
        let mut plain = StringColumn::new();
        let mut nulls = Vec::new();
        for v in values {
            nulls.push(u8::from(v.is_none()));
            plain.push(v.unwrap_or_default());
        }
        let data = if nullable {
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::String(plain) }))
        } else {
            ColumnData::String(plain)
        };
        #[allow(clippy::expect_used, reason = "String dictionaries are always supported")]
        LowCardinalityColumn::from_plain(data, nullable).expect("String dictionaries are supported")
    }
}
