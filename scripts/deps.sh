#!/usr/bin/env bash
# Tools the build needs: a Rust toolchain with rustfmt and clippy. Idempotent and quiet
# when everything is there.
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
    echo "deps.sh: cargo is missing; install Rust with rustup (https://rustup.rs) and retry" >&2
    exit 1
fi
if command -v rustup >/dev/null 2>&1; then
    for c in rustfmt clippy; do
        if ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
            rustup component add "$c" >&2
        fi
    done
fi
# `make test` needs about 5.5 GB under the checkout (target/ 1.5 GB, fuzz/target/ 1.7 GB,
# build/ 2.2 GB with the Python venvs) besides the toolchains' caches: say so up front when
# the disk is short, as a build that runs out of space fails in a compiler with a message
# about an output stream.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
free_kb=$(df -Pk "$ROOT" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -n "${free_kb:-}" ] && [ "$free_kb" -lt $((6 * 1024 * 1024)) ]; then
    echo "deps.sh: warning: only $((free_kb / 1024)) MiB free under $ROOT; make test needs about 5.5 GB (make demo about 1.5 GB)" >&2
fi
