"""chwire's ADBC driver through Python's ADBC driver manager (adbc-driver-manager's DB-API)
and Polars, against the live server. `make adbc-test` runs it with the wheel installed in
build/py-venv (the driver is the package's compiled module)."""

import datetime
import os
import pathlib
import resource
import threading
import time
import uuid

import pyarrow as pa
import pytest

import chwire
import chwire.adbc

adbc_driver_manager = pytest.importorskip("adbc_driver_manager")
from adbc_driver_manager import dbapi  # noqa: E402

from adbc_suite import LATE_ERROR, URL  # noqa: E402

pytestmark = pytest.mark.skipif(not URL.startswith("tcp"), reason="the ADBC suite runs over the native protocol")


# --- loading ---------------------------------------------------------------------------


def test_the_driver_ships_inside_the_package(monkeypatch):
    """The wheel's compiled module is the driver: a plain `pip install` of python/ (what
    `make py-venv` does through maturin, without copying anything in) gives a working driver.
    Fails if the module lacks the entrypoints or the path leaves the installed package."""
    import ctypes

    import chwire._chwire

    monkeypatch.delenv("CHWIRE_ADBC_DRIVER", raising=False)
    path = pathlib.Path(chwire.adbc.driver_path())
    package = pathlib.Path(chwire.__file__).resolve().parent
    assert path == pathlib.Path(chwire._chwire.__file__).resolve()
    assert path.parent == package and path.is_file()
    lib = ctypes.CDLL(str(path))
    assert lib.AdbcDriverChwireInit and lib.AdbcDriverInit
    assert not (package / chwire.adbc.LIBRARY).exists()  # no second copy of the driver to go stale
    # The manager loads it by that path, with chwire's entrypoint or the fallback one.
    for entrypoint in (chwire.adbc.ENTRYPOINT, None):
        kw = {"entrypoint": entrypoint} if entrypoint else {}
        with dbapi.connect(driver=str(path), uri=URL, autocommit=True, **kw) as c, c.cursor() as cur:
            cur.execute("SELECT 40 + 2")
            assert cur.fetchone() == (42,)
    if os.path.exists("/proc/self/maps"):  # the process maps one copy of the code: the module's
        with open("/proc/self/maps") as f:
            assert chwire.adbc.LIBRARY not in f.read()


def test_managers_find_the_driver_by_name_through_its_manifest(tmp_path, monkeypatch):
    manifest = chwire.adbc.write_manifest(tmp_path)
    assert manifest == tmp_path / "chwire.toml"
    assert f'shared = "{chwire.adbc.driver_path()}"' in manifest.read_text()
    monkeypatch.setenv("ADBC_DRIVER_PATH", str(tmp_path))
    with dbapi.connect(driver="chwire", uri=URL, autocommit=True) as c, c.cursor() as cur:
        cur.execute("SELECT 40 + 2")
        assert cur.fetchone() == (42,)
    other = chwire.adbc.write_manifest(tmp_path / "go", shared="/opt/lib/libadbc_driver_chwire.so")
    assert 'shared = "/opt/lib/libadbc_driver_chwire.so"' in other.read_text()


# --- queries -----------------------------------------------------------------------------


W = "SELECT number AS n, toString(number) AS s, number % 7 = 0 AS b, toDate(number % 1000) AS d FROM system.numbers LIMIT 300000"


def test_fetch_arrow_table_equals_chwires_own_query_arrow(conn, ch):
    with conn.cursor() as cur:
        cur.execute(W)
        got = cur.fetch_arrow_table()
    want = ch.query_arrow(W)
    assert got.schema.equals(want.schema, check_metadata=True)
    assert got.equals(want)
    assert got.num_rows == 300000


