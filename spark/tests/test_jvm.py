"""The JVM connector: reads through JNI and the C Data Interface, the shared rules' plans and
filters, pushdown results equal to Spark's own evaluation, errors, and native memory."""

import datetime as dt
import decimal
import json
import re

import pytest
from pyspark.sql import functions as F

JVM = "chwire"  # DataSourceRegister of the jar
ALL_IDS = list(range(30000))


def read(spark, url, fmt=JVM, **opts):
    r = spark.read.format(fmt).option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


def scan_description(df):
    plan = df._jdf.queryExecution().executedPlan().toString()
    m = re.search(r"chwire \[columns: [^\n]*", plan)
    assert m, plan
    return m.group(0)


def test_distributed_table_is_read_one_partition_per_shard(spark, nodes, jvm):
    df = read(spark, nodes[0], table="shard_dist")
    assert df.rdd.getNumPartitions() == 3
    rows = df.collect()
    assert sorted(int(r.id) for r in rows) == ALL_IDS
    # each shard's rows in one partition: the shard's local table read on its own node
    per = df.select(F.spark_partition_id().alias("p"), "id").groupBy("p").count().collect()
    assert sorted(r["count"] for r in per) == sorted(
        int(c) for c in [read(spark, u, table="shard_local").count() for u in nodes])
    assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)


def test_both_sources_plan_the_same_partitions_and_return_the_same_rows(spark, nodes, python_source):
    """The partitions come from one planner (chwire-spark-core): the same number, and each
    partition holds the same rows, through the JVM and the Python source alike."""
    for opts in [dict(table="shard_dist"), dict(table="shard_dist", numPartitions="7"),
                 dict(table="shard_local", cluster="chwire_cluster"),
                 dict(query="SELECT number AS id, toString(number) AS s FROM system.numbers LIMIT 1000",
                      partitionColumn="id", lowerBound="100", upperBound="900", numPartitions="4")]:
        jdf, pdf = read(spark, nodes[0], **opts), read(spark, nodes[0], fmt=python_source, **opts)
        assert jdf.rdd.getNumPartitions() == pdf.rdd.getNumPartitions(), opts
        assert jdf.schema == pdf.schema, opts

        def by_partition(df):
            rows = df.select(F.spark_partition_id().alias("p"), *df.columns).collect()
            return sorted(tuple(r) for r in rows)

        assert by_partition(jdf) == by_partition(pdf), opts


TYPES = [
    ("i8", "Int8", "-8", "NULL"),
    ("u8", "UInt8", "200", None),
    ("i16", "Int16", "-1600", None),
    ("u16", "UInt16", "60000", None),
    ("i32", "Int32", "-32", None),
    ("u32", "UInt32", "4000000000", None),
    ("i64", "Int64", "-9000000000000000000", None),
    ("u64", "UInt64", "18446744073709551615", None),
    ("f32", "Float32", "1.5", None),
    ("f64", "Float64", "2.25", None),
    ("s", "String", "'héllo'", None),
    ("fs", "FixedString(3)", "'abc'", None),
    ("d", "Date", "'2021-02-03'", None),
    ("t", "DateTime('UTC')", "'2021-02-03 04:05:06'", None),
    ("dec", "Decimal(18, 4)", "toDecimal64('12.3456', 4)", None),
    ("dec38", "Decimal(38, 2)", "toDecimal128('-1.25', 2)", None),
    ("u", "UUID", "toUUID('01234567-89ab-cdef-0123-456789abcdef')", None),
    ("e8", "Enum8('a' = 1, 'b' = 2)", "'b'", None),
    ("e16", "Enum16('x' = 1000)", "'x'", None),
    ("lc", "LowCardinality(String)", "'low'", None),
    ("arr", "Array(Int64)", "[1, 2, 3]", None),
    ("arrn", "Array(Nullable(String))", "['a', NULL]", None),
    ("arru", "Array(UUID)", "[toUUID('01234567-89ab-cdef-0123-456789abcdef')]", None),
    ("arr2", "Array(Array(UInt8))", "[[1], [2, 3]]", None),
    ("tup", "Tuple(Int32, String)", "(1, 'x')", None),
    ("nt", "Nullable(DateTime('UTC'))", "'2001-01-01 00:00:00'", None),
]
NULLABLE = ["Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float32",
            "Float64", "String", "FixedString(3)", "Date", "DateTime('UTC')", "Decimal(18, 4)",
            "Decimal(38, 2)", "UUID", "Enum8('a' = 1, 'b' = 2)"]


