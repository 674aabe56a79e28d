#!/usr/bin/env bash
# Builds the W9 link emulator (bench/netem) and prints the binary's path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="$root/build/netem-target"
cargo build --release --manifest-path "$here/Cargo.toml" 1>&2
echo "$CARGO_TARGET_DIR/release/chwire-netem"
