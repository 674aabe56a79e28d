"""The types ClickHouse 26.9 has and 18.16 lacks, through every Python path: rows (``query``,
the DB-API), pandas, NumPy, Polars, ``insert`` of rows and ``insert_arrow``."""

import datetime as dt
import decimal
import ipaddress
import threading
import uuid

import pytest

import chwire
from chwire import _types, dbapi

# Settings that the types behind experimental flags need on 26.9.
NEW_TYPES = {"allow_experimental_variant_type": 1, "allow_experimental_dynamic_type": 1,
             "allow_experimental_json_type": 1, "enable_time_time64_type": 1, "allow_experimental_qbit_type": 1}


@pytest.fixture
def new_client(client):
    if not client.server_version or int(client.server_version.split(".")[0]) < 25:
        pytest.skip("the server lacks the newer types")
    return client


def bounded(f, seconds=20):
    """f() in a thread, failing (not hanging) when it does not return in time."""
    out = {}

    def run():
        try:
            out["value"] = f()
        except BaseException as e:  # noqa: BLE001 - raised again by the test's thread
            out["error"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(seconds)
    if "error" in out:
        raise out["error"]
    assert "value" in out, f"did not return within {seconds} s"
    return out["value"]


def test_types_with_settings_in_their_names_read_as_rows(new_client):
    """`Dynamic(max_types=3)` and `JSON(max_dynamic_paths=2)`: the Python type parser looped
    forever on `=` (100% CPU), in query() and the DB-API alike (query_arrow and ADBC worked)."""
    sql = ("SELECT materialize(1)::Dynamic(max_types=3) AS d, '{\"a\":{\"b\":1},\"c\":[1,2]}'::JSON(max_dynamic_paths=2) AS j, "
           "'{\"a\":7,\"s\":\"x\"}'::JSON(a UInt32, max_dynamic_paths=3) AS t")
    r = bounded(lambda: new_client.query(sql, settings=NEW_TYPES))
    assert r.column_types[0] == "Dynamic(max_types=3)"
    assert r.result_rows == [(1, {"a": {"b": 1}, "c": [1, 2]}, {"a": 7, "s": "x"})]
    cur = dbapi.Connection(new_client).cursor()
    bounded(lambda: cur.execute(sql + " SETTINGS allow_experimental_json_type = 1, allow_experimental_dynamic_type = 1"))
    assert bounded(cur.fetchall) == r.result_rows
    for text in ("Dynamic(max_types=3)", "JSON(a UInt32, SKIP REGEXP 'x,y')", "Array(", "=", ")(", "Tuple(a (", "Enum8('a,b' = 1)"):
        bounded(lambda: _types.parse_type(text), 5)


def test_tuples_with_backquoted_element_names(new_client, table):
    """Element names that need quoting (`a b`) name their elements, whose values are converted
    by their types (an Int128 is an int), both ways."""
    c = new_client
    c.command(f"CREATE TABLE {table} (t Tuple(`a b` Int128, `c.d` IPv6)) ENGINE = Memory")
    row = ((-(2**100), ipaddress.IPv6Address("::1")),)
    assert c.insert(table, [row, ({"a b": 1, "c.d": "::2"},)]) == 2
    assert c.query(f"SELECT t FROM {table} ORDER BY t.1").result_rows == [row, ((1, ipaddress.IPv6Address("::2")),)]


def test_variant_columns_insert_rows_and_read_every_way(new_client, table):
    """pyarrow builds no union from Python values: insert() raised pyarrow's bare
    ArrowNotImplementedError (dense_union). Each value now goes to the first member of its
    kind, and reads give each member's own value (an Int128 as an int, a tuple as a tuple)."""
    c = new_client
    c.command(f"CREATE TABLE {table} (k UInt8, v Variant(String, UInt64, Int128, Array(UInt8), Tuple(a UInt8, b String)), "
              "a Array(Variant(String, Float64)), m Map(String, Variant(Bool, String))) ENGINE = Memory",
              settings={**NEW_TYPES, "allow_suspicious_variant_types": 1})
    rows = [(0, "s", ["x", 1.5], {"p": True}), (1, 7, [], {}), (2, -(2**100), [2], {"q": "t"}),
            (3, [1, 2], [None], {}), (4, (5, "y"), ["z"], {}), (5, None, [], {"r": None})]
    assert c.insert(table, rows) == 6
    sql = f"SELECT k, v, variantType(v), a, m FROM {table} ORDER BY k"
    got = c.query(sql).result_rows
    assert [(k, v, a, m) for k, v, _, a, m in got] == [
        (0, "s", ["x", 1.5], {"p": True}), (1, 7, [], {}), (2, -(2**100), [2.0], {"q": "t"}),
        (3, [1, 2], [None], {}), (4, (5, "y"), ["z"], {}), (5, None, [], {"r": None})]
    assert [t for _, _, t, _, _ in got] == ["String", "UInt64", "Int128", "Array(UInt8)", "Tuple(a UInt8, b String)", "None"]
    df = c.query_df(f"SELECT v FROM {table} ORDER BY k")
    assert df["v"].tolist()[:3] == ["s", 7, -(2**100)] and df["v"].iloc[5] is None
    assert list(c.query_np(f"SELECT v FROM {table} ORDER BY k")["v"])[2] == -(2**100)
    with pytest.raises(chwire.NotSupportedError, match="column 'v'.*Polars"):
        c.query_pl(f"SELECT v FROM {table}")
    assert c.command("SELECT 1") == 1  # the refused query left the client usable
    with pytest.raises(chwire.DataError, match=r"column 'v'.*1\.5 \(float\) is none of the Variant's types"):
        c.insert(table, [(9, 1.5, [], {})])
    # What was read inserts again as the same values.
    assert c.insert(table, [r[:2] + r[3:] for r in got]) == 6
    assert c.command(f"SELECT count() FROM (SELECT v, variantType(v) FROM {table} GROUP BY ALL HAVING count() = 2)",
                     settings={"allow_suspicious_types_in_group_by": 1}) == 6


def test_geo_rows_are_tuples(new_client, table):
    """Points are tuples (x, y) as the docs promise, not dicts ({'1': 1.5, '2': 2.5}), at
    every depth of Ring, LineString, Polygon, MultiLineString and MultiPolygon."""
    c = new_client
    c.command(f"CREATE TABLE {table} (p Point, r Ring, l LineString, g Polygon, ml MultiLineString, mp MultiPolygon) "
              "ENGINE = Memory")
    row = ((1.5, 2.5), [(1.0, 2.0), (3.0, 4.0)], [(0.5, 0.5)], [[(1.0, 1.0), (2.0, 2.0)], []], [[(3.0, 3.0)]],
           [[[(4.0, 4.0)]], []])
    assert c.insert(table, [row]) == 1
    assert c.query(f"SELECT * FROM {table}").result_rows == [row]
    assert c.command(f"SELECT toString(p), toString(mp) FROM {table}") == ["(1.5,2.5)", "[[[(4,4)]],[]]"]
    cur = dbapi.Connection(c).cursor()
    cur.execute(f"SELECT p, r FROM {table}")
    assert cur.fetchone() == row[:2]


def test_json_and_dynamic_rows_are_their_values(new_client, table):
    """Rows give a JSON column's objects as dicts and a Dynamic's values as Python values
    (their JSON text parsed); insert() takes dicts (or JSON text) for JSON and Python values for
    Dynamic, where it raised "Expected bytes, got a 'int' object"."""
    c = new_client
    c.command(f"CREATE TABLE {table} (k UInt8, j JSON, d Dynamic) ENGINE = Memory", settings=NEW_TYPES)
    assert c.insert(table, [(0, {"a": 1, "b": {"c": "x"}}, 5), (1, '{"a": 2}', "text"), (2, {}, None), (3, {"a": [1]}, 2.5)]) == 4
    got = c.query(f"SELECT k, j, d, dynamicType(d) FROM {table} ORDER BY k").result_rows
    assert got == [(0, {"a": 1, "b": {"c": "x"}}, 5, "Int64"), (1, {"a": 2}, "text", "String"), (2, {}, None, "None"),
                   (3, {"a": [1]}, 2.5, "Float64")]
    assert c.command(f"SELECT j.b.c FROM {table} WHERE k = 0") == "x"


def test_qbit_rows_are_vectors(new_client, table):
    """A QBit's Arrow form is its bit planes; rows give (and insert takes) the vector."""
    c = new_client
    c.command(f"CREATE TABLE {table} (k UInt8, f QBit(Float32, 9), d QBit(Float64, 2), b QBit(BFloat16, 3)) ENGINE = Memory",
              settings=NEW_TYPES)
    c.command(f"INSERT INTO {table} VALUES (0, [1, -2.5, 3.25, 0, 5, 6, 7, 8, -9.5], [0.1, -1e300], [1, -2.5, 3.25])")
    want = (0, [1.0, -2.5, 3.25, 0.0, 5.0, 6.0, 7.0, 8.0, -9.5], [0.1, -1e300], [1.0, -2.5, 3.25])
    assert c.query(f"SELECT * FROM {table}").result_rows == [want]
    assert c.insert(table, [(1,) + want[1:]]) == 1
    assert c.command(f"SELECT countDistinct(f, d, b) FROM {table}") == 1
    with pytest.raises(chwire.DataError, match="column 'b'.*not exactly a BFloat16"):
        c.insert(table, [(2, want[1], want[2], [1.1, 0, 0])])
    with pytest.raises(chwire.DataError, match="column 'f'.*2 elements, the QBit 9"):
        c.insert(table, [(2, [1.0, 2.0], want[2], want[3])])


def test_wide_integers_and_ipv6_reach_pandas_and_numpy_as_values(new_client):
    """Their Arrow form is fixed_size_binary: pandas and NumPy gave the raw little-endian
    bytes; they give the ints and addresses query() gives."""
    sql = ("SELECT toInt128('-170141183460469231731687303715884105728') AS i, toUInt256(2) * toUInt256('1' || repeat('0', 70)) AS u, "
           "toIPv6('2001:db8::1') AS ip, [toInt256(-1)] AS a, toUInt64(3) AS plain")
    nullable_sql = sql.replace("toInt128('-170141183460469231731687303715884105728')",
                               "toNullable(toInt128('-170141183460469231731687303715884105728'))")
    want = [-(2**127), 2 * 10**70, ipaddress.IPv6Address("2001:db8::1"), [-1], 3]
    df = new_client.query_df(sql)
    assert df.iloc[0].tolist() == want and df.columns.tolist() == ["i", "u", "ip", "a", "plain"]
    assert str(df["plain"].dtype) == "uint64"
    assert [v[0] for v in new_client.query_np(sql).values()][:3] == want[:3]
    assert new_client.query(sql).result_rows == [tuple(want)]
    nullable = new_client.query_df(nullable_sql, dtype_backend="numpy_nullable")
    assert nullable["i"].iloc[0] == -(2**127)


def test_ipv6_and_maps_reach_pandas_as_query_gives_them(new_client):
    """IPv6 columns are built a column at a time (_chwire.column_objects): the objects
    ipaddress.IPv6Address() makes. Maps are dicts in query_df, as in query() (pandas' own
    conversion gave lists of key-value tuples); a key twice keeps its last value, as query()."""
    import pickle

    from chwire import _arrays

    assert _arrays._objects_match("IPv6")
    q = ("SELECT toString(ip) AS s, ip, if(number % 4 = 0, NULL, ip) AS n, m, [m, map('z', number)] AS ms, "
         "map('t', (number, map('i', number))) AS deep FROM (SELECT number, "
         "if(number % 2 = 0, toIPv6(IPv4NumToString(toUInt32(number * 2654435761 % 4294967296))), "
         "toIPv6(concat('fe80:', hex(number % 65536), '::', hex(number % 7 + 1)))) AS ip, "
         "mapFromArrays(arraySlice(['k1', 'k2', 'k3'], 1, number % 4), arraySlice([number, number * 2, number * 3], 1, number % 4)) AS m "
         "FROM numbers(2000)) ORDER BY number")
    rows = new_client.query(q, settings={"max_block_size": 300}).result_rows
    want = [ipaddress.IPv6Address(r[0]) for r in rows]
    assert [r[1] for r in rows] == want
    for backend in (None, "numpy_nullable"):
        df = new_client.query_df(q, settings={"max_block_size": 300}, dtype_backend=backend)
        assert df["ip"].tolist() == want and df["n"].tolist() == [r[2] for r in rows], backend
        assert df["m"].tolist() == [r[3] for r in rows] and all(type(v) is dict for v in df["m"]), backend
        assert [list(v) for v in df["ms"]] == [r[4] for r in rows], backend
        assert df["deep"][5] == {"t": {"1": 5, "2": {"i": 5}}}, backend  # a Tuple in pandas is a dict
    for g, w in zip(df["ip"][:40], want):
        assert type(g) is ipaddress.IPv6Address and str(g) == str(w) and hash(g) == hash(w)
        assert g.ipv4_mapped == w.ipv4_mapped and g.scope_id is None and pickle.loads(pickle.dumps(g)) == w
    # A key twice in one map changes no other column's shape; maps beside UUIDs are dicts too.
    u = "61f0c404-5cb3-11e7-907b-a6006ad3dba0"
    for first in ("map('a', 1, 'a', 2, 'b', 3)", "map('a', 2, 'b', 3)"):
        q = (f"SELECT {first} AS m, 1 AS x, tuple(map('k', 1)) AS tm, [map('k', 2)] AS am, "
             f"map('u', toUUID('{u}')) AS mu, [toUUID('{u}')] AS au")
        assert new_client.query(q).result_rows[0][0] == {"a": 2, "b": 3}
        for backend in (None, "numpy_nullable"):
            df = new_client.query_df(q, dtype_backend=backend)
            assert df.columns.tolist() == ["m", "x", "tm", "am", "mu", "au"] and df["x"][0] == 1
            assert df["m"][0] == {"a": 2, "b": 3}, (first, backend)
            assert df["tm"][0] == {"1": {"k": 1}} and [v for v in df["am"][0] if type(v) is dict] == [{"k": 2}], (first, backend)
            assert df["mu"][0] == {"u": uuid.UUID(u)} and list(df["au"][0]) == [uuid.UUID(u)], (first, backend)


def test_enums_insert_by_name_or_number(new_client, table):
    new_client.command(f"CREATE TABLE {table} (e Enum8('a' = 1, 'b\\'c' = -2)) ENGINE = Memory")
    assert new_client.insert(table, [("a",), (-2,), (1,)]) == 3
    assert sorted(r[0] for r in new_client.query(f"SELECT e FROM {table}").result_rows) == ["a", "a", "b'c"]
    with pytest.raises(chwire.DataError, match="3 is none of the Enum's values"):
        new_client.insert(table, [(3,)])


def test_lowcardinality_and_sparse_columns_of_mergetree_parts(new_client, table):
    """Parts of a MergeTree table: LowCardinality dictionaries per block and sparse
    serialization (ratio_of_defaults_for_sparse_serialization) of mostly-default columns."""
    c = new_client
    c.command(f"CREATE TABLE {table} (k UInt64, s LowCardinality(String), n LowCardinality(Nullable(String)), "
              "sp UInt64, ss String, sn Nullable(Int32)) ENGINE = MergeTree ORDER BY k "
              "SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5, index_granularity = 100")
    for p in range(4):
        c.command(f"INSERT INTO {table} SELECT number + {p} * 1000, toString(number % {p + 2}), "
                  "if(number % 3 = 0, NULL, toString(number % 5)), if(number % 10 = 0, number, 0), if(number % 10 = 0, 'v', ''), "
                  f"if(number % 10 = 0, toInt32(number), NULL) FROM numbers(1000)")
    kinds = c.query(f"SELECT DISTINCT column, serialization_kind FROM system.parts_columns WHERE table = '{table}' "
                    "AND active AND database = currentDatabase()").result_rows
    assert ("sp", "Sparse") in kinds and ("ss", "Sparse") in kinds
    sql = f"SELECT * FROM {table} ORDER BY k"
    ref = c.query(f"SELECT k, toString(s), toString(n), sp, ss, sn FROM {table} ORDER BY k").result_rows
    assert c.query(sql, settings={"max_block_size": 500}).result_rows == ref
    df = c.query_df(sql, settings={"max_block_size": 500})
    assert [str(x) for x in df["s"]] == [r[1] for r in ref]
    assert int(df["sp"].sum()) == 4 * sum(range(0, 1000, 10)) and int((df["ss"] == "v").sum()) == 400
    assert int(df["sn"].notna().sum()) == 400


# Every newer type with a value, through insert_arrow of what query_arrow read and through
# insert of the rows query() gave: the server holds the same values (formatRow's text).
TYPES_269 = [
    ("Bool", "true"), ("Nullable(Bool)", "NULL"), ("Date32", "toDate32('1900-01-02')"),
    ("DateTime64(6)", "toDateTime64('2020-01-02 03:04:05.123456', 6)"),
    ("DateTime64(3, 'Asia/Tokyo')", "toDateTime64('2020-01-02 03:04:05.123', 3, 'Asia/Tokyo')"),
    ("Int128", "toInt128('-170141183460469231731687303715884105728')"), ("UInt256", "toUInt256(2) * toUInt256('1' || repeat('0', 70))"),
    ("IPv4", "toIPv4('1.2.3.4')"), ("IPv6", "toIPv6('::ffff:1.2.3.4')"),
    ("Map(String, Map(String, Array(UInt8)))", "map('a', map('x', [1, 2]))"),
    ("Tuple(a UInt8, b Tuple(c String, d Float64))", "(1, ('x', 2.5))"),
    ("Nested(a UInt8, b String)", "[(1, 'x'), (2, 'y')]"),
    ("Variant(String, UInt64, Array(String))", "['a', 'b']::Array(String)"),
    ("Dynamic", "[1, 2]::Array(Int64)"), ("Dynamic(max_types=2)", "'x'"),
    ("JSON", "'{\"a\":{\"b\":1},\"c\":\"x\"}'"), ("JSON(a UInt32, max_dynamic_paths=3)", "'{\"a\":1,\"s\":\"x\"}'"),
    ("Time", "'12:34:56'"), ("Time64(3)", "'-12:34:56.789'"), ("BFloat16", "1.5"),
    ("QBit(Float32, 8)", "[1, 2, 3, 4, 5, 6, 7, -8]"), ("Point", "(1.5, 2.5)"), ("MultiPolygon", "[[[(1.5, 2.5)]]]"),
    ("LowCardinality(Nullable(String))", "'x'"), ("Array(LowCardinality(String))", "['a', 'b']"),
    ("Decimal(76, 40)", "-1.25"), ("Enum16('x' = -1000, 'y' = 1000)", "'y'"),
]


@pytest.mark.parametrize("ty, expr", TYPES_269, ids=[t for t, _ in TYPES_269])
def test_every_269_type_round_trips(new_client, ty, expr):
    c = new_client
    names = ["py_" + uuid.uuid4().hex[:12] for _ in range(3)]
    try:
        for n in names:
            c.command(f"CREATE TABLE {n} (k UInt8, v {ty}) ENGINE = Memory", settings={**NEW_TYPES, "flatten_nested": 0})
        c.command(f"INSERT INTO {names[0]} SELECT number, CAST({expr}, '{ty.replace(chr(39), chr(92) + chr(39))}') "
                  "FROM numbers(2)", settings=NEW_TYPES)
        sql = f"SELECT k, v FROM {names[0]} ORDER BY k"
        assert c.insert_arrow(names[1], c.query_arrow(sql)) == 2
        assert c.insert(names[2], c.query(sql).result_rows) == 2
        text = [c.command(f"SELECT arrayStringConcat(groupArray(formatRow('TSV', k, v)), '|') FROM (SELECT * FROM {n} ORDER BY k)")
                for n in names]
        assert text[1] == text[0] and text[2] == text[0], text
    finally:
        for n in names:
            c.command(f"DROP TABLE IF EXISTS {n}")


def test_decimals_and_datetimes_of_every_width_as_rows(new_client):
    r = new_client.query("SELECT toDecimal256('-1.25', 40) AS d, toDateTime64('1900-01-01 00:00:00.123456789', 9, 'UTC') AS t")
    assert r.result_rows[0][0] == decimal.Decimal("-1.25") and r.result_rows[0][1].year == 1900
    assert r.result_rows[0][1].tzinfo is not None and isinstance(r.result_rows[0][1], dt.datetime)