def test_fetch_record_batch_streams_one_block_per_batch(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT number FROM system.numbers LIMIT 1000000", )
        reader = cur.fetch_record_batch()
        sizes = [b.num_rows for b in reader]
    assert sum(sizes) == 1000000
    assert len(sizes) > 1 and max(sizes) <= 1048576


def test_a_result_of_several_blocks_keeps_each_dictionary(any_conn):
    """Each block of a LowCardinality or Enum column carries its dictionary: the driver hands
    one batch per block, each with its own (unique) dictionary, which pyarrow, pandas and
    Polars unify (chwire's query_arrow joined small batches' dictionaries end to end)."""
    import polars as pl

    settings = "max_block_size = 5" + (", allow_experimental_low_cardinality_type = 1" if any_conn.adbc_get_info()[
        "vendor_version"].startswith("18.") else "")
    sql = ("SELECT toLowCardinality(toString(number % 2)) AS lc, CAST(number % 2 AS Enum8('a' = 0, 'b' = 1)) AS e "
           f"FROM numbers(10) SETTINGS {settings}")
    with any_conn.cursor() as cur:
        cur.execute(sql)
        t = cur.fetch_arrow_table()
    assert t.column("lc").num_chunks == 2
    for name in ("lc", "e"):
        for chunk in t.column(name).chunks:
            assert len(set(chunk.dictionary.to_pylist())) == len(chunk.dictionary)
    df = t.to_pandas()
    assert df["lc"].tolist() == [str(i % 2) for i in range(10)] and list(df["e"].cat.categories) == ["a", "b"]
    assert pl.read_database(sql, any_conn)["e"].to_list() == ["ab"[i % 2] for i in range(10)]


def test_a_large_result_streams_in_bounded_memory(conn):
    """20M rows of about 60 bytes (1.2 GB in all) read batch by batch: the process's peak
    RSS grows by far less than the result."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rows = 0
    with conn.cursor() as cur:
        cur.execute("SELECT number, concat(toString(number), '{}') AS s FROM system.numbers LIMIT 20000000".format("x" * 50))
        for b in cur.fetch_record_batch():
            rows += b.num_rows
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert rows == 20000000
    assert grown_mib < 200, f"peak RSS grew by {grown_mib:.0f} MiB"


def test_fetchall_and_description(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT toInt32(-5) AS a, 'x' AS s, CAST(NULL AS Nullable(Float64)) AS f")
        assert cur.fetchall() == [(-5, "x", None)]
        assert [d[0] for d in cur.description] == ["a", "s", "f"]


def test_parameters_by_name_and_by_position(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT {a:UInt32} + 1 AS x, {s:String} AS s", {"s": "it's", "a": 41})
        assert cur.fetchall() == [(42, "it's")]
        # By position: the i-th value is the i-th placeholder of the SQL.
        cur.execute("SELECT {a:UInt32} + 1 AS x, {s:String} AS s", (1, "b\\c"))
        assert cur.fetchall() == [(2, "b\\c")]
        cur.execute("SELECT {v:Array(String)} AS v, {d:Date} AS d", {"v": ["x", "y'"], "d": datetime.date(2024, 2, 29)})
        rows = cur.fetchall()
        assert rows[0][0] == ["x", "y'"] and str(rows[0][1]) == "2024-02-29"
        with pytest.raises(dbapi.ProgrammingError, match="2 placeholders"):
            cur.execute("SELECT {a:UInt32}, {b:UInt32}", (1,))
        with pytest.raises(dbapi.ProgrammingError, match="no parameters are bound"):
            cur.execute("SELECT {a:UInt32}")


def test_parameters_arrive_exactly(any_conn):
    """Values reach the server as they were bound: on servers without server-side parameters
    (18.16) a decimal went as a bare number, which ClickHouse parses as a Float64
    (-12.3456 became -12.3455), and bytes that are not UTF-8 were replaced by U+FFFD."""
    conn = any_conn
    import decimal

    with conn.cursor() as cur:
        d = decimal.Decimal("-12.3456")
        big = decimal.Decimal("100000000000000000000.0000000001")
        cur.execute(
            "SELECT {d:Decimal(18, 4)} AS d, {big:Decimal(38, 10)} AS big, {ds:Array(Decimal(18, 4))} AS ds, "
            "hex({b:String}) AS b, {f:Float64} AS f, {n:Array(Nullable(Decimal(18, 4)))} AS n, "
            "{t:Tuple(Decimal(18, 4), String)} AS t",
            {"d": d, "big": big, "ds": [d, decimal.Decimal("0.0001")], "b": b"a\xff\x00'\\", "f": 5e-324, "n": [d, None],
             "t": {"1": d, "2": "x"}},
        )
        # Inside composites too: 18.16 could not cast ['-12.3456', NULL] to Array(Nullable(Decimal)).
        assert cur.fetchall() == [(d, big, [d, decimal.Decimal("0.0001")], "61FF00275C", 5e-324, [d, None], {"1": d, "2": "x"})]


def test_zoned_datetimes_and_int64_arrays_mean_the_same_on_both_servers(any_conn):
    """18.16 gets literals: its CAST read a zoned DateTime's text in the server's zone (another
    instant), and found no common type for [1099511627776, -1] (UInt64, Int8)."""
    import datetime as dt

    noon = dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone.utc)
    with any_conn.cursor() as cur:
        cur.execute(
            "SELECT toUnixTimestamp({t:DateTime('Asia/Kolkata')}), toString({a:Array(Int64)}), toString({f:Array(Float64)})",
            {"t": noon, "a": [2**40, -(2**40)], "f": [-1.0, 2.0**53]},
        )
        assert cur.fetchall() == [(1704110400, "[1099511627776,-1099511627776]", "[-1,9007199254740992]")]


def test_a_value_that_does_not_fit_its_placeholder_is_refused(conn):
    with conn.cursor() as cur, pytest.raises(dbapi.DataError):
        cur.execute("SELECT {a:UInt8}", {"a": 300})


def test_a_python_float_binds_to_a_float32_placeholder(conn):
    """A Python float is a double: for a Float32 placeholder it is the nearest Float32, as the
    server reads the parameter's text (chwire's own client binds it so); the server's
    toFloat32 is the oracle. A double beyond Float32's range is refused, not made infinite."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT {x:Float32} AS x, toTypeName(x), x = toFloat32(0.1), {v:Array(Float32)} = [toFloat32(0.1), toFloat32(2.5)], "
            "{n:Nullable(Float32)} IS NULL",
            {"x": 0.1, "v": [0.1, 2.5], "n": None},
        )
        x, type_name, same, same_items, null = cur.fetchone()
        assert (type_name, same, same_items, null) == ("Float32", 1, 1, 1)
        assert x == float(pa.scalar(0.1, pa.float32()).as_py())
        with pytest.raises(dbapi.DataError, match="beyond Float32's range"):
            cur.execute("SELECT {x:Float32}", {"x": 1e39})


