//! The packet decoder on bytes captured from a real server, byte for byte and offline.
//!
//! The fixtures in `tests/fixtures/packets/` were recorded from ClickHouse 18.16.1 (revision
//! 54412) by `crates/chwire/harness/capture_fixtures.rs`; `tests/fixtures/README.md` says how,
//! and `MANIFEST.md` next to them lists the client packets and SQL of each. A missing fixture
//! fails the tests: they are never regenerated here.
//!
//! Besides the decoded content of every fixture, the tests check that the decoder gives the
//! same packets however the bytes are split (one byte at a time, random chunks, exactly what
//! `needed()` asks for), that no prefix of a stream is an error, and how corrupt, truncated,
//! unknown and absurd input is handled.

mod rng;
use rng::Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Range;
use std::path::PathBuf;

use bytes::BytesMut;
use chwire_proto::block::BlockInfo;
use chwire_proto::compress::{checksum, decompress_all, decompress_frame};
use chwire_proto::decoder::DecoderLimits;
use chwire_proto::packet::server::TableStatus;
use chwire_proto::wire::WriteExt;
use chwire_proto::{Block, DataType, DecodeError, PacketDecoder, ProfileInfo, Progress, Revision, ServerHello, ServerPacket, Value};

/// The server the fixtures come from.
const SERVER_REVISION: u64 = 54412;
/// The revision the capture announced (chwire-proto's `CLIENT_REVISION` at the time).
const ANNOUNCED_REVISION: u64 = 54465;

const METHOD_LZ4: u8 = 0x82;
const METHOD_ZSTD: u8 = 0x90;

/// Every fixture and whether its blocks are compressed (`compression = 1` in the query).
const FIXTURES: &[(&str, bool)] = &[
    ("handshake", false),
    ("handshake_wrong_password", false),
    ("ping", false),
    ("select_1", false),
    ("empty_result", false),
    ("syntax_error", false),
    ("exception_mid_stream", false),
    ("logs", false),
    ("logs_lz4", true),
    ("totals_extremes", false),
    ("totals_extremes_lz4", true),
    ("select_lz4", true),
    ("select_zstd", true),
    ("select_lz4_multiframe", true),
    ("all_types", false),
    ("all_types_zstd", true),
    ("unsupported_type", false),
    ("create_table", false),
    ("insert", false),
    ("tables_status", false),
];

/// Fixtures chwire cannot decode to the end, by design.
const UNDECODABLE: &[&str] = &["unsupported_type"];

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packets")
}

/// The bytes of a fixture; a missing file fails the test.
fn fixture(name: &str) -> Vec<u8> {
    let path = fixture_dir().join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "fixture {} is missing ({e}); capture it from a running server with \
             `cargo run -p chwire --example capture_fixtures -- crates/chwire-proto/tests/fixtures/packets`",
            path.display()
        )
    })
}

fn is_compressed(name: &str) -> bool {
    FIXTURES.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("unknown fixture {name}")).1
}

/// A decoder in the state the capture's connection was in when the recorded bytes began.
fn decoder_for(name: &str) -> PacketDecoder {
    let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
    if !name.starts_with("handshake") {
        // The bytes start after ServerHello: the revision was negotiated already.
        d.set_revision(Revision(SERVER_REVISION));
    }
    d.set_compression(is_compressed(name));
    d
}

fn decodable() -> impl Iterator<Item = &'static str> {
    FIXTURES.iter().map(|(n, _)| *n).filter(|n| !UNDECODABLE.contains(n))
}

/// Decode a whole stream; every byte must be used.
fn decode_bytes(name: &str, bytes: &[u8]) -> Vec<ServerPacket> {
    packet_spans(name, bytes).into_iter().map(|(_, p)| p).collect()
}

fn decode(name: &str) -> Vec<ServerPacket> {
    decode_bytes(name, &fixture(name))
}

/// Each packet with the byte range it came from.
fn packet_spans(name: &str, bytes: &[u8]) -> Vec<(Range<usize>, ServerPacket)> {
    let mut d = decoder_for(name);
    let mut buf = BytesMut::from(bytes);
    let mut out = Vec::new();
    loop {
        let start = bytes.len() - buf.len();
        match d.decode(&mut buf) {
            Ok(Some(p)) => out.push((start..bytes.len() - buf.len(), p)),
            Ok(None) => break,
            Err(e) => panic!("{name}: decode error after {} packets at byte {start}: {e}", out.len()),
        }
    }
    assert!(buf.is_empty(), "{name}: {} bytes left undecoded", buf.len());
    assert!(!d.is_mid_packet(), "{name}: decoder is mid-packet at the end");
    out
}

fn names(packets: &[ServerPacket]) -> Vec<&'static str> {
    packets.iter().map(ServerPacket::name).collect()
}

fn block(p: &ServerPacket) -> &Block {
    match p {
        ServerPacket::Data(b)
        | ServerPacket::Totals(b)
        | ServerPacket::Extremes(b)
        | ServerPacket::Log(b)
        | ServerPacket::ProfileEvents(b) => b,
        other => panic!("expected a block packet, got {}", other.name()),
    }
}

/// Column names and canonical type names.
fn schema(b: &Block) -> Vec<(String, String)> {
    b.columns().iter().map(|(n, c)| (n.clone(), c.data_type().to_string())).collect()
}

fn schema_of(cols: &[(&str, &str)]) -> Vec<(String, String)> {
    cols.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
}

fn values<'a>(b: &'a Block, column: &str) -> Vec<Value<'a>> {
    let c = b.column(column).unwrap_or_else(|| panic!("no column {column}"));
    (0..c.len()).map(|i| c.value(i)).collect()
}

fn strings(b: &Block, column: &str) -> Vec<String> {
    let s = b.column(column).and_then(|c| c.as_strings()).unwrap_or_else(|| panic!("no String column {column}"));
    s.iter().map(|v| String::from_utf8(v.to_vec()).unwrap()).collect()
}

fn exception(p: &ServerPacket) -> &chwire_proto::ServerException {
    match p {
        ServerPacket::Exception(e) => e,
        other => panic!("expected an Exception, got {}", other.name()),
    }
}

fn progress(p: &ServerPacket) -> Progress {
    match p {
        ServerPacket::Progress(p) => *p,
        other => panic!("expected Progress, got {}", other.name()),
    }
}

fn profile_info(p: &ServerPacket) -> ProfileInfo {
    match p {
        ServerPacket::ProfileInfo(i) => *i,
        other => panic!("expected ProfileInfo, got {}", other.name()),
    }
}

/// The end-of-data marker: a Data packet with an empty block and default BlockInfo.
fn assert_end_of_data(p: &ServerPacket) {
    let b = block(p);
    assert!(matches!(p, ServerPacket::Data(_)));
    assert!(b.is_empty(), "expected the empty block, got {} columns, {} rows", b.num_columns(), b.rows());
    assert_eq!(b.info, BlockInfo::default());
}

/// A compressed frame: (start, total length, method, compressed size, decompressed size).
#[derive(Debug, Clone, Copy)]
struct Frame {
    start: usize,
    len: usize,
    method: u8,
    decompressed: usize,
}

