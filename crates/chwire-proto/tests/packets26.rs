//! The packet decoder on bytes captured from ClickHouse 26.9 at revision 54492, byte for byte
//! and offline: the gates above 54465 (tests/fixtures/packets26/, recorded by
//! `crates/chwire/harness/capture_fixtures.rs`; tests/fixtures/README.md says how, and
//! MANIFEST.md and MANIFEST-chunked.md beside them list each conversation's client packets
//! and SQL). A missing fixture fails the tests: they are never regenerated here.
//!
//! Each fixture decodes to the same packets whole, one byte at a time, and in random pieces;
//! the values are spelled out below (what the SQL of each conversation asks for).

mod rng;
use rng::Rng;
use std::path::PathBuf;

use bytes::BytesMut;
use chwire_proto::chunked::Dechunker;
use chwire_proto::column::ColumnData;
use chwire_proto::{Block, DataType, PacketDecoder, ProfileInfo, Revision, ServerPacket, Value};

/// What the capture announced and the server's own revision (26.9.2.1).
const REVISION: u64 = 54492;

/// Every fixture, whether its query had compression on, and whether its bytes are framed
/// in chunks (the `--chunked` capture).
const FIXTURES: &[(&str, bool, bool)] = &[
    ("handshake", false, false),
    ("handshake_wrong_password", false, false),
    ("ping", false, false),
    ("select_1", false, false),
    ("empty_result", false, false),
    ("syntax_error", false, false),
    ("exception_mid_stream", false, false),
    ("logs", false, false),
    ("logs_lz4", true, false),
    ("totals_extremes", false, false),
    ("totals_extremes_lz4", true, false),
    ("select_lz4", true, false),
    ("select_zstd", true, false),
    ("select_lz4_multiframe", true, false),
    ("all_types", false, false),
    ("all_types_zstd", true, false),
    ("unsupported_type", false, false),
    ("create_table", false, false),
    ("insert", false, false),
    ("tables_status", false, false),
    ("strings", false, false),
    ("strings_lz4", true, false),
    ("current_types", false, false),
    ("dynamic_json", false, false),
    ("replicated", false, false),
    ("quantile_state", false, false),
    ("group_by", false, false),
    ("profile_events_lz4", true, false),
    ("sparse", false, false),
    ("sparse_zstd", true, false),
    ("insert_table_columns_lz4", true, false),
    ("async_insert", false, false),
    ("chunked_handshake", false, false),
    ("chunked_ping", false, true),
    ("chunked_select", false, true),
    ("chunked_select_lz4", true, true),
    ("chunked_insert", false, true),
];

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packets26").join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "fixture {} is missing ({e}); capture it from a running 26.9 server with \
             `cargo run -p chwire --example capture_fixtures -- crates/chwire-proto/tests/fixtures/packets26` \
             (and `--chunked` against one configured for chunks, tests/fixtures/README.md)",
            path.display()
        )
    })
}

fn flags(name: &str) -> (bool, bool) {
    let (_, c, k) = FIXTURES.iter().find(|(n, _, _)| *n == name).unwrap_or_else(|| panic!("unknown fixture {name}"));
    (*c, *k)
}

