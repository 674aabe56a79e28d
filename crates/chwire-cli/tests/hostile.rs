//! `chwire convert` on crafted Native files: limits hold before anything big is allocated,
//! and data that cannot be right is an error naming the column, never silently printed.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn varuint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn string(out: &mut Vec<u8>, s: &[u8]) {
    varuint(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// A Native block header and one column header per (name, type); the data follows.
fn block(rows: u64, columns: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    varuint(&mut out, columns.len() as u64);
    varuint(&mut out, rows);
    for (name, ty) in columns {
        string(&mut out, name.as_bytes());
        string(&mut out, ty.as_bytes());
    }
    out
}

fn convert(input: &[u8], args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["convert", "--to", "TSV"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chwire");
    let mut stdin = child.stdin.take().unwrap();
    // The reader may stop early (an error): a broken pipe is fine.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Fails cleanly (an exit code, not a signal) with every `needles` in stderr.
fn assert_error(what: &str, input: &[u8], args: &[&str], needles: &[&str]) {
    let o = convert(input, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(2 | 3)), "{what}: {:?}, stderr: {err}", o.status);
    for n in needles {
        assert!(err.contains(n), "{what}: {n:?} not in {err}");
    }
}

#[test]
fn huge_claims_are_limit_errors_not_aborts() {
    // 2^40 UInt64 rows: once SIGABRT (a failed 8 TiB reservation).
    let mut b = block(1 << 40, &[("a", "UInt64")]);
    b.extend_from_slice(&[0; 64]);
    assert_error("2^40 UInt64 rows", &b, &[], &["block rows", "1099511627776"]);
    // No columns and 2^40 rows: once ran until killed, its memory growing.
    assert_error("2^40 rows without columns", &block(1 << 40, &[]), &[], &["block rows"]);
    // A 2^60-byte string.
    let mut b = block(1, &[("s", "String")]);
    varuint(&mut b, 1 << 60);
    assert_error("2^60-byte string", &b, &[], &["string bytes"]);
    // 2^27 UInt64 rows (1 GiB) are within the default limits: the data must arrive, and
    // a truncated file says so.
    let mut b = block(1 << 27, &[("a", "UInt64")]);
    b.extend_from_slice(&[0; 64]);
    assert_error("truncated 2^27 UInt64 rows", &b, &[], &["truncated"]);
    // The flags lower the limits.
    let mut b = block(2, &[("s", "String")]);
    string(&mut b, b"abc");
    string(&mut b, b"abcd");
    assert_eq!(convert(&b, &[]).stdout, b"abc\nabcd\n");
    assert_error("--max-string-len", &b, &["--max-string-len", "3"], &["string bytes", "4", "3"]);
    assert_error("--max-block-rows", &b, &["--max-block-rows", "1"], &["block rows"]);
    assert_error("--max-block-bytes", &b, &["--max-block-bytes", "8"], &["block bytes"]);
    assert_error("--max-columns", &b, &["--max-columns", "0"], &["max_columns"]);
    let mut b = block(1, &[("a", "Array(Array(UInt8))")]);
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    assert_eq!(convert(&b, &[]).stdout, b"[[]]\n");
    assert_error("--max-depth", &b, &["--max-depth", "2"], &["nested deeper than 2"]);
    assert_error("--max-array-len", &b, &["--max-array-len", "0"], &["max_array_len"]);
}

#[test]
fn rows_without_columns_stream_in_bounded_chunks() {
    // 2^22 empty rows print as 2^22 newlines.
    let o = convert(&block(1 << 22, &[]), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.stdout.len(), 1 << 22);
    assert!(o.stdout.iter().all(|&b| b == b'\n'));
}

#[test]
fn impossible_values_are_errors_naming_the_column() {
    // An Enum value outside the type's values (once printed as an empty field).
    let mut b = block(2, &[("e", "Enum8('a' = 1, 'b' = 2)")]);
    b.extend_from_slice(&[1, 7]);
    assert_error("Enum8 value 7", &b, &[], &["column \"e\"", "7 at row 1"]);
    let mut b = block(1, &[("e", "Enum16('a' = 1000)")]);
    b.extend_from_slice(&999i16.to_le_bytes());
    assert_error("Enum16 value 999", &b, &[], &["column \"e\"", "999"]);
    // NULL rows of a Nullable(Enum) hold a placeholder that need not be a value.
    let mut b = block(2, &[("e", "Nullable(Enum8('a' = 1))")]);
    b.extend_from_slice(&[1, 0, 0, 1]);
    assert_eq!(convert(&b, &[]).stdout, b"\\N\na\n");

    // Array offsets that decrease.
    let mut b = block(2, &[("a", "Array(UInt8)")]);
    b.extend_from_slice(&2u64.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&[0; 2]);
    assert_error("decreasing offsets", &b, &[], &["column \"a\"", "offsets decrease"]);

    // A LowCardinality key outside the dictionary.
    let mut b = block(1, &[("lc", "LowCardinality(String)")]);
    b.extend_from_slice(&1u64.to_le_bytes()); // key version
    b.extend_from_slice(&(1u64 << 9).to_le_bytes()); // UInt8 keys (code 0), additional keys
    b.extend_from_slice(&1u64.to_le_bytes()); // dictionary of one
    string(&mut b, b"x");
    b.extend_from_slice(&1u64.to_le_bytes()); // one key
    b.push(3);
    assert_error("LowCardinality key 3", &b, &[], &["column \"lc\"", "index 3 outside a dictionary of 1"]);
    // As many keys as rows.
    let mut b = block(2, &[("lc", "LowCardinality(String)")]);
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&(1u64 << 9).to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes());
    string(&mut b, b"x");
    b.extend_from_slice(&3u64.to_le_bytes());
    b.extend_from_slice(&[0, 0, 0]);
    assert_error("3 keys for 2 rows", &b, &[], &["column \"lc\"", "3 indexes for a block of 2 rows"]);

    // A Variant discriminator beyond the type list.
    let mut b = block(1, &[("v", "Variant(String, UInt64)")]);
    b.extend_from_slice(&0u64.to_le_bytes()); // basic discriminators mode
    b.push(2);
    assert_error("Variant discriminator 2", &b, &[], &["column \"v\"", "discriminator 2"]);

    // DateTime64 with a scale beyond 9.
    let mut b = block(1, &[("t", "DateTime64(10)")]);
    b.extend_from_slice(&0i64.to_le_bytes());
    assert_error("DateTime64(10)", &b, &[], &["DateTime64(10)", "precision"]);
}
