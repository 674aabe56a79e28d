//! The fuzz targets of the file readers (`chwire convert` / `chwire insert`: CSV, TSV,
//! JSONEachRow, Arrow IPC file and stream, Parquet) and of the Arrow layer (block → Arrow →
//! block).
//!
//! A module of its own rather than part of `lib.rs` (chwire-proto's tests replay `lib.rs`
//! without the CLI and Arrow crates): the binaries in `fuzz_targets/` include it with
//! `#[path]`, and `crates/chwire-formats/tests/fuzz_formats.rs` replays its corpora on stable
//! Rust. It expects `fuzz_lib` (the fuzz crate's `lib.rs`) beside it at the crate root.

use super::fuzz_lib::{pick_type, LIMITS};
use chwire_arrow::{batch_to_block, block_to_batch, schema_of_block, ArrowOptions};
use chwire_formats::FileOptions;
use chwire_formats::{self as formats, BlockLimits, Format, Input};
use chwire_proto::column::decode_column;
use chwire_proto::wire::Reader;
use chwire_proto::{Block, Column, DataType};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Every value of a block as text: what two blocks must agree on to hold the same data
/// (the bytes may differ: values under a NULL, dictionary order).
fn values(block: &Block) -> Vec<String> {
    let mut out = Vec::with_capacity(block.rows() * block.num_columns());
    for (name, c) in block.columns() {
        out.push(format!("{name}: {}", c.data_type()));
        for row in 0..block.rows() {
            // Nothing has no values: a Nullable(Nothing) row not marked NULL is NULL too.
            out.push(format!("{:?}", c.value(row)).replace("Nothing", "Null"));
        }
    }
    out
}

/// Small blocks, so that inputs of a few KiB still span several.
fn file_options() -> FileOptions {
    FileOptions { block_limits: BlockLimits { rows: 7, bytes: 4096 }, ..FileOptions::default() }
}

/// Blocks a source yields until its end or its first error (an error is a fine answer to bad
/// input; a panic is not), with their rows checked against the limits.
fn read_all(source: &mut dyn formats::Source, max_rows: usize) -> (Vec<Block>, bool) {
    let mut blocks = Vec::new();
    loop {
        match source.next_block() {
            Ok(Some(b)) => {
                assert!(b.rows() <= max_rows, "a block of {} rows from a source limited to {max_rows}", b.rows());
                for (_, c) in b.columns() {
                    assert_eq!(c.len(), b.rows(), "a column's length differs from its block's rows");
                }
                blocks.push(b);
            }
            Ok(None) => return (blocks, true),
            Err(e) => {
                std::hint::black_box(e.to_string());
                return (blocks, false);
            }
        }
    }
}

/// A `Write` into memory that the sink can own.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `blocks` written in `format` by the CLI's sink.
fn write_all(format: Format, blocks: &[Block], header: &[(String, DataType)]) -> Vec<u8> {
    let out = Shared::default();
    let files = file_options();
    let mut sink = formats::sink(format, Box::new(out.clone()), Some("UTC"), &files).expect("a sink");
    sink.begin(header).expect("begin");
    for b in blocks {
        sink.write(b.clone()).unwrap_or_else(|e| panic!("{format}: a block read from {format} does not write back: {e}"));
    }
    sink.finish().expect("finish");
    let bytes = out.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
    bytes
}

/// Table structures the text target parses into: every text-parsed family, nested.
pub const STRUCTURES: &[&str] = &[
    "a UInt64, b String",
    "n Nullable(Int32), f Float64, d Date",
    "t DateTime('UTC'), t64 DateTime64(3, 'Asia/Tokyo'), e Enum8('a' = 1, 'b' = 2)",
    "arr Array(Nullable(String)), m Map(String, UInt16)",
    "tu Tuple(UInt8, String), lc LowCardinality(String), u UUID",
    "ip IPv4, ip6 IPv6, dec Decimal(18, 4), b Bool",
    "fs FixedString(4), i128 Int128, f32 Float32, d32 Date32",
    "nested Array(Tuple(a Int8, b Array(Nullable(Float64)))), lcn LowCardinality(Nullable(String))",
];