/// The frames of a compressed block packet: after the packet type and the (plain) table name.
fn frames(bytes: &[u8], span: &Range<usize>) -> Vec<Frame> {
    let mut pos = span.start + 2; // type (1 byte) and the empty table name
    let mut out = Vec::new();
    while pos < span.end {
        let method = bytes[pos + 16];
        let compressed = u32::from_le_bytes(bytes[pos + 17..pos + 21].try_into().unwrap()) as usize;
        let decompressed = u32::from_le_bytes(bytes[pos + 21..pos + 25].try_into().unwrap()) as usize;
        out.push(Frame { start: pos, len: 16 + compressed, method, decompressed });
        pos += 16 + compressed;
    }
    assert_eq!(pos, span.end, "frames do not end with the packet");
    out
}

/// Feed `bytes` in the chunk sizes `chunk` returns, calling `decode` after every chunk until
/// it returns `Ok(None)`. Returns the packets.
fn feed_in_chunks(name: &str, bytes: &[u8], mut chunk: impl FnMut() -> usize) -> Vec<ServerPacket> {
    let mut d = decoder_for(name);
    let mut buf = BytesMut::new();
    let mut fed = 0;
    let mut out = Vec::new();
    while fed < bytes.len() {
        let n = chunk().clamp(1, bytes.len() - fed);
        buf.extend_from_slice(&bytes[fed..fed + n]);
        fed += n;
        loop {
            match d.decode(&mut buf) {
                Ok(Some(p)) => out.push(p),
                Ok(None) => {
                    assert!(
                        d.needed() > buf.len(),
                        "{name}: Ok(None) with {} bytes buffered but needed() = {} (at byte {fed})",
                        buf.len(),
                        d.needed()
                    );
                    break;
                }
                Err(e) => panic!("{name}: error on a prefix of {fed} bytes (after {} packets): {e}", out.len()),
            }
        }
    }
    assert!(buf.is_empty() && !d.is_mid_packet(), "{name}: {} bytes left over", buf.len());
    out
}

// Allocation accounting per thread, to check that absurd sizes allocate nothing big.

struct CountingAlloc;

