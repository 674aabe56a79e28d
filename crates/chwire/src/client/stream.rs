//! The results of a running query ([`QueryStream`]): events, blocks, cancellation.

use super::*;

/// The results of a running query. Drop it to abandon the query: the server is told to stop
/// it (native: Cancel at once, and the connection is drained before the next query; HTTP:
/// `KILL QUERY` by its id, in a task of its own on the current tokio runtime; see
/// [`Client`]). [`QueryStream::cancel`] does the same and waits until it is done.
pub struct QueryStream<'c> {
    pub(super) client: &'c mut Client,
    /// Set while the query may still be sent again after a failover error.
    pub(super) retry: Option<Box<Retry>>,
    /// An INSERT: if the server asks for data blocks, this stream cannot give them.
    pub(super) is_insert: bool,
    pub(super) query_id: String,
    pub(super) header: Option<Block>,
    pub(super) progress: Progress,
    pub(super) profile: Option<ProfileInfo>,
    pub(super) totals: Option<Block>,
    pub(super) extremes: Option<Block>,
    pub(super) done: bool,
    /// The query ended and [`QueryStream::progress`] is the server's final count.
    pub(super) progress_final: bool,
    /// The session's time zone where it is not the server's (`session_timezone`): the zone
    /// of the result's DateTime columns without one (session_zone.rs).
    pub(super) session_zone: Option<String>,
    /// What a bounded result ([`Query::limits`]) has received.
    pub(super) tally: Option<Box<super::limits::Tally>>,
}

