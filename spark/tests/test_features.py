"""The current server's features through both Spark sources, from the cases every front end
shares (tests/features/tables.json): a MergeTree table whose every column has a Spark type (sparse
columns at every depth, LowCardinality across parts, Nested) is read alike by the JVM connector
and the PySpark source, with the server's row count, and written back by each (append) into a
copy that must hold the same text on the server (JSON and Dynamic, at any depth, as their JSON
text: a Dynamic's copy holds Strings, a known difference); a table with columns Spark has no type
for (Variant, Time, QBit, BFloat16, a Nested column that is not flattened) is refused naming each
of those columns, and reads with the others (`columns`). And the options of
tests/features/refusals.json, refused with the core's message by both sources, the NULLs of
tests/features/nulls.json and the blocks of tests/features/blocks.json."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "features"))
import features  # noqa: E402

SERVER = os.environ.get("CHWIRE_CLUSTER_SERVER", "26.9")
CASES = [c for c in features.tables() if SERVER in c["servers"]]

# Cases whose copy cannot hold the same text, by design, with the reason (as the other front
# ends' KNOWN): one that starts passing fails, so that the list stays true.
KNOWN = {
    "dynamic": "Spark reads Dynamic values as their JSON text, which a Dynamic column keeps as a String",
}


@pytest.fixture(scope="module")
def srv(nodes):
    return features.Server(f"http://default@{os.environ['CHWIRE_CLUSTER_HTTP_NODE1']}/default")


def read(spark, fmt, url, **opts):
    r = spark.read.format(fmt).option("url", url)
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load()


@pytest.mark.both_servers
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_feature_tables_through_both_sources(spark, nodes, srv, python_source, case):
    t = features.table_name("default.spark_feat")
    copies = []
    try:
        srv.create(case, t)
        n = int(srv.query(f"SELECT count() FROM {t}"))
        described = [line.split("\t")[0] for line in srv.query(f"DESCRIBE TABLE {t} FORMAT TSV",
                                                              features.settings_of(case, srv.version)).splitlines()]
        refused = case["spark"] or []
        for fmt in ("chwire", python_source):
            if refused:
                with pytest.raises(Exception) as e:
                    read(spark, fmt, nodes[0], table=t).schema
                for col in refused:
                    assert f"column '{col}'" in str(e.value), (col, str(e.value)[:500])
                kept = [c for c in described if c not in refused]
                df = read(spark, fmt, nodes[0], table=t, columns=",".join(kept))
                assert df.columns == kept and df.count() == n
                continue
            df = read(spark, fmt, nodes[0], table=t)
            assert df.columns == described and df.count() == n
            cp = f"{t}_{'jvm' if fmt == 'chwire' else 'py'}"
            copies.append(cp)
            srv.copy(case, t, cp)
            df.write.format(fmt).option("url", nodes[0]).option("table", cp).mode("append").save()
            same = srv.text(case, cp) == srv.text(case, t)
            if case["name"] in KNOWN:
                assert not same, f"{fmt}: the known difference ({KNOWN[case['name']]}) is gone: drop it from KNOWN"
            else:
                assert same, f"{fmt}: the copy differs"
        if not refused:
            jdf, pdf = read(spark, "chwire", nodes[0], table=t), read(spark, python_source, nodes[0], table=t)
            assert jdf.schema == pdf.schema
            assert sorted(jdf.collect()) == sorted(pdf.collect())
    finally:
        srv.drop(t, *copies)


@pytest.mark.parametrize("where", ["url", "option"])
def test_options_every_front_end_refuses(spark, nodes, python_source, where):
    """tests/features/refusals.json through both sources: each option, in the URL's query string
    or as a Spark option of its own, is refused with the core's message (reading `SELECT 1`)."""
    wrong = []
    for o in features.refusals()["options"]:
        pairs = [p.split("=", 1) for p in o["query"].split("&")]
        if where == "option" and len({k for k, _ in pairs}) < len(pairs):
            continue  # Spark's options are a map: a key given twice is the URL's case only
        for fmt in ("chwire", python_source):
            try:
                if where == "url":
                    read(spark, fmt, features.with_query(nodes[0], o["query"]), query="SELECT 1").collect()
                else:
                    read(spark, fmt, nodes[0], query="SELECT 1", **dict(pairs)).collect()
                wrong.append(f"{fmt} {o['query']}: accepted")
            except Exception as e:  # Spark wraps the source's error in its own classes
                if o["error"] not in str(e):
                    wrong.append(f"{fmt} {o['query']}: {str(e)[:300]}")
    assert not wrong, "\n".join(wrong)


def test_a_querys_own_format_clause(spark, nodes, python_source):
    """tests/features/statements.json through both sources: a query's own FORMAT clause is taken
    off by the core's rule (a subquery could not hold it); words that only look like one stay."""
    wrong = []
    for case in features.statements()["format"]:
        for fmt in ("chwire", python_source):
            try:
                got = [r[0] for r in read(spark, fmt, nodes[0], query=case["sql"]).collect()]
            except Exception as e:  # Spark wraps the source's error in its own classes
                got = str(e)[:300]
            if got != case["rows"]:
                wrong.append(f"{fmt} {case['sql']!r}: {got!r}")
    assert not wrong, "\n".join(wrong)


