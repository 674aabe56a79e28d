import os
import uuid

import pytest

import chwire

URL = os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")


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
def table(client):
    """A fresh table name, dropped afterwards."""
    name = "py_" + uuid.uuid4().hex[:12]
    yield name
    client.command(f"DROP TABLE IF EXISTS {name}")