thread_local! {
    static ALLOCATED: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn note_alloc(delta: isize) {
    let _ = ALLOCATED.try_with(|a| {
        let now = a.get() + delta;
        a.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: every method forwards to the system allocator unchanged; the bookkeeping only
// touches const-initialized thread-locals, which never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size() as isize);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size() as isize);
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_alloc(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Run `f` and return its result with the most memory this thread held meanwhile, above
/// what it held before.
fn peak_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = ALLOCATED.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, (peak - start).max(0) as usize)
}

// ---------------------------------------------------------------------------------------
// The fixture files
// ---------------------------------------------------------------------------------------

/// Every fixture exists, every `.bin` in the folder is tested, and each `.hex` twin shows
/// exactly the bytes of its `.bin`.
#[test]
fn fixture_files_are_complete_and_hex_twins_match() {
    let mut missing = Vec::new();
    for (name, _) in FIXTURES {
        for ext in ["bin", "hex"] {
            if !fixture_dir().join(format!("{name}.{ext}")).is_file() {
                missing.push(format!("{name}.{ext}"));
            }
        }
    }
    assert!(missing.is_empty(), "missing fixture files in {}: {missing:?}", fixture_dir().display());
    assert!(fixture_dir().join("MANIFEST.md").is_file(), "MANIFEST.md is missing");

    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = file.strip_suffix(".bin") {
            assert!(FIXTURES.iter().any(|(n, _)| *n == stem), "fixture {file} is not listed in FIXTURES (so it is not tested)");
        }
    }

    for (name, _) in FIXTURES {
        let bin = fixture(name);
        let hex = std::fs::read_to_string(fixture_dir().join(format!("{name}.hex"))).unwrap();
        let mut from_hex = Vec::new();
        for (i, line) in hex.lines().enumerate() {
            let (offset, rest) = line.split_once(": ").unwrap_or_else(|| panic!("{name}.hex line {i}: no offset"));
            assert_eq!(usize::from_str_radix(offset, 16).unwrap(), i * 16, "{name}.hex line {i}: offset");
            let digits: String = rest.chars().take(40).filter(|c| *c != ' ').collect();
            for pair in digits.as_bytes().chunks(2) {
                from_hex.push(u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap());
            }
        }
        assert_eq!(from_hex, bin, "{name}.hex does not show the bytes of {name}.bin");
    }
}

// ---------------------------------------------------------------------------------------
// Decoded content, fixture by fixture
// ---------------------------------------------------------------------------------------

#[test]
fn handshake() {
    let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
    let mut buf = BytesMut::from(&fixture("handshake")[..]);
    let p = d.decode(&mut buf).unwrap().unwrap();
    assert!(buf.is_empty());
    assert_eq!(
        p,
        ServerPacket::Hello(ServerHello {
            name: "ClickHouse".into(),
            version_major: 18,
            version_minor: 16,
            version_patch: 1,
            revision: SERVER_REVISION,
            timezone: Some("Etc/UTC".into()),
            display_name: Some("vm".into()),
            password_complexity_rules: Vec::new(),
            nonce: None,
            ..Default::default()
        })
    );
    // Decoding Hello sets the negotiated revision: min(announced, server).
    assert_eq!(d.revision(), Revision(SERVER_REVISION));
    // The exact bytes: name, 18, 16, revision 54412 as VarUInt, timezone, display name, patch.
    assert_eq!(fixture("handshake"), b"\x00\x0aClickHouse\x12\x10\x8c\xa9\x03\x07Etc/UTC\x02vm\x01");
}

#[test]
fn handshake_wrong_password() {
    let packets = decode("handshake_wrong_password");
    assert_eq!(names(&packets), ["Exception"]);
    let e = exception(&packets[0]);
    assert_eq!(e.code, 193);
    assert_eq!(e.class, "DB::Exception");
    // 18.16 repeats the class name inside the message.
    assert_eq!(e.message, "DB::Exception: Wrong password for user default");
    assert!(e.stack_trace.starts_with("0. "), "stack trace: {:?}", e.stack_trace);
    assert!(e.nested.is_none());
}

#[test]
fn ping() {
    assert_eq!(fixture("ping"), [4]);
    assert_eq!(decode("ping"), [ServerPacket::Pong]);
}

#[test]
fn select_1() {
    let packets = decode("select_1");
    assert_eq!(names(&packets), ["Data", "Data", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    let header = block(&packets[0]);
    assert_eq!(schema(header), schema_of(&[("1", "UInt8")]));
    assert_eq!(header.rows(), 0);
    assert_eq!(header.info, BlockInfo::default());
    let data = block(&packets[1]);
    assert_eq!(schema(data), schema_of(&[("1", "UInt8")]));
    assert_eq!(data.rows(), 1);
    assert_eq!(data.column("1").unwrap().as_u8(), Some(&[1u8][..]));
    assert_eq!(
        profile_info(&packets[2]),
        ProfileInfo {
            rows: 1,
            blocks: 1,
            bytes: 9,
            applied_limit: false,
            rows_before_limit: 0,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[3]), Progress { read_rows: 1, read_bytes: 1, ..Default::default() });
    assert_end_of_data(&packets[4]);
    assert_eq!(packets[5], ServerPacket::EndOfStream);
}

#[test]
fn empty_result() {
    let packets = decode("empty_result");
    assert_eq!(names(&packets), ["Data", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    assert_eq!(schema(block(&packets[0])), schema_of(&[("number", "UInt64")]));
    assert_eq!(block(&packets[0]).rows(), 0);
    assert_eq!(
        profile_info(&packets[1]),
        ProfileInfo {
            rows: 0,
            blocks: 0,
            bytes: 0,
            applied_limit: true,
            rows_before_limit: 0,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[2]), Progress::default());
    assert_end_of_data(&packets[3]);
}

#[test]
fn syntax_error() {
    let packets = decode("syntax_error");
    assert_eq!(names(&packets), ["Exception"]);
    let e = exception(&packets[0]);
    assert_eq!(e.code, 62);
    assert_eq!(e.class, "DB::Exception");
    assert!(e.message.starts_with("DB::Exception: Syntax error: failed at position 1: SELEC 1. Expected one of: "), "{:?}", e.message);
    assert!(!e.stack_trace.is_empty());
    assert!(e.nested.is_none());
}

#[test]
fn exception_mid_stream() {
    let packets = decode("exception_mid_stream");
    assert_eq!(names(&packets), ["Data", "Data", "Data", "Data", "Exception"]);
    assert_eq!(schema(block(&packets[0])), schema_of(&[("t", "UInt8")]));
    for p in &packets[1..4] {
        assert_eq!(block(p).column("t").unwrap().as_u8(), Some(&[0u8][..]));
    }
    let e = exception(&packets[4]);
    assert_eq!(e.code, 395);
    assert_eq!(e.message, "DB::Exception: Value passed to 'throwIf' function is non zero");
}

/// Log blocks (send_logs_level=trace): the 18.16 schema has `thread_number UInt32` where
/// newer servers send `thread_id UInt64`; the block comes after the end-of-data marker.
fn check_logs(name: &str) {
    let packets = decode(name);
    assert_eq!(names(&packets), ["Data", "Data", "ProfileInfo", "Progress", "Data", "Log", "EndOfStream"]);
    assert_eq!(block(&packets[1]).column("1").unwrap().as_u8(), Some(&[1u8][..]));
    assert_end_of_data(&packets[4]);
    let log = block(&packets[5]);
    assert_eq!(
        schema(log),
        schema_of(&[
            ("event_time", "DateTime"),
            ("event_time_microseconds", "UInt32"),
            ("host_name", "String"),
            ("query_id", "String"),
            ("thread_number", "UInt32"),
            ("priority", "Int8"),
            ("source", "String"),
            ("text", "String"),
        ])
    );
    assert_eq!(log.rows(), 1);
    assert_eq!(strings(log, "query_id"), [format!("chwire-fixture-{name}")]);
    assert_eq!(strings(log, "host_name"), ["vm"]);
    assert_eq!(strings(log, "source"), ["executeQuery"]);
    assert_eq!(values(log, "priority"), [Value::Int(6)]); // Information
    let text = &strings(log, "text")[0];
    assert!(text.starts_with("Read 1 rows, 1.00 B in "), "{text:?}");
    let t = log.column("event_time").unwrap().as_u32().unwrap()[0];
    assert!(t > 1_500_000_000, "event_time {t}");
    assert!(log.column("event_time_microseconds").unwrap().as_u32().unwrap()[0] < 1_000_000);
}

#[test]
fn logs() {
    check_logs("logs");
}

/// With compression on, Data blocks are compressed frames but the Log block is plain
/// (revision < 54481).
#[test]
fn logs_lz4_log_block_is_not_compressed() {
    check_logs("logs_lz4");
    let bytes = fixture("logs_lz4");
    let spans = packet_spans("logs_lz4", &bytes);
    for (span, p) in &spans {
        let raw = &bytes[span.clone()];
        match p {
            ServerPacket::Data(_) => {
                assert_eq!(raw[..2], [1, 0]);
                assert!(frames(&bytes, span).iter().all(|f| f.method == METHOD_LZ4));
            }
            ServerPacket::Log(_) => {
                // type 10, table name "", BlockInfo (1: 0, 2: -1, end), 8 columns, 1 row: in clear.
                assert_eq!(raw[..12], [0x0a, 0x00, 0x01, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0x00, 0x08, 0x01]);
            }
            _ => {}
        }
    }
}

fn check_totals_extremes(name: &str) {
    let packets = decode(name);
    assert_eq!(names(&packets), ["Data", "Data", "Totals", "Extremes", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    let cols = schema_of(&[("k", "UInt8"), ("c", "UInt64"), ("s", "UInt64")]);
    for p in &packets[..4] {
        assert_eq!(schema(block(p)), cols);
        assert_eq!(block(p).info, BlockInfo::default());
    }
    let data = block(&packets[1]);
    assert_eq!(data.column("k").unwrap().as_u8(), Some(&[0u8, 1, 2][..]));
    assert_eq!(data.column("c").unwrap().as_u64(), Some(&[4u64, 3, 3][..]));
    assert_eq!(data.column("s").unwrap().as_u64(), Some(&[18u64, 12, 15][..]));
    let totals = block(&packets[2]);
    assert_eq!(totals.rows(), 1);
    assert_eq!(totals.column("k").unwrap().as_u8(), Some(&[0u8][..]));
    assert_eq!(totals.column("c").unwrap().as_u64(), Some(&[10u64][..]));
    assert_eq!(totals.column("s").unwrap().as_u64(), Some(&[45u64][..]));
    let extremes = block(&packets[3]);
    assert_eq!(extremes.rows(), 2);
    assert_eq!(extremes.column("k").unwrap().as_u8(), Some(&[0u8, 2][..]));
    assert_eq!(extremes.column("c").unwrap().as_u64(), Some(&[3u64, 4][..]));
    assert_eq!(extremes.column("s").unwrap().as_u64(), Some(&[12u64, 18][..]));
    // 18.16 reports applied_limit for ORDER BY without LIMIT.
    assert_eq!(
        profile_info(&packets[4]),
        ProfileInfo {
            rows: 3,
            blocks: 1,
            bytes: 51,
            applied_limit: true,
            rows_before_limit: 3,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[5]), Progress { read_rows: 10, read_bytes: 80, ..Default::default() });
    assert_end_of_data(&packets[6]);
}

#[test]
fn totals_extremes() {
    check_totals_extremes("totals_extremes");
}

#[test]
fn totals_extremes_lz4() {
    check_totals_extremes("totals_extremes_lz4");
    // Totals and Extremes are compressed like Data.
    let bytes = fixture("totals_extremes_lz4");
    for (span, p) in packet_spans("totals_extremes_lz4", &bytes) {
        if matches!(p, ServerPacket::Totals(_) | ServerPacket::Extremes(_)) {
            let f = frames(&bytes, &span);
            assert_eq!(f.len(), 1);
            assert_eq!(f[0].method, METHOD_LZ4);
        }
    }
}

fn check_small_compressed(name: &str, method: u8) {
    let bytes = fixture(name);
    let spans = packet_spans(name, &bytes);
    let packets: Vec<ServerPacket> = spans.iter().map(|(_, p)| p.clone()).collect();
    assert_eq!(names(&packets), ["Data", "Data", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    assert_eq!(schema(block(&packets[0])), schema_of(&[("n", "UInt64"), ("s", "String")]));
    let data = block(&packets[1]);
    assert_eq!(data.column("n").unwrap().as_u64(), Some(&[0u64, 1, 2, 3, 4][..]));
    assert_eq!(strings(data, "s"), ["0", "1", "2", "3", "4"]);
    assert_eq!(
        profile_info(&packets[2]),
        ProfileInfo {
            rows: 5,
            blocks: 1,
            bytes: 90,
            applied_limit: true,
            rows_before_limit: 5,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[3]), Progress { read_rows: 5, read_bytes: 40, ..Default::default() });
    assert_end_of_data(&packets[4]);
    // Header, data and end marker: each one frame of the requested method.
    for i in [0, 1, 4] {
        let f = frames(&bytes, &spans[i].0);
        assert_eq!(f.len(), 1, "packet {i}");
        assert_eq!(f[0].method, method, "packet {i}");
    }
    // The end marker decompresses to the empty block's bytes.
    let end = &spans[4].0;
    assert_eq!(decompress_all(&bytes[end.start + 2..end.end]).unwrap(), b"\x01\x00\x02\xff\xff\xff\xff\x00\x00\x00");
}

#[test]
fn select_lz4() {
    check_small_compressed("select_lz4", METHOD_LZ4);
}

#[test]
fn select_zstd() {
    check_small_compressed("select_zstd", METHOD_ZSTD);
}

/// A 1.2 MB block arrives in two frames: the server cuts frames at its 1 MiB buffer.
#[test]
fn select_lz4_multiframe() {
    let bytes = fixture("select_lz4_multiframe");
    let spans = packet_spans("select_lz4_multiframe", &bytes);
    let packets: Vec<ServerPacket> = spans.iter().map(|(_, p)| p.clone()).collect();
    assert_eq!(names(&packets), ["Data", "Data", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    let data = block(&packets[1]);
    assert_eq!(schema(data), schema_of(&[("x", "UInt64")]));
    assert_eq!(data.rows(), 150_000);
    let x = data.column("x").unwrap().as_u64().unwrap();
    assert!(x.iter().enumerate().all(|(i, &v)| v == i as u64 % 7));
    let f = frames(&bytes, &spans[1].0);
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f.iter().all(|f| f.method == METHOD_LZ4));
    assert_eq!(f[0].decompressed, 1 << 20);
    // BlockInfo (8) + counts (1 + 3) + "x" (2) + "UInt64" (7) + 150000 values.
    assert_eq!(f[0].decompressed + f[1].decompressed, 8 + 4 + 2 + 7 + 150_000 * 8);
    assert_eq!(
        profile_info(&packets[2]),
        ProfileInfo {
            rows: 150_000,
            blocks: 1,
            bytes: 1_200_000,
            applied_limit: true,
            rows_before_limit: 150_000,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[3]), Progress { read_rows: 150_000, read_bytes: 1_200_000, ..Default::default() });
}

fn check_all_types(name: &str) {
    use Value::*;
    let packets = decode(name);
    assert_eq!(names(&packets), ["Data", "Data", "ProfileInfo", "Progress", "Data", "EndOfStream"]);
    let expected_schema = schema_of(&[
        ("u8", "UInt8"),
        ("u16", "UInt16"),
        ("u32", "UInt32"),
        ("u64", "UInt64"),
        ("i8", "Int8"),
        ("i16", "Int16"),
        ("i32", "Int32"),
        ("i64", "Int64"),
        ("f32", "Float32"),
        ("f64", "Float64"),
        ("s", "String"),
        ("fs", "FixedString(4)"),
        ("d", "Date"),
        ("dt_utc", "DateTime('UTC')"),
        ("dt_tokyo", "DateTime('Asia/Tokyo')"),
        // The server orders enum elements by value.
        ("e8", "Enum8('b' = -2, 'a' = 1)"),
        ("e16", "Enum16('x' = -1000, 'y' = 0, 'z' = 1000)"),
        ("uuid", "UUID"),
        ("n_i32", "Nullable(Int32)"),
        ("n_s", "Nullable(String)"),
        ("arr_u8", "Array(UInt8)"),
        ("arr_s", "Array(String)"),
        ("arr_arr", "Array(Array(UInt8))"),
        ("arr_arr_ns", "Array(Array(Nullable(String)))"),
        ("arr_n", "Array(Nullable(UInt8))"),
    ]);
    let header = block(&packets[0]);
    assert_eq!(schema(header), expected_schema);
    assert_eq!(header.rows(), 0);
    let b = block(&packets[1]);
    assert_eq!(schema(b), expected_schema);
    assert_eq!(b.rows(), 3);

    // Typed storage.
    assert_eq!(b.column("u8").unwrap().as_u8(), Some(&[0u8, 127, 255][..]));
    assert_eq!(b.column("u16").unwrap().as_u16(), Some(&[0u16, 1000, 65535][..]));
    assert_eq!(b.column("u32").unwrap().as_u32(), Some(&[0u32, 100_000, u32::MAX][..]));
    assert_eq!(b.column("u64").unwrap().as_u64(), Some(&[0u64, 10_000_000_000, u64::MAX][..]));
    assert_eq!(b.column("i8").unwrap().as_i8(), Some(&[i8::MIN, 0, i8::MAX][..]));
    assert_eq!(b.column("i16").unwrap().as_i16(), Some(&[i16::MIN, -1, i16::MAX][..]));
    assert_eq!(b.column("i32").unwrap().as_i32(), Some(&[i32::MIN, -1, i32::MAX][..]));
    assert_eq!(b.column("i64").unwrap().as_i64(), Some(&[i64::MIN, -1, i64::MAX][..]));
    assert_eq!(b.column("f32").unwrap().as_f32(), Some(&[1.5f32, -0.25, f32::MAX][..]));
    assert_eq!(b.column("f64").unwrap().as_f64(), Some(&[0.1f64, -2.5, 1e308][..]));
    assert_eq!(b.column("s").unwrap().as_strings().unwrap().offsets(), &[0, 0, 6, 14]);
    assert_eq!(strings(b, "s"), ["", "héllo", "tab\there"]);
    assert_eq!(b.column("d").unwrap().as_u16(), Some(&[0u16, 17898, 49672][..]));
    assert_eq!(b.column("dt_utc").unwrap().as_u32(), Some(&[0u32, 1_546_398_245, 4_291_747_199][..]));
    assert_eq!(b.column("dt_tokyo").unwrap().as_u32(), Some(&[946_652_400u32, 1_546_365_845, 1_593_486_000][..]));
    assert_eq!(b.column("e8").unwrap().as_i8(), Some(&[1i8, -2, 1][..]));
    assert_eq!(b.column("e16").unwrap().as_i16(), Some(&[-1000i16, 0, 1000][..]));
    let n = b.column("n_i32").unwrap().as_nullable().unwrap();
    assert_eq!(n.nulls, [0, 1, 0]);
    let arr = b.column("arr_u8").unwrap().as_array().unwrap();
    assert_eq!(arr.offsets, [0, 0, 1, 3]);

    // Values.
    let uuid = |s: &str| {
        let hex: std::string::String = s.chars().filter(|c| *c != '-').collect();
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        }
        Uuid(out)
    };
    let utc = Some("UTC");
    let tokyo = Some("Asia/Tokyo");
    let expected: Vec<(&str, Vec<Value>)> = vec![
        ("fs", vec![FixedString(b"ab\0\0"), FixedString(b"\0\0\0\0"), FixedString(b"wxyz")]),
        ("d", vec![Date(0), Date(17898), Date(49672)]),
        ("dt_utc", vec![DateTime(0, utc), DateTime(1_546_398_245, utc), DateTime(4_291_747_199, utc)]),
        ("dt_tokyo", vec![DateTime(946_652_400, tokyo), DateTime(1_546_365_845, tokyo), DateTime(1_593_486_000, tokyo)]),
        ("e8", vec![Enum("a", 1), Enum("b", -2), Enum("a", 1)]),
        ("e16", vec![Enum("x", -1000), Enum("y", 0), Enum("z", 1000)]),
        (
            "uuid",
            vec![
                uuid("00000000-0000-0000-0000-000000000000"),
                uuid("61f0c404-5cb3-11e7-907b-a6006ad3dba0"),
                uuid("ffffffff-ffff-ffff-ffff-ffffffffffff"),
            ],
        ),
        ("n_i32", vec![Int(0), Null, Int(20)]),
        ("n_s", vec![Null, String(b"x"), String(b"yz")]),
        ("arr_u8", vec![Array(vec![]), Array(vec![UInt(1)]), Array(vec![UInt(2), UInt(3)])]),
        ("arr_s", vec![Array(vec![String(b"a")]), Array(vec![]), Array(vec![String(b"b"), String(b"")])]),
        ("arr_arr", vec![Array(vec![Array(vec![UInt(1), UInt(2)]), Array(vec![])]), Array(vec![]), Array(vec![Array(vec![UInt(3)])])]),
        (
            "arr_arr_ns",
            vec![Array(vec![Array(vec![String(b"a"), Null])]), Array(vec![Array(vec![]), Array(vec![String(b"")])]), Array(vec![])],
        ),
        ("arr_n", vec![Array(vec![Null]), Array(vec![UInt(1), Null]), Array(vec![])]),
    ];
    for (column, want) in expected {
        assert_eq!(values(b, column), want, "{name}: column {column}");
    }
    // The UUID's wire order: each 8-byte half reversed.
    let wire = match b.column("uuid").unwrap().data() {
        chwire_proto::ColumnData::Fixed { width: 16, data } => data[16..32].to_vec(),
        other => panic!("UUID storage {other:?}"),
    };
    assert_eq!(wire, [0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61, 0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90]);

    assert_eq!(
        profile_info(&packets[2]),
        ProfileInfo {
            rows: 3,
            blocks: 1,
            bytes: 562,
            applied_limit: true,
            rows_before_limit: 3,
            calculated_rows_before_limit: true,
            ..Default::default()
        }
    );
    assert_eq!(progress(&packets[3]), Progress { read_rows: 3, read_bytes: 24, ..Default::default() });
    assert_end_of_data(&packets[4]);
}

#[test]
fn all_types() {
    check_all_types("all_types");
}

#[test]
fn all_types_zstd() {
    check_all_types("all_types_zstd");
    // Same blocks with and without compression.
    assert_eq!(decode("all_types")[..2], decode("all_types_zstd")[..2]);
}

/// The `unsupported_type` fixture was captured when chwire had no Decimal codec; Decimal
/// now decodes to its unscaled value.
#[test]
fn decimal_from_the_unsupported_type_fixture() {
    let packets = decode("unsupported_type");
    let data = packets
        .iter()
        .find_map(|p| match p {
            ServerPacket::Data(b) if b.rows() > 0 => Some(b),
            _ => None,
        })
        .expect("a data block");
    let col = data.column("d").unwrap();
    assert_eq!(col.data_type(), &DataType::Decimal { precision: 9, scale: 2 });
    assert_eq!(col.value(0), Value::Decimal { raw: 150, scale: 2 });
}

/// A type without a codec is a typed error at the header block, not a desync.
#[test]
fn unsupported_type_is_a_typed_error() {
    let packet = data_packet(1, 0, &[("v", "Object('json')")]);
    let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
    d.set_revision(Revision(SERVER_REVISION));
    let mut buf = BytesMut::from(&packet[..]);
    assert_eq!(d.decode(&mut buf), Err(DecodeError::UnsupportedType("Object('json')".into())));
}

/// An aggregate function whose state layout chwire does not know: its header block decodes,
/// its data is a typed error naming the function.
#[test]
fn unknown_aggregate_state_is_a_typed_error() {
    let mut packet = data_packet(1, 1, &[("q", "AggregateFunction(quantiles(0.5), UInt64)")]);
    packet.extend_from_slice(&[0; 16]);
    let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
    d.set_revision(Revision(SERVER_REVISION));
    let mut buf = BytesMut::from(&packet[..]);
    match d.decode(&mut buf) {
        Err(DecodeError::UnsupportedType(m)) => assert!(m.contains("quantiles"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn create_table() {
    assert_eq!(decode("create_table"), [ServerPacket::EndOfStream]);
}

/// 18.16 sends no TableColumns packet (even for a table with DEFAULTs) and no Progress after
/// the data: just the header block and, after the client's blocks, EndOfStream.
#[test]
fn insert() {
    let packets = decode("insert");
    assert_eq!(names(&packets), ["Data", "EndOfStream"]);
    let header = block(&packets[0]);
    assert_eq!(schema(header), schema_of(&[("id", "UInt32"), ("s", "String"), ("n", "Nullable(UInt8)")]));
    assert_eq!(header.rows(), 0);
}

/// Only tables that exist are listed.
#[test]
fn tables_status() {
    assert_eq!(
        decode("tables_status"),
        [ServerPacket::TablesStatus(vec![TableStatus {
            database: "chwire_fixtures".into(),
            table: "t".into(),
            is_replicated: false,
            absolute_delay: 0,
            is_readonly: false
        }])]
    );
}

// ---------------------------------------------------------------------------------------
// However the bytes arrive
// ---------------------------------------------------------------------------------------

#[test]
fn one_byte_at_a_time_gives_the_same_packets() {
    for name in decodable() {
        let bytes = fixture(name);
        assert_eq!(feed_in_chunks(name, &bytes, || 1), decode(name), "{name}");
    }
}

#[test]
fn random_chunks_give_the_same_packets() {
    for name in decodable() {
        let bytes = fixture(name);
        let reference = decode(name);
        for seed in 1..=8u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let max = [3, 17, 100, 1000, 5000][seed as usize % 5];
            assert_eq!(feed_in_chunks(name, &bytes, || 1 + rng.below(max)), reference, "{name}, seed {seed}");
        }
    }
}

/// Feeding exactly what `needed()` asks for: every call makes progress, and the hint never
/// asks for bytes beyond the end of the stream (which would stall a real connection).
#[test]
fn needed_hint_is_exact_enough() {
    for name in decodable() {
        let bytes = fixture(name);
        let mut d = decoder_for(name);
        let mut buf = BytesMut::new();
        let mut fed = 0;
        let mut packets = Vec::new();
        loop {
            let want = d.needed();
            if buf.len() < want {
                let remaining = bytes.len() - fed;
                if remaining == 0 {
                    break;
                }
                assert!(
                    want - buf.len() <= remaining,
                    "{name}: needed() = {want} with {} bytes buffered, but the stream has only {remaining} more",
                    buf.len()
                );
                let n = want - buf.len();
                buf.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
            }
            let (len, needed) = (buf.len(), d.needed());
            match d.decode(&mut buf) {
                Ok(Some(p)) => packets.push(p),
                Ok(None) => {
                    assert!(buf.len() < len || d.needed() > needed, "{name}: no progress with {len} bytes (needed() = {needed})");
                    assert!(d.needed() > buf.len(), "{name}: Ok(None) but needed() = {} <= {}", d.needed(), buf.len());
                }
                Err(e) => panic!("{name}: {e}"),
            }
        }
        assert!(buf.is_empty() && !d.is_mid_packet(), "{name}: stream ended mid-packet");
        assert_eq!(packets, decode(name), "{name}");
    }
}

/// Every strict prefix of a stream decodes to a prefix of its packets and then `Ok(None)`,
/// never to an error or a panic.
#[test]
fn every_prefix_is_incomplete_never_an_error() {
    for name in decodable() {
        let bytes = fixture(name);
        let reference = decode(name);
        for cut in 0..bytes.len() {
            let mut d = decoder_for(name);
            let mut buf = BytesMut::from(&bytes[..cut]);
            let mut got = Vec::new();
            loop {
                match d.decode(&mut buf) {
                    Ok(Some(p)) => got.push(p),
                    Ok(None) => break,
                    Err(e) => panic!("{name}: prefix of {cut} bytes: error {e} after {} packets", got.len()),
                }
            }
            assert!(got.len() < reference.len(), "{name}: prefix of {cut} bytes gave every packet");
            assert_eq!(got[..], reference[..got.len()], "{name}: prefix of {cut} bytes");
            assert!(d.needed() > buf.len(), "{name}: prefix of {cut} bytes: needed() = {} <= {}", d.needed(), buf.len());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Corrupt, truncated, unknown and absurd input
// ---------------------------------------------------------------------------------------

/// Decode until the first error; returns the packets before it and the error.
fn decode_until_error(name: &str, bytes: &[u8]) -> (Vec<ServerPacket>, Option<DecodeError>) {
    let mut d = decoder_for(name);
    let mut buf = BytesMut::from(bytes);
    let mut out = Vec::new();
    loop {
        match d.decode(&mut buf) {
            Ok(Some(p)) => out.push(p),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// Flip one byte in the checksum, the frame header and the payload of each frame of the
/// first non-empty Data block: each is a checksum mismatch, after the packets before it.
#[test]
fn corrupt_frames_are_checksum_mismatches() {
    for name in ["select_lz4", "select_zstd", "select_lz4_multiframe", "all_types_zstd", "totals_extremes_lz4"] {
        let bytes = fixture(name);
        let spans = packet_spans(name, &bytes);
        let (span, _) = &spans[1];
        assert!(matches!(spans[1].1, ServerPacket::Data(_)));
        for f in frames(&bytes, span) {
            let payload = f.start + 25;
            for (what, at) in [
                ("checksum first half", f.start + 3),
                ("checksum second half", f.start + 12),
                ("method", f.start + 16),
                ("decompressed size", f.start + 21),
                ("payload", payload + (f.len - 25) / 2),
                ("last payload byte", f.start + f.len - 1),
            ] {
                let mut bad = bytes.clone();
                bad[at] ^= 0x20;
                let (packets, err) = decode_until_error(name, &bad);
                assert_eq!(packets[..], decode(name)[..1], "{name}: {what}: packets before the bad frame");
                match err {
                    Some(DecodeError::ChecksumMismatch { expected, actual }) => assert_ne!(expected, actual),
                    other => panic!("{name}: corrupt {what} at byte {at}: expected a checksum mismatch, got {other:?}"),
                }
            }
        }
    }
}

/// A frame missing its last byte is not an error: no packet, and `needed()` asks for more
/// than is there. The missing byte completes the packet.
#[test]
fn truncated_frames_wait_for_more() {
    for name in ["select_lz4", "select_zstd", "select_lz4_multiframe"] {
        let bytes = fixture(name);
        let spans = packet_spans(name, &bytes);
        let (span, data) = &spans[1];
        for f in frames(&bytes, span) {
            for cut in [f.start + 1, f.start + 16, f.start + 24, f.start + 25, f.start + f.len - 1] {
                let mut d = decoder_for(name);
                let mut buf = BytesMut::from(&bytes[..cut]);
                assert!(matches!(d.decode(&mut buf), Ok(Some(ServerPacket::Data(_)))), "{name}: the header block");
                assert_eq!(d.decode(&mut buf), Ok(None), "{name}: cut at {cut}");
                assert!(d.needed() > buf.len(), "{name}: cut at {cut}: needed() = {} with {} buffered", d.needed(), buf.len());
                assert!(d.is_mid_packet());
                buf.extend_from_slice(&bytes[cut..span.end]);
                assert_eq!(d.decode(&mut buf), Ok(Some(data.clone())), "{name}: resumed after a cut at {cut}");
                assert!(buf.is_empty());
            }
        }
    }
}

/// Any single corrupted byte of any fixture gives packets, `Ok(None)` or an error, never a
/// panic (nor a big allocation: lengths are checked before anything is reserved).
#[test]
fn any_corrupted_byte_is_never_a_panic() {
    for name in decodable() {
        let bytes = fixture(name);
        // The multi-frame block is 1.2 MB decompressed: sample its positions.
        let step = if bytes.len() > 3000 { 7 } else { 1 };
        for at in (0..bytes.len()).step_by(step) {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                let result = std::panic::catch_unwind(|| {
                    let mut d = decoder_for(name);
                    let mut buf = BytesMut::from(&bad[..]);
                    let (_, peak) = peak_allocation(|| while let Ok(Some(_)) = d.decode(&mut buf) {});
                    peak
                });
                match result {
                    Ok(peak) => assert!(peak < 64 << 20, "{name}: byte {at} ^ {flip:#04x}: allocated {peak} bytes"),
                    Err(_) => panic!("{name}: byte {at} ^ {flip:#04x} made the decoder panic"),
                }
            }
        }
    }
}

#[test]
fn unknown_packet_types_are_errors() {
    for (bytes, code) in [(&[0x63u8][..], 0x63u64), (&[0x0d], 13), (&[0x13], 19), (&[0x80, 0x01], 128)] {
        let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
        d.set_revision(Revision(SERVER_REVISION));
        assert_eq!(d.decode(&mut BytesMut::from(bytes)), Err(DecodeError::UnknownPacket(code)));
    }
    // After a whole conversation.
    let mut bytes = fixture("select_1");
    bytes.push(0x63);
    let (packets, err) = decode_until_error("select_1", &bytes);
    assert_eq!(packets, decode("select_1"));
    assert_eq!(err, Some(DecodeError::UnknownPacket(0x63)));
}

/// A Data packet (revision 54412, no compression) up to its first column's data.
fn data_packet(ncols: u64, rows: u64, columns: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.put_varuint(1);
    out.put_str("");
    BlockInfo::default().encode(Revision(54412), &mut out);
    out.put_varuint(ncols);
    out.put_varuint(rows);
    for (name, ty) in columns {
        out.put_str(name);
        out.put_str(ty);
    }
    out
}

/// What decoding a hand-made packet gave.
struct Outcome {
    res: Result<Option<ServerPacket>, DecodeError>,
    needed: usize,
    /// Bytes left in the buffer.
    left: usize,
    /// The most memory the decode call held.
    peak: usize,
}

fn decode_absurd(bytes: &[u8], limits: Option<DecoderLimits>) -> Outcome {
    let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
    d.set_revision(Revision(SERVER_REVISION));
    if let Some(l) = limits {
        d = d.with_limits(l);
    }
    let mut buf = BytesMut::from(bytes);
    let (res, peak) = peak_allocation(|| d.decode(&mut buf));
    Outcome { res, needed: d.needed(), left: buf.len(), peak }
}

const SMALL: usize = 1 << 20;

fn assert_limit_error(what: &str, bytes: &[u8]) {
    let o = decode_absurd(bytes, None);
    assert!(matches!(o.res, Err(DecodeError::LimitExceeded { .. })), "{what}: expected a limit error, got {:?}", o.res);
    assert!(o.peak < SMALL, "{what}: allocated {} bytes", o.peak);
}

/// `Ok(None)`, `needed()` above what is buffered and at most `max_needed`, nothing big
/// allocated. Returns `needed()`.
fn assert_waits_without_allocating(what: &str, bytes: &[u8], max_needed: usize) -> usize {
    let o = decode_absurd(bytes, None);
    assert_eq!(o.res, Ok(None), "{what}");
    assert!(o.needed > o.left && o.needed <= max_needed, "{what}: needed() = {} with {} bytes buffered", o.needed, o.left);
    assert!(o.peak < SMALL, "{what}: allocated {} bytes", o.peak);
    o.needed
}

#[test]
fn absurd_row_counts_are_limit_errors_without_allocation() {
    // 2^40 rows is above the default row limit (2^27): an error before any column data.
    assert_limit_error("2^40 UInt64 rows", &data_packet(1, 1 << 40, &[("a", "UInt64")]));
    assert_limit_error("2^40 + 1 rows", &data_packet(1, (1 << 40) + 1, &[("a", "UInt64")]));
    assert_limit_error("u64::MAX rows", &data_packet(1, u64::MAX, &[("a", "UInt64")]));
    assert_limit_error("2^40 Nullable(String) rows", &data_packet(1, 1 << 40, &[("a", "Nullable(String)")]));
    assert_limit_error("2^40 Array rows", &data_packet(1, 1 << 40, &[("a", "Array(UInt8)")]));
    assert_limit_error("2^40 FixedString(1000) rows", &data_packet(1, 1 << 40, &[("a", "FixedString(1000)")]));
    assert_limit_error("FixedString(2^40)", &data_packet(1, 1, &[("a", "FixedString(1099511627776)")]));
    assert_limit_error("2^16 + 1 columns", &data_packet((1 << 16) + 1, 0, &[]));
    // 2^27 UInt64 rows (1 GiB) fit the row limit; a smaller block limit refuses them.
    let o =
        decode_absurd(&data_packet(1, 1 << 27, &[("a", "UInt64")]), Some(DecoderLimits { max_block_bytes: 1 << 20, ..Default::default() }));
    assert!(matches!(o.res, Err(DecodeError::LimitExceeded { .. })), "{:?}", o.res);
    assert!(o.peak < SMALL);
    // A width times rows that overflows is an error too.
    let o = decode_absurd(&data_packet(1, 2, &[("a", "FixedString(18446744073709551615)")]), None);
    assert!(o.res.is_err(), "{:?}", o.res);

    // Strings take at least a byte per row: 2^40 rows of String wait for bytes, allocating
    // only for what arrived.
    let mut strings = data_packet(1, 1 << 27, &[("a", "String")]);
    strings.extend_from_slice(b"\x01a\x02bc\x00");
    assert_waits_without_allocating("2^27 String rows", &strings, strings.len() + 16);
    // Likewise 2^16 declared columns that have not arrived.
    let cols = data_packet(1 << 16, 0, &[]);
    assert_waits_without_allocating("2^16 columns", &cols, cols.len() + 16);
}

#[test]
fn absurd_lengths_wait_or_hit_the_limit_without_allocation() {
    // A 1 GiB string (the largest accepted) waits for its bytes: needed() is huge, nothing
    // is allocated; a decoder with a smaller step limit refuses it.
    let mut one = data_packet(1, 1, &[("a", "String")]);
    one.put_varuint(1 << 30);
    one.extend_from_slice(b"abc");
    let needed = assert_waits_without_allocating("1 GiB string", &one, 1 << 31);
    assert!(needed > 1 << 30);
    let o = decode_absurd(&one, Some(DecoderLimits { max_block_bytes: 1 << 20, ..Default::default() }));
    assert!(matches!(o.res, Err(DecodeError::LimitExceeded { .. })), "{:?}", o.res);
    assert!(o.peak < SMALL);

    // A block that is all there but larger than the block limit.
    let mut whole = data_packet(1, 1000, &[("a", "UInt64")]);
    whole.extend_from_slice(&[0; 8000]);
    let o = decode_absurd(&whole, Some(DecoderLimits { max_block_bytes: 1000, ..Default::default() }));
    assert!(matches!(o.res, Err(DecodeError::LimitExceeded { what: "block bytes", .. })), "{:?}", o.res);
    assert!(decode_absurd(&whole, None).res.unwrap().is_some());

    let mut over = data_packet(1, 1, &[("a", "String")]);
    over.put_varuint((1 << 30) + 1);
    assert_limit_error("string above 1 GiB", &over);

    // The same for the message of an Exception.
    let mut e = vec![2u8, 62, 0, 0, 0];
    e.put_str("DB::Exception");
    e.put_varuint(1 << 30);
    assert_waits_without_allocating("1 GiB exception message", &e, 1 << 31);
    let mut e = vec![2u8, 62, 0, 0, 0, 0];
    e.put_varuint(u64::MAX);
    assert_limit_error("u64::MAX exception message", &e);

    // Array offsets claiming 2^62 elements.
    let mut arr = data_packet(1, 1, &[("a", "Array(UInt8)")]);
    arr.extend_from_slice(&(1u64 << 62).to_le_bytes());
    assert_limit_error("2^62 array elements", &arr);
    let mut arr = data_packet(1, 1, &[("a", "Array(String)")]);
    arr.extend_from_slice(&(1u64 << 62).to_le_bytes());
    assert_limit_error("2^62 array strings", &arr);
    // At the array length limit (2^30) the strings' bytes must arrive first.
    let mut arr = data_packet(1, 1, &[("a", "Array(String)")]);
    arr.extend_from_slice(&(1u64 << 30).to_le_bytes());
    arr.extend_from_slice(b"\x01a\x01b");
    assert_waits_without_allocating("2^30 array strings", &arr, arr.len() + 16);
    // Decreasing offsets are malformed.
    let mut arr = data_packet(1, 2, &[("a", "Array(UInt8)")]);
    arr.extend_from_slice(&5u64.to_le_bytes());
    arr.extend_from_slice(&1u64.to_le_bytes());
    assert!(matches!(decode_absurd(&arr, None).res, Err(DecodeError::Malformed { .. })));

    // A VarUInt longer than 10 bytes.
    let mut long = vec![1u8, 0x80];
    long.extend_from_slice(&[0xff; 10]);
    assert!(matches!(decode_absurd(&long, None).res, Err(DecodeError::Malformed { .. })));
}

/// A frame of 26 bytes that claims 64 MiB of output. LZ4 cannot expand 1 byte to 64 MiB,
/// so this is an error; the decoder should not allocate (and zero) the claimed size first:
/// "allocation is bounded by received bytes" (docs/ARCHITECTURE.md).
#[test]
fn tiny_frame_claiming_a_huge_size_does_not_allocate_it() {
    let mut failures = Vec::new();
    for method in [METHOD_LZ4, METHOD_ZSTD] {
        let mut frame = vec![0u8; 16];
        frame.push(method);
        frame.extend_from_slice(&10u32.to_le_bytes());
        frame.extend_from_slice(&(64u32 << 20).to_le_bytes());
        frame.push(0);
        let sum = checksum(&frame[16..]);
        frame[..8].copy_from_slice(&((sum >> 64) as u64).to_le_bytes());
        frame[8..16].copy_from_slice(&(sum as u64).to_le_bytes());
        let (res, peak) = peak_allocation(|| decompress_frame(&frame, &mut Vec::new()));
        assert!(res.is_err(), "method {method:#x}: {res:?}");

        let mut packet = vec![1u8, 0];
        packet.extend_from_slice(&frame);
        let mut d = PacketDecoder::new(ANNOUNCED_REVISION);
        d.set_revision(Revision(SERVER_REVISION));
        d.set_compression(true);
        let mut buf = BytesMut::from(&packet[..]);
        let (res2, peak2) = peak_allocation(|| d.decode(&mut buf));
        assert!(matches!(res2, Err(DecodeError::Decompression(_) | DecodeError::Malformed { .. })), "method {method:#x}: {res2:?}");
        if peak.max(peak2) >= 16 << 20 {
            failures.push(format!(
                "method {method:#x}: a {}-byte frame claiming 64 MiB made decompress_frame allocate {peak} bytes, PacketDecoder::decode {peak2}",
                frame.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

// Deep nesting: recursion on server-controlled depth must not overflow the stack (an abort,
// which kills the whole process, not a panic). Each case runs in a child process, so a crash
// fails only its own test.

const CHILD_ENV: &str = "CHWIRE_PACKETS_TEST_CHILD";
/// Nesting depth of the hostile inputs (a type name of 700 KB; an exception chain of 800 KB).
const DEPTH: usize = 100_000;

fn run_child(test: &str) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, test)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    assert!(out.status.success(), "child {test} failed ({}); stderr ends with: {:?}", out.status, tail);
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"), "child {test} did not run");
}

fn in_child(test: &str) -> bool {
    std::env::var(CHILD_ENV).as_deref() == Ok(test)
}

#[test]
fn child_deep_type_name() {
    if !in_child("child_deep_type_name") {
        return;
    }
    let ty = format!("{}UInt8{}", "Array(".repeat(DEPTH), ")".repeat(DEPTH));
    let bytes = data_packet(1, 0, &[("a", &ty)]);
    // Decoding it or refusing it are both fine; crashing is not.
    drop(decode_absurd(&bytes, None).res);
    let _ = DataType::parse(&ty);
}

#[test]
fn deeply_nested_type_name_does_not_crash() {
    run_child("child_deep_type_name");
}

#[test]
fn child_deep_exception_chain() {
    if !in_child("child_deep_exception_chain") {
        return;
    }
    let mut bytes = Vec::new();
    bytes.push(2u8);
    for i in 0..DEPTH {
        bytes.extend_from_slice(&1i32.to_le_bytes());
        bytes.extend_from_slice(&[0, 0, 0]); // name, message, stack trace: empty
        bytes.push((i + 1 < DEPTH) as u8); // has_nested
    }
    drop(decode_absurd(&bytes, None).res);
}

#[test]
fn deeply_nested_exception_chain_does_not_crash() {
    run_child("child_deep_exception_chain");
}

/// A Native block header: columns, rows, then each (name, type).
fn native_block(rows: u64, columns: &[(&str, &str)]) -> Vec<u8> {
    let mut w = Vec::new();
    w.put_varuint(columns.len() as u64);
    w.put_varuint(rows);
    for (name, ty) in columns {
        w.put_str(name);
        w.put_str(ty);
    }
    w
}

#[test]
fn native_claims_allocate_nothing_of_their_size() {
    use chwire_proto::error::ReadError;
    use chwire_proto::native;
    let decode = |bytes: &[u8]| peak_allocation(|| native::decode_block(&mut chwire_proto::wire::Reader::new(bytes)));
    let is_limit = |r: &Result<_, ReadError>| matches!(r, Err(ReadError::Invalid(DecodeError::LimitExceeded { .. })));
    // 2^40 rows, with and without columns: a limit error, nothing allocated.
    for cols in [&[("a", "UInt64")][..], &[("s", "String")], &[]] {
        let mut b = native_block(1 << 40, cols);
        b.extend_from_slice(&[1; 64]);
        let (res, peak) = decode(&b);
        assert!(is_limit(&res), "{cols:?}: {res:?}");
        assert!(peak < SMALL, "{cols:?}: {peak} bytes");
    }
    // A 2^60-byte string.
    let mut b = native_block(1, &[("s", "String")]);
    b.put_varuint(1 << 60);
    b.extend_from_slice(b"abc");
    let (res, peak) = decode(&b);
    assert!(is_limit(&res), "{res:?}");
    assert!(peak < SMALL, "{peak} bytes");
    // The largest claims within the limits wait for their bytes, allocating nothing.
    let mut b = native_block(1 << 27, &[("a", "UInt64")]);
    b.extend_from_slice(&[1; 64]);
    let (res, peak) = decode(&b);
    assert!(matches!(res, Err(ReadError::Incomplete { needed }) if needed > 1 << 30), "{res:?}");
    assert!(peak < SMALL, "{peak} bytes");
    let mut b = native_block(1, &[("s", "String")]);
    b.put_varuint(1 << 30);
    b.extend_from_slice(b"abc");
    let (res, peak) = decode(&b);
    assert!(matches!(res, Err(ReadError::Incomplete { needed }) if needed > 1 << 30), "{res:?}");
    assert!(peak < SMALL, "{peak} bytes");
}
