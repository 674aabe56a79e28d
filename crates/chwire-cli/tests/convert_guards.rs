//! `chwire convert` refusing what would lose data silently (found by an adversarial probe of
//! the CLI): the input named as the output, Native blocks that change their columns, an
//! unknown time zone, an ArrowStream cut between batches; and a closed pipe is a quiet end.
//! Strings that are not UTF-8 in Parquet and Arrow files keep their bytes.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chwire-convert-guards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn convert(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .arg("convert")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chwire");
    use std::io::Write;
    // chwire may refuse its arguments before it reads the input.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_input_is_never_the_output() {
    let csv = scratch("same.csv");
    std::fs::write(&csv, "1\n2\n").unwrap();
    let link = scratch("link.csv");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&csv, &link).unwrap();
    for out in [&csv, &link] {
        let o = convert(&["--from", "CSV", "--to", "CSV", "-S", "n UInt64", "-i", csv.to_str().unwrap(), "-o", out.to_str().unwrap()], b"");
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("is both the input and the output"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), "1\n2\n", "the input is kept");
    }
}

#[test]
fn native_blocks_must_keep_their_columns() {
    // Two Native files concatenated: a block of column `a`, then one of column `b`.
    let mut native = Vec::new();
    for (name, data) in [("a", "1\n"), ("b", "2\n")] {
        let o = convert(&["--from", "TSV", "--to", "Native", "-S", &format!("{name} UInt8")], data.as_bytes());
        assert!(o.status.success(), "{}", stderr(&o));
        native.extend_from_slice(&o.stdout);
    }
    for to in ["Parquet", "JSONEachRow", "CSVWithNames"] {
        let out = scratch(&format!("blocks.{to}"));
        let o = convert(&["--from", "Native", "--to", to, "-o", out.to_str().unwrap()], &native);
        assert_eq!(o.status.code(), Some(2), "{to}: {}", stderr(&o));
        assert!(stderr(&o).contains("block 2 of the input has the columns (b UInt8), the first block (a UInt8)"), "{}", stderr(&o));
    }
}

