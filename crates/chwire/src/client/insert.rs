//! `Insert`: a running INSERT of blocks, checked against the table's header.

use super::*;

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
        if self.client.conn.as_ref().is_some_and(Link::is_http) {
            return self.send_http(block).await;
        }
        self.take_arrived_packets()?;
        let compression = self.client.opts.compression;
        let conn = Link::open(&mut self.client.conn)?.native()?;
        let rev: Revision = conn.rev;
        let Conn { wbuf, scratch, .. } = conn;
        encode_data(block, rev, compression, scratch, wbuf);
        self.writing = true;
        let res = conn.flush().await;
        self.writing = false;
        if res.is_err() {
            self.done = true;
        }
        self.client.note(res)?;
        self.rows_sent += block.rows() as u64;
        Ok(())
    }

    /// HTTP: encode the block (Native format; ClickHouse frames with compression, sent with
    /// `decompress=1`) and hand it to the request body.
    async fn send_http(&mut self, block: &Block) -> Result<()> {
        let compression = self.client.opts.compression;
        let h = Link::open(&mut self.client.conn)?.http()?;
        if h.answered_early() {
            // The server stopped reading: it rejected the insert. Its answer is the error.
            self.done = true;
            let res = h.end_insert().await.and_then(|()| Err(Error::protocol("the server ended the insert before its end")));
            self.client.pending = Pending::Broken;
            return self.client.note(res);
        }
        let mut plain = Vec::new();
        chwire_proto::native::encode_block(block, &mut plain);
        let bytes = if compression.is_enabled() {
            let mut framed = Vec::with_capacity(plain.len() / 2);
            chwire_proto::compress::compress(compression, &plain, &mut framed);
            framed
        } else {
            plain
        };
        self.writing = true;
        let res = h.send_body(bytes.into()).await;
        self.writing = false;
        if res.is_err() {
            self.done = true;
            self.client.pending = Pending::Broken;
        }
        self.client.note(res)?;
        self.rows_sent += block.rows() as u64;
        Ok(())
    }

    /// Handle what the server sent since the last block (ProfileEvents, Progress, Log; an
    /// exception if it rejected a block) without waiting.
    fn take_arrived_packets(&mut self) -> Result<()> {
        loop {
            let conn = Link::open(&mut self.client.conn)?.native()?;
            let res = conn.try_recv();
            let packet = match self.client.note(res) {
                Ok(Some(p)) => p,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            };
            match packet {
                ServerPacket::Progress(p) => self.progress.accumulate(&p),
                ServerPacket::Log(b) => log_lines(&b),
                ServerPacket::ProfileEvents(_) | ServerPacket::TableColumns { .. } | ServerPacket::TimezoneUpdate(_) => {}
                ServerPacket::Exception(e) => {
                    // The server stopped reading blocks: resynchronise before the next query.
                    self.done = true;
                    self.client.pending = Pending::Resync;
                    return Err(e.into());
                }
                other => {
                    self.done = true;
                    self.client.pending = Pending::Broken;
                    return Err(Error::protocol(format!("unexpected {} packet during an insert", other.name())));
                }
            }
        }
    }

    /// Finish the insert and wait for the server to confirm it.
    pub async fn end(mut self) -> Result<QuerySummary> {
        self.check_not_interrupted()?;
        if self.done {
            return Err(Error::invalid("the insert has already ended with an error"));
        }
        let compression = self.client.opts.compression;
        if let Some(h) = self.client.conn.as_mut().and_then(|c| c.http().ok()) {
            let res = h.end_insert().await;
            self.done = true;
            let res = self.client.note(res);
            if res.is_ok() {
                self.client.pending = Pending::Idle;
            } else if self.client.pending != Pending::Broken {
                // The connection may still be busy with the rejected body: a new one is opened.
                self.client.pending = Pending::Broken;
            }
            res?;
            return Ok(QuerySummary { progress: self.progress, profile: None, rows_sent: self.rows_sent });
        }
        let res = async {
            let conn = Link::open(&mut self.client.conn)?.native()?;
            let rev = conn.rev;
            let Conn { wbuf, scratch, .. } = conn;
            encode_data(&Block::new(), rev, compression, scratch, wbuf);
            conn.flush().await?;
            let mut profile = None;
            loop {
                match conn.recv().await? {
                    ServerPacket::EndOfStream => return Ok(profile),
                    ServerPacket::Exception(e) => return Err(Error::from(e)),
                    ServerPacket::Progress(p) => self.progress.accumulate(&p),
                    ServerPacket::ProfileInfo(p) => profile = Some(p),
                    ServerPacket::Log(b) => log_lines(&b),
                    ServerPacket::ProfileEvents(_)
                    | ServerPacket::TableColumns { .. }
                    | ServerPacket::TimezoneUpdate(_)
                    | ServerPacket::Data(_) => {}
                    other => return Err(Error::protocol(format!("unexpected {} packet at the end of an insert", other.name()))),
                }
            }
        }
        .await;
        self.done = true;
        match res {
            Ok(profile) => {
                self.client.pending = Pending::Idle;
                Ok(QuerySummary { progress: self.progress, profile, rows_sent: self.rows_sent })
            }
            Err(e) => {
                // After a server exception, blocks the server did not read may still be in
                // flight: resynchronise before the next query.
                self.client.pending = if e.breaks_connection() { Pending::Broken } else { Pending::Resync };
                Err(e)
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
