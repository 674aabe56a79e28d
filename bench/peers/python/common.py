"""What every Python benchmark peer shares (bench/PEERS.md): the workloads' SQL and sizes, the
W10 runner and the RESULT/UNSUPPORTED lines."""
import os
import threading
import time

W1_SQL = "SELECT number FROM system.numbers LIMIT 100000000"
W2_SQL = ("SELECT number, toString(number) AS s, toFloat64(number) AS f, "
          "toDateTime(number) AS t FROM system.numbers LIMIT 10000000")
W3_SQL = "SELECT number, number, number FROM system.numbers LIMIT 1000"
W4_SQL = ("SELECT number, number, number, number, number, number, number, number, number, number "
          "FROM system.numbers LIMIT 100")
W5_TABLE = "chwire_bench_w5"
W5_ROWS = 10_000_000
W5_BLOCK = 100_000
W7_SQL = "SELECT * FROM chwire_bench_w7"
W7_BLOCK_SQL = "SELECT * FROM chwire_bench_w7 WHERE id < 100000 ORDER BY id"
W7_SINK = "chwire_bench_w7_sink"
W7I_REPEATS = 100
W8_SQL = ("SELECT substring('" + "x" * 200 + "', 1, number % 200 + 1) AS s "
          "FROM system.numbers LIMIT 10000000")
W10Q_TASKS, W10Q_QUERIES = 64, 20_000
W10I_TASKS, W10I_BLOCKS = 16, 160
POOL_SIZE = 64
REPEATS = 2000
CONNECTS = 200
MASK = (1 << 64) - 1
WORKLOADS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W7i", "W8", "W10q", "W10i"]


def server18():
    return os.environ.get("CHWIRE_BENCH_SERVER", "").startswith("18.")


class Unsupported(Exception):
    """Raised by a peer for a workload it cannot run; main prints the UNSUPPORTED line."""


def w5_columns(b):
    """W5's block b as Python columns: ids, names, values, ts (epoch seconds)."""
    ids = list(range(b * W5_BLOCK, (b + 1) * W5_BLOCK))
    return ids, ["name-%d" % i for i in ids], [i * 0.5 for i in ids], [1_600_000_000 + i % 86_400 for i in ids]


def concurrent(tasks, total, op):
    """Runs op(i) for i in range(total) on `tasks` threads (each takes the next i from a shared
    counter); op returns (rows, check). Returns (wall, rows, check, extra) with throughput and
    p50/p99 latency."""
    lock = threading.Lock()
    state = {"next": 0, "rows": 0, "check": 0, "error": None}
    lat = []

    def worker():
        mine = []
        while True:
            with lock:
                i = state["next"]
                state["next"] += 1
            if i >= total or state["error"]:
                break
            s = time.perf_counter()
            try:
                r, c = op(i)
            except Exception as e:  # reported after the join
                state["error"] = e
                break
            mine.append(time.perf_counter() - s)
            with lock:
                state["rows"] += r
                state["check"] += c
        with lock:
            lat.extend(mine)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(tasks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if state["error"]:
        raise state["error"]
    lat.sort()
    pct = lambda p: lat[round((len(lat) - 1) * p)] * 1e3 if lat else 0.0
    return wall, state["rows"], state["check"] & MASK, f" ops_s={total / wall:.1f} p50_ms={pct(0.5):.3f} p99_ms={pct(0.99):.3f}"