#[test]
fn an_unknown_time_zone_is_an_error() {
    let o = convert(&["--from", "TSV", "--to", "TSV", "-S", "t DateTime", "--timezone", "America/NewYork"], b"2020-01-01 00:00:00\n");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown time zone"), "{}", stderr(&o));
    let o = convert(&["--from", "TSV", "--to", "TSV", "-S", "t DateTime", "--timezone", "America/New_York"], b"2020-01-01 00:00:00\n");
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn an_arrow_stream_cut_between_batches_is_an_error() {
    let rows: String = (0..300).map(|i| format!("{i}\n")).collect();
    let o = convert(&["--from", "TSV", "--to", "ArrowStream", "-S", "n UInt64", "--block-rows", "100"], rows.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    let full = o.stdout;
    let whole = convert(&["--from", "ArrowStream", "--to", "TSV"], &full);
    assert_eq!(String::from_utf8_lossy(&whole.stdout), rows);
    // Without the end-of-stream marker (8 bytes), the input ends between two messages.
    for cut in [full.len() - 8, full.len() - 3, full.len() / 2] {
        let o = convert(&["--from", "ArrowStream", "--to", "TSV"], &full[..cut]);
        assert_eq!(o.status.code(), Some(2), "cut at {cut}: {}", stderr(&o));
        assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let rows: String = (0..1_000_000).map(|i| format!("{i}\n")).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["convert", "--from", "TSV", "--to", "TSV", "-S", "n UInt64"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(rows.as_bytes());
    });
    let mut first = [0u8; 2];
    use std::io::Read;
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take()); // the reader goes away, as `| head -1` does
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(&first, b"0\n");
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

/// Options that would change nothing are refused rather than ignored.
#[test]
fn options_that_would_change_nothing_are_errors() {
    let o = convert(&["--from", "TSV", "--to", "TSV", "-S", "a UInt8", "--file-compression", "zstd"], b"1\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--file-compression zstd compresses Arrow, ArrowStream and Parquet output, not TSV"), "{}", stderr(&o));
    let native = convert(&["--from", "TSV", "--to", "Native", "-S", "a UInt8"], b"1\n").stdout;
    let o = convert(&["--from", "Native", "--to", "TSV", "-S", "a String"], &native);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Native input carries its columns and types"), "{}", stderr(&o));
    let o = convert(&["--max-depth", "300", "--from", "TSV", "--to", "TSV", "-S", "a UInt8"], b"1\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("above the ceiling of 256"), "{}", stderr(&o));
}

/// A block of rows without columns (Native allows it) keeps its row count in Arrow files,
/// whose batches then have no array to tell it (the IPC file writer failed on it).
#[test]
fn rows_without_columns_convert_to_arrow() {
    let native = [0u8, 3]; // no columns, 3 rows
    for format in ["Arrow", "ArrowStream"] {
        let out = scratch(&format!("zero.{format}"));
        let o = convert(&["--from", "Native", "--to", format, "-o", out.to_str().unwrap()], &native);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let o = convert(&["--from", format, "--to", "TSV", "-i", out.to_str().unwrap()], b"");
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        assert_eq!(String::from_utf8_lossy(&o.stdout), "\n\n\n", "{format}");
    }
    // Parquet counts rows in its columns: refused rather than written as no rows.
    let o = convert(&["--from", "Native", "--to", "Parquet", "-o", scratch("zero.parquet").to_str().unwrap()], &native);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot hold rows without columns"), "{}", stderr(&o));
}

#[test]
fn null_output_reads_everything_and_writes_nothing() {
    // A Parquet file of 5000 rows, read to its end.
    let csv: String = (0..5000).map(|i| format!("{i},v{i}\n")).collect();
    let parquet = scratch("null.parquet");
    let o = convert(
        &["--from", "CSV", "--to", "Parquet", "-S", "n UInt64, s String", "--file-compression", "none", "-o", parquet.to_str().unwrap()],
        csv.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = convert(&["--from", "Parquet", "--to", "Null", "-i", parquet.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "Null writes nothing");
    // Null is output only, and does not take an output file (it would only be emptied).
    let o = convert(&["--from", "Null", "--to", "CSV"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let kept = scratch("kept.txt");
    std::fs::write(&kept, "keep me").unwrap();
    let o = convert(&["--from", "Parquet", "--to", "Null", "-i", parquet.to_str().unwrap(), "-o", kept.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("writes nothing"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me");
    // The values are decoded, not skipped: a CSV value that does not parse fails the read.
    let o = convert(&["--from", "CSV", "--to", "Null", "-S", "n UInt64"], b"1\n2\nx\n");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("row 3") || stderr(&o).contains("line 3"), "{}", stderr(&o));
}

/// A String of bytes that are not UTF-8 in the Parquet, Arrow and ArrowStream files ClickHouse
/// 26.9 wrote (`SELECT unhex('FF80') AS s, 'ok' AS t FORMAT …`: STRING columns, utf8 arrays)
/// reads as the bytes it holds, as ClickHouse reads it; parquet-rs and arrow-ipc alone refuse
/// the files.
#[test]
fn strings_that_are_not_utf8_keep_their_bytes() {
    for (format, ext) in [("Parquet", "parquet"), ("Arrow", "arrow"), ("ArrowStream", "arrows")] {
        let file = format!("{}/tests/data/clickhouse_bytes.{ext}", env!("CARGO_MANIFEST_DIR"));
        let o = convert(&["--from", format, "--to", "TSV", "-i", &file], b"");
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        assert_eq!(o.stdout, b"\xff\x80\tok\n", "{format}");
        let o = convert(&["--from", format, "--to", "Native", "-i", &file], b"");
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let o = convert(&["--from", "Native", "--to", "TSV"], &o.stdout);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        assert_eq!(o.stdout, b"\xff\x80\tok\n", "{format}: the Native block holds the bytes");
    }
}

/// Geo columns in a Parquet file ClickHouse 26.9 wrote (WKB strings named in its `geo`
/// metadata; a Ring has no geometry type there and is written as its storage) read as the geo
/// types ClickHouse reads them as, with the same values (chdb's TSV of the file, and of the
/// Native block chwire converts it to, is the expected text).
#[test]
fn clickhouse_geo_columns_read_as_geo_types() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/clickhouse_geo.parquet");
    let o = convert(&["--from", "Parquet", "--to", "TSV", "-i", file], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "(1.5,-2)\t[(0,0),(1,1)]\t[[(0,0),(1,1)],[(2,2)]]\t[[(0,0),(1,0),(1,1),(0,0)],[]]\t[[[(0,0),(1,0),(1,1),(0,0)]]]\t[(0,0),(1,1)]\t[(0,0),(1,1)]\n"
    );
    let o = convert(&["--from", "Parquet", "--to", "Native", "-i", file], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let blocks = chwire_proto::native::decode_all(&o.stdout).unwrap();
    let types: Vec<String> = blocks[0].columns().iter().map(|(_, c)| c.data_type().to_string()).collect();
    assert_eq!(
        types,
        ["Point", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "MultiPoint", "Array(Tuple(`1` Float64, `2` Float64))"]
    );
}

/// Formats come from the file names' extensions when not named (as clickhouse-local and
/// DuckDB infer them); input read as Native because nothing named its format says so, and how
/// to name another; `--to` without an output extension is asked for.
#[test]
fn formats_follow_file_extensions() {
    let csv = scratch("ext.csv");
    std::fs::write(&csv, "28,1,x\n29,2,y\n").unwrap();
    let parquet = scratch("ext.parquet");
    let o = convert(&["-i", csv.to_str().unwrap(), "-S", "a UInt8, b UInt8, s String", "-o", parquet.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(&std::fs::read(&parquet).unwrap()[..4], b"PAR1");
    let o = convert(&["-i", parquet.to_str().unwrap(), "--to", "tsv"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "28\t1\tx\n29\t2\ty\n");
    // A named format wins over the extension.
    let o = convert(&["-i", csv.to_str().unwrap(), "--from", "TSV", "-S", "line String", "--to", "tsv"], b"");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "28,1,x\n29,2,y\n", "{}", stderr(&o));
    // No extension: Native, and an error that says so.
    let text = scratch("ext-data");
    std::fs::write(&text, "28,1,x\n").unwrap();
    let o = convert(&["-i", text.to_str().unwrap(), "--to", "parquet", "-o", scratch("never.parquet").to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("read as Native") && stderr(&o).contains("--from CSVWithNames"), "{}", stderr(&o));
    // Named Native: no such hint.
    let o = convert(&["-i", text.to_str().unwrap(), "--from", "native", "--to", "tsv"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("read as Native"), "{}", stderr(&o));
    // No --to and no output extension.
    let o = convert(&["-i", csv.to_str().unwrap(), "-S", "a UInt8, b UInt8, s String"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--to is needed"), "{}", stderr(&o));
    let o = convert(&["-i", csv.to_str().unwrap(), "-S", "a UInt8, b UInt8, s String", "-o", scratch("out.xyz").to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no format has the extension of"), "{}", stderr(&o));
}

/// `convert` never connects: its help lists no connection flags (they stay accepted, global).
#[test]
fn convert_help_lists_no_connection_flags() {
    let o = convert(&["--help"], b"");
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("--structure") && !help.contains("--url") && !help.contains("--password"), "{help}");
    let o = Command::new(env!("CARGO_BIN_EXE_chwire")).args(["query", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("--url"));
}