def test_uuid_parameters_as_text(conn):
    u = "61f0c404-5cb3-11e7-907b-a6006ad3dba0"
    with conn.cursor() as cur:
        cur.execute("SELECT {u:UUID} = toUUID(%r), toString({u2:UUID})" % u, {"u": u, "u2": u.replace("-", "").upper()})
        assert cur.fetchone() == (1, u)


def test_ip_parameters_as_text(conn, ch):
    if ch.command("SELECT count() FROM system.data_type_families WHERE name = 'IPv4'") == 0:
        pytest.skip("the server has no IPv4/IPv6 types (18.16): chwire-arrow's unit tests check the conversion")
    with conn.cursor() as cur:
        cur.execute(
            "SELECT toString({a:IPv4}), toString({b:IPv6}), toString({c:IPv6})",
            {"a": "192.168.0.1", "b": "2001:db8::1", "c": "::ffff:1.2.3.4"},
        )
        assert cur.fetchone() == ("192.168.0.1", "2001:db8::1", "::ffff:1.2.3.4")


def test_text_that_is_no_uuid_or_address_is_refused_before_it_is_sent(conn):
    with conn.cursor() as cur:
        for sql, value in [("SELECT {u:UUID}", "not-a-uuid"), ("SELECT {a:IPv4}", "1.2.3"), ("SELECT {b:IPv6}", "1.2.3.4.5")]:
            with pytest.raises(dbapi.DataError, match="is not the text of a"):
                cur.execute(sql, {sql[8]: value})


