"""The current server's features as users reach for them, from the cases every front end shares
(tests/features/): MergeTree tables of sparse columns at every depth, JSON with typed paths and
SKIP hints, Dynamic, Variant, Time/Time64, QBit, BFloat16, LowCardinality across parts and
Nested, read by each Python path (rows, Arrow, pandas) over both transports and inserted back
(``insert`` of the rows, ``insert_arrow`` of the Arrow table), the copy equal to the table in the
server's own text; and server-side parameters of every type. Then what else a current server
has: async inserts, sessions over HTTP, progress and X-ClickHouse-Summary over HTTP,
cancel_http_readonly_queries_on_client_close, and bad input staying bad."""

import os
import re
import sys
import threading
import time
import uuid

import pytest

import chwire

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "features"))
import features  # noqa: E402

URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")
HTTP_URL = os.environ.get("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")
URL_18 = os.environ.get("CHWIRE_TEST_URL_18")
HTTP_URL_18 = os.environ.get("CHWIRE_TEST_HTTP_URL_18")

# (case, path) where a round trip cannot give the same text, by design, each with its reason.
# A known one that starts passing fails, so that the list stays true.
KNOWN = {
    # Dynamic values reach Arrow as their JSON text (as ClickHouse writes them): a Dynamic column
    # takes that text back as a String.
    ("dynamic", "arrow"): "Dynamic values are JSON text in Arrow",
    # A Python value carries no ClickHouse type: a Map inside a Dynamic reads as a dict, which
    # goes back as its JSON text (types that print alike, a Date as a String, compare equal).
    ("dynamic", "rows"): "a dict in a Dynamic goes back as JSON text",
}


def servers():
    out = [("26.9", URL, HTTP_URL)]
    if URL_18 and HTTP_URL_18:
        out.append(("18.16", URL_18, HTTP_URL_18))
    return out


def table_params():
    cases = features.tables()
    return [pytest.param(server, native, http, case, id=f"{server}-{case['name']}")
            for server, native, http in servers() for case in cases if server in case["servers"]]


@pytest.mark.parametrize("server, native, http, case", table_params())
def test_feature_tables_read_every_way_and_write_back(server, native, http, case):
    srv = features.Server(http)
    t = features.table_name("py_feat")
    copies = []
    try:
        srv.create(case, t)
        assert set(case["sparse"]) <= (srv.sparse(t) if case["sparse"] else set()), "the parts are not sparse"
        want = srv.text(case, t)
        settings = {**features.settings_of(case, srv.version), **case.get("select_settings", {})}
        sql = f"SELECT * FROM {t} ORDER BY k"
        rows = int(srv.query(f"SELECT count() FROM {t}"))
        problems = []
        for transport, url in (("native", native), ("http", http)):
            with chwire.connect(url) as c:
                rows_read = c.query(sql, settings=settings).result_rows
                table = c.query_arrow(sql, settings=settings)
                assert len(rows_read) == table.num_rows == rows, transport
                df = c.query_df(sql, settings=settings)
                assert len(df) == rows and list(df.columns) == table.column_names, transport
                for path, put in (("rows", lambda cp: c.insert(cp, rows_read)), ("arrow", lambda cp: c.insert_arrow(cp, table))):
                    cp = f"{t}_{transport}_{path}"
                    copies.append(cp)
                    srv.copy(case, t, cp)
                    why = KNOWN.get((case["name"], path))
                    try:
                        put(cp)
                        same = srv.text(case, cp) == want
                    except chwire.Error as e:
                        same, e_text = False, str(e)
                    else:
                        e_text = "the copy differs"
                    if why and same:
                        problems.append(f"{path} over {transport}: now passes, remove it from KNOWN")
                    elif not why and not same:
                        problems.append(f"{path} over {transport}: {e_text[:300]}")
        assert not problems, problems
    finally:
        srv.drop(t, *copies)


# ---------------------------------------------------------------- server-side parameters