const TEXT_FORMATS: [Format; 5] = [Format::Csv, Format::CsvWithNames, Format::Tsv, Format::TsvWithNames, Format::JsonEachRow];

/// The formats with a types line, picked by a format byte of 240 or more (so that the bytes
/// below keep their formats in the corpora and regressions).
const NAMES_AND_TYPES: [Format; 2] = [Format::CsvWithNamesAndTypes, Format::TsvWithNamesAndTypes];

/// CSV and TSV (plain, with names, with names and types) and JSONEachRow: byte 0 picks the
/// format, byte 1 the structure ([`STRUCTURES`]), the rest is the text. What parses writes back
/// in the same format and reads again to the same values.
pub fn text_input(data: &[u8]) {
    let [f, s, text @ ..] = data else { return };
    let format = match f.checked_sub(240) {
        Some(i) => NAMES_AND_TYPES[usize::from(i) % NAMES_AND_TYPES.len()],
        None => TEXT_FORMATS[usize::from(*f) % TEXT_FORMATS.len()],
    };
    let structure = formats::parse_structure(STRUCTURES[usize::from(*s) % STRUCTURES.len()]).expect("a structure");
    let files = file_options();
    let read = |bytes: Vec<u8>| {
        let mut source = formats::source_of(format, Input::Bytes(bytes.into()), &files, Some("UTC"), LIMITS).expect("a text source");
        // The names line of `...WithNames` may not name the structure's columns: an error.
        match source.bind(&structure) {
            Ok(()) => read_all(source.as_mut(), files.block_limits.rows),
            Err(_) => (Vec::new(), false),
        }
    };
    let (blocks, _) = read(text.to_vec());
    for b in &blocks {
        let types: Vec<(String, DataType)> = formats::columns_of(b);
        assert_eq!(types, structure, "{format}: a block of other columns than the structure");
    }
    if blocks.is_empty() {
        return;
    }
    let written = write_all(format, &blocks, &structure);
    let (again, complete) = read(written.clone());
    assert!(complete, "{format}: chwire's own output does not read back: {:?}", String::from_utf8_lossy(&written));
    // Blocks may be cut differently; the values per column, in order, must agree.
    let by_column = |bs: &[Block]| {
        structure
            .iter()
            .map(|(name, _)| {
                bs.iter().flat_map(|b| (0..b.rows()).map(move |r| format!("{:?}", b.column(name).unwrap().value(r)))).collect()
            })
            .collect::<Vec<Vec<String>>>()
    };
    let first = by_column(&blocks);
    // JSON has no infinities or NaN: they are written as null (as ClickHouse does) and read
    // back as NULL or the default.
    let non_finite = |v: &String| ["(inf)", "(-inf)", "(NaN)"].iter().any(|x| v.contains(x));
    if format == Format::JsonEachRow && first.iter().flatten().any(non_finite) {
        return;
    }
    assert_eq!(first, by_column(&again), "{format}: read -> write -> read changed values");
}

const ARROW_FORMATS: [Format; 3] = [Format::Arrow, Format::ArrowStream, Format::Parquet];

/// Arrow IPC files and streams and Parquet files: byte 0 picks the format, the rest is the
/// file. Blocks come out with the file's own types (inferred, as `chwire convert` without
/// `--structure`); every block converts to Arrow and back to the same values.
pub fn arrow_input(data: &[u8]) {
    let Some((&f, file)) = data.split_first() else { return };
    let format = ARROW_FORMATS[usize::from(f) % ARROW_FORMATS.len()];
    let files = file_options();
    let Ok(mut source) = formats::source_of(format, Input::Bytes(file.to_vec().into()), &files, Some("UTC"), LIMITS) else { return };
    if let Ok(Some(names)) = source.names() {
        std::hint::black_box(names);
    }
    // Parquet batches follow the block row limit; Arrow batches are the file's own.
    let max_rows = if format == Format::Parquet { files.block_limits.rows } else { usize::MAX };
    let (blocks, _) = read_all(source.as_mut(), max_rows);
    for b in blocks {
        round_trip(b, &ArrowOptions::rich());
    }
}