def test_parameter_schema_and_execute_schema(conn):
    with conn.cursor() as cur:
        cur.adbc_prepare("SELECT {a:UInt8} AS a, {b:Array(String)} AS b")
        schema = pa.schema(cur.adbc_statement.get_parameter_schema())
        assert schema.names == ["a", "b"]
        assert schema.field("a").type == pa.uint8()
        assert schema.field("b").type == pa.large_list(pa.field("item", pa.large_string(), nullable=False))
        # The header block arrives before the (endless) query runs: no waiting for it.
        t0 = time.monotonic()
        s = cur.adbc_execute_schema("SELECT number, toDate(number) AS d FROM system.numbers")
        assert time.monotonic() - t0 < 5
        assert s.names == ["number", "d"] and s.field("d").type == pa.date32()
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)


def test_execute_update_counts_the_rows_inserted(any_conn, any_ch, any_name):
    conn, ch, name = any_conn, any_ch, any_name
    ch.command(f"CREATE TABLE {name} (a UInt64) ENGINE = Memory")
    with conn.cursor() as cur:
        stmt = cur.adbc_statement
        stmt.set_sql_query(f"INSERT INTO {name} SELECT number FROM system.numbers LIMIT 1234")
        # Servers from revision 54420 report the rows written; older ones (18.16) do not: -1.
        expected = 1234 if ch.server_info["revision"] >= 54420 else -1
        assert stmt.execute_update() == expected
        stmt.set_sql_query(f"CREATE TABLE {name}_2 (a UInt8) ENGINE = Memory")
        assert stmt.execute_update() == -1  # DDL: no count
        stmt.set_sql_query(f"DROP TABLE {name}_2")
        stmt.execute_update()
    assert ch.command(f"SELECT count() FROM {name}") == 1234


def test_executemany_inserts_the_rows_as_one_block(conn, ch, name):
    ch.command(f"CREATE TABLE {name} (a Int64, s String) ENGINE = Memory")
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {name} VALUES", [(1, "x"), (2, "y"), (3, "z")])
        assert cur.rowcount == 3
    assert ch.query(f"SELECT a, s FROM {name} ORDER BY a").result_rows == [(1, "x"), (2, "y"), (3, "z")]


def test_bound_data_for_an_insert_select_is_refused_before_it_runs(conn, ch, name):
    """An INSERT ... SELECT takes no rows: bound data with it was taken as the INSERT's rows,
    the server ran the SELECT anyway and the call failed with INTERNAL ("unexpected
    ProfileInfo packet") after writing. Now the data does not fit the query: refused, nothing
    written."""
    ch.command(f"CREATE TABLE {name} (a Int64) ENGINE = Memory")
    with conn.cursor() as cur:
        with pytest.raises(dbapi.ProgrammingError) as e:
            cur.executemany(f"INSERT INTO {name} SELECT 5", [(1,)])
        assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.INVALID_ARGUMENT
        cur.executemany(f"INSERT INTO {name} SELECT {{a:Int64}}", [(7,), (8,)])
    assert ch.query(f"SELECT a FROM {name} ORDER BY a").result_rows == [(7,), (8,)]


# --- errors ------------------------------------------------------------------------------


