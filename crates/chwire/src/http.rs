//! The HTTP transport: one HTTP/1.1 keep-alive connection (hyper) to ClickHouse's HTTP
//! interface, whose `FORMAT Native` responses are decoded by the same streaming block decoder
//! as native Data packets and handed to the client as [`ServerPacket`]s.
//!
//! Facts of the server this is built on are in docs/HTTP.md: a response is a bare Native
//! stream (no BlockInfo); an error before the first byte is a non-200 status with the
//! exception as text; an error after it is appended as text at a block boundary of a 200 body;
//! inserts are a POSTed Native body; GET is read-only; 18.16 closes idle connections after
//! `Keep-Alive: timeout=3`.

mod answer;
mod body;
mod encoding;
mod header;
mod request;
mod zones;

use crate::conn::{open_stream, Shared};
use crate::error::{Error, Result};
use crate::options::Options;
use answer::{contains_tagged_exception, error_answer, hyper_error, parse_exception, parse_progress, read_to_end, MAX_ERROR_BODY};
use body::{BodyMsg, ReqBody};
use bytes::{Bytes, BytesMut};
use chwire_proto::native::{http_exception, http_tagged_exception, TaggedException};
use chwire_proto::{PacketDecoder, Progress, ServerHello, ServerPacket};
use hyper::body::{Body as _, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::Response;
pub(crate) use request::QueryRequest;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How much of the body is taken in before decoding is tried again (when that much is there).
const READ_BATCH: usize = 1 << 20;

/// The most one step decodes from an encoded body: a received piece that expands far (ZSTD's
/// RLE blocks 32,000 times, gzip's 1,000, LZ4's 255) is decoded over several reads, so the
/// receive buffer grows by a bounded amount before the decoder takes its blocks.
const DECODE_STEP: usize = 8 << 20;

/// The longest a block that may be complete waits for more bytes before it is decoded.
const RETRY_AFTER: Duration = Duration::from_millis(20);

/// How long a kept-alive connection may take to be ready for the next request (hyper's
/// connection task finishes the previous exchange; this is microseconds unless it failed).
const READY_WAIT: Duration = Duration::from_secs(5);

/// The first server version whose HTTP interface takes `client_protocol_version`
/// (ClickHouse PR 46360, 23.3): `FORMAT Native` is then written for a client of that revision,
/// BlockInfo first and DateTime types with their zones, instead of for a client of revision 0.
const PROTOCOL_VERSION_PARAMETER_SINCE: (u64, u64, u64) = (23, 3, 0);

/// The revision asked for with `client_protocol_version`: the last one below every server that
/// takes the parameter whose gates change `FORMAT Native` (54454: custom serializations, i.e.
/// sparse columns; 54337: zones in DateTime types; 54405: LowCardinality kept), so that what
/// the server writes is what the decoder reads at it, whatever newer gates the server has.
const HTTP_NATIVE_REVISION: u64 = 54454;

/// ClickHouse's SESSION_IS_LOCKED: a session's request while another one runs.
const SESSION_IS_LOCKED: i32 = 373;

type ResponseFuture = Pin<Box<dyn Future<Output = hyper::Result<Response<Incoming>>> + Send>>;

enum State {
    /// No request in flight.
    Idle,
    /// A request is sent (or being sent); the response head has not arrived.
    Waiting(ResponseFuture),
    /// The response head has arrived and is not handled yet.
    Head(Response<Incoming>),
    /// The response body of a query is being read.
    Body(Incoming),
}

pub(crate) struct HttpConn {
    sender: SendRequest<ReqBody>,
    /// `host:port` for the Host header.
    authority: String,
    tls: bool,
    pub(crate) endpoint: usize,
    /// Name, version and timezone of the server (from `SELECT version(), timezone()`).
    pub(crate) hello: ServerHello,
    state: State,
    rbuf: BytesMut,
    decoder: PacketDecoder,
    /// The body of the current response has ended.
    eof: bool,
    /// The current response's content encoding (`enable_http_compression`): its decoder.
    encoding: Option<encoding::BodyDecoder>,
    /// Encoded body bytes received and not yet decoded (each read decodes at most
    /// [`DECODE_STEP`] bytes' worth).
    undecoded: Bytes,
    /// The current response's `X-ClickHouse-Exception-Tag` (24.11 and later): the marker of
    /// an exception written into its body (`http_tagged_exception`).
    exception_tag: Option<Vec<u8>>,
    /// The running insert's body (blocks go out through it).
    insert_tx: Option<mpsc::Sender<BodyMsg>>,
    /// A Progress packet to hand out before the body (from the response's headers).
    head_progress: Option<Progress>,
    /// The response's `X-ClickHouse-Timezone` (the session's zone), handed out as a
    /// TimezoneUpdate before the body, as the native protocol sends it.
    head_timezone: Option<String>,
    /// The response's `X-ClickHouse-Summary`, and the rows its body has given so far. The
    /// summary is written when the headers go out, with the result's first block: it is the
    /// query's whole progress when the body is empty (the headers went out at the end) or
    /// when it says that everything the query was to read was read; of a longer result it is
    /// the progress up to its first block.
    summary: Option<Progress>,
    body_rows: u64,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// The server's `Keep-Alive: timeout=N`: an idle connection older than that is closed
    /// by the server, so the next request opens a new one.
    keep_alive: Option<Duration>,
    last_used: Instant,
    /// Why the running request failed while nobody waited for it (see `answered_early`).
    failure: Option<Error>,
    /// Decoding is tried again once the receive buffer holds this much (see `next_from_body`).
    retry_at: usize,
    /// The running query's SQL and its DateTime timezones (see zones.rs).
    zones: zones::ZoneFix,
    /// The running query returns rows and has not given a block yet: an empty result gets
    /// its header from the server (header.rs).
    header_due: bool,
    /// The running query's settings and parameters, for its DESCRIBE.
    query_params: Vec<(String, String)>,
    /// The server's error code when the last DESCRIBE was refused.
    describe_refusal: Option<i32>,
    /// What it takes to open the side connection that asks for them, and that connection
    /// (kept for the next query that needs it).
    opts: Options,
    side: Option<Box<HttpConn>>,
    shared: std::sync::Arc<Shared>,
}

use crate::conn::within as timed;

/// What `SELECT version(), timezone()` answered, per server (`host:port`) and user, for this
/// process: HTTP has no handshake, and asking on every new connection would double the cost of
/// a connect-and-query (workload W6). An entry is forgotten when the server cannot be reached
/// (it may come back upgraded). Credentials are therefore checked by the first query, not by
/// `connect`, as with other HTTP clients.
fn known_servers() -> &'static std::sync::Mutex<std::collections::HashMap<(String, String), ServerHello>> {
    static KNOWN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<(String, String), ServerHello>>> =
        std::sync::OnceLock::new();
    KNOWN.get_or_init(Default::default)
}

