//! A query being built ([`Query`]): settings, query id, parameters, and how it is sent
//! (with read failover before the first rows).

use super::*;

/// What it takes to send a read again (see [`Options::retries`]).
pub(crate) struct Retry {
    pub(super) sql: String,
    pub(super) settings: Vec<(String, String)>,
    pub(super) parameters: Vec<BoundParam>,
    pub(super) attempt: u32,
}

/// A query being built: settings, query id, parameters.
pub struct Query<'c> {
    pub(super) client: &'c mut Client,
    pub(super) sql: String,
    pub(super) query_id: Option<String>,
    pub(super) settings: Vec<(String, String)>,
    pub(super) parameters: Vec<BoundParam>,
    /// The first parameter that could not be bound ([`Query::bind`]): the query fails with it
    /// before anything is sent.
    pub(super) error: Option<Error>,
    /// Bounds of a result collected whole ([`Query::limits`]).
    pub(super) limits: super::ResultLimits,
}

/// A parameter value: its escaped text (server-side parameters) and, for typed values, the
/// SQL literal used with servers that predate server-side parameters.
#[derive(Debug, Clone)]
pub(crate) struct BoundParam {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) literal: Option<String>,
}

impl<'c> Query<'c> {
    /// The server's timezone from the handshake (the Arrow layer's default zone).
    #[cfg(feature = "arrow")]
    pub(crate) fn client_timezone(&self) -> Option<String> {
        self.client.server_info().and_then(|s| s.timezone)
    }

    /// A ClickHouse setting for this query only.
    pub fn setting(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.settings.push((name.into(), value.into()));
        self
    }

    /// Use this query id (default: a random UUID).
    pub fn query_id(mut self, id: impl Into<String>) -> Self {
        self.query_id = Some(id.into());
        self
    }

    /// Bound the result, for a caller that collects it whole: past a bound, the stream's next
    /// read cancels the query, drains the connection and fails with
    /// [`ErrorKind::ResultTooLarge`](crate::ErrorKind::ResultTooLarge).
    pub fn limits(mut self, limits: super::ResultLimits) -> Self {
        self.limits = limits;
        self
    }

    /// A server-side parameter for `{name:Type}` placeholders (needs revision 54459).
    ///
    /// `text` is the value in ClickHouse's escaped text form, exactly as
    /// `clickhouse-client --param_name=...` takes it: the server parses it with the type's
    /// TSV (escaped) deserializer, so a backslash starts an escape (`a\tb` is a tab). chwire
    /// quotes it for transport; it always arrives as data, never as SQL.
    pub fn server_param(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.parameters.push(BoundParam { name: name.into(), text: text.into(), literal: None });
        self
    }

    /// Bind a value to the `{name:Type}` placeholders of the query. It is sent as a
    /// server-side parameter where the negotiated revision has them (54459), otherwise as a
    /// quoted, escaped SQL literal cast to the placeholder's type. Either way it arrives as
    /// data, never as SQL.
    pub fn param(mut self, name: impl Into<String>, value: impl crate::params::QueryParam) -> Self {
        self.parameters.push(BoundParam { name: name.into(), text: value.param_text(), literal: Some(value.sql_literal()) });
        self
    }

    /// Bind a value whose type is known only at run time (what the bindings build from their
    /// host's values) to the `{name:Type}` placeholders of the query, shaped and checked by
    /// the placeholder's declared type ([`ParamValue::bind`](crate::ParamValue::bind)): a list is a Tuple for
    /// `Tuple(...)`, an integer outside the type's range or a fraction for an integer type is
    /// refused. A value that does not fit makes the query fail before anything is sent.
    pub fn bind(mut self, name: impl Into<String>, value: &crate::ParamValue) -> Self {
        let name = name.into();
        let ty = crate::params::placeholder_type(&self.sql, &name);
        let tz = self.client.server_timezone();
        match value.bind(ty.as_ref(), tz.as_deref()) {
            Ok(v) => self.param(name, v),
            Err(e) => {
                self.error.get_or_insert_with(|| Error::invalid(format!("query parameter {name:?}: {e}")));
                self
            }
        }
    }

