//! The fuzz targets on stable Rust: every seed and regression file of `fuzz/` replayed
//! through its target, plus a few thousand cheap deterministic mutations of each seed, so
//! that no target rots and every crash the fuzzers found stays fixed (see docs/FUZZING.md).

#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;

#[path = "../../../fuzz/src/replay.rs"]
mod replay;
mod rng;
use replay::files;
use rng::Rng;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// A seed with a few bytes flipped, set to interesting values, inserted, removed or cut.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 if at < v.len() => v[at] ^= 1 << rng.below(8),
            1 if at < v.len() => v[at] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)],
            2 => v.insert(at, rng.next() as u8),
            3 if at < v.len() => {
                v.remove(at);
            }
            4 => v.truncate(at),
            _ if at + 8 <= v.len() => v[at..at + 8].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f]),
            _ => {}
        }
    }
    v
}

#[test]
fn corpora_and_regressions_replay_without_panics() {
    let mutations = replay::mutations(2000);
    for (name, target) in targets::TARGETS {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        replay::replay(&fuzz_dir(), name, target, mutations, |seed| mutate(seed, &mut rng));
    }
}

/// Writes the native_column seeds: each column of each native_file seed, framed as the
/// native_column target reads it (type index or name, rows, flags, body).
#[test]
#[ignore = "run by hand when the Native seeds change"]
fn write_column_seeds() {
    use chwire_proto::column::encode_column_of;
    let out = fuzz_dir().join("corpus/native_column");
    std::fs::create_dir_all(&out).unwrap();
    let mut n = 0;
    for (_, data) in files(&fuzz_dir().join("corpus/native_file")) {
        let Ok(blocks) = chwire_proto::native::decode_all(&data) else { continue };
        for b in blocks.iter().filter(|b| b.rows() <= 0x3ff) {
            for (_, c) in b.columns() {
                let name = c.data_type().to_string();
                let mut seed = match targets::TYPES.iter().position(|t| *t == name) {
                    Some(i) => vec![i as u8],
                    None if targets::TYPES.len() + name.len() <= 255 => {
                        let mut s = vec![(targets::TYPES.len() + name.len()) as u8];
                        s.extend_from_slice(name.as_bytes());
                        s
                    }
                    None => continue,
                };
                seed.extend_from_slice(&(b.rows() as u16).to_le_bytes());
                seed.push(0);
                encode_column_of(c.data_type(), c.data(), &mut seed);
                std::fs::write(out.join(format!("oracle-{n:04}")), &seed).unwrap();
                n += 1;
            }
        }
    }
    assert!(n > 0);
}

/// The vectored writer gives the bytes of the encoder for every type of the Native seeds (the
/// conformance types as ClickHouse wrote them), whatever a write takes.
#[test]
fn written_native_blocks_are_the_encoded_ones_for_every_seed_type() {
    struct Trickle(Vec<u8>);
    impl std::io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(5000);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut blocks = 0;
    for (name, data) in files(&fuzz_dir().join("corpus/native_file")) {
        let Ok(decoded) = chwire_proto::native::decode_all(&data) else { continue };
        for b in decoded {
            let mut want = Vec::new();
            chwire_proto::native::encode_block(&b, &mut want);
            let mut w = Trickle(Vec::new());
            chwire_proto::native::write_block(&b, &mut Vec::new(), &mut w).unwrap();
            assert!(w.0 == want, "{name:?}");
            blocks += 1;
        }
    }
    assert!(blocks > 100, "{blocks} blocks");
}
