#!/usr/bin/env bash
# Builds the chwire wheel (its compiled module carries the ADBC driver) and installs it into a venv, unless the
# wheel installed there is newer than every source it is made of: python-test, spark-test and
# adbc-test all need it, and `make test` builds it once.
#
# Usage: scripts/py-wheel.sh VENV
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$1"
CARGO="${CARGO:-cargo}"
STAMP="$ROOT/build/py-wheels/.installed-$(basename "$VENV")"
cd "$ROOT"
if [ -f "$STAMP" ] && [ -z "$(find python crates Cargo.toml Cargo.lock -newer "$STAMP" \
        \( -name '*.rs' -o -name '*.py' -o -name '*.toml' -o -name '*.pyi' -o -name Cargo.lock \) \
        -not -path '*/tests/*' -print -quit)" ]; then
    echo "py-wheel.sh: the wheel in $VENV is up to date" >&2
    exit 0
fi
rm -rf build/py-wheels
"$CARGO" build --release --workspace
"$VENV/bin/maturin" build -q --release --strip -m python/Cargo.toml -i "$VENV/bin/python" -o build/py-wheels
"$VENV/bin/pip" install -q --force-reinstall --no-deps build/py-wheels/chwire-*.whl
touch "$STAMP"
