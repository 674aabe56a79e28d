//! Reading a query's result as typed rows.

use std::marker::PhantomData;

use super::{plan_for, Row};
use crate::client::QueryStream;
use crate::error::{Error, Result};
use chwire_proto::Block;

/// A query's rows as `T`, block by block: each row is read straight from the block's
/// columns when it is asked for. Borrowed fields (`&str`, `&[u8]`) borrow from the cursor,
/// so a row lives until the next call to [`RowCursor::next`].
///
/// The row type is checked against the result's header block before the first row; a
/// missing column or a type that does not fit is an error naming both. Drop the cursor
/// to abandon the query (the client cancels it).
pub struct RowCursor<'c, T> {
    rows: BlockRows<'c>,
    plan: Option<Vec<usize>>,
    _row: PhantomData<fn() -> T>,
}

impl<'c, T: Row> RowCursor<'c, T> {
    pub(crate) fn new(stream: QueryStream<'c>) -> Self {
        RowCursor { rows: BlockRows::new(stream), plan: None, _row: PhantomData }
    }

    /// The next row, or `None` after the last one.
    pub async fn next(&mut self) -> Result<Option<T::Value<'_>>> {
        let plan = &mut self.plan;
        let next = self.rows.next_row(|stream, block| {
            // Bound on the header, also for an empty result: a row type that cannot read
            // it is an error before any row.
            if plan.is_none() {
                if let Some(h) = stream.header() {
                    *plan = Some(plan_for::<T>(h)?);
                }
            }
            // The plan and the type checks were made on the header: every block must have
            // its shape (a server that changes it mid-stream is an error, not an index out
            // of range).
            if let (Some(h), Some(b)) = (stream.header(), block) {
                let same = h.num_columns() == b.num_columns()
                    && h.columns().iter().zip(b.columns()).all(|((_, x), (_, y))| x.data_type() == y.data_type());
                if !same {
                    return Err(Error::protocol("a result block's columns differ from the header's"));
                }
            }
            Ok(())
        });
        let Some((block, row)) = next.await? else { return Ok(None) };
        let plan = self.plan.as_deref().expect("bound before the first row");
        Ok(Some(T::read(block, plan, 0, row)?))
    }

    /// The underlying stream (progress, profile info, totals).
    pub fn stream(&self) -> &QueryStream<'c> {
        &self.rows.stream
    }

    /// Stop reading: cancel the query and wait until the server has ended it.
    pub async fn cancel(self) -> Result<()> {
        self.rows.stream.cancel().await
    }
}

impl<T> std::fmt::Debug for RowCursor<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowCursor").field("row_type", &std::any::type_name::<T>()).field("stream", &self.rows.stream).finish()
    }
}

/// A query's blocks walked row by row: what the typed and the dynamic cursors share.
pub(crate) struct BlockRows<'c> {
    pub(crate) stream: QueryStream<'c>,
    block: Option<Block>,
    row: usize,
}

impl<'c> BlockRows<'c> {
    pub(crate) fn new(stream: QueryStream<'c>) -> Self {
        BlockRows { stream, block: None, row: 0 }
    }

    /// The block and index of the next row, fetching blocks as needed, or `None` at the
    /// end. `on_block` sees each new block before its rows (and `None` at the end).
    pub(crate) async fn next_row(
        &mut self,
        mut on_block: impl FnMut(&QueryStream<'c>, Option<&Block>) -> Result<()>,
    ) -> Result<Option<(&Block, usize)>> {
        while self.block.as_ref().is_none_or(|b| self.row >= b.rows()) {
            self.block = None;
            match self.stream.next_block().await? {
                Some(b) => {
                    on_block(&self.stream, Some(&b))?;
                    self.block = Some(b);
                    self.row = 0;
                }
                None => {
                    on_block(&self.stream, None)?;
                    return Ok(None);
                }
            }
        }
        let row = self.row;
        self.row += 1;
        Ok(Some((self.block.as_ref().expect("a block with rows left"), row)))
    }
}