impl HttpConn {
    /// Open a connection to server `endpoint` and ask it for its version and timezone (once
    /// per server and user in a process, see [`known_servers`]).
    pub(crate) async fn connect(opts: &Options, shared: &std::sync::Arc<Shared>, endpoint: usize) -> Result<HttpConn> {
        let ep = shared.hosts.endpoint(endpoint);
        let authority = if ep.host.contains(':') { format!("[{}]:{}", ep.host, ep.port) } else { format!("{}:{}", ep.host, ep.port) };
        let key = (authority.clone(), opts.user.clone());
        let handshake = async {
            let stream = match open_stream(opts, shared, endpoint).await {
                Ok(s) => s,
                Err(e) => {
                    known_servers().lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
                    return Err(e);
                }
            };
            let (sender, conn) =
                hyper::client::conn::http1::Builder::new().handshake(hyper_util::rt::TokioIo::new(stream)).await.map_err(hyper_error)?;
            tokio::spawn(async move {
                if let Err(e) = conn.await {
                    tracing::debug!(error = %e, "HTTP connection ended");
                }
            });
            let mut c = HttpConn {
                sender,
                authority,
                tls: shared.tls.is_some(),
                endpoint,
                hello: ServerHello { name: "ClickHouse".into(), ..Default::default() },
                state: State::Idle,
                rbuf: BytesMut::new(),
                decoder: PacketDecoder::native_stream().with_limits(opts.limits),
                eof: true,
                encoding: None,
                undecoded: Bytes::new(),
                exception_tag: None,
                insert_tx: None,
                head_progress: None,
                head_timezone: None,
                summary: None,
                body_rows: 0,
                read_timeout: opts.receive_timeout,
                write_timeout: opts.send_timeout,
                keep_alive: None,
                last_used: Instant::now(),
                failure: None,
                retry_at: 0,
                zones: zones::ZoneFix::default(),
                header_due: false,
                query_params: Vec::new(),
                describe_refusal: None,
                opts: opts.clone(),
                side: None,
                shared: shared.clone(),
            };
            let known = known_servers().lock().unwrap_or_else(|p| p.into_inner()).get(&key).cloned();
            match known {
                Some(hello) => c.hello = hello,
                None => {
                    c.hello_query(opts).await?;
                    known_servers().lock().unwrap_or_else(|p| p.into_inner()).insert(key.clone(), c.hello.clone());
                }
            }
            Ok(c)
        };
        crate::conn::within(opts.handshake_timeout, crate::Timeout::Handshake, handshake).await?
    }