@pytest.mark.parametrize("transport", ["native", "http"])
def test_server_side_parameters_of_every_type(transport):
    """Each value goes as a server-side parameter (native and HTTP); the server's text of it
    must be the case's."""
    wrong = []
    with chwire.connect(URL if transport == "native" else HTTP_URL) as c:
        for p in features.params():
            try:
                got = c.command(f"SELECT toString({{p:{p['type']}}})", parameters={"p": features.host(p["value"])}, settings=features.NEW_TYPES)
            except chwire.Error as e:
                wrong.append(f"{p['type']} {p['value']!r}: {str(e)[:200]}")
                continue
            if got != p["text"]:
                wrong.append(f"{p['type']} {p['value']!r}: {got!r}, the server's text is {p['text']!r}")
    assert not wrong, "\n".join(wrong)


def refusal_urls():
    out = [("26.9 native", URL), ("26.9 http", HTTP_URL)]
    if URL_18:
        out.append(("18.16 native", URL_18))
    return out


@pytest.mark.parametrize("name, url", refusal_urls(), ids=[n for n, _ in refusal_urls()])
def test_parameters_every_front_end_refuses(name, url):
    """tests/features/refusals.json: each value is refused with the core's message before
    anything is sent, and the client stays usable."""
    wrong = []
    with chwire.connect(url) as c:
        for p in features.refusals()["params"]:
            try:
                got = c.command(f"SELECT toString({{p:{p['type']}}})", parameters={"p": features.host(p["value"])})
                wrong.append(f"{p['type']} {p['value']!r}: accepted as {got!r}")
            except (chwire.Error, TypeError, ValueError) as e:
                if isinstance(e, chwire.ServerError) or p["error"] not in str(e):
                    wrong.append(f"{p['type']} {p['value']!r}: {type(e).__name__}: {str(e)[:200]}")
        assert c.command("SELECT {p:UInt8}", parameters={"p": 7}) == 7
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name, url", refusal_urls(), ids=[n for n, _ in refusal_urls()])
def test_options_every_front_end_refuses(name, url):
    """tests/features/refusals.json: each URL is refused with the core's message."""
    wrong = []
    for o in features.refusals()["options"]:
        try:
            with chwire.connect(features.with_query(url, o["query"])) as c:
                c.command("SELECT 1")
            wrong.append(f"{o['query']}: accepted")
        except chwire.Error as e:
            if o["error"] not in str(e):
                wrong.append(f"{o['query']}: {type(e).__name__}: {str(e)[:200]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name, url", refusal_urls(), ids=[n for n, _ in refusal_urls()])
