//! Schema-free rows: dynamic [`Value`]s for queries and tables known only at run time.

use super::insert::{Batch, InsertLimits};
use super::ToColumn;
use crate::client::{QueryStream, QuerySummary};
use crate::error::{Error, ErrorKind, Result};
use chwire_proto::{Block, DataType, Value};

/// A query's rows as dynamic values, with the names and types of the header.
pub struct DynRowCursor<'c> {
    rows: super::cursor::BlockRows<'c>,
}

/// One row of a result: its values borrow from the cursor's current block.
#[derive(Clone, Copy)]
pub struct DynRow<'a> {
    block: &'a Block,
    row: usize,
}

impl<'a> DynRow<'a> {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.block.num_columns()
    }

    /// Whether the row has no columns.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The columns' names and types (as in the header).
    pub fn columns(&self) -> impl Iterator<Item = (&'a str, &'a DataType)> {
        self.block.columns().iter().map(|(n, c)| (n.as_str(), c.data_type()))
    }

    /// The value of column `i`.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        self.block.column_at(i).map(|c| c.value(self.row))
    }

    /// The value of the column named `name`.
    pub fn get_by_name(&self, name: &str) -> Option<Value<'a>> {
        self.block.column(name).map(|c| c.value(self.row))
    }

    /// Every value, in column order.
    pub fn values(&self) -> Vec<Value<'a>> {
        self.block.columns().iter().map(|(_, c)| c.value(self.row)).collect()
    }
}

impl std::fmt::Debug for DynRow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for (name, col) in self.block.columns() {
            m.entry(name, &col.value(self.row));
        }
        m.finish()
    }
}

impl<'c> DynRowCursor<'c> {
    pub(crate) fn new(stream: QueryStream<'c>) -> Self {
        DynRowCursor { rows: super::cursor::BlockRows::new(stream) }
    }

    /// The next row, or `None` after the last one.
    pub async fn next(&mut self) -> Result<Option<DynRow<'_>>> {
        Ok(self.rows.next_row(|_, _| Ok(())).await?.map(|(block, row)| DynRow { block, row }))
    }

    /// The result's columns (names and types), once the server has sent them.
    pub fn header(&self) -> Option<&Block> {
        self.rows.stream.header()
    }

    /// The underlying stream (progress, profile info, totals).
    pub fn stream(&self) -> &QueryStream<'c> {
        &self.rows.stream
    }
}

impl std::fmt::Debug for DynRowCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynRowCursor").field("stream", &self.rows.stream).finish()
    }
}

/// Inserts rows of dynamic values into a table whose columns are known only at run time
/// (see [`DynInserter::header`]). Values are converted to each column's type where that is
/// exact (integers into any integer type they fit, strings into String/FixedString/Enum…);
/// anything else is an error naming the column.
pub struct DynInserter<'c> {
    batch: Batch<'c>,
}

impl<'c> DynInserter<'c> {
    pub(crate) fn new(insert: crate::client::Insert<'c>, limits: InsertLimits) -> Result<Self> {
        for (name, col) in insert.header().columns() {
            Value::check_write(&col.data_type().without_low_cardinality())
                .map_err(|why| Error::new(ErrorKind::Row(format!("column `{name}` ({}): {why}", col.data_type()))))?;
        }
        Ok(DynInserter { batch: Batch::new(insert, limits)? })
    }

    /// The table's columns: names and types, in the order rows give their values.
    pub fn header(&self) -> &Block {
        self.batch.header()
    }

    /// Append one row (one value per column, in header order); sends a block when the
    /// limits are reached. A row that does not fit is an error and is not appended.
    pub async fn write(&mut self, row: &[Value<'_>]) -> Result<()> {
        let header = self.batch.header();
        if row.len() != header.num_columns() {
            return Err(Error::new(ErrorKind::Row(format!(
                "the row has {} values, the table {} columns",
                row.len(),
                header.num_columns()
            ))));
        }
        let full = self.batch.push(|b| {
            for (i, v) in row.iter().enumerate() {
                b.write(i, v)?;
            }
            Ok(())
        })?;
        if full {
            self.batch.flush().await?;
        }
        Ok(())
    }

    /// Send the rows gathered so far as a block now.
    pub async fn flush(&mut self) -> Result<()> {
        self.batch.flush().await
    }

    /// Send the remaining rows and wait for the server to confirm the insert.
    pub async fn end(self) -> Result<QuerySummary> {
        self.batch.end().await
    }
}

impl std::fmt::Debug for DynInserter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynInserter").field("pending_rows", &self.batch.rows()).finish()
    }
}