    /// `SELECT version(), timezone()`: what the native handshake tells (parameters need
    /// the version; the Arrow layer the timezone).
    async fn hello_query(&mut self, opts: &Options) -> Result<()> {
        let req = QueryRequest::new(opts, "");
        self.send(req.build(&self.authority, opts, Bytes::from_static(b"SELECT version(), timezone()"))).await?;
        let mut version = None;
        let mut tz = None;
        loop {
            match self.recv().await? {
                ServerPacket::Data(b) => {
                    let text = |i: usize| match b.column_at(i).map(|c| c.value(0)) {
                        Some(chwire_proto::Value::String(s)) => Some(String::from_utf8_lossy(s).into_owned()),
                        _ => None,
                    };
                    if b.rows() > 0 {
                        version = text(0);
                        tz = text(1);
                    }
                }
                ServerPacket::Exception(e) => return Err(e.into()),
                ServerPacket::EndOfStream => break,
                _ => {}
            }
        }
        let version = version.ok_or_else(|| Error::protocol("the server did not answer SELECT version()"))?;
        let mut parts = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
        self.hello.version_major = parts.next().unwrap_or(0);
        self.hello.version_minor = parts.next().unwrap_or(0);
        self.hello.version_patch = parts.next().unwrap_or(0);
        self.hello.timezone = tz.filter(|t| !t.is_empty());
        tracing::debug!(server = %version, tls = self.tls, "connected over HTTP");
        Ok(())
    }

    pub(crate) fn is_tls(&self) -> bool {
        self.tls
    }

    /// The server's version as (major, minor, patch).
    pub(crate) fn version(&self) -> (u64, u64, u64) {
        (self.hello.version_major, self.hello.version_minor, self.hello.version_patch)
    }

    /// Whether the progress of the response read to its end is the query's whole progress
    /// (see `summary`).
    pub(crate) fn progress_is_final(&self) -> bool {
        self.summary.is_some_and(|p| self.body_rows == 0 || (p.total_rows_to_read > 0 && p.read_rows >= p.total_rows_to_read))
    }

    /// Whether the connection can take a new request: open, nothing in flight, and not idle
    /// for longer than the server keeps idle connections.
    pub(crate) fn is_reusable(&self) -> bool {
        let fresh = self.keep_alive.is_none_or(|ka| self.last_used.elapsed() + Duration::from_millis(500) < ka);
        matches!(self.state, State::Idle) && self.insert_tx.is_none() && !self.sender.is_closed() && fresh
    }

    /// Whether a new request can go out now: [`HttpConn::is_reusable`], and hyper's side of
    /// the connection has finished the previous exchange (right after a response is read, its
    /// task may not have yet; a connection the server closed fails here, before anything is sent).
    pub(crate) async fn ready_for_request(&mut self) -> bool {
        if !self.is_reusable() {
            return false;
        }
        matches!(tokio::time::timeout(READY_WAIT, self.sender.ready()).await, Ok(Ok(())))
    }