def test_server_errors_carry_the_clickhouse_code(conn):
    with conn.cursor() as cur:
        with pytest.raises(dbapi.ProgrammingError) as e:
            cur.execute("SELECT * FROM adbc_no_such_table")
        assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.NOT_FOUND
        assert "Code: 60" in str(e.value)
        assert dict(e.value.details) == {b"clickhouse.code": b"60", b"clickhouse.name": b"UNKNOWN_TABLE"}
        assert e.value.sqlstate == "42S02"
        with pytest.raises(dbapi.ProgrammingError) as e:
            cur.execute("SELEC 1")
        assert dict(e.value.details)[b"clickhouse.code"] == b"62"
        cur.execute("SELECT 1")  # the connection is still usable
        assert cur.fetchone() == (1,)


def test_an_error_while_a_stream_is_read_carries_the_code(conn):
    with conn.cursor() as cur:
        cur.execute(LATE_ERROR)
        with pytest.raises(Exception, match="Code: 395"):
            cur.fetch_arrow_table()
        cur.execute("SELECT 2")
        assert cur.fetchone() == (2,)


def test_arrow_output_settings_shape_results_and_are_not_sent(conn):
    """String values that are not UTF-8 fail the default mapping, whose error says to set
    output_format_arrow_string_as_string = 0: the driver takes that setting (statement option,
    URL, database option) for itself instead of sending it to a server that may not know it."""
    q = "SELECT unhex('FF00') AS b"
    with conn.cursor() as cur:
        cur.execute(q)
        with pytest.raises(Exception, match="output_format_arrow_string_as_string"):
            cur.fetch_arrow_table()
        cur.adbc_statement.set_options(**{"chwire.setting.output_format_arrow_string_as_string": "0"})
        cur.execute(q)
        assert cur.fetch_arrow_table().column(0).to_pylist() == [b"\xff\x00"]
        with pytest.raises(dbapi.ProgrammingError, match="expected 0/1/true/false"):
            cur.adbc_statement.set_options(**{"chwire.setting.output_format_arrow_string_as_string": "maybe"})
    for c in (chwire.adbc.connect(URL + "?output_format_arrow_string_as_string=0"), chwire.adbc.connect(URL, output_format_arrow_string_as_string=0)):
        with c, c.cursor() as cur:
            cur.execute(q)
            assert cur.fetch_arrow_table().column(0).type == pa.large_binary()


def test_a_second_execute_on_a_busy_connection_is_a_clear_error(conn):
    c1, c2 = conn.cursor(), conn.cursor()
    c1.execute("SELECT number FROM system.numbers LIMIT 10000000")
    reader = c1.fetch_record_batch()
    next(iter(reader))
    with pytest.raises(dbapi.ProgrammingError, match="busy") as e:
        c2.execute("SELECT 2")
    assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.INVALID_STATE
    c1.close()  # releases the statement and its stream
    with pytest.raises(Exception):
        next(iter(reader))
    c2.execute("SELECT 3")
    assert c2.fetchone() == (3,)
    c2.close()


def test_a_read_result_frees_the_connection_for_another_cursor(conn):
    """A cursor that fetched the one row of its result has its data; its task may still be
    taking the server's end of stream. Another cursor's query then waits for that instead of
    failing with "busy" (it did about one time in five)."""
    c1, c2 = conn.cursor(), conn.cursor()
    for i in range(200):
        c1.execute(f"SELECT {i}")
        assert c1.fetchone() == (i,)
        c2.execute("SELECT 2")
        assert c2.fetchall() == [(2,)]
    c1.close()
    c2.close()


def test_executing_a_statement_again_ends_its_previous_result(conn):
    with conn.cursor() as cur:
        stmt = cur.adbc_statement
        stmt.set_sql_query("SELECT number FROM system.numbers LIMIT 10000000")
        handle, _ = stmt.execute_query()
        first = pa.RecordBatchReader._import_from_c(handle.address)
        first.read_next_batch()
        stmt.set_sql_query("SELECT 7 AS x")
        handle2, _ = stmt.execute_query()
        second = pa.RecordBatchReader._import_from_c(handle2.address)
        assert second.read_all().column(0).to_pylist() == [7]
        with pytest.raises(Exception, match="executed again"):
            first.read_all()


