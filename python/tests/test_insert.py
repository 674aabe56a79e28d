"""Writes: insert_arrow from every kind of Arrow source, insert_df (pandas, Polars), insert of
Python rows; and every type 18.16 has, both ways (insert_arrow → query_arrow equality)."""

import datetime as dt
import decimal
import uuid

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import chwire


def make(client, table, cols="id UInt64, name String, value Float64, ts DateTime"):
    client.command(f"CREATE TABLE {table} ({cols}) ENGINE = Memory")


def data(n=1000):
    return pa.table({
        "id": pa.array(range(n), pa.uint64()),
        "name": pa.array([f"name-{i}" for i in range(n)]),
        "value": pa.array([i * 0.5 for i in range(n)]),
        "ts": pa.array([1600000000 + i for i in range(n)], pa.timestamp("s")),
    })


def check(client, table, n):
    assert client.command(f"SELECT count(), sum(id) FROM {table}") == [n, n * (n - 1) // 2]


def test_insert_arrow_sources(client, table):
    make(client, table)
    t = data()
    assert client.insert_arrow(table, t) == 1000
    assert client.insert_arrow(table, t.to_batches()[0]) == 1000
    assert client.insert_arrow(table, pa.RecordBatchReader.from_batches(t.schema, t.to_batches())) == 1000
    assert client.insert_arrow(table, pl.from_arrow(t)) == 1000
    assert client.command(f"SELECT count() FROM {table}") == 4000
    back = client.query_arrow(f"SELECT * FROM {table} ORDER BY id LIMIT 3")
    assert back.column("name").to_pylist() == ["name-0", "name-0", "name-0"]


def test_insert_df_pandas_and_polars(client, table):
    make(client, table)
    n = 5000
    df = pd.DataFrame({"id": range(n), "name": [f"n{i}" for i in range(n)], "value": [i / 4 for i in range(n)],
                       "ts": pd.to_datetime([1600000000 + i for i in range(n)], unit="s")})
    df["id"] = df["id"].astype("uint64")
    assert client.insert_df(table, df) == n
    check(client, table, n)
    client.command(f"TRUNCATE TABLE {table}")
    assert client.insert_df(table, pl.from_pandas(df)) == n
    check(client, table, n)
    got = client.query_df(f"SELECT * FROM {table} ORDER BY id")
    assert got["name"].tolist()[:2] == ["n0", "n1"]
    assert got["ts"].iloc[1] == pd.Timestamp(1600000001, unit="s", tz="UTC")


def test_insert_rows(client, table):
    make(client, table, "id UInt64, u UUID, d Date, t DateTime, dec Decimal(10, 3), a Array(String), "
                        "n Nullable(Int32), e Enum8('x' = 1, 'y' = 2), tu Tuple(UInt8, String), f FixedString(2)")
    rows = [
        (1, uuid.UUID(int=7), dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 3, 4, 5), decimal.Decimal("1.250"),
         ["a", "b"], None, "y", (1, "q"), b"ab"),
        (2, uuid.UUID(int=8), dt.date(1999, 12, 31), dt.datetime(2001, 2, 3), decimal.Decimal("-0.001"),
         [], 5, "x", (2, ""), b"cd"),
    ]
    assert client.insert(table, rows) == 2
    got = client.query(f"SELECT * FROM {table} ORDER BY id").result_rows
    for want, row in zip(rows, got):
        assert row[0] == want[0] and row[1] == want[1] and row[2] == want[2]
        assert row[3].replace(tzinfo=None) == want[3]
        assert row[4:] == want[4:]
    assert client.insert(table, [(3, uuid.UUID(int=9))], column_names=["id", "u"]) == 1
    assert client.command(f"SELECT toString(u) FROM {table} WHERE id = 3") == str(uuid.UUID(int=9))


def test_bad_insert_is_a_data_error_and_client_stays_usable(client, table):
    make(client, table, "id UInt8")
    with pytest.raises(chwire.DataError):
        client.insert_arrow(table, pa.table({"id": pa.array(["not a number"])}))
    with pytest.raises(chwire.DataError):
        client.insert(table, [(1, 2)])
    with pytest.raises(chwire.ServerError) as e:
        client.insert_arrow(table + "_missing", pa.table({"id": pa.array([1], pa.uint8())}))
    assert e.value.code == 60
    assert client.insert_arrow(table, pa.table({"id": pa.array([1, 2], pa.uint8())})) == 2
    assert client.command(f"SELECT sum(id) FROM {table}") == 3