    /// Send a request; its response is read by [`HttpConn::recv`] (or the insert's end).
    async fn send(&mut self, req: hyper::Request<ReqBody>) -> Result<()> {
        if !matches!(self.state, State::Idle) {
            return Err(Error::protocol("an HTTP request is already running on this connection"));
        }
        timed(Some(self.write_timeout.unwrap_or(READY_WAIT)), crate::Timeout::Send, self.sender.ready()).await?.map_err(hyper_error)?;
        self.rbuf.clear();
        self.decoder.reset();
        self.decoder.set_revision(chwire_proto::Revision(0));
        self.eof = false;
        self.encoding = None;
        self.undecoded = Bytes::new();
        self.exception_tag = None;
        self.retry_at = 0;
        self.head_progress = None;
        self.head_timezone = None;
        self.summary = None;
        self.body_rows = 0;
        self.failure = None;
        self.state = State::Waiting(Box::pin(self.sender.send_request(req)));
        Ok(())
    }

    /// Start a query: its results arrive through [`HttpConn::recv`].
    pub(crate) async fn start_query(&mut self, opts: &Options, mut req: QueryRequest, sql: &str) -> Result<()> {
        // A server that writes the zones of DateTime types needs no DESCRIBE for them (which
        // could not see a session's temporary tables nor the query's parameters and settings).
        self.query_params = req.query_params();
        let with_zones = self.version() >= PROTOCOL_VERSION_PARAMETER_SINCE;
        if with_zones {
            req.setting("client_protocol_version", &HTTP_NATIVE_REVISION.to_string());
        }
        let r = req.build(&self.authority, opts, Bytes::copy_from_slice(sql.as_bytes()));
        self.send(r).await?;
        if with_zones {
            self.decoder.set_revision(chwire_proto::Revision(HTTP_NATIVE_REVISION));
        }
        self.zones = if with_zones { zones::ZoneFix::with_zones(sql) } else { zones::ZoneFix::for_query(sql) };
        self.header_due = header::returns_rows(sql);
        Ok(())
    }

    /// Start an insert whose Native body is sent block by block with [`HttpConn::send_body`].
    pub(crate) async fn start_insert(&mut self, opts: &Options, req: QueryRequest) -> Result<()> {
        let (tx, body) = ReqBody::channel();
        let r = req.build_streaming(&self.authority, opts, body);
        self.send(r).await?;
        self.insert_tx = Some(tx);
        Ok(())
    }

    /// Hand one encoded part of the insert body to the connection (waits while the body's
    /// buffer is full). If the server has already answered (it rejected the insert), that
    /// answer is the error.
    pub(crate) async fn send_body(&mut self, bytes: Bytes) -> Result<()> {
        let tx = self.insert_tx.as_ref().ok_or_else(|| Error::protocol("no HTTP insert is running"))?;
        let sent = timed(self.write_timeout, crate::Timeout::Send, tx.send(BodyMsg::Data(bytes))).await?;
        if sent.is_err() {
            // hyper dropped the body: the server answered early or the connection failed.
            self.insert_tx = None;
            return Err(self.finish_insert().await.err().unwrap_or_else(|| Error::protocol("the server ended the insert before its end")));
        }
        self.last_used = Instant::now();
        Ok(())
    }

    /// Whether the server has already answered the running insert (it stopped reading the
    /// body: it rejected it), without waiting. The answer is then read by [`HttpConn::end_insert`].
    pub(crate) fn answered_early(&mut self) -> bool {
        let State::Waiting(fut) = &mut self.state else { return !matches!(self.state, State::Idle) };
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match fut.as_mut().poll(&mut cx) {
            Poll::Pending => false,
            Poll::Ready(Ok(resp)) => {
                self.state = State::Head(resp);
                self.insert_tx = None;
                true
            }
            Poll::Ready(Err(e)) => {
                self.failure = Some(hyper_error(e));
                self.state = State::Idle;
                self.insert_tx = None;
                true
            }
        }
    }

