"""The JVM connector's pushdown beyond filters: aggregates over every numeric type (SUM, AVG,
MIN/MAX, COUNT and COUNT(DISTINCT)), top-N (ORDER BY … LIMIT) and runtime filters (dynamic
partition pruning). Each case checks the SQL the scan runs (its description) and its rows
against Spark's own evaluation of the same query over the same rows (read and aggregated, sorted
or joined by Spark itself); the rules are chwire-spark-core's aggregate.rs and plan.rs."""

import decimal
import math
import re

import pytest
from pyspark.sql import functions as F

JVM = "chwire"


def read(spark, url, **opts):
    r = spark.read.format(JVM).option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


def plan_of(df):
    return df._jdf.queryExecution().executedPlan().toString()


def scan_of(df):
    m = re.search(r"chwire \[columns: [^\n]*", plan_of(df))
    assert m, plan_of(df)
    return m.group(0)


def same(a, b):
    """Rows equal, floats within a relative 1e-9 (a float sum's order of additions differs
    between ClickHouse and Spark, as it does between two of Spark's own partitionings)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def rows(df):
    return sorted((tuple(r) for r in df.collect()), key=repr)


NUMERIC = """k Int32, i8 Int8, u32 UInt32, i64 Int64, u64 UInt64, f32 Float32, f64 Float64,
             d Decimal(18, 4), w Decimal(38, 2), n Nullable(Int64), nf Nullable(Float64), s String,
             day Date, ts DateTime('UTC')"""


@pytest.fixture()
def numbers(ch):
    """Every numeric type, with NULLs, NaNs, a UInt64 above 2^63 and a Decimal(38) near its top."""
    ch.command("DROP TABLE IF EXISTS default.jp_num")
    ch.command(f"CREATE TABLE default.jp_num ({NUMERIC}) ENGINE = MergeTree ORDER BY k")
    ch.command("""INSERT INTO default.jp_num SELECT number % 4, toInt8(number % 100 - 50), toUInt32(number * 1000003),
                  toInt64(number * 1000000007) - 200000000000, toUInt64(number) * 1000000000000000 + 9223372036854775000,
                  toFloat32(number / 7), if(number % 97 = 5, nan, number / 3), toDecimal64(number / 9, 4),
                  toDecimal128('12345678901234567890123456789012.25', 2) * (number % 3 + 1), if(number % 5 = 0, NULL, number),
                  if(number % 6 = 0, NULL, if(number % 11 = 0, nan, number * 0.25)), toString(number % 13),
                  toDate('2020-01-01') + number % 40, toDateTime('2021-01-01 00:00:00', 'UTC') + number * 3601
                  FROM numbers(400)""")
    yield "default.jp_num"
    ch.command("DROP TABLE default.jp_num")


NUM_COLS = ["i8", "u32", "i64", "u64", "f32", "f64", "d", "w", "n", "nf"]


@pytest.mark.both_servers
def test_aggregates_over_every_numeric_type_run_in_clickhouse(spark, nodes, numbers, old_server):
    df = read(spark, nodes[0], table=numbers)
    local = spark.createDataFrame(df.collect(), df.schema)
    for col in NUM_COLS:
        aggs = [F.sum(col), F.min(col), F.max(col), F.count(col), F.count_distinct(col)]
        if col not in ("d", "w", "u64"):
            aggs.append(F.avg(col))
        for key in ["k", None]:
            for where in ["k >= 0", "k > 100"]:  # some rows; none
                q = df.where(where)
                q = q.groupBy(key).agg(*aggs) if key else q.agg(*aggs)
                want = local.where(where)
                want = want.groupBy(key).agg(*aggs) if key else want.agg(*aggs)
                got_rows, want_rows = rows(q), rows(want)
                assert same(got_rows, want_rows), (col, key, where, got_rows, want_rows)
                plan = plan_of(q)
                if col == "w" and old_server:
                    # 18.16 has no Decimal256: a Decimal(38) sum stays with Spark there.
                    assert "HashAggregate" in plan and "[aggregate:" not in plan, plan
                else:
                    assert "HashAggregate" not in plan and "[aggregate:" in plan, (col, plan)
    # The SQL: exact sums (Decimal(38, 0) for integers and UInt64, the decimal's own scale,
    # Float64 for floats), AVG in double, NaN ordered last, DISTINCT of a float normalized.
    sql = scan_of(df.groupBy("k").agg(F.sum("u64"), F.sum("d"), F.sum("f32"), F.avg("i64"), F.max("f64"),
                                       F.count_distinct("nf")))
    for part in ["sum(toDecimal128(`u64`, 0))", "sum(toDecimal128(`d`, 4))", "sum(toFloat64(`f32`))",
                 "avg(toFloat64(`i64`))", "if(countIf(isNaN(`f64`)) > 0, nan, maxIf(`f64`, NOT isNaN(`f64`)))",
                 "ifNull(uniqExact(isNaN(`nf`), if(isNaN(`nf`), 0, `nf` + 0)), 0)", "GROUP BY `k`"]:
        assert part in sql, (part, sql)
    # UInt64 sums reach Spark's decimal(30,0) exactly (beyond a long), Decimal(18,4) its decimal(28,4).
    got = df.agg(F.sum("u64"), F.sum("d")).first()
    assert isinstance(got[0], decimal.Decimal) and got[0] > 2**63
    assert df.agg(F.sum("u64")).schema.simpleString() == local.agg(F.sum("u64")).schema.simpleString() == \
        "struct<sum(u64):decimal(30,0)>"


@pytest.mark.both_servers
def test_the_avg_of_a_decimal_is_summed_in_clickhouse_and_divided_by_spark(spark, nodes, numbers, old_server):
    """Spark's decimal AVG rounds its own way: the rules do not write it, Spark rewrites it into
    SUM and COUNT, pushes those and divides them itself."""
    df = read(spark, nodes[0], table=numbers)
    local = spark.createDataFrame(df.collect(), df.schema)
    for col in ["d", "u64"]:
        for key in ["k", None]:
            q = df.groupBy(key).agg(F.avg(col)) if key else df.agg(F.avg(col))
            want = local.groupBy(key).agg(F.avg(col)) if key else local.agg(F.avg(col))
            assert rows(q) == rows(want), (col, key)
            assert q.schema == want.schema
            plan = plan_of(q)
            assert "[aggregate:" in plan and re.search(r"SUM\(" + col, plan) and re.search(r"COUNT\(" + col, plan), plan
            assert "HashAggregate" not in plan, plan
    # AVG(DISTINCT) of a decimal the same way (SUM(DISTINCT) needs ClickHouse 20)
    q, want = df.groupBy("k").agg(F.expr("avg(DISTINCT d)")), local.groupBy("k").agg(F.expr("avg(DISTINCT d)"))
    assert rows(q) == rows(want) and q.schema == want.schema
    assert ("[aggregate:" in plan_of(q)) != old_server, plan_of(q)


def test_the_avg_of_a_uint64_read_as_a_long_stays_with_spark(spark, ch, nodes):
    """With uint64=long Spark's rewrite of AVG would sum in a long, which overflows where Spark's
    own AVG (in double) does not: here two values below 2^63 whose sum is above."""
    ch.command("DROP TABLE IF EXISTS default.jp_ul")
    ch.command("CREATE TABLE default.jp_ul (k Int32, u UInt64) ENGINE = MergeTree ORDER BY k")
    ch.command("INSERT INTO default.jp_ul VALUES (1, 5000000000000000000), (1, 6000000000000000000), (2, 7)")
    try:
        df = read(spark, nodes[0], table="default.jp_ul", uint64="long")
        local = spark.createDataFrame(df.collect(), df.schema)
        for q, want in [(df.groupBy("k").agg(F.avg("u")), local.groupBy("k").agg(F.avg("u"))),
                        (df.agg(F.avg("u"), F.max("u")), local.agg(F.avg("u"), F.max("u")))]:
            assert same(rows(q), rows(want)), (rows(q), rows(want))
            assert "HashAggregate" in plan_of(q) and "[aggregate:" not in plan_of(q), plan_of(q)
        assert rows(df.groupBy("k").agg(F.avg("u"))) == [(1, 5.5e18), (2, 7.0)]
        # its MIN and MAX are pushed
        q = df.groupBy("k").agg(F.min("u"), F.max("u"))
        assert rows(q) == rows(local.groupBy("k").agg(F.min("u"), F.max("u"))) and "[aggregate:" in plan_of(q)
    finally:
        ch.command("DROP TABLE default.jp_ul")


def test_distinct_aggregates_of_floats_count_nans_and_zeros_as_spark_does(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.jp_fd")
    ch.command("CREATE TABLE default.jp_fd (k Int32, f Float64, v Int64) ENGINE = MergeTree ORDER BY k")
    ch.command("INSERT INTO default.jp_fd VALUES (1, nan, 1), (1, -nan, 1), (1, 0.0, 2), (1, -0.0, 3), (2, 1.5, 3), (2, 1.5, 4)")
    try:
        df = read(spark, nodes[0], table="default.jp_fd")
        local = spark.createDataFrame(df.collect(), df.schema)
        for aggs in [[F.count_distinct("f")], [F.sum_distinct("v"), F.count_distinct("v")]]:
            q, want = df.groupBy("k").agg(*aggs), local.groupBy("k").agg(*aggs)
            assert rows(q) == rows(want), aggs
            assert "HashAggregate" not in plan_of(q)
        assert rows(df.groupBy("k").agg(F.count_distinct("f"))) == [(1, 2), (2, 1)]
        # what stays with Spark: statistics (no ClickHouse rule), an integer's AVG(DISTINCT)
        # (Spark would rewrite it into SUM(DISTINCT) in a long, which can overflow where its own
        # sum in double does not)
        for agg in ["var_pop(v)", "avg(DISTINCT v)"]:
            q = df.groupBy("k").agg(F.expr(agg))
            assert "HashAggregate" in plan_of(q) and "[aggregate:" not in plan_of(q), agg
            assert same(rows(q), rows(local.groupBy("k").agg(F.expr(agg)))), agg
    finally:
        ch.command("DROP TABLE default.jp_fd")


TOP_N = [  # (sort keys as (column, Column method), limit); each ends in the unique i64, so that no two rows tie
    ([("k", "asc")], 5),
    ([("nf", "asc_nulls_first"), ("k", "desc")], 7),
    ([("nf", "desc_nulls_last"), ("k", "asc")], 7),
    ([("f64", "desc"), ("k", "asc")], 4),
    ([("f64", "asc"), ("k", "asc")], 4),
    ([("s", "desc")], 6),
    ([("u64", "desc")], 3),
    ([("d", "asc"), ("ts", "desc")], 5),
]


@pytest.mark.both_servers
def test_top_n_is_pushed_to_every_partition_and_gives_spark_s_rows(spark, nodes, numbers):
    """ORDER BY … LIMIT n runs in each partition's query (here 4: ranges of the sorting key);
    Spark sorts the partitions' rows again. A float's NaN is above every number and NULLs go
    where Spark's key puts them."""
    df = read(spark, nodes[0], table=numbers, numPartitions="4")
    assert df.rdd.getNumPartitions() == 4
    local = spark.createDataFrame(df.collect(), df.schema)
    for spec, n in TOP_N:
        keys = [getattr(F.col(c), how)() for c, how in spec] + [F.col("i64").asc()]
        q = df.orderBy(*keys).limit(n)
        got, want = [tuple(r) for r in q.collect()], [tuple(r) for r in local.orderBy(*keys).limit(n).collect()]
        assert same(got, want), (keys, got, want)
        desc = scan_of(q)
        assert "[order by: " in desc and f"[limit: {n}]" in desc, (keys, desc)
    desc = scan_of(df.orderBy(F.col("nf").asc_nulls_first()).limit(3))
    assert "[order by: isNaN(`nf`) ASC NULLS FIRST, `nf` ASC NULLS FIRST]" in desc, desc
    # a sort on an expression stays with Spark (the limit alone is pushed)
    desc = scan_of(df.orderBy(F.col("k") * -1).limit(3))
    assert "[order by:" not in desc and "[limit:" not in desc, desc


