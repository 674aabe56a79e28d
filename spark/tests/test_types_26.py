"""The types ClickHouse 26.9 has and 18.16 lacks, through both sources as a user meets them:
reads (the two sources alike), writes back (append and overwrite of a MergeTree), pushdown and
aggregates against Spark's own evaluation, the catalog's CREATE TABLE of Spark's types, and a
Distributed table of them read per shard and written through."""

import datetime as dt
import decimal
import re

import pytest
from pyspark.sql import functions as F

JVM = "chwire"
UUID = "01234567-89ab-cdef-0123-456789abcdef"
DB = "jvm_types26"

# (name, type, a value, the value of the second row)
COLUMNS = [
    ("k", "Int32", "1", "2"),
    ("b", "Bool", "true", "false"),
    ("nb", "Nullable(Bool)", "true", "NULL"),
    ("d32", "Date32", "'1900-01-02'", "'2299-12-31'"),
    ("nd32", "Nullable(Date32)", "'1969-12-31'", "NULL"),
    ("t3", "DateTime64(3, 'UTC')", "'2021-02-03 04:05:06.789'", "'1925-01-01 00:00:00.001'"),
    ("t6", "DateTime64(6, 'Asia/Kolkata')", "'2021-02-03 04:05:06.123456'", "'2100-01-01 00:00:00'"),
    ("u", "UUID", f"toUUID('{UUID}')", "toUUID('00000000-0000-0000-0000-000000000000')"),
    ("ip4", "IPv4", "'1.2.3.4'", "'255.255.255.255'"),
    ("ip6", "Nullable(IPv6)", "'2001:db8::1'", "NULL"),
    ("m", "Map(String, UInt64)", "map('a', 1, 'top', 18446744073709551615)", "map()"),
    ("mn", "Map(LowCardinality(String), Nullable(Int32))", "map('x', NULL, 'y', -5)", "map()"),
    ("nt", "Tuple(a Int8, b Nullable(String), c UInt64)", "(1, NULL, 18446744073709551615)", "(-1, 'x', 0)"),
    ("lc", "LowCardinality(Nullable(String))", "'low'", "NULL"),
    ("dec", "Decimal(38, 10)", "toDecimal128('1234567890.0123456789', 10)", "toDecimal128('-0.5', 10)"),
    ("ab", "Array(Bool)", "[true, false]", "[]"),
    ("ad", "Array(Nullable(Date32))", "['1950-01-01', NULL]", "[]"),
    ("am", "Array(Map(String, Int64))", "[map('k', -1)]", "[]"),
    ("at", "Array(Tuple(x Int32, y String))", "[(1, 'a')]", "[]"),
    ("au", "Array(Nullable(UUID))", f"[NULL, toUUID('{UUID}')]", "[]"),
    ("e", "Enum8('a' = 1, 'b' = 2)", "'b'", "'a'"),
    ("j", "JSON", "'{\"a\": 1, \"s\": \"x\"}'", "'{}'"),
    ("dy", "Dynamic", "42", "'text'"),
]


@pytest.fixture(autouse=True)
def new_server(old_server):
    if old_server:
        pytest.skip("these types need ClickHouse 26.9 (the 18.16 cluster has none of them)")


def fmt_of(request, source):
    return JVM if source == "jvm" else request.getfixturevalue("python_source")


def read(spark, url, fmt=JVM, **opts):
    r = spark.read.format(fmt).option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


@pytest.fixture()
def typed(ch):
    ch.command("DROP TABLE IF EXISTS default.jvm_t26")
    ch.command(f"CREATE TABLE default.jvm_t26 ({', '.join(f'{n} {t}' for n, t, _, _ in COLUMNS)}) "
               "ENGINE = MergeTree ORDER BY k")
    for i in (2, 3):
        ch.command(f"INSERT INTO default.jvm_t26 SELECT {', '.join(c[i] for c in COLUMNS)}")
    yield "default.jvm_t26"
    ch.command("DROP TABLE IF EXISTS default.jvm_t26")
    ch.command("DROP TABLE IF EXISTS default.jvm_t26_copy")


