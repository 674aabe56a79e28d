//! Chunked packet framing (revision >= 54470), negotiated per direction in ServerHello and the
//! addendum. After the addendum, each side sends what it writes as chunks: a UInt32 size (> 0)
//! and that many bytes, any number of them, then a UInt32 0 that ends the message. Where a
//! packet starts or ends has nothing to do with where a chunk does: a reader only removes the
//! headers, and a message may hold several packets (ClickHouse's client ends one only after a
//! query's empty Data block).
//!
//! chwire frames nothing by default: without framing, a block's bytes go from the socket to
//! the decoder with no copy (docs/BENCHMARKS.md measures both); it follows a server that
//! insists on chunks, and frames both directions when asked to (`chunked=true`).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use bytes::{Buf, BytesMut};

use crate::error::DecodeError;

/// What a client wants of the framing (`chunked` in URLs and options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChunkedMode {
    /// Follow a server that insists; otherwise no framing (the faster).
    #[default]
    Auto,
    /// Chunks both ways (an error if the server insists on none).
    On,
    /// No framing (an error if the server insists on chunks).
    Off,
}

impl std::str::FromStr for ChunkedMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(ChunkedMode::Auto),
            "true" | "1" | "yes" | "on" | "chunked" => Ok(ChunkedMode::On),
            "false" | "0" | "no" | "off" | "notchunked" => Ok(ChunkedMode::Off),
            _ => Err(format!("chunked={s:?}: auto, true or false")),
        }
    }
}

/// Whether one direction is chunked, from the server's word for it (`chunked`,
/// `notchunked`, either with `_optional`) and the client's mode: a server's strict word
/// decides, an optional one follows the client. `what` names the direction in errors.
pub fn negotiate(server: &str, mode: ChunkedMode, what: &str) -> Result<bool, String> {
    let chunked = server.starts_with("chunked");
    if !chunked && !server.starts_with("notchunked") {
        return Err(format!("the server's framing of {what} is {server:?} (chunked or notchunked expected)"));
    }
    let optional = server.ends_with("_optional");
    match (mode, optional) {
        (ChunkedMode::Auto, false) => Ok(chunked),
        (ChunkedMode::Auto, true) => Ok(false),
        (ChunkedMode::On, _) if chunked || optional => Ok(true),
        (ChunkedMode::Off, _) if !chunked || optional => Ok(false),
        (m, _) => Err(format!(
            "the server insists on {} framing of {what}, and chunked={} was asked for",
            if chunked { "chunked" } else { "no chunked" },
            if m == ChunkedMode::On { "true" } else { "false" }
        )),
    }
}

/// Removes the chunk headers of a received byte stream.
#[derive(Debug, Clone)]
pub struct Dechunker {
    /// Bytes of the current chunk still to come.
    left: u64,
    /// The last header was an end of message (a second one in a row is an empty chunk).
    after_end: bool,
    max_chunk: u64,
}

impl Dechunker {
    /// A dechunker for a stream that starts with a chunk header; chunks larger than
    /// `max_chunk` bytes are refused (they are never allocated: bytes are passed on as they
    /// arrive).
    pub fn new(max_chunk: usize) -> Dechunker {
        Dechunker { left: 0, after_end: true, max_chunk: max_chunk as u64 }
    }

    /// Move the payload bytes of `raw` to the end of `out`, headers removed. What `raw` keeps
    /// is an incomplete header.
    pub fn feed(&mut self, raw: &mut BytesMut, out: &mut BytesMut) -> Result<(), DecodeError> {
        loop {
            if self.left == 0 {
                let Some(header) = raw.get(..4) else { return Ok(()) };
                let mut size = [0u8; 4];
                size.copy_from_slice(header);
                let size = u64::from(u32::from_le_bytes(size));
                raw.advance(4);
                if size == 0 {
                    if self.after_end {
                        return Err(DecodeError::malformed("chunked framing", "an empty chunk (an end of message with no message)"));
                    }
                    self.after_end = true;
                    continue;
                }
                if size > self.max_chunk {
                    return Err(DecodeError::LimitExceeded { what: "chunk bytes", size, limit: self.max_chunk });
                }
                self.after_end = false;
                self.left = size;
            }
            let n = (raw.len() as u64).min(self.left) as usize;
            if n == 0 {
                return Ok(());
            }
            out.extend_from_slice(raw.get(..n).unwrap_or_default());
            raw.advance(n);
            self.left = self.left.saturating_sub(n as u64);
        }
    }

    /// Whether the stream stands at a message's end (nothing of a chunk is pending).
    pub fn at_message_end(&self) -> bool {
        self.left == 0 && self.after_end
    }
}

/// Largest chunk chwire writes (a header's UInt32 holds the size).
pub const MAX_CHUNK: usize = 1 << 30;

/// The chunk headers of a message of `len` bytes: where each header goes (an offset into the
/// message) and its bytes, then the end-of-message marker (at `len`). A message is sent as
/// header, part, header, part, …, marker.
pub fn headers(len: usize) -> Vec<(usize, [u8; 4])> {
    let mut out = Vec::with_capacity(len.div_ceil(MAX_CHUNK).saturating_add(1));
    let mut at = 0usize;
    while at < len {
        let n = (len.saturating_sub(at)).min(MAX_CHUNK);
        out.push((at, (n as u32).to_le_bytes()));
        at = at.saturating_add(n);
    }
    out.push((len, [0; 4]));
    out
}

