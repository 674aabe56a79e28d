"""The catalog (`spark.sql.catalog.ch = chwire.spark.ChwireCatalog`) and the save modes:
Spark SQL's namespace and table statements against the rig's first server, overwrite through
the staged protocol (both sources), and what Spark does with each save mode."""

import pytest
from pyspark.sql import functions as F
from pyspark.errors import AnalysisException

DB = "jvm_cat"


def failing_partition(n):
    """A mapInArrow step whose partition `n` fails after its rows went by (a job that fails
    mid-write). Made inside a function so that Spark's workers get it by value: this test
    module is not importable there."""

    def step(batches):
        from pyspark import TaskContext

        for b in batches:
            yield b
        if TaskContext.get().partitionId() == n:
            raise RuntimeError(f"partition {n} always fails")

    return step


def stage_tables(ch):
    return ch.command("SELECT count() FROM system.tables WHERE startsWith(name, 'chwire_stage_')")


def column_types(ch, table):
    rows = ch.query_arrow(f"SELECT name, type FROM system.columns WHERE database = '{DB}' AND table = '{table}' "
                          "").to_pylist()
    return [(r["name"], r["type"]) for r in rows]


def table_meta(ch, table):
    rows = ch.query_arrow(f"SELECT engine, sorting_key, partition_key FROM system.tables "
                          f"WHERE database = '{DB}' AND name = '{table}'").to_pylist()
    return rows[0] if rows else None


def test_namespaces_and_tables_are_clickhouse_databases_and_tables(spark, ch, cat):
    dbs = [r[0] for r in spark.sql("SHOW NAMESPACES IN ch").collect()]
    assert DB in dbs and "system" in dbs
    ch.command(f"CREATE TABLE {DB}.t1 (id UInt32) ENGINE = Memory")
    ch.command(f"CREATE TABLE {DB}.chwire_stage_0123_1_0_1 (id UInt32) ENGINE = Memory")  # a write's own
    tables = [r.tableName for r in spark.sql(f"SHOW TABLES IN ch.{DB}").collect()]
    assert tables == ["t1"]
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND|NAMESPACE_NOT_FOUND|not found"):
        spark.sql("SHOW TABLES IN ch.jvm_cat_missing").collect()
    spark.sql("CREATE NAMESPACE ch.jvm_cat2")
    try:
        assert ch.command("SELECT count() FROM system.databases WHERE name = 'jvm_cat2'") == 1
        with pytest.raises(AnalysisException, match="already exists|ALREADY_EXISTS"):
            spark.sql("CREATE NAMESPACE ch.jvm_cat2")
        ch.command("CREATE TABLE jvm_cat2.x (a UInt8) ENGINE = Memory")
        with pytest.raises(AnalysisException, match="not empty|NOT_EMPTY"):
            spark.sql("DROP NAMESPACE ch.jvm_cat2")
        spark.sql("DROP NAMESPACE ch.jvm_cat2 CASCADE")
        assert ch.command("SELECT count() FROM system.databases WHERE name = 'jvm_cat2'") == 0
    finally:
        ch.command("DROP DATABASE IF EXISTS jvm_cat2")