impl QueryStream<'_> {
    /// The query's id (the one given, or the UUID chwire chose).
    pub fn query_id(&self) -> &str {
        &self.query_id
    }

    /// The result's columns (names and types, no rows), once the server has sent them.
    pub fn header(&self) -> Option<&Block> {
        self.header.as_ref()
    }

    /// Progress accumulated so far.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Whether the query has ended and [`QueryStream::progress`] is what the server read and
    /// wrote in all. Always so over the native protocol; over HTTP the server reports its
    /// progress only in the response's headers, which go out with the result's first block,
    /// so of a result longer than the server's buffer only the progress up to then is known.
    pub fn progress_is_final(&self) -> bool {
        self.progress_final
    }

    /// What the query read and returned, once the server has sent it (native protocol).
    pub fn profile_info(&self) -> Option<&ProfileInfo> {
        self.profile.as_ref()
    }

    /// The totals row of `WITH TOTALS`, once received.
    pub fn totals(&self) -> Option<&Block> {
        self.totals.as_ref()
    }

    /// The extremes of the result's columns (`extremes = 1`), once received.
    pub fn extremes(&self) -> Option<&Block> {
        self.extremes.as_ref()
    }

    /// Whether the server has ended the query.
    pub fn is_finished(&self) -> bool {
        self.done
    }

    /// The progress and profile received so far (in all, once [`QueryStream::is_finished`]).
    pub fn summary(&self) -> QuerySummary {
        QuerySummary { progress: self.progress, profile: self.profile, rows_sent: 0 }
    }

    async fn recv(&mut self) -> Result<ServerPacket> {
        let res = self.client.recv_for_query().await;
        if let Err(e) = &res {
            self.done = true;
            // The query may still run on the server (a server exception is an `Ok` packet
            // here). Native: Cancel was sent (`recv_for_query`). HTTP: killed by its id,
            // before the error is returned, as the caller may exit right after it; a broken
            // connection only in a task of its own, as the server may be unreachable (and
            // stops the query when it next writes to the closed connection).
            let wait = !matches!(e.kind(), ErrorKind::Io(_) | ErrorKind::Closed);
            self.client.stop_http(&self.query_id, wait).await;
        }
        res
    }

    fn unexpected(&mut self, p: &ServerPacket) -> Error {
        self.done = true;
        self.client.pending = Pending::Broken;
        Error::protocol(format!("unexpected {} packet during a query", p.name()))
    }

    /// The next event of the query, or `None` once the server has sent EndOfStream.
    /// A server exception ends the query and is returned as an error.
    pub async fn next_event(&mut self) -> Result<Option<Event>> {
        loop {
            if self.done {
                return Ok(None);
            }
            let packet = match self.recv().await {
                Ok(ServerPacket::Exception(e)) if self.retry.is_some() && crate::hosts::FAILOVER_CODES.contains(&e.code) => {
                    self.send_again(Error::from(e)).await?;
                    continue;
                }
                Ok(p) => p,
                // A receive timeout after the query went out means a slow answer, not a
                // server that is down: sent again only where another server can take it (the
                // same one would run it twice).
                Err(e) if self.retry.is_some() && e.is_failover() && (!e.is_timeout() || self.client.shared.hosts.len() > 1) => {
                    self.send_again(e).await?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let packet = match (packet, &self.session_zone) {
                (ServerPacket::Data(b), Some(tz)) => ServerPacket::Data(super::session_zone::apply(b, tz)),
                (ServerPacket::Totals(b), Some(tz)) => ServerPacket::Totals(super::session_zone::apply(b, tz)),
                (ServerPacket::Extremes(b), Some(tz)) => ServerPacket::Extremes(super::session_zone::apply(b, tz)),
                (p, _) => p,
            };
            let event = match packet {
                ServerPacket::Data(b) => {
                    if self.header.is_none() && self.is_insert && b.rows() == 0 && b.num_columns() > 0 {
                        // The server waits for the rows as blocks (it does not read inline
                        // VALUES over this protocol): close the connection, which aborts the
                        // insert, rather than commit an empty one. (`INSERT ... SELECT` sends
                        // a header without columns and runs on its own.)
                        self.done = true;
                        self.client.pending = Pending::Broken;
                        return Err(Error::invalid(
                            "the server expects this INSERT's rows as data blocks (inline VALUES are not read by this \
                             server over the native protocol): send them with `chwire insert TABLE` (CLI), `insert`/`insert_arrow` \
                             (Python) or Client::insert_rows (Rust); nothing was inserted",
                        ));
                    }
                    if self.header.is_none() {
                        match header_of(&b) {
                            Ok(h) => self.header = Some(h),
                            Err(e) => {
                                // The rest of the result is never read: close rather than drain.
                                self.done = true;
                                self.client.pending = Pending::Broken;
                                return Err(e);
                            }
                        }
                    }
                    if b.rows() == 0 {
                        continue;
                    }
                    self.retry = None;
                    if let Some(over) = self.tally.as_mut().and_then(|t| t.add(&b).err()) {
                        // Stopped on the server and drained here, so that the connection is
                        // ready when the caller hears of it. If that fails, the connection is
                        // left to be replaced at its next use, and the caller still hears why
                        // the query was stopped.
                        if let Err(e) = self.stop().await {
                            tracing::debug!("stopping a result over its bound: {e}");
                        }
                        return Err(over.into());
                    }
                    Event::Data(b)
                }
                ServerPacket::Progress(p) => {
                    self.progress.accumulate(&p);
                    Event::Progress(p)
                }
                ServerPacket::ProfileInfo(p) => {
                    self.profile = Some(p);
                    Event::ProfileInfo(p)
                }
                ServerPacket::Totals(b) => {
                    self.retry = None;
                    self.totals = Some(b.clone());
                    Event::Totals(b)
                }
                ServerPacket::Extremes(b) => {
                    self.retry = None;
                    self.extremes = Some(b.clone());
                    Event::Extremes(b)
                }
                ServerPacket::Log(b) => Event::Log(b),
                ServerPacket::ProfileEvents(b) => Event::ProfileEvents(b),
                ServerPacket::TableColumns { table, description } => Event::TableColumns { table, description },
                ServerPacket::TimezoneUpdate(tz) => {
                    self.session_zone = super::session_zone::other_than_the_servers(self.client, &tz);
                    Event::TimezoneUpdate(tz)
                }
                ServerPacket::EndOfStream => {
                    self.done = true;
                    self.progress_final = self.client.conn.as_ref().is_some_and(Link::progress_is_final);
                    self.client.pending = Pending::Idle;
                    return Ok(None);
                }
                ServerPacket::Exception(e) => {
                    self.done = true;
                    if !matches!(self.client.pending, Pending::Broken | Pending::Resync) {
                        self.client.pending = Pending::Idle;
                    }
                    return Err(e.into());
                }
                other => return Err(self.unexpected(&other)),
            };
            return Ok(Some(event));
        }
    }

    /// A read failed with a failover error before it returned rows: send it again (on the
    /// next server), or return the error once the retries are used up.
    async fn send_again(&mut self, mut err: Error) -> Result<()> {
        loop {
            let Some(retry) = self.retry.as_mut() else { return Err(err) };
            if retry.attempt >= self.client.opts.retries {
                self.retry = None;
                return Err(err);
            }
            retry.attempt += 1;
            let attempt = retry.attempt;
            self.client.fail_over(&err, attempt).await;
            let retry = self.retry.as_ref().expect("checked");
            self.query_id = new_query_id();
            self.header = None;
            self.progress = Progress::default();
            self.profile = None;
            self.done = true; // until the query is out again
            match self.client.start_query(&retry.sql, &self.query_id, &retry.settings, &retry.parameters).await {
                Ok(()) => {
                    self.client.pending = Pending::Drain { cancel_sent: false };
                    self.done = false;
                    return Ok(());
                }
                Err(e) if e.is_failover() => err = e,
                Err(e) => {
                    self.retry = None;
                    return Err(e);
                }
            }
        }
    }

    /// The next non-empty block of rows, or `None` at the end. Other events update the
    /// stream's progress, profile info, totals and extremes; log lines go to `tracing`.
    pub async fn next_block(&mut self) -> Result<Option<Block>> {
        while let Some(ev) = self.next_event().await? {
            match ev {
                Event::Data(b) => return Ok(Some(b)),
                Event::Log(b) => log_lines(&b),
                _ => {}
            }
        }
        Ok(None)
    }

    /// Cancel the query now and wait until the server has ended it.
    pub async fn cancel(mut self) -> Result<()> {
        self.stop().await
    }

    /// [`QueryStream::cancel`] in place.
    async fn stop(&mut self) -> Result<()> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        let client = &mut *self.client;
        client.pending = Pending::Drain { cancel_sent: false };
        if client.conn.as_ref().is_some_and(Link::is_http) {
            // Killed by its id before this returns; the aborted response's connection is
            // replaced now, so that the client is ready again (a pool takes it back at once).
            client.stop_http(&self.query_id, true).await;
            client.conn = Some(Link::connect(&client.opts, &client.shared).await?);
            client.pending = Pending::Idle;
            return Ok(());
        }
        client.ready().await.map(|_| ())
    }
}

