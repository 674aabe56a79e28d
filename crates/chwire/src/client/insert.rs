//! `Insert`: a running INSERT of blocks, checked against the table's header.

use super::*;
use crate::options::keys::{self, Scope};

/// Types equal on the wire: a `DateTime` without a timezone matches any timezone.
fn wire_compatible(a: &DataType, b: &DataType) -> bool {
    match (a, b) {
        (DataType::DateTime(_), DataType::DateTime(_)) => true,
        (DataType::Nullable(x), DataType::Nullable(y)) | (DataType::Array(x), DataType::Array(y)) => wire_compatible(x, y),
        _ => a == b,
    }
}

/// A running INSERT. Send blocks that match [`Insert::header`], then call [`Insert::end`].
/// Dropping it without `end` aborts the insert by closing the connection.
pub struct Insert<'c> {
    pub(super) client: &'c mut Client,
    pub(super) header: Block,
    pub(super) progress: Progress,
    pub(super) rows_sent: u64,
    pub(super) done: bool,
    /// A block is being written: if `send` is dropped midway, this stays set and the insert
    /// is over (the block may be half on the wire; it can neither be taken back nor
    /// completed without the caller knowing whether it went out).
    pub(super) writing: bool,
}

impl Insert<'_> {
    /// The error for any use of an insert whose `send` was dropped while writing.
    fn check_not_interrupted(&mut self) -> Result<()> {
        if self.writing {
            self.done = true;
            self.client.pending = Pending::Broken;
            return Err(Error::invalid(
                "a previous send() was cancelled while writing its block: the insert is aborted \
                 (its connection is closed, nothing of it is committed); start a new insert",
            ));
        }
        Ok(())
    }

    /// The table's columns as the server expects them (names, types; no rows).
    pub fn header(&self) -> &Block {
        &self.header
    }

    /// Check a block against the header: same number of columns, names and types.
    pub fn check(&self, block: &Block) -> Result<()> {
        let want = self.header.columns();
        let got = block.columns();
        if want.len() != got.len() {
            return Err(Error::invalid(format!(
                "the block has {} columns ({}), the insert expects {} ({})",
                got.len(),
                got.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                want.len(),
                want.iter().map(|(n, c)| format!("{n} {}", c.data_type())).collect::<Vec<_>>().join(", ")
            )));
        }
        for (i, ((wn, wc), (gn, gc))) in want.iter().zip(got).enumerate() {
            if wn != gn {
                return Err(Error::invalid(format!("column {} is named {gn:?} in the block, the insert expects {wn:?}", i + 1)));
            }
            if !wire_compatible(wc.data_type(), gc.data_type()) {
                return Err(Error::invalid(format!(
                    "column {wn:?} has type {} in the block, the table has {}",
                    gc.data_type(),
                    wc.data_type()
                )));
            }
        }
        Ok(())
    }

    /// Check and send one block. Empty blocks are skipped (an empty block would end the insert).
    ///
    /// Cancel safety: if this future is dropped before it completes, the insert is aborted
    /// (the next `send` or `end` returns an error, and nothing of the insert is committed).
    pub async fn send(&mut self, block: &Block) -> Result<()> {
        self.check_not_interrupted()?;
        if self.done {
            return Err(Error::invalid("the insert has already ended with an error"));
        }
        self.check(block)?;
        if block.rows() == 0 {
            return Ok(());
        }
        let compression = self.client.opts.compression;
        let link = Link::open(&mut self.client.conn)?;
        self.writing = true;
        let res = link.send_insert_block(block, compression, &mut self.progress).await;
        self.writing = false;
        if let Err((e, pending)) = res {
            self.done = true;
            if let Some(p) = pending {
                self.client.pending = p;
            }
            return self.client.note(Err(e));
        }
        self.rows_sent += block.rows() as u64;
        Ok(())
    }

    /// Finish the insert and wait for the server to confirm it.
    pub async fn end(mut self) -> Result<QuerySummary> {
        self.check_not_interrupted()?;
        if self.done {
            return Err(Error::invalid("the insert has already ended with an error"));
        }
        let compression = self.client.opts.compression;
        let res = Link::open(&mut self.client.conn)?.end_insert(compression, &mut self.progress).await;
        self.done = true;
        match res {
            Ok(profile) => {
                self.client.pending = Pending::Idle;
                Ok(QuerySummary { progress: self.progress, profile, rows_sent: self.rows_sent })
            }
            Err((e, pending)) => {
                // (Until `end` confirms it, `pending` says Broken: the link says what it is.)
                self.client.pending = pending;
                self.client.note(Err(e))
            }
        }
    }
}

impl std::fmt::Debug for Insert<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Insert").field("columns", &self.header.names().collect::<Vec<_>>()).field("rows_sent", &self.rows_sent).finish()
    }
}

impl Drop for Insert<'_> {
    fn drop(&mut self) {
        if !self.done {
            // The server is waiting for blocks: closing the connection aborts the insert
            // without committing what an empty block would.
            self.client.pending = Pending::Broken;
            if let Some(link) = self.client.conn.as_mut() {
                link.abandon_insert();
            }
        }
    }
}

/// Rows per block a binding's insert (and [`ArrowInsert`](crate::arrow::ArrowInsert)) sends by default (the option `block_rows`): larger
/// batches are cut, smaller ones gathered up to it, so that a converted block stays bounded
/// and small batches do not each cost a block.
pub const INSERT_BLOCK_ROWS: usize = 1 << 20;

/// How a binding's insert cuts its data into blocks: the insert options of docs/OPTIONS.md
/// (`block_rows`), the same names in every binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertOptions {
    /// Rows per block sent (at least 1).
    pub block_rows: usize,
}

impl Default for InsertOptions {
    fn default() -> Self {
        InsertOptions { block_rows: INSERT_BLOCK_ROWS }
    }
}

impl InsertOptions {
    /// Set one option by its key (the options table's, in any host's spelling). Another key,
    /// or a block of no rows, is an error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let k = keys::of_scope(key, Scope::Insert)?;
        match k.name {
            "block_rows" => {
                let n: u64 = keys::count(k.name, value)?;
                if n == 0 {
                    return Err(Error::config(format!("invalid {}={value:?} (at least 1 row)", k.name)));
                }
                self.block_rows = usize::try_from(n).unwrap_or(usize::MAX);
            }
            other => return Err(Error::config(format!("{other:?} is no insert option (a chwire bug)"))),
        }
        Ok(())
    }

    /// The insert options among a binding's `key = value` options, taken out of `pairs` (the
    /// rest are left to the caller). A bad value, or one option given twice (in two
    /// spellings), is an error.
    pub fn take(pairs: &mut Vec<(String, String)>) -> Result<InsertOptions> {
        let mut o = InsertOptions::default();
        crate::options::take_scope(pairs, Scope::Insert, |k, v| o.set(k, v))?;
        Ok(o)
    }

    /// Insert options from `key = value` pairs that must all be insert options (a binding's
    /// own argument): [`InsertOptions::take`], and any other key refused by
    /// [`InsertOptions::set`]'s rule, as [`PoolOptions::from_pairs`](crate::PoolOptions::from_pairs) does.
    pub fn from_pairs(mut pairs: Vec<(String, String)>) -> Result<InsertOptions> {
        let o = InsertOptions::take(&mut pairs)?;
        match pairs.first() {
            Some((k, v)) => {
                Err(InsertOptions::default().set(k, v).err().unwrap_or_else(|| Error::config(format!("{k:?} is not an insert option"))))
            }
            None => Ok(o),
        }
    }
}
