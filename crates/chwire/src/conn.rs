//! One connection: the socket (plain TCP or TLS), the receive buffer and the packet decoder;
//! connecting to one of several servers.

use crate::error::{Error, ErrorKind, Result};
use crate::hosts::{Endpoint, Hosts};
use crate::options::Options;
use crate::tls::Stream;
use bytes::BytesMut;
use chwire_proto::chunked::{self, ChunkedMode, Dechunker};
use chwire_proto::packet::client::{encode_addendum, ClientHello};
use chwire_proto::revision::CHUNKED_PACKETS;
use chwire_proto::{PacketDecoder, Revision, ServerHello, ServerPacket};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// How much room to make in the receive buffer before each read.
const READ_CHUNK: usize = 1 << 20;

/// What the connections of one [`crate::Client`] or [`crate::Pool`] share: the servers and
/// their health, and the TLS configuration (files read once).
pub(crate) struct Shared {
    pub(crate) hosts: Hosts,
    pub(crate) tls: Option<TlsConnector>,
}

impl Shared {
    pub(crate) fn new(opts: &Options) -> Result<Arc<Shared>> {
        opts.validate()?;
        let tls = match &opts.tls {
            Some(t) => Some(t.connector()?),
            None => None,
        };
        Ok(Arc::new(Shared { hosts: Hosts::new(opts.endpoints(), opts.load_balancing, opts.host_backoff), tls }))
    }
}

pub(crate) struct Conn {
    stream: Stream,
    rbuf: BytesMut,
    pub(crate) wbuf: Vec<u8>,
    /// How much of `wbuf` is already written (with chunked sending, of the framed message):
    /// kept here, not in `flush`, so that a flush dropped midway and called again never writes
    /// a byte twice.
    wpos: usize,
    /// Chunked framing of what is received (revision >= 54470): the bytes as they come off
    /// the socket, before their chunk headers are taken out into `rbuf`.
    chunked_in: Option<(Dechunker, BytesMut)>,
    /// Chunked framing of what is sent: the headers of the message in `wbuf` being written.
    chunked_out: Option<Vec<(usize, [u8; 4])>>,
    /// Whether sending is chunked.
    send_chunked: bool,
    /// The rest of a framed Cancel that went out in part (written, unframed, before `wbuf`).
    cancel_rest: Vec<u8>,
    pub(crate) scratch: Vec<u8>,
    decoder: PacketDecoder,
    pub(crate) hello: ServerHello,
    pub(crate) rev: Revision,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// Which server of the list this connection goes to.
    pub(crate) endpoint: usize,
}

/// `f`, or the `what` timeout's error when `limit` passes first (`None`: no limit).
pub(crate) async fn within<T>(limit: Option<Duration>, what: crate::Timeout, f: impl Future<Output = T>) -> Result<T> {
    match limit {
        Some(d) => tokio::time::timeout(d, f).await.map_err(|_| Error::timed_out(what)),
        None => Ok(f.await),
    }
}

/// An I/O of the socket within `d`: its error as a socket's (TLS errors typed).
async fn with_timeout<T>(d: Option<Duration>, what: crate::Timeout, f: impl Future<Output = std::io::Result<T>>) -> Result<T> {
    within(d, what, f).await?.map_err(crate::tls::io_error)
}

/// Read what `stream` has into `rbuf` (at most its spare room after reserving `room`).
/// tokio's `read_buf`, polled once (it is cancel-safe: a read that is not ready took nothing),
/// fills the spare room and advances the buffer past what arrived.
fn poll_read_into(stream: &mut Stream, rbuf: &mut BytesMut, room: usize, cx: &mut Context<'_>) -> Poll<std::io::Result<usize>> {
    rbuf.reserve(room);
    std::pin::pin!(stream.read_buf(rbuf)).poll(cx)
}

fn eof() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed the connection")
}

impl Conn {
    /// Connect to server `endpoint` and do the handshake.
    pub(crate) async fn connect_to(opts: &Options, shared: &Shared, endpoint: usize) -> Result<Conn> {
        let handshake = async {
            let stream = open_stream(opts, shared, endpoint).await?;
            Conn::hello(opts, stream, endpoint).await
        };
        within(opts.handshake_timeout, crate::Timeout::Handshake, handshake).await?
    }

