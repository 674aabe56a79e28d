//! The fuzz targets of chwire-proto, one function per entry point that reads outside bytes.
//!
//! Each function must never panic on any input: a panic is a bug in chwire-proto (or a
//! broken round-trip property). The libFuzzer binaries in `fuzz_targets/` call these, and
//! `crates/chwire-proto/tests/fuzz_corpus.rs` replays every corpus and regression file
//! through them on stable Rust.

use bytes::BytesMut;
use chwire_proto::chunked::Dechunker;
use chwire_proto::column::{decode_binary_type, decode_column, decode_sparse, encode_binary_type, encode_column_of, BinaryValues};
use chwire_proto::compress::{compress, decompress_all};
use chwire_proto::native;
use chwire_proto::revision::CLIENT_REVISION;
use chwire_proto::wire::Reader;
use chwire_proto::{Column, Compression, DataType, Limits, PacketDecoder, Revision, StringColumn};

/// Small limits, so that the fuzzer spends its time on logic rather than on big buffers
/// (the checks are the same code at any size).
pub const LIMITS: Limits = Limits {
    max_block_rows: 1 << 16,
    max_block_bytes: 1 << 22,
    max_string_len: 1 << 16,
    max_array_len: 1 << 16,
    max_depth: 64,
    max_frame_size: 1 << 22,
    max_columns: 1 << 10,
};

/// Revisions the decoder serves: ClickHouse 18.16's, the custom-serialization gate, the
/// one before it, chwire's own (ClickHouse 26.9's), then the live matrix's other revisions
/// (sparse columns; Dynamic/JSON V2; replicated columns) and the first with chunked framing.
pub const REVISIONS: [u64; 8] = [54412, 54453, 54454, CLIENT_REVISION, 54465, 54473, 54482, 54470];

/// Every packet the decoder yields for `input` delivered in slices of `slice` bytes, and
/// whether it ended with an error.
fn decode_stream(input: &[u8], rev: u64, compressed: bool, chunked: bool, slice: usize) -> (Vec<String>, bool) {
    let mut d = PacketDecoder::new(CLIENT_REVISION).with_limits(LIMITS);
    d.set_revision(Revision(rev));
    d.set_compression(compressed);
    let dechunker = chunked.then(|| Dechunker::new(LIMITS.max_frame_size));
    decode_with(d, dechunker, input, slice, false)
}

/// An HTTP response body (`FORMAT Native`): blocks, then possibly the exception text the
/// server appends after the last whole block (as the HTTP transport reads it).
fn decode_http_body(input: &[u8], slice: usize) -> (Vec<String>, bool) {
    decode_with(PacketDecoder::native_stream().with_limits(LIMITS), None, input, slice, true)
}

/// `dechunker`: the input is chunk-framed (revision >= 54470); its headers are removed as the
/// bytes arrive, as the connection does.
fn decode_with(mut d: PacketDecoder, mut dechunker: Option<Dechunker>, input: &[u8], slice: usize, http: bool) -> (Vec<String>, bool) {
    let mut buf = BytesMut::new();
    let mut raw = BytesMut::new();
    let mut packets = Vec::new();
    let mut pos = 0;
    loop {
        let take = slice.min(input.len() - pos);
        let piece = &input[pos..pos + take];
        pos += take;
        match dechunker.as_mut() {
            Some(dc) => {
                raw.extend_from_slice(piece);
                if dc.feed(&mut raw, &mut buf).is_err() {
                    return (packets, true);
                }
            }
            None => buf.extend_from_slice(piece),
        }
        loop {
            if http && !d.is_mid_packet() && pos == input.len() {
                // At a block boundary with the whole body there: the rest is an exception or a block.
                if let Some((code, text)) = native::http_exception(&buf) {
                    assert!(text.starts_with("Code: "), "exception {code} recognised in {text:?}");
                    packets.push(format!("exception {code}"));
                    return (packets, true);
                }
            }
            match d.decode(&mut buf) {
                Ok(Some(p)) => packets.push(format!("{p:?}")),
                Ok(None) => {
                    assert!(d.needed() > buf.len(), "Ok(None) with needed() {} <= {} buffered", d.needed(), buf.len());
                    break;
                }
                Err(_) => return (packets, true),
            }
        }
        if pos == input.len() {
            return (packets, false);
        }
    }
}

