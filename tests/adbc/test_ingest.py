"""chwire's ADBC driver: bulk ingest (every mode, the server's types, refusals) and Polars'
read_database/write_database, through Python's ADBC driver manager against the live server."""

import datetime

import pyarrow as pa
import pytest

import chwire
import chwire.adbc

adbc_driver_manager = pytest.importorskip("adbc_driver_manager")
from adbc_driver_manager import dbapi  # noqa: E402

from adbc_suite import LATE_ERROR, URL  # noqa: E402

pytestmark = pytest.mark.skipif(not URL.startswith("tcp"), reason="the ADBC suite runs over the native protocol")


# --- bulk ingest -------------------------------------------------------------------------


DATA = pa.table(
    {
        "id": pa.array([1, 2, 3], pa.int64()),
        "name": pa.array(["a", None, "c"], pa.string()),
        "score": pa.array([1.5, 2.5, None], pa.float64()),
        "tags": pa.array([["x"], [], ["y", "z"]], pa.list_(pa.string())),
    },
    # A field that is not nullable makes a column that is not Nullable (an ORDER BY key).
    schema=pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("name", pa.string()),
            pa.field("score", pa.float64()),
            pa.field("tags", pa.list_(pa.string())),
        ]
    ),
)


def _rows(ch, table):
    return ch.query(f"SELECT id, name, score, tags FROM {table} ORDER BY id").result_rows


def test_ingest_create_append_replace_create_append(conn, ch, name):
    with conn.cursor() as cur:
        assert cur.adbc_ingest(name, DATA, mode="create") == 3
        types = dict(ch.query(f"DESCRIBE TABLE {name}").result_rows[i][:2] for i in range(4))
        assert types == {"id": "Int64", "name": "Nullable(String)", "score": "Nullable(Float64)", "tags": "Array(Nullable(String))"}
        assert ch.command(f"SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = '{name}'").startswith(
            "MergeTree ORDER BY tuple()"
        )
        with pytest.raises(dbapi.ProgrammingError) as e:
            cur.adbc_ingest(name, DATA, mode="create")
        assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.ALREADY_EXISTS
        assert cur.adbc_ingest(name, DATA, mode="append") == 3
        assert len(_rows(ch, name)) == 6
        assert cur.adbc_ingest(name, DATA.slice(0, 2), mode="replace") == 2
        assert _rows(ch, name) == [(1, "a", 1.5, ["x"]), (2, None, 2.5, [])]
        assert cur.adbc_ingest(name, DATA.slice(2), mode="create_append") == 1
        assert len(_rows(ch, name)) == 3
        with pytest.raises(dbapi.ProgrammingError) as e:
            cur.adbc_ingest(name + "_missing", DATA, mode="append")
        assert e.value.status_code == adbc_driver_manager.AdbcStatusCode.NOT_FOUND


def test_ingest_creates_only_types_the_server_has(any_conn, any_ch, any_name):
    """Bool, Date32 and DateTime64 are newer than 18.16: ingest spells them in the server's
    types (the rule the Spark catalog shares), and a value the older type cannot hold is
    refused by the insert, not changed. A type with no older equivalent is refused before
    anything is created."""
    conn, ch, name = any_conn, any_ch, any_name
    families = {r[0] for r in ch.query("SELECT name FROM system.data_type_families").result_rows}
    data = pa.table(
        {
            "b": pa.array([True, False, None]),
            "d": pa.array([datetime.date(1970, 1, 2), datetime.date(2024, 2, 29), None], pa.date32()),
            "t": pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5), None, datetime.datetime(1999, 12, 31, 23, 59, 59)], pa.timestamp("us", "UTC")),
        }
    )
    with conn.cursor() as cur:
        assert cur.adbc_ingest(name, data, mode="create") == 3
        types = dict((r[0], r[1]) for r in ch.query(f"DESCRIBE TABLE {name}").result_rows)
        want = {
            "b": "Nullable(Bool)" if "Bool" in families else "Nullable(UInt8)",
            "d": "Nullable(Date32)" if "Date32" in families else "Nullable(Date)",
            "t": "Nullable(DateTime64(6, 'UTC'))" if "DateTime64" in families else "Nullable(DateTime('UTC'))",
        }
        assert types == want
        rows = ch.query(f"SELECT toUInt8(b), toString(d), toString(t) FROM {name} ORDER BY d").result_rows
        frac = ".000000" if "DateTime64" in families else ""
        assert sorted(rows, key=str) == sorted(
            [(1, "1970-01-02", f"2024-01-02 03:04:05{frac}"), (0, "2024-02-29", None), (None, None, f"1999-12-31 23:59:59{frac}")], key=str
        )
        if "DateTime64" not in families:
            # A fraction DateTime cannot hold, a date before Date's range: refused, nothing sent.
            frac_t = pa.table({"t": pa.array([datetime.datetime(2024, 1, 1, 0, 0, 0, 500000)], pa.timestamp("us", "UTC"))})
            with pytest.raises(dbapi.Error, match="(?i)fraction|lossless|cannot|precision"):
                cur.adbc_ingest(name, frac_t, mode="append")
            old_d = pa.table({"d": pa.array([datetime.date(1960, 1, 1)], pa.date32())})
            with pytest.raises(dbapi.Error, match="(?i)range|cannot|outside|lossless"):
                cur.adbc_ingest(name, old_d, mode="append")
            assert ch.command(f"SELECT count() FROM {name}") == 3
        if "Map" not in families:
            m = pa.table({"m": pa.array([[("a", 1)]], pa.map_(pa.string(), pa.int64()))})
            with pytest.raises(dbapi.Error, match="no type Map"):
                cur.adbc_ingest(name + "_m", m, mode="create")
            assert ch.command(f"EXISTS TABLE {name}_m") == 0


