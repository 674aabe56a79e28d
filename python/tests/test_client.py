"""Connecting, reading, errors, parameters, settings, query ids and progress against the live
server (CHWIRE_TEST_URL)."""

import datetime as dt
import decimal
import socket
import threading
import time
import uuid

import pyarrow as pa
import pytest

import chwire
from chwire import dbapi


def _transport(url):
    """The keyword that makes host/port options speak the URL's protocol."""
    return {"transport": "http"} if url.startswith("http") else {}


def test_connect_url_kwargs_and_context_manager(url):
    with chwire.connect(url) as c:
        assert c.command("SELECT 1") == 1
        assert c.server_info["name"] == "ClickHouse"
    host, port = url.split("@")[1].split("/")[0].rsplit(":", 1)
    with chwire.connect(host=host, port=int(port), user="default", database="system", compression=True, **_transport(url)) as c:
        assert c.command("SELECT currentDatabase()") == "system"
    with chwire.connect(host=host, port=int(port), user="chwire_test", password="s3cret", compression="zstd", **_transport(url)) as c:
        assert c.command("SELECT 'auth ok'") == "auth ok"


def test_connection_refused_and_auth_errors(url):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(chwire.ConnectionError) as e:
        chwire.connect(host="127.0.0.1", port=port, **_transport(url))
    assert isinstance(e.value, dbapi.OperationalError)
    host, p = url.split("@")[1].split("/")[0].rsplit(":", 1)
    with pytest.raises(chwire.ServerError) as e:
        # Over HTTP the credentials are checked by the first request, not by connect (docs/HTTP.md).
        chwire.connect(host=host, port=int(p), user="chwire_test", password="wrong", **_transport(url)).command("SELECT 1")
    assert e.value.code in (192, 193, 516)
    assert isinstance(e.value, dbapi.OperationalError)
    with pytest.raises(chwire.InterfaceError):
        chwire.connect("ftp://localhost/")


def test_server_error_code_name_and_pep249(client):
    with pytest.raises(chwire.ServerError) as e:
        client.query_arrow("SELECT * FROM no_such_table_here")
    assert e.value.code == 60 and e.value.name == "UNKNOWN_TABLE"
    assert isinstance(e.value, dbapi.ProgrammingError) and isinstance(e.value, dbapi.DatabaseError)
    assert isinstance(e.value, dbapi.Error) and chwire.Error is dbapi.Error
    with pytest.raises(dbapi.ProgrammingError) as e:
        client.command("SELEC 1")
    assert e.value.code == 62 and e.value.name == "SYNTAX_ERROR"
    assert e.value.message.startswith("Syntax error"), "the class name is not repeated"
    # Every code has its name (18.16 sends only "DB::Exception"), in the text once.
    with pytest.raises(chwire.ServerError) as e:
        client.command("SELECT [1, 'a']")
    assert e.value.code == 386 and e.value.name == "NO_COMMON_TYPE"
    assert str(e.value).count("DB::Exception") == 1 and str(e.value).endswith("(NO_COMMON_TYPE)"), str(e.value)
    # The connection stays usable after server errors.
    assert client.command("SELECT 2") == 2


