"""chwire: a fast ClickHouse client on the native protocol, with results as Arrow.

    import chwire
    client = chwire.connect("tcp://default@localhost:9000/default")
    table = client.query_arrow("SELECT number FROM system.numbers LIMIT 10")   # pyarrow.Table
    df = client.query_df("SELECT ...")                                         # pandas
    client.insert_arrow("t", table)

See docs/PYTHON.md for the API, the type mapping and notes for clickhouse-connect users.
"""

from typing import TYPE_CHECKING

from ._chwire import QueryStream, __version__, read_native
from ._errors import (
    ConnectionError,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    ProtocolError,
    ResultTooLargeError,
    ServerError,
    TimeoutError,
    Warning,
)
from ._client import Client, QueryResult, connect, create_pool

# The asyncio client is imported on first use: asyncio (with ssl, subprocess, logging) adds
# about 6 MiB to every process that imports chwire, most of which never use it.
_LAZY = {"AsyncClient", "connect_async", "create_pool_async"}
if TYPE_CHECKING:
    from ._async import AsyncClient, connect_async, create_pool_async


def __getattr__(name: str):
    if name in _LAZY:
        from . import _async

        return getattr(_async, name)
    raise AttributeError(f"module 'chwire' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY)


__all__ = [
    "AsyncClient",
    "Client",
    "ConnectionError",
    "DataError",
    "DatabaseError",
    "Error",
    "IntegrityError",
    "InterfaceError",
    "InternalError",
    "NotSupportedError",
    "OperationalError",
    "ProgrammingError",
    "ProtocolError",
    "ResultTooLargeError",
    "QueryResult",
    "QueryStream",
    "ServerError",
    "TimeoutError",
    "Warning",
    "__version__",
    "connect",
    "connect_async",
    "create_pool",
    "create_pool_async",
    "read_native",
]