@pytest.mark.both_servers
def test_every_18_16_type_and_nulls_read_as_the_python_source_reads_them(spark, ch, nodes, python_source):
    ch.command("DROP TABLE IF EXISTS default.jvm_types")
    cols = [(n, t, v) for n, t, v, _ in TYPES] + [(f"n_{i}", f"Nullable({t})", "NULL") for i, t in enumerate(NULLABLE)]
    ch.command(f"CREATE TABLE default.jvm_types ({', '.join(f'{n} {t}' for n, t, _ in cols)}) ENGINE = Memory")
    ch.command(f"INSERT INTO default.jvm_types SELECT {', '.join(v for _, _, v in cols)}")
    # a second row: the nullable columns hold values, others their defaults
    ch.command("INSERT INTO default.jvm_types (" + ", ".join(f"n_{i}" for i in range(len(NULLABLE))) + ") SELECT "
               + ", ".join(v for n, t, v, _ in TYPES if t in NULLABLE or f"Nullable({t})" in NULLABLE
                           if t in NULLABLE))
    try:
        jdf = read(spark, nodes[0], table="default.jvm_types")
        pdf = read(spark, nodes[0], fmt=python_source, table="default.jvm_types")
        assert jdf.schema == pdf.schema
        got = sorted(jdf.collect(), key=lambda r: r.n_0 is None)
        want = sorted(pdf.collect(), key=lambda r: r.n_0 is None)
        assert [r.asDict(recursive=True) for r in got] == [r.asDict(recursive=True) for r in want]
        first = got[1].asDict(recursive=True)  # the row of values
        assert first["u64"] == decimal.Decimal(18446744073709551615)
        assert first["t"] == dt.datetime(2021, 2, 3, 4, 5, 6)
        assert first["arrn"] == ["a", None] and first["fs"] == b"abc" and first["e16"] == "x"
        assert all(first[f"n_{i}"] is None for i in range(len(NULLABLE)))
        assert all(got[0][f"n_{i}"] is not None for i in range(len(NULLABLE)))
    finally:
        ch.command("DROP TABLE default.jvm_types")


def test_only_the_columns_used_are_read(spark, nodes):
    df = read(spark, nodes[0], table="shard_dist")
    q = df.select("name").where(F.col("name").startswith("12"))
    assert "[columns: name]" in scan_description(q)
    assert sorted(r.name for r in q.collect()) == sorted(str(i) for i in ALL_IDS if str(i).startswith("12"))
    ones = df.selectExpr("1 AS one")  # no column at all: rows only
    assert "[columns: ]" in scan_description(ones)
    assert len(ones.collect()) == 30000
    assert df.count() == 30000  # a COUNT(*) pushed whole
    assert "[aggregate: [COUNT(*)]" in scan_description(df.groupBy().count())


FILTERS = [
    "k > 2", "k <= 7 AND s <> 'c'", "s LIKE 'a%'", "s LIKE '%_b'", "s LIKE '%\\%%'", "e = 'b'", "e < 'b'",
    "e IN ('a', 'zz')", "NOT (n IN (1, 5))", "n IS NULL", "n IS NOT NULL", "d >= DATE'2020-01-02'",
    "d < DATE'1900-01-01'", "d = DATE'2200-01-01'", "k IN (1, 3, 99)", "NOT (s = 'x')", "f > 0.5",
    "u64 = 3", "2 < k", "NOT (e IN ('a'))",
]


