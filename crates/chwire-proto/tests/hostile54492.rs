//! A hostile server at revision 54492: the packets and fields added above 54465, each sent
//! broken. Every case must end in a typed error (or a wait for bytes that are really missing),
//! never a panic, a hang or an allocation of what the bytes claim. The well-formed forms are
//! the live server's captures (packets26.rs); fuzz/ covers the rest (the packets target runs
//! at 54492 and the matrix's revisions, chunk-framed or not).

use bytes::BytesMut;
use chwire_proto::chunked::Dechunker;
use chwire_proto::packet::server::MAX_HELLO_SETTINGS;
use chwire_proto::revision::CLIENT_REVISION;
use chwire_proto::wire::WriteExt;
use chwire_proto::{BlockInfo, DecodeError, PacketDecoder, Revision, ServerPacket};

/// A ServerHello at 54492 up to (not including) its settings list.
fn hello_head() -> Vec<u8> {
    let mut out = Vec::new();
    out.put_varuint(0); // Hello
    out.put_str("ClickHouse");
    out.put_varuint(26);
    out.put_varuint(9);
    out.put_varuint(54492);
    out.put_varuint(3); // parallel replicas protocol version
    out.put_str("UTC");
    out.put_str("hostile");
    out.put_varuint(2); // patch
    out.put_str("notchunked_optional");
    out.put_str("notchunked_optional");
    out.put_varuint(0); // password complexity rules
    out.put_u64_le(0x5eed); // nonce
    out
}

/// The tail after the settings list: query-plan and cluster-function versions.
fn hello_tail(out: &mut Vec<u8>) {
    out.put_varuint(1);
    out.put_varuint(1);
}

fn decode_all(bytes: &[u8]) -> (Result<Option<ServerPacket>, DecodeError>, usize) {
    let mut d = PacketDecoder::new(CLIENT_REVISION);
    let mut buf = BytesMut::from(bytes);
    (d.decode(&mut buf), d.needed())
}

#[test]
fn a_hello_whose_settings_list_is_cut_waits_and_never_errs_or_panics() {
    let mut whole = hello_head();
    for (name, value) in [("max_threads", "2"), ("max_block_size", "65409"), ("date_time_input_format", "best_effort")] {
        whole.put_str(name);
        whole.put_varuint(1); // flags
        whole.put_str(value);
    }
    whole.put_str(""); // end of the list
    hello_tail(&mut whole);
    match decode_all(&whole).0 {
        Ok(Some(ServerPacket::Hello(h))) => {
            assert_eq!(h.settings.len(), 3);
            assert_eq!(h.settings[2], ("date_time_input_format".into(), "best_effort".into()));
        }
        other => panic!("the whole Hello: {other:?}"),
    }
    // Every cut: the decoder waits for more, asks for at least one byte more than it has,
    // and consumes nothing (a connection that closes here is an EOF error above).
    for cut in 0..whole.len() {
        let (res, needed) = decode_all(&whole[..cut]);
        assert_eq!(res, Ok(None), "cut at {cut}");
        assert!(needed > cut, "cut at {cut}: needed() = {needed}");
    }
}

#[test]
fn a_hello_with_endless_settings_or_a_huge_name_is_a_limit_error() {
    // More settings than any server lists, without an end: refused at the limit.
    let mut endless = hello_head();
    for i in 0..=MAX_HELLO_SETTINGS {
        endless.put_str(format!("s{i}"));
        endless.put_varuint(0);
        endless.put_str("1");
    }
    let (res, _) = decode_all(&endless);
    assert!(matches!(res, Err(DecodeError::LimitExceeded { what: "ServerHello settings", .. })), "{res:?}");
    // A setting's name claiming 2^40 bytes: an error at once, nothing of that size allocated.
    let mut huge = hello_head();
    huge.put_varuint(1 << 40);
    huge.extend_from_slice(b"abc");
    let (res, _) = decode_all(&huge);
    assert!(matches!(res, Err(DecodeError::LimitExceeded { .. })), "{res:?}");
}

