//! The content encodings of HTTP responses (`enable_http_compression=1`): chwire asks for
//! `lz4, gzip` (`compression=lz4`) or `zstd, gzip` (`compression=zstd`) and the server picks.
//! ClickHouse 26.9 answers LZ4 frames or ZSTD; 18.16 knows neither and answers gzip. Either
//! costs the client a fraction of gzip's inflate (W3 with compression on 26.9: inflate was 8 %
//! of chwire's profile, and `init_tree` another 2 % per response). Each is decoded as the body
//! arrives, so blocks stream as the server sends them (ClickHouse's own frames, `compress=1`,
//! would not: docs/HTTP.md).

use std::cell::RefCell;
use std::io::Write;

use bytes::BytesMut;
use zstd::stream::raw::{Decoder as ZstdContext, InBuffer, Operation, OutBuffer};

use crate::error::Error;

/// What the client asks for, by its compression: the server takes the first it knows of its
/// own preference (26.9: ZSTD before LZ4 before gzip), so each list names one of them and gzip.
pub(super) fn accept(compression: chwire_proto::Compression) -> &'static str {
    match compression {
        chwire_proto::Compression::Zstd(_) => "zstd, gzip",
        _ => "lz4, gzip",
    }
}

/// Output room per step of the LZ4 frame decoder.
const LZ4_STEP: usize = 256 << 10;

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
    Lz4(Lz4),
}

/// An LZ4 frame stream (the LZ4 frame format, linked blocks as ClickHouse writes them)
/// decoded push-wise by liblz4's `LZ4F_decompress` straight into the receive buffer.
pub(super) struct Lz4 {
    ctx: lz4::liblz4::LZ4FDecompressionContext,
    /// Something was decoded, and the last frame is not complete yet.
    open: bool,
}

// SAFETY (for the `unsafe` blocks below): `ctx` is created by LZ4F_createDecompressionContext,
// used by one `&mut self` call at a time, and freed once in `drop`; every buffer handed to
// LZ4F_decompress is valid for the size passed with it, and the output's length is advanced by
// exactly the count liblz4 reports having written.
impl Lz4 {
    fn new() -> std::io::Result<Lz4> {
        let mut ctx = lz4::liblz4::LZ4FDecompressionContext(std::ptr::null_mut());
        // SAFETY: see above; `ctx` is written by liblz4.
        lz4::liblz4::check_error(unsafe { lz4::liblz4::LZ4F_createDecompressionContext(&mut ctx, lz4::liblz4::LZ4F_VERSION) })?;
        if ctx.0.is_null() {
            return Err(std::io::Error::other("liblz4 gave no decompression context"));
        }
        Ok(Lz4 { ctx, open: false })
    }

    /// Decode from `data` into `into` until `data` is used up or `into` has grown by `cap`
    /// bytes with input left: the input taken.
    fn write(&mut self, data: &[u8], into: &mut BytesMut, cap: usize) -> std::io::Result<usize> {
        let mut src = data;
        let start = into.len();
        loop {
            if into.len() - start >= cap && !src.is_empty() {
                return Ok(data.len() - src.len());
            }
            into.reserve(LZ4_STEP);
            let spare = into.spare_capacity_mut();
            let room = spare.len();
            let (mut written, mut read) = (room, src.len());
            // SAFETY: see above; `spare` is `room` bytes of the buffer's capacity.
            let hint = lz4::liblz4::check_error(unsafe {
                lz4::liblz4::LZ4F_decompress(
                    self.ctx,
                    spare.as_mut_ptr().cast::<u8>(),
                    &mut written,
                    src.as_ptr(),
                    &mut read,
                    std::ptr::null(),
                )
            })?;
            if written > room || read > src.len() {
                return Err(std::io::Error::other("liblz4 reported more than the buffers hold"));
            }
            // SAFETY: liblz4 initialised the first `written` bytes of the spare capacity.
            unsafe { into.set_len(into.len() + written) };
            src = src.get(read..).unwrap_or_default();
            // As in `Zstd::write`.
            self.open = hint != 0 && (self.open || read > 0);
            // Done when the input is used up and the output had room to spare (nothing held).
            if src.is_empty() && written < room {
                return Ok(data.len());
            }
            if read == 0 && written == 0 {
                return Err(std::io::Error::other("the LZ4 stream makes no progress"));
            }
        }
    }
}

