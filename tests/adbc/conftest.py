"""Fixtures of the ADBC suite: connections through the driver (``conn``) and chwire's own
client (``ch``) to the main server, and the same for both servers (``any_*``: the main one,
then 18.16, for the tests about old servers)."""

import uuid

import pytest

import chwire
import chwire.adbc

from adbc_suite import URL, URL_18


@pytest.fixture(params=["main", "18.16"])
def any_url(request):
    """The main server's URL, then the 18.16 server's (skipped without one)."""
    if request.param == "main":
        return URL
    if not URL_18:
        pytest.skip("no 18.16 server (CHWIRE_TEST_URL_18: run under scripts/with-server.sh --both)")
    return URL_18


@pytest.fixture
def any_conn(any_url):
    with chwire.adbc.connect(any_url) as c:
        yield c


@pytest.fixture
def any_ch(any_url):
    with chwire.connect(any_url) as c:
        yield c


@pytest.fixture
def any_name(any_ch):
    n = "adbc_" + uuid.uuid4().hex[:12]
    yield n
    any_ch.command(f"DROP TABLE IF EXISTS {n}")


@pytest.fixture
def conn():
    with chwire.adbc.connect(URL) as c:
        yield c


@pytest.fixture
def ch():
    with chwire.connect(URL) as c:
        yield c


@pytest.fixture
def name(ch):
    n = "adbc_" + uuid.uuid4().hex[:12]
    yield n
    ch.command(f"DROP TABLE IF EXISTS {n}")


@pytest.fixture
def database(ch):
    n = "adbc_db_" + uuid.uuid4().hex[:10]
    ch.command(f"CREATE DATABASE {n}")
    yield n
    ch.command(f"DROP DATABASE IF EXISTS {n}")
