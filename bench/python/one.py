"""One measurement of bench.py, in a process of its own: `python -c "import one; one.main()"
CLIENT CASE SCALE` prints its figures as JSON. Kept apart from bench.py so that the measured
process holds only what the case needs (no argparse or subprocess, and bytecode from
__pycache__ rather than a script compiled at start: together about 1.4 MiB of peak RSS, which
the W1 stream's ≤ 64 MiB target would otherwise charge to the client).
"""
import json
import os
import resource
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
        # W7's wide table (bench/PEERS.md; ClickHouse 26.9 only), a tenth of it: 1M rows x 20
        # columns, as Python objects in the row and pandas modes of the peers.
        "W7": f"SELECT * FROM chwire_bench_w7 WHERE id < {1_000_000 // scale}",
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

    if not client.endswith("-stream") or client == "cc-arrow-stream":  # the checks sum with it; loaded before the clock
        import pyarrow.compute  # noqa: F401 - pa.compute
    # The frame libraries load before the clock too: importing pandas costs 0.25 s of CPU, which
    # clickhouse-driver pays when its client is made (use_numpy) and chwire and
    # clickhouse-connect paid inside the timed region, on their first query_df.
    if "pandas" in client or client in ("connect", "driver") or case == "W5":
        import pandas  # noqa: F401
    if "polars" in client:
        import polars  # noqa: F401
    q = sqls(scale)
    if client.startswith("chwire"):
        import chwire

        c = chwire.connect(URL)
    elif client.startswith("connect"):
        import clickhouse_connect

        c = clickhouse_connect.get_client(host=HOST, port=HTTP_PORT, username="default", compress=False)
    elif client.startswith("cc"):  # clickhouse-connect >= 1.10: its Python or its Rust codec
        import clickhouse_connect

        codec = "rust" if client.startswith("cc-rust") else "python"
        c = clickhouse_connect.get_client(host=HOST, port=HTTP_PORT, username="default", compress=False, native_codec=codec)
    else:
        from clickhouse_driver import Client

        # Its Arrow modes need no NumPy columns (and use_numpy would import pandas).
        numpy = not client.startswith("driver-arrow")
        c = Client(host=HOST, port=int(PORT), settings={"use_numpy": True} if numpy else {})
    if case == "W5" and client.startswith("chwire"):
        c.command("CREATE TABLE IF NOT EXISTS chwire_bench_w5 (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null")
    if case == "W5":  # the data is built before the clock starts (only the insert is timed)
        data = w5_data(scale)
        frame = data.to_pandas() if client != "chwire" else None
    t0, c0 = time.monotonic(), cpu()
    check = None
    if case in ("W1", "W2", "W7", "ARRAY", "SCALAR", "SMALL", "LARGE"):
        sql = q[case]
        if client == "chwire":
            t = c.query_arrow(sql)
        elif client in ("chwire-stream", "driver-arrow-stream"):  # bounded memory: batches consumed as they come
            # The consumer does as little as it can, so that the peak RSS is the client's: each
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
            df = c.query_df(sql)
            t = pa.Table.from_pandas(df) if case != "W7" else None
            if t is None:  # as for clickhouse-connect's frame below: IPv6Address objects
                check = int(df["id"].sum())
        elif client == "chwire-pandas-arrow":  # pd.ArrowDtype columns over chwire's buffers
            t = pa.Table.from_pandas(c.query_df(sql, dtype_backend="pyarrow"))
        elif client == "chwire-polars":
            import polars as pl

            # No .to_arrow(): the figures are Polars' own frame (its peak RSS, beside the Table's,
            # shows that the buffers were taken over, not copied).
            df = pl.DataFrame(c.query_arrow_stream(sql))
            check, t = df.get_column(df.columns[0]).sum(), None
        elif client == "cc-arrow":  # the server writes Arrow (FORMAT Arrow), pyarrow reads it
            t = c.query_arrow(sql)
        elif client == "cc-arrow-stream":  # the server's ArrowStream, batch by batch
            check, rows = 0, 0
            with c.query_arrow_stream(sql) as stream:
                for b in stream:
                    check += pa.compute.sum(b.column(0)).as_py() or 0
            t = None
        elif client in ("cc", "cc-rust"):  # Native decoded by its codec into a pandas frame (query_df)
            df = c.query_df(sql)
            t = pa.Table.from_pandas(df) if case != "W7" else None
            if t is None:  # W7's frame holds IPv6Address objects, which pyarrow does not convert back
                check = int(df["id"].sum())
        elif client in ("cc-np-stream", "cc-rust-np-stream"):  # W1: one NumPy array per block
            check = 0
            with c.query_np_stream(sql) as stream:
                for arr in stream:
                    check += int(arr.sum(dtype="uint64"))
            t = None
        elif client == "connect":  # its fastest modes on a server without Arrow output
            t = pa.Table.from_pandas(c.query_df(sql))
        elif client == "connect-pandas":
            t = pa.Table.from_pandas(c.query_df(sql))
        elif client == "driver":  # numpy columns
            cols = c.execute(sql, columnar=True, with_column_types=True)
            t = pa.table({name: col for (name, _), col in zip(cols[1], cols[0])})
        elif client == "driver-arrow":  # its query_arrow (0.2.11): a Table built from its blocks
            t = c.query_arrow(sql)
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


def main():
    client, case, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print(json.dumps(one(client, case, scale)))