    /// End the insert body and wait for the server's answer.
    pub(crate) async fn end_insert(&mut self) -> Result<()> {
        if let Some(tx) = self.insert_tx.take() {
            if timed(self.write_timeout, crate::Timeout::Send, tx.send(BodyMsg::End)).await?.is_err() {
                tracing::debug!("the insert body was dropped before its end");
            }
        }
        self.finish_insert().await
    }

    /// Read the insert's response to its end: Ok for 200, the server's exception otherwise.
    async fn finish_insert(&mut self) -> Result<()> {
        loop {
            match self.recv().await? {
                ServerPacket::EndOfStream => return Ok(()),
                ServerPacket::Exception(e) => return Err(e.into()),
                _ => {}
            }
        }
    }

    /// Abandon the running request: dropping an unfinished response makes hyper close the
    /// connection (an abandoned insert body ends with its poison block, see body.rs).
    pub(crate) fn abort(&mut self) {
        self.state = State::Idle;
        self.insert_tx = None;
    }

    /// Abandon the running insert (its `Insert` was dropped without `end`): its body ends with
    /// the poison block (body.rs), and the connection stays open, in a task of its own, until
    /// the server has read it and refused the insert — closed earlier, 18.16 would commit the
    /// rows it received.
    pub(crate) fn abandon_insert(&mut self) {
        let tx = self.insert_tx.take();
        let State::Waiting(fut) = std::mem::replace(&mut self.state, State::Idle) else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        rt.spawn(async move {
            drop(tx);
            match tokio::time::timeout(Duration::from_secs(30), fut).await {
                Ok(Ok(resp)) => tracing::debug!(status = %resp.status(), "abandoned HTTP insert refused"),
                Ok(Err(e)) => tracing::debug!(error = %e, "abandoned HTTP insert"),
                Err(_) => tracing::debug!("abandoned HTTP insert: no answer"),
            }
        });
    }

    /// GET /ping.
    pub(crate) async fn ping(&mut self, opts: &Options) -> Result<()> {
        let req = QueryRequest::ping(&self.authority, opts);
        self.send(req).await?;
        let State::Waiting(fut) = std::mem::replace(&mut self.state, State::Idle) else { unreachable!() };
        let resp = timed(self.read_timeout, crate::Timeout::Receive, fut).await?.map_err(hyper_error)?;
        let status = resp.status();
        let mut body = resp.into_body();
        let text = read_to_end(&mut body, self.read_timeout).await?;
        self.last_used = Instant::now();
        if status != hyper::StatusCode::OK {
            return Err(error_answer(&text, status.as_u16(), &self.authority)?.into());
        }
        Ok(())
    }

    /// The next packet of the running request: blocks of the body, then EndOfStream; an
    /// exception for an error status or for an exception text at a block boundary.
    pub(crate) async fn recv(&mut self) -> Result<ServerPacket> {
        loop {
            match &mut self.state {
                State::Idle => return Err(self.failure.take().unwrap_or_else(|| Error::protocol("no HTTP request is running"))),
                State::Waiting(fut) => {
                    let resp = timed(self.read_timeout, crate::Timeout::Receive, fut.as_mut()).await?.map_err(|e| {
                        self.state = State::Idle;
                        hyper_error(e)
                    })?;
                    self.state = State::Head(resp);
                }
                State::Head(_) => {
                    let State::Head(resp) = std::mem::replace(&mut self.state, State::Idle) else { unreachable!() };
                    self.read_head(&resp)?;
                    let status = resp.status();
                    let mut body = resp.into_body();
                    if status != hyper::StatusCode::OK {
                        let text = read_to_end(&mut body, self.read_timeout).await;
                        self.insert_tx = None;
                        self.last_used = Instant::now();
                        let mut text = text?;
                        if let Some(d) = self.encoding.take() {
                            text = d.decode_all(&text, MAX_ERROR_BODY)?;
                        }
                        return error_answer(&text, status.as_u16(), &self.authority).map(ServerPacket::Exception);
                    }
                    self.state = State::Body(body);
                    if let Some(p) = self.head_progress.take() {
                        return Ok(ServerPacket::Progress(p));
                    }
                }
                State::Body(_) => {
                    if let Some(tz) = self.head_timezone.take() {
                        return Ok(ServerPacket::TimezoneUpdate(tz));
                    }
                    if let Some(p) = self.next_from_body().await? {
                        return Ok(p);
                    }
                }
            }
        }
    }