# --- cancel ------------------------------------------------------------------------------


def test_cancel_from_another_thread_stops_the_query_on_the_server(conn, ch):
    qid_marker = "adbc_cancel_" + uuid.uuid4().hex[:8]
    sql = f"SELECT count() FROM system.numbers WHERE number >= 0 AND '{qid_marker}' != ''"
    with conn.cursor() as cur:
        t = threading.Timer(0.5, cur.adbc_cancel)
        t.start()
        t0 = time.monotonic()
        with pytest.raises(Exception, match="[Cc]ancel"):
            cur.execute(sql)
            cur.fetchall()
        assert time.monotonic() - t0 < 5
        # The connection goes on; the server no longer runs the query.
        cur.execute("SELECT 5")
        assert cur.fetchone() == (5,)
    deadline = time.monotonic() + 10
    while ch.command(f"SELECT count() FROM system.processes WHERE query LIKE '%{qid_marker}%' AND query NOT LIKE '%system.processes%'"):
        assert time.monotonic() < deadline, "the cancelled query still runs on the server"
        time.sleep(0.1)


# --- options and metadata ----------------------------------------------------------------


def test_get_info(any_conn, any_ch):
    """The vendor version is the server's own name for it: 26.9.2.1, where the handshake
    carries three numbers (26.9.2)."""
    info = any_conn.adbc_get_info()
    assert info["vendor_name"] == "ClickHouse"
    assert info["vendor_version"] == any_ch.command("SELECT version()")
    assert info["vendor_version"].startswith(any_ch.server_info["version"])
    assert info["driver_version"] == chwire.__version__
    assert info["driver_arrow_version"] == "59"
    assert info["driver_adbc_version"] == 1_001_000


def test_current_catalog_and_db_schema(conn, ch, database):
    assert conn.adbc_current_catalog == "clickhouse"
    assert conn.adbc_current_db_schema == "default"
    ch.command(f"CREATE TABLE {database}.t (a UInt8) ENGINE = Memory")
    ch.command(f"INSERT INTO {database}.t SELECT 9")
    conn.adbc_current_db_schema = database
    assert conn.adbc_current_db_schema == database
    with conn.cursor() as cur:
        cur.execute("SELECT a FROM t")
        assert cur.fetchall() == [(9,)]
    with pytest.raises(dbapi.ProgrammingError) as e:
        conn.adbc_current_db_schema = "adbc_no_such_database"
    assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.NOT_FOUND
    with pytest.raises(dbapi.ProgrammingError):
        conn.adbc_current_catalog = "other"
    conn.adbc_current_catalog = "clickhouse"


def test_no_transactions(conn):
    # The DB-API's commit/rollback do nothing: the manager knows autocommit cannot be off.
    conn.commit()
    conn.rollback()
    with pytest.raises(dbapi.NotSupportedError):
        conn.adbc_connection.set_autocommit(False)
    for op in (conn.adbc_connection.commit, conn.adbc_connection.rollback):
        with pytest.raises(dbapi.ProgrammingError) as e:
            op()
        assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.INVALID_STATE


def test_unknown_options_are_not_implemented():
    with pytest.raises(dbapi.NotSupportedError, match="unknown database option"):
        dbapi.connect(driver=chwire.adbc.driver_path(), uri=URL, db_kwargs={"adbc.no.such": "1"}, autocommit=True)
    with chwire.adbc.connect(URL) as c, c.cursor() as cur:
        with pytest.raises(dbapi.NotSupportedError):
            cur.adbc_statement.set_options(**{"adbc.no.such": "1"})


