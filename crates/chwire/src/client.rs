//! The client: queries, inserts, cancellation.
//!
//! A [`Client`] owns at most one connection and runs one query at a time on it (as the
//! protocol requires). A [`QueryStream`] or [`Insert`] borrows the client mutably for the
//! duration of the query. If one is dropped before the server finished, the client sends
//! Cancel and, before its next query, drains the old query's packets up to EndOfStream; if
//! that fails the connection is discarded and a new one is opened. The next query never
//! sees packets of an old one. Over HTTP, which has no Cancel, the query is killed by its id
//! on another connection ([`kill_http_query`]). Every early end goes this way: a dropped
//! stream or cursor, `cancel`, a query deadline, a receive timeout, a read that failed.

use crate::conn::Shared;
use crate::error::{Error, ErrorKind, Result};
pub(crate) use crate::link::{kill_http_query, new_query_id, Pending};
use crate::link::{Link, QueryStart};
use crate::options::Options;
use chwire_proto::sql::{InsertTarget, TableRef};
use chwire_proto::{Block, DataType, ProfileInfo, Progress, ServerPacket};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod http_insert;
mod insert;
mod limits;
mod query;
mod server_types;
mod session_zone;
mod spec;
mod stream;
use crate::link::log_lines;
pub use insert::{Insert, InsertOptions, INSERT_BLOCK_ROWS};
pub use limits::{ResultLimit, ResultLimits};
pub use query::Query;
pub(crate) use query::{BoundParam, Retry};
pub use spec::QuerySpec;
pub use stream::QueryStream;

/// What the server said about itself in the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The server's name (`ClickHouse`).
    pub name: String,
    /// Its version: major, minor, patch (`(26, 9, 2)`).
    pub version: (u64, u64, u64),
    /// Its protocol revision (54492 for 26.9; 0 over HTTP, which has none).
    pub revision: u64,
    /// `min(client revision, server revision)`: what both sides speak.
    pub negotiated_revision: u64,
    /// The server's timezone (revision >= 54058): the zone of DateTime values without one.
    pub timezone: Option<String>,
    /// The server's display name (revision >= 54372), as `display_name` configures it.
    pub display_name: Option<String>,
    /// The settings the server applies to the session, as its Hello listed them (revision
    /// 54474 and later; empty before): [`Client::server_settings`] when connected.
    pub settings: Vec<(String, String)>,
}

/// An async ClickHouse client (one connection, reopened when it had to be dropped).
pub struct Client {
    opts: Options,
    /// The servers and their health, the TLS configuration (shared with a pool's clients).
    shared: Arc<Shared>,
    conn: Option<Link>,
    /// When the current query must have ended ([`Options::query_timeout`]).
    deadline: Option<Instant>,
    pending: Pending,
    /// The last query sent settings in the binary form of revisions below 54429: if the
    /// server rejects one, it stops reading the Query packet midway and the rest of it would
    /// be taken for the next packet. An exception before any other answer then discards
    /// the connection.
    legacy_settings_sent: bool,
    /// Whether the current query has received a Data packet (the server has then read the
    /// query's empty block).
    got_data: bool,
    /// An HTTP query left before its end (its id and server) that could not be killed at
    /// once (a stream dropped outside a tokio runtime): the next use of the client kills it
    /// (see [`kill_http_query`]).
    pub(crate) http_abandoned: Option<(String, usize)>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("options", &self.opts).field("connected", &self.conn.is_some()).finish()
    }
}

/// Something the server reported while a query ran.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A block of result rows (never empty).
    Data(Block),
    /// A progress increment (the stream also keeps the running total).
    Progress(Progress),
    /// What the query read and returned (rows, blocks, bytes, rows before LIMIT), once.
    ProfileInfo(ProfileInfo),
    /// The totals row of `WITH TOTALS`.
    Totals(Block),
    /// The minimums and maximums of the result's columns (`extremes = 1`).
    Extremes(Block),
    /// Server log lines (`send_logs_level`), one row each.
    Log(Block),
    /// The server's profile event counters of the query (revision >= 54451), one row each.
    /// From servers that have the setting (25.11 and newer) only when the query or the options
    /// set `send_profile_events = 1`: chwire turns them off otherwise (they are most of what
    /// the server sends for a small query or insert block).
    ProfileEvents(Block),
    /// The columns of an INSERT's table with their defaults, sent before its header.
    TableColumns {
        /// The table's name.
        table: String,
        /// Its columns' description, as the server serialized it.
        description: String,
    },
    /// The session's timezone changed (`SET session_timezone`, revision >= 54464): the zone of
    /// DateTime values without one from here on.
    TimezoneUpdate(String),
}

