"""chwire.create_pool: one client over the core's pool, shared by threads (each query on a
connection of its own), with the core's pool options and their refusals, as Node's createPool
and Elixir's pool."""

import threading
import time

import pytest

import chwire

ENDLESS = "SELECT number FROM system.numbers"


def test_a_pool_runs_a_query_while_another_streams(url):
    pool = chwire.create_pool(url, {"max_size": 2})
    try:
        assert pool.pool_status() == {"size": 0, "idle": 0, "in_use": 0, "waiting": 0}
        s = pool.query_arrow_stream(ENDLESS, settings={"max_block_size": 1000})
        assert next(s).num_rows == 1000
        # One connection would refuse this as busy (test_stream.py); the pool takes another.
        assert pool.command("SELECT 42") == 42
        assert pool.pool_status()["size"] == 2
        s.close_stream()
        assert pool.command("SELECT 43") == 43
    finally:
        pool.close()


def test_threads_share_a_pool(url):
    pool = chwire.create_pool(url, {"max_size": 4}, settings={"max_threads": 1})
    sums, errors = [], []

    def work(i):
        try:
            for _ in range(5):
                sums.append(pool.command(f"SELECT sum(number) + {i} FROM numbers(100000)"))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert sorted(sums) == sorted(4999950000 + i for i in range(8) for _ in range(5))
        status = pool.pool_status()
        assert 1 <= status["size"] <= 4 and status["in_use"] == 0
    finally:
        pool.close()


def test_a_full_pool_waits_at_most_acquire_timeout(url):
    pool = chwire.create_pool(url, {"max_size": 1, "acquire_timeout": "300ms"})
    try:
        s = pool.query_arrow_stream(ENDLESS, settings={"max_block_size": 1000})
        next(s)
        with pytest.raises(chwire.TimeoutError):
            pool.command("SELECT 1")
        s.close_stream()
        assert pool.command("SELECT 2") == 2
    finally:
        pool.close()


def test_pool_options_are_the_cores(url):
    # A typo names the closest option; a connection option is no pool option.
    with pytest.raises(chwire.InterfaceError, match="did you mean max_size"):
        chwire.create_pool(url, {"max_sise": 2})
    with pytest.raises(chwire.InterfaceError, match="not a pool option"):
        chwire.create_pool(url, {"compression": "lz4"})
    # The connection's options stay connect()'s.
    with pytest.raises(chwire.InterfaceError, match="did you mean compression"):
        chwire.create_pool(url, compresion="lz4")
    one = chwire.connect(url)
    try:
        assert one.pool_status() is None
    finally:
        one.close()


def test_cancel_stops_every_running_query_of_a_pool(url):
    pool = chwire.create_pool(url, {"max_size": 2})
    errors = []

    def run():
        try:
            pool.command("SELECT sum(number) FROM numbers(100000000000)")
        except chwire.OperationalError as e:
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    watch = chwire.connect(url)
    try:
        # Both queries running on the server, then one cancel() for the two.
        for _ in range(200):
            running = watch.command(
                "SELECT count() FROM system.processes WHERE query LIKE '%numbers(100000000000)%' "
                "AND query NOT LIKE '%system.processes%'"
            )
            if running == 2:
                break
            time.sleep(0.05)
        assert running == 2
        pool.cancel()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads)
        assert len(errors) == 2
        assert pool.command("SELECT 3") == 3
    finally:
        watch.close()
        pool.close()


def test_an_asyncio_pool_runs_calls_at_once_and_cancels_one_alone(url):
    """create_pool_async: as many calls at once as the pool has connections; a cancelled call
    (asyncio.wait_for's timeout) cancels its own query, not the others'."""
    import asyncio

    slow = "SELECT sleepEachRow(0.5) FROM numbers(2) SETTINGS max_block_size = 1"
    endless = "SELECT sum(number) FROM numbers(100000000000)"

    async def main():
        pool = await chwire.create_pool_async(url, {"max_size": 3}, settings={"max_threads": 1})
        async with pool:
            # Three queries of a second each, at once: about a second, not three.
            start = time.monotonic()
            rows = await asyncio.gather(*(pool.query(slow) for _ in range(3)))
            assert [r.row_count for r in rows] == [2, 2, 2]
            assert time.monotonic() - start < 2.5
            # One call times out (its query cancelled on the server) while another goes on.
            other = asyncio.ensure_future(pool.command(f"SELECT count() FROM ({slow})"))
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(pool.command(endless), timeout=0.5)
            assert await other == 2
            assert await pool.command("SELECT 3") == 3
            # A stream's read, cancelled, cancels that stream's query alone.
            stream = await pool.query_arrow_stream("SELECT sleepEachRow(1) FROM numbers(5)", settings={"max_block_size": 1})
            other = asyncio.ensure_future(pool.command(f"SELECT count() FROM ({slow})"))
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(stream.__anext__(), timeout=0.3)
            assert await other == 2
            with pytest.raises(chwire.OperationalError):
                await stream.__anext__()
            assert await pool.command("SELECT 4") == 4
            await stream.close()

    asyncio.run(main())


def test_closing_an_asyncio_client_stops_what_runs_and_what_waits(url):
    """AsyncClient.close() cancels the running calls (they raise), drops the queued ones (they
    raise InterfaceError) and returns at once; a cancelled queued call raises at once; a call
    cancelled while it waits for a pool connection ends at once."""
    import asyncio

    endless = "SELECT sum(number) FROM numbers(100000000000)"

    async def main():
        c = await chwire.connect_async(url)
        running = asyncio.ensure_future(c.command(endless))
        await asyncio.sleep(0.3)
        queued = asyncio.ensure_future(c.command("SELECT 1"))
        await asyncio.sleep(0.1)
        # Cancelled while queued behind the endless query: at once, not when it ends.
        start = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(c.command("SELECT 2"), timeout=0.2)
        assert time.monotonic() - start < 2
        start = time.monotonic()
        await asyncio.wait_for(c.close(), timeout=10)
        assert time.monotonic() - start < 5
        with pytest.raises(chwire.OperationalError):
            await running
        with pytest.raises(chwire.InterfaceError):
            await queued

        pool = await chwire.create_pool_async(url, {"max_size": 1, "acquire_timeout": "30s"})
        stream = await pool.query_arrow_stream("SELECT number FROM system.numbers", settings={"max_block_size": 10})
        await stream.__anext__()
        # The one connection is the stream's: a call waits for it, and its cancel ends the wait.
        start = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(pool.command("SELECT 3"), timeout=0.5)
        assert time.monotonic() - start < 5
        # Closing a stream another task reads: the query stops, and that read raises (or ends,
        # when the close came first: the caller's own doing), never "Already borrowed".
        reader = asyncio.ensure_future(stream.__anext__())
        await stream.close()
        try:
            await asyncio.wait_for(reader, timeout=10)
        except (chwire.OperationalError, StopAsyncIteration):
            pass
        assert await asyncio.wait_for(pool.command("SELECT 4"), timeout=10) == 4
        await pool.close()

    asyncio.run(main())
