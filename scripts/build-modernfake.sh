#!/usr/bin/env bash
# Build ../shared/tools/modernfake (a revision-54460 protocol peer on ch-go's decoders,
# fetched from the Go module proxy) into the given path, if it is missing or older than
# its sources.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/build/modernfake}"
case "$OUT" in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
SRC="${CHWIRE_MODERNFAKE_SRC:-$ROOT/../shared/tools/modernfake}"
if [ ! -d "$SRC" ]; then
    echo "build-modernfake.sh: $SRC not found (../shared must sit beside the checkout)" >&2
    exit 1
fi
if ! command -v go >/dev/null 2>&1; then
    echo "build-modernfake.sh: go is missing (apt-get install golang-go)" >&2
    exit 1
fi
if [ -x "$OUT" ] && [ -z "$(find "$SRC" -newer "$OUT" -name '*.go' -print -quit)" ]; then
    exit 0
fi
mkdir -p "$(dirname "$OUT")"
# The shared folder may be read-only: build from a copy.
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cp -r "$SRC/." "$TMP/"
(cd "$TMP" && GOFLAGS=-mod=mod go build -o "$OUT" .)
echo "build-modernfake.sh: built $OUT" >&2