/// Totals of a finished query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QuerySummary {
    /// The query's progress in all: rows and bytes read, written, to read.
    pub progress: Progress,
    /// What the query read and returned, if the server sent it (native protocol).
    pub profile: Option<ProfileInfo>,
    /// Rows the client sent (inserts).
    pub rows_sent: u64,
}

impl Client {
    /// Connect with the given options (the handshake is done before this returns).
    pub async fn connect(opts: Options) -> Result<Client> {
        let shared = Shared::new(&opts)?;
        Client::connect_shared(opts, shared).await
    }

    /// A client that connects on its first use.
    pub(crate) fn disconnected(opts: Options, shared: Arc<Shared>) -> Client {
        Client {
            opts,
            shared,
            conn: None,
            deadline: None,
            pending: Pending::Idle,
            legacy_settings_sent: false,
            got_data: false,
            http_abandoned: None,
        }
    }

    pub(crate) async fn connect_shared(opts: Options, shared: Arc<Shared>) -> Result<Client> {
        let conn = Link::connect(&opts, &shared).await?;
        Ok(Client {
            opts,
            shared,
            conn: Some(conn),
            deadline: None,
            pending: Pending::Idle,
            legacy_settings_sent: false,
            got_data: false,
            http_abandoned: None,
        })
    }

    /// Connect to a `tcp://user:password@host:port/database?...` URL.
    pub async fn connect_url(url: &str) -> Result<Client> {
        Client::connect(Options::from_url(url)?).await
    }

    /// The options this client connects with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The server the current connection goes to.
    pub fn endpoint(&self) -> Option<&crate::Endpoint> {
        self.conn.as_ref().map(|c| self.shared.hosts.endpoint(c.endpoint()))
    }

    /// Whether the current connection is encrypted (TLS).
    pub fn is_tls(&self) -> bool {
        self.conn.as_ref().is_some_and(|c| c.is_tls())
    }

    /// Whether the connection is open, idle and in step: no query or insert is running or
    /// must be drained first (what a [`crate::Pool`] checks before taking it back).
    pub fn is_idle(&self) -> bool {
        self.conn.is_some() && self.pending == Pending::Idle
    }

    /// Whether an abandoned query must be drained before the next one.
    pub(crate) fn needs_drain(&self) -> bool {
        self.conn.is_some() && matches!(self.pending, Pending::Drain { .. } | Pending::Resync)
    }

    /// What the server reported in the handshake (of the current connection).
    /// The server's time zone (from its Hello), in which it reads DateTime values without one.
    pub fn server_timezone(&self) -> Option<String> {
        self.conn.as_ref().and_then(|c| c.hello().timezone.clone())
    }

