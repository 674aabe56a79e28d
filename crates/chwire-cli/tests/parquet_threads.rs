//! Parquet through `chwire convert` on one thread and on several (`--threads`,
//! `output_format_parquet_parallel_encoding`): the same file bytes, and the same rows back.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chwire-parquet-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn chwire(args: &[&str]) -> Vec<u8> {
    let o = Command::new(env!("CARGO_BIN_EXE_chwire")).args(args).output().expect("run chwire");
    assert!(o.status.success(), "chwire {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn parquet_files_and_rows_do_not_depend_on_the_threads() {
    let dir = scratch();
    // Six columns, nested ones among them (a Tuple is one CSV field per element, as in
    // ClickHouse), 30,000 rows in blocks of 7,000 and row groups of 10,000 rows.
    let csv: String = (0..30_000u64)
        .map(|i| {
            format!(
                "{i},s{},{}.5,\"[{}]\",{},{i},t{}\n",
                i % 97,
                i,
                (0..i % 4).map(|k| k.to_string()).collect::<Vec<_>>().join(","),
                if i % 3 == 0 { "\\N".to_string() } else { (i % 30_000).to_string() },
                i % 11
            )
        })
        .collect();
    let input = dir.join("in.csv");
    std::fs::write(&input, csv).unwrap();
    let structure = "a UInt64, b String, c Float64, d Array(UInt32), e Nullable(Int16), f Tuple(UInt64, String)";
    let native = dir.join("in.native");
    chwire(&[
        "convert",
        "--from",
        "CSV",
        "--structure",
        structure,
        "--block-rows",
        "7000",
        "-i",
        path(&input),
        "--to",
        "Native",
        "-o",
        path(&native),
    ]);
    let write = |name: &str, extra: &[&str]| -> Vec<u8> {
        let out = dir.join(name);
        let mut args = vec!["convert", "--from", "Native", "-i", path(&native), "--to", "Parquet", "-o", path(&out)];
        args.extend_from_slice(&["--setting", "output_format_parquet_row_group_size=10000"]);
        args.extend_from_slice(extra);
        chwire(&args);
        std::fs::read(out).unwrap()
    };
    let one = write("one.parquet", &["--threads", "1"]);
    assert!(write("three.parquet", &["--threads", "3"]) == one, "3 threads wrote another file");
    assert!(write("serial.parquet", &["--threads", "4", "--setting", "output_format_parquet_parallel_encoding=0"]) == one);
    assert!(write("default.parquet", &[]) == one);
    let original = chwire(&["convert", "--from", "Native", "-i", path(&native), "--to", "TSV"]);
    for threads in ["1", "2", "6"] {
        let back = chwire(&["convert", "--from", "Parquet", "-i", path(&dir.join("one.parquet")), "--to", "TSV", "--threads", threads]);
        assert!(back == original, "read on {threads} threads");
    }
    let err = Command::new(env!("CARGO_BIN_EXE_chwire")).args(["convert", "--threads", "0", "--to", "TSV"]).output().unwrap();
    assert_eq!(err.status.code(), Some(2), "{}", String::from_utf8_lossy(&err.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}