def test_query_arrow_types_and_rows(client):
    t = client.query_arrow(
        "SELECT number AS n, toString(number) AS s, toFloat64(number) / 2 AS f, toDateTime(number, 'Asia/Tokyo') AS t, "
        "toDate(number) AS d, [number, number] AS a, toNullable(number) AS nn "
        "FROM system.numbers LIMIT 3")
    assert t.schema.field("n").type == pa.uint64()
    assert t.schema.field("s").type == pa.large_string()
    assert t.schema.field("t").type == pa.timestamp("s", tz="Asia/Tokyo")
    assert t.schema.field("d").type == pa.date32()
    assert t.schema.field("n").metadata[b"clickhouse.type"] == b"UInt64"
    assert t.column("n").to_pylist() == [0, 1, 2]
    assert t.column("s").to_pylist() == ["0", "1", "2"]
    assert t.column("a").to_pylist() == [[0, 0], [1, 1], [2, 2]]
    r = client.query(
        "SELECT toDateTime(1600000000, 'Europe/Berlin') t, toDecimal64('12.345', 3) d, "
        "toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') u, (1, 'x') tu, [1, 2] a, "
        "CAST(NULL AS Nullable(String)) nul, toFixedString('ab', 3) fs, CAST('b' AS Enum8('a' = 1, 'b' = 2)) e, "
        "toInt64(-5) i, toDate('2020-02-29') dd")
    assert r.column_names == ["t", "d", "u", "tu", "a", "nul", "fs", "e", "i", "dd"]
    assert r.column_types[0] == "DateTime('Europe/Berlin')" and r.column_types[1] == "Decimal(18, 3)"
    row = r.result_rows[0]
    assert row[0] == dt.datetime(2020, 9, 13, 12, 26, 40, tzinfo=dt.timezone.utc)
    assert row[0].utcoffset() == dt.timedelta(hours=2)
    assert row[1] == decimal.Decimal("12.345")
    assert row[2] == uuid.UUID("61f0c404-5cb3-11e7-907b-a6006ad3dba0")
    assert row[3] == (1, "x") and row[4] == [1, 2] and row[5] is None
    assert row[6] == b"ab\x00" and row[7] == "b" and row[8] == -5 and row[9] == dt.date(2020, 2, 29)
    assert r.first_item["i"] == -5


def test_empty_result_keeps_schema(client):
    t = client.query_arrow("SELECT number, toString(number) s FROM system.numbers LIMIT 0")
    assert t.num_rows == 0 and t.column_names == ["number", "s"]
    # A statement has no result (a temporary table would need an HTTP session on 18.16).
    assert client.command("CREATE TABLE IF NOT EXISTS chwire_py_empty_x (a UInt8) ENGINE = Memory") is None
    t = client.query_arrow("SELECT a, toDateTime(0, 'Asia/Tokyo') AS t FROM chwire_py_empty_x WHERE a > 1")
    assert t.num_rows == 0 and [str(f.type) for f in t.schema] == ["uint8", "timestamp[s, tz=Asia/Tokyo]"]
    assert client.command("DROP TABLE chwire_py_empty_x") is None


def test_parameters_are_data_never_sql(any_client):
    """Server-side parameters on 26.9, typed CAST literals bound by chwire on 18.16."""
    client = any_client
    t = client.query_arrow("SELECT {a:UInt64} + 1 AS x, {s:String} AS s, {l:Array(Int32)} AS l, {n:Nullable(Int8)} AS n",
                           parameters={"a": 41, "s": "it's a \\ 'test'; DROP TABLE x", "l": [1, -2], "n": None})
    assert t.to_pylist() == [{"x": 42, "s": "it's a \\ 'test'; DROP TABLE x", "l": [1, -2], "n": None}]
    d = client.query("SELECT {d:Date} AS d, {t:DateTime} AS t, {u:UUID} AS u, {dec:Decimal(10, 2)} AS dec",
                     parameters={"d": dt.date(2021, 5, 6), "t": dt.datetime(2021, 5, 6, 7, 8, 9),
                                 "u": uuid.UUID(int=1), "dec": decimal.Decimal("3.14")}).result_rows[0]
    assert d[0] == dt.date(2021, 5, 6) and d[1].replace(tzinfo=None) == dt.datetime(2021, 5, 6, 7, 8, 9)
    assert d[2] == uuid.UUID(int=1) and d[3] == decimal.Decimal("3.14")
    with pytest.raises(chwire.Error):
        client.query_arrow("SELECT {missing:UInt8}", parameters={"other": 1})


def test_settings_shape_blocks(client, url):
    s = client.query_arrow_stream("SELECT number FROM system.numbers LIMIT 1000", settings={"max_block_size": 100})
    batches = list(s)
    assert len(batches) == 10 and all(b.num_rows == 100 for b in batches)
    with chwire.connect(url, settings={"max_block_size": 250}) as c:
        assert len(list(c.query_arrow_stream("SELECT number FROM system.numbers LIMIT 1000"))) == 4


