//! Compressed frames: `[checksum 16][method 1][compressed_size 4][decompressed_size 4][payload]`.
//!
//! The checksum is CityHash128 v1.0.2 of everything after it, stored as two little-endian
//! u64 (CityHash's first, then second half). `compressed_size` counts the 9 header bytes.

use crate::error::{DecodeError, ReadError, ReadResult};
use crate::wire::Reader;

mod contexts;

/// Bytes of a frame's checksum.
pub const CHECKSUM_SIZE: usize = 16;
/// Bytes of a frame's header after the checksum: method (1), compressed size (4),
/// decompressed size (4).
pub const HEADER_SIZE: usize = 9;
/// Largest uncompressed payload per frame that chwire writes (the server's buffer size).
pub const MAX_FRAME_PAYLOAD: usize = 1 << 20;
/// Largest frame (either size) chwire accepts, as the server does.
pub const MAX_FRAME_SIZE: usize = crate::Limits::DEFAULT.max_frame_size;

const METHOD_NONE: u8 = 0x02;
const METHOD_LZ4: u8 = 0x82;
const METHOD_ZSTD: u8 = 0x90;

/// Compression of blocks on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Blocks are sent as they are (the Query packet's compression flag is 0).
    #[default]
    None,
    /// LZ4 (ClickHouse's default).
    Lz4,
    /// ZSTD at the given level (1..=22; ClickHouse's default is 1).
    Zstd(i32),
}

impl Compression {
    /// Whether blocks are compressed (anything but [`Compression::None`]).
    pub fn is_enabled(self) -> bool {
        !matches!(self, Compression::None)
    }
}

impl std::str::FromStr for Compression {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.to_ascii_lowercase();
        match lower.as_str() {
            "none" | "off" | "false" | "0" | "" => Ok(Compression::None),
            "lz4" | "true" | "1" | "on" => Ok(Compression::Lz4),
            "zstd" => Ok(Compression::Zstd(1)),
            _ => match lower.strip_prefix("zstd") {
                Some(level) => {
                    let level: i32 = level
                        .trim_start_matches([':', '('])
                        .trim_end_matches(')')
                        .parse()
                        .map_err(|_| format!("invalid zstd level in {s:?}"))?;
                    if !(1..=22).contains(&level) {
                        return Err(format!("zstd level {level} is outside 1..=22"));
                    }
                    Ok(Compression::Zstd(level))
                }
                None => Err(format!("unknown compression {s:?} (expected none, lz4, zstd or zstd:LEVEL)")),
            },
        }
    }
}

/// CityHash128 v1.0.2 of `data`, as a frame's checksum.
pub fn checksum(data: &[u8]) -> u128 {
    cityhash_rs::cityhash_102_128(data)
}

fn put_checksum(out: &mut [u8], sum: u128) {
    out[..8].copy_from_slice(&((sum >> 64) as u64).to_le_bytes());
    out[8..16].copy_from_slice(&(sum as u64).to_le_bytes());
}

/// The frame's 16 checksum bytes: two little-endian u64, the high half first.
#[cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
fn read_checksum(b: &[u8; CHECKSUM_SIZE]) -> u128 {
    let (first, second) = b.split_at(8);
    let half = |h: &[u8]| <[u8; 8]>::try_from(h).map_or(0, u64::from_le_bytes);
    (u128::from(half(first)) << 64) | u128::from(half(second))
}