    /// What the server of the current connection said about itself in the handshake (`None`
    /// before the first connection and after it was closed).
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.conn.as_ref().map(|c| {
            let hello = c.hello();
            ServerInfo {
                name: hello.name.clone(),
                version: (hello.version_major, hello.version_minor, hello.version_patch),
                revision: hello.revision,
                negotiated_revision: c.revision(),
                timezone: hello.timezone.clone(),
                display_name: hello.display_name.clone(),
                settings: hello.settings.clone(),
            }
        })
    }

    /// The settings the server applies to this connection's session, as it listed them in
    /// its Hello (protocol revision 54474 and later: the user's profile, name and value as
    /// text); empty for older servers and over HTTP.
    pub fn server_settings(&self) -> &[(String, String)] {
        self.conn.as_ref().map_or(&[], |c| c.hello().settings.as_slice())
    }

    /// Start building a query.
    pub fn query(&mut self, sql: impl Into<String>) -> Query<'_> {
        Query {
            client: self,
            sql: sql.into(),
            query_id: None,
            settings: Vec::new(),
            parameters: Vec::new(),
            error: None,
            limits: ResultLimits::none(),
        }
    }

    /// Run a statement that returns no rows of interest (DDL, `INSERT ... SELECT`, ...).
    pub async fn execute(&mut self, sql: impl Into<String>) -> Result<QuerySummary> {
        self.query(sql).execute().await
    }

    /// Insert blocks into `table` (a [`TableRef`] or its text: `t`, `db.t`, quoted parts;
    /// never pasted into SQL), into all its columns or, with `columns`, into those: the
    /// server's header says their names and types. Send blocks with [`Insert::send`], finish
    /// with [`Insert::end`]. For settings, a query id or an INSERT statement of your own:
    /// [`Client::query`] then [`Query::insert_blocks`].
    ///
    /// The inserts, by what they take (each on `Client` from a table, and on [`Query`] from
    /// an INSERT statement, with its settings and id): [`insert_rows`](Client::insert_rows)
    /// (typed rows), [`insert_dynamic`](Client::insert_dynamic) (rows of dynamic values),
    /// `insert_blocks` (blocks), `insert_arrow` (Arrow record batches, feature `arrow`).
    pub async fn insert_blocks(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
        columns: Option<&[&str]>,
    ) -> Result<Insert<'_>> {
        let sql = insert_sql(table, columns.map(|c| c.iter().map(|s| s.to_string()).collect()))?;
        self.query(sql).insert_blocks().await
    }

    /// Insert rows of `T` into `table` (a [`TableRef`] or its text, as for
    /// [`Client::insert_blocks`]): the columns are `T`'s, checked against the table before
    /// any row is sent.
    ///
    /// ```no_run
    /// # async fn demo(client: &mut chwire::Client) -> chwire::Result<()> {
    /// #[derive(chwire::Row)]
    /// struct Event<'a> { id: u64, name: &'a str }
    /// let mut ins = client.insert_rows::<Event>("events").await?;
    /// ins.write(&Event { id: 1, name: "start" }).await?;
    /// ins.end().await?;
    /// # Ok(()) }
    /// ```
    pub async fn insert_rows<T: crate::row::Row>(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
    ) -> Result<crate::row::Inserter<'_, T>> {
        let mut names = Vec::with_capacity(T::COLUMN_COUNT);
        T::column_names(&mut names);
        // Rows without names (tuples) fill the table's columns in order.
        let columns = (!names.is_empty()).then(|| names.iter().map(|s| s.to_string()).collect());
        let sql = insert_sql(table, columns)?;
        self.query(sql).insert_rows().await
    }

    /// Insert rows of dynamic values into `table` (as for [`Client::insert_blocks`]), into
    /// all its columns or, with `columns`, into those; the table's header says the names and
    /// types.
    pub async fn insert_dynamic(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
        columns: Option<&[&str]>,
    ) -> Result<crate::row::DynInserter<'_>> {
        let sql = insert_sql(table, columns.map(|c| c.iter().map(|s| s.to_string()).collect()))?;
        self.query(sql).insert_dynamic().await
    }

    /// Insert one block with an `insert_deduplication_token`, retried (on the next
    /// server) after [failover errors](Error::is_failover) even once the block was sent:
    /// the token makes the server drop a repeat of a block it already stored (MergeTree
    /// tables with deduplication: replicated ones, or `non_replicated_deduplication_window`).
    /// Needs ClickHouse 22.2 or later; older servers (18.16) get an `InvalidInput` error and
    /// nothing is sent. This is the only insert chwire retries after its rows went out.
    ///
    /// `table` is a [`TableRef`] or its text (as for [`Client::insert_blocks`]); the block's
    /// columns name the columns inserted into.
    pub async fn insert_deduplicated(
        &mut self,
        table: impl TryInto<TableRef, Error: Into<Error>>,
        block: &Block,
        token: &str,
    ) -> Result<QuerySummary> {
        let sql = insert_sql(table, Some(block.names().map(str::to_string).collect()))?;
        let mut attempt = 0;
        loop {
            self.ready().await?;
            let v = self.server_info().map(|i| i.version).unwrap_or_default();
            if v < (22, 2, 0) {
                return Err(Error::invalid(format!(
                    "the server ({}.{}.{}) has no insert_deduplication_token (ClickHouse 22.2+): a retried insert could \
                     store its rows twice, so chwire does not retry it; use insert_blocks and handle the error",
                    v.0, v.1, v.2
                )));
            }
            let res = async {
                let mut ins = self.query(&sql).setting("insert_deduplication_token", token).insert_blocks().await?;
                ins.send(block).await?;
                ins.end().await
            }
            .await;
            match res {
                Err(e) if attempt < self.opts.retries && e.is_failover() => {
                    attempt += 1;
                    self.fail_over(&e, attempt).await;
                }
                r => return r,
            }
        }
    }

    /// Kill now a query this client abandoned over HTTP that could not be killed when it was
    /// abandoned (a stream dropped outside a tokio runtime: a dropped stream is otherwise
    /// killed by a task of its own, a timed-out or cancelled one before the call returns),
    /// instead of at the client's next use. Does nothing when no such query is left; over the
    /// native protocol the query was sent Cancel when it was abandoned, and the next use
    /// drains or drops the connection.
    pub async fn settle(&mut self) -> Result<()> {
        if self.http_abandoned.is_none() {
            return Ok(());
        }
        self.ready().await.map(|_| ())
    }

    /// Ping the server.
    pub async fn ping(&mut self) -> Result<()> {
        self.ready().await?;
        // Until the Pong is read, dropping this future leaves a Pong in flight (or half a
        // Ping written): the connection is then discarded.
        self.pending = Pending::Broken;
        let res = self.conn.as_mut().expect("connected").ping(&self.opts).await;
        if res.is_ok() {
            self.pending = Pending::Idle;
        }
        self.note(res)
    }

    /// Whether the client currently holds an open connection.
    pub fn is_connected(&self) -> bool {
        self.conn.is_some() && self.pending != Pending::Broken
    }

    /// Receive a packet of the current query; see `legacy_settings_sent`.
    async fn recv_for_query(&mut self) -> Result<ServerPacket> {
        let conn = Link::open(&mut self.conn)?;
        let res = match self.deadline {
            None => conn.recv().await,
            Some(deadline) => {
                let r = if Instant::now() >= deadline { None } else { tokio::time::timeout_at(deadline.into(), conn.recv()).await.ok() };
                match r {
                    Some(r) => r,
                    None => {
                        // The query's deadline: cancel it; the next operation drains it
                        // (or discards the connection if that fails).
                        let sent = conn.try_send_cancel();
                        self.pending = if self.pending == Pending::Broken && !self.got_data {
                            Pending::Broken
                        } else {
                            Pending::Drain { cancel_sent: sent }
                        };
                        self.deadline = None;
                        return Err(Error::timed_out(crate::Timeout::Query));
                    }
                }
            }
        };
        if let (Err(e), Some(conn)) = (&res, self.conn.as_mut()) {
            // No answer in time, or one that cannot be read: the query may still run (the
            // connection is discarded all the same: `note` below).
            conn.cancel_unanswered(e);
        }
        let first_after_legacy_settings = std::mem::take(&mut self.legacy_settings_sent);
        let packet = self.note(res)?;
        match packet {
            ServerPacket::Data(_) => self.got_data = true,
            ServerPacket::Exception(_) if first_after_legacy_settings => self.pending = Pending::Broken,
            ServerPacket::Exception(_) if !self.got_data => self.pending = Pending::Resync,
            _ => {}
        }
        Ok(packet)
    }

    /// After a failover error: mark the server down, drop the connection and wait a little
    /// before attempt `attempt` (1, 2, ...) goes to the next server.
    async fn fail_over(&mut self, e: &Error, attempt: u32) {
        if let Some(conn) = &self.conn {
            self.shared.hosts.mark_down(conn.endpoint(), e);
        }
        self.pending = Pending::Broken;
        self.deadline = None;
        // Another server is tried at once; the same one after a short, growing pause.
        if self.shared.hosts.len() == 1 || attempt > 1 {
            let pause = Duration::from_millis(50).saturating_mul(1 << attempt.min(8)).min(self.opts.host_backoff);
            tokio::time::sleep(pause).await;
        }
        tracing::info!(error = %e, attempt, "retrying on another server");
    }

    /// Record the outcome of an operation: connection-breaking errors drop the connection.
    fn note<T>(&mut self, res: Result<T>) -> Result<T> {
        if let Err(e) = &res {
            if e.breaks_connection() {
                self.pending = Pending::Broken;
            }
        }
        res
    }

    /// The connection, ready for a new query: drains an abandoned query or reconnects.
    async fn ready(&mut self) -> Result<&mut Link> {
        self.deadline = None;
        match self.conn.as_mut() {
            Some(conn) => {
                // Dropped while settling, the connection is in an unknown state: discarded.
                let pending = std::mem::replace(&mut self.pending, Pending::Broken);
                self.pending = conn.settle(pending).await;
            }
            // A new connection has nothing of earlier queries.
            None => self.pending = Pending::Idle,
        }
        if self.pending == Pending::Broken {
            self.conn = None;
            self.pending = Pending::Idle;
        }
        if self.conn.is_none() {
            self.conn = Some(Link::connect(&self.opts, &self.shared).await?);
        }
        if let Some((id, endpoint)) = self.http_abandoned.take() {
            kill_http_query(&self.opts, &self.shared, endpoint, &id).await;
        }
        Ok(self.conn.as_mut().expect("connected"))
    }

    /// The query `query_id` was left before its end and runs over HTTP: close its response
    /// and kill it on the server ([`kill_http_query`]). With `wait`, before this returns (a
    /// timeout, a failed read, `cancel`: the caller may exit right after the error);
    /// otherwise (`Drop`) in a task of its own on the current tokio runtime, or, outside one,
    /// at the client's next use. Does nothing over the native protocol.
    pub(crate) async fn stop_http(&mut self, query_id: &str, wait: bool) {
        let Some(endpoint) = self.conn.as_mut().and_then(Link::abort_http) else { return };
        if wait {
            kill_http_query(&self.opts, &self.shared, endpoint, query_id).await;
        } else {
            self.abandon_http(query_id);
        }
    }

    /// What [`Client::stop_http`] does without `wait`, for `Drop`.
    pub(crate) fn abandon_http(&mut self, query_id: &str) {
        let Some(endpoint) = self.conn.as_mut().and_then(Link::abort_http) else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                let (opts, shared, id) = (self.opts.clone(), self.shared.clone(), query_id.to_string());
                rt.spawn(async move { kill_http_query(&opts, &shared, endpoint, &id).await });
            }
            Err(_) => self.http_abandoned = Some((query_id.to_string(), endpoint)),
        }
    }

    async fn start_query(&mut self, sql: &str, query_id: &str, settings: &[(String, String)], parameters: &[BoundParam]) -> Result<()> {
        // One value per placeholder: a second would be dropped by one path or the other
        // (the server keeps one, the literal binding the first).
        if let Some((_, p)) = parameters.iter().enumerate().find(|(i, p)| parameters.iter().take(*i).any(|q| q.name == p.name)) {
            return Err(Error::invalid(format!("parameter {:?} is bound twice: a placeholder takes one value", p.name)));
        }
        let mut settings = self.opts.settings_list(settings)?;
        let (rev, server_side) = self.ready().await?.parameters_support();
        if let Some(conn) = self.conn.as_ref().filter(|c| !c.is_http()) {
            compression_method(self.opts.compression, &mut settings);
            let hello = conn.hello();
            profile_events_off((hello.version_major, hello.version_minor), &mut settings);
        }
        let bound_sql;
        let (sql, parameters): (&str, Vec<(String, String)>) = if server_side {
            let texts: Vec<(String, String)> = parameters.iter().map(|p| (p.name.clone(), p.text.clone())).collect();
            crate::params::check_integers(sql, &texts)?;
            (sql, texts)
        } else if parameters.is_empty() && !sql.contains('{') {
            (sql, Vec::new())
        } else {
            // Older servers: typed literals in place of the placeholders.
            let mut literals = Vec::with_capacity(parameters.len());
            for p in parameters {
                let Some(lit) = &p.literal else {
                    return Err(Error::invalid(format!(
                        "server-side parameter {:?} needs protocol revision {} (negotiated {rev}); bind a typed value with .param() instead",
                        p.name,
                        chwire_proto::revision::PARAMETERS
                    )));
                };
                literals.push((p.name.clone(), lit.clone()));
            }
            // The values' text too: a string "300" is a CAST('300' AS Int8) that wraps as well.
            let texts: Vec<(String, String)> = parameters.iter().map(|p| (p.name.clone(), p.text.clone())).collect();
            crate::params::check_integers(sql, &texts)?;
            bound_sql = crate::params::bind_client_side(sql, &literals)?;
            (bound_sql.as_str(), Vec::new())
        };
        // Until the caller takes over, an interrupted exchange leaves the stream unknown.
        self.pending = Pending::Broken;
        let conn = self.conn.as_mut().expect("connected");
        // Settings in 18.16's binary form (before revision 54429) are native only.
        self.legacy_settings_sent =
            !conn.is_http() && !settings.is_empty() && !rev.has(chwire_proto::revision::SETTINGS_SERIALIZED_AS_STRINGS);
        self.got_data = false;
        self.deadline = self.opts.query_timeout.map(|d| Instant::now() + d);
        let start = QueryStart { opts: &self.opts, query_id, settings: &settings, parameters: &parameters, sql };
        match conn.send_query(start).await {
            Ok(()) => Ok(()),
            Err((e, true)) => {
                // Nothing was sent: the connection is as it was.
                self.pending = Pending::Idle;
                self.legacy_settings_sent = false;
                Err(e)
            }
            Err((e, false)) => self.note(Err(e)),
        }
    }
}