def test_arrow_settings_are_applied_by_chwire_not_sent(client, url):
    # String values that are not UTF-8 come as binary with string_as_string = 0, which the
    # server (18.16) does not know: chwire applies it to the batches it builds.
    sql = "SELECT unhex('FF00') AS s"
    with pytest.raises(chwire.DataError, match="not valid UTF-8"):
        client.query(sql)
    assert client.query(sql, settings={"output_format_arrow_string_as_string": 0}).result_rows == [(b"\xff\x00",)]
    with chwire.connect(url, settings={"output_format_arrow_string_as_string": "0"}) as c:
        assert pa.types.is_large_binary(c.query_arrow(sql).column("s").type)
    # In the URL too, where a keyword setting of the same name wins.
    in_url = url + ("&" if "?" in url else "?") + "output_format_arrow_string_as_string=0"
    with chwire.connect(in_url) as c:
        assert pa.types.is_large_binary(c.query_arrow(sql).column("s").type)
    with chwire.connect(in_url, settings={"output_format_arrow_string_as_string": 1}) as c:
        assert pa.types.is_large_string(c.query_arrow("SELECT 'x' AS s").column("s").type)
    with pytest.raises(chwire.DataError, match="output_format_arrow_string_as_string"):
        client.query(sql, settings={"output_format_arrow_string_as_string": "maybe"})


def test_composite_parameters_follow_their_placeholders_type(any_client):
    client = any_client
    # A tuple (or list) for a Tuple placeholder is a tuple, for an Array an array; nested too.
    r = client.query("SELECT {t:Tuple(UInt8, String)} AS t, {u:Tuple(UInt8)} AS u, {a:Array(UInt8)} AS a, "
                     "{p:Array(Tuple(UInt8, Nullable(String)))} AS p, {n:Tuple(Int8, Tuple(String, UInt8))} AS n",
                     parameters={"t": [2, "b'c"], "u": (7,), "a": (1, 2), "p": [(1, "x"), (2, None)], "n": [-1, ["x", 1]]})
    assert r.result_rows == [((2, "b'c"), (7,), [1, 2], [(1, "x"), (2, None)], (-1, ("x", 1)))]
    with pytest.raises(TypeError, match='query parameter "t": 1 values for a Tuple\\(UInt8, String\\) of 2 elements'):
        client.query("SELECT {t:Tuple(UInt8, String)}", parameters={"t": (1,)})
    # Ints among floats are floats, when a float holds them exactly.
    assert client.command("SELECT {a:Array(Float64)}", parameters={"a": [1, 2.5]}) == [1.0, 2.5]
    with pytest.raises(TypeError, match="9007199254740993 among floats would be rounded"):
        client.command("SELECT {a:Array(Float64)}", parameters={"a": [2**53 + 1, 2.5]})
    # A dict binds only to a Map placeholder (18.16 has no Map type: the server refuses it).
    with pytest.raises(TypeError, match='query parameter "m": cannot bind a map to a String parameter'):
        client.query("SELECT {m:String}", parameters={"m": {"a": 1}})
    if client.server_info["negotiated_revision"] < 54460:
        with pytest.raises(chwire.ServerError, match="(?i)map"):  # map(...) or the Map type
            client.query("SELECT {m:Map(String, UInt8)}", parameters={"m": {"a": 1}})


def test_bytes_parameters_are_utf8_text(client):
    assert client.command("SELECT {b:String}", parameters={"b": "ü".encode()}) == "ü"
    with pytest.raises(chwire.DataError, match="must be UTF-8"):
        client.command("SELECT {b:String}", parameters={"b": b"\xff"})
    with pytest.raises(chwire.DataError, match="cannot bind a object"):
        client.command("SELECT {b:String}", parameters={"b": object()})


