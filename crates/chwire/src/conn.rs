//! One connection: the socket (plain TCP or TLS), the receive buffer and the packet decoder;
//! connecting to one of several servers.

use crate::error::{Error, ErrorKind, Result};
use crate::hosts::{Endpoint, Hosts};
use crate::options::Options;
use crate::tls::Stream;
use bytes::BytesMut;
use chwire_proto::packet::client::{encode_addendum, ClientHello};
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
    /// How much of `wbuf` is already written: kept here, not in `flush`, so that a flush
    /// dropped midway and called again never writes a byte twice.
    wpos: usize,
    pub(crate) scratch: Vec<u8>,
    decoder: PacketDecoder,
    pub(crate) hello: ServerHello,
    pub(crate) rev: Revision,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// Which server of the list this connection goes to.
    pub(crate) endpoint: usize,
}

async fn with_timeout<T>(d: Option<Duration>, what: &'static str, f: impl Future<Output = std::io::Result<T>>) -> Result<T> {
    match d {
        Some(d) => match tokio::time::timeout(d, f).await {
            Ok(r) => r.map_err(crate::tls::io_error),
            Err(_) => Err(Error::new(ErrorKind::Timeout(what))),
        },
        None => f.await.map_err(crate::tls::io_error),
    }
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
        match tokio::time::timeout(opts.handshake_timeout, handshake).await {
            Ok(r) => r,
            Err(_) => Err(Error::new(ErrorKind::Timeout("handshake"))),
        }
    }

    async fn hello(opts: &Options, stream: Stream, endpoint: usize) -> Result<Conn> {
        let mut conn = Conn {
            stream,
            rbuf: BytesMut::with_capacity(READ_CHUNK),
            wbuf: Vec::with_capacity(64 * 1024),
            wpos: 0,
            scratch: Vec::new(),
            decoder: PacketDecoder::new(opts.revision).with_limits(opts.limits),
            hello: ServerHello::default(),
            rev: Revision(opts.revision),
            read_timeout: opts.read_timeout,
            write_timeout: opts.write_timeout,
            endpoint,
        };
        let hello = ClientHello {
            client_name: opts.client_name.clone(),
            version_major: crate::VERSION_MAJOR,
            version_minor: crate::VERSION_MINOR,
            revision: opts.revision,
            database: opts.database.clone(),
            user: opts.user.clone(),
            password: opts.password.clone(),
        };
        hello.encode(&mut conn.wbuf);
        conn.flush().await?;
        match conn.recv().await? {
            ServerPacket::Hello(h) => {
                conn.rev = h.negotiated(opts.revision);
                conn.hello = h;
            }
            ServerPacket::Exception(e) => return Err(e.into()),
            other => return Err(Error::protocol(format!("expected Hello or Exception from the server, got {}", other.name()))),
        }
        encode_addendum(conn.rev, &opts.quota_key, &mut conn.wbuf);
        if !conn.wbuf.is_empty() {
            conn.flush().await?;
        }
        tracing::debug!(server = %conn.hello.name, revision = %conn.rev, tls = matches!(conn.stream, Stream::Tls(_)), "connected");
        Ok(conn)
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
        let Conn { stream, wbuf, wpos, rbuf, write_timeout, .. } = self;
        let duplex = std::future::poll_fn(|cx| loop {
            let step = if *wpos < wbuf.len() {
                Pin::new(&mut *stream).poll_write(cx, &wbuf[*wpos..]).map_ok(|n| {
                    *wpos += n;
                    n
                })
            } else {
                // TLS keeps records until flushed; plain TCP is done at once.
                Pin::new(&mut *stream).poll_flush(cx).map_ok(|()| usize::MAX)
            };
            match step {
                Poll::Ready(Ok(usize::MAX)) => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::Error::from(std::io::ErrorKind::WriteZero))),
                Poll::Ready(Ok(_)) => continue,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => match poll_read_into(stream, rbuf, 64 * 1024, cx) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(eof())),
                    Poll::Ready(Ok(_)) => continue,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                },
            }
        });
        match with_timeout(*write_timeout, "send", duplex).await {
            Err(e) if matches!(e.kind(), ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof) => {
                return Err(Error::new(ErrorKind::Closed))
            }
            r => r?,
        }
        self.wbuf.clear();
        self.wpos = 0;
        Ok(())
    }

    /// Receive the next server packet.
    pub(crate) async fn recv(&mut self) -> Result<ServerPacket> {
        loop {
            if self.rbuf.len() >= self.decoder.needed() {
                if let Some(p) = self.decoder.decode(&mut self.rbuf)? {
                    return Ok(p);
                }
            }
            self.rbuf.reserve(reserve_step(self.decoder.needed(), self.rbuf.len()));
            let (stream, rbuf) = (&mut self.stream, &mut self.rbuf);
            let n = with_timeout(self.read_timeout, "receive", stream.read_buf(rbuf)).await?;
            if n == 0 {
                return Err(Error::new(ErrorKind::Closed));
            }
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
            match poll_read_into(&mut self.stream, &mut self.rbuf, room, &mut cx) {
                Poll::Ready(Ok(0)) => return Err(Error::new(ErrorKind::Closed)),
                Poll::Ready(Ok(_)) => {}
                Poll::Ready(Err(e)) => return Err(e.into()),
                Poll::Pending => return Ok(None),
            }
        }
    }

    /// Send Cancel without waiting (used from `Drop`); false if it could not be handed to
    /// the socket now (or other bytes are still unwritten).
    pub(crate) fn try_send_cancel(&mut self) -> bool {
        if self.wpos != 0 || !self.wbuf.is_empty() {
            return false;
        }
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let byte = [chwire_proto::packet::client_code::CANCEL as u8];
        let sent = matches!(Pin::new(&mut self.stream).poll_write(&mut cx, &byte), Poll::Ready(Ok(1)));
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
    let tcp = match tokio::time::timeout(opts.connect_timeout, TcpStream::connect((host.as_str(), port))).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            return Err(Error::new(ErrorKind::Io(std::io::Error::new(e.kind(), format!("cannot connect to {host}:{port}: {e}")))))
        }
        Err(_) => return Err(Error::new(ErrorKind::Timeout("connect"))),
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
