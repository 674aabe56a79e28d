//! The connection of a [`crate::Client`], over either transport: the native protocol
//! ([`Conn`]) or HTTP ([`HttpConn`]); connecting to one of several servers; and what differs
//! between the two transports when a query is sent, pinged, abandoned or settled, so that the
//! client's state machine (client.rs) is one for both.

use crate::conn::{Conn, Shared};
use crate::error::{Error, ErrorKind, Result};
use crate::http::{HttpConn, QueryRequest};
use crate::options::{Options, Transport};
use chwire_proto::packet::client::Setting;
use chwire_proto::packet::client::{encode_cancel, encode_ping, ClientInfo, Query as QueryPacket};
use chwire_proto::{Block, Revision, ServerHello, ServerPacket};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

// One per client, moved only when (re)connecting: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Link {
    Native(Conn),
    Http(Box<HttpConn>),
}

impl Link {
    /// Connect to one of the servers (in the order of the load-balancing strategy, servers
    /// in back-off last).
    pub(crate) async fn connect(opts: &Options, shared: &std::sync::Arc<Shared>) -> Result<Link> {
        let order = shared.hosts.order();
        let mut failures = Vec::new();
        for i in order {
            let res = match opts.transport {
                Transport::Native => Conn::connect_to(opts, shared, i).await.map(Link::Native),
                Transport::Http => HttpConn::connect(opts, shared, i).await.map(|h| Link::Http(Box::new(h))),
            };
            match res {
                Ok(c) => {
                    shared.hosts.mark_up(i);
                    return Ok(c);
                }
                Err(e) if e.is_failover() && shared.hosts.len() > 1 => {
                    shared.hosts.mark_down(i, &e);
                    failures.push(format!("{}: {e}", shared.hosts.endpoint(i)));
                    if failures.len() == shared.hosts.len() {
                        let kind = match e.kind() {
                            ErrorKind::Io(io) => io.kind(),
                            _ => std::io::ErrorKind::Other,
                        };
                        return Err(Error::new(ErrorKind::Io(std::io::Error::new(
                            kind,
                            format!("no server could be reached: {}", failures.join("; ")),
                        ))));
                    }
                }
                Err(e) => {
                    if e.is_failover() {
                        shared.hosts.mark_down(i, &e);
                    }
                    return Err(e);
                }
            }
        }
        unreachable!("the host list is never empty")
    }

    /// Which server of the list this connection goes to.
    pub(crate) fn endpoint(&self) -> usize {
        match self {
            Link::Native(c) => c.endpoint,
            Link::Http(h) => h.endpoint,
        }
    }

    pub(crate) fn is_tls(&self) -> bool {
        match self {
            Link::Native(c) => c.is_tls(),
            Link::Http(h) => h.is_tls(),
        }
    }

    /// What the server said about itself (over HTTP: what `version()` and `timezone()` said).
    pub(crate) fn hello(&self) -> &ServerHello {
        match self {
            Link::Native(c) => &c.hello,
            Link::Http(h) => &h.hello,
        }
    }

    /// The negotiated revision (0 over HTTP: its Native bodies are revision-0 blocks).
    pub(crate) fn revision(&self) -> u64 {
        match self {
            Link::Native(c) => c.rev.0,
            Link::Http(_) => 0,
        }
    }

    /// Whether the progress of a query that has ended is the server's final count (native:
    /// always; HTTP: only when its summary header came after the whole result).
    pub(crate) fn progress_is_final(&self) -> bool {
        match self {
            Link::Native(_) => true,
            Link::Http(h) => h.progress_is_final(),
        }
    }

    /// Receive the next packet of the current query (over HTTP: the next block of the
    /// response body, an exception, or EndOfStream at its end).
    pub(crate) async fn recv(&mut self) -> Result<ServerPacket> {
        match self {
            Link::Native(c) => c.recv().await,
            Link::Http(h) => h.recv().await,
        }
    }