def test_setting_values_that_do_not_fit_an_old_server_are_refused(client18):
    """Before revision 54429 (18.16) settings travel in binary, encoded by each setting's type."""
    client = client18
    assert client.server_info["negotiated_revision"] < 54429
    t0 = time.monotonic()
    for value in ("lots", None, 1.5, -1):
        with pytest.raises(chwire.DataError, match="setting max_threads = "):
            client.command("SELECT 1", settings={"max_threads": value})
    assert time.monotonic() - t0 < 10  # was a hang until the receive timeout
    assert client.command("SELECT 1", settings={"max_threads": "auto", "extremes": True}) == 1


def test_query_id_is_sent(client, url):
    qid = "py-" + uuid.uuid4().hex
    seen = []
    with chwire.connect(url) as other:
        def watch():
            for _ in range(100):
                n = other.command("SELECT count() FROM system.processes WHERE query_id = {q:String}", parameters={"q": qid})
                if n:
                    seen.append(n)
                    return
                time.sleep(0.02)
        th = threading.Thread(target=watch)
        th.start()
        client.query_arrow("SELECT sleep(1)", query_id=qid)
        th.join()
    assert seen == [1]


def test_progress_callback(client, native_only):
    native_only("18.16 sends no progress over HTTP (docs/HTTP.md)")
    calls = []
    t = client.query_arrow("SELECT count() FROM numbers(3000000)", settings={"max_block_size": 100000},
                           progress=calls.append)
    assert t.column(0).to_pylist() == [3000000]
    assert calls, "no progress reported"
    rows = [c["read_rows"] for c in calls]
    assert rows == sorted(rows) and rows[-1] == 3000000


def test_numpy_pandas_polars(client):
    sql = "SELECT number AS n, toString(number) AS s, toFloat64(number) AS f FROM system.numbers LIMIT 1000"
    np_cols = client.query_np(sql)
    assert np_cols["n"].dtype.name == "uint64" and np_cols["n"].sum() == 499500
    assert np_cols["f"][-1] == 999.0
    df = client.query_df(sql)
    assert list(df.columns) == ["n", "s", "f"] and df["n"].sum() == 499500 and df["s"].iloc[7] == "7"
    pl = client.query_pl(sql)
    assert pl.shape == (1000, 3) and pl["n"].sum() == 499500


def test_command_returns_values(client):
    assert client.command("SELECT 1, 'a'") == [1, "a"]
    assert client.command("SELECT 1 WHERE 0") is None


def test_an_unreadable_tls_file_is_a_configuration_error(url):
    """A CA file that cannot be read fails at connect as a configuration error naming the
    file (InterfaceError), not as a connection failure that retrying could fix."""
    with pytest.raises(chwire.InterfaceError) as e:
        chwire.connect(url, secure=True, ca_file="/nonexistent/chwire-ca.pem")
    assert "TLS" in str(e.value) and "/nonexistent/chwire-ca.pem" in str(e.value)
    assert not isinstance(e.value, dbapi.OperationalError)