def test_a_pushed_aggregate_sorted_and_limited_by_spark(spark, nodes, numbers):
    df = read(spark, nodes[0], table=numbers)
    local = spark.createDataFrame(df.collect(), df.schema)
    q = df.groupBy("s").agg(F.sum("i64").alias("t")).orderBy(F.desc("t")).limit(3)
    want = local.groupBy("s").agg(F.sum("i64").alias("t")).orderBy(F.desc("t")).limit(3)
    assert [tuple(r) for r in q.collect()] == [tuple(r) for r in want.collect()]
    plan = plan_of(q)
    assert "[aggregate:" in plan and "TakeOrderedAndProject" in plan, plan


def scans(df):
    """The executed plan's scan nodes of the connector (AQE off in the caller)."""
    leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
    return [leaves.apply(i) for i in range(leaves.size()) if "chwire [columns:" in leaves.apply(i).toString()]


def test_runtime_filters_prune_the_rows_read(spark, ch, nodes):
    """A join with a small, filtered side: Spark's dynamic partition pruning hands the scan the
    other side's keys (an IN list) before it plans its partitions; the connector adds them to
    each partition's WHERE, so only the matching rows leave ClickHouse."""
    ch.command("DROP TABLE IF EXISTS default.jp_fact")
    ch.command("CREATE TABLE default.jp_fact (id Int64, v String) ENGINE = MergeTree ORDER BY id")
    ch.command("INSERT INTO default.jp_fact SELECT number, toString(number * 3) FROM numbers(20000)")
    conf = {"spark.sql.adaptive.enabled": "false", "spark.sql.optimizer.dynamicPartitionPruning.enabled": "true",
            "spark.sql.autoBroadcastJoinThreshold": str(10 * 1024 * 1024)}
    old = {k: spark.conf.get(k, None) for k in conf}
    try:
        for k, v in conf.items():
            spark.conf.set(k, v)
        fact = read(spark, nodes[0], table="default.jp_fact", numPartitions="3")
        dim = spark.range(0, 5000).where("id % 1000 = 7").withColumnRenamed("id", "did")
        q = fact.join(dim, fact.id == dim.did)
        got = sorted(tuple(r) for r in q.collect())
        assert got == [(i, str(i * 3), i) for i in (7, 1007, 2007, 3007, 4007)]
        plan = q._jdf.queryExecution().executedPlan().toString()
        assert "dynamicpruning" in plan.lower(), plan
        (scan,) = scans(q)
        assert "[runtime: [`id` IN (" in scan.toString(), scan.toString()
        # rows read from ClickHouse: only the matching ones, not the 20000 of the table
        assert scan.metrics().apply("numOutputRows").value() == 5
        # without dynamic partition pruning every row is read
        spark.conf.set("spark.sql.optimizer.dynamicPartitionPruning.enabled", "false")
        q2 = fact.join(dim, fact.id == dim.did)
        assert sorted(tuple(r) for r in q2.collect()) == got
        (scan,) = scans(q2)
        assert "[runtime:" not in scan.toString() and scan.metrics().apply("numOutputRows").value() == 20000
    finally:
        for k, v in old.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
        ch.command("DROP TABLE default.jp_fact")
