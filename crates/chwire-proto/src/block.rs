//! Blocks: a set of equally long, named columns, plus BlockInfo.

use crate::column::{encode_column_of_at, Column};
use crate::error::{DecodeError, EncodeError, ReadResult};
use crate::revision::{Revision, CUSTOM_SERIALIZATION, OUT_OF_ORDER_BUCKETS_IN_AGGREGATION};
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

/// BlockInfo fields (sent with every block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// Whether the block holds the rows over `max_rows_to_group_by` (with
    /// `group_by_overflow_mode = 'any'` and `WITH TOTALS`).
    pub is_overflows: bool,
    /// The two-level aggregation bucket the block belongs to, -1 for none.
    pub bucket_num: i32,
}

impl Default for BlockInfo {
    fn default() -> Self {
        BlockInfo { is_overflows: false, bucket_num: -1 }
    }
}

impl BlockInfo {
    /// The fields, as a server of revision `rev` reads them: from 54480 with field 3
    /// (`out_of_order_buckets`, empty), which ClickHouse writes in every block.
    pub fn encode(&self, rev: Revision, out: &mut Vec<u8>) {
        out.put_varuint(1);
        out.put_u8(self.is_overflows as u8);
        out.put_varuint(2);
        out.put_i32_le(self.bucket_num);
        if rev.has(OUT_OF_ORDER_BUCKETS_IN_AGGREGATION) {
            out.put_varuint(3);
            out.put_varuint(0);
        }
        out.put_varuint(0);
    }

    /// Decode the fields up to their terminating 0; an unknown field number is an error.
    pub fn decode(r: &mut Reader<'_>) -> ReadResult<BlockInfo> {
        let mut info = BlockInfo::default();
        loop {
            match r.varuint()? {
                0 => return Ok(info),
                1 => info.is_overflows = r.bool()?,
                2 => info.bucket_num = r.i32_le()?,
                3 => {
                    // out_of_order_buckets (revision >= 54480): read and drop.
                    let n = r.varuint_len("out_of_order_buckets", 256)?;
                    r.bytes(n * 4)?;
                }
                f => return Err(DecodeError::malformed("BlockInfo", format!("unknown field {f}")).into()),
            }
        }
    }
}

/// A block of named columns of equal length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    /// The block's BlockInfo.
    pub info: BlockInfo,
    rows: usize,
    columns: Vec<(String, Column)>,
}

impl Block {
    /// A block without columns or rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a column; all columns must have the same number of rows.
    pub fn push(&mut self, name: impl Into<String>, column: Column) -> Result<(), EncodeError> {
        let name = name.into();
        // A block of columns has their rows; one made `without_columns(n)` (n > 0) has n.
        if (!self.columns.is_empty() || self.rows > 0) && column.len() != self.rows {
            return Err(EncodeError::InvalidColumn {
                column: name,
                detail: format!("has {} rows, the block has {}", column.len(), self.rows),
            });
        }
        self.rows = column.len();
        self.columns.push((name, column));
        Ok(())
    }

    /// Builder form of [`Block::push`].
    pub fn with(mut self, name: impl Into<String>, column: impl Into<Column>) -> Result<Self, EncodeError> {
        self.push(name, column.into())?;
        Ok(self)
    }

    /// A block of `rows` rows without columns (Native has them, e.g. `SELECT` of no columns
    /// read through a format that keeps the row count).
    pub fn without_columns(rows: usize) -> Block {
        Block { rows, ..Block::new() }
    }

    pub(crate) fn from_parts(info: BlockInfo, rows: usize, columns: Vec<(String, Column)>) -> Block {
        Block { info, rows, columns }
    }

    /// The number of rows (of every column).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// Whether the block has neither columns nor rows (a block with columns and 0 rows, such as
    /// a header, is not empty).
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty() && self.rows == 0
    }

    /// The columns with their names, in order.
    pub fn columns(&self) -> &[(String, Column)] {
        &self.columns
    }

    /// The columns with their names, in order, by value.
    pub fn into_columns(self) -> Vec<(String, Column)> {
        self.columns
    }

    /// The block with each column `f` names a type for (by index and column) given that type,
    /// its data kept (a zone added to a DateTime); its info and rows kept. A type the data does
    /// not fit is an error.
    pub fn retyped(self, mut f: impl FnMut(usize, &Column) -> Option<DataType>) -> Result<Block, EncodeError> {
        let Block { info, rows, columns } = self;
        let mut out = Vec::with_capacity(columns.len());
        for (i, (name, col)) in columns.into_iter().enumerate() {
            let col = match f(i, &col) {
                Some(ty) => Column::new(ty, col.into_parts().1)?,
                None => col,
            };
            out.push((name, col));
        }
        Ok(Block { info, rows, columns: out })
    }

    /// The first column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// The column at index `i`.
    pub fn column_at(&self, i: usize) -> Option<&Column> {
        self.columns.get(i).map(|(_, c)| c)
    }

    /// The column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|(n, _)| n.as_str())
    }

    /// Append the Native encoding of this block (as it goes inside a Data packet).
    pub fn encode(&self, rev: Revision, out: &mut Vec<u8>) {
        self.info.encode(rev, out);
        out.put_varuint(self.columns.len() as u64);
        out.put_varuint(self.rows as u64);
        for (name, col) in &self.columns {
            out.put_str(name);
            out.put_str(col.data_type().to_string());
            if rev.has(CUSTOM_SERIALIZATION) {
                out.put_u8(0);
            }
            if self.rows > 0 {
                encode_column_of_at(col.data_type(), col.data(), rev, out);
            }
        }
    }
}
