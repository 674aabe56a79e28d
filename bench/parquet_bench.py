#!/usr/bin/env python3
"""Parquet write and read of W2's rows (bench/PEERS.md: number, toString(number), toFloat64(number),
toDateTime(number)) with chwire, next to pyarrow writing and reading the same table, and chdb's
`INTO OUTFILE ... FORMAT Parquet`. Wall time is the median of --runs runs; chwire's peak memory is
the largest child RSS. Printed as a Markdown table with ratios to pyarrow (< 1: chwire faster).

    build/oracle-venv/bin/python bench/parquet_bench.py --chwire target/release/chwire [--rows N]

The data comes from chdb (no server needed): its Native bytes are chwire's input (a file), and
pyarrow's table is those rows as chwire converts them (read once, outside the timing).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import pyarrow.parquet as pq
from chdb import session


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def interleaved(fns, runs):
    """Median wall time of each of fns, run in turn within every round."""
    times = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def peak_mib(args):
    """Peak RSS of one run of args, by GNU time (None without it)."""
    if not os.path.exists("/usr/bin/time"):
        return None
    with tempfile.NamedTemporaryFile("r") as f:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name, *args], check=True, stdout=subprocess.DEVNULL)
        return int(f.read().split()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chwire", default="target/release/chwire")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    db = session.Session()
    sql = (f"SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number, 'UTC') AS t "
           f"FROM numbers({a.rows}) SETTINGS max_block_size = 65536")
    rows = []
    with tempfile.TemporaryDirectory(prefix="chwire-parquet-bench-") as tmp:
        native = os.path.join(tmp, "w2.native")
        with open(native, "wb") as f:
            f.write(db.query(sql, "Native").bytes())

        def chwire(*args):
            subprocess.run([a.chwire, "convert", *args], check=True, stdout=subprocess.DEVNULL)

        base = timed(lambda: chwire("--from", "native", "--to", "native", "-i", native, "-o", os.devnull), a.runs)
        rows.append(("chwire Native → Native (read + decode + encode: the floor)", base, None, None))
        for codec, pa_codec in [("zstd", "zstd"), ("snappy", "snappy"), ("none", "none")]:
            out = os.path.join(tmp, f"chwire-{codec}.parquet")
            w = timed(lambda: chwire("--from", "native", "--to", "parquet", "--file-compression", codec, "-i", native, "-o", out), a.runs)
            table = pq.read_table(out)
            pa_out = os.path.join(tmp, f"pyarrow-{codec}.parquet")
            pw = timed(lambda: pq.write_table(table, pa_out, compression=pa_codec), a.runs)
            rows.append((f"write Parquet ({codec})", w, pw, os.path.getsize(out) / os.path.getsize(pa_out)))
            # Reads: each reader on each writer's file, the three readers taking turns within
            # every run (this machine's load drifts between runs more than the readers differ).
            for label, path in [("chwire's file", out), ("pyarrow's file", pa_out)]:
                r, rn, pr1, pr = interleaved([
                    lambda: chwire("--from", "parquet", "--to", "native", "-i", path, "-o", os.devnull),
                    lambda: chwire("--from", "parquet", "--to", "null", "-i", path),
                    lambda: pq.read_table(path, use_threads=False),
                    lambda: pq.read_table(path),
                ], a.runs)
                rows.append((f"read Parquet ({codec}) → Native, {label}", r, pr1, None))
                rows.append((f"  (pyarrow with threads: {pr:.3f} s, chwire / that {r / pr:.2f}×)", None, None, None))
                # pyarrow's read ends in a table in memory; chwire's like it in blocks in
                # memory (`--to null`: read, decoded, converted to ClickHouse columns, dropped).
                rows.append((f"read Parquet ({codec}) → blocks (`--to null`), {label}", rn, pr1, None))
                rows.append((f"  (pyarrow with threads: {pr:.3f} s, chwire / that {rn / pr:.2f}×)", None, None, None))
            del table
        ch_out = os.path.join(tmp, "chdb.parquet")
        try:
            def chdb_write():
                if os.path.exists(ch_out):
                    os.unlink(ch_out)
                db.query(f"SELECT * FROM file('{native}', Native) INTO OUTFILE '{ch_out}' FORMAT Parquet "
                         "SETTINGS output_format_parquet_compression_method = 'zstd'")
            cw = timed(chdb_write, a.runs)
        except Exception as e:  # noqa: BLE001
            cw = None
            print(f"chdb INTO OUTFILE unavailable: {e}")
        peaks = {
            "write Parquet (zstd)": peak_mib([a.chwire, "convert", "--to", "parquet", "-i", native, "-o", os.path.join(tmp, "p.parquet")]),
            "read Parquet (zstd)": peak_mib([a.chwire, "convert", "--from", "parquet", "--to", "native", "-i", os.path.join(tmp, "chwire-zstd.parquet"),
                                             "-o", os.devnull]),
        }
    print(f"Parquet, W2 shape, {a.rows:,} rows, median of {a.runs} (wall seconds); "
          f"pyarrow {pq.__name__.split('.')[0]} {__import__('pyarrow').__version__}, single-threaded unless noted")
    print()
    print("| case | chwire | pyarrow | chwire / pyarrow | file size chwire / pyarrow |")
    print("|---|---|---|---|---|")
    for name, ours, theirs, size in rows:
        if ours is None:
            print(f"| {name} | | | | |")
            continue
        ratio = f"{ours / theirs:.2f}×" if theirs else ""
        print(f"| {name} | {ours:.3f} s | {f'{theirs:.3f} s' if theirs else ''} | {ratio} | {f'{size:.2f}' if size else ''} |")
    if cw is not None:
        print(f"| chdb `INTO OUTFILE ... FORMAT Parquet` (zstd) of the same Native file: {cw:.3f} s | | | | |")
    print()
    for k, v in peaks.items():
        if v is not None:
            print(f"chwire's peak memory, {k}: {v:.0f} MiB (input {a.rows:,} rows)")


if __name__ == "__main__":
    main()
