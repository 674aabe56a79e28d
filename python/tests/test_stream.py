"""query_arrow_stream: bounded batches, early close, the Arrow PyCapsule stream interface
(pyarrow, Polars, DuckDB read it without copying)."""

import duckdb
import polars as pl
import pyarrow as pa
import pytest

import chwire

SQL = "SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 100000"


def test_iterate_batches(client):
    with client.query_arrow_stream(SQL, settings={"max_block_size": 10000}) as s:
        assert s.schema.names == ["n", "s"]
        total = 0
        for b in s:
            assert isinstance(b, pa.RecordBatch) and b.num_rows <= 10000
            total += b.num_rows
    assert total == 100000


def test_close_early_cancels_and_client_stays_usable(client):
    s = client.query_arrow_stream("SELECT number FROM system.numbers", settings={"max_block_size": 1000})
    first = next(s)
    assert first.num_rows == 1000
    # A second query while the stream is open is refused (it would wait forever).
    with pytest.raises(chwire.ProgrammingError):
        client.query_arrow("SELECT 1")
    s.close_stream()
    assert client.command("SELECT 42") == 42


def test_dropping_an_unfinished_stream_cancels_it(client):
    s = client.query_arrow_stream("SELECT number FROM system.numbers", settings={"max_block_size": 1000})
    next(s)
    del s
    assert client.command("SELECT 43") == 43


def test_read_all_after_partial_iteration(client):
    s = client.query_arrow_stream(SQL, settings={"max_block_size": 30000})
    first = next(s)
    rest = s.read_all()
    assert first.num_rows + rest.num_rows == 100000


def test_pycapsule_consumers(client):
    reader = pa.RecordBatchReader.from_stream(client.query_arrow_stream(SQL))
    assert reader.read_all().num_rows == 100000
    df = pl.DataFrame(client.query_arrow_stream(SQL))
    assert df.shape == (100000, 2) and df["n"].sum() == 4999950000
    stream = client.query_arrow_stream(SQL)
    n = duckdb.sql("SELECT count(*), sum(n) FROM stream").fetchall()[0]
    assert n == (100000, 4999950000)
    assert pa.table(client.query_arrow_stream(SQL)).num_rows == 100000


def test_polars_shares_the_buffers(client):
    """Polars takes the Arrow buffers over: the numbers column's data pointer is the one
    chwire decoded into (no copy)."""
    s = client.query_arrow_stream("SELECT number AS n FROM system.numbers LIMIT 200000",
                                  settings={"max_block_size": 200000})
    df = pl.DataFrame(s)
    # The same values, and Polars reports the buffer as Arrow-owned (one chunk, not rechunked).
    assert df["n"].n_chunks() == 1 and df["n"].sum() == sum(range(200000))


def test_error_in_the_middle_of_a_stream(client):
    # 2.7 MB before the error: over HTTP 18.16 flushes its output by the MiB, so a smaller
    # result's error would come as the response's status, before any block.
    s = client.query_arrow_stream(
        "SELECT number, throwIf(number = 300000) FROM system.numbers LIMIT 1000000", settings={"max_block_size": 10000})
    with pytest.raises(chwire.ServerError) as e:
        for _ in s:
            pass
    assert e.value.code == 395
    assert client.command("SELECT 44") == 44


def test_progress_through_the_c_stream(client, native_only):
    """The progress callback keeps firing while pyarrow/Polars read the exported stream."""
    native_only("18.16 sends no progress over HTTP (docs/HTTP.md)")
    sql = "SELECT number FROM numbers(3000000)"
    for consume in (pa.table, pl.DataFrame):
        calls = []
        s = client.query_arrow_stream(sql, settings={"max_block_size": 100000}, progress=calls.append)
        before = len(calls)
        assert len(consume(s)) == 3000000
        assert len(calls) > before, "no progress reported while the consumer read the stream"
        assert calls[-1]["read_rows"] == 3000000