/// The server packet decoder over a byte stream: the first byte picks the revision (bits 0,
/// 1 and 6), the compression flag (bit 2), the slice size of the delivery (bits 3-4), the bare
/// Native stream of an HTTP response body (bit 5) and chunked framing (bit 7); the packets
/// must not depend on how the bytes were sliced.
pub fn packets(data: &[u8]) {
    let Some((&sel, input)) = data.split_first() else { return };
    let rev = REVISIONS[usize::from((sel & 3) | ((sel >> 4) & 4))];
    let compressed = sel & 4 != 0;
    let chunked = sel & 128 != 0;
    // Byte-by-byte delivery re-parses the current step once per byte: kept for short
    // streams, larger slices for long ones, so that executions stay fast.
    let slice = match [1, 3, 16, 256][usize::from(sel >> 3) & 3] {
        s if s < 16 && input.len() > 512 => 16,
        s => s,
    };
    // Bit 5: the input is an HTTP response body (bare Native blocks, maybe an exception).
    let decode = |slice| if sel & 32 != 0 { decode_http_body(input, slice) } else { decode_stream(input, rev, compressed, chunked, slice) };
    let whole = decode(usize::MAX);
    let sliced = decode(slice);
    // A stream that failed may fail at a different point when sliced (a limit on what is
    // still needed is hit before the bytes arrive); packets before the failure agree.
    let n = whole.0.len().min(sliced.0.len());
    assert_eq!(whole.0[..n], sliced.0[..n], "packets differ between whole and sliced delivery");
    if !whole.1 && !sliced.1 {
        assert_eq!(whole.0.len(), sliced.0.len(), "whole and sliced delivery decode different packet counts");
    }
}

/// Type names for the structure-aware column target (one per family and a few nestings);
/// the fuzzer may also spell its own.
pub const TYPES: &[&str] = &[
    "UInt8",
    "UInt64",
    "Int128",
    "UInt256",
    "Float32",
    "Float64",
    "Bool",
    "String",
    "FixedString(3)",
    "UUID",
    "IPv4",
    "IPv6",
    "Date",
    "Date32",
    "DateTime('UTC')",
    "DateTime64(3, 'UTC')",
    "Decimal(9, 2)",
    "Decimal(38, 4)",
    "Decimal(76, 10)",
    "Enum8('a' = 1, 'b' = 2)",
    "Enum16('x' = -1000, 'y' = 1000)",
    "Nullable(String)",
    "Nullable(Enum8('a' = 1))",
    "Array(UInt8)",
    "Array(Array(String))",
    "Array(Nullable(UInt32))",
    "Map(String, UInt64)",
    "Tuple(UInt8, String)",
    "Tuple(a Array(UInt8), b Nullable(String))",
    "Tuple()",
    "LowCardinality(String)",
    "LowCardinality(Nullable(String))",
    "Array(LowCardinality(String))",
    "Variant(String, UInt64, Array(UInt8))",
    "Dynamic",
    "Dynamic(max_types = 2)",
    "JSON",
    "JSON(a UInt32, max_dynamic_paths = 2)",
    "AggregateFunction(count)",
    "AggregateFunction(sum, UInt64)",
    "AggregateFunction(avg, Float64)",
    "AggregateFunction(argMax, String, UInt64)",
    "AggregateFunction(uniq, UInt64)",
    "AggregateFunction(uniqExact, String)",
    "AggregateFunction(groupArray, String)",
    "AggregateFunction(anyIf, Nullable(String), UInt8)",
    "SimpleAggregateFunction(sum, UInt64)",
    "Nested(a UInt8, b String)",
    "Point",
    "Ring",
    "Polygon",
    "MultiPolygon",
    "Geometry",
    "QBit(Float32, 5)",
    "Time",
    "Time64(6)",
    "IntervalSecond",
    "Nothing",
    "Nullable(Nothing)",
];

/// The type for a column: the first byte indexes [`TYPES`]; a larger value `n` means
/// the next `n - TYPES.len()` bytes spell the name.
pub fn pick_type(data: &[u8]) -> Option<(DataType, &[u8])> {
    let (&i, rest) = data.split_first()?;
    let i = usize::from(i);
    let (name, rest) = match TYPES.get(i) {
        Some(n) => (*n, rest),
        None => {
            let len = i - TYPES.len();
            let name = std::str::from_utf8(rest.get(..len)?).ok()?;
            (name, rest.get(len..)?)
        }
    };
    Some((DataType::parse_limited(name, &LIMITS).ok()?, rest))
}

/// Decode, check the column against its type, touch every value, and re-encode: the
/// re-encoded bytes decode to a column that encodes to the same bytes.
fn check_column(ty: &DataType, rows: usize, data: chwire_proto::ColumnData) {
    let column = Column::new(ty.clone(), data).unwrap_or_else(|e| panic!("decoded {ty} does not fit its type: {e}"));
    for row in 0..rows {
        std::hint::black_box(format!("{:?}", column.value(row)));
    }
    let mut once = Vec::new();
    encode_column_of(ty, column.data(), &mut once);
    let mut r = Reader::with_limits(&once, LIMITS);
    let again = decode_column(ty, rows, &mut r).unwrap_or_else(|e| panic!("re-encoded {ty} does not decode: {e:?}"));
    assert!(r.is_empty(), "re-encoded {ty}: {} bytes left", r.remaining());
    let mut twice = Vec::new();
    encode_column_of(ty, &again, &mut twice);
    assert_eq!(once, twice, "{ty}: decode -> encode -> decode is not stable");
}

