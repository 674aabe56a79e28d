"""Reads: partitions per shard / range / hash / stride, exact rows, pushdown, types."""

import datetime as dt
import decimal
import os

import pytest
from pyspark.sql import functions as F

import chwire

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ALL_IDS = list(range(30000))


def read(spark, url, **opts):
    r = spark.read.format("chwire").option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


def test_distributed_table_is_read_one_partition_per_shard(spark, nodes):
    df = read(spark, nodes[0], table="default.shard_dist")
    assert df.rdd.getNumPartitions() == 3
    rows = df.select("id", "name", "value", F.spark_partition_id().alias("p")).collect()
    assert sorted(int(r.id) for r in rows) == ALL_IDS
    assert all(r.name == str(r.id) and r.value == int(r.id) * 0.5 for r in rows)
    # Each partition is one shard: node N holds the ids with id % 3 = N - 1.
    by_part = {}
    for r in rows:
        by_part.setdefault(r.p, set()).add(int(r.id) % 3)
    assert sorted(by_part.values(), key=min) == [{0}, {1}, {2}]


@pytest.mark.parametrize("opts", [{"table": "default.shard_dist"}, {"table": "shard_local", "cluster": "chwire_cluster"}])
def test_shards_are_split_further_when_more_partitions_are_asked_for(spark, nodes, opts):
    """numPartitions=7 over 3 shards: each shard's table in ceil(7/3) = 3 ranges of its
    sorting key, 9 partitions in all, each holding rows of one shard, together every row once."""
    df = read(spark, nodes[0], numPartitions="7", **opts)
    assert df.rdd.getNumPartitions() == 9
    rows = df.select("id", F.spark_partition_id().alias("p")).collect()
    assert sorted(int(r.id) for r in rows) == ALL_IDS
    by_part = {}
    for r in rows:
        by_part.setdefault(r.p, set()).add(int(r.id) % 3)
    assert len(by_part) == 9 and all(len(shards) == 1 for shards in by_part.values()), by_part
    # The key need not be among the columns read.
    names = read(spark, nodes[0], numPartitions="6", columns="name", **opts)
    assert names.rdd.getNumPartitions() == 6
    assert sorted(int(r.name) for r in names.collect()) == ALL_IDS


def test_cluster_option_reads_a_local_table_on_every_shard(spark, nodes):
    df = read(spark, nodes[1], table="shard_local", cluster="chwire_cluster")
    assert df.rdd.getNumPartitions() == 3
    assert df.count() == 30000
    assert df.agg(F.sum("id")).first()[0] == sum(ALL_IDS)


@pytest.mark.cluster18("native TLS listeners, which clickhouse-local has not")
def test_shards_are_read_over_tls_on_their_secure_ports(spark, nodes):
    """system.clusters gives each shard's native port; over TLS, `shardPorts` maps them to the
    nodes' secure ports (the rig's are native + 20), and every shard is read through TLS."""
    tls_nodes = [os.environ[f"CHWIRE_CLUSTER_TLS_NODE{n}"] for n in (1, 2, 3)]
    ports = ",".join(f"{a.rsplit(':', 1)[1]}:{b.rsplit(':', 1)[1]}" for a, b in zip(
        [os.environ[f"CHWIRE_CLUSTER_NODE{n}"] for n in (1, 2, 3)], tls_nodes))
    ca = os.path.join(ROOT, "build", "clickhouse", "tls", "ca.pem")
    url = f"tcp://default@{tls_nodes[0]}/default"
    df = read(spark, url, table="shard_dist", secure="true", ca_file=ca, shardPorts=ports)
    assert df.rdd.getNumPartitions() == 3
    assert df.count() == 30000
    assert df.agg(F.sum("id")).first()[0] == sum(ALL_IDS)
    # Without the map, the shards' native ports do not speak TLS: the read fails, naming TLS.
    with pytest.raises(Exception, match="(?i)tls|handshake|certificate|connect"):
        read(spark, url, table="shard_dist", secure="true", ca_file=ca).count()


def test_shard_ports_option_is_checked():
    from chwire.spark._options import Options

    o = Options({"url": "tcp://u@h:9440/db?secure=1", "shardPorts": "19611:19631"})
    assert (o.shard_port(19611), o.shard_port(9000), o.shard_port(19612)) == (19631, 9440, 19612)
    assert Options({"url": "tcp://u@h:9000/db"}).shard_port(9000) == 9000
    assert Options({"url": "tcp://u@h:9000/db", "ca_file": "/x.pem"}).shard_port(9000) == 9440
    with pytest.raises(ValueError, match="from:to"):
        Options({"url": "tcp://u@h/db", "shardPorts": "9000"})


