#!/usr/bin/env bash
# The crates' layers (docs/ARCHITECTURE.md, "Layers"): the sans-IO crates (chwire-proto,
# chwire-text, chwire-arrow, the row layer chwire-row), the file formats on them (chwire-formats)
# and the fuzz crate on those depend on no client (`chwire`), async runtime, HTTP or TLS crate,
# so that reading a file, fuzzing a decoder or building rows builds none of them. `make lint` runs this. It prints how each
# forbidden crate comes in (`cargo tree --invert`) and exits 1 if one does.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CARGO="${CARGO:-cargo}"
# The client, the runtime and the network stack, by package name.
FORBIDDEN='^(chwire|tokio|tokio-[a-z-]+|hyper|hyper-[a-z-]+|rustls|rustls-[a-z-]+|h2|mio)$'

status=0
# check LABEL CARGO-TREE-ARGS...: the normal (non-dev, non-build) dependencies of one crate.
check() {
    local label="$1"
    shift
    local found
    found=$("$CARGO" tree "$@" -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u | grep -E "$FORBIDDEN" || true)
    for dep in $found; do
        echo "layers.sh: $label depends on $dep, which it must not (docs/ARCHITECTURE.md, \"Layers\"):" >&2
        "$CARGO" tree "$@" -e normal --invert "$dep" >&2 || true
        status=1
    done
}

for crate in chwire-proto chwire-text chwire-arrow chwire-row chwire-formats; do
    check "$crate" -p "$crate"
done
check "the fuzz crate (fuzz/)" --manifest-path fuzz/Cargo.toml
exit $status
