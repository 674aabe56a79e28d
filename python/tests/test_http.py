"""The Python package over the HTTP transport (an http:// URL): Arrow in and out, pandas,
errors. The same Rust client underneath; docs/HTTP.md."""
import os

import pyarrow as pa
import pytest

import chwire

HTTP_URL = os.environ.get(
    "CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:%s/default" % os.environ.get("CHWIRE_CH_HTTP_PORT", "18123")
)


@pytest.fixture
def http_client():
    with chwire.connect(HTTP_URL) as c:
        yield c


def test_query_arrow_over_http_keeps_types_and_zones(http_client):
    t = http_client.query_arrow(
        "SELECT number AS n, toString(number) AS s, toDateTime(number, 'Asia/Tokyo') AS t "
        "FROM system.numbers LIMIT 300000"
    )
    assert t.num_rows == 300000
    assert t.schema.field("n").type == pa.uint64()
    assert t.schema.field("t").type == pa.timestamp("s", tz="Asia/Tokyo")
    assert t.column("n").to_pylist()[-1] == 299999
    assert t.column("s")[12345].as_py() == "12345"


def test_insert_arrow_and_errors_over_http(http_client, table):
    http_client.command(f"CREATE TABLE {table} (id UInt64, name String) ENGINE = Memory")
    data = pa.table({"id": pa.array(range(100000), pa.uint64()), "name": [str(i) for i in range(100000)]})
    http_client.insert_arrow(table, data)
    back = http_client.query_df(f"SELECT sum(id) AS s, count() AS c FROM {table}")
    assert int(back["s"][0]) == sum(range(100000)) and int(back["c"][0]) == 100000
    with pytest.raises(chwire.ServerError) as e:
        http_client.query_arrow("SELECT * FROM chwire_py_http_no_such_table")
    assert e.value.code == 60


def test_cancel_works_before_the_first_block_over_http(http_client):
    # 18.16 answers HTTP only when the query is done: the cancel must not wait for a block.
    import threading
    import time

    slow = "SELECT number, sleepEachRow(0.001) FROM numbers(5000) SETTINGS max_block_size = 100"
    threading.Timer(0.3, http_client.cancel).start()
    start = time.monotonic()
    with pytest.raises(chwire.OperationalError, match="cancelled"):
        http_client.query_arrow(slow)
    assert time.monotonic() - start < 2.5
    assert http_client.command("SELECT 9") == 9


def test_a_cancelled_quiet_query_is_killed_without_another_call(http_client):
    # A query that writes nothing until its end is not stopped by the closed connection: the
    # cancel kills it on the server at once, not at the client's next use.
    import threading
    import time
    import uuid

    qid = "py-quiet-" + uuid.uuid4().hex
    threading.Timer(0.3, http_client.cancel).start()
    with pytest.raises(chwire.OperationalError, match="cancelled"):
        http_client.query_arrow("SELECT count() FROM numbers(100000000000) WHERE NOT ignore(sleepEachRow(0))",
                                query_id=qid)
    with chwire.connect(HTTP_URL) as other:
        deadline = time.monotonic() + 5
        while other.command(f"SELECT count() FROM system.processes WHERE query_id = '{qid}'"):
            assert time.monotonic() < deadline, "the cancelled query still runs on the server"
            time.sleep(0.1)


def test_boolean_keyword_options():
    # Python booleans are URL booleans (str(True) is "True", which the options refused).
    port = int(HTTP_URL.rsplit(":", 1)[1].split("/")[0])
    with chwire.connect(host="127.0.0.1", port=port, transport="http", secure=False, compression=False) as c:
        assert c.command("SELECT 1") == 1
    # secure=True taken: TLS to the plain HTTP port fails, either refused (the server answers
    # the ClientHello as a bad request) or timed out (18.16 sometimes waits for more of what it
    # takes for a request line: about one run in ten). A machine without system roots fails
    # before connecting, also after taking the options. (The refused boolean was an
    # InterfaceError about the option.)
    with pytest.raises((chwire.ConnectionError, chwire.TimeoutError, chwire.InterfaceError)) as e:
        chwire.connect(host="127.0.0.1", port=port, transport="http", secure=True, system_roots=True,
                       connect_timeout=2)
    if isinstance(e.value, chwire.InterfaceError):
        assert "no system root certificates" in str(e.value), e.value