    async fn hello(opts: &Options, stream: Stream, endpoint: usize) -> Result<Conn> {
        let mut conn = Conn {
            stream,
            rbuf: BytesMut::with_capacity(READ_CHUNK),
            wbuf: Vec::with_capacity(64 * 1024),
            wpos: 0,
            chunked_in: None,
            chunked_out: None,
            send_chunked: false,
            cancel_rest: Vec::new(),
            scratch: Vec::new(),
            decoder: PacketDecoder::new(opts.client_revision).with_limits(opts.limits),
            hello: ServerHello::default(),
            rev: Revision(opts.client_revision),
            read_timeout: opts.receive_timeout,
            write_timeout: opts.send_timeout,
            endpoint,
        };
        let hello = ClientHello {
            client_name: opts.client_name.clone(),
            version_major: crate::VERSION_MAJOR,
            version_minor: crate::VERSION_MINOR,
            revision: opts.client_revision,
            database: opts.database.clone(),
            user: opts.user.clone(),
            password: opts.password.clone(),
        };
        hello.encode(&mut conn.wbuf);
        conn.flush().await?;
        match conn.recv().await? {
            ServerPacket::Hello(h) => {
                conn.rev = h.negotiated(opts.client_revision);
                conn.hello = h;
            }
            ServerPacket::Exception(e) => return Err(e.into()),
            other => return Err(Error::protocol(format!("expected Hello or Exception from the server, got {}", other.name()))),
        }
        let (send, recv) = conn.negotiate_chunked(opts.chunked)?;
        encode_addendum(conn.rev, &opts.quota_key, send, recv, &mut conn.wbuf);
        if !conn.wbuf.is_empty() {
            conn.flush().await?;
        }
        // Framing starts after the addendum (never chunked itself).
        conn.send_chunked = send;
        if recv {
            let raw = conn.rbuf.split();
            let mut d = Dechunker::new(opts.limits.max_frame_size);
            conn.rbuf = BytesMut::with_capacity(READ_CHUNK);
            let mut raw = raw;
            d.feed(&mut raw, &mut conn.rbuf)?;
            conn.chunked_in = Some((d, raw));
        }
        tracing::debug!(server = %conn.hello.name, revision = %conn.rev, tls = matches!(conn.stream, Stream::Tls(_)), "connected");
        Ok(conn)
    }

    /// Whether (send, receive) are chunked: what the server's Hello says of each direction
    /// (its receiving is our sending), with `mode`.
    fn negotiate_chunked(&self, mode: ChunkedMode) -> Result<(bool, bool)> {
        if !self.rev.has(CHUNKED_PACKETS) {
            if mode == ChunkedMode::On {
                return Err(Error::config(format!(
                    "chunked=true needs protocol revision {CHUNKED_PACKETS} or later; the connection's is {}",
                    self.rev
                )));
            }
            return Ok((false, false));
        }
        let word = |w: &Option<String>| w.clone().unwrap_or_else(|| "notchunked".into());
        let send = chunked::negotiate(&word(&self.hello.chunked_recv), mode, "the packets it receives").map_err(Error::config)?;
        let recv = chunked::negotiate(&word(&self.hello.chunked_send), mode, "the packets it sends").map_err(Error::config)?;
        Ok((send, recv))
    }

    /// Take the chunk headers out of what was received.
    fn dechunk(&mut self) -> Result<()> {
        if let Some((d, raw)) = self.chunked_in.as_mut() {
            d.feed(raw, &mut self.rbuf)?;
        }
        Ok(())
    }

    /// Append a Data packet of `block` to the write buffer (at this connection's revision,
    /// compressed as `compression` says); [`Conn::flush`] sends it.
    pub(crate) fn queue_data(&mut self, block: &chwire_proto::Block, compression: chwire_proto::compress::Compression) {
        chwire_proto::packet::client::encode_data(block, self.rev, compression, &mut self.scratch, &mut self.wbuf);
    }

    pub(crate) fn set_compression(&mut self, on: bool) {
        self.decoder.set_compression(on);
    }

