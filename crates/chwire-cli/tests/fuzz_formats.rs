//! The file-reader and Arrow fuzz targets (`fuzz/src/formats.rs`) on stable Rust: every seed
//! and regression file replayed through its target, plus deterministic mutations of each
//! seed, so that the targets cannot rot and every crash found stays fixed (docs/FUZZING.md).

#[path = "../../../fuzz/src/formats.rs"]
mod formats;
#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz_lib;

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(PathBuf, Vec<u8>)> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
    out.sort();
    out
}

/// xorshift64*: mutations that are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if at < v.len() => v[at] ^= 1 << rng.below(8),
            1 if at < v.len() => v[at] = [0, 1, b'"', b'\\', b'\n', b',', 0x7f, 0xff][rng.below(8)],
            2 => v.insert(at, rng.next() as u8),
            3 if at < v.len() => {
                v.remove(at);
            }
            _ => v.truncate(at.max(2)),
        }
    }
    v
}

#[test]
fn corpora_and_regressions_replay_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mutations: usize = std::env::var("CHWIRE_FUZZ_MUTATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    for (name, target) in formats::TARGETS {
        let seeds = files(&dir.join("corpus").join(name));
        let regressions = files(&dir.join("regressions").join(name));
        assert!(!seeds.is_empty(), "no seeds for {name}: run fuzz/seeds.py");
        for (path, data) in seeds.iter().chain(&regressions) {
            if let Err(e) = std::panic::catch_unwind(|| target(data)) {
                panic!("{name}: {} panics: {e:?}", path.display());
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        for i in 0..mutations {
            let (path, seed) = &seeds[i % seeds.len()];
            let input = mutate(seed, &mut rng);
            if let Err(e) = std::panic::catch_unwind(|| target(&input)) {
                let out = std::env::temp_dir().join(format!("chwire-fuzz-{name}-{i}"));
                std::fs::write(&out, &input).unwrap();
                panic!("{name}: mutation {i} of {} panics (input saved to {}): {e:?}", path.display(), out.display());
            }
        }
    }
}