impl Drop for QueryStream<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.client.abandon_http(&self.query_id);
        let sent = self.client.conn.as_mut().is_some_and(|c| c.try_send_cancel());
        if self.client.pending != Pending::Broken {
            self.client.pending = Pending::Drain { cancel_sent: sent };
        }
    }
}

/// The result's columns without rows. A type the decoder reads but chwire cannot hold as a
/// column (an aggregate state whose format it does not know, which decodes with no rows) is
/// an error here, as it is for a block with rows.
fn header_of(b: &Block) -> Result<Block> {
    let mut h = Block::new();
    for (name, col) in b.columns() {
        let ty = col.data_type();
        let unsupported =
            |detail: String| Error::from(chwire_proto::DecodeError::UnsupportedType(format!("{ty} (column `{name}`): {detail}")));
        let empty = chwire_proto::ColumnData::empty_for(ty).map_err(|e| unsupported(e.to_string()))?;
        let column = chwire_proto::Column::new(ty.clone(), empty).map_err(|e| unsupported(e.to_string()))?;
        h.push(name.clone(), column).map_err(|e| unsupported(e.to_string()))?;
    }
    Ok(h)
}

impl std::fmt::Debug for QueryStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryStream")
            .field("query_id", &self.query_id)
            .field("progress", &self.progress)
            .field("finished", &self.done)
            .finish()
    }
}