    /// Native: send Cancel without waiting. HTTP cancels by closing the connection: the
    /// response is dropped now (the server stops the query when its next write fails), and
    /// false tells that the connection must not be used again.
    pub(crate) fn try_send_cancel(&mut self) -> bool {
        match self {
            Link::Native(c) => c.try_send_cancel(),
            Link::Http(h) => {
                h.abort();
                false
            }
        }
    }

    /// An insert abandoned mid-way (used from `Drop`): the server must abort it now, not when
    /// the client is next used. Native: the socket is shut down (the server reads its end and
    /// drops the insert; the client reconnects before its next query). HTTP: the request body
    /// is poisoned, so the server refuses it instead of committing a shorter one.
    pub(crate) fn abandon_insert(&mut self) {
        match self {
            Link::Native(c) => c.shutdown_now(),
            Link::Http(h) => h.abandon_insert(),
        }
    }

    /// Send one block of a running insert: natively a Data packet, after what the server sent
    /// since the last one (progress, logs; an exception if it rejected a block); over HTTP a
    /// piece of the request body (the block in the Native format, in ClickHouse's compression
    /// frames when compression is on: the request says `decompress=1`). A failure carries
    /// what the connection is left in (`None`: as the error's kind says).
    pub(crate) async fn send_insert_block(
        &mut self,
        block: &Block,
        compression: chwire_proto::compress::Compression,
        progress: &mut chwire_proto::Progress,
    ) -> std::result::Result<(), (Error, Option<Pending>)> {
        match self {
            Link::Http(h) => {
                if h.answered_early() {
                    // The server stopped reading: it rejected the insert. Its answer is the error.
                    let e = match h.end_insert().await {
                        Err(e) => e,
                        Ok(()) => Error::protocol("the server ended the insert before its end"),
                    };
                    return Err((e, Some(Pending::Broken)));
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
                h.send_body(bytes.into()).await.map_err(|e| (e, Some(Pending::Broken)))
            }
            Link::Native(conn) => {
                take_arrived_packets(conn, progress)?;
                conn.queue_data(block, compression);
                conn.flush().await.map_err(|e| (e, None))
            }
        }
    }

    /// End a running insert and wait for the server's confirmation: natively the empty block,
    /// then the packets up to EndOfStream (the profile it sent, progress accumulated); over
    /// HTTP the end of the request body and its answer. A failure carries what the connection
    /// is left in: natively, after a server exception, blocks it did not read may still be in
    /// flight (resynchronise); over HTTP it may still be busy with the rejected body (a new
    /// connection is opened).
    pub(crate) async fn end_insert(
        &mut self,
        compression: chwire_proto::compress::Compression,
        progress: &mut chwire_proto::Progress,
    ) -> std::result::Result<Option<chwire_proto::ProfileInfo>, (Error, Pending)> {
        match self {
            Link::Http(h) => h.end_insert().await.map(|()| None).map_err(|e| (e, Pending::Broken)),
            Link::Native(conn) => {
                let res = async {
                    conn.queue_data(&Block::new(), compression);
                    conn.flush().await?;
                    let mut profile = None;
                    loop {
                        match informational(conn.recv().await?, progress) {
                            None | Some(ServerPacket::Data(_)) => {}
                            Some(ServerPacket::EndOfStream) => return Ok(profile),
                            Some(ServerPacket::Exception(e)) => return Err(Error::from(e)),
                            Some(ServerPacket::ProfileInfo(p)) => profile = Some(p),
                            Some(other) => {
                                return Err(Error::protocol(format!("unexpected {} packet at the end of an insert", other.name())))
                            }
                        }
                    }
                }
                .await;
                res.map_err(|e| {
                    let pending = if e.breaks_connection() { Pending::Broken } else { Pending::Resync };
                    (e, pending)
                })
            }
        }
    }

    /// The revision the query packet is encoded at (0 over HTTP) and whether the server reads
    /// server-side parameters (native from revision 54459, HTTP from ClickHouse 19.15).
    pub(crate) fn parameters_support(&self) -> (Revision, bool) {
        match self {
            Link::Native(c) => (c.rev, c.rev.has(chwire_proto::revision::PARAMETERS)),
            Link::Http(h) => (Revision(0), h.version() >= HTTP_PARAMETERS_VERSION),
        }
    }

    /// Send a query: natively the Query packet and the empty block that ends its external
    /// tables, over HTTP the request (a query's own known `FORMAT name` taken off: chwire
    /// decodes Native either way). `Err((e, true))`: nothing was sent (a setting an old
    /// server's binary form cannot hold), the connection is as it was.
    pub(crate) async fn send_query(&mut self, q: QueryStart<'_>) -> std::result::Result<(), (Error, bool)> {
        match self {
            Link::Http(h) => {
                let mut req = QueryRequest::new(q.opts, q.query_id);
                for s in q.settings {
                    req.setting(&s.name, &s.value);
                }
                for (k, v) in q.parameters {
                    req.param(k, v);
                }
                h.start_query(q.opts, req, &chwire_proto::sql::without_format_clause(q.sql)).await.map_err(|e| (e, false))
            }
            Link::Native(conn) => {
                let opts = q.opts;
                let info = ClientInfo {
                    initial_user: String::new(),
                    initial_query_id: String::new(),
                    initial_address: "0.0.0.0:0".into(),
                    initial_query_start_time_us: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(0),
                    os_user: std::env::var("USER").unwrap_or_default(),
                    client_hostname: hostname(),
                    client_name: opts.client_name.clone(),
                    version_major: crate::VERSION_MAJOR,
                    version_minor: crate::VERSION_MINOR,
                    version_patch: crate::VERSION_PATCH,
                    client_revision: opts.client_revision,
                    quota_key: opts.quota_key.clone(),
                    client_agent: crate::CLIENT_AGENT.to_string(),
                };
                let compression = opts.compression;
                let rev = conn.rev;
                let packet = QueryPacket {
                    query_id: q.query_id,
                    client_info: &info,
                    settings: q.settings,
                    compression: compression.is_enabled(),
                    query: q.sql,
                    parameters: q.parameters,
                };
                packet.encode(rev, &mut conn.wbuf).map_err(|e| (e.into(), true))?;
                // No external tables: the empty block ends them (INSERTs too).
                conn.queue_data(&Block::new(), compression);
                conn.set_compression(compression.is_enabled());
                conn.flush().await.map_err(|e| (e, false))
            }
        }
    }

    /// Ping the server and wait for its answer.
    pub(crate) async fn ping(&mut self, opts: &Options) -> Result<()> {
        let conn = match self {
            Link::Native(c) => c,
            Link::Http(h) => return h.ping(opts).await,
        };
        encode_ping(&mut conn.wbuf);
        conn.flush().await?;
        loop {
            match conn.recv().await? {
                ServerPacket::Pong => return Ok(()),
                // ClickHouse's client also tolerates a stray Progress here.
                ServerPacket::Progress(_) => {}
                other => return Err(Error::protocol(format!("expected Pong, got {}", other.name()))),
            }
        }
    }

    /// A query's answer that did not come in time or could not be read: the query may still
    /// run. Native: Cancel it (the connection is discarded all the same). HTTP: nothing to
    /// send (the discarded connection closes the response).
    pub(crate) fn cancel_unanswered(&mut self, e: &Error) {
        if let Link::Native(conn) = self {
            if e.is_timeout() || matches!(e.kind(), ErrorKind::Decode(_) | ErrorKind::Protocol(_)) {
                conn.try_send_cancel();
            }
        }
    }

    /// HTTP: close the current response (the query is then killed by its id, see
    /// [`kill_http_query`]) and say which server runs it. Native: nothing (`None`): the query
    /// is cancelled in band.
    pub(crate) fn abort_http(&mut self) -> Option<usize> {
        match self {
            Link::Http(h) => {
                h.abort();
                Some(h.endpoint)
            }
            Link::Native(_) => None,
        }
    }

    /// Whether this is an HTTP connection.
    pub(crate) fn is_http(&self) -> bool {
        matches!(self, Link::Http(_))
    }

    /// A client's connection, or `Closed` when it has none.
    pub(crate) fn open(conn: &mut Option<Link>) -> Result<&mut Link> {
        conn.as_mut().ok_or_else(|| Error::new(ErrorKind::Closed))
    }

    /// The HTTP connection, for what only HTTP has (starting an insert as a request whose body
    /// follows: client/http_insert.rs); `Closed` over the native protocol.
    pub(crate) fn http(&mut self) -> Result<&mut HttpConn> {
        match self {
            Link::Http(h) => Ok(h),
            Link::Native(_) => Err(Error::new(ErrorKind::Closed)),
        }
    }

    /// Deal with what is `pending` before the next query; what is pending after it (`Idle`,
    /// or `Broken`: the caller connects anew). HTTP: an abandoned response is cancelled by
    /// closing its connection (the server stops the query), exceptions leave nothing to
    /// resynchronise, and a connection idle beyond the server's keep-alive timeout, or closed
    /// by the server, is replaced. Native: an abandoned query is drained (Cancel first), a
    /// connection out of step is resynchronised with a Ping, each within [`DRAIN_TIMEOUT`].
    /// The caller marks the connection broken while this runs: dropped half-way, it is in an
    /// unknown state.
    pub(crate) async fn settle(&mut self, pending: Pending) -> Pending {
        let conn = match self {
            Link::Http(h) => {
                return match pending {
                    Pending::Drain { .. } | Pending::Broken => Pending::Broken,
                    Pending::Idle | Pending::Resync if h.ready_for_request().await => Pending::Idle,
                    Pending::Idle | Pending::Resync => Pending::Broken,
                }
            }
            Link::Native(conn) => conn,
        };
        let (res, what) = match pending {
            Pending::Idle | Pending::Broken => return pending,
            Pending::Drain { cancel_sent } => (
                tokio::time::timeout(DRAIN_TIMEOUT, drain(conn, cancel_sent)).await.map_err(|_| Error::timed_out(crate::Timeout::Drain)),
                "discarding the connection of an abandoned query",
            ),
            Pending::Resync => (
                tokio::time::timeout(DRAIN_TIMEOUT, resync(conn)).await.map_err(|_| Error::timed_out(crate::Timeout::Resync)),
                "discarding a connection that could not be resynchronised",
            ),
        };
        match res.and_then(|r| r) {
            Ok(()) => Pending::Idle,
            Err(e) => {
                tracing::debug!(error = %e, "{what}");
                Pending::Broken
            }
        }
    }
}

/// What [`Link::send_query`] sends.
pub(crate) struct QueryStart<'a> {
    pub opts: &'a Options,
    pub query_id: &'a str,
    pub settings: &'a [Setting],
    pub parameters: &'a [(String, String)],
    pub sql: &'a str,
}