@pytest.mark.both_servers
def test_create_insert_select_overwrite_drop_in_spark_sql(spark, ch, cat, old_server):
    spark.sql(f"""CREATE TABLE ch.{DB}.events (id BIGINT NOT NULL, name STRING, day DATE NOT NULL,
                  amount DECIMAL(18, 2), tags ARRAY<STRING> NOT NULL)
                  USING chwire PARTITIONED BY (months(day))
                  TBLPROPERTIES (engine = 'MergeTree', order_by = 'id')""")
    assert table_meta(ch, "events") == {"engine": "MergeTree", "sorting_key": "id", "partition_key": "toYYYYMM(day)"}
    # A date is a Date32 where the server has it (Date on 18.16).
    day = "Date" if old_server else "Date32"
    assert column_types(ch, "events") == [("id", "Int64"), ("name", "Nullable(String)"), ("day", day),
                                          ("amount", "Nullable(Decimal(18, 2))"), ("tags", "Array(Nullable(String))")]
    assert [r.tableName for r in spark.sql(f"SHOW TABLES IN ch.{DB}").collect()] == ["events"]

    spark.sql(f"""INSERT INTO ch.{DB}.events VALUES
                  (1, 'a', date'2024-01-05', 1.50, array('x', null)),
                  (2, null, date'2024-02-05', null, array())""")
    spark.sql(f"INSERT INTO ch.{DB}.events SELECT id, 'r', date'2024-03-01', 2.25, array('y') FROM range(3, 1003)")
    got = spark.sql(f"SELECT count(*), sum(id), count(name), sum(amount) FROM ch.{DB}.events").collect()[0]
    assert tuple(got) == (1002, sum(range(3, 1003)) + 3, 1001, pytest.approx(1.5 + 1000 * 2.25))
    first = spark.sql(f"SELECT * FROM ch.{DB}.events WHERE id <= 2 ORDER BY id").collect()
    assert [tuple(r) for r in first] == [
        (1, "a", __import__("datetime").date(2024, 1, 5), __import__("decimal").Decimal("1.50"), ["x", None]),
        (2, None, __import__("datetime").date(2024, 2, 5), None, [])]

    # INSERT OVERWRITE replaces every row (a filled copy swapped in), leaving no staging table.
    spark.sql(f"INSERT OVERWRITE ch.{DB}.events SELECT id, 'o', date'2024-04-01', 0, array() FROM range(10)")
    assert ch.command(f"SELECT count(), groupUniqArray(name) FROM {DB}.events") == [10, ["o"]]
    assert table_meta(ch, "events")["sorting_key"] == "id"
    assert stage_tables(ch) == 0

    # Reads through the catalog take the data source's options of their own.
    df = spark.read.option("numPartitions", "3").option("partitionColumn", "id").option("lowerBound", "0") \
        .option("upperBound", "10").table(f"ch.{DB}.events")
    assert df.rdd.getNumPartitions() == 3 and df.count() == 10

    spark.sql(f"DROP TABLE ch.{DB}.events")
    assert table_meta(ch, "events") is None
    spark.sql(f"DROP TABLE IF EXISTS ch.{DB}.events")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql(f"SELECT * FROM ch.{DB}.events").collect()


