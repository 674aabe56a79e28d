//! Compressed HTTP responses, decoded as they arrive.
//!
//! - ClickHouse's own compressed frames (`compress=1`, the frames of the native protocol,
//!   LZ4 or ZSTD by `network_compression_method`): what chwire asks servers of 23.3 and newer
//!   for. Decompressing LZ4 frames costs a fraction of an HTTP content encoding's inflate
//!   (docs/HTTP.md: W1 over HTTP with LZ4 on 26.9).
//! - The content encodings (`enable_http_compression=1`): chwire asks for `zstd, gzip` and
//!   the server picks. 18.16 (whose `compress=1` answers small results with an empty body)
//!   knows no ZSTD and answers gzip.

use std::cell::RefCell;
use std::io::Write;

use bytes::{Buf, BytesMut};
use chwire_proto::compress::decompress_frame_limited;
use chwire_proto::error::ReadError;
use chwire_proto::native::http_exception;
use chwire_proto::{Limits, PacketDecoder, Revision};

use super::answer::MAX_ERROR_BODY;
use zstd::stream::raw::{Decoder as ZstdContext, InBuffer, Operation, OutBuffer};

use crate::error::Error;

/// What the client asks for: the server takes the first it knows of its own preference.
pub(super) const ACCEPT: &str = "zstd, gzip";

/// Output room per step of the ZSTD decoder.
const ZSTD_STEP: usize = 128 << 10;

thread_local! {
    /// A ZSTD decompression context left by the last response on this thread: creating one
    /// costs more than decoding a small response (6 % of W3's profile).
    static SPARE: RefCell<Option<ZstdContext<'static>>> = const { RefCell::new(None) };
}

/// A response body being decoded as it arrives.
pub(super) enum BodyDecoder {
    Gzip(Box<flate2::write::GzDecoder<Vec<u8>>>),
    Zstd(Zstd),
    Frames(Frames),
}

/// An error answer's body, read whole.
pub(super) enum ErrorBody {
    /// The exception's text, or what came instead of one.
    Text(Vec<u8>),
    /// Decompressed result blocks with the exception after them.
    BlocksFirst(BytesMut),
}

/// A body of ClickHouse compressed frames (`compress=1`), each checked (CityHash128) and
/// decompressed into the receive buffer once it is whole.
pub(super) struct Frames {
    /// The start of a frame not whole yet.
    partial: BytesMut,
    /// The connection's decoder limits (the largest frame, the largest block).
    limits: Limits,
}

impl Frames {
    pub(super) fn new(limits: Limits) -> Frames {
        Frames { partial: BytesMut::new(), limits }
    }

    /// What an error answer (a status other than 200) holds, from its whole `body`: the
    /// server's plain text (what it refuses before the query runs: credentials, settings), or
    /// its frames, which may hold result blocks ahead of the exception (26.9 sends a failed
    /// query's first blocks with the status 500 when none had left its buffers yet: they are
    /// the rows an uncompressed answer would have streamed before the exception).
    pub(super) fn error_body(self, body: Vec<u8>, revision: Revision) -> ErrorBody {
        if http_exception(body.trim_ascii_start()).is_some() {
            return ErrorBody::Text(body);
        }
        let mut plain = BytesMut::new();
        // An error body is decoded whole: as much as a block may hold.
        match self.frames_of(&body, &mut plain, self.limits.max_block_bytes) {
            Ok(n) if n == body.len() => {}
            _ => return ErrorBody::Text(body),
        }
        if http_exception(&plain).is_some() {
            plain.truncate(MAX_ERROR_BODY);
            return ErrorBody::Text(plain.to_vec());
        }
        // Blocks first: the answer is whole if the exception follows them.
        let mut decoder = PacketDecoder::native_stream().with_limits(self.limits);
        decoder.set_revision(revision);
        let mut rest = plain.clone();
        loop {
            match decoder.decode(&mut rest) {
                Ok(Some(_)) if http_exception(&rest).is_some() => return ErrorBody::BlocksFirst(plain),
                Ok(Some(_)) if !rest.is_empty() => {}
                _ => return ErrorBody::Text(body),
            }
        }
    }

    fn write(&mut self, data: &[u8], into: &mut BytesMut) -> Result<(), chwire_proto::DecodeError> {
        if self.partial.is_empty() {
            // Whole frames straight from the data; only a frame's start is kept.
            let used = self.frames_of(data, into, usize::MAX)?;
            self.partial.extend_from_slice(data.get(used..).unwrap_or_default());
        } else {
            self.partial.extend_from_slice(data);
            let mut partial = std::mem::take(&mut self.partial);
            let used = self.frames_of(&partial, into, usize::MAX);
            if let Ok(n) = used {
                partial.advance(n);
            }
            self.partial = partial;
            used?;
        }
        Ok(())
    }

