"""Reads where ClickHouse and Spark differ unless the source bridges them (found by an
adversarial probe): NULLs in a hash split, pushed filters on Enums, NULLs and out-of-range
dates, Tuple elements named by a user's schema, and options that are refused by name."""

import datetime as dt

import pytest
from pyspark.sql import functions as F

from chwire.spark import ChwireDataSource


def read(spark, url, schema=None, **opts):
    r = spark.read.format("chwire").option("url", url)
    if schema:
        r = r.schema(schema)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


@pytest.mark.both_servers
def test_a_hash_split_reads_rows_with_nulls_once(spark, ch, nodes):
    """A table without a sorting key is split by a hash of all columns; in 18.16 the hash of a
    NULL is NULL, which took such rows into no partition."""
    ch.command("DROP TABLE IF EXISTS default.spark_nulls")
    ch.command("CREATE TABLE default.spark_nulls (id UInt32, n Nullable(String), lc LowCardinality(Nullable(String))) "
               "ENGINE = Log")
    ch.command("INSERT INTO default.spark_nulls SELECT number, if(number % 2 = 0, NULL, toString(number)), "
               "if(number % 3 = 0, NULL, 'x') FROM system.numbers LIMIT 3000")
    for n in ("2", "5"):
        df = read(spark, nodes[0], table="default.spark_nulls", numPartitions=n)
        assert df.rdd.getNumPartitions() == int(n)
        assert sorted(r.id for r in df.select("id").collect()) == list(range(3000)), n
    ch.command("DROP TABLE default.spark_nulls")


@pytest.mark.both_servers
def test_pushed_filters_give_the_rows_spark_gives(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_pushed")
    ch.command("CREATE TABLE default.spark_pushed (id Int32, e Enum8('b' = 1, 'a' = 2), ns Nullable(String), d Date) "
               "ENGINE = MergeTree ORDER BY id")
    ch.insert("default.spark_pushed", [(1, "a", None, dt.date(1970, 1, 1)), (2, "b", "x", dt.date(2020, 1, 1)),
                                       (3, "a", "y", dt.date(2149, 1, 1))])
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    cases = {
        "Enum ordered by its text": (F.col("e") > "a", [2]),
        "an Enum name the Enum lacks": (F.col("e") == "zz", []),
        "an Enum in a list with a stranger": (F.col("e").isin("a", "zz"), [1, 3]),
        "an Enum's prefix": (F.col("e").startswith("b"), [2]),
        "NOT IN over NULLs": (~F.col("ns").isin("y", "z"), [2]),
        "NOT of NOT IN over NULLs": (~~F.col("ns").isin("y"), [3]),
        "a date beyond Date's literals": (F.col("d") < dt.date(2200, 1, 1), [1, 2, 3]),
        "a date far in Date's range": (F.col("d") > dt.date(2100, 1, 1), [3]),
        "a date before 1970": (F.col("d") == dt.date(1969, 12, 31), []),
    }
    for name, (cond, want) in cases.items():
        got = []
        for push in ("false", "true"):
            # A fresh DataFrame each time: see docs/SPARK.md on Spark reusing a pushed reader.
            df = read(spark, nodes[0], table="default.spark_pushed", pushFilters=push)
            got.append(sorted(r.id for r in df.filter(cond).collect()))
        assert got == [want, want], name
    # What is pushed is in the SQL: the Enum as its text, IN of a Nullable column NULL-safe.
    from pyspark.sql import datasource as ds

    source = ChwireDataSource({"url": nodes[0], "table": "default.spark_pushed", "pushFilters": "true"})
    reader = source.reader(source.schema())
    left = list(reader.pushFilters([ds.GreaterThan(("e",), "a"), ds.Not(ds.In(("ns",), ("y",))),
                                    ds.LessThan(("d",), dt.date(2200, 1, 1))]))
    assert [type(f).__name__ for f in left] == ["LessThan"]
    sql = reader.plan.sql(reader.plan.partitions[0])
    assert "(toString(`e`) > 'a')" in sql and "NOT (if(isNull(`ns`), NULL, `ns` IN ('y')))" in sql, sql
    # Another reader of the same source pushes its own filters only.
    assert "WHERE" not in source.reader(source.schema()).plan.sql(reader.plan.partitions[0])
    ch.command("DROP TABLE default.spark_pushed")


def test_tuple_elements_take_a_user_schemas_names_by_position(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_tuples")
    ch.command("CREATE TABLE default.spark_tuples (id Int32, t Tuple(Int32, Tuple(String, Int8))) ENGINE = Memory")
    ch.insert("default.spark_tuples", [(1, (10, ("x", 3)))])
    df = read(spark, nodes[0], schema="id INT, t STRUCT<a: BIGINT, b: STRUCT<c: STRING, d: INT>>",
              table="default.spark_tuples")
    r = df.collect()[0]
    assert (r.t.a, r.t.b.c, r.t.b.d) == (10, "x", 3)
    ch.command("DROP TABLE default.spark_tuples")


def test_options_are_checked_by_name(spark, nodes):
    with pytest.raises(Exception, match="option columns names id more than once"):
        read(spark, nodes[0], table="default.shard_dist", columns="id,id").collect()
    with pytest.raises(Exception, match="option numPartitions must be an integer"):
        read(spark, nodes[0], table="default.shard_dist", numPartitions="two").collect()
    with pytest.raises(Exception, match="partitionColumn splits a plain table or a query"):
        read(spark, nodes[0], table="default.shard_dist", partitionColumn="id", lowerBound="0",
             upperBound="10", numPartitions="2").collect()
    # A query may end in `;` or a comment.
    for q in ("SELECT 1 AS x;", "SELECT 1 AS x -- one"):
        assert [r.x for r in read(spark, nodes[0], query=q).collect()] == [1]