/// `INSERT INTO table [(columns)] VALUES`, every name quoted: the statement of every insert
/// that takes a table rather than SQL.
pub(crate) fn insert_sql(table: impl TryInto<TableRef, Error: Into<Error>>, columns: Option<Vec<String>>) -> Result<String> {
    if columns.as_ref().is_some_and(Vec::is_empty) {
        return Err(Error::invalid("the data to insert has no columns"));
    }
    Ok(InsertTarget::values(table.try_into().map_err(Into::into)?, columns).to_string())
}

/// The method the server compresses its blocks with over the native protocol, from the
/// client's `compression` (unless the caller set it): it follows `network_compression_method`,
/// whose default is ZSTD (level 3) on ClickHouse 26.9, so `compression=lz4` received ZSTD blocks
/// (68 % of a W2 profile in ZSTD's decoder, and the server's slower compression).
fn compression_method(c: chwire_proto::Compression, settings: &mut Vec<chwire_proto::packet::client::Setting>) {
    let (method, level) = match c {
        chwire_proto::Compression::None => return,
        // Lower case: 18.16 takes no other spelling.
        chwire_proto::Compression::Lz4 => ("lz4", None),
        chwire_proto::Compression::Zstd(level) => ("zstd", Some(level)),
    };
    unless_set(settings, "network_compression_method", method);
    if let Some(level) = level {
        unless_set(settings, "network_zstd_compression_level", &level.to_string());
    }
}

