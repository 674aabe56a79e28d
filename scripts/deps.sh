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