def test_insert_rows_refuses_what_pyarrow_would_change(client, table):
    make(client, table, "i Int64, u UInt8, f Float32, a Array(String), t Tuple(UInt8, Nullable(String)), id UUID")
    good = (2, 3, 1.5, ["ab"], (1, "x"), uuid.UUID(int=1))
    for i, bad in [(0, 1.5), (0, decimal.Decimal("2.7")), (1, 300), (2, 1e40), (3, "abc"), (4, (1,)), (4, (1, "a", "extra")),
                   (5, "not-a-uuid")]:
        row = list(good)
        row[i] = bad
        with pytest.raises(chwire.DataError, match=r"column '\w+' \(.*\)(, row 0)?: "):
            client.insert(table, [tuple(good), tuple(row)][1:])
    # Integral floats, NumPy numbers and booleans are integers.
    assert client.insert(table, [(2.0, True, 1, ["ab"], {"1": 1, "2": None}, uuid.UUID(int=1))]) == 1
    assert client.query(f"SELECT i, u, t FROM {table}").result_rows == [(2, 1, (1, None))]


def test_insert_df_takes_a_polars_lazyframe(client, table):
    make(client, table, "id UInt64, name String")
    assert client.insert_df(table, pl.LazyFrame({"id": [1, 2], "name": ["a", "b"]}).with_columns(pl.col("id").cast(pl.UInt64))) == 2
    assert client.command(f"SELECT sum(id) FROM {table}") == 3


def test_insert_df_keeps_nan_as_a_float_value(client, table):
    make(client, table, "f Float64, g Float32, n Nullable(Float64)")
    df = pd.DataFrame({"f": [1.0, float("nan")], "g": pd.Series([float("nan"), 2.0], dtype="float32"), "n": [float("nan"), 3.0]})
    assert client.insert_df(table, df) == 2
    rows = client.query(f"SELECT isNaN(f), isNaN(g), n FROM {table} ORDER BY f").result_rows
    assert sorted(rows, key=str) == sorted([(0, 1, None), (1, 0, 3.0)], key=str)


def test_nullable_dictionaries_reach_pandas_and_numpy(any_client, old_server):
    """LowCardinality(Nullable(String)) and a Nullable Enum holding 18.16's placeholder (0, no
    item) under its NULLs: the dictionaries have no null entry, NULL stays NULL everywhere."""
    client, table = any_client, "py_" + uuid.uuid4().hex[:12]
    # 18.16 has LowCardinality behind a setting that later servers no longer know.
    old = {"allow_experimental_low_cardinality_type": 1} if old_server(client) else None
    client.command(f"CREATE TABLE {table} (k UInt8, lc LowCardinality(Nullable(String)), e Nullable(Enum8('a' = 1))) "
                   "ENGINE = Memory", settings=old)
    try:
        _nullable_dictionaries(client, table, old)
    finally:
        client.command(f"DROP TABLE {table}")


def _nullable_dictionaries(client, table, settings):
    client.command(f"INSERT INTO {table} SELECT number, CAST(['a', NULL, '', 'b'][number + 1] AS LowCardinality(Nullable(String))), "
                   "CAST(if(number = 0, 'a', NULL) AS Nullable(Enum8('a' = 1))) FROM numbers(4)", settings=settings)
    sql = f"SELECT lc, e FROM {table} ORDER BY k"
    df = client.query_df(sql)
    assert [None if pd.isna(x) else x for x in df["lc"]] == ["a", None, "", "b"]
    assert [None if pd.isna(x) else x for x in df["e"]] == ["a", None, None, None]
    np_ = client.query_np(sql)
    assert list(np_["lc"]) == ["a", None, "", "b"] and list(np_["e"]) == ["a", None, None, None]
    assert client.query(sql).result_rows == [("a", "a"), (None, None), ("", None), ("b", None)]
    assert client.query_arrow(sql).column("lc").chunk(0).dictionary.null_count == 0