/// The host name sent in every query's ClientInfo: looked up once per process (reading
/// /etc/hostname took four system calls per query).
fn hostname() -> String {
    static HOSTNAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOSTNAME
        .get_or_init(|| {
            std::env::var("HOSTNAME")
                .ok()
                .or_else(|| std::fs::read_to_string("/etc/hostname").ok().map(|s| s.trim().to_string()))
                .unwrap_or_default()
        })
        .clone()
}

/// What the connection still holds of earlier queries, dealt with before the next one
/// ([`Link::settle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pending {
    /// The connection is idle.
    Idle,
    /// A query was abandoned; Cancel was (or still must be) sent and its packets must be
    /// drained before the next query.
    Drain { cancel_sent: bool },
    /// The server raised an exception before it read the empty block that follows every
    /// Query packet. Servers before the fix to skip such data (e.g. 18.16) then take that
    /// block for the next packet and answer it with an exception ("Unexpected packet Data
    /// received from client"). A Ping, answered with Pong after any such exception, puts
    /// both sides back in step before the next query.
    Resync,
    /// The connection must be discarded.
    Broken,
}

/// The first server version taken to read server-side parameters over HTTP (`param_x`;
/// 18.16 refuses them): older ones get typed SQL literals, like native revisions before 54459.
const HTTP_PARAMETERS_VERSION: (u64, u64, u64) = (19, 15, 0);

