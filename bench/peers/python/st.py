"""st-clickhouse-py (native protocol, a Rust core through PyO3; Python >= 3.12, so it runs from
build/bench-venv-py312). Columns come out as Python lists (`Column.to_list`): it has no NumPy
or Arrow output."""
import asyncio
import time

from common import *  # noqa: F401,F403


def run(a):
    if server18():
        # Tried: every query fails with "Unknown setting output_format_native_write_json_as_string"
        # (code 115): the client sends a setting 18.16 does not have.
        raise Unsupported("st-clickhouse-py 0.3.0 sends the setting output_format_native_write_json_as_string, "
                          "which 18.16 refuses (code 115)")
    if a.workload in ("W7", "W7i") and server18():
        raise Unsupported("ClickHouse 18.16 has no Map, IPv6, DateTime64 or sparse columns (W7 is 26.9 only)")
    import st_clickhouse as ch

    addr = f"{a.host}:{a.port}"
    comp = None if a.compression == "none" else a.compression

    def make():
        return ch.Client(addr, user="default", password="", compression=comp)

    if a.workload == "W6":
        t0 = time.perf_counter()
        total = 0
        for _ in range(CONNECTS):
            c = make()
            total += c.query_tuples("SELECT 1")[0][0]
            c.close()
        return time.perf_counter() - t0, CONNECTS, total & MASK

    if a.workload in ("W10q", "W10i"):
        async def main():
            c = ch.AsyncClient(addr, user="default", password="", compression=comp,
                               pool_min_size=1, pool_max_size=POOL_SIZE)
            await c.ping()
            lat = []
            state = {"next": 0, "rows": 0, "check": 0}
            total = W10Q_QUERIES if a.workload == "W10q" else W10I_BLOCKS

            async def worker():
                while state["next"] < total:
                    i = state["next"]
                    state["next"] += 1
                    s = time.perf_counter()
                    if a.workload == "W10q":
                        blocks = await c.query_blocks(W3_SQL)
                        for b in blocks:
                            state["rows"] += b.row_count()
                            for j in range(b.column_count()):
                                state["check"] += sum(b.column_by_index(j).to_list())
                    else:
                        ids, names, values, ts = w5_columns(i)
                        await c.insert(f"INSERT INTO {W5_TABLE} (id, name, value, ts) VALUES",
                                       [{"id": x, "name": n, "value": v, "ts": t} for x, n, v, t in zip(ids, names, values, ts)])
                        state["rows"] += W5_BLOCK
                        state["check"] += sum(ids)
                    lat.append(time.perf_counter() - s)
            t0 = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(W10Q_TASKS if a.workload == "W10q" else W10I_TASKS)))
            wall = time.perf_counter() - t0
            c.close()
            lat.sort()
            pct = lambda p: lat[round((len(lat) - 1) * p)] * 1e3
            return wall, state["rows"], state["check"] & MASK, f" ops_s={total / wall:.1f} p50_ms={pct(0.5):.3f} p99_ms={pct(0.99):.3f}"
        return asyncio.run(main())

    c = make()
    c.ping()
    if a.workload == "W7i":
        block = c.query_blocks(W7_BLOCK_SQL)
        per = sum(b.row_count() for b in block)
        ids = sum(sum(b.column_by_index(0).to_list()) for b in block)

    def scan(sql, f):
        rows = check = 0
        for b in c.query_stream(sql):
            rows += b.row_count()
            check += f(b)
        return rows, check & MASK

    col = lambda b, i: b.column_by_index(i).to_list()
    t0 = time.perf_counter()
    if a.workload == "W1":
        rows, check = scan(W1_SQL, lambda b: sum(col(b, 0)))
    elif a.workload == "W2":
        rows, check = scan(W2_SQL, lambda b: sum(col(b, 0)) + sum(map(len, col(b, 1))) + 0 * len(col(b, 2)) + 0 * len(col(b, 3)))
    elif a.workload in ("W3", "W4"):
        sql = W3_SQL if a.workload == "W3" else W4_SQL
        rows = check = 0
        for _ in range(REPEATS):
            for b in c.query_blocks(sql):
                rows += b.row_count()
                for j in range(b.column_count()):
                    check += sum(col(b, j))
        check &= MASK
    elif a.workload == "W5":
        check = 0
        for blk in range(W5_ROWS // W5_BLOCK):
            ids, names, values, ts = w5_columns(blk)
            c.insert(f"INSERT INTO {W5_TABLE} (id, name, value, ts) VALUES",
                     [{"id": x, "name": n, "value": v, "ts": t} for x, n, v, t in zip(ids, names, values, ts)])
            check += sum(ids)
        rows, check = W5_ROWS, check & MASK
    elif a.workload == "W7":
        def touch(b):
            for j in range(1, b.column_count()):
                col(b, j)
            return sum(col(b, 0))
        rows, check = scan(W7_SQL, touch)
    elif a.workload == "W7i":
        for _ in range(W7I_REPEATS):
            c.insert_blocks(f"INSERT INTO {W7_SINK} VALUES", W7_SINK, block)
        rows, check = per * W7I_REPEATS, ids * W7I_REPEATS & MASK
    elif a.workload == "W8":
        rows, check = scan(W8_SQL, lambda b: sum(map(len, col(b, 0))))
    wall = time.perf_counter() - t0
    c.close()
    return wall, rows, check