@pytest.mark.both_servers
def test_create_table_as_select_keeps_values_and_spark_types(spark, ch, cat, old_server):
    """CTAS maps each Spark type to the ClickHouse type that reads back as the same Spark type
    (in the server's types: Date and DateTime on 18.16, Date32 and DateTime64(6) on 26.9); a type
    without one on this server (boolean without Bool, binary) is refused before anything is
    created."""
    spark.sql(f"""CREATE TABLE ch.{DB}.ctas USING chwire TBLPROPERTIES (order_by = 'id') AS
                  SELECT id, cast(id AS TINYINT) AS b, cast(id AS SMALLINT) AS sh, cast(id AS INT) AS i,
                         cast(id AS FLOAT) / 4 AS f, id / 3 AS d, cast(id AS STRING) AS s,
                         cast(id * 1.25 AS DECIMAL(30, 4)) AS dec, date_add(date'2000-01-01', cast(id AS INT)) AS dt,
                         timestamp_seconds(1700000000 + id) AS ts, array(id, null) AS arr,
                         if(id % 2 = 0, null, id) AS maybe
                  FROM range(50)""")
    assert table_meta(ch, "ctas")["sorting_key"] == "id"
    types = dict(column_types(ch, "ctas"))
    # Nullable where Spark says a column may hold NULL (the catalog keeps the query's nullability).
    assert types["id"] == "Int64" and types["b"] == "Int8"
    assert (types["dt"], types["ts"]) == (("Date", "DateTime") if old_server else ("Date32", "DateTime64(6)"))
    assert types["arr"] == "Array(Nullable(Int64))" and types["maybe"] == "Nullable(Int64)"
    back = spark.table(f"ch.{DB}.ctas")
    want = spark.sql("""SELECT id, cast(id AS TINYINT) AS b, cast(id AS SMALLINT) AS sh, cast(id AS INT) AS i,
                         cast(id AS FLOAT) / 4 AS f, id / 3 AS d, cast(id AS STRING) AS s,
                         cast(id * 1.25 AS DECIMAL(30, 4)) AS dec, date_add(date'2000-01-01', cast(id AS INT)) AS dt,
                         timestamp_seconds(1700000000 + id) AS ts, array(id, null) AS arr,
                         if(id % 2 = 0, null, id) AS maybe FROM range(50)""")
    assert [f.dataType for f in back.schema.fields] == [f.dataType for f in want.schema.fields]
    assert sorted(tuple(r) for r in back.collect()) == sorted(tuple(r) for r in want.collect())
    refused = [("cast(cast(id AS STRING) AS BINARY)", "cast the column to string")]
    if old_server:
        refused.append(("id % 2 = 0", "no Bool type"))
    for col, why in refused:
        with pytest.raises(Exception, match=f"column 'c': no ClickHouse type for Spark type .*{why}"):
            spark.sql(f"CREATE TABLE ch.{DB}.refused USING chwire AS SELECT {col} AS c FROM range(3)")
        assert table_meta(ch, "refused") is None


@pytest.mark.both_servers
def test_catalog_errors_are_spark_errors_or_name_the_problem(spark, ch, cat, old_server):
    ch.command(f"CREATE TABLE {DB}.have (id UInt8) ENGINE = Memory")
    with pytest.raises(AnalysisException, match="already exists|ALREADY_EXISTS"):
        spark.sql(f"CREATE TABLE ch.{DB}.have (id INT) USING chwire")
    spark.sql(f"CREATE TABLE IF NOT EXISTS ch.{DB}.have (id INT) USING chwire")  # a no-op
    with pytest.raises(Exception, match="table property 'engin'"):
        spark.sql(f"CREATE TABLE ch.{DB}.bad (id INT) USING chwire TBLPROPERTIES (engin = 'Log')")
    # 18.16 has no Map; 26.9 has, but no type that reads back as binary.
    col, refused = ("MAP<STRING, INT>", "map") if old_server else ("BINARY", "binary")
    with pytest.raises(Exception, match=f"column 'm': no ClickHouse type for Spark type {refused}"):
        spark.sql(f"CREATE TABLE ch.{DB}.bad (m {col}) USING chwire")
    with pytest.raises(Exception, match="SCHEMA_NOT_FOUND|NAMESPACE_NOT_FOUND|not found"):
        spark.sql("CREATE TABLE ch.jvm_cat_missing.t (id INT) USING chwire")
    with pytest.raises(Exception, match="ClickHouse error"):  # the server's own refusal, with its code
        spark.sql(f"CREATE TABLE ch.{DB}.bad (id INT) USING chwire TBLPROPERTIES (order_by = 'no_such_column')")
    assert table_meta(ch, "bad") is None
    spark.sql(f"ALTER TABLE ch.{DB}.have RENAME TO {DB}.renamed")
    assert table_meta(ch, "renamed") is not None and table_meta(ch, "have") is None


