"""Edges of the catalog and the staged writes found by probing them as a user would: materialized
views fed by appends, a catalog table's per-read and per-write options, URLs the write path
rewrote, the server's own databases, char/varchar columns."""

import pytest

DB = "jvm_edge"


@pytest.mark.parametrize("source", ["jvm", "python"])
def test_an_append_reaches_the_materialized_views_of_its_target(spark, ch, nodes, cat, request, source):
    """Attached parts bypass materialized views: a MergeTree target that views read gets its
    rows by INSERT ... SELECT, so every view sees them (through the catalog too)."""
    fmt = "chwire" if source == "jvm" else request.getfixturevalue("python_source")
    ch.command(f"CREATE TABLE {DB}.src (id Int64, s String) ENGINE = MergeTree ORDER BY id")
    ch.command(f"CREATE MATERIALIZED VIEW {DB}.per_s ENGINE = SummingMergeTree ORDER BY s "
               f"AS SELECT s, count() AS c FROM {DB}.src GROUP BY s")
    ch.command(f"CREATE TABLE {DB}.plain (id Int64, s String) ENGINE = MergeTree ORDER BY id")
    df = spark.range(0, 300, numPartitions=3).selectExpr("id", f"'{source}' AS s")
    df.write.format(fmt).option("url", nodes[0]).option("table", f"{DB}.src").mode("append").save()
    spark.sql(f"INSERT INTO ch.{DB}.src SELECT id, 'catalog' FROM range(0, 50, 1, 2)")
    assert ch.command(f"SELECT count() FROM {DB}.src") == 350
    got = ch.query_arrow(f"SELECT s, sum(c) AS c FROM {DB}.per_s GROUP BY s ORDER BY s").to_pylist()
    assert got == sorted([{"s": source, "c": 300}, {"s": "catalog", "c": 50}], key=lambda r: r["s"])
    # A target without views still takes the staged parts as they are.
    df.write.format(fmt).option("url", nodes[0]).option("table", f"{DB}.plain").mode("append").save()
    assert ch.command(f"SELECT count(), uniqExact(id) FROM {DB}.plain") == [300, 300]
    assert ch.command(f"SELECT count() FROM system.tables WHERE database = '{DB}' AND startsWith(name, 'chwire_stage_')") == 0


def test_a_catalog_tables_options_are_its_own_never_another_table(spark, ch, nodes, cat):
    # r: each row's place in the block the write inserted it in.
    ch.command(f"CREATE TABLE {DB}.t (id Int64, s String, r UInt64 MATERIALIZED rowNumberInBlock()) "
               "ENGINE = MergeTree ORDER BY id")
    ch.command(f"CREATE TABLE {DB}.other (id Int64, s String) ENGINE = MergeTree ORDER BY id")
    ch.command(f"INSERT INTO {DB}.other SELECT number, 'other' FROM system.numbers LIMIT 5")
    t = f"ch.{DB}.t"
    # A read or a write that names another table or a query is refused, not served from it.
    for key, value in [("table", f"{DB}.other"), ("dbtable", f"{DB}.other"), ("query", "SELECT 1 AS id, 'q' AS s")]:
        with pytest.raises(Exception, match=f"option '{key}' names what to read or write"):
            spark.read.option(key, value).table(t).collect()
        with pytest.raises(Exception, match=f"option '{key}' names what to read or write"):
            spark.range(3).selectExpr("id", "'w' AS s").writeTo(t).option(key, value).append()
    other_server = nodes[1]
    with pytest.raises(Exception, match="option 'url' differs from catalog ch's"):
        spark.read.option("url", other_server).table(t).collect()
    with pytest.raises(Exception, match="option 'url' differs from catalog ch's"):
        spark.range(3).selectExpr("id", "'w' AS s").writeTo(t).option("url", other_server).append()
    spark.range(3).selectExpr("id", "'w' AS s").writeTo(t).option("url", nodes[0]).append()  # the same: fine
    assert ch.command(f"SELECT count() FROM {DB}.t") == 3
    ch.command(f"TRUNCATE TABLE {DB}.t")
    assert ch.command(f"SELECT count() FROM {DB}.other") == 5
    # A write's own options count (a bad one is an error, as for format("chwire")) ...
    with pytest.raises(Exception, match=r"block_rows=\"0\" \(at least 1 row\)"):
        spark.range(3).selectExpr("id", "'w' AS s").writeTo(t).option("blockRows", "0").append()
    # ... and a good one is used: 10 rows in blocks of 3 (the catalog's default is one block).
    # 26.9 squashes an INSERT's small blocks into blocks of min_insert_block_size_rows (18.16
    # kept them): 1 keeps each block as sent, so rowNumberInBlock() shows the blocks; the
    # setting, an option of the write, is used too.
    spark.range(0, 10, numPartitions=1).selectExpr("id", "'w' AS s").writeTo(t).option("blockRows", "3") \
        .option("setting.min_insert_block_size_rows", "1").append()
    assert ch.command(f"SELECT count(), max(r) FROM {DB}.t") == [10, 2]
    spark.range(0, 10, numPartitions=1).selectExpr("id", "'d' AS s").writeTo(t).append()
    assert ch.command(f"SELECT count(), max(r) FROM {DB}.t WHERE s = 'd'") == [10, 9]


def test_a_url_the_connector_cannot_read_is_refused_as_given(spark, nodes):
    """The write path rewrites the URL's host list to the host it picked; a URL chwire cannot
    read was rewritten into another one (`http//x` into `http:9000//x`, host 9000 = 0.0.35.40),
    and a host without a port of an http:// URL got the native port 9000."""
    df = spark.range(2)
    for fmt in ["chwire"]:
        with pytest.raises(Exception, match='option url "http//nonsense".*invalid URL'):
            df.write.format(fmt).option("url", "http//nonsense").option("table", "t").mode("append").save()
        with pytest.raises(Exception, match='option url "http//nonsense".*invalid URL'):
            spark.read.format(fmt).option("url", "http//nonsense").option("table", "t").load()
        # Read and write reach the same port: HTTP's 8123 (nothing listens there on the rig).
        for act in [lambda: spark.read.format(fmt).option("url", "http://default@127.0.0.1/default")
                    .option("table", "shard_dist").load(),
                    lambda: df.write.format(fmt).option("url", "http://default@127.0.0.1/default")
                    .option("table", "shard_dist").mode("append").save()]:
            with pytest.raises(Exception, match="127.0.0.1:8123"):
                act()


def test_the_catalog_does_not_drop_the_servers_databases(spark, ch, cat):
    # Without CASCADE (a broken guard then stops at "not empty": the test never drops it).
    with pytest.raises(Exception, match="database system is the server's own"):
        spark.sql("DROP NAMESPACE ch.system")
    assert ch.command("SELECT count() FROM system.databases WHERE name = 'system'") == 1


def test_char_and_varchar_columns_are_refused_with_what_to_declare(spark, ch, cat):
    for t in ["VARCHAR(10)", "CHAR(3)"]:
        with pytest.raises(Exception, match=r"column 'c': .*declare the column STRING"):
            spark.sql(f"CREATE TABLE ch.{DB}.cv (id INT, c {t}) USING chwire")
        assert ch.command(f"SELECT count() FROM system.tables WHERE database = '{DB}' AND name = 'cv'") == 0
