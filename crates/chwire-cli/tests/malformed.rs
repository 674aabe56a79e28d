//! `chwire convert` on corrupted Arrow, ArrowStream and Parquet files: every outcome is a
//! result or a typed error (an exit code and a message), never a panic, an abort or a hang.
//! The files in `tests/data/malformed/` are mutations of chwire's own files that crashed
//! arrow-ipc's readers before `formats/ipc_guard.rs`:
//! - `huge-block.arrow` aborted on a 2^63-byte allocation;
//! - the others panicked in arrow-buffer or arrow-ipc;
//! - `dictionary-*.parquet` (fuzz finds, 1.7 KB each) made parquet-rs allocate 3.5 and 7.5 GB
//!   for dictionary pages claiming billions of values, before `formats/parquet_guard.rs`;
//! - `footer-bool-lists.parquet` (a fuzz find, 460 bytes) kept parquet-rs's footer decoder
//!   skipping lists of 2^31 booleans without reading a byte (1 s here, 10 s under load);
//! - `page-past-chunk.parquet` (a fuzz find, 953 bytes) has page headers claiming more bytes
//!   than their column chunk holds, which parquet-rs allocates and zeroes before reading (1 min
//!   45 s of `chwire convert` before the page check read the headers itself; it is now refused
//!   for a header field of the wrong type, which comes first);
//! - `footer-type-confusion.parquet` (a fuzz find, 541 bytes) declares footer fields with other
//!   types than parquet-rs reads them as, so that it reached lists of 2^31 booleans a walk by
//!   declared types never saw (4 s in parquet-rs's footer decoder).
//!
//! The mutation loop keeps looking, deterministically.

use std::path::{Path, PathBuf};
use std::process::Command;

const STRUCTURE: &str = "a UInt64, b String, c Float64, d Array(UInt32), e Nullable(Int16)";

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chwire-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `chwire convert --from FORMAT -i FILE --to TSV`; panics (fails the test) unless it
/// succeeded or failed with an ordinary error.
fn convert_survives(format: &str, file: &Path, what: &str) -> bool {
    let o = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["convert", "--from", format, "--to", "TSV", "-o", "/dev/null", "-i"])
        .arg(file)
        .output()
        .expect("run chwire");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code();
    assert!(
        code.is_some() && code != Some(101) && !stderr.contains("panicked"),
        "{what}: chwire convert --from {format} crashed ({}): {stderr}",
        o.status
    );
    if !o.status.success() {
        assert!(stderr.starts_with("Error: "), "{what}: an error without a message: {stderr}");
    }
    o.status.success()
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(v.len());
        match rng.below(4) {
            0 => v[at] ^= 1 << rng.below(8),
            1 => v[at] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)],
            2 if at + 4 <= v.len() => v[at..at + 4].copy_from_slice(&[[0xff, 0xff, 0xff, 0x7f], [0, 0, 0, 0x80], [0xff; 4]][rng.below(3)]),
            _ => {
                v.remove(at);
            }
        }
    }
    v
}

#[test]
fn the_files_that_crashed_arrow_ipc_are_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/malformed");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some("arrow") => "Arrow",
            Some("arrows") => "ArrowStream",
            _ => continue,
        };
        seen += 1;
        convert_survives(format, &path, &path.display().to_string());
    }
    assert!(seen >= 6, "the crash files are in {}", dir.display());
}

/// The error of `chwire convert` refusing the Parquet file `path` as bad input (exit 2).
fn refused_parquet(path: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["convert", "--from", "Parquet", "--to", "TSV", "-o", "/dev/null", "-i"])
        .arg(path)
        .output()
        .expect("run chwire");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{}: bad input exits 2: {stderr}", path.display());
    stderr
}

#[test]
fn parquet_files_claiming_more_than_their_bytes_hold_are_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/malformed");
    for (name, what) in [
        ("dictionary-3.5gb.parquet", "a dictionary page claims"),
        ("dictionary-7.5gb.parquet", "a dictionary page claims"),
        ("footer-bool-lists.parquet", "malformed Parquet input: the footer: "),
        ("page-past-chunk.parquet", "column b: a page"),
        ("footer-type-confusion.parquet", "the footer: field 3 of type FieldBool where Parquet has Int"),
    ] {
        let stderr = refused_parquet(&dir.join(name));
        assert!(stderr.contains("malformed Parquet input: ") && stderr.contains(what), "{name}: {stderr}");
    }
}

#[test]
fn mutated_files_never_crash_the_cli() {
    let dir = scratch();
    let tsv = dir.join("in.tsv");
    let rows: String = (0..300)
        .map(|i| format!("{i}\tname{i}\t{}\t[{i},{}]\t{}\n", i as f64 * 1.5, i + 1, if i % 3 == 0 { "\\N".into() } else { i.to_string() },))
        .collect();
    std::fs::write(&tsv, rows).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for format in ["Arrow", "ArrowStream", "Parquet"] {
        let seed_file = dir.join(format!("seed.{format}"));
        let o = Command::new(env!("CARGO_BIN_EXE_chwire"))
            .args(["convert", "--from", "TSV", "-S", STRUCTURE, "--to", format, "--block-rows", "100", "-i"])
            .arg(&tsv)
            .arg("-o")
            .arg(&seed_file)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let seed = std::fs::read(&seed_file).unwrap();
        assert!(convert_survives(format, &seed_file, "the seed"), "the unmutated {format} file converts");
        let bad = dir.join(format!("bad.{format}"));
        for i in 0..150 {
            std::fs::write(&bad, mutate(&seed, &mut rng)).unwrap();
            convert_survives(format, &bad, &format!("{format} mutation {i}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// GZIP and BROTLI Parquet (pandas' and Spark's options), which chwire does not build in
/// (parquet-rs decompresses them without a bound): a clear refusal naming the codec and a way
/// out, not parquet-rs' "Disabled feature at compile time".
#[test]
fn parquet_of_codecs_chwire_does_not_read_says_so() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (name, codec) in [("gzip.parquet", "GZIP"), ("brotli.parquet", "BROTLI")] {
        let stderr = refused_parquet(&dir.join(name));
        assert!(stderr.contains(&format!("compressed with {codec}, which chwire does not read")), "{name}: {stderr}");
    }
}
