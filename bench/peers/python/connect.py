"""clickhouse-connect (HTTP). Variants (the --client name):

  clickhouse-connect        current version (1.12), Native format decoded by its Python codec
  clickhouse-connect-rust   the same with its Rust codec (clickhouse-connect-core, native_codec="rust")
  clickhouse-connect-arrow  the server writes Arrow (query_arrow_stream / insert_arrow)
  clickhouse-connect-1.6    1.6.0, the newest that can talk to ClickHouse 18.16 (compress=False)
"""
import time

from common import *  # noqa: F401,F403


def run(a):
    old = a.client == "clickhouse-connect-1.6"
    arrow = a.client == "clickhouse-connect-arrow"
    if old and a.compression != "none":
        # Verified against 18.16: with compress='lz4' inserts fail (HTTP 500, "Unknown
        # Content-Encoding of HTTP request: lz4") and query responses come back uncompressed
        # (18.16 ignores Accept-Encoding: lz4).
        raise Unsupported("clickhouse-connect 1.6 needs compress=False against 18.16")
    if not old and server18():
        raise Unsupported("clickhouse-connect 1.7 and newer cannot connect to ClickHouse 18.16 (1.6.0 can: clickhouse-connect-1.6)")
    if a.workload in ("W7", "W7i") and server18():
        raise Unsupported("ClickHouse 18.16 has no Map, IPv6, DateTime64 or sparse columns (W7 is 26.9 only)")

    import numpy as np
    import clickhouse_connect

    kw = dict(host=a.host, port=a.http_port, username="default", password="",
              compress=False if a.compression == "none" else a.compression)
    if not old:
        kw["native_codec"] = "rust" if a.client == "clickhouse-connect-rust" else "python"

    def make(**more):
        return clickhouse_connect.get_client(**kw, **more)

    if a.workload == "W6":
        t0 = time.perf_counter()
        total = 0
        for _ in range(CONNECTS):
            c = make()  # get_client opens the connection and reads server version/settings
            total += c.query("SELECT 1").result_rows[0][0]
            c.close()
        return time.perf_counter() - t0, CONNECTS, total & MASK

    if a.workload in ("W10q", "W10i"):
        from clickhouse_connect.driver import httputil
        # One client (its urllib3 pool, up to POOL_SIZE connections) shared by the threads;
        # no session id, so that queries may run concurrently.
        c = make(pool_mgr=httputil.get_pool_manager(maxsize=POOL_SIZE), autogenerate_session_id=False)
        if a.workload == "W10q":
            if arrow:
                import pyarrow.compute as pc

                def op(_):
                    t = c.query_arrow(W3_SQL)
                    return t.num_rows, sum(pc.sum(col).as_py() for col in t.columns)
            else:
                def op(_):
                    cols = c.query(W3_SQL).result_columns
                    return len(cols[0]), sum(sum(col) for col in cols)
            return concurrent(W10Q_TASKS, W10Q_QUERIES, op)

        def op(b):
            ids, names, values, ts = w5_columns(b)
            c.insert(W5_TABLE, [ids, names, values, ts], column_names=["id", "name", "value", "ts"],
                     column_type_names=["UInt64", "String", "Float64", "DateTime"], column_oriented=True)
            return W5_BLOCK, sum(ids)
        return concurrent(W10I_TASKS, W10I_BLOCKS, op)

    c = make()  # connects (and queries the server) before the clock starts
    if arrow:
        import pyarrow as pa
        import pyarrow.compute as pc
    if a.workload == "W7i":
        if arrow:
            block = c.query_arrow(W7_BLOCK_SQL)
        else:
            res = c.query(W7_BLOCK_SQL)
            block, names, types = res.result_columns, list(res.column_names), [t.name for t in res.column_types]

    t0 = time.perf_counter()
    if a.workload == "W1":
        rows = 0
        check = 0
        if arrow:
            with c.query_arrow_stream(W1_SQL) as stream:
                for batch in stream:
                    rows += batch.num_rows
                    check += pc.sum(batch.column(0)).as_py()
        else:
            with c.query_np_stream(W1_SQL) as stream:  # one numpy array per native block
                for block in stream:
                    rows += len(block)
                    check += int(block.sum(dtype=np.uint64))
        check &= MASK
    elif a.workload in ("W2", "W8"):
        rows = 0
        check = 0
        sql = W2_SQL if a.workload == "W2" else W8_SQL
        if arrow:
            with c.query_arrow_stream(sql) as stream:
                for batch in stream:
                    rows += batch.num_rows
                    if a.workload == "W2":
                        check += pc.sum(batch.column(0)).as_py()
                    s = batch.column(1 if a.workload == "W2" else 0)
                    check += pc.sum(pc.binary_length(s)).as_py()
        else:
            with c.query_column_block_stream(sql) as stream:
                for cols in stream:  # columns of Python values per block
                    rows += len(cols[0])
                    if a.workload == "W2":
                        check += sum(cols[0]) + sum(map(len, cols[1]))  # ASCII digits: characters == bytes
                    else:
                        check += sum(map(len, cols[0]))
        check &= MASK
    elif a.workload in ("W3", "W4"):
        sql = W3_SQL if a.workload == "W3" else W4_SQL
        rows = 0
        check = 0
        for _ in range(REPEATS):
            if arrow:
                t = c.query_arrow(sql)
                rows += t.num_rows
                check += sum(pc.sum(col).as_py() for col in t.columns)
            else:
                cols = c.query(sql).result_columns
                rows += len(cols[0])
                for col in cols:
                    check += sum(col)
        check &= MASK
    elif a.workload == "W5":
        kw5 = dict(column_names=["id", "name", "value", "ts"],
                   # explicit types: no DESCRIBE TABLE (clickhouse-connect 1.6 cannot parse 18.16's)
                   column_type_names=["UInt64", "String", "Float64", "DateTime"],
                   column_oriented=True)
        check = 0
        for b in range(0, W5_ROWS, W5_BLOCK):
            ids = np.arange(b, b + W5_BLOCK, dtype=np.uint64)
            names = ["name-%d" % i for i in range(b, b + W5_BLOCK)]
            values = ids * 0.5
            ts = (1_600_000_000 + ids % 86_400)
            if arrow:
                c.insert_arrow(W5_TABLE, pa.table({"id": ids, "name": names, "value": values, "ts": ts.astype(np.uint32)}))
            else:
                c.insert(W5_TABLE, [ids, names, values, ts.tolist()], **kw5)  # DateTime as epoch seconds
            check += int(ids.sum(dtype=np.uint64))
        rows = W5_ROWS
        check &= MASK
    elif a.workload == "W7":
        rows = check = 0
        if arrow:
            with c.query_arrow_stream(W7_SQL) as stream:
                for batch in stream:
                    rows += batch.num_rows
                    check += pc.sum(batch.column(0)).as_py()
        else:
            with c.query_column_block_stream(W7_SQL) as stream:
                for cols in stream:
                    rows += len(cols[0])
                    check += sum(cols[0])
        check &= MASK
    elif a.workload == "W7i":
        for _ in range(W7I_REPEATS):
            if arrow:
                c.insert_arrow(W7_SINK, block)
            else:
                c.insert(W7_SINK, block, column_names=names, column_type_names=types, column_oriented=True)
        if arrow:
            rows = block.num_rows * W7I_REPEATS
            check = pc.sum(block.column(0)).as_py() * W7I_REPEATS & MASK
        else:
            rows = len(block[0]) * W7I_REPEATS
            check = sum(block[0]) * W7I_REPEATS & MASK
    wall = time.perf_counter() - t0
    c.close()
    return wall, rows, check
