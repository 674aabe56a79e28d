//! `Nullable`, `Array` (and `Map`) and `Tuple` containers.

use super::*;

/// `Nullable(T)`: null map (1 = NULL) plus the inner values (placeholders at NULL rows).
#[derive(Debug, Clone, PartialEq)]
pub struct NullableColumn {
    pub nulls: Vec<u8>,
    pub values: ColumnData,
}

/// `Array(T)`: N + 1 offsets (starting at 0) into `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayColumn {
    pub offsets: Vec<u64>,
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
    pub rows: usize,
    pub elements: Vec<ColumnData>,
}
