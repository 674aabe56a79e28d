"""The current server's features through the ADBC driver, from the cases every front end shares
(tests/features/): each MergeTree table read as Arrow (equal to chwire's own query_arrow) and
ingested back into a copy that must hold the same text on the server; server-side parameters of
every type bound through the driver; a block the server refuses commits nothing of it."""

import os
import sys

import pytest

import chwire
import chwire.adbc

adbc_driver_manager = pytest.importorskip("adbc_driver_manager")
from adbc_driver_manager import dbapi  # noqa: E402

from adbc_suite import URL, URL_18  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "features"))
import features  # noqa: E402

pytestmark = pytest.mark.skipif(not URL.startswith("tcp"), reason="the ADBC suite runs over the native protocol")

HTTP_URL = os.environ.get("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")
HTTP_URL_18 = os.environ.get("CHWIRE_TEST_HTTP_URL_18")

# (case) whose ingest cannot give the same text, by design, with the reason; one that starts
# passing fails, so that the list stays true.
KNOWN = {"dynamic": "Dynamic values are JSON text in Arrow"}


def table_params():
    servers = [("26.9", URL, HTTP_URL)] + ([("18.16", URL_18, HTTP_URL_18)] if URL_18 and HTTP_URL_18 else [])
    return [pytest.param(url, http, case, id=f"{server}-{case['name']}")
            for server, url, http in servers for case in features.tables() if server in case["servers"]]


@pytest.mark.parametrize("url, http, case", table_params())
def test_feature_tables_read_and_ingest_back(url, http, case):
    srv = features.Server(http)
    t, cp = features.table_name("adbc_feat"), features.table_name("adbc_feat_copy")
    settings = {**features.settings_of(case, srv.version), **case.get("select_settings", {})}
    sql = f"SELECT * FROM {t} ORDER BY k SETTINGS " + ", ".join(f"{k} = {v}" for k, v in settings.items()) if settings else \
        f"SELECT * FROM {t} ORDER BY k"
    try:
        srv.create(case, t)
        srv.copy(case, t, cp)
        with chwire.adbc.connect(url) as conn, conn.cursor() as cur, chwire.connect(url) as ch:
            cur.execute(sql)
            got = cur.fetch_arrow_table()
            want = ch.query_arrow(sql)
            # Compared as Python values (NaN, which BFloat16's random bits hold, is no equal of
            # itself in Table.equals).
            assert got.schema.equals(want.schema) and repr(got.to_pylist()) == repr(want.to_pylist())
            assert got.num_rows == int(srv.query(f"SELECT count() FROM {t}"))
            try:
                cur.adbc_ingest(cp, got, mode="append")
                same, err = srv.text(case, cp) == srv.text(case, t), "the copy differs"
            except dbapi.Error as e:
                same, err = False, str(e)[:300]
            if case["name"] in KNOWN:
                assert not same, f"now passes: remove {case['name']} from KNOWN"
            else:
                assert same, err
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
    finally:
        srv.drop(t, cp)


def test_server_side_parameters_of_every_type():
    """ADBC binds Arrow data: each value as chwire's Arrow mapping gives it (read with chwire's
    own client), bound back through the driver, must be the server's text of the case."""
    wrong = []
    with chwire.adbc.connect(URL) as conn, conn.cursor() as cur, chwire.connect(URL) as ch:
        for p in features.params():
            arrow = ch.query_arrow(f"SELECT {{p:{p['type']}}} AS p", parameters={"p": features.host(p["value"])}, settings=features.NEW_TYPES)
            wrong += _differs(cur, p, arrow)
    assert not wrong, "\n".join(wrong)


def _differs(cur, p, params):
    """Binding `params` to the case's placeholder through the driver: what differs from the
    server's text of the case (nothing, or one line)."""
    what = f"{p['type']} {p['value']!r} ({params.schema.field(0).type})"
    try:
        cur.execute(f"SELECT toString({{p:{p['type']}}}) AS s SETTINGS " + ", ".join(f"{k} = {v}" for k, v in features.NEW_TYPES.items()),
                    params)
        got = cur.fetchone()[0]
    except dbapi.Error as e:
        return [f"{what}: {str(e)[:200]}"]
    return [] if got == p["text"] else [f"{what}: {got!r}, the server's text is {p['text']!r}"]


