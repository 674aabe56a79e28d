#!/usr/bin/env python3
"""A stand-in for `chwire convert` backed by chdb itself, to check the harness: with it,
every case in CASES must PASS and every PENDING case must FAIL with "now passes" (except where
chdb cannot read its own Native bytes back).

    build/oracle-venv/bin/python tests/oracle/run.py --chwire tests/oracle/chdb_convert.sh

Accepts only `convert --from native --to (JSONEachRow|TSV|CSV|native)`, Native on stdin.
"""
import os
import sys
import tempfile

import chdb


def main():
    args = sys.argv[1:]
    if args[:1] != ["convert"] or "--to" not in args:
        print("usage: chdb_convert.py convert --from native --to JSONEachRow|TSV|CSV|native", file=sys.stderr)
        return 2
    to = args[args.index("--to") + 1]
    fmt = {"jsoneachrow": "JSONEachRow", "tsv": "TSV", "csv": "CSV", "native": "Native"}[to.lower()]
    data = sys.stdin.buffer.read()
    if not data:
        return 0
    with tempfile.NamedTemporaryFile(suffix=".native", delete=False) as f:
        f.write(data)
    try:
        db = chdb.connect(":memory:")
        db.query("SET max_threads = 1")
        out = db.query(f"SELECT * FROM file('{f.name}', Native) SETTINGS schema_inference_use_cache_for_file=0", fmt).bytes()
    except Exception as e:
        print(f"chdb: {e}", file=sys.stderr)
        return 1
    finally:
        os.unlink(f.name)
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