def test_query_arrow_joins_small_blocks(client):
    """A result of many small blocks becomes a Table of few chunks (runs of small batches are
    joined before the pyarrow import), with every row in order; a large block stays whole."""
    t = client.query_arrow("SELECT number AS n, toString(number) AS s FROM numbers(200000)",
                           settings={"max_block_size": 1000})
    assert t.num_rows == 200000
    assert t.column("n").num_chunks <= 4, t.column("n").num_chunks
    assert t.column("n").to_pylist() == list(range(200000))
    assert t.column("s").to_pylist()[-3:] == ["199997", "199998", "199999"]
    big = client.query_arrow("SELECT number AS n FROM numbers(300000)", settings={"max_block_size": 100000})
    assert big.num_rows == 300000 and big.column("n").num_chunks == 3
    # Blocks of a current server's default size (65,409 rows) stay whole too: joined in pairs,
    # every value was copied once more.
    full = client.query_arrow("SELECT number AS n FROM numbers(1000000)", settings={"max_block_size": 65409})
    assert full.num_rows == 1000000 and full.column("n").num_chunks == 16, full.column("n").num_chunks
    empty = client.query_arrow("SELECT number AS n FROM numbers(10) WHERE n > 100")
    assert empty.num_rows == 0 and empty.schema.names == ["n"]


def test_error_after_queued_batches_is_raised_by_query_arrow(client):
    """A server error that arrives behind batches already queued is raised, never dropped
    (which would return a silently truncated table)."""
    for _ in range(5):
        with pytest.raises(chwire.ServerError) as e:
            client.query_arrow("SELECT throwIf(number = 150000) AS x FROM system.numbers LIMIT 200000",
                               settings={"max_block_size": 1000})
        assert e.value.code == 395
        assert client.command("SELECT 45") == 45


def test_a_stream_stays_failed_after_an_interrupt(client):
    """A loop resumed after Ctrl-C (a notebook cell run again) must not end as if the result
    were complete; close_stream() ends a stream cleanly. Progress is kept without a callback."""
    import os
    import signal
    import threading

    s = client.query_arrow_stream("SELECT number FROM system.numbers LIMIT 100000000", settings={"max_block_size": 1000})
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    # list() runs no Python code between batches, so the stream's wait sees the signal (an
    # interrupt that lands in the caller's own loop body leaves the stream intact, to go on).
    with pytest.raises(KeyboardInterrupt):
        list(s)
    assert 0 < s.progress["read_rows"] < 100000000
    with pytest.raises(chwire.OperationalError, match="interrupted"):
        next(s)
    with pytest.raises(pa.ArrowInvalid, match="OperationalError: the query was interrupted"):
        pa.table(s)  # pyarrow reads the C stream and raises its own error with the message
    assert client.command("SELECT 12") == 12

    s = client.query_arrow_stream("SELECT number FROM system.numbers", settings={"max_block_size": 1000})
    next(s)
    s.close_stream()
    assert list(s) == []
    # A server error mid-stream, then reads again: the error stays.
    s = client.query_arrow_stream("SELECT throwIf(number = 5000) FROM system.numbers", settings={"max_block_size": 1000})
    with pytest.raises(chwire.ServerError):
        for _ in s:
            pass
    with pytest.raises(chwire.OperationalError, match="failed"):
        next(s)
    assert client.command("SELECT 13") == 13


# Two blocks of each: LowCardinality and Enum columns carry a dictionary per block.
DICTIONARIES = ("SELECT toLowCardinality(toString(number % 2)) AS lc, CAST(number % 2 AS Enum8('a' = 0, 'b' = 1)) AS e, "
                "toLowCardinality(if(number % 3 = 0, NULL, toString(number % 3))) AS lcn, [toLowCardinality(toString(number % 4))] AS a "
                "FROM numbers(10) SETTINGS max_block_size = 5")


def _unique_dictionaries(chunked):
    assert pa.types.is_dictionary(chunked.type) or chunked.type == pa.large_string()  # 18.16: Array(String)
    for chunk in chunked.chunks if pa.types.is_dictionary(chunked.type) else ():
        values = chunk.dictionary.to_pylist()
        assert len(values) == len(set(values)), values


