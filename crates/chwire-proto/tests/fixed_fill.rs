//! Columns filled as their bytes arrive (chwire-proto's `decoder/fill.rs` for fixed-width
//! columns, `decoder/fill_strings.rs` for Strings in either layout): the same packets
//! whichever pieces the bytes come in, on the 26.9 captures and on large hand-made blocks
//! whose values straddle the pieces; the receive buffer never holds a whole column;
//! allocation bounded by what arrived.

mod rng;
use rng::Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::BytesMut;
use chwire_proto::decoder::FILL_AHEAD;
use chwire_proto::wire::WriteExt;
use chwire_proto::{ColumnData, DecodeError, Limits, PacketDecoder, Revision, ServerPacket};

/// Counts the bytes live on the heap, to bound what a column reserves ahead of its bytes.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn note(delta: isize) {
    let now = if delta >= 0 {
        LIVE.fetch_add(delta as usize, Ordering::Relaxed) + delta as usize
    } else {
        LIVE.fetch_sub((-delta) as usize, Ordering::Relaxed) - (-delta) as usize
    };
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        note(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note(n as isize - l.size() as isize);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests of this file run one at a time: the heap counts are the process's.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most heap `f` held above what was live before it (under `serial()`).
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

const REVISION: u64 = 54492;

/// The packets of `bytes` fed in pieces of random sizes up to `max` (all at once for
/// `usize::MAX`), and the most bytes the buffer held after a `decode` that waited.
fn decode(bytes: &[u8], compressed: bool, max: usize, rng: &mut Rng) -> (Vec<ServerPacket>, usize) {
    decode_at(REVISION, bytes, compressed, max, rng)
}

/// [`decode`] at protocol revision `revision`.
fn decode_at(revision: u64, bytes: &[u8], compressed: bool, max: usize, rng: &mut Rng) -> (Vec<ServerPacket>, usize) {
    let mut d = PacketDecoder::new(revision);
    d.set_revision(Revision(revision));
    d.set_compression(compressed);
    let mut buf = BytesMut::new();
    let (mut out, mut held, mut at) = (Vec::new(), 0, 0);
    loop {
        while buf.len() >= d.needed() {
            match d.decode(&mut buf) {
                Ok(Some(p)) => out.push(p),
                Ok(None) => {
                    assert!(d.needed() > buf.len(), "Ok(None) with needed() = {} and {} bytes buffered", d.needed(), buf.len());
                    held = held.max(buf.len());
                    break;
                }
                Err(e) => panic!("{e} (pieces up to {max})"),
            }
        }
        if at == bytes.len() {
            break;
        }
        let n = if max == usize::MAX { bytes.len() - at } else { (rng.below(max) + 1).min(bytes.len() - at) };
        buf.extend_from_slice(&bytes[at..at + n]);
        at += n;
    }
    assert!(buf.is_empty(), "{} bytes left over (pieces up to {max})", buf.len());
    assert!(!d.is_mid_packet(), "ends mid-packet (pieces up to {max})");
    (out, held)
}

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packets26").join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {} is missing ({e})", path.display()))
}

