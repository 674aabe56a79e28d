"""Every way a query can end early stops it on the server, over both transports: a closed,
dropped or left stream, a cancel, closing the client, a query or receive timeout. Each test
names its query by a unique id, sees it in ``system.processes``, ends it early without using
the client again, and waits (bounded) until ``system.processes`` no longer has it. The query
runs for a minute unless it is stopped, and over HTTP writes too little for a closed
connection to stop it (18.16 flushes its answer per 1 MiB): only Cancel (native) or
KILL QUERY (HTTP) ends it in time."""

import asyncio
import gc
import os
import threading
import time
import uuid

import pytest

import chwire

NATIVE_URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")
if NATIVE_URL.startswith(("http://", "https://")):
    NATIVE_URL = "tcp://default@127.0.0.1:%s/default" % os.environ.get("CHWIRE_TEST_TCP_PORT", "19000")
HTTP_URL = os.environ.get("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")
# The 18.16 server too (scripts/with-server.sh --both), whose HTTP answers come late.
URL_18, HTTP_URL_18 = os.environ.get("CHWIRE_TEST_URL_18"), os.environ.get("CHWIRE_TEST_HTTP_URL_18")

# A row every three seconds for a minute (the native server sends nothing in between).
SLOW = "SELECT sleep(3) AS s FROM numbers(20) SETTINGS max_block_size = 1"
# For the streams, whose first batch must come before they can be closed: 2.4 MB of rows at
# once (over HTTP, 18.16 sends nothing before 1 MiB of answer), then a row every 0.1 s for a
# minute, 20 to a block (too little for a closed HTTP connection to stop it).
STREAM = ("SELECT toUInt64(number) AS n FROM numbers(300000) UNION ALL "
          "SELECT toUInt64(sleepEachRow(0.1)) FROM numbers(600) SETTINGS max_block_size = 20")
GONE_WITHIN = 10.0

TRANSPORTS = [pytest.param(NATIVE_URL, id="native"), pytest.param(HTTP_URL, id="http")]
if URL_18 and HTTP_URL_18:
    TRANSPORTS += [pytest.param(URL_18, id="native-18.16"), pytest.param(HTTP_URL_18, id="http-18.16")]


def with_options(url: str, options: str) -> str:
    return url + ("&" if "?" in url else "?") + options


def running(qid: str) -> bool:
    """Whether a server runs the query (ids are unique: every server is asked)."""
    for url in filter(None, (NATIVE_URL, URL_18)):
        with chwire.connect(url) as w:
            if w.command("SELECT count() FROM system.processes WHERE query_id = {q:String}", parameters={"q": qid}) > 0:
                return True
    return False


def wait_running(qid: str) -> None:
    deadline = time.monotonic() + 10
    while not running(qid):
        assert time.monotonic() < deadline, f"the query {qid} never showed up in system.processes"
        time.sleep(0.05)


def wait_gone(qid: str) -> None:
    start = time.monotonic()
    while running(qid):
        assert time.monotonic() - start < GONE_WITHIN, f"the query {qid} still runs on the server after it was abandoned"
        time.sleep(0.1)


def new_id(what: str) -> str:
    return f"cx-py-{what}-{uuid.uuid4().hex}"


@pytest.mark.parametrize("url", TRANSPORTS)
def test_a_closed_stream_is_stopped(url):
    qid = new_id("close")
    with chwire.connect(url) as c:
        stream = c.query_arrow_stream(STREAM, query_id=qid)
        wait_running(qid)
        stream.close_stream()
        wait_gone(qid)  # the client is not used again meanwhile
        assert c.command("SELECT 5") == 5


@pytest.mark.parametrize("url", TRANSPORTS)
def test_a_dropped_stream_is_stopped(url):
    qid = new_id("drop")
    with chwire.connect(url) as c:
        stream = c.query_arrow_stream(STREAM, query_id=qid)
        wait_running(qid)
        del stream
        gc.collect()
        wait_gone(qid)


@pytest.mark.parametrize("url", TRANSPORTS)
def test_a_stream_left_by_its_with_block_is_stopped(url):
    qid = new_id("with")
    with chwire.connect(url) as c:
        with c.query_arrow_stream(STREAM, query_id=qid):
            wait_running(qid)
        wait_gone(qid)


@pytest.mark.parametrize("url", TRANSPORTS)
def test_a_cancelled_query_is_stopped(url):
    qid = new_id("cancel")
    with chwire.connect(url) as c:
        def cancel():
            wait_running(qid)
            c.cancel()
        th = threading.Thread(target=cancel)
        th.start()
        with pytest.raises(chwire.OperationalError):
            c.query_arrow(SLOW, query_id=qid)
        th.join()
        wait_gone(qid)


@pytest.mark.parametrize("url", TRANSPORTS)
def test_closing_the_client_stops_its_query(url):
    qid = new_id("closeclient")
    c = chwire.connect(url)
    stream = c.query_arrow_stream(STREAM, query_id=qid)
    wait_running(qid)
    c.close()
    wait_gone(qid)
    del stream


@pytest.mark.parametrize("url", TRANSPORTS)
# A current server sends Progress every interactive_delay (0.1 s) while a query runs, and a
# receive timeout only fires on a silent connection: 4 s quiets it beyond the timeout (18.16
# is silent anyway). Not longer: the server also looks for the client's Cancel only that often.
@pytest.mark.parametrize("option", ["query_timeout=1500ms", "receive_timeout=1500ms&interactive_delay=4000000"])
def test_a_timed_out_query_is_stopped(url, option):
    qid = new_id("timeout")
    c = chwire.connect(with_options(url, option))
    th = threading.Thread(target=wait_running, args=(qid,))
    th.start()
    with pytest.raises(chwire.OperationalError, match="timed out"):
        c.query_arrow(SLOW, query_id=qid)
    th.join()
    wait_gone(qid)  # the client is neither used nor closed meanwhile
    c.close()


@pytest.mark.parametrize("url", TRANSPORTS)
def test_a_left_async_stream_is_stopped(url):
    qid = new_id("async")

    async def main():
        c = await chwire.connect_async(url)
        stream = await c.query_arrow_stream(STREAM, query_id=qid)
        await asyncio.get_running_loop().run_in_executor(None, wait_running, qid)
        await stream.close()
        await asyncio.get_running_loop().run_in_executor(None, wait_gone, qid)
        await c.close()

    asyncio.run(main())