def test_chwire_url_options_as_keywords():
    with chwire.adbc.connect(URL, compression="zstd", connect_timeout="5s") as c, c.cursor() as cur:
        cur.execute("SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 100000)")
        assert cur.fetchone() == (4999950000,)
    with pytest.raises(dbapi.ProgrammingError):
        chwire.adbc.connect(URL, compression="bogus")
    with pytest.raises(dbapi.Error):
        chwire.adbc.connect(URL, username="chwire_test", password="wrong")
    host = URL.split("@", 1)[1]
    with chwire.adbc.connect(f"tcp://{host}", username="chwire_test", password="s3cret") as c, c.cursor() as cur:
        cur.execute("SELECT user FROM system.processes WHERE query LIKE '%adbc_whoami%'")
        assert cur.fetchone() == ("chwire_test",)


@pytest.fixture
def meta(ch, database):
    ch.command(f"CREATE TABLE {database}.events (id UInt64, name Nullable(String) COMMENT 'who', at DateTime) ENGINE = Memory")
    ch.command(f"CREATE TABLE {database}.other_t (x Int8) ENGINE = Memory")
    ch.command(f"CREATE VIEW {database}.v AS SELECT id FROM {database}.events")
    return database


def _objects(conn, **kw):
    return conn.adbc_get_objects(**kw).read_all().to_pylist()


def test_get_objects_at_every_depth(conn, meta):
    cats = _objects(conn, depth="catalogs")
    assert cats == [{"catalog_name": "clickhouse", "catalog_db_schemas": None}]
    schemas = _objects(conn, depth="db_schemas", db_schema_filter="adbc_db_%")
    names = [s["db_schema_name"] for s in schemas[0]["catalog_db_schemas"]]
    assert meta in names and all(n.startswith("adbc_db_") for n in names)
    assert all(s["db_schema_tables"] is None for s in schemas[0]["catalog_db_schemas"])

    tables = _objects(conn, depth="tables", db_schema_filter=meta)[0]["catalog_db_schemas"]
    assert [(t["table_name"], t["table_type"], t["table_columns"]) for t in tables[0]["db_schema_tables"]] == [
        ("events", "TABLE", None),
        ("other_t", "TABLE", None),
        ("v", "VIEW", None),
    ]
    cols = _objects(conn, depth="all", db_schema_filter=meta, table_name_filter="ev%")[0]["catalog_db_schemas"][0]["db_schema_tables"]
    assert [t["table_name"] for t in cols] == ["events"]
    c = cols[0]["table_columns"]
    assert [(x["column_name"], x["ordinal_position"], x["xdbc_type_name"], x["xdbc_is_nullable"]) for x in c] == [
        ("id", 1, "UInt64", "NO"),
        ("name", 2, "Nullable(String)", "YES"),
        ("at", 3, "DateTime", "NO"),
    ]
    assert c[1]["remarks"] == "who"
    # Filters: a column name pattern keeps the ordinal of the column in its table.
    only = _objects(conn, depth="columns", db_schema_filter=meta, table_name_filter="events", column_name_filter="a_")
    assert [(x["column_name"], x["ordinal_position"]) for x in only[0]["catalog_db_schemas"][0]["db_schema_tables"][0]["table_columns"]] == [
        ("at", 3)
    ]
    views = _objects(conn, depth="tables", db_schema_filter=meta, table_types_filter=["VIEW"])
    assert [t["table_name"] for t in views[0]["catalog_db_schemas"][0]["db_schema_tables"]] == ["v"]
    assert _objects(conn, depth="tables", catalog_filter="nope") == []