/// The bytes to write next of a message framed by [`headers`], at position `at` of the framed
/// message (headers, parts and marker in a row); `None` once it is all written. A writer
/// that keeps `at` across partial writes never writes a byte twice.
pub fn framed_slice<'a>(msg: &'a [u8], headers: &'a [(usize, [u8; 4])], mut at: usize) -> Option<&'a [u8]> {
    for (i, (start, header)) in headers.iter().enumerate() {
        if at < 4 {
            return header.get(at..);
        }
        at = at.saturating_sub(4);
        let end = headers.get(i.saturating_add(1)).map_or(*start, |(next, _)| *next);
        let part = msg.get(*start..end).unwrap_or_default();
        if at < part.len() {
            return part.get(at..);
        }
        at = at.saturating_sub(part.len());
    }
    None
}

/// The framed length of a message of `len` bytes.
pub fn framed_len(len: usize, headers: &[(usize, [u8; 4])]) -> usize {
    len.saturating_add(headers.len().saturating_mul(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_follows_a_strict_server_and_the_client_otherwise() {
        use ChunkedMode::*;
        assert_eq!(negotiate("notchunked", Auto, "x"), Ok(false));
        assert_eq!(negotiate("chunked", Auto, "x"), Ok(true));
        assert_eq!(negotiate("chunked_optional", Auto, "x"), Ok(false));
        assert_eq!(negotiate("notchunked_optional", On, "x"), Ok(true));
        assert_eq!(negotiate("chunked_optional", Off, "x"), Ok(false));
        assert!(negotiate("chunked", Off, "x").unwrap_err().contains("insists on chunked framing of x"));
        assert!(negotiate("notchunked", On, "x").unwrap_err().contains("insists on no chunked framing"));
        assert!(negotiate("bogus", Auto, "x").is_err());
        assert_eq!("true".parse::<ChunkedMode>(), Ok(On));
        assert!("maybe".parse::<ChunkedMode>().is_err());
    }

    #[test]
    fn dechunking_one_byte_at_a_time_and_refusals() {
        // Two messages: "abc" in chunks of 1 and 2, then "de" in one.
        let wire = [1, 0, 0, 0, b'a', 2, 0, 0, 0, b'b', b'c', 0, 0, 0, 0, 2, 0, 0, 0, b'd', b'e', 0, 0, 0, 0];
        let mut d = Dechunker::new(1 << 20);
        let (mut raw, mut out) = (BytesMut::new(), BytesMut::new());
        for b in wire {
            raw.extend_from_slice(&[b]);
            d.feed(&mut raw, &mut out).unwrap();
        }
        assert_eq!(&out[..], b"abcde");
        assert!(d.at_message_end() && raw.is_empty());
        // An empty chunk: two end markers in a row (or one first).
        let mut d = Dechunker::new(1 << 20);
        assert!(d.feed(&mut BytesMut::from(&[0u8, 0, 0, 0][..]), &mut BytesMut::new()).is_err());
        let mut d = Dechunker::new(1 << 20);
        assert!(d.feed(&mut BytesMut::from(&[1u8, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0][..]), &mut BytesMut::new()).is_err());
        // A chunk larger than allowed is refused at its header, nothing reserved for it.
        let mut d = Dechunker::new(1 << 20);
        let e = d.feed(&mut BytesMut::from(&[0xff, 0xff, 0xff, 0xff, 1][..]), &mut BytesMut::new()).unwrap_err();
        assert!(matches!(e, DecodeError::LimitExceeded { what: "chunk bytes", .. }), "{e}");
    }

    #[test]
    fn framed_slices_in_order_with_partial_writes() {
        let msg = b"hello";
        let h = headers(msg.len());
        let mut out = Vec::new();
        let mut at = 0;
        // Write at most 3 bytes at a time.
        while let Some(s) = framed_slice(msg, &h, at) {
            let n = s.len().min(3);
            out.extend_from_slice(&s[..n]);
            at += n;
        }
        assert_eq!(out, [5, 0, 0, 0, b'h', b'e', b'l', b'l', b'o', 0, 0, 0, 0]);
        assert_eq!(at, framed_len(msg.len(), &h));
        // Read back.
        let mut d = Dechunker::new(1 << 20);
        let mut got = BytesMut::new();
        d.feed(&mut BytesMut::from(&out[..]), &mut got).unwrap();
        assert_eq!(&got[..], msg);
    }

    #[test]
    fn headers_cover_the_message() {
        assert_eq!(headers(0), vec![(0, [0; 4])]);
        assert_eq!(headers(5), vec![(0, [5, 0, 0, 0]), (5, [0; 4])]);
        let h = headers(MAX_CHUNK + 3);
        assert_eq!(h.len(), 3);
        assert_eq!(h[1], (MAX_CHUNK, [3, 0, 0, 0]));
    }
}