    /// Decompress the whole frames at the start of `data` into `into`: the bytes they took.
    /// No frame is started once `into` holds more than `cap` bytes.
    fn frames_of(&self, data: &[u8], into: &mut BytesMut, cap: usize) -> Result<usize, chwire_proto::DecodeError> {
        let mut used = 0;
        while let Some(rest) = data.get(used..).filter(|r| !r.is_empty()) {
            if into.len() > cap {
                return Err(chwire_proto::DecodeError::LimitExceeded {
                    what: "decompressed error body",
                    size: into.len() as u64,
                    limit: cap as u64,
                });
            }
            match decompress_frame_limited(rest, into, self.limits.max_frame_size) {
                Ok(n) => used += n,
                Err(ReadError::Incomplete { .. }) => break,
                Err(ReadError::Invalid(e)) => return Err(e),
            }
        }
        Ok(used)
    }
}

/// A ZSTD stream decoded push-wise (the context goes back to [`SPARE`] when dropped).
pub(super) struct Zstd {
    ctx: Option<ZstdContext<'static>>,
    out: Vec<u8>,
    /// Something was decoded, and the last frame is not complete yet.
    open: bool,
}

impl Zstd {
    fn new() -> std::io::Result<Zstd> {
        let ctx = match SPARE.with(|s| s.borrow_mut().take()) {
            Some(mut ctx) => {
                ctx.reinit()?;
                ctx
            }
            None => ZstdContext::new()?,
        };
        Ok(Zstd { ctx: Some(ctx), out: Vec::with_capacity(ZSTD_STEP), open: false })
    }

    fn write(&mut self, data: &[u8], into: &mut BytesMut) -> std::io::Result<()> {
        let Some(ctx) = self.ctx.as_mut() else { return Err(std::io::Error::other("the ZSTD decoder was given back")) };
        let mut input = InBuffer::around(data);
        loop {
            let mut out = OutBuffer::around(&mut self.out);
            let hint = ctx.run(&mut input, &mut out)?;
            let full = out.pos() == out.capacity();
            into.extend_from_slice(out.as_slice());
            if !data.is_empty() {
                self.open = hint != 0;
            }
            // Done when the input is used up and the output had room to spare (nothing held).
            if input.pos() == data.len() && !full {
                return Ok(());
            }
        }
    }
}

impl Drop for Zstd {
    fn drop(&mut self) {
        if let Some(ctx) = self.ctx.take() {
            // A thread being torn down has no spare slot: the context is then just freed.
            let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(ctx));
        }
    }
}

impl std::fmt::Debug for BodyDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl BodyDecoder {
    /// The decoder of a `Content-Encoding` (`None`: the body is as it is).
    pub(super) fn for_encoding(encoding: Option<&[u8]>) -> Result<Option<BodyDecoder>, Error> {
        let Some(e) = encoding else { return Ok(None) };
        if e.eq_ignore_ascii_case(b"gzip") {
            Ok(Some(BodyDecoder::Gzip(Box::new(flate2::write::GzDecoder::new(Vec::new())))))
        } else if e.eq_ignore_ascii_case(b"zstd") {
            let d = Zstd::new().map_err(|e| Error::protocol(format!("cannot start a ZSTD decoder: {e}")).caused_by(e))?;
            Ok(Some(BodyDecoder::Zstd(d)))
        } else if e.is_empty() || e.eq_ignore_ascii_case(b"identity") {
            Ok(None)
        } else {
            Err(Error::protocol(format!("the server's response has an encoding chwire did not ask for: {}", String::from_utf8_lossy(e))))
        }
    }