def test_get_objects_lists_the_sessions_temporary_tables(any_conn, any_url):
    """ClickHouse's temporary tables belong to the session and to no database (system.tables
    says database ''): they are the db schema "" of type LOCAL TEMPORARY, only on their own
    connection, with their columns (which 18.16's system.columns leaves out)."""
    conn = any_conn
    t = "adbc_tmp_" + uuid.uuid4().hex[:8]
    with conn.cursor() as cur:
        cur.execute(f"CREATE TEMPORARY TABLE {t} (id UInt64, name Nullable(String) COMMENT 'who', n UInt8 DEFAULT 7)")
    schemas = [s["db_schema_name"] for s in _objects(conn, depth="db_schemas")[0]["catalog_db_schemas"]]
    assert schemas[0] == "" and "default" in schemas
    assert "" not in [s["db_schema_name"] for s in _objects(conn, depth="db_schemas", db_schema_filter="def%")[0]["catalog_db_schemas"]]

    tables = _objects(conn, depth="tables", db_schema_filter="")[0]["catalog_db_schemas"]
    assert [s["db_schema_name"] for s in tables] == [""]
    assert [(x["table_name"], x["table_type"]) for x in tables[0]["db_schema_tables"]] == [(t, "LOCAL TEMPORARY")]
    # The type filter finds it whatever the schema filter; TABLE does not take it.
    temps = _objects(conn, depth="tables", table_types_filter=["LOCAL TEMPORARY"])[0]["catalog_db_schemas"]
    assert {(s["db_schema_name"], x["table_name"]) for s in temps for x in s["db_schema_tables"]} == {("", t)}
    plain = _objects(conn, depth="tables", db_schema_filter="", table_types_filter=["TABLE"])[0]["catalog_db_schemas"]
    assert plain[0]["db_schema_tables"] == []

    cols = _objects(conn, depth="all", db_schema_filter="", table_name_filter=t)[0]["catalog_db_schemas"][0]["db_schema_tables"][0]["table_columns"]
    assert [(c["column_name"], c["ordinal_position"], c["xdbc_type_name"], c["xdbc_is_nullable"], c["remarks"], c["xdbc_column_def"]) for c in cols] == [
        ("id", 1, "UInt64", "NO", None, None),
        ("name", 2, "Nullable(String)", "YES", "who", None),
        ("n", 3, "UInt8", "NO", None, "7"),
    ]
    only = _objects(conn, depth="columns", db_schema_filter="", column_name_filter="n")[0]["catalog_db_schemas"][0]["db_schema_tables"]
    assert [(c["column_name"], c["ordinal_position"]) for c in only[0]["table_columns"]] == [("n", 3)]
    s = conn.adbc_get_table_schema(t, db_schema_filter="")
    assert s.names == ["id", "name", "n"]

    # Another session has none of them.
    with chwire.adbc.connect(any_url) as other:
        assert "" not in [s["db_schema_name"] for s in _objects(other, depth="db_schemas")[0]["catalog_db_schemas"]]


def test_get_table_schema_and_types(conn, meta):
    s = conn.adbc_get_table_schema("events", db_schema_filter=meta)
    assert s.names == ["id", "name", "at"]
    assert s.field("id").type == pa.uint64() and not s.field("id").nullable
    assert s.field("name").type == pa.large_string() and s.field("name").nullable
    assert pa.types.is_timestamp(s.field("at").type)
    assert s.field("name").metadata[b"clickhouse.type"] == b"Nullable(String)"
    with pytest.raises(dbapi.ProgrammingError) as e:
        conn.adbc_get_table_schema("adbc_no_such_table", db_schema_filter=meta)
    assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.NOT_FOUND
    assert "TABLE" in conn.adbc_get_table_types() and "VIEW" in conn.adbc_get_table_types()


def test_client_revision_in_the_uri_is_announced():
    """The URI's ``client_revision`` reaches the handshake: the server records it."""
    if URL.startswith(("http://", "https://")):
        pytest.skip("an HTTP query has no protocol revision")
    sep = "&" if "?" in URL else "?"
    with chwire.adbc.connect(f"{URL}{sep}client_revision=54473") as c, c.cursor() as cur:
        cur.execute("SELECT toUInt64(client_revision) FROM system.processes WHERE query LIKE '%chwire-adbc-revision%'")
        assert cur.fetchall() == [(54473,)]