def test_a_refused_ingest_keeps_the_session_and_the_tables_as_they_were(any_conn, any_ch, any_name):
    """A value the table cannot hold is refused before anything is sent: the INSERT ends with no
    rows and the connection stays (its temporary tables too); create and replace check the
    first batch before any table is created or dropped, and a failed create leaves no table."""
    conn, ch, name = any_conn, any_ch, any_name
    with conn.cursor() as cur:
        assert cur.adbc_ingest("adbc_keep", DATA.select(["id"]), mode="create", temporary=True) == 3
        small = pa.table({"id": pa.array([1], pa.int64()), "v": pa.array([300], pa.int64())})
        cur.execute(f"CREATE TABLE {name} (id Int64, v UInt8) ENGINE = Memory")
        with pytest.raises(dbapi.DataError, match="nothing was inserted"):
            cur.adbc_ingest(name, small, mode="append")
        with pytest.raises(dbapi.Error):
            cur.executemany(f"INSERT INTO {name} VALUES", small)
        cur.execute("SELECT count() FROM adbc_keep")
        assert cur.fetchone() == (3,)
        before = pa.table({"d": pa.array([datetime.date(2000, 1, 1)], pa.date32())})
        old = pa.table({"d": pa.array([datetime.date(1960, 1, 1)], pa.date32())})
        families = {r[0] for r in ch.query("SELECT name FROM system.data_type_families").result_rows}
        if "Date32" not in families:
            with pytest.raises(dbapi.DataError, match="nothing was created"):
                cur.adbc_ingest(name + "_new", old, mode="create")
            assert ch.command(f"EXISTS TABLE {name}_new") == 0
            assert cur.adbc_ingest(name + "_r", before, mode="create") == 1
            with pytest.raises(dbapi.DataError, match="nothing was created"):
                cur.adbc_ingest(name + "_r", old, mode="replace")
            assert ch.command(f"SELECT toString(d) FROM {name}_r") == "2000-01-01"
            ch.command(f"DROP TABLE {name}_r")
        cur.execute("SELECT count() FROM adbc_keep")
        assert cur.fetchone() == (3,)


def test_columns_no_table_can_have_are_refused_before_anything_is_created(conn, ch, name):
    """Arrow's null type (Nothing) and durations (Interval) have no table column type: refused
    naming the column, before the CREATE, not a server error after it."""
    for arr, what in [(pa.nulls(2), "Nothing"), (pa.array([1, 2], pa.duration("s")), "interval")]:
        data = pa.table({"id": pa.array([1, 2], pa.int64()), "x": arr})
        with conn.cursor() as cur:
            with pytest.raises(dbapi.ProgrammingError, match=f'column "x".*{what}'):
                cur.adbc_ingest(name, data, mode="create")
        assert ch.command(f"EXISTS TABLE {name}") == 0


def test_nulls_of_pandas_and_polars_hide_no_value(any_conn, any_ch, any_name):
    """pandas leaves i64::MIN under NaT: a NULL's slot is no value, whatever the target type's
    range (DateTime on 18.16), through pandas and Polars."""
    conn, ch, name = any_conn, any_ch, any_name
    import pandas as pd
    import polars as pl

    df = pd.DataFrame({"t": pd.to_datetime(["2024-01-02 03:04:05", None]).tz_localize("UTC"), "d": [datetime.date(2024, 1, 1), None]})
    table = pa.Table.from_pandas(df, preserve_index=False)
    assert table.column("t").null_count == 1
    with conn.cursor() as cur:
        assert cur.adbc_ingest(name, table, mode="create") == 2
        assert cur.adbc_ingest(name, pl.from_pandas(df).to_arrow(), mode="append") == 2
    got = ch.query(f"SELECT toString(t), toString(d) FROM {name} ORDER BY t NULLS LAST").result_rows
    assert [r[0] for r in got] == [got[0][0]] * 2 + [None, None] and got[0][0].startswith("2024-01-02 03:04:05")