    fn name(&self) -> &'static str {
        match self {
            BodyDecoder::Gzip(_) => "gzip",
            BodyDecoder::Zstd(_) => "zstd",
            BodyDecoder::Frames(_) => "compress=1",
        }
    }

    fn error(&self, e: std::io::Error) -> Error {
        let what = match self {
            BodyDecoder::Frames(_) => "compressed response (ClickHouse's frames)".to_string(),
            d => format!("{}-encoded response", d.name()),
        };
        Error::protocol(format!("the server's {what} is corrupt: {e}")).caused_by(e)
    }

    /// Decode `data` and append what it gave to `out`.
    pub(super) fn write(&mut self, data: &[u8], out: &mut BytesMut) -> Result<(), Error> {
        let r = match self {
            BodyDecoder::Gzip(d) => d.write_all(data).map(|()| drain(d.get_mut(), out)),
            BodyDecoder::Zstd(d) => d.write(data, out),
            BodyDecoder::Frames(d) => d.write(data, out).map_err(std::io::Error::other),
        };
        r.map_err(|e| self.error(e))
    }

    /// The body's end: what the decoder still holds, appended to `out`; an error if the
    /// encoded stream was cut off.
    pub(super) fn finish(&mut self, out: &mut BytesMut) -> Result<(), Error> {
        let r = match self {
            BodyDecoder::Gzip(d) => d.try_finish().map(|()| drain(d.get_mut(), out)),
            BodyDecoder::Zstd(d) if d.open => Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the stream ends inside a frame")),
            BodyDecoder::Zstd(_) => Ok(()),
            BodyDecoder::Frames(d) if !d.partial.is_empty() => {
                Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the body ends {} bytes into a frame", d.partial.len())))
            }
            BodyDecoder::Frames(_) => Ok(()),
        };
        r.map_err(|e| self.error(e))
    }

    /// What was decoded so far, appended to `out`, on a body broken off (best effort).
    pub(super) fn salvage(&mut self, out: &mut BytesMut) {
        if let BodyDecoder::Gzip(d) = self {
            let _ = d.flush();
            drain(d.get_mut(), out);
        }
    }

    /// A whole encoded body (an error text), at most `limit` bytes of it decoded.
    pub(super) fn decode_all(mut self, body: &[u8], limit: usize) -> Result<Vec<u8>, Error> {
        let mut out = BytesMut::new();
        for chunk in body.chunks(64 << 10) {
            self.write(chunk, &mut out)?;
            if out.len() > limit {
                out.truncate(limit);
                return Ok(out.to_vec());
            }
        }
        self.finish(&mut out)?;
        out.truncate(limit);
        Ok(out.to_vec())
    }
}