@pytest.mark.parametrize("source", ["jvm", "python"])
def test_overwrite_replaces_the_rows_exactly_once(spark, ch, nodes, request, source):
    fmt = "chwire" if source == "jvm" else request.getfixturevalue("python_source")
    ch.command("DROP TABLE IF EXISTS default.jvm_ow")
    ch.command("CREATE TABLE default.jvm_ow (id Int64, s String) ENGINE = MergeTree ORDER BY id")
    ch.command("INSERT INTO default.jvm_ow SELECT number, 'old' FROM system.numbers LIMIT 500")

    try:
        new = spark.range(0, 3000, numPartitions=3).selectExpr("id", "'new' AS s")
        # A failed overwrite leaves the old rows, and no staging table.
        with pytest.raises(Exception, match="partition 1 always fails"):
            (new.mapInArrow(failing_partition(1), "id long, s string").write.format(fmt).option("url", nodes[0])
             .option("table", "default.jvm_ow").mode("overwrite").save())
        assert ch.command("SELECT count(), groupUniqArray(s) FROM default.jvm_ow") == [500, ["old"]]
        assert stage_tables(ch) == 0
        new.write.format(fmt).option("url", nodes[0]).option("table", "default.jvm_ow").mode("overwrite").save()
        assert ch.command("SELECT count(), uniqExact(id), groupUniqArray(s) FROM default.jvm_ow") == [3000, 3000, ["new"]]
        assert ch.command("SELECT sorting_key FROM system.tables WHERE database = 'default' AND name = 'jvm_ow'") == "id"
        assert stage_tables(ch) == 0
    finally:
        ch.command("DROP TABLE IF EXISTS default.jvm_ow")


def test_overwrite_of_a_distributed_table_is_refused(spark, nodes):
    df = spark.range(3)
    with pytest.raises(Exception, match="cannot overwrite shard_dist: its engine Distributed"):
        df.write.format("chwire").option("url", nodes[0]).option("table", "shard_dist").mode("overwrite").save()


def test_save_modes_as_spark_defines_them(spark, ch, nodes, cat):
    """format("chwire") is a TableProvider: append and overwrite; Spark itself refuses its other
    modes. Through the catalog (saveAsTable, writeTo) every mode works."""
    df = spark.range(0, 100).selectExpr("id", "cast(id AS STRING) AS s")
    with pytest.raises(AnalysisException, match="ErrorIfExists"):
        df.write.format("chwire").option("url", nodes[0]).option("table", f"{DB}.x").save()  # the default mode
    name = f"ch.{DB}.saved"
    df.write.saveAsTable(name)  # ErrorIfExists, absent: created (MergeTree ORDER BY tuple())
    assert table_meta(ch, "saved") == {"engine": "MergeTree", "sorting_key": "", "partition_key": ""}
    with pytest.raises(AnalysisException, match="already exists|ALREADY_EXISTS"):
        df.write.saveAsTable(name)
    df.limit(1).write.mode("ignore").saveAsTable(name)
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 100
    df.limit(10).write.mode("append").saveAsTable(name)
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 110
    df.limit(5).writeTo(name).append()
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 115
    df.limit(7).writeTo(name).overwrite(F.lit(True))
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 7
    df.limit(3).write.mode("overwrite").saveAsTable(name)  # Spark replaces the table: drop, create
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 3
    # Table properties (engine and clauses) come with writeTo's tableProperty.
    df.limit(4).writeTo(name).tableProperty("order_by", "id").createOrReplace()
    assert ch.command(f"SELECT count() FROM {DB}.saved") == 4
    assert table_meta(ch, "saved")["sorting_key"] == "id"
    assert stage_tables(ch) == 0


