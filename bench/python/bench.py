#!/usr/bin/env python3
"""Python benchmarks of chwire against clickhouse-connect and clickhouse-driver (see
docs/PYTHON.md, docs/BENCHMARKS.md). Each measurement runs in its own process (peak RSS and
CPU are that process's); prints one line per case and the ratios. Not a test.

    make python-bench            # or: build/py-venv/bin/python bench/python/bench.py [--scale 10]

Needs the wheel and the peers installed in the venv (make python-bench does both) and the
server (CHWIRE_TEST_URL / CHWIRE_CH_HTTP_PORT).
"""
import argparse
import json
import os
import subprocess
import sys

from one import URL, sqls  # the measured side: each case runs one.py in a process of its own


# pyarrow imports numpy, whose OpenBLAS starts a thread per core that spins for a while before
# it sleeps: 0.03-0.05 s of CPU inside the timed region of every client, doing no work of
# theirs (16 % of the samples of a chwire W2 case). No case uses BLAS.
CHILD_ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def measure(client, case, scale, runs):
    best = None
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", "import one; one.main()", client, case, str(scale)],
                             capture_output=True, text=True, env=CHILD_ENV,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        if out.returncode != 0:
            return {"client": client, "case": case, "error": out.stderr.strip().splitlines()[-1:]}
        r = json.loads(out.stdout)
        if best is None or r["wall"] < best["wall"]:
            best = r
    return best