@pytest.mark.both_servers
def test_filters_pushed_give_what_spark_gives(spark, ch, nodes):
    """Each filter through the JVM source (pushed where the shared rules allow) against Spark's
    own evaluation of the same filter over the same rows read without it."""
    ch.command("DROP TABLE IF EXISTS default.jvm_filters")
    ch.command("CREATE TABLE default.jvm_filters (k Int32, s String, e Enum8('b' = 1, 'a' = 2), "
               "n Nullable(Int16), d Date, f Float64, u64 UInt64) ENGINE = MergeTree ORDER BY k")
    D = dt.date
    ch.insert("default.jvm_filters", [(1, "a%b", "a", None, D(2020, 1, 1), 0.25, 1),
                                      (2, "a_b", "b", 5, D(2020, 1, 2), 1.5, 2),
                                      (3, "xab", "a", 1, D(2020, 1, 3), float("nan"), 3),
                                      (7, "c", "b", 2, D(1970, 1, 1), -1.0, 4),
                                      (9, "x", "a", None, D(2105, 12, 31), 2.0, 5)])
    try:
        df = read(spark, nodes[0], table="default.jvm_filters")
        local = spark.createDataFrame(df.collect(), df.schema)
        kept = []
        for f in FILTERS:
            q = df.where(f)
            got = sorted(repr(tuple(r)) for r in q.collect())  # NaN equals itself as text
            want = sorted(repr(tuple(r)) for r in local.where(f).collect())
            assert got == want, f
            if "pushed: []" in scan_description(q):
                kept.append(f)
        # Floats (NaN), UInt64 (a decimal in Spark), dates outside Date's range and LIKE
        # patterns other than a prefix/suffix/substring (no V2 predicate) stay with Spark;
        # every other filter runs in ClickHouse.
        assert kept == ["s LIKE '%_b'", "s LIKE '%\\%%'", "d < DATE'1900-01-01'", "d = DATE'2200-01-01'", "f > 0.5", "u64 = 3"]
        assert "pushed: []" in scan_description(df.where("f > 0.5"))
        assert "toString(`e`) < 'b'" in scan_description(df.where("e < 'b'"))
    finally:
        ch.command("DROP TABLE default.jvm_filters")


def test_a_limit_is_pushed(spark, nodes, jvm):
    df = read(spark, nodes[0], table="shard_dist").limit(5)
    assert "[limit: 5]" in scan_description(df)
    assert len(df.collect()) == 5
    assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)


def test_clickhouse_errors_reach_the_user_with_code_and_text(spark, nodes):
    with pytest.raises(Exception, match=r"ClickHouse error 60 \(UNKNOWN_TABLE\)"):
        read(spark, nodes[0], query="SELECT * FROM default.jvm_no_such_table").collect()
    with pytest.raises(Exception, match=r"table default.jvm_nope does not exist"):
        read(spark, nodes[0], table="default.jvm_nope").collect()
    with pytest.raises(Exception, match="option numPartitions must be an integer"):
        read(spark, nodes[0], table="shard_dist", numPartitions="x").collect()


def test_a_task_failing_mid_read_leaks_nothing(spark, nodes, jvm):
    """The server fails the query after several blocks were read: the error (with its code)
    fails the job, and every reader, batch and allocator is closed."""
    q = ("SELECT number, throwIf(number = 150000) AS x FROM system.numbers LIMIT 200000 "
         "SETTINGS max_block_size = 10000")
    with pytest.raises(Exception, match=r"ClickHouse error 395 \(FUNCTION_THROW_IF_VALUE_IS_NON_ZERO\)"):
        read(spark, nodes[0], query=q).collect()
    assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)
    assert read(spark, nodes[0], query=q.replace("150000", "999999")).count() == 200000
    assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)