/// A Native column body of one type (structure-aware: the type, the row count (u16, low 10
/// bits) and a flags byte (bit 0: sparse) come first, then the column's bytes).
pub fn native_column(data: &[u8]) {
    let Some((ty, rest)) = pick_type(data) else { return };
    let [lo, hi, flags, body @ ..] = rest else { return };
    let rows = usize::from(u16::from_le_bytes([*lo, *hi]) & 0x3ff);
    let mut r = Reader::with_limits(body, LIMITS);
    let decoded = if flags & 1 != 0 { decode_sparse(&ty, rows, &mut r) } else { decode_column(&ty, rows, &mut r) };
    if let Ok(col) = decoded {
        check_column(&ty, rows, col);
    }
}

/// Type names: parse, print, parse again — the same type, printed the same.
pub fn type_name(data: &[u8]) {
    let Ok(name) = std::str::from_utf8(data) else { return };
    let Ok(ty) = DataType::parse(name) else { return };
    let printed = ty.to_string();
    let again = DataType::parse(&printed).unwrap_or_else(|e| panic!("{name:?} printed as {printed:?}, which does not parse: {e}"));
    assert_eq!(ty, again, "{name:?} printed as {printed:?}");
    assert_eq!(printed, again.to_string());
    // Every type has a binary encoding that decodes to it.
    let mut bin = Vec::new();
    encode_binary_type(&ty, &mut bin);
    if let Ok(back) = decode_binary_type(&mut Reader::with_limits(&bin, LIMITS)) {
        std::hint::black_box(back);
    }
}

/// Compressed frames: any bytes decompress or fail cleanly (first byte 0 mod 4); any
/// payload compresses and decompresses back (1, 2, 3: LZ4, ZSTD level 1, ZSTD level 3).
pub fn frames(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    match sel % 4 {
        0 => {
            let _ = decompress_all(rest);
        }
        m => {
            let method = [Compression::Lz4, Compression::Zstd(1), Compression::Zstd(3)][usize::from(m - 1)];
            let mut out = Vec::new();
            compress(method, rest, &mut out);
            let back = decompress_all(&out).unwrap_or_else(|e| panic!("{method:?} frames do not decompress: {e}"));
            assert_eq!(back, rest, "{method:?} round trip");
        }
    }
}

/// Binary-encoded types and values (Dynamic's SharedVariant, JSON's shared data, values
/// inside AggregateFunction states): the input is a list of u8-length-prefixed values, each
/// its binary type then its value; and the whole input read as one type.
pub fn binary_values(data: &[u8]) {
    let mut values = StringColumn::new();
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len).min(tail.len());
        values.push(&tail[..len]);
        rest = &tail[len..];
    }
    if let Ok(decoded) = BinaryValues::decode_limited(&values, &LIMITS) {
        assert_eq!(decoded.len(), values.len());
        for i in 0..decoded.len() {
            std::hint::black_box(format!("{:?} {:?}", decoded.data_type(i), decoded.value(i)));
        }
    }
    let mut r = Reader::with_limits(data, LIMITS);
    if let Ok(ty) = decode_binary_type(&mut r) {
        let mut bin = Vec::new();
        encode_binary_type(&ty, &mut bin);
        let back = decode_binary_type(&mut Reader::with_limits(&bin, LIMITS)).unwrap_or_else(|e| panic!("{ty} re-encoded: {e:?}"));
        assert_eq!(ty, back);
    }
}

/// A Native file (blocks without packet framing): decode every block; what decodes
/// re-encodes to bytes that decode to blocks encoding to the same bytes.
pub fn native_file(data: &[u8]) {
    let mut r = Reader::with_limits(data, LIMITS);
    let mut blocks = Vec::new();
    while !r.is_empty() {
        match native::decode_block(&mut r) {
            Ok(b) => blocks.push(b),
            Err(_) => break,
        }
    }
    let mut once = Vec::new();
    for b in &blocks {
        for row in 0..b.rows() {
            for (_, c) in b.columns() {
                std::hint::black_box(format!("{:?}", c.value(row)));
            }
        }
        native::encode_block(b, &mut once);
    }
    let again = native::decode_all(&once).unwrap_or_else(|e| panic!("re-encoded Native blocks do not decode: {e}"));
    let mut twice = Vec::new();
    for b in &again {
        native::encode_block(b, &mut twice);
    }
    assert_eq!(once, twice, "Native decode -> encode -> decode is not stable");
}

/// A fuzz target: any bytes in, a panic only for a bug.
pub type Target = fn(&[u8]);

/// Every target by name (the corpus replay test and the seed tool use this).
pub const TARGETS: [(&str, Target); 6] = [
    ("packets", packets),
    ("native_column", native_column),
    ("type_name", type_name),
    ("frames", frames),
    ("binary_values", binary_values),
    ("native_file", native_file),
];