    /// Give the block's DateTime columns the timezones the server left out (zones.rs); the
    /// first such block of a query asks the server for them on a side connection.
    async fn with_zones(&mut self, b: chwire_proto::Block) -> chwire_proto::Block {
        if self.zones.is_unresolved() && zones::has_plain_datetime(&b) {
            let sql = self.zones.sql().to_string();
            // The session is busy with this response: described outside it.
            let described = self.describe(&sql, false).await;
            self.zones.resolve(&b, described.map(|columns| columns.into_iter().map(|(_, ty)| ty).collect()));
        }
        self.zones.apply(b)
    }

    /// The header block of a query whose result was empty (header.rs); `None` if it cannot be
    /// described. The query's SQL is still in `zones`: no block came to resolve them.
    /// The response has ended: described in the query's session, which sees its temporary
    /// tables (the server may hold the session for a moment after the response's last bytes:
    /// a refusal for that, SESSION_IS_LOCKED, is asked again).
    async fn missing_header(&mut self) -> Option<chwire_proto::Block> {
        let sql = self.zones.sql().to_string();
        let mut columns = self.describe(&sql, true).await;
        for _ in 0..5 {
            if columns.is_some() || self.opts.session_id.is_none() || self.describe_refusal != Some(SESSION_IS_LOCKED) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            columns = self.describe(&sql, true).await;
        }
        header::header_block(&columns?)
    }

    /// `DESCRIBE TABLE (<sql>)`, with the query's settings and parameters, on another
    /// connection to the same server (this one is busy with the response), in the query's
    /// session or outside it (a session serves one request at a time): the result's column
    /// names and types; `None` if the statement cannot be described (the server's code in
    /// `describe_refusal`).
    async fn describe(&mut self, sql: &str, in_session: bool) -> Option<Vec<(String, String)>> {
        self.describe_refusal = None;
        let mut opts = self.opts.clone();
        if !in_session {
            opts.session_id = None;
        }
        let mut kept = self.side.take();
        if let Some(side) = kept.as_mut() {
            if !side.ready_for_request().await {
                kept = None;
            }
        }
        let mut side = match kept {
            Some(side) => side,
            None => Box::new(Box::pin(HttpConn::connect(&opts, &self.shared, self.endpoint)).await.ok()?),
        };
        let q = format!("DESCRIBE TABLE ({sql})");
        let mut req = QueryRequest::new(&opts, "");
        for (k, v) in &self.query_params {
            req.setting(k, v);
        }
        side.start_query(&opts, req, &q).await.ok()?;
        let mut columns = Vec::new();
        loop {
            match Box::pin(side.recv()).await.ok()? {
                ServerPacket::Data(d) => {
                    let (names, types) = (d.column("name")?, d.column("type")?);
                    for i in 0..d.rows() {
                        match (names.value(i), types.value(i)) {
                            (chwire_proto::Value::String(n), chwire_proto::Value::String(t)) => {
                                columns.push((String::from_utf8_lossy(n).into_owned(), String::from_utf8_lossy(t).into_owned()))
                            }
                            _ => return None,
                        }
                    }
                }
                ServerPacket::EndOfStream => {
                    self.side = Some(side);
                    return Some(columns);
                }
                ServerPacket::Exception(e) => {
                    tracing::debug!(error = %e, "cannot describe the query: its DateTime zones and an empty result's header stay unknown");
                    self.describe_refusal = Some(e.code);
                    self.side = Some(side);
                    return None;
                }
                _ => {}
            }
        }
    }