def test_a_cancelled_job_cancels_its_query_on_the_server(spark, ch, nodes, jvm):
    import threading
    import time

    marker = "jvm_cancel_" + str(time.time_ns())
    # 18.16 refuses to sleep more than 3 s per block: small blocks
    q = (f"SELECT number, '{marker}' AS m FROM system.numbers WHERE sleepEachRow(0.001) = 0 "
         "SETTINGS max_block_size = 100")
    sc = spark.sparkContext

    def run():
        sc.setJobGroup(marker, "cancel me", interruptOnCancel=True)
        try:
            read(spark, nodes[0], query=q).collect()
        except Exception:
            pass

    t = threading.Thread(target=run)
    t.start()
    running = "SELECT count() FROM system.processes WHERE query LIKE '%" + marker + "%' AND query NOT LIKE '%processes%'"
    deadline = time.monotonic() + 30
    while ch.command(running) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ch.command(running) == 1
    sc.cancelJobGroup(marker)
    t.join(30)
    deadline = time.monotonic() + 10
    while ch.command(running) != 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ch.command(running) == 0
    assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)


def test_both_sources_in_one_session(spark, nodes):
    """With the jar loaded, `format("chwire")` is the JVM connector: Spark refuses to register a
    Python data source under the short name of a DataSourceRegister; the PySpark source is used
    under a name of its own (the `python_source` fixture)."""
    from chwire.spark import ChwireDataSource

    with pytest.raises(Exception, match="chwire"):
        spark.dataSource.register(ChwireDataSource)
    df = read(spark, nodes[0], table="shard_dist")
    assert "BatchScan chwire" in df._jdf.queryExecution().executedPlan().toString()
    assert df.count() == 30000


def count_stage_tables(ch):
    return ch.command("SELECT count() FROM system.tables WHERE startsWith(name, 'chwire_stage_')")


def write(df, url, table, fmt=JVM, **opts):
    w = df.write.format(fmt).option("url", url).option("table", table)
    for k, v in opts.items():
        w = w.option(k, v)
    w.mode("append").save()


@pytest.mark.parametrize("engine", ["MergeTree ORDER BY id", "Log"])
def test_rows_written_are_the_rows_of_the_dataframe(spark, ch, nodes, jvm, engine):
    """Through the staged protocol: a MergeTree target gets the staging tables' parts attached,
    any other engine an INSERT ... SELECT from them."""
    ch.command("DROP TABLE IF EXISTS default.jvm_w")
    ch.command(f"CREATE TABLE default.jvm_w (id Int64, s String, d Date, f Float64, n Nullable(Int32), "
               f"t DateTime('UTC')) ENGINE = {engine}")
    try:
        df = spark.range(0, 20000, numPartitions=4).selectExpr(
            "id", "cast(id as string) as s", "date_add(date'2020-01-01', cast(id % 100 as int)) as d",
            "id / 2 as f", "if(id % 3 = 0, null, cast(id as int)) as n",
            "timestamp_seconds(1600000000 + id) as t")
        write(df, nodes[0], "default.jvm_w", blockRows="3000")
        got = read(spark, nodes[0], table="default.jvm_w").orderBy("id").collect()
        assert [tuple(r) for r in got] == [tuple(r) for r in df.orderBy("id").collect()]
        assert count_stage_tables(ch) == 0
        assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)
    finally:
        ch.command("DROP TABLE default.jvm_w")


@pytest.mark.parametrize("source", ["jvm", "python"])
def test_a_column_whose_type_does_not_fit_is_refused_before_any_task_runs(spark, ch, nodes, request, source):
    """The shared write protocol checks the DataFrame's types against the table on the driver
    (both sources): no task runs, so no attempt's commit is denied in its place."""
    fmt = JVM if source == "jvm" else request.getfixturevalue("python_source")
    ch.command("DROP TABLE IF EXISTS default.jvm_w_bad")
    ch.command("CREATE TABLE default.jvm_w_bad (id Int64, v Float64) ENGINE = MergeTree ORDER BY id")
    try:
        df = spark.range(0, 10).selectExpr("id", "cast(id as decimal(20, 2)) as v")
        jobs_before = len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))
        with pytest.raises(Exception, match="column v: Arrow type Decimal128") as e:
            write(df, nodes[0], "default.jvm_w_bad", fmt=fmt)
        assert "Commit denied" not in str(e.value)
        assert len(spark.sparkContext.statusTracker().getJobIdsForGroup(None)) == jobs_before
        assert ch.command("SELECT count() FROM default.jvm_w_bad") == 0
        assert count_stage_tables(ch) == 0
    finally:
        ch.command("DROP TABLE default.jvm_w_bad")


