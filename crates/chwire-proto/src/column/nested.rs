//! `Nullable`, `Array` (and `Map`) and `Tuple` containers.

use super::*;

/// `Nullable(T)`: null map (1 = NULL) plus the inner values (placeholders at NULL rows).
#[derive(Debug, Clone, PartialEq)]
pub struct NullableColumn {
    /// One byte per row: 1 = NULL, 0 = a value.
    pub nulls: Vec<u8>,
    /// The inner column, one row per row (a placeholder at NULL rows).
    pub values: ColumnData,
}

/// `Array(T)`: N + 1 offsets (starting at 0) into `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayColumn {
    /// N + 1 offsets into `values`: row `i` holds elements `offsets[i]..offsets[i + 1]`.
    pub offsets: Vec<u64>,
    /// Every row's elements, back to back.
    pub values: ColumnData,
}

impl ArrayColumn {
    /// The element range of row `i`.
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.offsets[i] as usize..self.offsets[i + 1] as usize
    }
}

/// A tuple's element columns (a tuple without elements still has rows).
#[derive(Debug, Clone, PartialEq)]
pub struct TupleColumn {
    /// The number of rows.
    pub rows: usize,
    /// One column per element, each of `rows` rows.
    pub elements: Vec<ColumnData>,
}