def test_server_side_parameters_given_as_host_values():
    """params.json's host forms as pyarrow types them (numbers, text, lists of them): the
    core's rule binds them, as it binds Python's, Node's and Elixir's values (text for a date,
    an address or an enum), so the server's text is each case's. Values pyarrow types as
    something else (tuples, maps, decimals) are bound by their Arrow type above."""
    import pyarrow as pa

    wrong, ran = [], 0
    with chwire.adbc.connect(URL) as conn, conn.cursor() as cur:
        for p in features.params():
            v = features.host(p["value"])
            if not _plain(v):
                continue
            try:
                params = pa.table({"p": pa.array([v])})
            except (OverflowError, pa.ArrowException):  # beyond Int64, or a list pyarrow types as none
                continue
            ran += 1
            wrong += _differs(cur, p, params)
    assert ran > 40, ran
    assert not wrong, "\n".join(wrong)


def _plain(v):
    """A value whose pyarrow type is a host value of every binding (no tuple, map, decimal)."""
    if isinstance(v, list):
        return all(_plain(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


@pytest.mark.parametrize("url", [URL, HTTP_URL], ids=["native", "http"])
def test_a_querys_own_format_clause(url):
    """tests/features/statements.json: a query's own FORMAT clause is taken off by the core's
    rule; words that only look like one stay."""
    with chwire.adbc.connect(url) as conn, conn.cursor() as cur:
        for case in features.statements()["format"]:
            cur.execute(case["sql"])
            assert [r[0] for r in cur.fetchall()] == case["rows"], case["sql"]


def test_json_text_into_dynamic_by_the_cores_rule(name):
    """tests/features/dynamic.json: the JSON text of each value (what Arrow carries for a
    Dynamic column), ingested, takes the types of the core's one rule."""
    import json

    import pyarrow as pa

    cases = features.dynamic()
    data = pa.table({"k": pa.array(range(len(cases)), pa.uint32()),
                     "d": pa.array([json.dumps(features.host(c["value"])) for c in cases])})
    with chwire.adbc.connect(URL) as conn, conn.cursor() as cur, chwire.connect(URL) as ch:
        ch.command(f"CREATE TABLE {name} (k UInt32, d Dynamic) ENGINE = Memory")
        assert cur.adbc_ingest(name, data, mode="append") == len(cases)
        assert not features.dynamic_mismatches(features.dynamic_rows(HTTP_URL, name))


def test_text_into_addresses_and_uuids_by_the_cores_parser(conn, ch, name):
    """tests/features/texts.json: Arrow strings ingested into IPv4, IPv6 and UUID columns are
    read by the core's one parser, as ClickHouse reads them; what it refuses is refused before
    anything is sent."""
    import pyarrow as pa

    cases = features.texts()
    if not ch.server_version.startswith("26."):
        pytest.skip("IPv4/IPv6 columns: 26.9")

    def data(cs):
        return pa.table({"k": pa.array([1], pa.uint32()), **{f"c{i}": pa.array([c["value"]]) for i, c in enumerate(cs)}})

    with conn.cursor() as cur:
        features.run_text_cases(cases, HTTP_URL, name, ch.command,
                                lambda cs: cur.adbc_ingest(name, data(cs), mode="append"),
                                lambda: pytest.raises(dbapi.Error, match="is not the text of a"))


def test_nulls_where_the_type_has_none_by_the_cores_rule(conn, ch, name):
    """tests/features/nulls.json: NULL Arrow slots ingested where the column's type has no NULL.
    A NULL list or map (at any depth) is the empty Array or Map; a NULL scalar or struct for a
    column that is not Nullable is refused before anything is sent."""
    import pyarrow as pa

    cases = features.nulls()
    if not ch.server_version.startswith("26."):
        pytest.skip("Map columns: 26.9")

    def data(cs):
        with conn.cursor() as cur:
            cur.execute(f"SELECT * FROM {name} LIMIT 0")
            schema = cur.fetch_arrow_table().schema
        schema = pa.schema([f.with_nullable(True) for f in schema])
        row = [1] + [c["value"] for c in cs]
        return pa.Table.from_pylist([dict(zip(schema.names, row))], schema=schema)

    with conn.cursor() as cur:
        features.run_text_cases(cases, HTTP_URL, name, ch.command,
                                lambda cs: cur.adbc_ingest(name, data(cs), mode="append"),
                                lambda: pytest.raises(dbapi.Error, match=cases["error"]))


def test_ingest_cuts_blocks_by_the_cores_rule(conn, ch, name):
    """tests/features/blocks.json: an ingest's batches cut into blocks of the statement option
    ``chwire.block_rows`` (the core's ArrowInsert), seen as the parts of a table whose merges
    are stopped; a refused batch ends the ingest with the blocks before it committed."""
    import pyarrow as pa

    cases = features.blocks()
    settings = {f"chwire.setting.{k}": v for k, v in cases["settings"].items()}
    for case in cases["cases"] + [cases["refusal"]]:
        schema = pa.schema([("n", pa.uint64())])
        batches = [pa.record_batch([pa.array(b, pa.uint64())], schema=schema) for b in features.blocks_batches(case)]
        reader = pa.RecordBatchReader.from_batches(schema, batches)
        ch.command(f"DROP TABLE IF EXISTS {name}")
        ch.command(features.BLOCKS_TABLE.format(t=name))
        ch.command(features.BLOCKS_STOP.format(t=name))
        with conn.cursor() as cur:
            opts = dict(settings, **({"chwire.block_rows": case["block_rows"]} if "block_rows" in case else {}))
            cur.adbc_statement.set_options(**opts)
            if "errors" in case:
                with pytest.raises(dbapi.Error) as e:
                    cur.adbc_ingest(name, reader, mode="append")
                assert all(text in str(e.value) for text in case["errors"]), str(e.value)
            else:
                assert cur.adbc_ingest(name, reader, mode="append") == sum(case["parts"])
        parts = [r[0] for r in ch.query(features.BLOCKS_PARTS.format(t=name)).result_rows]
        assert parts == case["parts"], case
        total = sum(case["parts"])
        assert ch.query(f"SELECT count(), sum(n) FROM {name}").result_rows == [(total, total * (total - 1) // 2)]
    with conn.cursor() as cur:
        for case in cases["refused"]:
            with pytest.raises(dbapi.Error, match=case["error"]):
                cur.adbc_statement.set_options(**{"chwire.block_rows": case["block_rows"]})


def test_a_block_the_server_refuses_commits_nothing_of_it(conn, ch, name):
    import pyarrow as pa

    ch.command(f"CREATE TABLE {name} (a UInt32, CONSTRAINT small CHECK a < 100) ENGINE = MergeTree ORDER BY a")
    with conn.cursor() as cur:
        assert cur.adbc_ingest(name, pa.table({"a": pa.array([1, 2], pa.uint32())}), mode="append") == 2
        with pytest.raises(dbapi.Error, match="VIOLATED_CONSTRAINT|469"):
            cur.adbc_ingest(name, pa.table({"a": pa.array([3, 500, 4], pa.uint32())}), mode="append")
        assert ch.query(f"SELECT a FROM {name} ORDER BY a").result_rows == [(1,), (2,)]
        cur.execute("SELECT 7")
        assert cur.fetchone() == (7,)


def refusal_urls():
    return [u for u in (URL, HTTP_URL, URL_18) if u]


@pytest.mark.parametrize("url", refusal_urls())
def test_parameters_every_front_end_refuses(url):
    """tests/features/refusals.json: each value, bound as the Arrow value pyarrow makes of it,
    is refused with the core's message before anything is sent; the connection stays usable."""
    import pyarrow as pa

    wrong = []
    with chwire.adbc.connect(url) as conn, conn.cursor() as cur:
        for p in features.refusals()["params"]:
            v = features.host(p["value"])
            try:
                params = pa.table({"p": pa.array([v])})
            except OverflowError:  # beyond Int64: pyarrow infers no UInt64
                params = pa.table({"p": pa.array([v], pa.uint64())})
            try:
                cur.execute(f"SELECT toString({{p:{p['type']}}}) AS s", params)
                wrong.append(f"{p['type']} {p['value']!r}: accepted as {cur.fetchone()[0]!r}")
            except dbapi.Error as e:
                if p["error"] not in str(e) or "Code:" in str(e):
                    wrong.append(f"{p['type']} {p['value']!r} ({params.schema.field(0).type}): {str(e)[:200]}")
        cur.execute("SELECT {p:UInt8} AS n", pa.table({"p": pa.array([7])}))
        assert cur.fetchone()[0] == 7
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("url", refusal_urls())
def test_options_every_front_end_refuses(url):
    """tests/features/refusals.json: each URL is refused with the core's message."""
    wrong = []
    for o in features.refusals()["options"]:
        try:
            with chwire.adbc.connect(features.with_query(url, o["query"])) as conn, conn.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchall()
            wrong.append(f"{o['query']}: accepted")
        except dbapi.Error as e:
            if o["error"] not in str(e):
                wrong.append(f"{o['query']}: {str(e)[:200]}")
    assert not wrong, "\n".join(wrong)