def test_tables_every_front_end_refuses(name, url):
    """tests/features/refusals.json: text that is no table is refused by every insert, with the
    core's message, before anything is sent."""
    import pyarrow as pa

    wrong = []
    with chwire.connect(url) as c:
        for t in features.refusals()["tables"]:
            for how, insert in [("insert", lambda: c.insert(t["table"], [[1]], column_names=["a"])),
                                ("insert_arrow", lambda: c.insert_arrow(t["table"], pa.table({"a": [1]})))]:
                try:
                    insert()
                    wrong.append(f"{how} {t['table']!r}: accepted")
                except chwire.Error as e:
                    if isinstance(e, chwire.ServerError) or t["error"] not in str(e):
                        wrong.append(f"{how} {t['table']!r}: {type(e).__name__}: {str(e)[:200]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_a_querys_own_format_clause(url):
    """tests/features/statements.json: a query's own FORMAT clause is taken off by the core's
    rule (rows, Arrow and pandas alike); words that only look like one stay."""
    with chwire.connect(url) as c:
        for case in features.statements()["format"]:
            assert [r[0] for r in c.query(case["sql"]).result_rows] == case["rows"], case["sql"]
            assert c.query_arrow(case["sql"]).column(0).to_pylist() == case["rows"], case["sql"]


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_host_values_into_dynamic_by_the_cores_rule(url):
    """tests/features/dynamic.json: Python values inserted into a Dynamic column take the types
    of the core's one rule (the ones Node's, Elixir's and Rust's values take)."""
    t = features.table_name("dyn")
    with chwire.connect(url) as c:
        c.command(f"CREATE TABLE {t} (k UInt32, d Dynamic) ENGINE = Memory")
        try:
            c.insert(t, [(k, features.host(case["value"])) for k, case in enumerate(features.dynamic())])
            assert not features.dynamic_mismatches(features.dynamic_rows(HTTP_URL, t))
        finally:
            c.command(f"DROP TABLE {t}")


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_text_into_addresses_and_uuids_by_the_cores_parser(url):
    """tests/features/texts.json: strings inserted into IPv4, IPv6 and UUID columns are read by
    the core's one parser, as ClickHouse reads them; what it refuses is refused before anything
    is sent."""
    t = features.table_name("texts")
    cases = features.texts()
    with chwire.connect(url) as c:
        if not c.server_version.startswith("26."):
            pytest.skip("IPv4/IPv6 columns: 26.9")
        features.run_text_cases(cases, HTTP_URL, t, c.command, lambda cs: c.insert(t, [[1] + [x["value"] for x in cs]]),
                                lambda: pytest.raises(chwire.DataError, match="is not the text of a"))


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
@pytest.mark.parametrize("how", ["rows", "arrow"])
def test_nulls_where_the_type_has_none_by_the_cores_rule(url, how):
    """tests/features/nulls.json: None where the column's type has no NULL. A NULL Array or Map
    (at any depth) is the empty one; a NULL scalar or Tuple for a column that is not Nullable is
    refused before anything is sent. As rows, and as Arrow (a table of the schema chwire reads
    the table with, every field nullable)."""
    import pyarrow as pa

    t = features.table_name("nulls")
    cases = features.nulls()
    with chwire.connect(url) as c:
        if not c.server_version.startswith("26."):
            pytest.skip("Map columns: 26.9")

        def insert(cs):
            row = [1] + [case["value"] for case in cs]
            if how == "rows":
                return c.insert(t, [row])
            schema = c.query_arrow(f"SELECT * FROM {t} LIMIT 0").schema
            schema = pa.schema([f.with_nullable(True) for f in schema])
            return c.insert_arrow(t, pa.Table.from_pylist([dict(zip(schema.names, row))], schema=schema))

        features.run_text_cases(cases, HTTP_URL, t, c.command, insert,
                                lambda: pytest.raises(chwire.DataError, match=cases["error"]))


def dbapi_rows(c, sql, settings):
    """A DB-API cursor's rows of `sql` on the connection of client `c`'s options."""
    from chwire import dbapi

    cur = dbapi.Connection(c).cursor()
    cur.execute(sql + " SETTINGS " + ", ".join(f"{k} = {v}" for k, v in settings.items()))
    return cur.fetchall()


@pytest.mark.parametrize("name, url", refusal_urls(), ids=[n for n, _ in refusal_urls()])
def test_results_collected_whole_are_bounded_by_the_cores_tally(name, url):
    """tests/features/limits.json: the client's max_collected_rows/max_collected_bytes bound
    every call that collects a result whole (rows, Arrow, pandas, Polars, NumPy, command, a
    DB-API cursor's execute);
    past one, ResultTooLargeError and the client usable at once; streams are not bounded."""
    lim = features.limits()
    sql, settings, rows = lim["sql"], lim["settings"], lim["rows"]
    calls = {
        "query": lambda c: c.query(sql, settings=settings).row_count,
        "query_arrow": lambda c: c.query_arrow(sql, settings=settings).num_rows,
        "query_df": lambda c: len(c.query_df(sql, settings=settings)),
        "query_pl": lambda c: len(c.query_pl(sql, settings=settings)),
        "query_np": lambda c: len(c.query_np(sql, settings=settings)["n"]),
        # The first row of a result collected whole (the rest dropped).
        "command": lambda c: rows if c.command(sql, settings=settings) == [0, "0"] else None,
        "dbapi": lambda c: len(dbapi_rows(c, sql, settings)),
    }
    for case in lim["cases"]:
        with chwire.connect(url, **case["limits"]) as c:
            for call, count in calls.items():
                if "error" in case:
                    with pytest.raises(chwire.ResultTooLargeError, match=re.escape(case["error"])):
                        count(c)
                else:
                    assert count(c) == case["rows"], (call, case)
                assert c.command("SELECT 1") == 1, (call, case)
    with chwire.connect(url, **lim["tightest"]) as c:
        assert sum(b.num_rows for b in c.query_arrow_stream(sql, settings=settings)) == rows
    for case in lim["refused"]:
        with pytest.raises(chwire.InterfaceError, match=case["error"]):
            chwire.connect(url, **case["limits"])
    # ClickHouse's own max_result_rows is the server's setting (and its error an OperationalError).
    with chwire.connect(url) as c:
        with pytest.raises(chwire.OperationalError, match="TOO_MANY_ROWS"):
            c.query_arrow(sql, settings={**settings, "max_result_rows": 10})
    # A bound given twice, in two spellings, is refused as every option is.
    with pytest.raises(chwire.InterfaceError, match="the same option"):
        chwire.connect(url, max_collected_rows=1, maxCollectedRows=2)
    # A pool takes the same bounds.
    pool = chwire.create_pool(url, max_collected_rows=rows - 1)
    with pytest.raises(chwire.ResultTooLargeError):
        pool.query_arrow(sql, settings=settings)
    assert pool.command("SELECT 2") == 2
    pool.close()


@pytest.mark.parametrize("name, url", refusal_urls(), ids=[n for n, _ in refusal_urls()])
@pytest.mark.parametrize("how", ["insert_arrow", "insert_df", "insert"])
def test_inserts_cut_blocks_by_the_cores_rule(name, url, how):
    """tests/features/blocks.json: ``block_rows`` of an insert (Arrow batches, a DataFrame, rows:
    all through the core's Arrow insert), seen as the parts of a table whose merges are stopped;
    a refused NULL ends the insert with the blocks before it committed. A DataFrame and rows are
    one batch each (the refusal: Arrow batches and rows)."""
    import pyarrow as pa

    cases = features.blocks()
    t = features.table_name("blocks")
    schema = pa.schema([("n", pa.uint64())])
    with chwire.connect(url) as c:
        def insert(case, batches, kw):
            data = [pa.record_batch([pa.array(b, pa.uint64())], schema=schema) for b in batches]
            if how == "insert_arrow":
                return c.insert_arrow(t, pa.RecordBatchReader.from_batches(schema, data), cases["settings"], **kw)
            if how == "insert_df":
                return c.insert_df(t, pa.Table.from_batches(data).to_pandas(), cases["settings"], **kw)
            return c.insert(t, [(v,) for v in batches[0]], ["n"], cases["settings"], **kw)

        refusal = [cases["refusal"]] if how != "insert_df" else []  # pandas makes a NULL a float NaN
        for case in cases["cases"] + refusal:
            batches = features.blocks_batches(case)
            if how != "insert_arrow":  # one batch: the parts of a single batch of its rows
                batches = [sum(batches, [])]
            kw = {"block_rows": int(case["block_rows"])} if "block_rows" in case else {}
            c.command(f"DROP TABLE IF EXISTS {t}")
            c.command(features.BLOCKS_TABLE.format(t=t))
            c.command(features.BLOCKS_STOP.format(t=t))
            try:
                total = sum(case["parts"])
                if "errors" in case:
                    with pytest.raises(chwire.DataError) as e:
                        insert(case, batches, kw)
                    assert all(text in str(e.value) for text in case["errors"]), str(e.value)
                    want = case["parts"]
                else:
                    assert insert(case, batches, kw) == total
                    size = int(case.get("block_rows", 1 << 20))
                    # One batch of every row is cut into full blocks, the last one smaller.
                    want = case["parts"] if how == "insert_arrow" else [min(size, total - i) for i in range(0, total, size)]
                parts = [r[0] for r in c.query(features.BLOCKS_PARTS.format(t=t)).result_rows]
                assert parts == want, case
                assert c.query(f"SELECT count(), sum(n) FROM {t}").result_rows == [(total, total * (total - 1) // 2)]
            finally:
                c.command(f"DROP TABLE IF EXISTS {t}")
        for case in cases["refused"]:
            with pytest.raises(chwire.InterfaceError, match=case["error"]):
                c.insert_arrow(t, pa.table({"n": pa.array([1], pa.uint64())}), block_rows=case["block_rows"])
        assert c.command("SELECT 1") == 1


def test_pool_options_by_the_cores_names():
    """tests/features/pool.json: the pool's option names, aliases and spellings; the mistakes
    refused with the core's message."""
    cases = features.pool()
    for case in cases["accepted"]:
        pool = chwire.create_pool(URL, case["options"])
        try:
            assert pool.command("SELECT 1") == 1, case
            assert 1 <= pool.pool_status()["size"] <= case["max_size"], case
        finally:
            pool.close()
    for case in cases["refused"]:
        with pytest.raises(chwire.InterfaceError, match=re.escape(case["error"])):
            chwire.create_pool(URL, case["options"])


def test_a_parameter_the_server_refuses_leaves_the_client_usable(client):
    with pytest.raises(chwire.ServerError):
        client.command("SELECT {p:Array(Enum8('a' = 1))}", parameters={"p": ["no such name"]})
    assert client.command("SELECT {p:UInt8}", parameters={"p": 7}) == 7


# ---------------------------------------------------------------- what else a current server has


def no_async_queue(c):
    """The rig's clickhouse-local has no asynchronous insert queue (docs/ARCHITECTURE.md): an
    insert with async_insert=1 runs as an ordinary one there."""
    try:
        c.command("SYSTEM FLUSH ASYNC INSERT QUEUE")
        return False
    except chwire.ServerError as e:
        return "not initialized" in str(e)


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_async_inserts_with_and_without_waiting(url, table):
    with chwire.connect(url) as c:
        c.command(f"CREATE TABLE {table} (a UInt32, s String) ENGINE = MergeTree ORDER BY a")
        wait = {"async_insert": 1, "wait_for_async_insert": 1}
        nowait = {"async_insert": 1, "wait_for_async_insert": 0}
        assert c.insert(table, [(1, "x"), (2, "y")], settings=wait) == 2
        assert c.command(f"SELECT count() FROM {table}") == 2  # waited for: there at once
        import pyarrow as pa
        c.insert_arrow(table, pa.table({"a": pa.array([3], pa.uint32()), "s": ["z"]}), settings=nowait)
        c.command(f"INSERT INTO {table} VALUES ({{a:UInt32}}, 'w')", parameters={"a": 4}, settings=nowait)
        # Not waited for: the rows come when the server flushes its queue (at once where it has none).
        if not no_async_queue(c):
            c.command("SYSTEM FLUSH ASYNC INSERT QUEUE")
        assert c.query(f"SELECT a, s FROM {table} ORDER BY a").result_rows == [(1, "x"), (2, "y"), (3, "z"), (4, "w")]


def test_http_sessions_keep_settings_and_temporary_tables():
    """A session's SET and temporary tables last across queries, and results of them come
    with their DateTime zones (a DESCRIBE outside the session could not see them)."""
    sid = "py-session-" + uuid.uuid4().hex
    sep = "&" if "?" in HTTP_URL else "?"
    with chwire.connect(f"{HTTP_URL}{sep}session_id={sid}") as c:
        c.command("SET max_threads = 3")
        assert c.command("SELECT getSetting('max_threads')") == 3
        c.command("CREATE TEMPORARY TABLE tmp (t DateTime('Asia/Tokyo'), n UInt8)")
        c.insert("tmp", [(0, 1)])
        t = c.query_arrow("SELECT t, n FROM tmp")
        assert str(t.schema.field("t").type) == "timestamp[s, tz=Asia/Tokyo]"
        assert c.command("SELECT toString(t) FROM tmp") == "1970-01-01 09:00:00"
        assert c.query("SELECT t FROM tmp").result_rows[0][0].isoformat() == "1970-01-01T09:00:00+09:00"
        empty = c.query_arrow("SELECT t, n FROM tmp WHERE n > 5")
        assert empty.num_rows == 0
    with chwire.connect(HTTP_URL) as other:  # another session sees neither
        with pytest.raises(chwire.ServerError):
            other.command("SELECT count() FROM tmp")


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_the_session_timezone_is_the_zone_of_datetimes_without_one(url):
    """``session_timezone`` (a query's setting) renders DateTime columns without a zone in that
    zone: rows, Arrow and pandas carry it, not the server's zone."""
    sql = "SELECT toDateTime(0) AS t, toDateTime(0, 'UTC') AS u"
    with chwire.connect(url) as c:
        if int(c.command("SELECT version()").split(".")[0]) < 23:
            pytest.skip("no session_timezone before 23.x")
        s = {"session_timezone": "Asia/Tokyo"}
        assert c.query(sql, settings=s).result_rows[0][0].isoformat() == "1970-01-01T09:00:00+09:00"
        t = c.query_arrow(sql, settings=s)
        assert [str(f.type) for f in t.schema] == ["timestamp[s, tz=Asia/Tokyo]", "timestamp[s, tz=UTC]"]
        assert str(c.query_df(sql, settings=s).dtypes.iloc[0]) == "datetime64[s, Asia/Tokyo]"
        # Without it, the server's zone as before.
        assert str(c.query_arrow(sql).schema.field("t").type) != "timestamp[s, tz=Asia/Tokyo]"


def test_progress_and_summary_over_http():
    """A current server reports the query's progress in X-ClickHouse-Summary: the progress
    callback gets it over HTTP too."""
    with chwire.connect(HTTP_URL) as c:
        calls = []
        c.query_arrow("SELECT count() FROM numbers(3000000)", progress=calls.append)
        assert calls and calls[-1]["read_rows"] == 3000000, calls
        calls = []
        c.query_arrow("SELECT number FROM numbers(10)", progress=calls.append)
        assert calls and calls[-1]["read_rows"] == 10, calls


def test_cancel_http_readonly_queries_on_client_close():
    """With the setting on (and readonly), a dropped read is cancelled by the server itself;
    chwire's own kill does the same for every query. The query is gone at once either way."""
    qid = "py-readonly-close-" + uuid.uuid4().hex
    with chwire.connect(HTTP_URL) as c:
        settings = {"readonly": 2, "cancel_http_readonly_queries_on_client_close": 1, "max_block_size": 1}
        assert c.command("SELECT getSetting('cancel_http_readonly_queries_on_client_close')", settings=settings) is True
        threading.Timer(0.5, c.cancel).start()
        with pytest.raises(chwire.OperationalError, match="cancelled"):
            c.query_arrow("SELECT sleepEachRow(0.1) FROM numbers(100)", settings=settings, query_id=qid)
        assert c.command("SELECT 1") == 1
        deadline = time.monotonic() + 5
        with chwire.connect(HTTP_URL) as other:
            while other.command(f"SELECT count() FROM system.processes WHERE query_id = '{qid}'"):
                assert time.monotonic() < deadline, "the cancelled query still runs"
                time.sleep(0.1)


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_an_exception_mid_stream_is_an_error_never_a_short_result(url):
    sql = "SELECT number, throwIf(number = 250000) FROM numbers(1000000)"
    with chwire.connect(url) as c:
        for read in (lambda: c.query(sql, settings={"max_block_size": 10000}),
                     lambda: c.query_arrow(sql, settings={"max_block_size": 10000}),
                     lambda: list(c.query_arrow_stream(sql, settings={"max_block_size": 10000}))):
            with pytest.raises(chwire.ServerError) as e:
                read()
            assert e.value.code == 395
            assert c.command("SELECT 1") == 1


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_a_block_the_server_refuses_commits_nothing_of_it(url, table):
    """A CHECK constraint the block breaks: the server refuses it whole (nothing of it in the
    table); the client goes on."""
    import pyarrow as pa

    with chwire.connect(url) as c:
        c.command(f"CREATE TABLE {table} (a UInt32, CONSTRAINT small CHECK a < 100) ENGINE = MergeTree ORDER BY a")
        assert c.insert(table, [(1,), (2,)]) == 2
        with pytest.raises(chwire.ServerError) as e:
            c.insert(table, [(3,), (500,), (4,)])
        assert e.value.code == 469  # VIOLATED_CONSTRAINT
        with pytest.raises(chwire.ServerError):
            c.insert_arrow(table, pa.table({"a": pa.array([5, 6, 700], pa.uint32())}))
        assert c.query(f"SELECT a FROM {table} ORDER BY a").result_rows == [(1,), (2,)]
        assert c.insert(table, [(7,)]) == 1

