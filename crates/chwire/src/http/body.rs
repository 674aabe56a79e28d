//! Request bodies: the SQL of a query (with a length), or an insert's Native blocks through a
//! bounded channel (chunked).
//!
//! An insert abandoned before its end must not be committed. Closing the connection is not
//! enough: ClickHouse 18.16 takes a chunked body cut by a closed connection for a complete one
//! and commits what it received. So an abandoned body ends with a poison block — a column of a
//! type that does not exist — on which the server's Native reader fails, and the insert
//! with it (what the server had already flushed to the table, at least
//! `min_insert_block_size_rows` rows, stays, as with the native protocol).

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// How many encoded blocks may wait for the socket: memory stays bounded by a few blocks.
const QUEUED_PARTS: usize = 2;

pub(crate) enum BodyMsg {
    Data(Bytes),
    /// The insert is complete: end the body (the server then commits).
    End,
}

pub(crate) enum ReqBody {
    Full(Option<Bytes>),
    Channel { rx: mpsc::Receiver<BodyMsg>, ended: bool },
}

/// A Native block header whose one column has a type no server knows.
const POISON: &[u8] = b"\x01\x01\x00\x20chwire: the insert was abandoned";

impl ReqBody {
    pub(crate) fn full(b: Bytes) -> ReqBody {
        ReqBody::Full(Some(b))
    }

    pub(crate) fn channel() -> (mpsc::Sender<BodyMsg>, ReqBody) {
        let (tx, rx) = mpsc::channel(QUEUED_PARTS);
        (tx, ReqBody::Channel { rx, ended: false })
    }
}

impl Body for ReqBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            ReqBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            ReqBody::Channel { ended: true, .. } => Poll::Ready(None),
            ReqBody::Channel { rx, ended } => match rx.poll_recv(cx) {
                Poll::Ready(Some(BodyMsg::Data(b))) => Poll::Ready(Some(Ok(Frame::data(b)))),
                Poll::Ready(Some(BodyMsg::End)) => {
                    *ended = true;
                    Poll::Ready(None)
                }
                Poll::Ready(None) => {
                    *ended = true;
                    Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(POISON)))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ReqBody::Full(None) | ReqBody::Channel { ended: true, .. })
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ReqBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            ReqBody::Full(None) => SizeHint::with_exact(0),
            ReqBody::Channel { .. } => SizeHint::default(),
        }
    }
}