def test_the_types_of_26_9_read_alike_through_both_sources(spark, nodes, typed, python_source):
    jdf, pdf = read(spark, nodes[0], table=typed), read(spark, nodes[0], fmt=python_source, table=typed)
    assert jdf.schema == pdf.schema
    assert jdf.schema.simpleString() == (
        "struct<k:int,b:boolean,nb:boolean,d32:date,nd32:date,t3:timestamp,t6:timestamp,u:string,ip4:string,"
        "ip6:string,m:map<string,decimal(20,0)>,mn:map<string,int>,nt:struct<a:tinyint,b:string,c:decimal(20,0)>,"
        "lc:string,dec:decimal(38,10),ab:array<boolean>,ad:array<date>,am:array<map<string,bigint>>,"
        "at:array<struct<x:int,y:string>>,au:array<string>,e:string,j:string,dy:string>")
    got = [r.asDict(recursive=True) for r in jdf.orderBy("k").collect()]
    assert got == [r.asDict(recursive=True) for r in pdf.orderBy("k").collect()]
    first, second = got
    top = decimal.Decimal(2**64 - 1)
    assert (first["b"], first["nb"], second["nb"]) == (True, True, None)
    assert (first["d32"], first["nd32"], second["d32"]) == (dt.date(1900, 1, 2), dt.date(1969, 12, 31), dt.date(2299, 12, 31))
    assert first["t3"] == dt.datetime(2021, 2, 3, 4, 5, 6, 789000)
    assert second["t3"] == dt.datetime(1925, 1, 1, 0, 0, 0, 1000)
    assert first["t6"] == dt.datetime(2021, 2, 2, 22, 35, 6, 123456)  # Kolkata's 04:05 in UTC
    assert (first["u"], first["ip4"], first["ip6"], second["ip6"]) == (UUID, "1.2.3.4", "2001:db8::1", None)
    assert first["m"] == {"a": 1, "top": top} and first["mn"] == {"x": None, "y": -5}
    assert first["nt"] == {"a": 1, "b": None, "c": top}
    assert (first["lc"], second["lc"]) == ("low", None)
    assert first["dec"] == decimal.Decimal("1234567890.0123456789")
    assert (first["ab"], first["ad"], first["am"]) == ([True, False], [dt.date(1950, 1, 1), None], [{"k": -1}])
    assert (first["at"], first["au"]) == ([{"x": 1, "y": "a"}], [None, UUID])
    assert (first["j"], first["dy"], second["dy"]) == ('{"a":1,"s":"x"}', "42", '"text"')


@pytest.mark.parametrize("source", ["jvm", "python"])
def test_the_types_of_26_9_are_written_back_as_they_were(spark, ch, nodes, typed, request, source):
    """A table read and written back (append, then overwrite of the MergeTree copy) holds the
    same values: UInt64 from decimal(20,0) also inside a Map and a Tuple, UUID and IP addresses
    from their text, JSON and Dynamic from their JSON text (a Dynamic then holds each value as
    that text: `"text"` becomes the String `"text"`, so it is compared by the numbers here)."""
    fmt = fmt_of(request, source)
    ch.command("CREATE TABLE default.jvm_t26_copy AS default.jvm_t26")
    df = read(spark, nodes[0], table=typed).drop("dy")
    for mode in ("append", "overwrite", "overwrite"):
        df.write.format(fmt).option("url", nodes[0]).option("table", "default.jvm_t26_copy").mode(mode).save()
    cols = ", ".join(n for n, _, _, _ in COLUMNS if n != "dy")
    text = lambda t: ch.query(f"SELECT formatRow('TabSeparated', {cols}) FROM {t} ORDER BY k").result_rows  # noqa: E731
    assert text("default.jvm_t26_copy") == text("default.jvm_t26")
    assert ch.command("SELECT engine, sorting_key FROM system.tables WHERE database = 'default' "
                      "AND name = 'jvm_t26_copy'") == ["MergeTree", "k"]
    # A decimal outside UInt64 inside a Map is refused naming the column; nothing is written.
    bad = spark.createDataFrame([(9, {"neg": decimal.Decimal(-1)})], "k int, m map<string, decimal(20,0)>")
    with pytest.raises(Exception, match="column '?m'?"):
        bad.write.format(fmt).option("url", nodes[0]).option("table", "default.jvm_t26_copy").mode("append").save()
    assert ch.command("SELECT count() FROM default.jvm_t26_copy") == 2


def scan(df):
    plan = df._jdf.queryExecution().executedPlan().toString()
    m = re.search(r"chwire \[columns: [^\n]*", plan)
    return m.group(0) if m else plan