/// Compress `data` into frames of at most [`MAX_FRAME_PAYLOAD`] input bytes each, appended to
/// `out`. With [`Compression::None`], `data` is appended as it is.
pub fn compress(method: Compression, data: &[u8], out: &mut Vec<u8>) {
    if method == Compression::None {
        out.extend_from_slice(data);
        return;
    }
    // An empty input still makes one (empty) frame: the receiver expects a frame per flush.
    let mut chunks: Vec<&[u8]> = data.chunks(MAX_FRAME_PAYLOAD).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    for chunk in chunks {
        let start = out.len();
        out.resize(start + CHECKSUM_SIZE + HEADER_SIZE, 0);
        let payload_start = out.len();
        let code = match method {
            Compression::Lz4 => {
                // liblz4 (the frames are the same as lz4_flex's): 10 % faster on W5's blocks
                // (308 MB in 0.275 s against 0.307 s), where compressing was 69 % of chwire's
                // CPU for W5 with LZ4.
                let bound = lz4_flex::block::get_maximum_output_size(chunk.len());
                out.resize(payload_start + bound, 0);
                #[allow(clippy::expect_used, reason = "the output is sized by get_maximum_output_size, above LZ4_compressBound")]
                let n =
                    lz4::block::compress_to_buffer(chunk, None, false, &mut out[payload_start..]).expect("output sized by the LZ4 bound");
                out.truncate(payload_start + n);
                METHOD_LZ4
            }
            Compression::Zstd(level) => {
                let bound = zstd::zstd_safe::compress_bound(chunk.len());
                out.resize(payload_start + bound, 0);
                #[allow(clippy::expect_used, reason = "the output is sized by compress_bound")]
                let n = contexts::compress(chunk, &mut out[payload_start..], level).expect("output sized by compress_bound");
                out.truncate(payload_start + n);
                METHOD_ZSTD
            }
            Compression::None => unreachable!(),
        };
        let compressed_size = (out.len() - start - CHECKSUM_SIZE) as u32;
        let h = start + CHECKSUM_SIZE;
        out[h] = code;
        out[h + 1..h + 5].copy_from_slice(&compressed_size.to_le_bytes());
        out[h + 5..h + 9].copy_from_slice(&(chunk.len() as u32).to_le_bytes());
        let sum = checksum(&out[h..]);
        put_checksum(&mut out[start..h], sum);
    }
}

/// Decode one frame from the start of `input`, appending its payload to `out`.
/// Returns the number of input bytes consumed; `Incomplete` if the frame is not all there.
pub fn decompress_frame(input: &[u8], out: &mut Vec<u8>) -> ReadResult<usize> {
    decompress_frame_limited(input, out, MAX_FRAME_SIZE)
}

/// [`decompress_frame`] accepting frames of at most `max_frame_size` bytes (either size;
/// [`Limits::max_frame_size`](crate::Limits::max_frame_size)).
#[cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
pub fn decompress_frame_limited(input: &[u8], out: &mut Vec<u8>, max_frame_size: usize) -> ReadResult<usize> {
    let mut r = Reader::new(input);
    let sum = read_checksum(&r.array::<CHECKSUM_SIZE>()?);
    let method = r.u8()?;
    let compressed_size = r.u32_le()? as usize;
    let decompressed_size = r.u32_le()? as usize;
    if compressed_size < HEADER_SIZE {
        return Err(
            DecodeError::malformed("compressed frame", format!("compressed size {compressed_size} is below the header size")).into()
        );
    }
    for (what, size) in [("compressed frame", compressed_size), ("decompressed frame", decompressed_size)] {
        if size > max_frame_size {
            return Err(DecodeError::LimitExceeded { what, size: size as u64, limit: max_frame_size as u64 }.into());
        }
    }
    // Both sizes are at most `max_frame_size`, and the compressed size at least the header's.
    let total = CHECKSUM_SIZE.saturating_add(compressed_size);
    let (Some(framed), Some(payload)) = (input.get(CHECKSUM_SIZE..total), input.get(CHECKSUM_SIZE + HEADER_SIZE..total)) else {
        return Err(ReadError::Incomplete { needed: total });
    };
    let actual = checksum(framed);
    if actual != sum {
        return Err(DecodeError::ChecksumMismatch { expected: sum, actual }.into());
    }
    // Allocate only what the payload can really produce: LZ4 expands at most ~255x, and a
    // ZSTD frame states its content size, which must agree with the header.
    match method {
        METHOD_LZ4 if decompressed_size > payload.len().saturating_mul(255).saturating_add(64) => {
            return Err(DecodeError::malformed("LZ4 frame", format!("{} bytes cannot expand to {decompressed_size}", payload.len())).into());
        }
        METHOD_ZSTD => match zstd::zstd_safe::get_frame_content_size(payload) {
            Ok(Some(n)) if n == decompressed_size as u64 => {}
            Ok(Some(n)) => {
                return Err(DecodeError::malformed("ZSTD frame", format!("frame content size {n}, header says {decompressed_size}")).into())
            }
            Ok(None) if decompressed_size <= payload.len().saturating_mul(1 << 10).max(1 << 20) => {}
            _ => return Err(DecodeError::malformed("ZSTD frame", "no usable content size").into()),
        },
        _ => {}
    }
    let start = out.len();
    match method {
        METHOD_NONE => {
            if payload.len() != decompressed_size {
                return Err(DecodeError::malformed("compressed frame", "uncompressed frame sizes disagree").into());
            }
            out.extend_from_slice(payload);
        }
        METHOD_LZ4 => {
            out.resize(start.saturating_add(decompressed_size), 0);
            let dst = out.get_mut(start..).unwrap_or_default();
            let n = if decompressed_size.checked_div(payload.len()).is_some_and(|r| r >= LZ4_RUNS_RATIO) {
                // Mostly long runs (a value repeated: zeros, defaults): matches that overlap
                // their own output, which lz4_flex copies a byte at a time (0.5 GB/s) and
                // liblz4 in wide steps (13 GB/s); on short matches lz4_flex is the faster.
                let size = i32::try_from(decompressed_size).map_err(|_| DecodeError::Decompression("LZ4 frame too large".into()))?;
                lz4::block::decompress_to_buffer(payload, Some(size), dst).map_err(|e| DecodeError::Decompression(format!("LZ4: {e}")))?
            } else {
                lz4_flex::block::decompress_into(payload, dst).map_err(|e| DecodeError::Decompression(format!("LZ4: {e}")))?
            };
            if n != decompressed_size {
                return Err(DecodeError::Decompression(format!("LZ4 frame produced {n} bytes, header says {decompressed_size}")).into());
            }
        }
        METHOD_ZSTD => {
            out.resize(start.saturating_add(decompressed_size), 0);
            let n = contexts::decompress(payload, out.get_mut(start..).unwrap_or_default())
                .map_err(|e| DecodeError::Decompression(format!("ZSTD: {e}")))?;
            if n != decompressed_size {
                return Err(DecodeError::Decompression(format!("ZSTD frame produced {n} bytes, header says {decompressed_size}")).into());
            }
        }
        m => return Err(DecodeError::UnsupportedCompression(m).into()),
    }
    Ok(total)
}

