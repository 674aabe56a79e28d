#!/usr/bin/env bash
# `chwire convert` played by chdb (see chdb_convert.py): a self-check of the oracle harness.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../build/oracle-venv/bin/python" "$here/chdb_convert.py" "$@"