/// How long to wait for an abandoned query to end before discarding the connection.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest an HTTP query's kill may take, connecting included (see [`kill_http_query`]).
const KILL_TIMEOUT: Duration = Duration::from_secs(5);

/// How long to wait before asking a second time to kill an HTTP query that the first ask did
/// not find: its request may still have been on its way to the server.
const KILL_AGAIN_AFTER: Duration = Duration::from_millis(250);

/// A new query id: a random version-4 UUID (every query chwire sends carries one, so that an
/// HTTP query can be killed by it).
pub(crate) fn new_query_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let s = std::collections::hash_map::RandomState::new();
    let mut words = [0u64; 2];
    for (i, w) in words.iter_mut().enumerate() {
        let mut h = s.build_hasher();
        h.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
        h.write_usize(i);
        *w = h.finish();
    }
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-4{:01x}{:02x}-{:01x}{:01x}{:02x}-{}",
        b[0],
        b[1],
        b[2],
        b[3],
        b[4],
        b[5],
        b[6] & 0x0f,
        b[7],
        8 | (b[8] & 0x3),
        b[8] >> 4,
        b[9],
        b[10..16].iter().map(|x| format!("{x:02x}")).collect::<String>()
    )
}

/// Stop an HTTP query the client gave up on (cancelled, timed out, its stream dropped):
/// `KILL QUERY WHERE query_id = … ASYNC` on a new connection to the server that runs it,
/// outside any session (the query still holds it). HTTP has no Cancel: closing the response
/// stops a query only when the server next writes to it, and 18.16 writes its answer per
/// 1 MiB, so a query that returns little (or nothing until its end) would run on; 18.16 has
/// no `cancel_http_readonly_queries_on_client_close` either (later servers have it, off by
/// default). When the first KILL finds nothing, it is asked once more a moment later: the
/// query's request may not have reached the server yet. At most [`KILL_TIMEOUT`]; a failure
/// (the server unreachable, no right to kill) is only logged: the query was abandoned either
/// way. Every query chwire sends over HTTP carries a query id, so that it can be killed.
pub(crate) async fn kill_http_query(opts: &Options, shared: &Arc<Shared>, endpoint: usize, id: &str) -> bool {
    let mut opts = opts.clone();
    opts.session_id = None;
    let sql = format!("KILL QUERY WHERE query_id = {} ASYNC", crate::params::QueryParam::sql_literal(id));
    let attempt = async {
        let mut conn = crate::http::HttpConn::connect(&opts, shared, endpoint).await?;
        for round in 0..2 {
            if round > 0 {
                tokio::time::sleep(KILL_AGAIN_AFTER).await;
                if !conn.ready_for_request().await {
                    conn = crate::http::HttpConn::connect(&opts, shared, endpoint).await?;
                }
            }
            conn.start_query(&opts, crate::http::QueryRequest::new(&opts, &new_query_id()), &sql).await?;
            let mut found = 0;
            loop {
                match conn.recv().await? {
                    ServerPacket::Data(b) => found += b.rows(),
                    ServerPacket::EndOfStream => break,
                    ServerPacket::Exception(e) => return Err(Error::from(e)),
                    _ => {}
                }
            }
            if found > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    };
    match tokio::time::timeout(KILL_TIMEOUT, attempt).await {
        Ok(Ok(true)) => {
            tracing::debug!(query_id = id, "killed the abandoned HTTP query");
            true
        }
        Ok(Ok(false)) => {
            tracing::debug!(query_id = id, "the abandoned HTTP query was no longer running");
            false
        }
        Ok(Err(e)) => {
            tracing::debug!(query_id = id, error = %e, "could not kill the abandoned HTTP query");
            false
        }
        Err(_) => {
            tracing::debug!(query_id = id, "no answer to KILL QUERY in time");
            false
        }
    }
}

/// Read and discard packets of an abandoned query until it ends.
async fn drain(conn: &mut Conn, cancel_sent: bool) -> Result<()> {
    if !cancel_sent {
        encode_cancel(&mut conn.wbuf);
    }
    // Also pushes out a Cancel that `Drop` handed to TLS but the socket did not take yet.
    conn.flush().await?;
    loop {
        match conn.recv().await? {
            ServerPacket::EndOfStream | ServerPacket::Exception(_) => return Ok(()),
            _ => {}
        }
    }
}

/// Ping and read up to the Pong, accepting the exceptions an unread block provokes.
async fn resync(conn: &mut Conn) -> Result<()> {
    encode_ping(&mut conn.wbuf);
    conn.flush().await?;
    loop {
        match conn.recv().await? {
            ServerPacket::Pong => return Ok(()),
            ServerPacket::Exception(e) => tracing::debug!(error = %e, "exception while resynchronising"),
            ServerPacket::Progress(_) | ServerPacket::Log(_) | ServerPacket::ProfileEvents(_) => {}
            other => return Err(Error::protocol(format!("unexpected {} packet while resynchronising", other.name()))),
        }
    }
}

/// What the server sent during an insert since the last block (ProfileEvents, Progress, Log;
/// an exception if it rejected a block), taken without waiting.
fn take_arrived_packets(conn: &mut Conn, progress: &mut chwire_proto::Progress) -> std::result::Result<(), (Error, Option<Pending>)> {
    loop {
        let packet = match conn.try_recv() {
            Ok(Some(p)) => p,
            Ok(None) => return Ok(()),
            Err(e) => return Err((e, None)),
        };
        match informational(packet, progress) {
            None => {}
            // The server stopped reading blocks: resynchronise before the next query.
            Some(ServerPacket::Exception(e)) => return Err((e.into(), Some(Pending::Resync))),
            Some(other) => {
                return Err((Error::protocol(format!("unexpected {} packet during an insert", other.name())), Some(Pending::Broken)))
            }
        }
    }
}

/// A packet that only informs while an insert runs (Progress, taken into `progress`; Log, to
/// `tracing`; ProfileEvents, TableColumns, a time zone update), handled; any other given back.
pub(crate) fn informational(packet: ServerPacket, progress: &mut chwire_proto::Progress) -> Option<ServerPacket> {
    match packet {
        ServerPacket::Progress(p) => progress.accumulate(&p),
        ServerPacket::Log(b) => log_lines(&b),
        ServerPacket::ProfileEvents(_) | ServerPacket::TableColumns { .. } | ServerPacket::TimezoneUpdate(_) => {}
        other => return Some(other),
    }
    None
}

/// A server's Log block as `tracing` events (target `chwire::server`), each line at its
/// priority's level.
pub(crate) fn log_lines(b: &Block) {
    let text = b.column("text");
    let prio = b.column("priority").and_then(|c| c.as_i8());
    for i in 0..b.rows() {
        let t = text.map(|c| c.value(i));
        let line = match t {
            Some(chwire_proto::Value::String(s)) => String::from_utf8_lossy(s).into_owned(),
            _ => continue,
        };
        match prio.map(|p| p[i]).unwrap_or(6) {
            1..=3 => tracing::error!(target: "chwire::server", "{line}"),
            4 => tracing::warn!(target: "chwire::server", "{line}"),
            5 | 6 => tracing::info!(target: "chwire::server", "{line}"),
            7 => tracing::debug!(target: "chwire::server", "{line}"),
            _ => tracing::trace!(target: "chwire::server", "{line}"),
        }
    }
}