def test_a_task_killed_mid_write_neither_loses_nor_duplicates_rows(spark, ch, nodes, tmp_path):
    """The first attempt of partition 1 dies (its Python worker exits, as a crash) after several
    of its blocks reached its staging table; Spark runs it again, and the target holds every row
    exactly once."""
    import os
    import time

    ch.command("DROP TABLE IF EXISTS default.jvm_w_kill")
    ch.command("CREATE TABLE default.jvm_w_kill (id Int64, name String) ENGINE = MergeTree ORDER BY id")
    marker = str(tmp_path / "killed")
    n = 40000

    def kill_first_attempt_of_partition_1(batches):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        seen = 0
        for b in batches:
            yield b
            seen += b.num_rows
            if ctx.partitionId() == 1 and ctx.attemptNumber() == 0 and seen >= 5000:
                time.sleep(0.5)  # let the writer insert the blocks so far
                open(marker, "w").close()
                os._exit(1)

    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "1000")
    try:
        df = (spark.range(0, n, numPartitions=4).selectExpr("id", "cast(id as string) as name")
              .mapInArrow(kill_first_attempt_of_partition_1, "id long, name string"))
        write(df, nodes[0], "default.jvm_w_kill", blockRows="1000")
        assert os.path.exists(marker), "the first attempt of partition 1 was not killed"
        assert ch.command("SELECT count(), uniqExact(id), sum(id) FROM default.jvm_w_kill") == [n, n, n * (n - 1) // 2]
        assert count_stage_tables(ch) == 0
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
        ch.command("DROP TABLE default.jvm_w_kill")


def test_a_failed_job_leaves_the_target_and_no_staging_tables(spark, ch, nodes, jvm):
    ch.command("DROP TABLE IF EXISTS default.jvm_w_fail")
    ch.command("CREATE TABLE default.jvm_w_fail (id Int64) ENGINE = MergeTree ORDER BY id")
    ch.command("INSERT INTO default.jvm_w_fail SELECT number FROM system.numbers LIMIT 7")

    def always_fail_partition_2(batches):
        from pyspark import TaskContext

        for b in batches:
            yield b
        if TaskContext.get().partitionId() == 2:
            raise RuntimeError("partition 2 always fails")

    try:
        df = spark.range(0, 20000, numPartitions=4).mapInArrow(always_fail_partition_2, "id long")
        with pytest.raises(Exception, match="partition 2 always fails"):
            write(df, nodes[0], "default.jvm_w_fail", blockRows="1000")
        assert ch.command("SELECT count() FROM default.jvm_w_fail") == 7
        assert count_stage_tables(ch) == 0
        assert (jvm.openReaders(), jvm.allocatedBytes()) == (0, 0)
    finally:
        ch.command("DROP TABLE default.jvm_w_fail")


AGGREGATES = [  # (GROUP BY column, [(function, column)])
    ("k", [("sum", "v"), ("count", "*"), ("min", "s"), ("max", "d"), ("count", "n"), ("sum", "n")]),
    ("e", [("min", "e"), ("max", "k"), ("sum", "v")]),
    ("n", [("count", "*"), ("max", "s")]),
    (None, [("sum", "v"), ("min", "k"), ("count", "*")]),
]


@pytest.mark.both_servers
def test_aggregates_run_in_clickhouse_and_give_what_spark_gives(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.jvm_agg")
    ch.command("CREATE TABLE default.jvm_agg (k Int32, v Int64, s String, d Date, e Enum8('b' = 1, 'a' = 2), "
               "n Nullable(Int16), f Float64) ENGINE = MergeTree ORDER BY k")
    D = dt.date
    ch.insert("default.jvm_agg", [(i % 5, i * 7 - 50, f"s{i % 13}", D(2020, 1, 1 + i % 28), "ab"[i % 2],
                                   None if i % 4 == 0 else i % 3, i / 3) for i in range(500)])
    try:
        df = read(spark, nodes[0], table="default.jvm_agg")
        local = spark.createDataFrame(df.collect(), df.schema)
        for key, spec in AGGREGATES:
            aggs = [getattr(F, fn)(col) for fn, col in spec]
            for src, where in [(df, "k >= 0"), (df, "k > 100")]:  # some rows; none
                q = src.where(where)
                q = q.groupBy(key).agg(*aggs) if key else q.agg(*aggs)
                want = local.where(where)
                want = want.groupBy(key).agg(*aggs) if key else want.agg(*aggs)
                assert sorted(map(repr, q.collect())) == sorted(map(repr, want.collect())), (key, where)
                plan = q._jdf.queryExecution().executedPlan().toString()
                assert "HashAggregate" not in plan and "[aggregate:" in plan, plan
        # a statistic (no rule of the connector's) stays with Spark
        plan = df.groupBy("k").agg(F.var_pop("f"))._jdf.queryExecution().executedPlan().toString()
        assert "HashAggregate" in plan and "[aggregate:" not in plan
    finally:
        ch.command("DROP TABLE default.jvm_agg")


def test_an_aggregate_over_a_distributed_table_runs_on_the_shards(spark, nodes):
    df = read(spark, nodes[0], table="shard_dist")
    q = df.groupBy((F.col("id") % 3).alias("m")).count()  # an expression: Spark's
    assert sorted(r["count"] for r in q.collect()) == [10000, 10000, 10000]
    got = read(spark, nodes[0], table="shard_dist").agg(F.count("*"), F.min("name")).collect()
    assert tuple(got[0]) == (30000, "0")
    plan = read(spark, nodes[0], table="shard_dist").agg(F.count("*"))._jdf.queryExecution().executedPlan()
    assert "[aggregate:" in plan.toString()


@pytest.mark.both_servers
def test_a_pushed_sum_that_overflows_long_is_an_error_as_in_spark(spark, ch, nodes):
    """ClickHouse's sum(Int64) wraps around; Spark's SUM (ANSI, Spark 4's default) fails: the
    pushed sum must not give the wrapped value (it fails too), and a sum that fits is exact."""
    ch.command("DROP TABLE IF EXISTS default.jp_sum")
    ch.command("CREATE TABLE default.jp_sum (k Int32, v Int64, n Nullable(Int64)) ENGINE = MergeTree ORDER BY k")
    big = 2**63 - 1
    ch.insert("default.jp_sum", [(1, big, big), (1, 5, None), (2, 7, None), (2, -5, -3), (3, big, 1), (3, -big, 2)])
    try:
        df = read(spark, nodes[0], table="default.jp_sum")
        for q in [df.agg(F.sum("v")), df.groupBy("k").agg(F.sum("v")), df.groupBy("k").agg(F.sum("n"))]:
            assert "[aggregate:" in q._jdf.queryExecution().executedPlan().toString()
        with pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
            spark.createDataFrame(df.collect(), df.schema).agg(F.sum("v")).collect()  # Spark's own
        with pytest.raises(Exception, match="_chwire_agg_0|overflow|out of range"):
            df.agg(F.sum("v")).collect()
        with pytest.raises(Exception, match="_chwire_agg_1|overflow|out of range"):
            df.groupBy("k").agg(F.sum("v")).collect()
        got = sorted(tuple(r) for r in df.where("k = 3").groupBy("k").agg(F.sum("v"), F.sum("n")).collect())
        assert got == [(3, 0, 3)]
        assert sorted(tuple(r) for r in df.groupBy("k").agg(F.sum("n")).collect()) == [(1, big), (2, -3), (3, 3)]
    finally:
        ch.command("DROP TABLE default.jp_sum")


def test_strides_of_a_float_column_keep_its_nans(spark, ch, nodes):
    """partitionColumn over a Float column: a NaN compares false with every bound, so strides
    of `>=`/`<` alone read no NaN row; every row must be read once (NULLs too)."""
    ch.command("DROP TABLE IF EXISTS default.jp_nan_strides")
    ch.command("CREATE TABLE default.jp_nan_strides (id Int32, f Float64, nf Nullable(Float32)) "
               "ENGINE = MergeTree ORDER BY id")
    nan, inf = float("nan"), float("inf")
    ch.insert("default.jp_nan_strides", [(1, nan, nan), (2, 1.0, None), (3, 7.5, 2.0), (4, inf, -inf), (5, -0.0, nan)])
    try:
        for col in ["f", "nf"]:
            df = read(spark, nodes[0], table="default.jp_nan_strides", partitionColumn=col, numPartitions="3",
                      lowerBound="0", upperBound="10")
            assert df.rdd.getNumPartitions() == 3
            assert sorted(r.id for r in df.collect()) == [1, 2, 3, 4, 5], col
    finally:
        ch.command("DROP TABLE default.jp_nan_strides")


def test_uint64_and_uuid_columns_read_are_written_back(spark, ch, nodes):
    """A UInt64 is read as decimal(20,0) (the default mapping), a UUID as its text: the same
    DataFrame written back into those columns (plain, Nullable, in an Array) keeps every value,
    2^64 - 1 too; a decimal outside UInt64 or a text that is no UUID is an error naming the column."""
    ch.command("DROP TABLE IF EXISTS default.jp_u64")
    ch.command("CREATE TABLE default.jp_u64 (k Int32, u UInt64, nu Nullable(UInt64), au Array(UInt64), "
               "id UUID, nid Nullable(UUID)) "
               "ENGINE = MergeTree ORDER BY k")
    ch.command("DROP TABLE IF EXISTS default.jp_u64_copy")
    ch.command("CREATE TABLE default.jp_u64_copy AS default.jp_u64")
    top = 2**64 - 1
    ch.command("INSERT INTO default.jp_u64 SELECT 1, 18446744073709551615, NULL, [18446744073709551615, 0], "
               "toUUID('01234567-89ab-cdef-0123-456789abcdef'), NULL")
    ch.command("INSERT INTO default.jp_u64 SELECT 2, 0, 9223372036854775808, [], "
               "toUUID('00000000-0000-0000-0000-000000000001'), toUUID('ffffffff-0000-0000-0000-00000000000f')")
    try:
        df = read(spark, nodes[0], table="default.jp_u64")
        write(df, nodes[0], "default.jp_u64_copy")
        rows = lambda t: ch.query(f"SELECT k, u, nu, au, toString(id), toString(nid) FROM {t} ORDER BY k").result_rows  # noqa: E731
        assert rows("default.jp_u64_copy") == rows("default.jp_u64") == [
            (1, top, None, [top, 0], "01234567-89ab-cdef-0123-456789abcdef", None),
            (2, 0, 2**63, [], "00000000-0000-0000-0000-000000000001", "ffffffff-0000-0000-0000-00000000000f")]
        bad = spark.createDataFrame([(3, decimal.Decimal(-1))], "k int, u decimal(20,0)")
        with pytest.raises(Exception, match="column 'u'"):
            write(bad, nodes[0], "default.jp_u64_copy")
        # UUID text is read as ClickHouse reads it (chwire_text::parse_uuid, every front end's
        # rule): 36 characters with dashes or 32 hex digits; braces or a urn: are not UUIDs.
        for text in ["not-a-uuid", "{01234567-89ab-cdef-0123-456789abcdef}", "urn:uuid:01234567-89ab-cdef-0123-456789abcdef"]:
            bad = spark.createDataFrame([(3, text)], "k int, id string")
            with pytest.raises(Exception, match="column '?id'?.*is not the text of a UUID"):
                write(bad, nodes[0], "default.jp_u64_copy")
        write(spark.createDataFrame([(3, "0123456789ABCDEF0123456789abcdef")], "k int, id string"), nodes[0], "default.jp_u64_copy")
        assert ch.command("SELECT toString(id) FROM default.jp_u64_copy WHERE k = 3") == "01234567-89ab-cdef-0123-456789abcdef"
        assert ch.command("SELECT count() FROM default.jp_u64_copy") == 3
    finally:
        ch.command("DROP TABLE default.jp_u64")
        ch.command("DROP TABLE default.jp_u64_copy")


@pytest.mark.parametrize("fmt", [JVM, "python"])
def test_columns_are_matched_to_the_table_as_spark_matches_names(spark, ch, nodes, request, fmt):
    """Spark resolves names without regard to case (spark.sql.caseSensitive off): a DataFrame's
    `ID` is the table's `id`, through both sources, as reads already were; an exact name wins.
    A name matching two columns that differ only in case is an error naming them, nothing
    written."""
    fmt = request.getfixturevalue("python_source") if fmt == "python" else fmt
    ch.command("DROP TABLE IF EXISTS default.jvm_w_case")
    ch.command("CREATE TABLE default.jvm_w_case (id Int64, UserName String, Score Int32, SCORE Int32) "
               "ENGINE = MergeTree ORDER BY id")

    def write(df):
        df.write.format(fmt).option("url", nodes[0]).option("table", "default.jvm_w_case").mode("append").save()

    try:
        write(spark.createDataFrame([(1, "x", 3)], "ID long, username string, SCORE int"))
        assert ch.query("SELECT id, UserName, Score, SCORE FROM default.jvm_w_case").result_rows == [(1, "x", 0, 3)]
        with pytest.raises(Exception, match="differ only in case: 'score' \\('Score', 'SCORE'\\)"):
            write(spark.createDataFrame([(2, 5)], "id long, score int"))
        assert ch.command("SELECT count() FROM default.jvm_w_case") == 1
        assert count_stage_tables(ch) == 0
    finally:
        ch.command("DROP TABLE default.jvm_w_case")


@pytest.mark.parametrize("fmt", [JVM, "python"])
def test_doubles_into_float32_are_rounded_also_inside_arrays(spark, ch, nodes, request, fmt):
    """A double goes into a Float32 place, at the top or inside an Array, rounded to the nearest
    Float32 by the rule every front end shares; one beyond Float32's range is an error, nothing
    written."""
    import struct
    fmt = request.getfixturevalue("python_source") if fmt == "python" else fmt
    f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731
    ch.command("DROP TABLE IF EXISTS default.jvm_w_f32")
    ch.command("CREATE TABLE default.jvm_w_f32 (id Int64, f Float32, a Array(Float32), n Array(Nullable(Float32))) "
               "ENGINE = MergeTree ORDER BY id")

    def write(rows):
        spark.createDataFrame(rows, "id long, f double, a array<double>, n array<double>").coalesce(1).write \
            .format(fmt).option("url", nodes[0]).option("table", "default.jvm_w_f32").mode("append").save()

    try:
        write([(1, 0.1, [0.1, 3.0e38], [None, 2.5])])
        assert ch.query("SELECT id, f, a, n FROM default.jvm_w_f32").result_rows == [
            (1, f32(0.1), [f32(0.1), f32(3.0e38)], [None, 2.5])]
        with pytest.raises(Exception, match="beyond Float32's range"):
            write([(2, 0.0, [1.0e39], [])])
        assert ch.command("SELECT count() FROM default.jvm_w_f32") == 1
    finally:
        ch.command("DROP TABLE default.jvm_w_f32")