def test_query_df_dtype_backends(client):
    """``dtype_backend`` as in pandas' readers: NumPy columns by default, Arrow-backed columns
    over chwire's own buffers with "pyarrow", pandas' nullable dtypes with "numpy_nullable"
    (NULLs as pd.NA there, NaN or None in the NumPy frame); an unknown name is refused before
    the query runs."""
    import pandas as pd
    import pyarrow as pa

    sql = ("SELECT number AS n, toString(number) AS s, toFloat64(number) / 2 AS f, "
           "if(number % 3 = 0, NULL, toInt32(number)) AS m, toDateTime(number, 'UTC') AS t "
           "FROM system.numbers LIMIT 1000")
    table = client.query_arrow(sql)
    plain = client.query_df(sql)
    assert str(plain["n"].dtype) == "uint64" and plain["m"].isna().sum() == 334
    arrow = client.query_df(sql, dtype_backend="pyarrow")
    assert all(isinstance(t, pd.ArrowDtype) for t in arrow.dtypes)
    assert [t.pyarrow_dtype for t in arrow.dtypes] == list(table.schema.types)
    # Over chwire's buffers themselves: the same data buffer, no copy.
    from chwire._client import _to_pandas

    back = _to_pandas(table, "pyarrow")["n"].array.__arrow_array__()
    assert back.chunk(0).buffers()[1].address == table.column("n").chunk(0).buffers()[1].address
    # The Arrow-backed frame holds the same values, NULLs included.
    assert pa_table_of(arrow).equals(table.cast(pa_table_of(arrow).schema))
    nullable = client.query_df(sql, dtype_backend="numpy_nullable")
    assert [str(t) for t in nullable.dtypes[:4]] == ["UInt64", "string", "Float64", "Int32"]
    assert nullable["m"].isna().sum() == 334 and nullable["m"][1] == 1 and nullable["n"].sum() == 499500
    assert nullable["t"].iloc[1] == pd.Timestamp(1, unit="s", tz="UTC")
    calls = []
    with pytest.raises(chwire.ProgrammingError):
        client.query_df(sql, dtype_backend="numpy", progress=calls.append)
    assert calls == []


def pa_table_of(df):
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False)


def test_uuids_reach_numpy_and_pandas_also_inside_arrays(client):
    """pandas cannot convert UUIDs inside arrays; both give uuid.UUID, as query() does. A
    dict of columns cannot hold a name twice: query_np says so instead of dropping one."""
    import uuid as _uuid

    u = _uuid.UUID("61f0c404-5cb3-11e7-907b-a6006ad3dba0")
    q = f"SELECT 1 AS x, [toUUID('{u}')] AS a, toUUID('{u}') AS u"
    for backend in (None, "numpy_nullable", "pyarrow"):
        df = client.query_df(q, dtype_backend=backend)
        assert list(df.columns) == ["x", "a", "u"]
        assert list(df["a"][0]) == [u] and df["u"][0] == u, backend
    np_cols = client.query_np(q)
    assert list(np_cols["a"][0]) == [u] and np_cols["u"][0] == u
    with pytest.raises(chwire.ProgrammingError, match="more than once"):
        client.query_np("SELECT 1, 1")


def test_uuid_columns_are_uuid_objects_built_a_column_at_a_time(client):
    """UUIDs at the top level (and Nullable) are built by _chwire.column_objects, not by
    uuid.UUID() per value: they must be the objects the constructor makes, in every path."""
    import pickle
    import uuid as _uuid

    import pyarrow as pa

    from chwire import _arrays, _chwire

    assert _arrays._objects_match("UUID")  # so the fast path is what this test runs
    # (18.16 has no leftPad: the hash's top bit set makes its hex 16 digits long)
    hexed = "substring(hex(bitOr(intHash64(number), toUInt64(9223372036854775808))), 1, 8)"
    q = ("SELECT toString(u) AS s, u, if(number % 3 = 0, NULL, u) AS n FROM (SELECT number, "
         f"toUUID(concat({hexed}, '-5cb3-f1e7-907b-a6006ad3dba0')) AS u FROM numbers(3000)) ORDER BY number")
    settings = {"max_block_size": 700}
    rows = client.query(q, settings=settings).result_rows
    want = [_uuid.UUID(r[0]) for r in rows]
    assert [r[1] for r in rows] == want and [r[2] for r in rows] == [None if i % 3 == 0 else w for i, w in enumerate(want)]
    for backend in (None, "numpy_nullable"):
        df = client.query_df(q, settings=settings, dtype_backend=backend)
        assert df["u"].tolist() == want and df["n"].tolist() == [r[2] for r in rows], backend
    got = client.query_np(q, settings=settings)["u"]
    assert got.tolist() == want
    for g, w in zip(got[:50], want):
        assert type(g) is _uuid.UUID and str(g) == str(w) and hash(g) == hash(w) and g.is_safe == w.is_safe
        assert pickle.loads(pickle.dumps(g)) == w and g.version == w.version and g.bytes == w.bytes
        with pytest.raises(TypeError):  # as immutable as the constructor's
            g.int = 1
    with pytest.raises(TypeError, match="fixed_size_binary"):
        _chwire.column_objects(pa.array([1, 2]), "UUID")
    with pytest.raises(ValueError, match="UUID or IPv6"):
        _chwire.column_objects(pa.array([b"x" * 16], pa.binary(16)), "IPv4")