# Every type of ClickHouse 18.16, with values that reach its edges.
TYPES_1816 = [
    ("u8", "UInt8", "toUInt8(number * 37 % 256)"),
    ("u16", "UInt16", "toUInt16(number * 4099 % 65536)"),
    ("u32", "UInt32", "toUInt32(number * 1000000007 % 4294967296)"),
    ("u64", "UInt64", "number * 1844674407370955161"),
    ("i8", "Int8", "toInt8(number * 37 % 256 - 128)"),
    ("i16", "Int16", "toInt16(number * 4099 % 65536 - 32768)"),
    ("i32", "Int32", "toInt32(number * 1000000007 % 4294967296 - 2147483648)"),
    ("i64", "Int64", "toInt64(number * 1844674407370955161)"),
    ("f32", "Float32", "toFloat32(number / 3)"),
    ("f64", "Float64", "if(number = 3, inf, if(number = 4, -0., number / 7))"),
    ("s", "String", "concat(toString(number), 'ü\\0\\n')"),
    ("fs", "FixedString(3)", "toFixedString(toString(number % 100), 3)"),
    ("d", "Date", "toDate(number * 1000)"),
    ("dt", "DateTime", "toDateTime(number * 100000000)"),
    ("dtz", "DateTime('Asia/Kolkata')", "toDateTime(number * 100000000, 'Asia/Kolkata')"),
    ("uu", "UUID", "toUUID(concat('61f0c404-5cb3-11e7-907b-a6006ad3db', toString(10 + number % 90)))"),
    ("e8", "Enum8('a' = -128, 'b' = 0, 'c' = 127)", "CAST(['a', 'b', 'c'][number % 3 + 1] AS Enum8('a' = -128, 'b' = 0, 'c' = 127))"),
    ("e16", "Enum16('x' = -1000, 'y' = 1000)", "CAST(['x', 'y'][number % 2 + 1] AS Enum16('x' = -1000, 'y' = 1000))"),
    ("d32", "Decimal(9, 4)", "toDecimal32(number / 3, 4)"),
    ("d64", "Decimal(18, 10)", "toDecimal64(-number / 7, 10)"),
    ("d128", "Decimal(38, 5)", "toDecimal128(number * 1000000, 5)"),
    ("n", "Nullable(UInt32)", "if(number % 2, NULL, toUInt32(number))"),
    ("ns", "Nullable(String)", "if(number % 3 = 0, NULL, toString(number))"),
    ("a", "Array(UInt64)", "range(number % 5)"),
    ("aa", "Array(Array(String))", "[arrayMap(x -> toString(x), range(number % 3)), []]"),
    ("an", "Array(Nullable(Int8))", "arrayMap(x -> if(x % 2, NULL, toInt8(x)), range(number % 4))"),
    ("t", "Tuple(UInt8, String)", "(toUInt8(number % 200), toString(number))"),
    ("lc", "LowCardinality(String)", "toLowCardinality(toString(number % 3))"),
    ("lcn", "LowCardinality(Nullable(String))", "toLowCardinality(if(number % 2, NULL, toString(number % 5)))"),
]


def test_every_1816_type_round_trips(any_client):
    client, table = any_client, "py_" + uuid.uuid4().hex[:12]
    try:
        _round_trip_1816_types(client, table)
    finally:
        client.command(f"DROP TABLE IF EXISTS {table}")


def _round_trip_1816_types(client, table):
    cols = ", ".join(f"{n} {t}" for n, t, _ in TYPES_1816)
    client.command(f"CREATE TABLE {table} (id UInt64, {cols}) ENGINE = Memory")
    exprs = ", ".join(f"CAST({e} AS {t}) AS {n}" for n, t, e in TYPES_1816)
    original = client.query_arrow(f"SELECT number AS id, {exprs} FROM system.numbers LIMIT 50")
    assert original.num_rows == 50
    assert client.insert_arrow(table, original) == 50
    copy = client.query_arrow(f"SELECT * FROM {table} ORDER BY id")
    assert copy.schema.equals(original.schema, check_metadata=True)
    for name in original.column_names:
        assert copy.column(name).equals(original.column(name)), name
    # The server holds the values its own expressions give.
    checks = " AND ".join(f"{n} = CAST({e} AS {t})" for n, t, e in TYPES_1816 if not t.startswith(("Nullable", "Array(N", "LowCardinality(N")))
    assert client.command(f"SELECT count() FROM (SELECT id AS number, * FROM {table}) WHERE {checks}") == 50


