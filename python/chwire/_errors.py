"""chwire's exceptions: one tree that is also the PEP 249 (DB-API 2.0) hierarchy.

``chwire.Error`` is ``chwire.dbapi.Error``; a server exception is a ``ServerError`` (with the
server's ``code`` and ``name``) and, by its code, also a ``ProgrammingError``,
``OperationalError``, ``DataError`` or ``NotSupportedError``.
"""

from __future__ import annotations

from typing import Optional


class Warning(Exception):  # noqa: A001 - the PEP 249 name
    """PEP 249 ``Warning`` (chwire raises none; present for the DB-API)."""


class Error(Exception):
    """Base of every chwire error (PEP 249 ``Error``)."""


class InterfaceError(Error):
    """Misuse of chwire itself: bad connection options, a closed client."""


class DatabaseError(Error):
    """An error related to the database (PEP 249 ``DatabaseError``)."""


class DataError(DatabaseError):
    """Data that does not fit: a value or Arrow column that does not convert to the table's type."""


class OperationalError(DatabaseError):
    """The connection or the server's operation failed."""


class IntegrityError(DatabaseError):
    """PEP 249 ``IntegrityError`` (ClickHouse has no constraints that raise it)."""


class InternalError(DatabaseError):
    """PEP 249 ``InternalError``."""


class ProgrammingError(DatabaseError):
    """A bad statement: syntax, unknown table or column, wrong parameters."""


class NotSupportedError(DatabaseError):
    """Something the server or chwire does not support."""


class ConnectionError(OperationalError):  # noqa: A001 - chwire.ConnectionError
    """Connecting, reading or writing failed, or the server closed the connection."""


class TimeoutError(OperationalError):  # noqa: A001 - chwire.TimeoutError
    """A connect, read or write timeout expired (the connection was closed)."""


class ResultTooLargeError(OperationalError):
    """A result collected whole went over the client's ``max_collected_rows`` or
    ``max_collected_bytes``: the query was cancelled, the client is usable at once."""


class ProtocolError(OperationalError):
    """The server sent something chwire cannot decode (the connection was closed)."""


class ServerError(DatabaseError):
    """An exception the server reported: ``code`` (e.g. 60), ``name`` (e.g. ``UNKNOWN_TABLE``),
    ``message`` and the server's ``stack_trace``. The connection stays usable."""

    def __init__(self, message: str, code: int = 0, name: str = "", server_message: str = "",
                 stack_trace: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.name = name
        self.message = server_message or message
        self.stack_trace = stack_trace


class ServerProgrammingError(ServerError, ProgrammingError):
    """A server error caused by the statement (syntax, unknown identifiers, types)."""


class ServerOperationalError(ServerError, OperationalError):
    """A server error caused by the server's state (limits, timeouts, access)."""


class ServerDataError(ServerError, DataError):
    """A server error caused by the data (parse errors, out-of-range values)."""


class ServerNotSupportedError(ServerError, NotSupportedError):
    """The server does not implement what was asked."""


_PROGRAMMING = {16, 36, 42, 43, 44, 46, 47, 49, 50, 51, 53, 57, 60, 62, 81, 82, 107, 115, 179, 184,
                215, 352, 456, 457}
_OPERATIONAL = {158, 159, 160, 164, 192, 193, 194, 202, 209, 210, 241, 242, 252, 307, 394, 396, 497, 516}
_DATA = {6, 26, 27, 32, 38, 41, 69, 70, 72, 153, 190, 321}
_NOT_SUPPORTED = {1, 48}


def _server_error(code: int, name: str, message: str, stack_trace: str,
                  text: Optional[str] = None) -> ServerError:
    """Build the exception for a server error code (called by the compiled module)."""
    if code in _PROGRAMMING:
        cls = ServerProgrammingError
    elif code in _OPERATIONAL:
        cls = ServerOperationalError
    elif code in _DATA:
        cls = ServerDataError
    elif code in _NOT_SUPPORTED:
        cls = ServerNotSupportedError
    else:
        cls = ServerError
    return cls(text or f"Code: {code}. {name}: {message}", code, name, message, stack_trace)