/// Setting `name = value` (not important: a server that does not know it ignores it), unless
/// the caller set `name`.
fn unless_set(settings: &mut Vec<chwire_proto::packet::client::Setting>, name: &str, value: &str) {
    if !settings.iter().any(|s| s.name == name) {
        settings.push(chwire_proto::packet::client::Setting { name: name.into(), value: value.into(), important: false });
    }
}

/// The server version from which ClickHouse has `send_profile_events` (25.11).
const SEND_PROFILE_EVENTS_SINCE: (u64, u64) = (25, 11);

/// `send_profile_events = 0` for a server that has the setting, unless the caller set it: the
/// server then leaves out the ProfileEvents packets it sends during and after every query and
/// after every insert block, which chwire reads past and only [`QueryStream::next_event`]
/// hands on (set `send_profile_events = 1` to get them there). Not important: a server that
/// does not know it ignores it.
fn profile_events_off(server: (u64, u64), settings: &mut Vec<chwire_proto::packet::client::Setting>) {
    if server >= SEND_PROFILE_EVENTS_SINCE {
        unless_set(settings, "send_profile_events", "0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_events_are_off_where_the_server_has_the_setting() {
        use chwire_proto::packet::client::Setting;
        let mut s = Vec::new();
        profile_events_off((25, 10), &mut s);
        assert!(s.is_empty());
        profile_events_off((26, 9), &mut s);
        assert_eq!((s[0].name.as_str(), s[0].value.as_str()), ("send_profile_events", "0"));
        let mut asked = vec![Setting { name: "send_profile_events".into(), value: "1".into(), important: true }];
        profile_events_off((26, 9), &mut asked);
        assert_eq!(asked.len(), 1);
    }

    #[test]
    fn query_ids_look_like_uuids() {
        let a = new_query_id();
        let b = new_query_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36, "{a}");
        assert_eq!(a.matches('-').count(), 4);
    }
}