    fn read_head(&mut self, resp: &Response<Incoming>) -> Result<()> {
        let h = resp.headers();
        self.keep_alive = h
            .get(hyper::header::HeaderName::from_static("keep-alive"))
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').find_map(|p| p.trim().strip_prefix("timeout=")?.parse::<u64>().ok()))
            .map(Duration::from_secs);
        self.exception_tag = h.get("x-clickhouse-exception-tag").map(|v| v.as_bytes().to_vec()).filter(|t| !t.is_empty());
        self.encoding = encoding::BodyDecoder::for_encoding(h.get(hyper::header::CONTENT_ENCODING).map(|v| v.as_bytes()))?;
        if let Some(name) = h.get("x-clickhouse-server-display-name").and_then(|v| v.to_str().ok()) {
            self.hello.display_name = Some(name.to_string());
        }
        self.summary = h.get("x-clickhouse-summary").and_then(|v| v.to_str().ok()).and_then(parse_progress);
        let progress = h.get("x-clickhouse-summary").or_else(|| h.get_all("x-clickhouse-progress").iter().next_back());
        self.head_progress = progress.and_then(|v| v.to_str().ok()).and_then(parse_progress);
        self.head_timezone = h.get("x-clickhouse-timezone").and_then(|v| v.to_str().ok()).map(str::to_string);
        Ok(())
    }

    /// Decode what the body holds, reading more of it when needed. `None`: go on.
    async fn next_from_body(&mut self) -> Result<Option<ServerPacket>> {
        let at_boundary = !self.decoder.is_mid_packet();
        if at_boundary {
            if self.rbuf.is_empty() && self.eof {
                if std::mem::take(&mut self.header_due) {
                    if let Some(header) = self.missing_header().await {
                        return Ok(Some(ServerPacket::Data(header)));
                    }
                }
                self.state = State::Idle;
                self.last_used = Instant::now();
                return Ok(Some(ServerPacket::EndOfStream));
            }
            // An exception text appended after the last block (`Code: `...): wait for
            // enough bytes to tell it from a block, then read it whole.
            if self.rbuf.first() == Some(&b'C') && self.rbuf.len() < 16 && !self.eof {
                self.read_more().await?;
                return Ok(None);
            }
            if let Some(tag) = self.exception_tag.clone() {
                match http_tagged_exception(&self.rbuf, &tag) {
                    TaggedException::No => {}
                    TaggedException::Partial if !self.eof && self.rbuf.len() <= MAX_ERROR_BODY => {
                        self.read_more().await?;
                        return Ok(None);
                    }
                    TaggedException::Partial => {
                        self.rbuf.clear();
                        self.drop_body();
                        return Err(Error::protocol("the server's exception in the response body was cut off"));
                    }
                    TaggedException::Complete(_, text) => {
                        self.rbuf.clear();
                        self.drop_body();
                        return Ok(Some(ServerPacket::Exception(parse_exception(&text, None))));
                    }
                }
            }
            if http_exception(&self.rbuf).is_some() {
                while !self.eof {
                    self.read_more().await?;
                    if self.rbuf.len() > MAX_ERROR_BODY {
                        break;
                    }
                }
                let text = String::from_utf8_lossy(&self.rbuf).into_owned();
                self.rbuf.clear();
                self.drop_body();
                return Ok(Some(ServerPacket::Exception(parse_exception(&text, None))));
            }
        }
        let could = self.rbuf.len() >= self.decoder.needed();
        if could && (self.rbuf.len() >= self.retry_at || self.eof) {
            let Some(p) = self.decoder.decode(&mut self.rbuf)? else {
                // Incomplete: a column whose size is not known up front and that is not filled
                // as it comes (Nullable, Array, LowCardinality, … of strings; top-level Strings
                // are) is decoded from its start again on the next try, so wait for the buffer
                // to double.
                self.retry_at = self.rbuf.len().saturating_mul(2).max(self.rbuf.len() + 64 * 1024);
                return self.read_more_or_wait(false).await.map(|()| None);
            };
            self.retry_at = 0;
            {
                return Ok(Some(match p {
                    ServerPacket::Data(b) => {
                        self.header_due = false;
                        self.body_rows = self.body_rows.saturating_add(b.rows() as u64);
                        ServerPacket::Data(self.with_zones(b).await)
                    }
                    p => p,
                }));
            }
        }
        if self.eof {
            self.drop_body();
            return Err(Error::protocol(format!(
                "the HTTP response ended in the middle of a block ({} bytes of it received)",
                self.rbuf.len()
            )));
        }
        self.read_more_or_wait(could).await?;
        Ok(None)
    }