    /// Write out everything in the write buffer.
    ///
    /// While the socket is not writable, whatever the server sends is read into the receive
    /// buffer (and decoded later): during an insert the server answers each block
    /// (ProfileEvents, Progress, Log), and if neither side read while writing, both could
    /// block on full socket buffers.
    pub(crate) async fn flush(&mut self) -> Result<()> {
        if self.send_chunked && self.chunked_out.is_none() && self.wpos == 0 && !self.wbuf.is_empty() {
            self.chunked_out = Some(chunked::headers(self.wbuf.len()));
        }
        let Conn { stream, wbuf, wpos, rbuf, write_timeout, chunked_in, chunked_out, cancel_rest, .. } = self;
        let duplex = std::future::poll_fn(|cx| loop {
            if !cancel_rest.is_empty() {
                match Pin::new(&mut *stream).poll_write(cx, cancel_rest) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::Error::from(std::io::ErrorKind::WriteZero))),
                    Poll::Ready(Ok(n)) => drop(cancel_rest.drain(..n)),
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
                continue;
            }
            let next = match chunked_out {
                Some(h) => chunked::framed_slice(wbuf, h, *wpos),
                None => wbuf.get(*wpos..).filter(|s| !s.is_empty()),
            };
            let step = match next {
                Some(bytes) => Pin::new(&mut *stream).poll_write(cx, bytes).map_ok(|n| {
                    *wpos += n;
                    n
                }),
                // TLS keeps records until flushed; plain TCP is done at once.
                None => Pin::new(&mut *stream).poll_flush(cx).map_ok(|()| usize::MAX),
            };
            match step {
                Poll::Ready(Ok(usize::MAX)) => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::Error::from(std::io::ErrorKind::WriteZero))),
                Poll::Ready(Ok(_)) => continue,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    let into = match chunked_in.as_mut() {
                        Some((_, raw)) => raw,
                        None => &mut *rbuf,
                    };
                    match poll_read_into(stream, into, 64 * 1024, cx) {
                        Poll::Ready(Ok(0)) => return Poll::Ready(Err(eof())),
                        Poll::Ready(Ok(_)) => continue,
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => return Poll::Pending,
                    }
                }
            }
        });
        match with_timeout(*write_timeout, crate::Timeout::Send, duplex).await {
            Err(e) if matches!(e.kind(), ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof) => {
                return Err(Error::new(ErrorKind::Closed))
            }
            r => r?,
        }
        self.wbuf.clear();
        self.wpos = 0;
        self.chunked_out = None;
        self.dechunk()
    }

    /// Receive the next server packet.
    pub(crate) async fn recv(&mut self) -> Result<ServerPacket> {
        loop {
            if self.rbuf.len() >= self.decoder.needed() {
                if let Some(p) = self.decoder.decode(&mut self.rbuf)? {
                    return Ok(p);
                }
            }
            let step = reserve_step(self.decoder.needed(), self.rbuf.len());
            let into = match self.chunked_in.as_mut() {
                Some((_, raw)) => raw,
                None => &mut self.rbuf,
            };
            into.reserve(step);
            let n = with_timeout(self.read_timeout, crate::Timeout::Receive, self.stream.read_buf(into)).await?;
            if n == 0 {
                return Err(Error::new(ErrorKind::Closed));
            }
            self.dechunk()?;
        }
    }

    /// A packet that has already arrived, without waiting for the network: reads what the
    /// socket holds right now, then decodes. Used between insert blocks, where the server
    /// sends ProfileEvents/Progress/Log after each block and would otherwise block on a
    /// full socket while the client blocks sending the next block.
    pub(crate) fn try_recv(&mut self) -> Result<Option<ServerPacket>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        loop {
            if self.rbuf.len() >= self.decoder.needed() {
                if let Some(p) = self.decoder.decode(&mut self.rbuf)? {
                    return Ok(Some(p));
                }
            }
            let room = reserve_step(self.decoder.needed(), self.rbuf.len());
            let into = match self.chunked_in.as_mut() {
                Some((_, raw)) => raw,
                None => &mut self.rbuf,
            };
            match poll_read_into(&mut self.stream, into, room, &mut cx) {
                Poll::Ready(Ok(0)) => return Err(Error::new(ErrorKind::Closed)),
                Poll::Ready(Ok(_)) => self.dechunk()?,
                Poll::Ready(Err(e)) => return Err(e.into()),
                Poll::Pending => return Ok(None),
            }
        }
    }

    /// Shut the socket down now, both ways (used from `Drop`): the server sees the connection
    /// end at once; the connection is not used again.
    pub(crate) fn shutdown_now(&mut self) {
        let tcp = match &self.stream {
            crate::tls::Stream::Plain(s) => s,
            crate::tls::Stream::Tls(s) => s.get_ref().0,
        };
        if let Err(e) = socket2::SockRef::from(tcp).shutdown(std::net::Shutdown::Both) {
            tracing::debug!(error = %e, "could not shut down the connection of an abandoned insert");
        }
    }

    /// Send Cancel without waiting (used from `Drop`); false if it could not be handed to
    /// the socket now (or other bytes are still unwritten).
    pub(crate) fn try_send_cancel(&mut self) -> bool {
        if self.wpos != 0 || !self.wbuf.is_empty() || !self.cancel_rest.is_empty() {
            return false;
        }
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let cancel = chwire_proto::packet::client_code::CANCEL as u8;
        // Chunked: the one-byte packet in a chunk of its own, then the end of the message.
        let framed = [1, 0, 0, 0, cancel, 0, 0, 0, 0];
        let bytes: &[u8] = if self.send_chunked { &framed } else { &framed[4..5] };
        let sent = match Pin::new(&mut self.stream).poll_write(&mut cx, bytes) {
            Poll::Ready(Ok(n)) if n == bytes.len() => true,
            // Part of a framed Cancel went out: the next flush writes the rest first (the
            // connection is drained before its next query, which flushes first).
            Poll::Ready(Ok(n)) if n > 0 => {
                self.cancel_rest.extend_from_slice(&bytes[n..]);
                true
            }
            _ => false,
        };
        // TLS: push the record out if the socket takes it now; otherwise the next flush does.
        let _ = Pin::new(&mut self.stream).poll_flush(&mut cx);
        sent
    }

    /// Whether this connection is encrypted.
    pub(crate) fn is_tls(&self) -> bool {
        matches!(self.stream, Stream::Tls(_))
    }
}

