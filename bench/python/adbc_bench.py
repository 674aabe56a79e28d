#!/usr/bin/env python3
"""chwire's ADBC driver against chwire's own Python client (docs/ADBC.md, docs/BENCHMARKS.md):
W1 and W2 (bench/python/one.py's SQL) read into a pyarrow Table through adbc-driver-manager's
DB-API (`cursor.execute` + `fetch_arrow_table`) and through `chwire.Client.query_arrow`; W2's
10M rows (a pyarrow Table in memory) written through `cursor.adbc_ingest(mode="append")` and
through `Client.insert_arrow`, into a table of engine Null (what the server does with the rows
is the same for both and not measured). Runs interleaved in one process, best of --runs;
prints the wall times and the ratios (ADBC / chwire). Not a test.

    make adbc-bench     # or: build/py-venv/bin/python bench/python/adbc_bench.py [--runs 5]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from one import URL, sqls  # noqa: E402

import chwire  # noqa: E402
import chwire.adbc  # noqa: E402

TABLE = "adbc_bench_w2"


def timed(fn):
    """(wall, CPU) seconds of one call; CPU is the whole process's (every thread: the driver's
    and the client's runtimes decode on threads of their own), less sensitive than wall time to
    other work on a shared machine."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    q = sqls(1)
    client = chwire.connect(URL)
    conn = chwire.adbc.connect(URL)
    cur = conn.cursor()

    def adbc_read(sql):
        cur.execute(sql)
        return cur.fetch_arrow_table()

    results = []
    for case in ("W1", "W2"):
        sql = q[case]
        a, b = adbc_read(sql), client.query_arrow(sql)  # warm-up, and the same result
        assert a.num_rows == b.num_rows and a.schema.names == b.schema.names, case
        del a, b
        ch_t, adbc_t = [], []
        for _ in range(args.runs):  # interleaved: drift on the shared machine hits both
            ch_t.append(timed(lambda: client.query_arrow(sql)))
            adbc_t.append(timed(lambda: adbc_read(sql)))
        results.append((f"{case} read into a pyarrow Table", ch_t, adbc_t))

    data = client.query_arrow(q["W2"])
    client.command(f"DROP TABLE IF EXISTS {TABLE}")
    client.command(f"CREATE TABLE {TABLE} (number UInt64, s String, f Float64, t DateTime) ENGINE = Null")
    ch_t, adbc_t = [], []
    for _ in range(args.runs):
        ch_t.append(timed(lambda: client.insert_arrow(TABLE, data)))
        adbc_t.append(timed(lambda: cur.adbc_ingest(TABLE, data, mode="append")))
    results.append((f"W2 ingest ({data.num_rows:,} rows)", ch_t, adbc_t))
    client.command(f"DROP TABLE IF EXISTS {TABLE}")

    print(f"best of {args.runs}, interleaved; wall and process CPU seconds")
    print(f"{'case':34} {'chwire wall':>11} {'ADBC wall':>10} {'ratio':>6}   {'chwire CPU':>10} {'ADBC CPU':>9} {'ratio':>6}")
    for name, c, a in results:
        cw, aw = min(t[0] for t in c), min(t[0] for t in a)
        cc, ac = min(t[1] for t in c), min(t[1] for t in a)
        print(f"{name:34} {cw:10.3f}s {aw:9.3f}s {aw / cw:5.2f}x   {cc:9.3f}s {ac:8.3f}s {ac / cc:5.2f}x")
    cur.close()
    conn.close()
    client.close()


if __name__ == "__main__":
    main()