    /// Read more of the body. `could_decode`: the buffer may already hold the block (only
    /// the doubling rule holds decoding back): then wait for the next bytes at most
    /// [`RETRY_AFTER`], so that a complete block is never held back while the server computes
    /// the next one.
    async fn read_more_or_wait(&mut self, could_decode: bool) -> Result<()> {
        if !could_decode {
            return self.read_more().await;
        }
        match tokio::time::timeout(RETRY_AFTER, self.read_more()).await {
            Ok(r) => r,
            Err(_) => {
                self.retry_at = 0;
                Ok(())
            }
        }
    }

    /// Forget the response body: the connection is reusable only if the body was read to
    /// its end; otherwise the client discards it.
    fn drop_body(&mut self) {
        if self.eof {
            self.state = State::Idle;
            self.last_used = Instant::now();
        }
    }

    /// Append the body's next data to the receive buffer (or note its end): waits for one
    /// frame, then takes the frames already there, up to [`READ_BATCH`] bytes. Decoding is
    /// retried only after that: hyper hands out a few KiB per frame, and a block decoder
    /// retried per frame would rescan a large string column again and again.
    async fn read_more(&mut self) -> Result<()> {
        if !self.undecoded.is_empty() {
            return self.decode_step();
        }
        let start = self.rbuf.len();
        let State::Body(body) = &mut self.state else { return Err(Error::protocol("no HTTP response body")) };
        // A frame that is already there needs no timer.
        let ready = Pin::new(&mut *body).poll_frame(&mut Context::from_waker(std::task::Waker::noop()));
        let frame = match ready {
            Poll::Ready(frame) => frame,
            Poll::Pending => {
                timed(self.read_timeout, crate::Timeout::Receive, std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx))).await?
            }
        };
        let mut more = self.take_frame(frame)?;
        let mut cx = Context::from_waker(std::task::Waker::noop());
        while more && self.rbuf.len() - start < READ_BATCH && self.undecoded.is_empty() {
            let State::Body(body) = &mut self.state else { break };
            match Pin::new(&mut *body).poll_frame(&mut cx) {
                Poll::Ready(frame) => more = self.take_frame(frame)?,
                Poll::Pending => break,
            }
        }
        Ok(())
    }

    /// Take the next part of the body bytes received into the receive buffer: all of them
    /// when the body has no encoding, else at most [`DECODE_STEP`] bytes' worth decoded. The
    /// body's next frame is read only once these are all taken, so its end comes after them.
    fn decode_step(&mut self) -> Result<()> {
        let Some(d) = self.encoding.as_mut() else {
            self.rbuf.extend_from_slice(&std::mem::take(&mut self.undecoded));
            return Ok(());
        };
        let n = d.write_some(&self.undecoded, &mut self.rbuf, DECODE_STEP)?;
        bytes::Buf::advance(&mut self.undecoded, n);
        Ok(())
    }

    /// One frame of the body into the receive buffer (decoded if need be); false at the end.
    fn take_frame(&mut self, frame: Option<std::result::Result<hyper::body::Frame<Bytes>, hyper::Error>>) -> Result<bool> {
        match frame {
            None => {
                self.eof = true;
                if let Some(d) = self.encoding.as_mut() {
                    d.finish(&mut self.rbuf)?;
                }
                Ok(false)
            }
            Some(Ok(f)) => {
                if let Ok(data) = f.into_data() {
                    self.undecoded = data;
                    self.decode_step()?;
                }
                Ok(true)
            }
            Some(Err(e)) => {
                // A server that wrote its exception into the body then breaks the body off
                // (so that no client mistakes the result for a whole one): the exception is
                // the answer, read once the blocks before it are.
                if let Some(d) = self.encoding.as_mut() {
                    d.salvage(&mut self.rbuf);
                }
                if self.exception_tag.as_deref().is_some_and(|tag| contains_tagged_exception(&self.rbuf, tag)) {
                    self.eof = true;
                    return Ok(false);
                }
                Err(hyper_error(e))
            }
        }
    }
}