/// An LZ4 frame that expands this many times or more is decompressed by liblz4 (measured on
/// ClickHouse's frames, docs/BENCHMARKS.md "LZ4 frames": at 2x lz4_flex is 35-50 % faster, at
/// 2.5x they are even, at 4x liblz4 is 25 % faster, at 250x 25 times). 3, not 4: a frame that
/// holds numbers and then runs (W8 at 54492: 512 KiB of offsets, then 512 KiB of one repeated
/// byte) expands 3.9x, and lz4_flex took 0.15 s more of W8's CPU on those.
const LZ4_RUNS_RATIO: usize = 3;

/// Decompress a whole buffer of frames (e.g. a file), for tests and tools.
pub fn decompress_all(mut input: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let n = decompress_frame(input, &mut out).map_err(|e| e.into_complete(input.len()))?;
        input = input.get(n..).unwrap_or_default();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8 ^ (i / 1000) as u8).collect()
    }

    #[test]
    fn round_trips_every_method() {
        for method in [Compression::Lz4, Compression::Zstd(1), Compression::Zstd(9)] {
            for n in [0, 1, 1000, MAX_FRAME_PAYLOAD, MAX_FRAME_PAYLOAD * 2 + 17] {
                let data = sample(n);
                let mut framed = Vec::new();
                compress(method, &data, &mut framed);
                assert_eq!(decompress_all(&framed).unwrap(), data, "{method:?} {n}");
                let frames = n.div_ceil(MAX_FRAME_PAYLOAD).max(1);
                let mut count = 0;
                let mut rest = &framed[..];
                let mut sink = Vec::new();
                while !rest.is_empty() {
                    rest = &rest[decompress_frame(rest, &mut sink).unwrap()..];
                    count += 1;
                }
                assert_eq!(count, frames);
            }
        }
    }

    /// A frame written by hand: method NONE, payload "abc". The checksum is CityHash128
    /// v1.0.2 of the 12 bytes after it (value from the reference implementation's
    /// algorithm as packaged in cityhash-rs; the live-server tests prove the byte order).
    #[test]
    fn none_frame_layout() {
        let mut f = vec![0u8; 16];
        f.extend_from_slice(&[0x02, 12, 0, 0, 0, 3, 0, 0, 0]);
        f.extend_from_slice(b"abc");
        let sum = checksum(&f[16..]);
        put_checksum(&mut f[..16], sum);
        let mut out = Vec::new();
        assert_eq!(decompress_frame(&f, &mut out).unwrap(), f.len());
        assert_eq!(out, b"abc");
    }

    #[test]
    fn corrupted_checksum_and_payload_are_errors() {
        let mut framed = Vec::new();
        compress(Compression::Lz4, &sample(5000), &mut framed);
        let mut bad_sum = framed.clone();
        bad_sum[3] ^= 1;
        assert!(matches!(decompress_frame(&bad_sum, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::ChecksumMismatch { .. }))));
        let mut bad_payload = framed.clone();
        let last = bad_payload.len() - 1;
        bad_payload[last] ^= 0x55;
        assert!(matches!(decompress_frame(&bad_payload, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::ChecksumMismatch { .. }))));
    }

    /// Frames of long runs go to liblz4 (LZ4_RUNS_RATIO): what they hold, and a payload that
    /// does not decode (its checksum made right) is an error on either path.
    #[test]
    fn runs_and_bad_payloads_on_both_lz4_paths() {
        let mut runs = vec![0u8; MAX_FRAME_PAYLOAD];
        runs.iter_mut().step_by(70_000).for_each(|b| *b = 7);
        // Sequential UInt64s expand about 2x: lz4_flex's path (the other two are liblz4's).
        let numbers: Vec<u8> = (0..100_000u64).flat_map(|i| (i * 2_654_435_761 % 1_000_003).to_le_bytes()).collect();
        for data in [runs, sample(100_000), numbers] {
            let mut framed = Vec::new();
            compress(Compression::Lz4, &data, &mut framed);
            let ratio = data.len() / (framed.len() - 25);
            assert_eq!(ratio >= LZ4_RUNS_RATIO, data.len() != 800_000, "ratio {ratio} of {} bytes", data.len());
            let mut out = Vec::new();
            decompress_frame(&framed, &mut out).unwrap();
            assert_eq!(out, data);
            // The payload cut short by a byte, the header's sizes and the checksum made to agree.
            let mut bad = framed.clone();
            bad.pop();
            let compressed = u32::from_le_bytes(bad[17..21].try_into().unwrap()) - 1;
            bad[17..21].copy_from_slice(&compressed.to_le_bytes());
            let sum = checksum(&bad[16..]);
            put_checksum(&mut bad[..16], sum);
            assert!(
                matches!(decompress_frame(&bad, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::Decompression(_)))),
                "{}",
                data.len()
            );
        }
    }

    #[test]
    fn truncated_frames_are_incomplete_then_errors() {
        let mut framed = Vec::new();
        compress(Compression::Zstd(3), &sample(5000), &mut framed);
        for cut in [0, 10, 16, 24, 25, framed.len() - 1] {
            match decompress_frame(&framed[..cut], &mut Vec::new()) {
                Err(ReadError::Incomplete { needed }) => assert!(needed > cut),
                other => panic!("cut {cut}: {other:?}"),
            }
        }
        assert!(matches!(decompress_all(&framed[..framed.len() - 1]), Err(DecodeError::Truncated(1))));
    }

    #[test]
    fn bad_headers_are_errors() {
        let mut f = vec![0u8; 16];
        f.extend_from_slice(&[0x82, 3, 0, 0, 0, 3, 0, 0, 0]); // compressed size below 9
        assert!(matches!(decompress_frame(&f, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::Malformed { .. }))));
        let mut f = vec![0u8; 16];
        f.extend_from_slice(&[0x82, 9, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f]); // 2 GiB output
        assert!(matches!(decompress_frame(&f, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::LimitExceeded { .. }))));
        let mut f = vec![0u8; 16];
        f.extend_from_slice(&[0x91, 9, 0, 0, 0, 0, 0, 0, 0]);
        let sum = checksum(&f[16..]);
        put_checksum(&mut f[..16], sum);
        assert!(matches!(decompress_frame(&f, &mut Vec::new()), Err(ReadError::Invalid(DecodeError::UnsupportedCompression(0x91)))));
    }

    #[test]
    fn parses_compression_names() {
        assert_eq!("LZ4".parse::<Compression>().unwrap(), Compression::Lz4);
        assert_eq!("zstd:5".parse::<Compression>().unwrap(), Compression::Zstd(5));
        assert_eq!("none".parse::<Compression>().unwrap(), Compression::None);
        assert!("zstd:99".parse::<Compression>().is_err());
        assert!("gzip".parse::<Compression>().is_err());
    }
}
