"""The GIL is released while queries wait: two threads on two clients run in parallel;
Ctrl-C (KeyboardInterrupt) and Client.cancel() stop a running query and leave the client
usable; the asyncio client."""

import asyncio
import os
import signal
import threading
import time

import pytest

import chwire

SLEEP = "SELECT sleep(1)"
LONG = "SELECT sum(number) FROM numbers(100000000000)"


def timed(fn):
    t = time.monotonic()
    fn()
    return time.monotonic() - t


def test_two_threads_two_clients_run_in_parallel(url):
    a, b = chwire.connect(url), chwire.connect(url)
    serial = timed(lambda: (a.query_arrow(SLEEP), b.query_arrow(SLEEP)))

    def parallel():
        th = [threading.Thread(target=c.query_arrow, args=(SLEEP,)) for c in (a, b)]
        for t in th:
            t.start()
        for t in th:
            t.join()

    par = timed(parallel)
    # Each query sleeps 1 s on the server: serial ≈ 2 s, parallel ≈ 1 s (if the GIL were held
    # while waiting, the threads would take turns and need ≈ 2 s too).
    assert serial >= 1.9
    assert par < 1.6, (serial, par)
    a.close()
    b.close()


def test_gil_is_released_while_waiting(client):
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    th = threading.Thread(target=ticker)
    th.start()
    client.query_arrow(SLEEP)
    stop.set()
    th.join()
    assert len(ticks) > 30  # the other Python thread ran during the 1 s wait


def test_keyboard_interrupt_cancels_and_client_stays_usable(client):
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        client.query_arrow(LONG)
    assert time.monotonic() - t < 5
    assert client.command("SELECT 7") == 7


def test_keyboard_interrupt_while_streaming(client):
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        # The interrupt lands in the loop's own Python code or while waiting for a batch;
        # either way the with block closes the stream (cancelling the query).
        with client.query_arrow_stream("SELECT number FROM system.numbers", settings={"max_block_size": 1000}) as s:
            timer.start()
            started = time.monotonic()
            for _ in s:
                time.sleep(0.001)
                # A lost interrupt fails the test instead of looping over system.numbers forever.
                if time.monotonic() - started > 30:
                    pytest.fail("no KeyboardInterrupt within 30 s of SIGINT")
    assert client.command("SELECT 8") == 8


def test_keyboard_interrupt_through_the_c_stream(client, native_only):
    """A stream handed to Polars through __arrow_c_stream__ is read by Polars' own code; Ctrl-C
    still cancels the query: the read fails within the signal check, the interrupt is raised
    again for Python, and the client is usable."""
    native_only("over HTTP the schema comes with the first block, which an endless aggregation never "
                "sends: the stream does not open (Ctrl-C while it waits: test_keyboard_interrupt_cancels_and_client_stays_usable)")
    import polars as pl

    s = client.query_arrow_stream(LONG)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t = time.monotonic()
    with pytest.raises(BaseException) as e:  # noqa: PT011 - Polars wraps the stream's error
        try:
            pl.DataFrame(s)
        except KeyboardInterrupt:
            raise
        except Exception:
            time.sleep(0.5)  # a re-raised interrupt lands here unless Polars swallowed it
            raise
    assert isinstance(e.value, KeyboardInterrupt) or "KeyboardInterrupt: the query was cancelled" in str(e.value)
    assert time.monotonic() - t < 5
    assert client.command("SELECT 10") == 10


# Blocks of 1,000 rows that never stop, throttled to 4 MB/s so that a missed interrupt costs
# memory slowly: a batch arrives every 2 ms, so a wait for one never times out.
FLOWING = "SELECT number FROM system.numbers"
FLOWING_SETTINGS = {"max_block_size": 1000, "max_network_bandwidth": 4_000_000}


@pytest.mark.parametrize("reader", ["pyarrow.table(stream)", "query_arrow"])
def test_keyboard_interrupt_while_batches_keep_coming(client, reader):
    """Ctrl-C lands while the result keeps flowing: signals are looked at before each batch, not
    only when a wait times out. pyarrow reads the exported C stream without running Python code;
    its error is raised and the interrupt again. The exceptions are kept, as a REPL keeps the
    last traceback: the client is usable all the same."""
    import pyarrow as pa

    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    watchdog = threading.Timer(20, client.cancel)  # a missed interrupt ends here, and fails below
    kept = []
    t = time.monotonic()
    timer.start()
    watchdog.start()
    try:
        try:
            if reader == "query_arrow":
                client.query_arrow(FLOWING, settings=FLOWING_SETTINGS)
            else:
                pa.table(client.query_arrow_stream(FLOWING, settings=FLOWING_SETTINGS))
        except BaseException as e:  # noqa: B036 - pyarrow's error, then the interrupt raised again
            kept.append(e)
            time.sleep(0.5)
    except KeyboardInterrupt as e:
        kept.append(e)
    finally:
        watchdog.cancel()
    elapsed = time.monotonic() - t
    assert elapsed < 5, f"the interrupt took {elapsed:.1f} s ({kept})"
    assert any(isinstance(e, KeyboardInterrupt) for e in kept), kept
    assert client.command("SELECT 11") == 11