@pytest.mark.parametrize("n", [1, 4, 7])
def test_plain_table_num_partitions_read_every_row_once(spark, nodes, n):
    df = read(spark, nodes[0], table="default.replicated", numPartitions=str(n))
    assert df.rdd.getNumPartitions() == n
    assert sorted(int(r.id) for r in df.select("id").collect()) == ALL_IDS


def test_plain_table_without_integer_key_is_split_by_hash(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_by_name")
    ch.command("CREATE TABLE default.spark_by_name (name String, v UInt32) ENGINE = MergeTree ORDER BY name")
    ch.command("INSERT INTO default.spark_by_name SELECT toString(number), number FROM system.numbers LIMIT 5000")
    df = read(spark, nodes[0], table="spark_by_name", numPartitions="3")
    assert df.rdd.getNumPartitions() == 3
    sizes = df.rdd.glom().map(len).collect()
    assert sum(sizes) == 5000 and min(sizes) > 1000
    assert sorted(r.v for r in df.collect()) == list(range(5000))
    ch.command("DROP TABLE default.spark_by_name")


def test_query_is_one_partition_or_strides_of_a_column(spark, nodes):
    q = "SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 1000"
    assert read(spark, nodes[0], query=q).rdd.getNumPartitions() == 1
    df = read(spark, nodes[0], query=q, partitionColumn="n", lowerBound="100", upperBound="900", numPartitions="4")
    assert df.rdd.getNumPartitions() == 4
    # Strides are open at both ends: values outside the bounds are read too, once.
    assert sorted(int(r.n) for r in df.collect()) == list(range(1000))


@pytest.mark.both_servers
def test_filters_are_pushed_and_give_the_same_rows(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_filters")
    ch.command("CREATE TABLE default.spark_filters (id Int32, s String, d Date, n Nullable(Int16)) "
               "ENGINE = MergeTree ORDER BY id")
    ch.insert("default.spark_filters", [(1, "a%b", dt.date(2020, 1, 1), None), (2, "a_b", dt.date(2020, 1, 2), 5),
                                         (3, "axb", dt.date(2020, 1, 3), 7), (4, "it's", dt.date(2020, 1, 4), None)])
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    df = read(spark, nodes[0], table="default.spark_filters", pushFilters="true")
    ids = lambda d: sorted(r.id for r in d.collect())  # noqa: E731
    assert ids(df.filter("id > 1 AND id <= 3")) == [2, 3]
    assert ids(df.filter(F.col("s").startswith("a%"))) == [1]
    assert ids(df.filter(F.col("s").contains("_"))) == [2]
    assert ids(df.filter(F.col("s") == "it's")) == [4]
    assert ids(df.filter(F.col("d") >= dt.date(2020, 1, 3))) == [3, 4]
    assert ids(df.filter(F.col("n").isNull())) == [1, 4]
    assert ids(df.filter(F.col("id").isin(2, 4))) == [2, 4]
    assert ids(df.filter(F.col("n") != 5)) == [3]
    # A pushed filter is in the SQL the partitions run.
    from chwire.spark import ChwireDataSource
    from pyspark.sql import datasource as ds

    source = ChwireDataSource({"url": nodes[0], "table": "default.spark_filters", "pushFilters": "true"})
    reader = source.reader(source.schema())
    left = list(reader.pushFilters([ds.GreaterThan(("id",), 2), ds.EqualTo(("nope",), 1)]))
    assert [type(f).__name__ for f in left] == ["EqualTo"]
    assert "WHERE (`id` > 2)" in reader.plan.sql(reader.plan.partitions[0])
    ch.command("DROP TABLE default.spark_filters")


TYPES = [
    ("i8", "Int8", "-8", -8),
    ("u8", "UInt8", "200", 200),
    ("i16", "Int16", "-1600", -1600),
    ("u16", "UInt16", "60000", 60000),
    ("i32", "Int32", "-32", -32),
    ("u32", "UInt32", "4000000000", 4000000000),
    ("i64", "Int64", "-9000000000000000000", -9000000000000000000),
    ("u64", "UInt64", "18446744073709551615", decimal.Decimal(18446744073709551615)),
    ("f32", "Float32", "1.5", 1.5),
    ("f64", "Float64", "2.25", 2.25),
    ("s", "String", "'héllo'", "héllo"),
    ("fs", "FixedString(3)", "'abc'", b"abc"),
    ("d", "Date", "'2021-02-03'", dt.date(2021, 2, 3)),
    ("t", "DateTime('UTC')", "'2021-02-03 04:05:06'", dt.datetime(2021, 2, 3, 4, 5, 6)),
    ("dec", "Decimal(18, 4)", "toDecimal64('12.3456', 4)", decimal.Decimal("12.3456")),
    ("dec38", "Decimal(38, 2)", "toDecimal128('-1.25', 2)", decimal.Decimal("-1.25")),
    ("u", "UUID", "toUUID('01234567-89ab-cdef-0123-456789abcdef')", "01234567-89ab-cdef-0123-456789abcdef"),
    ("e8", "Enum8('a' = 1, 'b' = 2)", "'b'", "b"),
    ("e16", "Enum16('x' = 1000)", "'x'", "x"),
    ("ns", "Nullable(String)", "NULL", None),
    ("ni", "Nullable(Int32)", "7", 7),
    ("lc", "LowCardinality(String)", "'low'", "low"),
    ("arr", "Array(Int64)", "[1, 2, 3]", [1, 2, 3]),
    ("arrn", "Array(Nullable(String))", "['a', NULL]", ["a", None]),
    ("arru", "Array(UUID)", "[toUUID('01234567-89ab-cdef-0123-456789abcdef')]",
     ["01234567-89ab-cdef-0123-456789abcdef"]),
    ("arr2", "Array(Array(UInt8))", "[[1], [2, 3]]", [[1], [2, 3]]),
    ("tup", "Tuple(Int32, String)", "(1, 'x')", None),
]


@pytest.mark.both_servers
def test_every_18_16_type_is_read(spark, ch, nodes, old_server):
    ch.command("DROP TABLE IF EXISTS default.spark_types")
    cols = ", ".join(f"{n} {t}" for n, t, _, _ in TYPES)
    # 18.16's LowCardinality is experimental (26.9 no longer knows the setting).
    settings = {"allow_experimental_low_cardinality_type": 1} if old_server else {}
    ch.command(f"CREATE TABLE default.spark_types ({cols}) ENGINE = Memory", settings=settings)
    ch.command(f"INSERT INTO default.spark_types SELECT {', '.join(v for _, _, v, _ in TYPES)}")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    row = read(spark, nodes[0], table="default.spark_types").first().asDict(recursive=True)
    for name, _, _, want in TYPES:
        if name == "tup":
            assert tuple(row[name].values()) == (1, "x")
        else:
            assert row[name] == want, name
    ch.command("DROP TABLE default.spark_types")


def test_a_type_without_a_spark_mapping_is_refused_naming_the_column(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_agg")
    ch.command("CREATE TABLE default.spark_agg (k UInt8, st AggregateFunction(uniq, UInt64)) "
               "ENGINE = AggregatingMergeTree ORDER BY k")
    with pytest.raises(Exception, match=r"column 'st' of type AggregateFunction\(uniq, UInt64\)"):
        read(spark, nodes[0], table="default.spark_agg").collect()
    # Leaving it out with `columns` reads the rest.
    assert read(spark, nodes[0], table="default.spark_agg", columns="k").count() == 0
    ch.command("DROP TABLE default.spark_agg")


def test_a_schema_given_to_the_reader_selects_and_casts_its_columns(spark, ch, nodes):
    """`.schema(...)` is how a Spark user leaves columns out (the Python Data Source API has no
    pruning hook): only its columns are selected, in its order, cast to its types."""
    ch.command("DROP TABLE IF EXISTS default.spark_schema")
    # b in the key: 26.9 refuses a plain column outside an AggregatingMergeTree's key.
    ch.command("CREATE TABLE default.spark_schema (a UInt64, b String, st AggregateFunction(uniq, UInt64)) "
               "ENGINE = AggregatingMergeTree ORDER BY (a, b)")
    ch.command("INSERT INTO default.spark_schema SELECT number, toString(number), uniqState(number) "
               "FROM numbers(300) GROUP BY number")
    reader = spark.read.format("chwire").option("url", nodes[0]).option("table", "default.spark_schema")
    # `st` has no Spark type: read without a schema, it is refused; left out, the rest reads.
    df = reader.schema("b STRING, A LONG").load()
    assert df.schema.simpleString() == "struct<b:string,A:bigint>"
    assert sorted((r.b, r.A) for r in df.collect()) == sorted((str(i), i) for i in range(300))
    assert sorted(r.b for r in reader.schema("b INT").load().collect()) == list(range(300))
    with pytest.raises(Exception, match=r"column 'a': its values do not fit"):
        reader.schema("a BYTE").load().collect()
    # Filters are pushed only on columns as chwire plans them: `b` read as INT is compared by
    # Spark (as a WHERE, `b = 7` on a String is an error in ClickHouse), `A` is not `a`.
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        pushing = reader.option("pushFilters", "true")
        assert [r.b for r in pushing.schema("b INT").load().where("b = 7").collect()] == [7]
        got = pushing.schema("b STRING, A LONG").load().where("b = '7' OR A < 2").collect()
        assert sorted((r.b, r.A) for r in got) == [("0", 0), ("1", 1), ("7", 7)]
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
    with pytest.raises(Exception, match=r"columns \['zz'\] are not in default.spark_schema \(its columns: a, b, st\)"):
        reader.schema("a LONG, zz INT").load().collect()
    ch.command("DROP TABLE default.spark_schema")


def test_conformance_types_map_or_are_refused_by_name():
    from chwire.spark._types import Column, UnsupportedType

    mapped = ["Int128", "Bool", "Map(String, UInt64)", "Date32", "DateTime64(3, 'UTC')", "IPv4",
              "IPv6", "Tuple(a Int8, b String)", "LowCardinality(Nullable(String))"]
    refused = ["Int128", "UInt256", "Decimal(76, 10)", "Variant(String, UInt64)", "Nothing",
               "AggregateFunction(sum, UInt64)", "Tuple(UUID, String)"]
    for t in mapped:
        if t in refused:
            continue
        assert Column("c", t).field.name == "c"
    for t in refused:
        with pytest.raises(UnsupportedType, match=r"column 'c' of type"):
            Column("c", t)


def test_json_and_dynamic_are_read_as_json_text(tmp_path):
    """18.16 has neither type, so ClickHouse 26.9 (chdb, from the oracle venv) writes them, as
    Native and as its own ArrowStream. chwire reads the Native (`chwire.read_native`: the Arrow
    mapping every query uses), the batch is cast to the columns' Spark schema as the reader casts
    each batch, and the text must be what ClickHouse writes to Arrow itself."""
    import subprocess

    import pyarrow as pa

    from chwire.spark._types import Column, arrow_schema, spark_schema

    oracle = os.environ.get("CHWIRE_ORACLE_PYTHON", os.path.join(ROOT, "build", "oracle-venv", "bin", "python"))
    if not os.path.exists(oracle):
        pytest.skip(f"no chdb oracle venv at {oracle} (scripts/oracle-venv.sh makes it)")
    sql = ("SELECT '{\"a\": 1, \"b\": [1, 2]}'::JSON AS j, arrayJoin([42::Dynamic, 'x'::Dynamic, "
           "NULL::Dynamic, [1.5]::Array(Float64)::Dynamic, 7::UInt64::Dynamic]) AS d, -3::Int8::Dynamic AS n")
    code = ("import chdb, sys\n"
            f"open(sys.argv[1], 'wb').write(chdb.query({sql!r}, 'Native').bytes())\n"
            f"open(sys.argv[2], 'wb').write(chdb.query({sql!r}, 'ArrowStream').bytes())\n")
    native, arrow = tmp_path / "q.native", tmp_path / "q.arrow"
    subprocess.run([oracle, "-c", code, str(native), str(arrow)], check=True)
    columns = [Column("j", "JSON"), Column("d", "Dynamic"), Column("n", "Dynamic")]
    schema = spark_schema(columns)
    assert [f.dataType.simpleString() for f in schema.fields] == ["string"] * 3
    target = arrow_schema(schema)
    got = pa.Table.from_batches([b.cast(target) for b in chwire.read_native(native.read_bytes()).to_batches()])
    want = pa.ipc.open_stream(arrow.read_bytes()).read_all().cast(target)
    assert got.to_pylist() == want.to_pylist()
    assert got.column("j").to_pylist() == ['{"a":1,"b":[1,2]}'] * 5
    assert got.column("n").to_pylist() == ["-3"] * 5


def test_uint64_as_long_is_checked(spark, ch, nodes):
    ch.command("DROP TABLE IF EXISTS default.spark_u64")
    ch.command("CREATE TABLE default.spark_u64 (u UInt64) ENGINE = Memory")
    ch.insert("default.spark_u64", [(5,), (2**63 - 1,)])
    df = read(spark, nodes[0], table="default.spark_u64", uint64="long")
    assert df.schema.simpleString() == "struct<u:bigint>"
    assert sorted(r.u for r in df.collect()) == [5, 2**63 - 1]
    ch.insert("default.spark_u64", [(2**63,)])
    with pytest.raises(Exception, match=r"column 'u'"):
        read(spark, nodes[0], table="default.spark_u64", uint64="long").collect()
    ch.command("DROP TABLE default.spark_u64")
