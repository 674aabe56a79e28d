import os
import pathlib
import signal
import socket
import subprocess
import uuid

import pytest

import chwire

URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")
# The 18.16 server of `scripts/with-server.sh --both`, for what is about old servers.
URL_18 = os.environ.get("CHWIRE_TEST_URL_18")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="session")
def sigint_raises_keyboard_interrupt():
    """The interrupt tests send SIGINT to this process and expect KeyboardInterrupt. A process
    started in the background (`make test &`, nohup) inherits SIGINT ignored, and Python then
    installs no handler: set Python's own, whatever the disposition inherited."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def url():
    return URL


@pytest.fixture
def native_only():
    """``native_only(reason)`` skips the test when the suite runs over HTTP
    (``CHWIRE_TEST_URL=http://...``), for what 18.16 does not give over HTTP."""
    def skip(reason):
        if URL.startswith(("http://", "https://")):
            pytest.skip(f"native protocol only: {reason}")
    return skip


@pytest.fixture
def client():
    with chwire.connect(URL) as c:
        yield c


@pytest.fixture
def client18():
    """A client of the 18.16 server (CHWIRE_TEST_URL_18); skipped without one."""
    if not URL_18:
        pytest.skip("no 18.16 server (CHWIRE_TEST_URL_18: run under scripts/with-server.sh --both)")
    with chwire.connect(URL_18) as c:
        yield c


@pytest.fixture(params=["main", "18.16"])
def any_client(request):
    """The main server's client, then the 18.16 server's (skipped without one)."""
    if request.param == "main":
        with chwire.connect(URL) as c:
            yield c
        return
    if not URL_18:
        pytest.skip("no 18.16 server (CHWIRE_TEST_URL_18: run under scripts/with-server.sh --both)")
    with chwire.connect(URL_18) as c:
        yield c


@pytest.fixture
def old_server():
    """``old_server(client)``: whether the client's server is 18.16 (older than server-side
    parameters and the newer types)."""
    return lambda c: int(c.server_version.split(".")[0]) < 19


@pytest.fixture
def table(client):
    """A fresh table name, dropped afterwards."""
    name = "py_" + uuid.uuid4().hex[:12]
    yield name
    client.command(f"DROP TABLE IF EXISTS {name}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def kolkata_url():
    """The native URL of a ClickHouse 26.9 whose time zone is Asia/Kolkata (UTC+05:30), for
    what depends on the server's zone: CHWIRE_TEST_TZ_URL if set, else an instance of
    scripts/server.sh started for the session (its own directory beside the main server's,
    free ports) and stopped afterwards."""
    given = os.environ.get("CHWIRE_TEST_TZ_URL")
    if given:
        yield given
        return
    base = os.environ.get("CHWIRE_CH_DIR", str(ROOT / "build" / "ch26"))
    env = dict(os.environ, CHWIRE_CH_DIR=base.rstrip("/") + "-kolkata", CHWIRE_CH_TZ="Asia/Kolkata",
               CHWIRE_CH_TCP_PORT=str(_free_port()), CHWIRE_CH_HTTP_PORT=str(_free_port()),
               CHWIRE_CH_NAME="server.sh (Asia/Kolkata)")
    script = str(ROOT / "scripts" / "server.sh")
    # An instance an interrupted run left in this directory (on other ports) goes first.
    subprocess.run([script, "stop"], env=env, capture_output=True)
    started = subprocess.run([script, "start"], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        pytest.fail(f"could not start the Asia/Kolkata server:\n{started.stderr[-3000:]}")
    try:
        yield subprocess.run([script, "url"], env=env, capture_output=True, text=True, check=True).stdout.strip()
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True)
