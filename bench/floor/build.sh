#!/usr/bin/env bash
# Builds the raw-socket baselines (bench/floor) and prints the binary's path.
# Idempotent: cargo rebuilds only what changed. Cargo's own output goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="$root/build/floor-target"
cargo build --release --manifest-path "$here/Cargo.toml" 1>&2
echo "$CARGO_TARGET_DIR/release/chwire-bench-floor"