FILTERS = [  # (filter, pushed)
    ("lc = 'low'", True), ("lc IN ('low', 'zz')", True), ("NOT (lc IN ('low'))", True), ("lc LIKE 'lo%'", True),
    ("lc IS NULL", True), ("dy IS NULL", False), ("dy IS NOT NULL", False), ("NOT (dy IS NULL)", False),
    ("nb IS NULL", True), ("b = true", False), ("d32 < DATE'1950-01-01'", False), ("t3 < TIMESTAMP'2000-01-01 00:00:00'", False),
    ("ip4 = '1.2.3.4'", False), ("u = '" + UUID + "'", False), ("j LIKE '%a%'", False), ("e = 'b'", True),
]


def test_filters_and_aggregates_on_the_types_of_26_9_give_what_spark_gives(spark, ch, nodes):
    """A NULL Dynamic is read as the text `null` (ClickHouse's own Arrow form): its IS NULL stays
    with Spark, which sees text there (pushed, ClickHouse's isNull took that row). A
    LowCardinality(Nullable(String)) is compared as a string (it was not pushed at all)."""
    ch.command("DROP TABLE IF EXISTS default.jvm_f26")
    ch.command("CREATE TABLE default.jvm_f26 (k Int32, b Bool, nb Nullable(Bool), d32 Date32, t3 DateTime64(3, 'UTC'), "
               "lc LowCardinality(Nullable(String)), dy Dynamic, j JSON, ip4 IPv4, u UUID, e Enum8('a' = 1, 'b' = 2)) "
               "ENGINE = MergeTree ORDER BY k")
    ch.command(f"INSERT INTO default.jvm_f26 VALUES (1, true, NULL, '1900-01-01', '2020-01-01 00:00:00.001', NULL, NULL, "
               f"'{{}}', '1.2.3.4', '{UUID}', 'a'), (2, false, true, '2200-01-01', '1960-01-01 00:00:00', 'low', 'x', "
               "'{\"a\": 1}', '0.0.0.0', generateUUIDv4(), 'b'), (3, true, false, '1970-01-01', '2020-01-01 00:00:00', "
               "'lower', 5, '{}', '1.2.3.4', generateUUIDv4(), 'b')")
    try:
        df = read(spark, nodes[0], table="default.jvm_f26")
        local = spark.createDataFrame(df.collect(), df.schema)
        assert sorted(r.dy for r in local.collect()) == ['"x"', "5", "null"]
        for f, pushed in FILTERS:
            q = df.where(f)
            assert sorted(r.k for r in q.collect()) == sorted(r.k for r in local.where(f).collect()), f
            assert ("as []" not in scan(q)) == pushed, (f, scan(q))
        for key, aggs in [("lc", [F.count("*"), F.min("k")]), (None, [F.count("lc"), F.min("lc"), F.max("lc")]),
                          ("e", [F.count("dy")]), ("lc", [F.max("lc")])]:
            q = df.groupBy(key).agg(*aggs) if key else df.agg(*aggs)
            want = local.groupBy(key).agg(*aggs) if key else local.agg(*aggs)
            assert sorted(map(repr, q.collect())) == sorted(map(repr, want.collect())), (key, aggs)
            assert "HashAggregate" not in q._jdf.queryExecution().executedPlan().toString(), (key, aggs)
    finally:
        ch.command("DROP TABLE default.jvm_f26")


def column_types(ch, table):
    rows = ch.query_arrow(f"SELECT name, type FROM system.columns WHERE database = '{DB}' AND table = '{table}'").to_pylist()
    return {r["name"]: r["type"] for r in rows}


