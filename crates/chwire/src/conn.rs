//! One TCP connection: the socket, the receive buffer and the packet decoder.

use crate::error::{Error, ErrorKind, Result};
use crate::options::Options;
use bytes::BytesMut;
use chwire_proto::packet::client::{encode_addendum, ClientHello};
use chwire_proto::{PacketDecoder, Revision, ServerHello, ServerPacket};
use std::future::Future;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// How much room to make in the receive buffer before each read.
const READ_CHUNK: usize = 1 << 20;

pub(crate) struct Conn {
    stream: TcpStream,
    rbuf: BytesMut,
    pub(crate) wbuf: Vec<u8>,
    pub(crate) scratch: Vec<u8>,
    decoder: PacketDecoder,
    pub(crate) hello: ServerHello,
    pub(crate) rev: Revision,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

async fn with_timeout<T>(d: Option<Duration>, what: &'static str, f: impl Future<Output = std::io::Result<T>>) -> Result<T> {
    match d {
        Some(d) => match tokio::time::timeout(d, f).await {
            Ok(r) => r.map_err(Error::from),
            Err(_) => Err(Error::new(ErrorKind::Timeout(what))),
        },
        None => f.await.map_err(Error::from),
    }
}

impl Conn {
    pub(crate) async fn connect(opts: &Options) -> Result<Conn> {
        opts.validate()?;
        let addr = (opts.host.as_str(), opts.port);
        let stream = match tokio::time::timeout(opts.connect_timeout, TcpStream::connect(addr)).await {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                return Err(Error::new(ErrorKind::Io(std::io::Error::new(
                    e.kind(),
                    format!("cannot connect to {}:{}: {e}", opts.host, opts.port),
                ))))
            }
            Err(_) => return Err(Error::new(ErrorKind::Timeout("connect"))),
        };
        stream.set_nodelay(true)?;
        let mut conn = Conn {
            stream,
            rbuf: BytesMut::with_capacity(READ_CHUNK),
            wbuf: Vec::with_capacity(64 * 1024),
            scratch: Vec::new(),
            decoder: PacketDecoder::new(opts.revision).with_limits(opts.limits),
            hello: ServerHello::default(),
            rev: Revision(opts.revision),
            read_timeout: opts.read_timeout,
            write_timeout: opts.write_timeout,
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
        let connect_deadline = opts.connect_timeout;
        let packet = match tokio::time::timeout(connect_deadline, conn.recv()).await {
            Ok(p) => p?,
            Err(_) => return Err(Error::new(ErrorKind::Timeout("handshake"))),
        };
        match packet {
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
        tracing::debug!(server = %conn.hello.name, revision = %conn.rev, "connected");
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
        let Conn { stream, wbuf, rbuf, write_timeout, .. } = self;
        let duplex = async {
            let mut written = 0;
            while written < wbuf.len() {
                tokio::select! {
                    biased;
                    r = stream.writable() => {
                        r?;
                        match stream.try_write(&wbuf[written..]) {
                            Ok(n) => written += n,
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(e) => return Err(e),
                        }
                    }
                    r = stream.readable() => {
                        r?;
                        rbuf.reserve(64 * 1024);
                        match stream.try_read_buf(rbuf) {
                            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the server closed the connection")),
                            Ok(_) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(e) => return Err(e),
                        }
                    }
                }
            }
            Ok(())
        };
        match with_timeout(*write_timeout, "write", duplex).await {
            Err(e) if matches!(e.kind(), ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof) => {
                return Err(Error::new(ErrorKind::Closed))
            }
            r => r?,
        }
        self.wbuf.clear();
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
            let n = with_timeout(self.read_timeout, "read", stream.read_buf(rbuf)).await?;
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
        loop {
            if self.rbuf.len() >= self.decoder.needed() {
                if let Some(p) = self.decoder.decode(&mut self.rbuf)? {
                    return Ok(Some(p));
                }
            }
            self.rbuf.reserve(reserve_step(self.decoder.needed(), self.rbuf.len()));
            let (stream, rbuf) = (&mut self.stream, &mut self.rbuf);
            let spare = rbuf.spare_capacity_mut();
            // SAFETY: `try_read` only writes initialised bytes into the slice and reports
            // how many; MaybeUninit<u8> and u8 have the same layout.
            let dst = unsafe { &mut *(spare as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
            match stream.try_read(dst) {
                Ok(0) => return Err(Error::new(ErrorKind::Closed)),
                // SAFETY: the first `n` spare bytes were just written by `try_read`.
                Ok(n) => unsafe { rbuf.set_len(rbuf.len() + n) },
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Send Cancel without waiting (used from `Drop`); false if the socket is not writable now.
    pub(crate) fn try_send_cancel(&mut self) -> bool {
        matches!(self.stream.try_write(&[chwire_proto::packet::client_code::CANCEL as u8]), Ok(1))
    }
}

/// How much to grow the receive buffer before the next read: what the decoder still needs,
/// but at most as much again as is buffered (at least [`READ_CHUNK`]). The buffer doubles
/// as bytes really arrive, so a length claimed by the server reserves nothing up front.
fn reserve_step(needed: usize, buffered: usize) -> usize {
    needed.saturating_sub(buffered).clamp(READ_CHUNK, buffered.max(READ_CHUNK))
}
