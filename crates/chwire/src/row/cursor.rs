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
    stream: QueryStream<'c>,
    block: Option<Block>,
    plan: Option<Vec<usize>>,
    row: usize,
    _row: PhantomData<fn() -> T>,
}

impl<'c, T: Row> RowCursor<'c, T> {
    pub(crate) fn new(stream: QueryStream<'c>) -> Self {
        RowCursor { stream, block: None, plan: None, row: 0, _row: PhantomData }
    }

    /// The next row, or `None` after the last one.
    pub async fn next(&mut self) -> Result<Option<T::Value<'_>>> {
        while self.block.as_ref().is_none_or(|b| self.row >= b.rows()) {
            self.block = None;
            match self.stream.next_block().await? {
                Some(b) => {
                    self.bind()?;
                    // The plan and the type checks were made on the header: every block
                    // must have its shape (a server that changes it mid-stream is an error,
                    // not an index out of range).
                    if let Some(h) = self.stream.header() {
                        let same = h.num_columns() == b.num_columns()
                            && h.columns().iter().zip(b.columns()).all(|((_, x), (_, y))| x.data_type() == y.data_type());
                        if !same {
                            return Err(Error::protocol("a result block's columns differ from the header's"));
                        }
                    }
                    self.block = Some(b);
                    self.row = 0;
                }
                None => {
                    // An empty result still has a header: a row type that cannot read it
                    // is an error here too.
                    self.bind()?;
                    return Ok(None);
                }
            }
        }
        let (Some(block), Some(plan)) = (&self.block, &self.plan) else { unreachable!("a bound block with rows left") };
        let row = self.row;
        self.row += 1;
        T::read(block, plan, 0, row).map(Some)
    }

    fn bind(&mut self) -> Result<()> {
        if self.plan.is_none() {
            if let Some(h) = self.stream.header() {
                self.plan = Some(plan_for::<T>(h)?);
            }
        }
        Ok(())
    }

    /// The underlying stream (progress, profile info, totals).
    pub fn stream(&self) -> &QueryStream<'c> {
        &self.stream
    }

    /// Stop reading: cancel the query and wait until the server has ended it.
    pub async fn cancel(self) -> Result<()> {
        self.stream.cancel().await
    }
}

impl<T> std::fmt::Debug for RowCursor<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowCursor").field("row_type", &std::any::type_name::<T>()).field("stream", &self.stream).finish()
    }
}