def test_the_catalog_creates_26_9_types_that_read_back_as_the_same_spark_types(spark, ch, cat):
    """CREATE TABLE and CTAS on 26.9: boolean is Bool, map a Map, struct a named Tuple, date a
    Date32 (1900..2299), timestamp a DateTime64(6) (microseconds); the rows read back with the
    same Spark types and values, also after an INSERT OVERWRITE of the MergeTree table."""
    spark.sql(f"""CREATE TABLE ch.{DB}.made (id BIGINT NOT NULL, ok BOOLEAN, day DATE, at TIMESTAMP,
                  m MAP<STRING, BIGINT>, s STRUCT<a: INT, b: STRING>, tags ARRAY<STRUCT<x: DOUBLE>>,
                  amount DECIMAL(38, 10)) USING chwire TBLPROPERTIES (order_by = 'id')""")
    assert column_types(ch, "made") == {
        "id": "Int64", "ok": "Nullable(Bool)", "day": "Nullable(Date32)", "at": "Nullable(DateTime64(6))",
        "m": "Map(String, Nullable(Int64))", "s": "Tuple(a Nullable(Int32), b Nullable(String))",
        "tags": "Array(Tuple(x Nullable(Float64)))", "amount": "Nullable(Decimal(38, 10))"}
    values = """SELECT id, id % 2 = 0 AS ok, date_add(date'1900-01-01', cast(id * 25000 AS INT)) AS day,
                timestamp_micros(1700000000123456 + id) AS at, map('k', id) AS m, named_struct('a', cast(id AS INT), 'b',
                cast(id AS STRING)) AS s, array(named_struct('x', id / 4)) AS tags,
                cast(id / 7 AS DECIMAL(38, 10)) AS amount FROM range(5)"""
    spark.sql(f"INSERT INTO ch.{DB}.made {values}")
    want = spark.sql(values)
    back = spark.table(f"ch.{DB}.made")
    # The same types (the table's may hold NULLs where the query's cannot).
    assert back.schema.simpleString() == want.schema.simpleString()
    assert sorted(map(repr, back.collect())) == sorted(map(repr, want.collect()))
    latest = dt.date(1900, 1, 1) + dt.timedelta(days=100000)
    assert back.agg(F.max("day")).first()[0] == latest > dt.date(2149, 6, 6)  # beyond Date's range
    spark.sql(f"INSERT OVERWRITE ch.{DB}.made {values.replace('range(5)', 'range(2, 5)')}")
    assert sorted(r.id for r in spark.table(f"ch.{DB}.made").collect()) == [2, 3, 4]
    spark.sql(f"CREATE TABLE ch.{DB}.copied USING chwire TBLPROPERTIES (order_by = 'id') AS SELECT * FROM ch.{DB}.made")
    assert column_types(ch, "copied")["s"] == column_types(ch, "made")["s"]
    assert sorted(map(repr, spark.table(f"ch.{DB}.copied").collect())) == sorted(map(repr, spark.table(f"ch.{DB}.made").collect()))


def test_a_distributed_table_of_26_9_types_is_written_and_read_per_shard(spark, ch, nodes, request):
    import chwire

    local = "(k Int64, ok Bool, day Date32, m Map(String, UInt64), u UUID, lc LowCardinality(String))"
    for url in nodes:
        with chwire.connect(url) as c:
            c.command("DROP TABLE IF EXISTS default.jvm_d26_local")
            c.command(f"CREATE TABLE default.jvm_d26_local {local} ENGINE = MergeTree ORDER BY k")
    ch.command("DROP TABLE IF EXISTS default.jvm_d26")
    ch.command("CREATE TABLE default.jvm_d26 AS default.jvm_d26_local "
               "ENGINE = Distributed(chwire_cluster, default, jvm_d26_local, k % 3)")
    try:
        n = 3000
        df = spark.range(0, n, numPartitions=3).selectExpr(
            "id AS k", "id % 2 = 0 AS ok", "date_add(date'1901-01-01', cast(id AS INT)) AS day",
            "map('v', cast(id AS DECIMAL(20, 0))) AS m",
            "concat('00000000-0000-0000-0000-', lpad(cast(id AS STRING), 12, '0')) AS u", "cast(id % 5 AS STRING) AS lc")
        df.write.format(JVM).option("url", nodes[0]).option("table", "default.jvm_d26").mode("append").save()
        for i, url in enumerate(nodes):
            with chwire.connect(url) as c:
                assert c.command("SELECT count(), countIf(k % 3 != {i:UInt8}) FROM default.jvm_d26_local",
                                 parameters={"i": i}) == [n // 3, 0]
        want = sorted(map(repr, df.collect()))
        for fmt in (JVM, request.getfixturevalue("python_source")):
            for parts, expect in (("1", 3), ("6", 6)):
                got = read(spark, nodes[0], fmt=fmt, table="default.jvm_d26", numPartitions=parts)
                assert got.rdd.getNumPartitions() == expect
                assert sorted(map(repr, got.collect())) == want, (fmt, parts)
    finally:
        ch.command("DROP TABLE IF EXISTS default.jvm_d26")
        for url in nodes:
            with chwire.connect(url) as c:
                c.command("DROP TABLE IF EXISTS default.jvm_d26_local")