def rust_query_arrow(scale):
    exe = os.path.join(os.path.dirname(__file__), "..", "..", "target", "release", "examples", "arrow_bench")
    if not os.path.exists(exe):
        return {}
    out = subprocess.run([exe, URL, "2", str(scale)], capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        name = line.split(":")[0]
        parts = line.split("| arrow wall ")[1].split()
        kept = line.split("| kept wall ")[1].split()
        res[name] = {"wall": float(parts[0].rstrip("s")), "cpu": float(parts[2].rstrip("s")),
                     "kept_wall": float(kept[0].rstrip("s")), "kept_cpu": float(kept[2].rstrip("s"))}
    # Keeping every batch in a fresh process each time, as the Python cases run: best of two.
    for name in res:
        for _ in range(2):
            line = subprocess.run([exe, URL, "1", str(scale), name], capture_output=True, text=True).stdout
            parts = line.split("kept cold wall ")[1].split()
            wall, cpu = float(parts[0].rstrip("s")), float(parts[2].rstrip("s"))
            if "cold_wall" not in res[name] or wall < res[name]["cold_wall"]:
                res[name]["cold_wall"], res[name]["cold_cpu"] = wall, cpu
    return res


def polars_nocopy():
    """Which of W2's columns Polars takes over without copying: the data buffer's address in
    the batch chwire produced against the one in Polars' frame (read back without a copy)."""
    import chwire
    import polars as pl

    c = chwire.connect(URL)
    sql = sqls(1)["W2"].replace("LIMIT 10000000", "LIMIT 1000000") + " SETTINGS max_block_size = 1000000"
    b = next(iter(c.query_arrow_stream(sql)))
    df = pl.from_arrow(b)
    out = []
    for name in b.schema.names:
        data = 2 if "string" in str(b.column(name).type) else -1
        same = b.column(name).buffers()[data].address == df[name].to_arrow().buffers()[data].address
        out.append(f"{name} ({b.column(name).type}): {'same buffer' if same else 'copied by Polars'}")
    return "; ".join(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=1)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--cases", help="comma-separated subset, e.g. W5,SMALL,LARGE")
    a = p.parse_args()
    # cc*: clickhouse-connect >= 1.10 (26.9): its Python codec, its Rust codec, the server's Arrow.
    cc = ["cc", "cc-rust", "cc-arrow"]
    plan = [
        ("W1", ["chwire", "chwire-stream", "driver", "driver-arrow", "driver-arrow-stream"] + cc
         + ["cc-arrow-stream", "cc-np-stream", "cc-rust-np-stream"]),
        ("W2", ["chwire", "chwire-pandas", "chwire-pandas-arrow", "chwire-polars", "driver", "driver-arrow", "driver-pandas"] + cc),
        ("W7", ["chwire", "chwire-pandas", "chwire-pandas-arrow", "chwire-polars"] + cc),
        ("W5", ["chwire", "chwire-pandas", "connect", "driver"]),
        ("ARRAY", ["chwire"]), ("SCALAR", ["chwire"]), ("SMALL", ["chwire"]), ("LARGE", ["chwire"]),
    ]
    results = {}
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for case, clients in plan:
        if a.cases and case not in a.cases.split(","):
            continue
        for cl in clients:
            r = measure(cl, case, a.scale, a.runs)
            results[(case, cl)] = r
            if "error" in r:
                print(f"{case:6} {cl:15} error: {r['error']}")
            else:
                print(f"{case:6} {cl:15} wall {r['wall']:7.3f}s  cpu {r['cpu']:7.3f}s  peak RSS {r['rss_mib']:7.1f} MiB  check {r['check']}")
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    rust = rust_query_arrow(a.scale)
    for w, r in rust.items():
        print(f"{w:6} {'rust query_arrow':15} wall {r['wall']:7.3f}s  cpu {r['cpu']:7.3f}s  "
              f"(keeping every batch: wall {r['kept_wall']:7.3f}s  cpu {r['kept_cpu']:7.3f}s; "
              f"in a fresh process: wall {r['cold_wall']:7.3f}s  cpu {r['cold_cpu']:7.3f}s)")
    print("\nratios (peer / chwire; > 1 means chwire is faster):")
    for case in ("W1", "W2", "W7", "W5"):
        base = results.get((case, "chwire"))
        if not base or "error" in base:
            continue
        for (c2, cl), r in results.items():
            if c2 == case and cl in ("connect", "driver", "driver-arrow", "connect-pandas", "driver-pandas", "cc", "cc-rust", "cc-arrow",
                                     "cc-arrow-stream", "cc-np-stream", "cc-rust-np-stream") and "error" not in r:
                print(f"  {case} {cl:15} wall x{r['wall'] / base['wall']:.2f}  cpu x{r['cpu'] / base['cpu']:.2f}")
        if case in rust:
            print(f"  {case} chwire / rust query_arrow wall x{base['wall'] / rust[case]['wall']:.2f}; "
                  f"/ rust keeping every batch in a fresh process wall x{base['wall'] / rust[case]['cold_wall']:.2f} "
                  f"cpu x{base['cpu'] / rust[case]['cold_cpu']:.2f}")
    for case, frame in (("W2", "chwire-pandas"), ("W7", "chwire-pandas"), ("W2", "chwire-polars"), ("W7", "chwire-polars")):
        mine = results.get((case, frame))
        peers = [results.get((case, p)) for p in ("cc", "cc-rust", "cc-arrow")]
        peers = [p for p in peers if p and "error" not in p]
        if mine and "error" not in mine and peers:
            bestp = min(peers, key=lambda p: p["wall"])
            print(f"  {case} {frame} against the best clickhouse-connect ({bestp['client']}): x{bestp['wall'] / mine['wall']:.2f} wall")
    print("  W2 into Polars:", polars_nocopy())
    arr, sca = results.get(("ARRAY", "chwire")), results.get(("SCALAR", "chwire"))
    if arr and sca and "error" not in arr and "error" not in sca:
        print(f"  Array(UInt64) 1M rows x 8 vs 8M scalar UInt64: x{arr['wall'] / sca['wall']:.2f} wall")
    sm, lg = results.get(("SMALL", "chwire")), results.get(("LARGE", "chwire"))
    if sm and lg and "error" not in sm and "error" not in lg:
        print(f"  5,000 blocks of 1,000 rows vs one block: x{sm['wall'] / lg['wall']:.2f} wall per row")


if __name__ == "__main__":
    main()