def slow_batches(n, pause=0.1):
    """A pyarrow reader over a Python generator: n one-row batches, `pause` seconds apart."""
    import pyarrow as pa

    schema = pa.schema([("id", pa.uint64())])

    def gen():
        for i in range(n):
            time.sleep(pause)
            yield pa.record_batch([pa.array([i], pa.uint64())], schema=schema)
    return pa.RecordBatchReader.from_batches(schema, gen())


def test_insert_arrow_from_another_clients_stream(client, url, table):
    """The data is read apart from the runtimes: a chwire result stream (which waits on a
    runtime itself) can be the data of another client's insert."""
    client.command(f"CREATE TABLE {table} (id UInt64) ENGINE = Memory")
    with chwire.connect(url) as other:
        n = client.insert_arrow(table, other.query_arrow_stream("SELECT number AS id FROM numbers(100000)"))
    assert n == 100000
    assert client.command(f"SELECT count(), sum(id) FROM {table}") == [100000, 4999950000]


def test_a_slow_insert_does_not_hold_up_other_clients(client, url, table):
    """While one client's insert waits for its (slow) Python data, the clients that share its
    runtime thread answer at once (the data was read on that thread, stalling them)."""
    client.command(f"CREATE TABLE {table} (id UInt64) ENGINE = Memory")
    others = [chwire.connect(url) for _ in range(3)]  # at least one on the insert's runtime
    try:
        th = threading.Thread(target=client.insert_arrow, args=(table, slow_batches(20)))
        th.start()
        time.sleep(0.3)
        took = [timed(lambda o=o: o.command("SELECT 1")) for o in others]
        th.join()
        assert max(took) < 1.0, took  # the insert takes 2 s
        assert client.command(f"SELECT count() FROM {table}") == 20
    finally:
        for o in others:
            o.close()


def test_keyboard_interrupt_and_cancel_stop_an_insert_from_a_slow_generator(client, table):
    client.command(f"CREATE TABLE {table} (id UInt64) ENGINE = Memory")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        client.insert_arrow(table, slow_batches(100))
    assert time.monotonic() - t < 5  # the generator's 100 batches take 10 s
    threading.Timer(0.3, client.cancel).start()
    with pytest.raises(chwire.OperationalError, match="cancelled"):
        client.insert_arrow(table, slow_batches(100))
    assert client.command(f"SELECT count() FROM {table}") == 0  # nothing was sent: the blocks gather rows
    assert client.command("SELECT 10") == 10


def test_cancel_from_another_thread(client):
    threading.Timer(0.3, client.cancel).start()
    with pytest.raises(chwire.OperationalError, match="cancelled"):
        client.query_arrow(LONG)
    assert client.command("SELECT 9") == 9


def test_asyncio_client(url):
    async def main():
        async with await chwire.connect_async(url) as a, await chwire.connect_async(url) as b:
            t = await a.query_arrow("SELECT number FROM system.numbers LIMIT 10")
            assert t.num_rows == 10
            assert await a.command("SELECT 1") == 1
            assert (await a.query("SELECT 'x' AS c")).result_rows == [("x",)]
            start = time.monotonic()
            await asyncio.gather(a.query_arrow(SLEEP), b.query_arrow(SLEEP))
            assert time.monotonic() - start < 1.6
            # A cancelled task cancels its query; the client goes on.
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(a.query_arrow(LONG), 0.3)
            assert await a.command("SELECT 2") == 2
            total = 0
            async with await b.query_arrow_stream("SELECT number FROM system.numbers LIMIT 1000",
                                                  settings={"max_block_size": 100}) as s:
                async for batch in s:
                    total += batch.num_rows
            assert total == 1000
            with pytest.raises(chwire.ServerError):
                await b.query_df("SELECT * FROM nope_nope")
    asyncio.run(main())


def test_asyncio_cancelling_a_queued_call_leaves_the_running_one(url):
    async def main():
        a = await chwire.connect_async(url)
        running = asyncio.ensure_future(a.command("SELECT sleep(1)"))
        await asyncio.sleep(0.2)
        # Queued behind the running call: its timeout must not cancel that one, nor run later.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(a.command("SELECT 5"), 0.2)
        assert await running == 0
        assert await a.command("SELECT 6") == 6
        await a.close()
        await a.close()  # twice is fine
        with pytest.raises(chwire.InterfaceError):
            await a.command("SELECT 7")
    asyncio.run(main())


def test_asyncio_is_imported_only_when_used():
    """`import chwire` leaves asyncio out (about 6 MiB of a process's memory, with ssl and
    subprocess); chwire.AsyncClient and connect_async import it on first use."""
    import subprocess
    import sys

    code = ("import sys, chwire; assert 'asyncio' not in sys.modules, 'asyncio imported'; "
            "assert chwire.AsyncClient.__name__ == 'AsyncClient'; assert 'asyncio' in sys.modules; "
            "from chwire import connect_async; assert 'connect_async' in dir(chwire)")
    subprocess.run([sys.executable, "-c", code], check=True)
