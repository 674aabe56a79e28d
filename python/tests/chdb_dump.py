"""Run by the chdb oracle venv (not pytest): for each query of tests/oracle/arrow_fixture.py,
ClickHouse 26.9 (chdb) writes the result as Native and as ArrowStream; pytest compares
chwire.read_native(Native bytes) with pyarrow's reading of chdb's own Arrow.

    build/oracle-venv/bin/python python/tests/chdb_dump.py OUT_DIR
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
sys.dont_write_bytecode = True

import arrow_fixture  # noqa: E402


def main():
    import chdb

    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    db = chdb.connect(":memory:")
    for fmt, ext in (("Native", "native"), ("ArrowStream", "arrow")):
        for i, q in enumerate(arrow_fixture.QUERIES):
            sql = q + " " + arrow_fixture.SETTINGS
            try:
                data = db.query(sql, fmt).bytes()
            except Exception as e:  # ClickHouse cannot write some values as Arrow
                with open(os.path.join(out, f"{i:03}.{ext}.refused"), "w") as f:
                    f.write(str(e))
                # A connection that raised can answer the next query in the failed format.
                db.close()
                db = chdb.connect(":memory:")
                continue
            with open(os.path.join(out, f"{i:03}.{ext}"), "wb") as f:
                f.write(data)
            with open(os.path.join(out, f"{i:03}.sql"), "w") as f:
                f.write(q)

if __name__ == "__main__":
    main()
