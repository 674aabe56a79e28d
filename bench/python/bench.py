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
import resource
import subprocess
import sys
import time

URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")
HOST, PORT = URL.split("@")[1].split("/")[0].rsplit(":", 1)
HTTP_PORT = int(os.environ.get("CHWIRE_CH_HTTP_PORT", "18123"))


def sqls(scale):
    return {
        "W1": f"SELECT number FROM system.numbers LIMIT {100_000_000 // scale}",
        "W2": ("SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t "
               f"FROM system.numbers LIMIT {10_000_000 // scale}"),
        "ARRAY": f"SELECT range(8) AS a FROM numbers({1_000_000 // scale})",
        "SCALAR": f"SELECT number AS n FROM numbers({8_000_000 // scale})",
        "SMALL": f"SELECT number AS n FROM numbers({5_000_000 // scale}) SETTINGS max_block_size = 1000",
        "LARGE": f"SELECT number AS n FROM numbers({5_000_000 // scale}) SETTINGS max_block_size = {5_000_000 // scale}",
    }


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def w5_data(scale):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute  # noqa: F401 - pa.compute

    n = 10_000_000 // scale
    ids = np.arange(n, dtype=np.uint64)
    names = pa.compute.binary_join_element_wise("name-", pa.array(ids).cast(pa.string()), "")
    return pa.table({"id": ids, "name": names, "value": ids * 0.5,
                     "ts": pa.array((1600000000 + ids % 86400).astype(np.int64)).cast(pa.timestamp("s"))})


def one(client, case, scale):
    """Runs one measurement in this process; returns its figures."""
    import pyarrow as pa

    if client != "chwire-stream":  # the checks sum with it; loaded before the clock starts
        import pyarrow.compute  # noqa: F401 - pa.compute
    q = sqls(scale)
    if client.startswith("chwire"):
        import chwire

        c = chwire.connect(URL)
    elif client.startswith("connect"):
        import clickhouse_connect

        c = clickhouse_connect.get_client(host=HOST, port=HTTP_PORT, username="default", compress=False)
    else:
        from clickhouse_driver import Client

        c = Client(host=HOST, port=int(PORT), settings={"use_numpy": True})
    if case == "W5" and client.startswith("chwire"):
        c.command("CREATE TABLE IF NOT EXISTS chwire_bench_w5 (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null")
    if case == "W5":  # the data is built before the clock starts (only the insert is timed)
        data = w5_data(scale)
        frame = data.to_pandas() if client != "chwire" else None
    t0, c0 = time.monotonic(), cpu()
    check = None
    if case in ("W1", "W2", "ARRAY", "SCALAR", "SMALL", "LARGE"):
        sql = q[case]
        if client == "chwire":
            t = c.query_arrow(sql)
        elif client == "chwire-stream":  # bounded memory: batches are consumed as they come
            # The consumer does as little as it can, so that the peak RSS is chwire's: each
            # batch must continue the previous one (W1's numbers are 0, 1, 2, ... in order), and
            # the check is then the sum of the numbers seen. Summing every value would load
            # pyarrow.compute (+9 MiB) or numpy's reductions (+60 MiB) into the process.
            check, rows = 0, 0
            for b in c.query_arrow_stream(sql):
                col = b.column(0)
                if len(col) and (col[0].as_py() != rows or col[-1].as_py() != rows + len(col) - 1):
                    raise SystemExit(f"W1 batch out of sequence at row {rows}")
                check += (rows + rows + len(col) - 1) * len(col) // 2
                rows += len(col)
            t = None
        elif client == "chwire-pandas":
            t = pa.Table.from_pandas(c.query_df(sql))
        elif client == "chwire-polars":
            import polars as pl

            # No .to_arrow(): the figures are Polars' own frame (its peak RSS, beside the Table's,
            # shows that the buffers were taken over, not copied).
            df = pl.DataFrame(c.query_arrow_stream(sql))
            check, t = df.get_column(df.columns[0]).sum(), None
        elif client == "connect":  # its fastest modes on a server without Arrow output
            t = pa.Table.from_pandas(c.query_df(sql))
        elif client == "connect-pandas":
            t = pa.Table.from_pandas(c.query_df(sql))
        elif client == "driver":  # numpy columns
            cols = c.execute(sql, columnar=True, with_column_types=True)
            t = pa.table({name: col for (name, _), col in zip(cols[1], cols[0])})
        elif client == "driver-pandas":
            t = pa.Table.from_pandas(c.query_dataframe(sql))
        else:
            raise SystemExit(f"unknown client {client}")
        if t is not None:
            col = t.column(0)
            check = pa.compute.sum(col if not pa.types.is_list(col.type) and not pa.types.is_large_list(col.type)
                                   else pa.compute.list_flatten(col)).as_py()
    elif case == "W5":
        if client == "chwire":
            c.insert_arrow("chwire_bench_w5", data)
        elif client == "chwire-pandas":
            c.insert_df("chwire_bench_w5", frame)
        elif client == "connect":
            c.insert_df("chwire_bench_w5", frame)
        elif client == "driver":
            c.insert_dataframe("INSERT INTO chwire_bench_w5 (id, name, value, ts) VALUES", frame)
        check = data.num_rows
    wall, cpu_s = time.monotonic() - t0, cpu() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"client": client, "case": case, "wall": wall, "cpu": cpu_s, "rss_mib": rss, "check": check}


def measure(client, case, scale, runs):
    best = None
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--one", client, case, "--scale", str(scale)],
                             capture_output=True, text=True)
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
    p.add_argument("--one", nargs=2)
    p.add_argument("--scale", type=int, default=1)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--cases", help="comma-separated subset, e.g. W5,SMALL,LARGE")
    a = p.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], a.one[1], a.scale)))
        return
    plan = [
        ("W1", ["chwire", "chwire-stream", "connect", "driver"]),
        ("W2", ["chwire", "chwire-pandas", "chwire-polars", "connect", "connect-pandas", "driver", "driver-pandas"]),
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
    for case in ("W1", "W2", "W5"):
        base = results.get((case, "chwire"))
        if not base or "error" in base:
            continue
        for (c2, cl), r in results.items():
            if c2 == case and cl in ("connect", "driver", "connect-pandas", "driver-pandas") and "error" not in r:
                print(f"  {case} {cl:15} wall x{r['wall'] / base['wall']:.2f}  cpu x{r['cpu'] / base['cpu']:.2f}")
        if case in rust:
            print(f"  {case} chwire / rust query_arrow wall x{base['wall'] / rust[case]['wall']:.2f}; "
                  f"/ rust keeping every batch in a fresh process wall x{base['wall'] / rust[case]['cold_wall']:.2f} "
                  f"cpu x{base['cpu'] / rust[case]['cold_cpu']:.2f}")
    print("  W2 into Polars:", polars_nocopy())
    arr, sca = results.get(("ARRAY", "chwire")), results.get(("SCALAR", "chwire"))
    if arr and sca and "error" not in arr and "error" not in sca:
        print(f"  Array(UInt64) 1M rows x 8 vs 8M scalar UInt64: x{arr['wall'] / sca['wall']:.2f} wall")
    sm, lg = results.get(("SMALL", "chwire")), results.get(("LARGE", "chwire"))
    if sm and lg and "error" not in sm and "error" not in lg:
        print(f"  5,000 blocks of 1,000 rows vs one block: x{sm['wall'] / lg['wall']:.2f} wall per row")


if __name__ == "__main__":
    main()
