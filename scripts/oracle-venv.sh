#!/usr/bin/env bash
# The Python venv of the conformance oracle (tests/oracle/): build/oracle-venv (or $ORACLE_VENV)
# with chdb-core (in-process ClickHouse) and DuckDB (a third Parquet reader) at the pinned
# versions. Idempotent: does nothing when the venv already imports both at those versions.
# Needs no stdin (works under CI=true).
# The wheel is ~180 MB (manylinux x86_64) and pulls numpy, pandas and pyarrow: the venv takes
# ~900 MB and ~30 s to install on a fast link.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ORACLE_VENV:-$ROOT/build/oracle-venv}"
CHDB_VERSION="26.9.0"
DUCKDB_VERSION="2.0.1"
PY="${PYTHON:-python3}"

have_chdb() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$CHDB_VERSION" "$DUCKDB_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
import chdb  # noqa: F401
import duckdb  # noqa: F401
sys.exit(0 if version("chdb-core") == sys.argv[1] and version("duckdb") == sys.argv[2] else 1)
EOF
}

if have_chdb; then
    exit 0
fi

if ! command -v "$PY" >/dev/null 2>&1; then
    echo "oracle-venv.sh: $PY not found; install Python 3 (Debian: apt-get install python3 python3-venv)" >&2
    exit 1
fi
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "oracle-venv.sh: the Python venv module (with ensurepip) is missing;" \
        "install the Debian package python3-venv (apt-get install -y python3-venv) and retry" >&2
    exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
    echo "oracle-venv.sh: creating $VENV" >&2
    mkdir -p "$(dirname "$VENV")"
    "$PY" -m venv "$VENV"
fi
echo "oracle-venv.sh: installing chdb-core==$CHDB_VERSION and duckdb==$DUCKDB_VERSION into $VENV (~200 MB download)" >&2
PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install --no-input --quiet \
    "chdb-core==$CHDB_VERSION" "duckdb==$DUCKDB_VERSION" >&2

if ! have_chdb; then
    echo "oracle-venv.sh: chdb-core==$CHDB_VERSION and duckdb==$DUCKDB_VERSION installed but an import fails in $VENV:" >&2
    "$VENV/bin/python" -c 'import chdb, duckdb' >&2 || true
    exit 1
fi
echo "oracle-venv.sh: ready: $VENV/bin/python (chdb-core $CHDB_VERSION, duckdb $DUCKDB_VERSION)" >&2
