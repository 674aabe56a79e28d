//! The connection of a [`crate::Client`], over either transport: the native protocol
//! ([`Conn`]) or HTTP ([`HttpConn`]); and connecting to one of several servers.

use crate::conn::{Conn, Shared};
use crate::error::{Error, ErrorKind, Result};
use crate::http::HttpConn;
use crate::options::{Options, Transport};
use chwire_proto::{ServerHello, ServerPacket};

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
}