/// Decode `bytes` fed in pieces of the sizes `next` gives; every byte must be used.
fn decode_in_pieces(name: &str, bytes: &[u8], mut next: impl FnMut() -> usize) -> Vec<ServerPacket> {
    let (compressed, chunked) = flags(name);
    let mut d = PacketDecoder::new(REVISION);
    if !name.ends_with("handshake") && !name.starts_with("handshake") {
        d.set_revision(Revision(REVISION));
    }
    d.set_compression(compressed);
    let mut dechunk = chunked.then(|| Dechunker::new(1 << 30));
    let (mut raw, mut buf) = (BytesMut::new(), BytesMut::new());
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let n = next().clamp(1, bytes.len() - at);
        let piece = &bytes[at..at + n];
        at += n;
        match dechunk.as_mut() {
            Some(dc) => {
                raw.extend_from_slice(piece);
                dc.feed(&mut raw, &mut buf).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            None => buf.extend_from_slice(piece),
        }
        while buf.len() >= d.needed() {
            match d.decode(&mut buf) {
                Ok(Some(p)) => out.push(p),
                Ok(None) => break,
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
    assert!(buf.is_empty() && raw.is_empty(), "{name}: {} bytes left over", buf.len() + raw.len());
    assert!(!d.is_mid_packet(), "{name}: ends mid-packet");
    if let Some(dc) = dechunk {
        assert!(dc.at_message_end(), "{name}: ends mid-chunk");
    }
    out
}

fn decode(name: &str) -> Vec<ServerPacket> {
    decode_in_pieces(name, &fixture(name), || usize::MAX)
}

fn data_blocks(packets: &[ServerPacket]) -> Vec<&Block> {
    packets.iter().filter_map(|p| if let ServerPacket::Data(b) = p { Some(b) } else { None }).filter(|b| b.rows() > 0).collect()
}

/// The one data block of a query's result.
fn result(name: &str) -> Block {
    let packets = decode(name);
    let blocks = data_blocks(&packets);
    assert_eq!(blocks.len(), 1, "{name}: {packets:?}");
    blocks[0].clone()
}

/// The values of a column as text (`Value`'s debug form), row by row.
fn texts(b: &Block, col: &str) -> Vec<String> {
    let c = b.column(col).unwrap_or_else(|| panic!("no column {col}"));
    (0..b.rows()).map(|i| format!("{:?}", c.value(i))).collect()
}

#[test]
fn every_fixture_decodes_the_same_whole_byte_by_byte_and_in_pieces() {
    let mut rng = Rng(0x2609_5449_2000_0001);
    for (name, _, _) in FIXTURES {
        let bytes = fixture(name);
        let whole = decode(name);
        assert!(!whole.is_empty(), "{name}");
        assert_eq!(decode_in_pieces(name, &bytes, || 1), whole, "{name}: one byte at a time");
        assert_eq!(decode_in_pieces(name, &bytes, || rng.below(700) + 1), whole, "{name}: random pieces");
    }
}

#[test]
fn the_hello_of_26_9() {
    let [ServerPacket::Hello(h)] = &decode("handshake")[..] else { panic!() };
    assert_eq!((h.name.as_str(), h.version_major, h.version_minor, h.version_patch, h.revision), ("ClickHouse", 26, 9, 2, REVISION));
    // The fields of 54470-54479, in the server's order.
    assert_eq!(h.parallel_replicas_version, Some(8));
    assert_eq!((h.chunked_send.as_deref(), h.chunked_recv.as_deref()), (Some("notchunked"), Some("notchunked")));
    assert!(h.query_plan_version.is_some() && h.cluster_function_version.is_some(), "{h:?}");
    // The profile's settings (scripts/server.sh sets these back from clickhouse-local's).
    let setting = |n: &str| h.settings.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(setting("implicit_select"), Some("0"), "{:?}", h.settings);
    assert_eq!(setting("max_memory_usage"), Some("4000000000"));
    // A server whose proto_caps say `send chunked, recv chunked_optional`.
    let [ServerPacket::Hello(c)] = &decode("chunked_handshake")[..] else { panic!() };
    assert_eq!((c.chunked_send.as_deref(), c.chunked_recv.as_deref()), (Some("chunked"), Some("chunked_optional")));
}

#[test]
fn strings_arrive_as_offsets_and_bytes_at_every_depth_but_low_cardinality() {
    for name in ["strings", "strings_lz4"] {
        let b = result(name);
        assert_eq!(texts(&b, "s"), ["String([])", "String([97])", "String([98, 99])"], "{name}");
        let col = |c: &str| b.column(c).unwrap().data().clone();
        let ColumnData::Array(a) = col("a") else { panic!() };
        assert_eq!(a.offsets, [0, 1, 1, 3]);
        let ColumnData::String(inner) = &a.values else { panic!() };
        assert_eq!(inner.iter().collect::<Vec<_>>(), [&b"x"[..], b"yz", b""]);
        assert_eq!(texts(&b, "n"), ["String([110])", "Null", "String([110])"]);
        // The dictionary keeps length-prefixed values: a wrong layout would not decode.
        assert_eq!(texts(&b, "lc"), ["String([112])", "String([113])", "String([112])"]);
        let ColumnData::Tuple(t) = col("t") else { panic!() };
        let ColumnData::String(first) = &t.elements[0] else { panic!() };
        assert_eq!(first.iter().collect::<Vec<_>>(), [&b"t1"[..], b"", b"t3"]);
        let ColumnData::Array(m) = col("m") else { panic!() };
        let ColumnData::Tuple(kv) = &m.values else { panic!() };
        let (ColumnData::String(k), ColumnData::String(v)) = (&kv.elements[0], &kv.elements[1]) else { panic!() };
        assert_eq!(k.iter().collect::<Vec<_>>(), [&b"k1"[..], b"k2", b"k3"]);
        assert_eq!(v.iter().collect::<Vec<_>>(), [&b"v"[..]; 3]);
    }
}

#[test]
fn replicated_columns_are_expanded() {
    let bytes = fixture("replicated");
    // The server marks the String column REPLICATED: has_custom 1, kind 4.
    assert!(bytes.windows(9).any(|w| w == b"\x06String\x01\x04"), "no replicated column in the capture");
    let b = result("replicated");
    let s: Vec<String> = texts(&b, "s");
    assert_eq!(
        s,
        ["String([118, 48])", "String([118, 48])", "String([118, 48])", "String([118, 49])", "String([118, 49])", "String([118, 49])"]
    );
    assert_eq!(b.column("x").unwrap().as_u8(), Some(&[0u8, 1, 2, 0, 1, 2][..]));
}

#[test]
fn sparse_columns_top_level_nullable_and_tuple_elements() {
    for name in ["sparse", "sparse_zstd"] {
        let b = result(name);
        assert_eq!(b.rows(), 20);
        // Row i holds i where i % 7 = 3 (rows 3, 10, 17), defaults elsewhere.
        let picked = |i: u32| i % 7 == 3;
        let u: Vec<u32> = (0..20).map(|i| if picked(i) { i } else { 0 }).collect();
        assert_eq!(b.column("u").unwrap().as_u32(), Some(&u[..]), "{name}");
        for i in 0..20u32 {
            let s = b.column("s").unwrap().value(i as usize);
            let n = b.column("n").unwrap().value(i as usize);
            let t = b.column("t").unwrap().value(i as usize);
            if picked(i) {
                assert_eq!(s, Value::String(i.to_string().as_bytes()), "{name} row {i}");
                assert_eq!(n, Value::UInt(i as u64), "{name} row {i}");
                assert_eq!(format!("{t:?}"), format!("Tuple([(Some(\"a\"), UInt({i})), (Some(\"b\"), String([120]))])"), "{name} row {i}");
            } else {
                assert_eq!((s, n), (Value::String(b""), Value::Null), "{name} row {i}");
                assert_eq!(format!("{t:?}"), "Tuple([(Some(\"a\"), UInt(0)), (Some(\"b\"), String([]))])", "{name} row {i}");
            }
        }
    }
    // The capture's kinds: u, s and n sparse (n over Nullable, 54483), t's elements sparse.
    let bytes = fixture("sparse");
    assert!(bytes.windows(9).any(|w| w == b"\x06String\x01\x01"), "s is sparse");
    assert!(bytes.windows(11).any(|w| w == b"String)\x01\x00\x01\x01"), "t's elements are sparse");
}

#[test]
fn aggregate_states_of_version_1() {
    let b = result("quantile_state");
    let q = b.column("q").unwrap();
    let DataType::AggregateFunction(f) = q.data_type() else { panic!() };
    assert_eq!((f.version, f.function.as_str()), (Some(1), "quantileDeterministic"));
    // Count and total (8 + 8), 5 samples of (UInt64, UInt32) padded to 16 bytes, skip degree.
    let ColumnData::AggregateState(s) = q.data() else { panic!() };
    assert_eq!(s.get(0).len(), 8 + 8 + 5 * 16 + 1);
    let ColumnData::AggregateState(s16) = b.column("q16").unwrap().data() else { panic!() };
    assert_eq!(s16.get(0).len(), 8 + 8 + 5 * 8 + 1);
}

#[test]
fn profile_info_counts_the_rows_before_aggregation() {
    let p = decode("group_by");
    let info: Vec<&ProfileInfo> = p.iter().filter_map(|p| if let ServerPacket::ProfileInfo(i) = p { Some(i) } else { None }).collect();
    assert_eq!(info.len(), 1);
    assert!(info[0].applied_aggregation);
    assert_eq!(info[0].rows_before_aggregation, 100);
}

#[test]
fn profile_events_and_table_columns_through_compression() {
    for name in ["profile_events_lz4", "insert_table_columns_lz4", "chunked_select_lz4"] {
        let p = decode(name);
        let events: Vec<&Block> = p.iter().filter_map(|p| if let ServerPacket::ProfileEvents(b) = p { Some(b) } else { None }).collect();
        assert!(!events.is_empty() && events.iter().all(|b| b.column("name").is_some() && b.column("value").is_some()), "{name}");
    }
    // Below 54481 a ProfileEvents block is never compressed: read so, the capture fails at it.
    let mut d = PacketDecoder::new(REVISION);
    d.set_revision(Revision(54480));
    d.set_compression(true);
    let mut buf = BytesMut::from(&fixture("profile_events_lz4")[..]);
    let err = loop {
        match d.decode(&mut buf) {
            Ok(Some(ServerPacket::ProfileEvents(_))) => panic!("a compressed ProfileEvents block read as a plain one"),
            Ok(Some(_)) => continue,
            Ok(None) => panic!("ran out of bytes"),
            Err(e) => break e,
        }
    };
    assert!(!err.to_string().is_empty());
    let p = decode("insert_table_columns_lz4");
    let Some(ServerPacket::TableColumns { table, description }) = p.first() else { panic!("{p:?}") };
    assert_eq!(table, "");
    // ClickHouse's ColumnsDescription text: a column a line, its default after tabs.
    assert!(description.contains("`d` UInt32\tDEFAULT\t7") && description.contains("`m` String\tMATERIALIZED\tupper(s)"), "{description}");
}

#[test]
fn an_async_insert_ends_with_progress() {
    let p = decode("async_insert");
    assert!(matches!(p.first(), Some(ServerPacket::Progress(_))), "{p:?}");
    assert!(matches!(p.last(), Some(ServerPacket::EndOfStream)));
}

#[test]
fn chunked_conversations_decode_as_the_unframed_ones() {
    let values = |name: &str| -> Vec<String> {
        let p = decode(name);
        data_blocks(&p)
            .iter()
            .flat_map(|b| {
                (0..b.rows()).map(move |i| format!("{:?} {:?}", b.column("n").unwrap().value(i), b.column("s").unwrap().value(i)))
            })
            .collect()
    };
    let want: Vec<String> = (0..10).map(|i| format!("UInt({i}) String({:?})", i.to_string().into_bytes())).collect();
    assert_eq!(values("chunked_select"), want);
    assert_eq!(values("chunked_select_lz4"), want);
    assert_eq!(decode("chunked_ping"), [ServerPacket::Pong]);
    let p = decode("chunked_insert");
    assert!(matches!(p.last(), Some(ServerPacket::EndOfStream)), "{p:?}");
    // Every packet of the server is its own message: a chunk, then the end marker.
    let bytes = fixture("chunked_ping");
    assert_eq!(bytes, [1, 0, 0, 0, 4, 0, 0, 0, 0]);
}

#[test]
fn dynamic_and_json_in_v2() {
    let b = result("dynamic_json");
    assert_eq!(texts(&b, "d"), ["UInt(1)", "String([97])", "Null"]);
    let j = b.column("j").unwrap();
    let row = |i| format!("{:?}", j.value(i));
    assert!(row(0).contains("\"a\"") && row(0).contains("\"b\"") && row(0).contains("\"c\""), "{}", row(0));
    assert!(row(1).contains("\"d.e\""), "{}", row(1));
}

#[test]
fn types_18_16_lacks() {
    let b = result("current_types");
    assert_eq!(texts(&b, "b"), ["Bool(false)", "Bool(true)", "Bool(false)"]);
    // 1900-01-01 is day -25567.
    assert_eq!(texts(&b, "d32"), ["Date32(-25567)", "Date32(-25566)", "Date32(-25565)"]);
    // 2024-05-06 07:08:09.123 UTC in milliseconds.
    assert!(texts(&b, "dt64")[0].starts_with("DateTime64 { ticks: 1714979289123, precision: 3, tz: Some(\"UTC\")"));
    assert_eq!(texts(&b, "i128")[1], "Int128(-170141183460469231731687303715884105727)");
    let ColumnData::Fixed { width: 32, data } = b.column("u256").unwrap().data() else { panic!() };
    let row1 = u128::from_le_bytes(data[32..48].try_into().unwrap());
    assert_eq!(row1, 10u128.pow(30));
    assert_eq!(texts(&b, "ip4")[0], "Ipv4(10.0.0.1)");
    assert_eq!(texts(&b, "ip6")[0], "Ipv6(::ffff:1.2.3.4)");
    assert_eq!(texts(&b, "dec128")[1], "Decimal { raw: 33333333333333333333, scale: 20 }");
    assert_eq!(
        texts(&b, "v"),
        ["UInt(42)", "String([102, 111, 114, 116, 121, 45, 116, 119, 111])", "String([102, 111, 114, 116, 121, 45, 116, 119, 111])"]
    );
    // BFloat16: 0.5, 1.5, 2.5 and 1.5, -2, 3 (the top half of their Float32 bits).
    assert_eq!(b.column("bf").unwrap().data(), &ColumnData::UInt16(vec![0x3f00, 0x3fc0, 0x4020]));
    assert_eq!(b.column("bf2").unwrap().data(), &ColumnData::UInt16(vec![0x3fc0, 0xc000, 0x4040]));
    assert_eq!(texts(&b, "tm"), ["Time(0)", "Time(3661)", "Time(7322)"]);
}