#[test]
fn a_chunk_header_beyond_the_frame_limit_is_refused_before_any_payload() {
    // A chunk's size is a UInt32: the largest a server can announce is 2^32 - 1 (2^40 does not
    // fit the header); anything above the frame limit is refused without waiting for it.
    for size in [u32::MAX, (1u32 << 30) + 1] {
        let mut d = Dechunker::new(1 << 30);
        let mut raw = BytesMut::from(&size.to_le_bytes()[..]);
        raw.extend_from_slice(b"payload");
        let mut out = BytesMut::new();
        let err = d.feed(&mut raw, &mut out).unwrap_err();
        assert!(matches!(err, DecodeError::LimitExceeded { what: "chunk bytes", .. }), "{size}: {err:?}");
        assert!(out.is_empty(), "{size}: nothing passed on");
    }
    // An end of message with no message before it.
    let mut d = Dechunker::new(1 << 30);
    let mut raw = BytesMut::from(&[0u8, 0, 0, 0][..]);
    assert!(matches!(d.feed(&mut raw, &mut BytesMut::new()), Err(DecodeError::Malformed { .. })));
    // A header cut short waits (kept for the next read).
    let mut d = Dechunker::new(1 << 30);
    let mut raw = BytesMut::from(&[5u8, 0][..]);
    let mut out = BytesMut::new();
    d.feed(&mut raw, &mut out).unwrap();
    assert_eq!((raw.len(), out.len()), (2, 0));
}

/// A Data packet at 54492 of one column `c` of `ty` and `rows` rows, its has_custom byte and
/// what follows (`rest`).
fn data_packet(ty: &str, rows: u64, rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.put_varuint(1); // Data
    out.put_str("");
    BlockInfo::default().encode(Revision(CLIENT_REVISION), &mut out);
    out.put_varuint(1);
    out.put_varuint(rows);
    out.put_str("c");
    out.put_str(ty);
    out.extend_from_slice(rest);
    out
}

#[test]
fn an_unknown_serialization_kind_is_named() {
    for (what, kinds) in [("kind 9", vec![1u8, 9]), ("kind 7 inside a combination", vec![1, 5, 2, 1, 7])] {
        let (res, _) = decode_all(&data_packet("UInt8", 2, &[kinds.as_slice(), &[1, 2]].concat()));
        match res {
            Err(DecodeError::UnsupportedSerialization(_, column)) => assert!(column.starts_with('c'), "{what}: {column}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    // DETACHED (ColumnBLOB) travels only between servers: refused, not misread.
    let (res, _) = decode_all(&data_packet("UInt8", 2, &[1, 2, 1, 2]));
    assert!(res.is_err(), "{res:?}");
}

/// A replicated UInt8 column (has_custom 1, kind 4) of `rows` rows: declared row count, index
/// width, the indexes, the count of distinct rows and those rows.
fn replicated(rows: u64, declared: u64, width: u8, indexes: &[u8], distinct: &[u8]) -> Vec<u8> {
    let mut body = vec![1u8, 4];
    body.put_varuint(declared);
    body.push(width);
    body.extend_from_slice(indexes);
    body.put_varuint(distinct.len() as u64);
    body.extend_from_slice(distinct);
    data_packet("UInt8", rows, &body)
}

#[test]
fn replicated_columns_with_bad_indexes_are_errors() {
    // Well formed: rows 20, 10, 20.
    match decode_all(&replicated(3, 3, 1, &[1, 0, 1], &[10, 20])).0 {
        Ok(Some(ServerPacket::Data(b))) => assert_eq!(b.column_at(0).unwrap().as_u8(), Some(&[20u8, 10, 20][..])),
        other => panic!("well formed: {other:?}"),
    }
    let cases: [(&str, Vec<u8>); 4] = [
        ("an index past the distinct rows", replicated(3, 3, 1, &[0, 1, 5], &[10, 20])),
        ("more indexes than rows", replicated(3, 4, 1, &[0, 1, 1, 0], &[10, 20])),
        ("an index width of 3", replicated(3, 3, 3, &[0, 0, 0, 0, 0, 0, 0, 0, 0], &[10, 20])),
        ("an 8-byte index above u32", replicated(1, 1, 8, &u64::MAX.to_le_bytes(), &[10])),
    ];
    for (what, bytes) in cases {
        let (res, _) = decode_all(&bytes);
        assert!(matches!(res, Err(DecodeError::Malformed { what: "replicated column", .. })), "{what}: {res:?}");
    }
    // Distinct rows claiming 2^40: a limit error, not an allocation.
    let mut body = vec![1u8, 4];
    body.put_varuint(1);
    body.push(1);
    body.push(0);
    body.put_varuint(1 << 40);
    let (res, _) = decode_all(&data_packet("UInt8", 1, &body));
    assert!(matches!(res, Err(DecodeError::LimitExceeded { .. })), "{res:?}");
}