    /// Send the query and return a stream of its results.
    pub async fn stream(self) -> Result<QueryStream<'c>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let kind = chwire_proto::sql::StatementKind::of(&self.sql);
        let is_insert = kind == chwire_proto::sql::StatementKind::Insert;
        let mut query_id = self.query_id.unwrap_or_else(new_query_id);
        let mut attempt = 0;
        let retries = if is_insert { 0 } else { self.client.opts.retries };
        loop {
            match self.client.start_query(&self.sql, &query_id, &self.settings, &self.parameters).await {
                Ok(()) => break,
                Err(e) if attempt < retries && e.is_failover() => {
                    attempt += 1;
                    self.client.fail_over(&e, attempt).await;
                    query_id = new_query_id();
                }
                Err(e) => return Err(e),
            }
        }
        let client = self.client;
        client.pending = Pending::Drain { cancel_sent: false };
        // The session's zone as sent (the native protocol says nothing more of it; over HTTP
        // the response's header says which zone the server took, session_zone.rs).
        let session_zone = super::session_zone::of(client, &self.settings);
        // Once sent, a read may be sent again (elsewhere) until it returned rows; a statement
        // that writes never (it may have run).
        let retry = (kind.is_read() && attempt < retries)
            .then(|| Box::new(Retry { sql: self.sql, settings: self.settings, parameters: self.parameters, attempt }));
        Ok(QueryStream {
            is_insert,
            retry,
            client,
            query_id,
            header: None,
            progress: Progress::default(),
            profile: None,
            totals: None,
            extremes: None,
            done: false,
            progress_final: false,
            session_zone,
            tally: super::limits::Tally::new(self.limits),
        })
    }

    /// Run the query, discarding any rows; returns its totals.
    pub async fn execute(self) -> Result<QuerySummary> {
        let mut s = self.stream().await?;
        while s.next_event().await?.is_some() {}
        Ok(s.summary())
    }

    /// Run the query and collect every non-empty result block.
    pub async fn fetch_blocks(self) -> Result<Vec<Block>> {
        let mut s = self.stream().await?;
        let mut out = Vec::new();
        while let Some(b) = s.next_block().await? {
            out.push(b);
        }
        Ok(out)
    }

    /// Run the query and read its rows as `T` (see [`crate::row::RowCursor`]).
    pub async fn fetch<T: crate::row::Row>(self) -> Result<crate::row::RowCursor<'c, T>> {
        Ok(crate::row::RowCursor::new(self.stream().await?))
    }

    /// Run the query and collect every row.
    pub async fn fetch_all<T: crate::row::RowOwned>(self) -> Result<Vec<T>> {
        let mut rows = self.fetch::<T>().await?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().await? {
            out.push(r);
        }
        Ok(out)
    }

    /// Run the query and return its first row (an error if there is none); the rest of the
    /// result is cancelled.
    pub async fn fetch_one<T: crate::row::RowOwned>(self) -> Result<T> {
        self.fetch_optional().await?.ok_or_else(|| Error::new(ErrorKind::NoRows))
    }

    /// Run the query and return its first row, if any; the rest of the result is cancelled.
    ///
    /// The result is read one row further first: a result of one row (what these calls are
    /// mostly for) then ends by itself, and the connection stays as it is, where a cancel
    /// costs a `KILL QUERY` and a new connection over HTTP and a drain over the native protocol.
    ///
    /// A server exception after the first row is the call's error (the query failed); a
    /// connection lost after it is not (the server went away while the rest of the result,
    /// which this call cancels anyway, was on its way): the row is returned, and the client
    /// connects anew for its next query.
    pub async fn fetch_optional<T: crate::row::RowOwned>(self) -> Result<Option<T>> {
        let mut rows = self.fetch::<T>().await?;
        let Some(first) = rows.next().await? else { return Ok(None) };
        match rows.next().await {
            Ok(Some(_)) => rows.cancel().await?,
            Ok(None) => {}
            Err(e) if matches!(e.kind(), ErrorKind::Io(_) | ErrorKind::Closed) => {
                tracing::debug!(error = %e, "the connection was lost after the first row");
            }
            Err(e) => return Err(e),
        }
        Ok(Some(first))
    }

    /// Run the query and read its rows as dynamic values.
    pub async fn fetch_dynamic(self) -> Result<crate::row::DynRowCursor<'c>> {
        Ok(crate::row::DynRowCursor::new(self.stream().await?))
    }

    /// Start an `INSERT INTO t (columns…) VALUES` of typed rows, with this query's settings
    /// and query id: the header's columns must be `T`'s, in order (see
    /// [`Client::insert_rows`], which writes the statement itself).
    pub async fn insert_rows<T: crate::row::Row>(self) -> Result<crate::row::Inserter<'c, T>> {
        crate::row::Inserter::new(self.insert_blocks().await?, Default::default())
    }

    /// Start an INSERT of dynamic rows with this query's settings and query id.
    pub async fn insert_dynamic(self) -> Result<crate::row::DynInserter<'c>> {
        crate::row::DynInserter::new(self.insert_blocks().await?, Default::default())
    }

    /// Start an INSERT of blocks (the statement takes data: `INSERT INTO t [(cols)] VALUES`
    /// or `FORMAT Native`): waits for the server's header block that describes the columns;
    /// send blocks with [`Insert::send`], finish with [`Insert::end`].
    ///
    /// Until the header arrives no row has been sent, so nothing can have been inserted: a
    /// [failover error](Error::is_failover) up to then starts the INSERT again (on the next
    /// server). Once blocks are sent, an insert is never retried.
    pub async fn insert_blocks(self) -> Result<Insert<'c>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.client.opts.transport == crate::options::Transport::Http {
            return self.insert_http().await;
        }
        let mut query_id = self.query_id.unwrap_or_else(new_query_id);
        let client = self.client;
        let retries = client.opts.retries;
        let mut attempt = 0;
        let mut progress = Progress::default();
        'attempts: loop {
            let mut res = client.start_query(&self.sql, &query_id, &self.settings, &self.parameters).await.map(|()| None);
            if res.is_ok() {
                res = match client.recv_for_query().await {
                    Ok(ServerPacket::Exception(e)) if crate::hosts::FAILOVER_CODES.contains(&e.code) => Err(e.into()),
                    Ok(p) => Ok(Some(p)),
                    Err(e) => Err(e),
                };
            }
            let first = match res {
                Ok(p) => p.expect("a packet"),
                Err(e) if attempt < retries && e.is_failover() => {
                    attempt += 1;
                    client.fail_over(&e, attempt).await;
                    query_id = new_query_id();
                    progress = Progress::default();
                    continue 'attempts;
                }
                Err(e) => {
                    if e.server().is_some() && !matches!(client.pending, Pending::Broken | Pending::Resync) {
                        client.pending = Pending::Idle;
                    }
                    return Err(e);
                }
            };
            let mut next = Some(first);
            loop {
                let packet = match next.take() {
                    Some(p) => p,
                    None => client.recv_for_query().await?,
                };
                let Some(packet) = crate::link::informational(packet, &mut progress) else { continue };
                match packet {
                    ServerPacket::Data(header) => {
                        return Ok(Insert { client, header, progress, rows_sent: 0, done: false, writing: false })
                    }
                    ServerPacket::Exception(e) => {
                        if !matches!(client.pending, Pending::Broken | Pending::Resync) {
                            client.pending = Pending::Idle;
                        }
                        return Err(e.into());
                    }
                    ServerPacket::EndOfStream => {
                        client.pending = Pending::Idle;
                        return Err(Error::invalid(
                            "the statement is not an INSERT that takes data (the server ended it without asking for data)",
                        ));
                    }
                    other => {
                        client.pending = Pending::Broken;
                        return Err(Error::protocol(format!("unexpected {} packet while waiting for the insert header", other.name())));
                    }
                }
            }
        }
    }
}
