#!/usr/bin/env python3
"""Benchmark peers for chwire (protocol: bench/PEERS.md).

--client clickhouse-driver   clickhouse-driver (native TCP protocol), numpy columnar reads
--client clickhouse-connect  clickhouse-connect <= 1.6.0 (HTTP), compress=False

Run with the venv made by bench/peers/python/setup.sh:
    build/bench-venv/bin/python bench/peers/python/peer.py --client clickhouse-driver \
        --workload W1 --compression none --host 127.0.0.1 --port 19000 --http-port 18123
"""
import argparse
import sys
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
REPEATS = 2000
CONNECTS = 200
MASK = (1 << 64) - 1


def unsupported(a, reason):
    print(f"UNSUPPORTED client={a.client} workload={a.workload} compression={a.compression} reason={reason}")


# --------------------------------------------------------------------------------------------
# clickhouse-driver (native protocol)
# --------------------------------------------------------------------------------------------

def run_driver(a):
    import numpy as np
    from clickhouse_driver import Client

    comp = "lz4" if a.compression == "lz4" else False

    def make(use_numpy):
        # settings={'use_numpy': True}: columnar results come back as numpy arrays
        return Client(a.host, port=a.port, user="default", password="", compression=comp,
                      settings={"use_numpy": use_numpy})

    if a.workload == "W6":
        t0 = time.perf_counter()
        total = 0
        for _ in range(CONNECTS):
            c = make(False)
            total += c.execute("SELECT 1")[0][0]
            c.disconnect()
        return time.perf_counter() - t0, CONNECTS, total & MASK

    # W1/W2/W5 are fastest with numpy columns; W3/W4 (many tiny results) with plain columnar tuples
    use_numpy = a.workload in ("W1", "W2", "W5")
    c = make(use_numpy)
    c.execute("SELECT 1")  # connect before the clock starts

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
    wall = time.perf_counter() - t0
    c.disconnect()
    return wall, rows, check


# --------------------------------------------------------------------------------------------
# clickhouse-connect (HTTP)
# --------------------------------------------------------------------------------------------

def run_connect(a):
    if a.compression == "lz4":
        # Verified against 18.16: with compress='lz4' inserts fail (HTTP 500, "Unknown
        # Content-Encoding of HTTP request: lz4") and query responses come back uncompressed
        # (18.16 ignores Accept-Encoding: lz4).
        unsupported(a, "clickhouse-connect needs compress=False against 18.16")
        return None

    import numpy as np
    import clickhouse_connect

    def make():
        return clickhouse_connect.get_client(host=a.host, port=a.http_port, username="default",
                                             password="", compress=False)

    if a.workload == "W6":
        t0 = time.perf_counter()
        total = 0
        for _ in range(CONNECTS):
            c = make()  # get_client opens the connection and reads server version/settings
            total += c.query("SELECT 1").result_rows[0][0]
            c.close()
        return time.perf_counter() - t0, CONNECTS, total & MASK

    c = make()  # connects (and queries the server) before the clock starts

    t0 = time.perf_counter()
    if a.workload == "W1":
        rows = 0
        check = 0
        with c.query_np_stream(W1_SQL) as stream:  # one numpy array per native block
            for block in stream:
                rows += len(block)
                check += int(block.sum(dtype=np.uint64))
        check &= MASK
    elif a.workload == "W2":
        rows = 0
        check = 0
        with c.query_column_block_stream(W2_SQL) as stream:
            for number, s, f, t in stream:  # columns of Python values per block
                rows += len(number)
                check += sum(number) + sum(map(len, s))  # ASCII digits: characters == bytes
        check &= MASK
    elif a.workload in ("W3", "W4"):
        sql = W3_SQL if a.workload == "W3" else W4_SQL
        rows = 0
        check = 0
        for _ in range(REPEATS):
            cols = c.query(sql).result_columns
            rows += len(cols[0])
            for col in cols:
                check += sum(col)
        check &= MASK
    elif a.workload == "W5":
        kw = dict(column_names=["id", "name", "value", "ts"],
                  # explicit types: no DESCRIBE TABLE (clickhouse-connect cannot parse 18.16's)
                  column_type_names=["UInt64", "String", "Float64", "DateTime"],
                  column_oriented=True)
        check = 0
        for b in range(0, W5_ROWS, W5_BLOCK):
            ids = np.arange(b, b + W5_BLOCK, dtype=np.uint64)
            names = ["name-%d" % i for i in range(b, b + W5_BLOCK)]
            values = ids * 0.5
            ts = (1_600_000_000 + ids % 86_400).tolist()  # DateTime as epoch seconds
            c.insert(W5_TABLE, [ids, names, values, ts], **kw)
            check += int(ids.sum(dtype=np.uint64))
        rows = W5_ROWS
        check &= MASK
    wall = time.perf_counter() - t0
    c.close()
    return wall, rows, check


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--client", required=True, choices=["clickhouse-driver", "clickhouse-connect"])
    p.add_argument("--workload", required=True, choices=["W1", "W2", "W3", "W4", "W5", "W6"])
    p.add_argument("--compression", default="none", choices=["none", "lz4"])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=19000)
    p.add_argument("--http-port", type=int, default=18123)
    a = p.parse_args()

    run = run_driver if a.client == "clickhouse-driver" else run_connect
    res = run(a)
    if res is None:
        return 0
    wall, rows, check = res
    print(f"RESULT client={a.client} workload={a.workload} compression={a.compression} "
          f"wall_s={wall:.6f} rows={rows} check={check}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
