#!/usr/bin/env bash
# Build the Go benchmark peer (ch-go + clickhouse-go v2).
# Usage: bench/peers/go/build.sh [OUTPUT]   (default: build/peers/go-peer, relative to the repo root)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-build/peers/go-peer}"
case "$out" in
  /*) ;;
  *) out="$root/$out" ;;
esac
command -v go >/dev/null || { echo "go toolchain not found" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
cd "$here"
GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" go build -trimpath -o "$out" .
echo "built $out" >&2
