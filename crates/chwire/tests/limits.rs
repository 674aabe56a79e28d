//! Decoding limits set through `Options` (builder and URL), against the live server.

mod common;

use chwire::proto::DecodeError;
use chwire::{Compression, ErrorKind, Limits, Options};

fn limit_error(e: &chwire::Error) -> Option<(&'static str, u64, u64)> {
    match e.kind() {
        ErrorKind::Decode(DecodeError::LimitExceeded { what, size, limit }) => Some((what, *size, *limit)),
        _ => None,
    }
}

#[test]
fn url_keys_set_limits() {
    let o = Options::from_url(
        "tcp://h/db?max_block_rows=10&max_block_bytes=20&max_string_len=30&max_array_len=40&max_depth=5&max_frame_size=60&max_columns=7",
    )
    .unwrap();
    assert_eq!(
        o.limits,
        Limits {
            max_block_rows: 10,
            max_block_bytes: 20,
            max_string_len: 30,
            max_array_len: 40,
            max_depth: 5,
            max_frame_size: 60,
            max_columns: 7
        }
    );
    assert!(o.settings.is_empty(), "limits are not sent as settings: {:?}", o.settings);
    assert!(Options::from_url("tcp://h?max_block_rows=lots").is_err());
    assert!(Options::from_url("tcp://h?max_depth=0").is_err());
    assert_eq!(Options::from_url("tcp://h").unwrap().limits, Limits::default());
}

#[tokio::test]
async fn limits_refuse_what_the_server_sends_beyond_them() {
    for c in [Compression::None, Compression::Lz4] {
        // Rows per block.
        let mut client =
            common::client_with(common::options().compression(c).limits(Limits { max_block_rows: 1000, ..Limits::default() })).await;
        let err = client
            .query("SELECT number FROM system.numbers LIMIT 5000")
            .setting("max_block_size", "5000")
            .fetch_blocks()
            .await
            .expect_err("a 5000-row block is over the limit");
        assert_eq!(limit_error(&err), Some(("block rows", 5000, 1000)), "{err}");

        // Bytes per block (a connection that failed is not reused: connect anew).
        let mut client =
            common::client_with(common::options().compression(c).limits(Limits { max_block_bytes: 1 << 16, ..Limits::default() })).await;
        let err = client
            .query("SELECT number FROM system.numbers LIMIT 100000")
            .setting("max_block_size", "100000")
            .fetch_blocks()
            .await
            .expect_err("an 800 KB block is over the limit");
        let (what, size, limit) = limit_error(&err).unwrap_or_else(|| panic!("{err}"));
        assert!(what.contains("bytes") && size > limit && limit == 1 << 16, "{err}");

        // String length.
        let mut client =
            common::client_with(common::options().compression(c).limits(Limits { max_string_len: 100, ..Limits::default() })).await;
        let blocks = client.query("SELECT arrayStringConcat(arrayMap(x -> 'x', range(100)))").fetch_blocks().await.unwrap();
        assert_eq!(blocks.iter().map(|b| b.rows()).sum::<usize>(), 1);
        let err = client.query("SELECT arrayStringConcat(arrayMap(x -> 'x', range(101)))").fetch_blocks().await.expect_err("101 bytes");
        assert_eq!(limit_error(&err), Some(("string bytes", 101, 100)), "{err}");

        // Array length.
        let mut client =
            common::client_with(common::options().compression(c).limits(Limits { max_array_len: 10, ..Limits::default() })).await;
        client.query("SELECT range(10)").fetch_blocks().await.unwrap();
        let err = client.query("SELECT range(11)").fetch_blocks().await.expect_err("11 elements");
        assert_eq!(limit_error(&err), Some(("array elements", 11, 10)), "{err}");

        // Columns.
        let mut client = common::client_with(common::options().compression(c).limits(Limits { max_columns: 3, ..Limits::default() })).await;
        client.query("SELECT 1, 2, 3").fetch_blocks().await.unwrap();
        let err = client.query("SELECT 1, 2, 3, 4").fetch_blocks().await.expect_err("4 columns");
        assert_eq!(limit_error(&err), Some(("block columns", 4, 3)), "{err}");

        // Nesting depth of type names.
        let mut client = common::client_with(common::options().compression(c).limits(Limits { max_depth: 3, ..Limits::default() })).await;
        client.query("SELECT [[1]]").fetch_blocks().await.unwrap();
        let err = client.query("SELECT [[[[1]]]]").fetch_blocks().await.expect_err("4 levels");
        assert!(matches!(err.kind(), ErrorKind::Decode(DecodeError::InvalidTypeName { .. })), "{err}");
    }

    // Compressed frame size: 18.16 compresses blocks in frames of up to 1 MiB.
    let mut client = common::client_with(
        common::options().compression(Compression::Lz4).limits(Limits { max_frame_size: 1 << 12, ..Limits::default() }),
    )
    .await;
    let err = client
        .query("SELECT number FROM system.numbers LIMIT 100000")
        .setting("max_block_size", "100000")
        .fetch_blocks()
        .await
        .expect_err("frames above 4 KiB");
    let (what, _, limit) = limit_error(&err).unwrap_or_else(|| panic!("{err}"));
    assert!(what.contains("frame") && limit == 1 << 12, "{err}");
}

#[derive(chwire::Row, Debug)]
struct Text {
    s: String,
}

#[derive(chwire::Row, Debug)]
struct Bytes {
    s: Vec<u8>,
}

/// Where the caller asked for text, bytes that are not UTF-8 are an error naming the
/// column; asked for bytes, they arrive unchanged.
#[tokio::test]
async fn invalid_utf8_is_an_error_where_text_was_asked_for() {
    let mut client = common::client().await;
    let mut rows = client.query("SELECT unhex('61FF62') AS s").fetch::<Text>().await.unwrap();
    let err = rows.next().await.expect_err("0xFF is not UTF-8");
    let msg = err.to_string();
    assert!(msg.contains("not UTF-8") && msg.contains('s'), "{msg}");
    drop(rows);
    let mut rows = client.query("SELECT unhex('61FF62') AS s").fetch::<Bytes>().await.unwrap();
    assert_eq!(rows.next().await.unwrap().unwrap().s, b"a\xffb");
}