/// A Data packet of one block (revision 54492: BlockInfo, no custom serialization) with
/// `columns` of `rows` rows, each (name, type, wire bytes of its data).
fn data_packet(rows: usize, columns: &[(&str, &str, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![1u8, 0]; // Data, no temporary table name
    out.extend_from_slice(&[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 3, 0, 0]); // BlockInfo
    out.put_varuint(columns.len() as u64);
    out.put_varuint(rows as u64);
    for (name, ty, data) in columns {
        out.put_str(name);
        out.put_str(ty);
        out.push(0); // default serialization
        out.extend_from_slice(data);
    }
    out
}

/// A large block of every fixed-width family (widths 1 to 16 and FixedString(3), whose
/// values straddle reads at any offset), with an Enum and Strings between them (the buffered
/// path), then EndOfStream.
fn large_stream(rows: usize) -> Vec<u8> {
    let bytes_of = |width: usize| (0..rows * width).map(|i| (i * 7 + i / 251) as u8).collect::<Vec<u8>>();
    // Offsets (end of each value) of values of i % 5 bytes, then the bytes.
    let mut ends = Vec::new();
    let mut total = 0u64;
    for i in 0..rows {
        total += (i % 5) as u64;
        ends.extend_from_slice(&total.to_le_bytes());
    }
    ends.extend(std::iter::repeat_n(b'x', total as usize));
    let enums: Vec<u8> = (0..rows).map(|i| (i % 2 + 1) as u8).collect();
    let mut out = data_packet(
        rows,
        &[
            ("u64", "UInt64", bytes_of(8)),
            ("u8", "UInt8", bytes_of(1)),
            ("s", "String", ends),
            ("fs", "FixedString(3)", bytes_of(3)),
            ("e", "Enum8('a' = 1, 'b' = 2)", enums),
            ("i128", "Int128", bytes_of(16)),
            // Floats that are numbers (NaN is unequal to itself).
            ("f32", "Float32", (0..rows).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect()),
            ("d", "Date", bytes_of(2)),
        ],
    );
    out.push(5); // EndOfStream
    out
}

#[test]
fn every_capture_decodes_the_same_in_pieces() {
    let _serial = serial();
    let mut rng = Rng(0x0d12_ec70_0000_0001);
    for (name, compressed) in [
        ("select_1", false),
        ("all_types", false),
        ("all_types_zstd", true),
        ("strings", false),
        ("current_types", false),
        ("totals_extremes", false),
        ("exception_mid_stream", false),
        ("logs", false),
        ("group_by", false),
        ("sparse", false),
        ("replicated", false),
        ("insert", false),
        ("select_lz4_multiframe", true),
    ] {
        let bytes = fixture(name);
        let (whole, _) = decode(&bytes, compressed, usize::MAX, &mut rng);
        assert!(!whole.is_empty(), "{name}");
        for max in [1, 7, 300, 5000] {
            assert_eq!(decode(&bytes, compressed, max, &mut rng).0, whole, "{name}: pieces up to {max}");
        }
    }
}

#[test]
fn large_blocks_decode_the_same_whichever_way_the_bytes_come() {
    let _serial = serial();
    let mut rng = Rng(0x0d12_ec70_0000_0002);
    // 200,000 rows: the UInt64 and Int128 columns (1.6 and 3.2 MB) outgrow FILL_AHEAD, so
    // their storage grows while values arrive in part.
    let rows = 200_000;
    let bytes = large_stream(rows);
    let (whole, _) = decode(&bytes, false, usize::MAX, &mut rng);
    assert_eq!(whole.len(), 2);
    let ServerPacket::Data(b) = &whole[0] else { panic!("{:?}", whole[0]) };
    assert_eq!(b.rows(), rows);
    let u64s = b.column("u64").and_then(|c| c.as_u64()).unwrap();
    assert_eq!(u64s[1], u64::from_le_bytes(std::array::from_fn(|i| ((8 + i) * 7) as u8)));
    assert!(matches!(b.column("fs").unwrap().data(), ColumnData::Fixed { width: 3, data } if data.len() == rows * 3));
    assert_eq!(b.column("f32").and_then(|c| c.as_f32()).unwrap()[3], 1.5);
    for max in [1 << 10, 1 << 16, 3 << 20] {
        let (sliced, held) = decode(&bytes, false, max, &mut rng);
        assert_eq!(sliced, whole, "pieces up to {max}");
        // Waiting for a fixed-width or String column, the buffer holds at most a value in
        // part: only the Enum (checked whole) waits in it, never the String column (1.6 MB of
        // offsets, 0.4 MB of bytes) nor the 3.2 MB Int128 column.
        assert!(held <= rows + max, "the buffer held {held} bytes (pieces up to {max})");
    }
    // Odd piece sizes: storage grows while a value is in part.
    for piece in [999_999, 1_048_579] {
        let mut d = PacketDecoder::new(REVISION);
        d.set_revision(Revision(REVISION));
        let (mut buf, mut out) = (BytesMut::new(), Vec::new());
        for chunk in bytes.chunks(piece) {
            buf.extend_from_slice(chunk);
            while let Some(p) = d.decode(&mut buf).unwrap() {
                out.push(p);
            }
        }
        assert_eq!(out, whole, "pieces of {piece}");
    }
}

#[test]
fn a_fixed_width_column_waits_with_an_empty_buffer() {
    let _serial = serial();
    let bytes = large_stream(1000);
    let mut d = PacketDecoder::new(REVISION);
    d.set_revision(Revision(REVISION));
    // The headers and 100 of the first column's 8000 bytes: taken out of the buffer.
    let head = data_packet(1000, &[("u64", "UInt64", Vec::new())]).len();
    let mut buf = BytesMut::from(&bytes[..head + 100]);
    assert_eq!(d.decode(&mut buf), Ok(None));
    assert!(buf.is_empty() && d.is_mid_packet());
    assert_eq!(d.needed(), 1);
    // Then one byte at a time up to the column's last but one.
    for i in head + 100..head + 7999 {
        buf.extend_from_slice(&bytes[i..i + 1]);
        assert_eq!(d.decode(&mut buf), Ok(None));
        assert!(buf.is_empty());
    }
    // The rest of the stream: the block and EndOfStream.
    buf.extend_from_slice(&bytes[head + 7999..]);
    let Ok(Some(ServerPacket::Data(b))) = d.decode(&mut buf) else { panic!("no block") };
    assert_eq!(b.column("u64").and_then(|c| c.as_u64()).unwrap().len(), 1000);
    assert_eq!(d.decode(&mut buf), Ok(Some(ServerPacket::EndOfStream)));
}

#[test]
fn allocation_ahead_of_the_bytes_is_bounded() {
    let _serial = serial();
    // 2^27 UInt64 rows (1 GiB, within the default limits) with no values yet: the column
    // reserves FILL_AHEAD, not what the row count claims.
    let claim = data_packet(1 << 27, &[("a", "UInt64", Vec::new())]);
    let mut d = PacketDecoder::new(REVISION);
    d.set_revision(Revision(REVISION));
    let mut buf = BytesMut::from(&claim[..]);
    let (res, peak) = peak_during(|| d.decode(&mut buf));
    assert_eq!(res, Ok(None));
    assert!(peak <= FILL_AHEAD + 4096, "reserved {peak} bytes ahead of any value");
    assert_eq!(d.needed(), 1);
    // As bytes arrive, the storage grows at most to twice what arrived (or FILL_AHEAD).
    let mut arrived = 0usize;
    for step in [FILL_AHEAD / 2, FILL_AHEAD, 3 * FILL_AHEAD] {
        buf.extend_from_slice(&vec![0u8; step]);
        arrived += step;
        let (res, peak) = peak_during(|| d.decode(&mut buf));
        assert_eq!(res, Ok(None));
        assert!(buf.is_empty());
        assert!(peak <= 2 * arrived.max(FILL_AHEAD) + 4096, "held {peak} more bytes after {arrived} arrived");
    }
    // A claim beyond the block limit is an error before anything is reserved.
    let mut d = PacketDecoder::new(REVISION).with_limits(Limits { max_block_bytes: 1 << 20, ..Limits::DEFAULT });
    d.set_revision(Revision(REVISION));
    let claim = data_packet(1 << 17, &[("a", "UInt64", Vec::new())]);
    let mut buf = BytesMut::from(&claim[..]);
    let (res, peak) = peak_during(|| d.decode(&mut buf));
    assert!(matches!(res, Err(DecodeError::LimitExceeded { what: "block bytes", .. })), "{res:?}");
    assert!(peak < 4096, "reserved {peak} bytes for a refused column");
}

/// A revision with custom serialization but before the String sizes stream (54492): Strings
/// come as length-prefixed values.
const PREFIXED: u64 = 54460;

/// Length-prefixed values of `i * 7 % modulo` bytes (prefixes of one and two bytes).
fn prefixed_strings(rows: usize, modulo: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..rows {
        let len = i * 7 % modulo;
        out.put_varuint(len as u64);
        out.extend((0..len).map(|j| b'a' + ((i + j) % 26) as u8));
    }
    out
}

/// The same values in the sizes layout of 54492: the end offsets, then the bytes.
fn sized_strings(rows: usize, modulo: usize) -> Vec<u8> {
    let (mut ends, mut bytes) = (Vec::new(), Vec::new());
    for i in 0..rows {
        let len = i * 7 % modulo;
        bytes.extend((0..len).map(|j| b'a' + ((i + j) % 26) as u8));
        ends.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    }
    ends.extend_from_slice(&bytes);
    ends
}

/// Two String columns around a UInt64 one, in one block, then EndOfStream: uncompressed, or
/// with the block in LZ4 frames of at most `frame` bytes; in the layout of `revision`.
fn strings_stream(rows: usize, frame: Option<usize>) -> Vec<u8> {
    strings_stream_at(PREFIXED, rows, frame)
}

fn strings_stream_at(revision: u64, rows: usize, frame: Option<usize>) -> Vec<u8> {
    let strings = if revision >= 54492 { sized_strings } else { prefixed_strings };
    let packet = data_packet(
        rows,
        &[
            ("s", "String", strings(rows, 300)),
            ("n", "UInt64", (0..rows as u64).flat_map(u64::to_le_bytes).collect()),
            ("t", "String", strings(rows, 5)),
        ],
    );
    let mut out = match frame {
        None => packet,
        Some(frame) => {
            // Code and table name stay outside the frames.
            let mut out = packet[..2].to_vec();
            for part in packet[2..].chunks(frame) {
                chwire_proto::compress::compress(chwire_proto::Compression::Lz4, part, &mut out);
            }
            out
        }
    };
    out.push(5); // EndOfStream
    out
}

#[test]
fn prefixed_strings_decode_the_same_whichever_way_the_bytes_come() {
    let _serial = serial();
    let mut rng = Rng(0x0d12_ec70_0000_0003);
    // 100,000 rows: 15 MB of the first String column, in values of 0-299 bytes.
    let rows = 100_000;
    let bytes = strings_stream(rows, None);
    let (whole, _) = decode_at(PREFIXED, &bytes, false, usize::MAX, &mut rng);
    assert_eq!(whole.len(), 2);
    let ServerPacket::Data(b) = &whole[0] else { panic!("{:?}", whole[0]) };
    let s = b.column("s").and_then(|c| c.as_strings()).unwrap();
    assert_eq!((s.len(), s.get(0), s.get(1), s.get(2)), (rows, &b""[..], &b"bcdefgh"[..], &b"cdefghijklmnop"[..]));
    assert_eq!(s.get(rows - 1).len(), (rows - 1) * 7 % 300);
    assert_eq!(b.column("t").and_then(|c| c.as_strings()).unwrap().get(4), b"efghijklmnopqrstuvwxyzabcd".get(..4 * 7 % 5).unwrap());
    for max in [1, 7, 1 << 10, 1 << 16, 3 << 20] {
        let (sliced, held) = decode_at(PREFIXED, &bytes, false, max, &mut rng);
        assert_eq!(sliced, whole, "pieces up to {max}");
        // Waiting for a String column, the buffer holds at most the value in part (or the
        // UInt64 column, filled as it comes: nothing).
        assert!(held <= max + 300, "the buffer held {held} bytes (pieces up to {max})");
    }
    // The same block in frames of 64 KiB and 1 MiB, its bytes in pieces.
    for frame in [64 << 10, 1 << 20] {
        let bytes = strings_stream(rows, Some(frame));
        assert_eq!(decode_at(PREFIXED, &bytes, true, usize::MAX, &mut rng).0, whole, "frames of {frame}");
        for max in [1, 5000, 1 << 20] {
            assert_eq!(decode_at(PREFIXED, &bytes, true, max, &mut rng).0, whole, "frames of {frame}, pieces up to {max}");
        }
    }
}

#[test]
fn sized_strings_decode_the_same_whichever_way_the_bytes_come() {
    let _serial = serial();
    let mut rng = Rng(0x0d12_ec70_0000_0004);
    let rows = 50_000;
    // The same values as the length-prefixed stream's, whole and in pieces, plain and in frames.
    let (want, _) = decode_at(PREFIXED, &strings_stream(rows, None), false, usize::MAX, &mut rng);
    for frame in [None, Some(64 << 10), Some(1 << 20)] {
        let bytes = strings_stream_at(REVISION, rows, frame);
        for max in [usize::MAX, 1, 7, 5000, 1 << 20] {
            let (got, held) = decode_at(REVISION, &bytes, frame.is_some(), max, &mut rng);
            assert_eq!(got, want, "frames {frame:?}, pieces up to {max}");
            if frame.is_none() && max != usize::MAX {
                // At most an offset or a column head in part.
                assert!(held <= max + 64, "the buffer held {held} bytes (pieces up to {max})");
            }
        }
    }
}

#[test]
fn bad_string_columns_name_the_column() {
    let _serial = serial();
    // Offsets that decrease (54492), and an 11-byte length prefix (54460), arriving in pieces.
    let sized = data_packet(2, &[("s", "String", [&5u64.to_le_bytes()[..], &3u64.to_le_bytes(), b"hello"].concat())]);
    let prefixed = data_packet(1, &[("p", "String", vec![0xff; 11])]);
    for (revision, bytes, column) in [(REVISION, sized, "\"s\""), (PREFIXED, prefixed, "\"p\"")] {
        for piece in [1, bytes.len()] {
            let mut d = PacketDecoder::new(revision);
            d.set_revision(Revision(revision));
            let mut buf = BytesMut::new();
            let mut outcome = Ok(None);
            for chunk in bytes.chunks(piece) {
                buf.extend_from_slice(chunk);
                outcome = d.decode(&mut buf);
                if outcome.is_err() {
                    break;
                }
            }
            let Err(e) = outcome else { panic!("{column}: {outcome:?}") };
            assert!(e.to_string().contains(&format!("column {column}")), "{e}");
        }
    }
}

#[test]
fn prefixed_strings_keep_the_limits() {
    let _serial = serial();
    // A value longer than max_string_len, arriving in pieces: refused once its prefix is in.
    let mut d = PacketDecoder::new(PREFIXED).with_limits(Limits { max_string_len: 100, ..Limits::DEFAULT });
    d.set_revision(Revision(PREFIXED));
    let bytes = data_packet(3, &[("s", "String", [&b"\x02ab"[..], &[101], &[b'x'; 101]].concat())]);
    let mut buf = BytesMut::from(&bytes[..bytes.len() - 50]);
    let res = d.decode(&mut buf);
    assert!(matches!(res, Err(DecodeError::LimitExceeded { what: "string bytes", size: 101, .. })), "{res:?}");
    // A column growing past max_block_bytes while its values arrive.
    let mut d = PacketDecoder::new(PREFIXED).with_limits(Limits { max_block_bytes: 1 << 20, ..Limits::DEFAULT });
    d.set_revision(Revision(PREFIXED));
    let bytes = strings_stream(20_000, None);
    let mut buf = BytesMut::new();
    let mut outcome = Ok(None);
    for chunk in bytes.chunks(4096) {
        buf.extend_from_slice(chunk);
        outcome = d.decode(&mut buf);
        if outcome.is_err() {
            break;
        }
    }
    assert!(matches!(outcome, Err(DecodeError::LimitExceeded { what: "block bytes", .. })), "{outcome:?}");
    // The sizes layout: a String column whose offsets claim more than the block has left is
    // refused once its offsets are in, before any of its bytes.
    let mut d = PacketDecoder::new(REVISION).with_limits(Limits { max_block_bytes: 1 << 20, ..Limits::DEFAULT });
    d.set_revision(Revision(REVISION));
    let bytes = data_packet(1, &[("f", "FixedString(600000)", vec![0; 600_000]), ("s", "String", 600_000u64.to_le_bytes().to_vec())]);
    let mut buf = BytesMut::from(&bytes[..]);
    let res = d.decode(&mut buf);
    assert!(matches!(res, Err(DecodeError::LimitExceeded { what: "block bytes", .. })), "{res:?}");
}