/// How much to grow the receive buffer before the next read: what the decoder still needs,
/// but at most as much again as is buffered (at least [`READ_CHUNK`]). The buffer doubles
/// as bytes really arrive, so a length claimed by the server reserves nothing up front.
fn reserve_step(needed: usize, buffered: usize) -> usize {
    needed.saturating_sub(buffered).clamp(READ_CHUNK, buffered.max(READ_CHUNK))
}

/// Open the socket to server `endpoint`: TCP (connect timeout, no delay, keepalive), then TLS
/// when configured. The caller bounds the TLS part with the handshake timeout.
pub(crate) async fn open_stream(opts: &Options, shared: &Shared, endpoint: usize) -> Result<Stream> {
    let Endpoint { host, port } = shared.hosts.endpoint(endpoint);
    let port = *port;
    let tcp = match within(opts.connect_timeout, crate::Timeout::Connect, TcpStream::connect((host.as_str(), port))).await? {
        Ok(s) => s,
        Err(e) => return Err(Error::new(ErrorKind::Io(std::io::Error::new(e.kind(), format!("cannot connect to {host}:{port}: {e}"))))),
    };
    tcp.set_nodelay(true)?;
    if let Some(idle) = opts.tcp_keepalive {
        let ka = socket2::TcpKeepalive::new().with_time(idle).with_interval(idle.min(Duration::from_secs(10)));
        socket2::SockRef::from(&tcp).set_tcp_keepalive(&ka)?;
    }
    match &shared.tls {
        None => Ok(Stream::Plain(tcp)),
        Some(connector) => {
            let tls_opts = opts.tls.as_ref().expect("TLS options with a connector");
            let name = tls_opts.server_name_for(host)?;
            match connector.connect(name.clone(), tcp).await {
                Ok(s) => Ok(Stream::Tls(Box::new(s))),
                Err(e) => Err(crate::tls::handshake_error(e, host, port, &name)),
            }
        }
    }
}
