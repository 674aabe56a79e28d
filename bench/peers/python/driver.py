"""clickhouse-driver (native protocol): numpy columns where it has them (W1, W2, W5), plain
columnar tuples for many small results (W3, W4), rows through execute_iter where a whole
result would not fit in memory as Python objects (W7, W8)."""
import threading
import time

from common import *  # noqa: F401,F403


def run(a):
    import numpy as np
    from clickhouse_driver import Client

    comp = a.compression if a.compression != "none" else False

    def make(use_numpy):
        # settings={'use_numpy': True}: columnar results come back as numpy arrays
        return Client(a.host, port=a.port, user="default", password="", compression=comp,
                      settings={"use_numpy": use_numpy})

    if a.workload in ("W7", "W7i") and server18():
        raise Unsupported("ClickHouse 18.16 has no Map, IPv6, DateTime64 or sparse columns (W7 is 26.9 only)")
    if a.workload == "W6":
        t0 = time.perf_counter()
        total = 0
        for _ in range(CONNECTS):
            c = make(False)
            total += c.execute("SELECT 1")[0][0]
            c.disconnect()
        return time.perf_counter() - t0, CONNECTS, total & MASK
    if a.workload in ("W10q", "W10i"):
        # The driver has no pool and a Client is not thread-safe: one Client per thread.
        local = threading.local()

        def client():
            if not hasattr(local, "c"):
                local.c = make(False)
            return local.c

        if a.workload == "W10q":
            def op(_):
                cols = client().execute(W3_SQL, columnar=True)
                return len(cols[0]), sum(sum(c) for c in cols)
            return concurrent(W10Q_TASKS, W10Q_QUERIES, op)

        def op(b):
            ids, names, values, ts = w5_columns(b)
            client().execute(f"INSERT INTO {W5_TABLE} (id, name, value, ts) VALUES",
                             [ids, names, values, [np.datetime64(t, "s").item() for t in ts]], columnar=True)
            return W5_BLOCK, sum(ids)
        return concurrent(W10I_TASKS, W10I_BLOCKS, op)

    # W1/W2/W5 are fastest with numpy columns; W3/W4 (many tiny results) with plain columnar tuples
    use_numpy = a.workload in ("W1", "W2", "W5")
    c = make(use_numpy)
    c.execute("SELECT 1")  # connect before the clock starts
    if a.workload == "W7i":
        block, types = c.execute(W7_BLOCK_SQL, columnar=True, with_column_types=True)
        names = ", ".join(n for n, _ in types)

    t0 = time.perf_counter()
    if a.workload == "W1":
        (numbers,) = c.execute(W1_SQL, columnar=True)
        rows = len(numbers)
        check = int(numbers.sum(dtype=np.uint64))  # numpy uint64 sum wraps modulo 2^64
    elif a.workload == "W2":
        number, s, f, t = c.execute(W2_SQL, columnar=True)
        rows = len(number)
        # s is a numpy unicode array; the strings are ASCII digits, so characters == bytes
        check = (int(number.sum(dtype=np.uint64)) + int(np.strings.str_len(s).sum())) & MASK
        _ = (float(f.sum()), int(t.astype(np.int64).sum()))  # f and t are decoded too
    elif a.workload in ("W3", "W4"):
        sql = W3_SQL if a.workload == "W3" else W4_SQL
        rows = 0
        check = 0
        for _ in range(REPEATS):
            cols = c.execute(sql, columnar=True)
            rows += len(cols[0])
            for col in cols:
                check += sum(col)
        check &= MASK
    elif a.workload == "W5":
        sql = f"INSERT INTO {W5_TABLE} (id, name, value, ts) VALUES"
        check = 0
        for b in range(0, W5_ROWS, W5_BLOCK):
            ids = np.arange(b, b + W5_BLOCK, dtype=np.uint64)
            names = np.array(["name-%d" % i for i in range(b, b + W5_BLOCK)])
            values = ids * 0.5
            ts = (1_600_000_000 + ids % 86_400).astype("datetime64[s]")
            c.execute(sql, [ids, names, values, ts], columnar=True)
            check += int(ids.sum(dtype=np.uint64))
        rows = W5_ROWS
        check &= MASK
    elif a.workload == "W7":
        rows = check = 0
        for row in c.execute_iter(W7_SQL):
            rows += 1
            check += row[0]
        check &= MASK
    elif a.workload == "W7i":
        for _ in range(W7I_REPEATS):
            c.execute(f"INSERT INTO {W7_SINK} ({names}) VALUES", block, columnar=True)
        rows = len(block[0]) * W7I_REPEATS
        check = sum(block[0]) * W7I_REPEATS & MASK
    elif a.workload == "W8":
        rows = check = 0
        for (s,) in c.execute_iter(W8_SQL):
            rows += 1
            check += len(s)  # ASCII: characters == bytes
    wall = time.perf_counter() - t0
    c.disconnect()
    return wall, rows, check