def test_insert_rows_pads_fixed_strings_as_the_server_does(client, table):
    make(client, table, "k UInt8, f FixedString(4), n Nullable(FixedString(2))")
    assert client.insert(table, [(1, b"ab", b"x"), (2, "ü", None), (3, b"abcd", b"yz")]) == 3
    rows = client.query(f"SELECT k, f, n FROM {table} ORDER BY k").result_rows
    assert rows == [(1, b"ab\0\0", b"x\0"), (2, "ü".encode() + b"\0\0", None), (3, b"abcd", b"yz")]
    with pytest.raises(chwire.DataError, match=r"column 'f' \(FixedString\(4\)\), row 0: .*longer than FixedString\(4\)"):
        client.insert(table, [(4, b"abcde", None)])
    with pytest.raises(chwire.DataError, match=r"column 'f'.*not bytes or str"):
        client.insert(table, [(4, 12, None)])
    assert client.command(f"SELECT count() FROM {table}") == 3


def test_insert_arrow_takes_list_views(client, table):
    """pyarrow's list_view and large_list_view (views may overlap; a null view is an empty
    array, as Array has no NULL) arrive through the C data interface as Arrays."""
    make(client, table, "a Array(Int64), b Array(String)")
    a = pa.ListViewArray.from_arrays(pa.array([2, 0, 1, 3], pa.int32()), pa.array([2, 3, 2, 0], pa.int32()),
                                     pa.array([10, 11, 12, 13]), mask=pa.array([False, False, True, False]))
    b = pa.array([["x"], ["y", "z"], [], None], pa.large_list_view(pa.string()))
    assert client.insert_arrow(table, pa.table({"a": a, "b": b})) == 4
    assert client.query(f"SELECT a, b FROM {table}").result_rows == [
        ([12, 13], ["x"]), ([10, 11, 12], ["y", "z"]), ([], []), ([], [])]


def test_rows_whose_values_the_column_would_change_are_refused(client):
    """pyarrow would cut a datetime's fraction for DateTime and its time of day for Date."""
    import datetime as dt

    from chwire import _types

    client.command("DROP TABLE IF EXISTS default.py_dt_rows")
    client.command("CREATE TABLE default.py_dt_rows (t DateTime('UTC'), d Date) ENGINE = Memory")
    try:
        frac = dt.datetime(2020, 1, 1, 12, 0, 0, 123000)
        assert client.insert("default.py_dt_rows", [(frac.replace(microsecond=0), dt.datetime(2020, 1, 1))]) == 1
        for row, where in [((frac, dt.date(2020, 1, 1)), "'t'"),
                           ((frac.replace(microsecond=0), dt.datetime(2020, 1, 1, 23, 59)), "'d'")]:
            with pytest.raises(chwire.DataError, match=f"column {where}"):
                client.insert("default.py_dt_rows", [row])
        assert client.query("SELECT t, d FROM default.py_dt_rows").result_rows == [
            (dt.datetime(2020, 1, 1, 12, tzinfo=dt.timezone.utc), dt.date(2020, 1, 1))]
        # DateTime64(p) keeps p digits (18.16 has no DateTime64: the converter alone).
        conv = _types.to_arrow(_types.parse_type("DateTime64(3, 'UTC')"))
        assert conv(frac) == frac
        with pytest.raises(ValueError, match="finer fraction"):
            conv(frac.replace(microsecond=123400))
        # A fraction for an integer parameter: ClickHouse refuses it; the 18.16 fallback would
        # cut it. A whole float is that integer (the core's rule, in every front end).
        with pytest.raises(TypeError, match="no fraction for an integer"):
            client.query("SELECT {x:UInt8}", parameters={"x": 1.5})
        with pytest.raises(TypeError, match="no fraction for an integer"):
            client.query("SELECT {x:Array(UInt8)}", parameters={"x": [1, 2.5]})
        assert client.command("SELECT {x:UInt8}", parameters={"x": 2.0}) == 2
        with pytest.raises(chwire.DataError, match="300 is outside the range of UInt8"):
            client.query("SELECT {x:UInt8}", parameters={"x": 300})
        assert client.command("SELECT {x:Float64}", parameters={"x": 1.5}) == 1.5
    finally:
        client.command("DROP TABLE IF EXISTS default.py_dt_rows")