fn drain(from: &mut Vec<u8>, out: &mut BytesMut) {
    out.extend_from_slice(from);
    from.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn both_encodings_decode_in_pieces() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        for (name, encoded) in [("gzip", gzip(&data)), ("zstd", zstd::encode_all(&data[..], 1).unwrap())] {
            for piece in [1usize, 7, 4096, usize::MAX] {
                let mut d = BodyDecoder::for_encoding(Some(name.as_bytes())).unwrap().unwrap();
                let mut out = BytesMut::new();
                for chunk in encoded.chunks(piece.min(encoded.len())) {
                    d.write(chunk, &mut out).unwrap();
                }
                d.finish(&mut out).unwrap();
                assert_eq!(&out[..], &data[..], "{name} in pieces of {piece}");
            }
            let d = BodyDecoder::for_encoding(Some(name.to_uppercase().as_bytes())).unwrap().unwrap();
            assert_eq!(d.decode_all(&encoded, 10).unwrap(), &data[..10]);
        }
    }

    #[test]
    fn a_cut_zstd_stream_is_an_error_and_the_context_is_reused() {
        let data = vec![7u8; 100_000];
        let encoded = zstd::encode_all(&data[..], 1).unwrap();
        let mut d = BodyDecoder::for_encoding(Some(b"zstd")).unwrap().unwrap();
        let mut out = BytesMut::new();
        d.write(&encoded[..encoded.len() - 3], &mut out).unwrap();
        let e = d.finish(&mut out).unwrap_err();
        assert!(e.to_string().contains("ends inside a frame"), "{e}");
        drop(d);
        // The next response on this thread takes the context back, reset.
        assert!(SPARE.with(|s| s.borrow().is_some()));
        let mut d = BodyDecoder::for_encoding(Some(b"zstd")).unwrap().unwrap();
        assert!(SPARE.with(|s| s.borrow().is_none()));
        let mut out = BytesMut::new();
        d.write(&encoded, &mut out).unwrap();
        d.finish(&mut out).unwrap();
        assert_eq!(&out[..], &data[..]);
        // Two frames back to back (and an empty body) decode too.
        let mut d = BodyDecoder::for_encoding(Some(b"zstd")).unwrap().unwrap();
        let mut out = BytesMut::new();
        d.write(&[encoded.clone(), encoded.clone()].concat(), &mut out).unwrap();
        d.finish(&mut out).unwrap();
        assert_eq!(out.len(), 2 * data.len());
        let mut d = BodyDecoder::for_encoding(Some(b"zstd")).unwrap().unwrap();
        d.finish(&mut BytesMut::new()).unwrap();
    }

    fn framed(method: chwire_proto::Compression, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        chwire_proto::compress::compress(method, data, &mut out);
        out
    }

    fn frames() -> BodyDecoder {
        BodyDecoder::Frames(Frames::new(Limits::default()))
    }

    #[test]
    fn frames_decode_in_pieces_and_a_cut_or_corrupt_body_is_an_error() {
        use chwire_proto::Compression::{Lz4, Zstd};
        // Over a MiB: the server's frames hold at most 1 MiB each, so several frames.
        let data: Vec<u8> = (0..700_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        for method in [Lz4, Zstd(1)] {
            let encoded = framed(method, &data);
            for piece in [1usize, 7, 4096, 1 << 20, usize::MAX] {
                let mut d = frames();
                let mut out = BytesMut::new();
                for chunk in encoded.chunks(piece.min(encoded.len())) {
                    d.write(chunk, &mut out).unwrap();
                }
                d.finish(&mut out).unwrap();
                assert!(out == data[..], "{method:?} in pieces of {piece}");
            }
            let mut d = frames();
            let mut out = BytesMut::new();
            d.write(&encoded[..encoded.len() - 3], &mut out).unwrap();
            let e = d.finish(&mut out).unwrap_err();
            assert!(e.to_string().contains("compressed response (ClickHouse's frames) is corrupt: the body ends"), "{e}");
            let mut bad = encoded.clone();
            bad[40] ^= 1;
            let e = frames().write(&bad, &mut BytesMut::new()).unwrap_err();
            assert!(e.to_string().contains("(ClickHouse's frames) is corrupt: compressed frame checksum mismatch"), "{e}");
        }
        // An empty body is an empty answer.
        frames().finish(&mut BytesMut::new()).unwrap();
    }

    #[test]
    fn an_error_body_of_frames_gives_its_exception_and_the_blocks_before_it() {
        let rev = Revision(54454);
        let exception = b"Code: 395. DB::Exception: Value passed to 'throwIf' function is non-zero. (version 26.9.2.1)\n";
        let text_of = |body: ErrorBody| match body {
            ErrorBody::Text(t) => t,
            ErrorBody::BlocksFirst(_) => panic!("blocks first"),
        };
        let new = || Frames::new(Limits::default());
        // Plain text (refused before the query ran) and framed text.
        assert_eq!(text_of(new().error_body(exception.to_vec(), rev)), exception);
        assert_eq!(text_of(new().error_body(framed(chwire_proto::Compression::Lz4, exception), rev)), exception);
        // Blocks, then the exception: the whole decompressed answer, read as a body.
        let block = chwire_proto::Block::new().with("n", chwire_proto::Column::from(vec![1u64, 2, 3])).unwrap();
        let mut plain = Vec::new();
        block.encode(rev, &mut plain);
        block.encode(rev, &mut plain);
        let blocks_only = framed(chwire_proto::Compression::Lz4, &plain);
        plain.extend_from_slice(exception);
        let body = framed(chwire_proto::Compression::Zstd(1), &plain);
        match new().error_body(body, rev) {
            ErrorBody::BlocksFirst(p) => assert!(p == plain[..]),
            ErrorBody::Text(t) => panic!("{}", String::from_utf8_lossy(&t)),
        }
        // Blocks and no exception, broken frames, an HTML page: the body as it came.
        assert_eq!(text_of(new().error_body(blocks_only.clone(), rev)), blocks_only);
        let cut = blocks_only[..blocks_only.len() - 1].to_vec();
        assert_eq!(text_of(new().error_body(cut.clone(), rev)), cut);
        let page = b"<html>502 Bad Gateway</html>".to_vec();
        assert_eq!(text_of(new().error_body(page.clone(), rev)), page);
        // Frames that expand beyond a block's limit are not decoded whole.
        let limits = Limits { max_block_bytes: 1000, ..Limits::default() };
        let big = framed(chwire_proto::Compression::Lz4, &[0u8; 3 << 20]);
        assert_eq!(text_of(Frames::new(limits).error_body(big.clone(), rev)), big);
    }

    #[test]
    fn unknown_and_corrupt_encodings_are_errors() {
        assert!(BodyDecoder::for_encoding(None).unwrap().is_none());
        assert!(BodyDecoder::for_encoding(Some(b"identity")).unwrap().is_none());
        let e = BodyDecoder::for_encoding(Some(b"br")).unwrap_err();
        assert!(e.to_string().contains("did not ask for: br"), "{e}");
        for name in ["gzip", "zstd"] {
            let mut d = BodyDecoder::for_encoding(Some(name.as_bytes())).unwrap().unwrap();
            let e = d.write(&[0x55; 64], &mut BytesMut::new()).unwrap_err();
            assert!(e.to_string().contains(&format!("{name}-encoded response is corrupt")), "{e}");
        }
    }
}