impl Drop for Lz4 {
    fn drop(&mut self) {
        // SAFETY: see above; the context is not used after this.
        unsafe { lz4::liblz4::LZ4F_freeDecompressionContext(self.ctx) };
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

    /// As [`Lz4::write`].
    fn write(&mut self, data: &[u8], into: &mut BytesMut, cap: usize) -> std::io::Result<usize> {
        let Some(ctx) = self.ctx.as_mut() else { return Err(std::io::Error::other("the ZSTD decoder was given back")) };
        let mut input = InBuffer::around(data);
        let start = into.len();
        loop {
            if into.len() - start >= cap && input.pos() < data.len() {
                return Ok(input.pos());
            }
            let mut out = OutBuffer::around(&mut self.out);
            let taken = input.pos();
            let hint = ctx.run(&mut input, &mut out)?;
            let full = out.pos() == out.capacity();
            into.extend_from_slice(out.as_slice());
            // A frame is open once input of it was taken, until the decoder says it ended
            // (a last call that only flushes output asks for the next frame's header).
            self.open = hint != 0 && (self.open || input.pos() > taken);
            // Done when the input is used up and the output had room to spare (nothing held).
            if input.pos() == data.len() && !full {
                return Ok(data.len());
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
        } else if e.eq_ignore_ascii_case(b"lz4") {
            let d = Lz4::new().map_err(|e| Error::protocol(format!("cannot start an LZ4 decoder: {e}")).caused_by(e))?;
            Ok(Some(BodyDecoder::Lz4(d)))
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
            BodyDecoder::Lz4(_) => "lz4",
        }
    }

    fn error(&self, e: std::io::Error) -> Error {
        Error::protocol(format!("the server's {}-encoded response is corrupt: {e}", self.name())).caused_by(e)
    }

    /// Decode `data` and append what it gave to `out`.
    pub(super) fn write(&mut self, mut data: &[u8], out: &mut BytesMut) -> Result<(), Error> {
        while !data.is_empty() {
            let n = self.write_some(data, out, usize::MAX)?;
            data = data.get(n..).unwrap_or_default();
        }
        Ok(())
    }

    /// Decode from `data` into `out` until `data` is used up or `out` has grown by about `cap`
    /// bytes: the input taken (some whenever `data` is not empty). What one piece of a body
    /// gives is so bounded whatever its ratio (ZSTD's RLE blocks expand 32,000 times); the
    /// caller hands in the rest later.
    pub(super) fn write_some(&mut self, data: &[u8], out: &mut BytesMut, cap: usize) -> Result<usize, Error> {
        let r = match self {
            BodyDecoder::Gzip(d) => gzip_some(d, data, out, cap),
            BodyDecoder::Zstd(d) => d.write(data, out, cap),
            BodyDecoder::Lz4(d) => d.write(data, out, cap),
        };
        r.map_err(|e| self.error(e))
    }

    /// The body's end: what the decoder still holds, appended to `out`; an error if the
    /// encoded stream was cut off.
    pub(super) fn finish(&mut self, out: &mut BytesMut) -> Result<(), Error> {
        let r = match self {
            BodyDecoder::Gzip(d) => d.try_finish().map(|()| drain(d.get_mut(), out)),
            BodyDecoder::Zstd(Zstd { open: true, .. }) | BodyDecoder::Lz4(Lz4 { open: true, .. }) => {
                Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the stream ends inside a frame"))
            }
            BodyDecoder::Zstd(_) | BodyDecoder::Lz4(_) => Ok(()),
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

/// [`BodyDecoder::write_some`] for gzip: flate2 takes some input per call.
fn gzip_some(d: &mut flate2::write::GzDecoder<Vec<u8>>, data: &[u8], out: &mut BytesMut, cap: usize) -> std::io::Result<usize> {
    let (start, mut used) = (out.len(), 0);
    while used < data.len() && out.len() - start < cap {
        let n = d.write(data.get(used..).unwrap_or_default())?;
        drain(d.get_mut(), out);
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "the gzip stream takes no more data"));
        }
        used += n;
    }
    Ok(used)
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

    /// LZ4 frames as ClickHouse writes them: linked blocks of up to 256 KiB, level 1.
    fn lz4(data: &[u8]) -> Vec<u8> {
        let mut e = lz4::EncoderBuilder::new()
            .level(1)
            .block_size(lz4::BlockSize::Max256KB)
            .block_mode(lz4::BlockMode::Linked)
            .build(Vec::new())
            .unwrap();
        e.write_all(data).unwrap();
        let (out, r) = e.finish();
        r.unwrap();
        out
    }

    #[test]
    fn every_encoding_decodes_in_pieces() {
        // 800 KB that compress about 2x: several linked LZ4 blocks.
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        for (name, encoded) in [("gzip", gzip(&data)), ("zstd", zstd::encode_all(&data[..], 1).unwrap()), ("lz4", lz4(&data))] {
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

    #[test]
    fn lz4_streams_of_several_frames_runs_and_cuts() {
        // Runs expand 255x: one piece of input gives many steps of output.
        let runs = vec![0u8; 20 << 20];
        let text: Vec<u8> = (0..300_000u32).flat_map(|i| format!("{i},").into_bytes()).collect();
        let body = [lz4(&runs), lz4(&text), lz4(b"")].concat();
        for piece in [1usize, 13, 65536, usize::MAX] {
            let mut d = BodyDecoder::for_encoding(Some(b"LZ4")).unwrap().unwrap();
            let mut out = BytesMut::new();
            for chunk in body.chunks(piece.min(body.len())) {
                d.write(chunk, &mut out).unwrap();
            }
            d.finish(&mut out).unwrap();
            assert!(
                out.len() == runs.len() + text.len() && out[..runs.len()] == runs[..] && out[runs.len()..] == text[..],
                "pieces of {piece}"
            );
        }
        let encoded = lz4(&text);
        for cut in [3, 100, encoded.len() - 2] {
            let mut d = BodyDecoder::for_encoding(Some(b"lz4")).unwrap().unwrap();
            let mut out = BytesMut::new();
            d.write(&encoded[..cut], &mut out).unwrap();
            let e = d.finish(&mut out).unwrap_err();
            assert!(e.to_string().contains("lz4-encoded response is corrupt: the stream ends inside a frame"), "cut at {cut}: {e}");
        }
        // A block whose bytes were changed: liblz4's error, no panic, nothing past the buffer.
        let mut bad = encoded.clone();
        for b in &mut bad[20..60] {
            *b = 0xff;
        }
        let mut d = BodyDecoder::for_encoding(Some(b"lz4")).unwrap().unwrap();
        let e = d.write(&bad, &mut BytesMut::new()).unwrap_err();
        assert!(e.to_string().contains("lz4-encoded response is corrupt: LZ4 error"), "{e}");
    }

    #[test]
    fn a_body_that_expands_far_is_decoded_in_bounded_steps() {
        let zeros = vec![0u8; 64 << 20];
        let zstd_body = {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            for chunk in zeros.chunks(1 << 20) {
                e.write_all(chunk).unwrap();
            }
            e.finish().unwrap()
        };
        let cap = 8 << 20;
        for (name, body) in [("zstd", zstd_body), ("lz4", lz4(&zeros)), ("gzip", gzip(&zeros))] {
            assert!(body.len() < 1 << 20, "{name}: {} bytes", body.len());
            let mut d = BodyDecoder::for_encoding(Some(name.as_bytes())).unwrap().unwrap();
            let mut out = BytesMut::new();
            let (mut rest, mut steps) = (&body[..], 0);
            while !rest.is_empty() {
                let before = out.len();
                let n = d.write_some(rest, &mut out, cap).unwrap();
                assert!(n > 0, "{name}: no progress");
                // One step of the decoder past the bound at most (a block of the encoding).
                assert!(out.len() - before <= cap + (4 << 20), "{name}: {} bytes in one step", out.len() - before);
                out.clear();
                rest = &rest[n..];
                steps += 1;
            }
            d.finish(&mut out).unwrap();
            assert!(steps >= 8, "{name}: 64 MiB in {steps} steps of at most 8 MiB");
        }
    }

    #[test]
    fn unknown_and_corrupt_encodings_are_errors() {
        assert!(BodyDecoder::for_encoding(None).unwrap().is_none());
        assert!(BodyDecoder::for_encoding(Some(b"identity")).unwrap().is_none());
        let e = BodyDecoder::for_encoding(Some(b"br")).unwrap_err();
        assert!(e.to_string().contains("did not ask for: br"), "{e}");
        for name in ["gzip", "zstd", "lz4"] {
            let mut d = BodyDecoder::for_encoding(Some(name.as_bytes())).unwrap().unwrap();
            let e = d.write(&[0x55; 64], &mut BytesMut::new()).unwrap_err();
            assert!(e.to_string().contains(&format!("{name}-encoded response is corrupt")), "{e}");
        }
    }
}