def test_bad_input_is_a_chwire_error(client, table):
    """Found by an adversarial probe: each of these escaped as pyarrow's, struct's or Python's
    own exception; the client stays usable after each."""
    import pandas as pd
    import pyarrow as pa

    client.command(f"CREATE TABLE {table} (f Float32, s String, i Int32) ENGINE = Memory")
    cases = [
        (chwire.DataError, lambda: client.query_arrow("SELECT 1 AS `a\\0b`")),
        (chwire.DataError, lambda: client.insert(table, [[10**400, "a", 1]])),
        (chwire.DataError, lambda: client.insert(table, [5])),
        (chwire.DataError, lambda: client.insert_df(table, pd.DataFrame({"s": ["a", 1]}))),
        (chwire.DataError, lambda: client.insert_arrow(table, pa.RecordBatch.from_arrays(
            [pa.array([1, None], pa.int32())], schema=pa.schema([pa.field("i", pa.int32(), nullable=False)])))),
        (chwire.ProgrammingError, lambda: client.insert_arrow(table, None)),
        (chwire.ProgrammingError, lambda: client.query("SELECT {x:UInt8}", parameters=[1])),
        (chwire.ProgrammingError, lambda: client.query("SELECT 1", settings=[("max_threads", 1)])),
        (chwire.DataError, lambda: client.query("SELECT {x:String}", parameters={"x": "\ud800"})),
    ]
    for i, (error, call) in enumerate(cases):
        with pytest.raises(error):
            call()
        assert client.command("SELECT {i:UInt8}", parameters={"i": i}) == i
    assert client.command(f"SELECT count() FROM {table}") == 0


def test_a_missing_extra_is_named_before_the_query_runs(client):
    """query_df/query_pl/query_np without pandas/Polars/NumPy say which extra brings it."""
    import sys

    for module, call in [("pandas", client.query_df), ("polars", client.query_pl), ("numpy", client.query_np)]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setitem(sys.modules, module, None)  # import fails as when it is not installed
            with pytest.raises(ModuleNotFoundError, match=rf"pip install 'chwire\[{module}\]'"):
                call("SELECT throwIf(1)")  # would fail on the server if it ran


@pytest.mark.parametrize("revision", [None, 54482, 54465])
def test_the_announced_revision_is_what_the_server_records(url, native_only, revision):
    """``client_revision`` (a keyword, as in URLs) pins the revision chwire announces; the
    server's system.processes shows it (54492 by default)."""
    native_only("an HTTP query has no protocol revision")
    kw = {} if revision is None else {"client_revision": revision}
    marker = f"chwire-py-revision-{revision}"
    with chwire.connect(url, **kw) as c:
        rows = c.query(f"SELECT toUInt64(client_revision) FROM system.processes WHERE query LIKE '%{marker}%'").result_rows
    assert rows == [(revision or 54492,)]
    with pytest.raises(chwire.Error, match="client_revision"):
        chwire.connect(url, client_revision=99999)


def test_server_info_has_the_settings_of_the_servers_hello(url, native_only, client18):
    """26.9 lists the session's settings in its Hello (54474): the rig's profile sets
    implicit_select back to 0; 18.16 lists none."""
    native_only("HTTP has no Hello")
    with chwire.connect(url) as c:
        info = c.server_info
    assert info["negotiated_revision"] == 54492
    assert info["settings"].get("implicit_select") == "0", info["settings"]
    assert client18.server_info["settings"] == {}