def test_ingest_into_a_db_schema_with_engine_options(conn, ch, database):
    with conn.cursor() as cur:
        cur.adbc_statement.set_options(**{"chwire.ingest.engine": "ReplacingMergeTree", "chwire.ingest.order_by": "id"})
        assert cur.adbc_ingest("t", DATA.select(["id", "name"]), mode="create", db_schema_name=database) == 3
    assert ch.command(f"SELECT engine_full FROM system.tables WHERE database = '{database}' AND name = 't'").startswith(
        "ReplacingMergeTree ORDER BY id"
    )
    assert ch.command(f"SELECT count() FROM {database}.t") == 3


def test_ingest_a_temporary_table(conn):
    with conn.cursor() as cur:
        assert cur.adbc_ingest("adbc_tmp", DATA.select(["id"]), mode="create", temporary=True) == 3
        cur.execute("SELECT sum(id) FROM adbc_tmp")
        assert cur.fetchone() == (6,)
        with pytest.raises(dbapi.ProgrammingError):
            cur.adbc_ingest("adbc_tmp2", DATA, mode="create", temporary=True, db_schema_name="default")


def test_ingest_a_stream_of_batches_and_a_bad_one(conn, ch, name):
    def batches():  # a Python generator: pyarrow takes the GIL to read it, from the driver's thread
        for i in range(5):
            yield pa.record_batch({"a": pa.array(range(i * 1000, (i + 1) * 1000), pa.int32())})

    with conn.cursor() as cur:
        reader = pa.RecordBatchReader.from_batches(pa.schema([("a", pa.int32())]), batches())
        assert cur.adbc_ingest(name, reader, mode="create") == 5000
        assert ch.command(f"SELECT sum(a) FROM {name}") == sum(range(5000))
        bad = pa.table({"a": pa.array(["x"])})
        with pytest.raises(dbapi.Error, match="a"):
            cur.adbc_ingest(name, bad, mode="append")


def test_ingest_from_another_connections_result_stream(conn, ch, name):
    """Copying a result into a table: the bound data is another connection's stream of this
    driver, whose reads wait on the driver's runtime themselves (read on a runtime thread they
    failed: "call it outside an async runtime"). An error in the source ends the ingest."""
    with chwire.adbc.connect(URL) as src, src.cursor() as s, conn.cursor() as cur:
        s.execute("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 300000")
        assert cur.adbc_ingest(name, s.fetch_record_batch(), mode="create") == 300000
        # The same through `INSERT INTO t VALUES` with the stream bound as its rows.
        s.execute("SELECT number + 300000 AS n, 'x' AS s FROM system.numbers LIMIT 1000")
        cur.adbc_statement.set_sql_query(f"INSERT INTO {name} VALUES")
        cur.adbc_statement.bind_stream(s.fetch_record_batch())
        assert cur.adbc_statement.execute_update() == 1000
        s.execute(LATE_ERROR)
        with pytest.raises(dbapi.Error, match="Code: 395"):
            cur.adbc_ingest(name + "_2", s.fetch_record_batch(), mode="create")
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    assert ch.command(f"SELECT count(), sum(n) FROM {name}") == [301000, sum(range(301000))]
    ch.command(f"DROP TABLE IF EXISTS {name}_2")


# --- Polars ------------------------------------------------------------------------------


def test_polars_read_database_and_write_database(conn, ch, name):
    pl = pytest.importorskip("polars")
    df = pl.read_database("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 1000", conn)
    assert df.shape == (1000, 2) and df["n"].sum() == 499500
    df2 = pl.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None], "c": [1.5, None, 2.5]})
    assert df2.write_database(name, conn, engine="adbc", if_table_exists="replace") == 3
    assert df2.write_database(name, conn, engine="adbc", if_table_exists="append") == 3
    with pytest.raises(Exception, match="already exists"):
        df2.write_database(name, conn, engine="adbc", if_table_exists="fail")
    back = pl.read_database(f"SELECT * FROM {name} ORDER BY a, b", conn)
    assert back.shape == (6, 3) and back["c"].null_count() == 2
    assert ch.command(f"SELECT count() FROM {name}") == 6
    params = pl.read_database("SELECT {a:Int32} AS a", conn, execute_options={"parameters": {"a": 7}})
    assert params["a"].to_list() == [7]


def test_a_create_refused_mid_stream_says_that_nothing_stays(any_conn, any_ch, any_name):
    """Data refused after rows went in ends the INSERT with them committed (the core's rule), but
    a create drops the table it made: the error says so rather than counting rows that are gone."""
    conn, ch, name = any_conn, any_ch, any_name
    schema = pa.schema([("n", pa.uint64())])

    def batches():  # a source that fails after its first batch
        yield pa.record_batch([pa.array([1, 2], pa.uint64())], schema=schema)
        raise ValueError("the source broke")

    with conn.cursor() as cur:
        cur.adbc_statement.set_options(**{"chwire.block_rows": "2"})
        with pytest.raises(dbapi.Error) as e:
            cur.adbc_ingest(name, pa.RecordBatchReader.from_batches(schema, batches()), mode="create")
    assert "the 2 rows before it were inserted" in str(e.value) and "dropped again" in str(e.value), str(e.value)
    assert ch.command(f"EXISTS TABLE {name}") == 0