def test_tables_every_front_end_refuses(spark, nodes, python_source):
    """tests/features/refusals.json through both sources: a write to text that is no table is
    refused with the core's message before anything is sent."""
    wrong = []
    df = spark.createDataFrame([(1,)], "a long")
    for t in features.refusals()["tables"]:
        for fmt in ("chwire", python_source):
            try:
                df.write.format(fmt).option("url", nodes[0]).option("table", t["table"]).mode("append").save()
                wrong.append(f"{fmt} {t['table']!r}: accepted")
            except Exception as e:  # Spark wraps the source's error in its own classes
                if t["error"] not in str(e):
                    wrong.append(f"{fmt} {t['table']!r}: {str(e)[:300]}")
    assert not wrong, "\n".join(wrong)


def test_nulls_where_the_type_has_none(spark, nodes, srv, python_source):
    """tests/features/nulls.json through both sources: a NULL array or map (at any depth) is
    written as the empty Array or Map (the core's rule); a NULL scalar or struct for a column that
    is not Nullable is refused with the core's message, nothing written. On 26.9 (Map)."""
    if not str(srv.version).startswith("26."):
        pytest.skip("Map columns: 26.9")
    cases = features.nulls()
    t = features.table_name("default.spark_nulls")

    def write(fmt, cs):
        srv.query(f"DROP TABLE IF EXISTS {t}")
        srv.query(f"CREATE TABLE {t} ({features.texts_columns(cs)}) ENGINE = MergeTree ORDER BY k")
        schema = ", ".join(["k long"] + [f"c{i} {c['spark']}" for i, c in enumerate(cs)])
        row = tuple([1] + [c["value"] for c in cs])
        df = spark.createDataFrame([row], schema).coalesce(1)
        df.write.format(fmt).option("url", nodes[0]).option("table", t).mode("append").save()

    try:
        for fmt in ("chwire", python_source):
            write(fmt, cases["inserted"])
            http = f"http://default@{os.environ['CHWIRE_CLUSTER_HTTP_NODE1']}/default"
            got = features.texts_read(http, t, len(cases["inserted"]))
            assert got == [c["text"] for c in cases["inserted"]], fmt
            for case in cases["refused"]:
                with pytest.raises(Exception, match=cases["error"]):
                    write(fmt, [case])
                assert srv.query(f"SELECT count() FROM {t}").strip() == "0", (fmt, case)
                stages = "SELECT count() FROM system.tables WHERE startsWith(name, 'chwire_stage_')"
                assert srv.query(stages).strip() == "0", (fmt, case)
    finally:
        srv.query(f"DROP TABLE IF EXISTS {t}")


def test_writes_cut_blocks_by_the_cores_rule(spark, nodes, srv, python_source):
    """tests/features/blocks.json through both sources: a partition's rows go in blocks of exactly
    `blockRows` rows, the last one smaller (the core's Arrow insert; Spark makes its own batches,
    so each case is its rows in one partition), seen by `rowNumberInBlock()` materialized at the
    insert (the staging table's parts are attached as they are). The `refused` values are refused
    with the core's message. A refused value commits nothing here: a write goes through a staging
    table (docs/SPARK.md), as nulls.json's cases show."""
    cases = features.blocks()
    t = features.table_name("default.spark_blocks")
    settings = {f"setting.{k}": v for k, v in cases["settings"].items()}
    try:
        for fmt in ("chwire", python_source):
            for case in [c for c in cases["cases"] if "block_rows" in c]:
                total, size = sum(case["batches"]), int(case["block_rows"])
                srv.query(f"DROP TABLE IF EXISTS {t}")
                srv.query(f"CREATE TABLE {t} (n UInt64, r UInt64 MATERIALIZED rowNumberInBlock()) "
                          "ENGINE = MergeTree ORDER BY n")
                w = spark.range(0, total, numPartitions=1).selectExpr("id AS n").write.format(fmt) \
                    .option("url", nodes[0]).option("table", t).option("blockRows", case["block_rows"])
                for k, v in settings.items():
                    w = w.option(k, v)
                w.mode("append").save()
                # Rows at each place of a block: the blocks' sizes, largest first.
                at = [int(x) for x in srv.query(f"SELECT count() FROM {t} GROUP BY r ORDER BY r").split()]
                sizes = [sum(1 for c in at if c > j) for j in range(at[0])] if at else []
                want = sorted((min(size, total - i) for i in range(0, total, size)), reverse=True)
                assert sizes == want, (fmt, case)
                assert srv.query(f"SELECT count(), sum(n) FROM {t}").split() == [str(total), str(total * (total - 1) // 2)]
            for case in cases["refused"]:
                w = spark.range(0, 3, numPartitions=1).selectExpr("id AS n").write.format(fmt) \
                    .option("url", nodes[0]).option("table", t).option("blockRows", case["block_rows"])
                with pytest.raises(Exception, match=case["error"]):
                    w.mode("append").save()
    finally:
        srv.query(f"DROP TABLE IF EXISTS {t}")