/// Every array chwire builds passes arrow-rs's full validation: offsets, dictionary keys,
/// and the UTF-8 of utf8 arrays, which `block_to_batch` builds without a second check
/// (`new_unchecked`, after its own) — this is where that precondition is tested.
fn valid_arrow(batch: &arrow_array::RecordBatch, header: &[(String, DataType)]) {
    for c in batch.columns() {
        if let Err(e) = c.to_data().validate_full() {
            panic!("{header:?}: chwire built an invalid Arrow array ({}): {e}", c.data_type());
        }
    }
}

/// Block → Arrow → block with the block's own types as the target: the same values (a type
/// without an Arrow mapping, or a value Arrow cannot hold — invalid UTF-8 as utf8 — is an
/// error, never different data).
fn round_trip(block: Block, opts: &ArrowOptions) {
    let header = formats::columns_of(&block);
    if header.iter().enumerate().any(|(i, (n, _))| header[..i].iter().any(|(m, _)| m == n)) {
        // Two columns of one name (a file may have them): matched by name, that is an error.
        let Ok(schema) = schema_of_block(&block, opts) else { return };
        if let Ok(batch) = block_to_batch(block, &schema, opts) {
            assert!(batch_to_block(&batch, &header).is_err(), "columns of one name converted by name");
        }
        return;
    }
    let before = values(&block);
    let Ok(schema) = schema_of_block(&block, opts) else { return };
    let Ok(batch) = block_to_batch(block, &schema, opts) else { return };
    valid_arrow(&batch, &header);
    let back = match batch_to_block(&batch, &header) {
        Ok(back) => back,
        // Native Decimal(P, S) columns may hold values of more than P digits (ClickHouse does
        // not check them either); Arrow holds them as they are, and reading them back checks P.
        Err(e) if e.to_string().contains("does not fit precision") => return,
        Err(e) => panic!("{header:?}: a batch chwire made does not convert back: {e}"),
    };
    if header.iter().any(|(_, t)| t.contains(&|t| matches!(t, DataType::Dynamic { .. } | DataType::Json { .. }))) {
        // Dynamic and JSON travel as JSON text and come back as the values of that text
        // (Dynamic's types inferred, so that the first pass may change types): from the
        // second pass on, the batches are the same.
        let pass = |block: Block| {
            let batch =
                block_to_batch(block, &schema, opts).unwrap_or_else(|e| panic!("{header:?}: converted back, not to Arrow again: {e}"));
            valid_arrow(&batch, &header);
            let back =
                batch_to_block(&batch, &header).unwrap_or_else(|e| panic!("{header:?}: a batch chwire made does not convert back: {e}"));
            (batch, back)
        };
        let (second, back) = pass(back);
        let (third, _) = pass(back);
        assert!(second == third, "block -> Arrow ({:?}) -> block, twice, changed the JSON text", opts.mapping);
        return;
    }
    assert_eq!(before, values(&back), "block -> Arrow ({:?}) -> block changed values", opts.mapping);
}

/// Block → Arrow → block for a column of any type (the `native_column` framing: a type, a
/// row count, a flags byte whose bit 1 picks the ClickHouse mapping, the column's bytes).
pub fn arrow_round_trip(data: &[u8]) {
    let Some((ty, rest)) = pick_type(data) else { return };
    let [lo, hi, flags, body @ ..] = rest else { return };
    let rows = usize::from(u16::from_le_bytes([*lo, *hi]) & 0x3ff);
    let Ok(col) = decode_column(&ty, rows, &mut Reader::with_limits(body, LIMITS)) else { return };
    let Ok(col) = Column::new(ty.clone(), col) else { return };
    let Ok(block) = Block::new().with("c", col) else { return };
    let mut opts = if flags & 2 != 0 { ArrowOptions::clickhouse() } else { ArrowOptions::rich() };
    opts.low_cardinality_as_dictionary = flags & 4 != 0;
    opts.string_as_string = flags & 8 == 0;
    round_trip(block, &opts);
}

/// The targets of this module by name (the replay test uses this).
pub const TARGETS: [(&str, super::fuzz_lib::Target); 3] =
    [("text_input", text_input), ("arrow_input", arrow_input), ("arrow_round_trip", arrow_round_trip)];
