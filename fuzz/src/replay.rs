//! The fuzz targets on stable Rust, without libFuzzer: every seed and regression file of a
//! target replayed through it, then deterministic mutations of the seeds. Included with
//! `#[path]` by the tests that replay the corpora (`crates/chwire-proto/tests/fuzz_corpus.rs`,
//! `crates/chwire-formats/tests/fuzz_formats.rs`), each with its own mutations.

use std::path::{Path, PathBuf};

/// The files of `dir` (none if it does not exist), sorted by name.
pub fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(PathBuf, Vec<u8>)> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    out.sort();
    out
}

/// How many mutations per target: `CHWIRE_FUZZ_MUTATIONS`, else `default`.
pub fn mutations(default: usize) -> usize {
    std::env::var("CHWIRE_FUZZ_MUTATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Replays target `name`'s seeds (`fuzz_dir/corpus/name`, which must not be empty) and
/// regressions (`fuzz_dir/regressions/name`), then `mutations` inputs made by `mutate` from
/// the seeds in turn. A panic fails the test; a mutated input that panics is saved in the
/// temporary directory.
pub fn replay(fuzz_dir: &Path, name: &str, target: fn(&[u8]), mutations: usize, mut mutate: impl FnMut(&[u8]) -> Vec<u8>) {
    let seeds = files(&fuzz_dir.join("corpus").join(name));
    let regressions = files(&fuzz_dir.join("regressions").join(name));
    assert!(!seeds.is_empty(), "no seeds for {name}: run fuzz/seeds.py");
    for (path, data) in seeds.iter().chain(&regressions) {
        if let Err(e) = std::panic::catch_unwind(|| target(data)) {
            panic!("{name}: {} panics: {e:?}", path.display());
        }
    }
    for i in 0..mutations {
        let (path, seed) = &seeds[i % seeds.len()];
        let input = mutate(seed);
        if let Err(e) = std::panic::catch_unwind(|| target(&input)) {
            let out = std::env::temp_dir().join(format!("chwire-fuzz-{name}-{i}"));
            std::fs::write(&out, &input).unwrap();
            panic!("{name}: mutation {i} of {} panics ({e:?}); input saved as {}", path.display(), out.display());
        }
    }
}
