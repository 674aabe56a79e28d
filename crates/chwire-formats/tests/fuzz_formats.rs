//! The file-reader and Arrow fuzz targets (`fuzz/src/formats.rs`) on stable Rust: every seed
//! and regression file replayed through its target, plus deterministic mutations of each
//! seed, so that the targets cannot rot and every crash found stays fixed (docs/FUZZING.md).

#[path = "../../../fuzz/src/formats.rs"]
mod formats;
#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz_lib;

#[path = "../../../fuzz/src/replay.rs"]
mod replay;
#[path = "../../chwire-proto/tests/rng/mod.rs"]
mod rng;

use rng::Rng;
use std::path::Path;

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
    let mutations = replay::mutations(1000);
    for (name, target) in formats::TARGETS {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        replay::replay(&dir, name, target, mutations, |seed| mutate(seed, &mut rng));
    }
}
