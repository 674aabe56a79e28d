"""chwire: a fast ClickHouse client on the native protocol, with results as Arrow.

    import chwire
    client = chwire.connect("tcp://default@localhost:9000/default")
    table = client.query_arrow("SELECT number FROM system.numbers LIMIT 10")   # pyarrow.Table
    df = client.query_df("SELECT ...")                                         # pandas
    client.insert_arrow("t", table)

See docs/PYTHON.md for the API, the type mapping and notes for clickhouse-connect users.
"""

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
    ServerError,
    TimeoutError,
    Warning,
)
from ._client import Client, QueryResult, connect
from ._async import AsyncClient, connect_async

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
    "QueryResult",
    "QueryStream",
    "ServerError",
    "TimeoutError",
    "Warning",
    "__version__",
    "connect",
    "connect_async",
    "read_native",
]
