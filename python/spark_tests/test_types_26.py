"""The types of ClickHouse 26.9 that 18.16 lacks, through the PySpark source: read, written back
(append and overwrite of a MergeTree), pushed filters (spark/tests/test_types_26.py compares the
JVM connector with this source on the same types)."""

import datetime as dt
import decimal

import pytest
from pyspark.sql import functions as F

TOP = decimal.Decimal(2**64 - 1)
COLUMNS = [
    ("k", "Int32", "1", "2"),
    ("b", "Nullable(Bool)", "true", "NULL"),
    ("d32", "Date32", "'1900-01-02'", "'2299-12-31'"),
    ("t6", "DateTime64(6, 'UTC')", "'2021-02-03 04:05:06.123456'", "'1925-01-01 00:00:00.000001'"),
    ("ip", "IPv6", "'2001:db8::1'", "'::'"),
    ("m", "Map(String, UInt64)", "map('top', 18446744073709551615)", "map()"),
    ("nt", "Tuple(a Int8, c UInt64)", "(1, 18446744073709551615)", "(-1, 0)"),
    ("lc", "LowCardinality(Nullable(String))", "'low'", "NULL"),
    ("au", "Array(Nullable(UUID))", "[NULL, toUUID('01234567-89ab-cdef-0123-456789abcdef')]", "[]"),
    ("j", "JSON", "'{\"a\": [1, 2]}'", "'{}'"),
]


@pytest.fixture(autouse=True)
def new_server(old_server):
    if old_server:
        pytest.skip("these types need ClickHouse 26.9 (the 18.16 cluster has none of them)")


def read(spark, url, **opts):
    r = spark.read.format("chwire").option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


def test_the_types_of_26_9_are_read_and_written_back(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_t26")
    ch.command("DROP TABLE IF EXISTS default.spark_t26_copy")
    ch.command(f"CREATE TABLE default.spark_t26 ({', '.join(f'{n} {t}' for n, t, _, _ in COLUMNS)}) "
               "ENGINE = MergeTree ORDER BY k")
    for i in (2, 3):
        ch.command(f"INSERT INTO default.spark_t26 SELECT {', '.join(c[i] for c in COLUMNS)}")
    ch.command("CREATE TABLE default.spark_t26_copy AS default.spark_t26")
    try:
        df = read(spark, nodes[0], table="default.spark_t26")
        first, second = [r.asDict(recursive=True) for r in df.orderBy("k").collect()]
        assert (first["b"], second["b"], first["d32"], second["d32"]) == (True, None, dt.date(1900, 1, 2), dt.date(2299, 12, 31))
        assert (first["t6"], second["t6"]) == (dt.datetime(2021, 2, 3, 4, 5, 6, 123456), dt.datetime(1925, 1, 1, 0, 0, 0, 1))
        assert (first["ip"], first["m"], first["nt"]) == ("2001:db8::1", {"top": TOP}, {"a": 1, "c": TOP})
        assert (first["lc"], second["lc"], first["au"], first["j"]) == (
            "low", None, [None, "01234567-89ab-cdef-0123-456789abcdef"], '{"a":[1,2]}')
        # Written back (UInt64 inside a Map and a Tuple from Spark's decimal(20,0), UUID and IP
        # from their text, JSON from its text): the same rows, appended then overwritten.
        for mode in ("append", "overwrite"):
            df.write.format("chwire").option("url", nodes[0]).option("table", "default.spark_t26_copy").mode(mode).save()
        text = lambda t: ch.query(f"SELECT formatRow('TabSeparated', *) FROM {t} ORDER BY k").result_rows  # noqa: E731
        assert text("default.spark_t26_copy") == text("default.spark_t26")
    finally:
        ch.command("DROP TABLE IF EXISTS default.spark_t26")
        ch.command("DROP TABLE IF EXISTS default.spark_t26_copy")


def test_pushed_filters_on_the_types_of_26_9_give_the_rows_spark_gives(spark, ch, nodes):
    """A NULL Dynamic reaches Spark as the text `null`: its IS NULL stays with Spark (pushed,
    ClickHouse's isNull took that row); LowCardinality(Nullable(String)) is pushed as a string."""
    ch.command("DROP TABLE IF EXISTS default.spark_f26")
    ch.command("CREATE TABLE default.spark_f26 (k Int32, dy Dynamic, lc LowCardinality(Nullable(String))) "
               "ENGINE = MergeTree ORDER BY k")
    ch.command("INSERT INTO default.spark_f26 VALUES (1, NULL, NULL), (2, 'x', 'a'), (3, 5, 'b')")
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        for cond, want in [(F.col("dy").isNull(), []), (F.col("dy").isNotNull(), [1, 2, 3]),
                           (F.col("lc").isin("a", "zz"), [2]), (~F.col("lc").isin("a"), [3]), (F.col("lc").isNull(), [1])]:
            for push in ("false", "true"):  # a fresh DataFrame each time (docs/SPARK.md)
                df = read(spark, nodes[0], table="default.spark_f26", pushFilters=push)
                assert sorted(r.k for r in df.filter(cond).collect()) == want, (cond, push)
        from pyspark.sql import datasource as ds

        from chwire.spark import ChwireDataSource

        source = ChwireDataSource({"url": nodes[0], "table": "default.spark_f26", "pushFilters": "true"})
        reader = source.reader(source.schema())
        left = list(reader.pushFilters([ds.IsNull(("dy",)), ds.In(("lc",), ("a",))]))
        assert [type(f).__name__ for f in left] == ["IsNull"]
        assert "if(isNull(`lc`), NULL, `lc` IN ('a'))" in reader.plan.sql(reader.plan.partitions[0])
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
        ch.command("DROP TABLE default.spark_f26")