def test_replace_and_ctas_are_atomic(spark, ch, cat):
    """The catalog stages CREATE/REPLACE ... AS SELECT (StagingTableCatalog): a failed job
    leaves the old table (engine, keys, rows) or no table; a successful one swaps in the new
    table whole."""
    ch.command(f"CREATE TABLE {DB}.keep (id Int64, s String) ENGINE = ReplacingMergeTree ORDER BY id")
    ch.command(f"INSERT INTO {DB}.keep SELECT number, 'old' FROM system.numbers LIMIT 100")

    failing = spark.range(0, 3000, numPartitions=3).selectExpr("id", "'new' AS s") \
        .mapInArrow(failing_partition(1), "id long, s string")
    for write in (lambda: failing.write.mode("overwrite").saveAsTable(f"ch.{DB}.keep"),
                  lambda: failing.writeTo(f"ch.{DB}.keep").createOrReplace(),
                  lambda: failing.writeTo(f"ch.{DB}.fresh").create()):
        with pytest.raises(Exception, match="partition 1 always fails"):
            write()
        assert table_meta(ch, "keep") == {"engine": "ReplacingMergeTree", "sorting_key": "id", "partition_key": ""}
        assert ch.command(f"SELECT count(), groupUniqArray(s) FROM {DB}.keep") == [100, ["old"]]
        assert table_meta(ch, "fresh") is None
        assert stage_tables(ch) == 0
    new = spark.range(0, 3000, numPartitions=3).selectExpr("id", "'new' AS s")
    new.writeTo(f"ch.{DB}.keep").tableProperty("order_by", "id").createOrReplace()
    assert ch.command(f"SELECT count(), groupUniqArray(s) FROM {DB}.keep") == [3000, ["new"]]
    assert table_meta(ch, "keep") == {"engine": "MergeTree", "sorting_key": "id", "partition_key": ""}
    spark.sql(f"CREATE TABLE ch.{DB}.fresh USING chwire TBLPROPERTIES (order_by = 'id') AS SELECT id FROM range(7)")
    assert ch.command(f"SELECT count() FROM {DB}.fresh") == 7
    assert stage_tables(ch) == 0


def test_a_tables_engine_and_keys_are_its_properties(spark, ch, cat):
    """DESCRIBE EXTENDED, SHOW TBLPROPERTIES and SHOW CREATE TABLE show a catalog table's engine
    (with its arguments), keys and settings as the properties CREATE TABLE takes, and SHOW
    CREATE TABLE's statement makes the same table again (its columns of Spark's types: the
    sampling key is a hash, since 26.9 samples only by an unsigned integer, and Spark's
    integers are signed)."""
    ch.command(f"CREATE TABLE {DB}.props (id Int64, v UInt32, d Date, s String) ENGINE = ReplacingMergeTree(v) "
               "PARTITION BY toYYYYMM(d) ORDER BY (id, intHash32(id), d) SAMPLE BY intHash32(id) "
               "SETTINGS index_granularity = 4096")
    try:
        props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES ch.{DB}.props").collect()}
        assert props == {"engine": "ReplacingMergeTree(v)", "partition_by": "toYYYYMM(d)",
                         "order_by": "(id, intHash32(id), d)", "sample_by": "intHash32(id)",
                         "settings": "index_granularity = 4096"}
        described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED ch.{DB}.props").collect()}
        assert "engine=ReplacingMergeTree(v)" in described["Table Properties"]
        create = spark.sql(f"SHOW CREATE TABLE ch.{DB}.props").collect()[0][0]
        assert "'engine' = 'ReplacingMergeTree(v)'" in create and "'order_by' = '(id, intHash32(id), d)'" in create, create
        # The statement Spark shows makes the same table (under another name).
        spark.sql(create.replace(f"{DB}.props", f"{DB}.props_again"))
        assert table_meta(ch, "props_again") == {"engine": "ReplacingMergeTree", "sorting_key": "id, intHash32(id), d",
                                                 "partition_key": "toYYYYMM(d)"}
        assert ch.command(f"SELECT engine_full FROM system.tables WHERE database = '{DB}' AND name = 'props_again'") == \
            ch.command(f"SELECT engine_full FROM system.tables WHERE database = '{DB}' AND name = 'props'")
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
            spark.sql(f"SHOW TBLPROPERTIES ch.{DB}.nope").collect()
    finally:
        ch.command(f"DROP TABLE IF EXISTS {DB}.props")
        ch.command(f"DROP TABLE IF EXISTS {DB}.props_again")