def test_a_result_of_several_blocks_keeps_each_dictionary_unique(any_client):
    """query_arrow joins small batches: joined, two blocks' dictionaries were one dictionary end
    to end (['', '0', '1', '', '1', '0']), which pandas refused as categories ("Categorical
    categories must be unique"). Through the stream and its C export, Polars and DuckDB too."""
    c = any_client
    settings = {"allow_experimental_low_cardinality_type": 1} if c.server_version.startswith("18.") else None
    want = {"lc": [str(i % 2) for i in range(10)], "e": ["ab"[i % 2] for i in range(10)],
            "lcn": [None if i % 3 == 0 else str(i % 3) for i in range(10)], "a": [[str(i % 4)] for i in range(10)]}
    t = c.query_arrow(DICTIONARIES, settings=settings)
    for name in ("lc", "e", "lcn"):
        _unique_dictionaries(t.column(name))
    _unique_dictionaries(pa.chunked_array([ch.values for ch in t.column("a").chunks]))
    assert t.to_pydict() == want
    df = c.query_df(DICTIONARIES, settings=settings)
    assert df["lc"].tolist() == want["lc"] and sorted(df["lc"].cat.categories) == ["", "0", "1"]
    assert df["e"].tolist() == want["e"] and list(df["e"].cat.categories) == ["a", "b"]
    assert [None if isinstance(x, float) else x for x in df["lcn"].tolist()] == want["lcn"]
    assert c.query(DICTIONARIES, settings=settings).result_columns[:2] == [want["lc"], want["e"]]
    assert list(c.query_np(DICTIONARIES, settings=settings)["e"]) == want["e"]
    assert pa.table(c.query_arrow_stream(DICTIONARIES, settings=settings)).to_pandas()["e"].tolist() == want["e"]
    assert c.query_pl(DICTIONARIES, settings=settings)["lc"].to_list() == want["lc"]
    s = c.query_arrow_stream(DICTIONARIES, settings=settings)
    assert duckdb.sql("SELECT count(DISTINCT lc), count(DISTINCT e) FROM s").fetchall() == [(2, 2)]


def test_datetimes_without_a_zone_are_in_the_servers(kolkata_url):
    """A DateTime column without a zone of its own is in the server's (Asia/Kolkata here), as
    chwire's Rust client, the ADBC driver and the Elixir binding give it: the Python stream
    had its own conversion, which left it UTC (03:04:05 Kolkata came out as 21:34:05 UTC)."""
    import datetime as dt
    import zoneinfo

    sql = ("SELECT toDateTime('2020-01-02 03:04:05') AS t, toDateTime64('2020-01-02 03:04:05.5', 1) AS t64, "
           "[toDateTime('2020-01-02 03:04:05')] AS a, toDateTime('2020-01-02 03:04:05', 'UTC') AS u")
    kolkata = zoneinfo.ZoneInfo("Asia/Kolkata")
    with chwire.connect(kolkata_url) as c:
        assert c.server_info["timezone"] == "Asia/Kolkata"
        for schema in (c.query_arrow(sql).schema, c.query_arrow_stream(sql).schema, pa.table(c.query_arrow_stream(sql)).schema):
            assert [str(f.type) for f in schema] == ["timestamp[s, tz=Asia/Kolkata]", "timestamp[ms, tz=Asia/Kolkata]",
                                                     "large_list<item: timestamp[s, tz=Asia/Kolkata] not null>",
                                                     "timestamp[s, tz=UTC]"]
        t, t64, a, u = c.query(sql).result_rows[0]
        assert t == dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=kolkata) and t.utcoffset() == dt.timedelta(hours=5, minutes=30)
        assert t64 == dt.datetime(2020, 1, 2, 3, 4, 5, 500000, tzinfo=kolkata) and a == [t]
        assert u == dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
        assert str(c.query_df(sql)["t"].iloc[0]) == "2020-01-02 03:04:05+05:30"
        # The same instants come back from an insert of what was read (naive datetimes are UTC).
        c.command("CREATE TEMPORARY TABLE tz_rows (t DateTime, n DateTime64(3))")
        c.insert("tz_rows", [(t, dt.datetime(2020, 1, 1, 21, 34, 5, 123000))])
        assert c.command("SELECT toString(t), toString(n) FROM tz_rows") == ["2020-01-02 03:04:05", "2020-01-02 03:04:05.123"]
