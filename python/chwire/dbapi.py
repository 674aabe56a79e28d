"""PEP 249 (DB-API 2.0) over chwire, with ADBC's Arrow fetch methods.

    from chwire import dbapi
    with dbapi.connect("tcp://default@localhost:9000/default") as conn:
        cur = conn.cursor()
        cur.execute("SELECT number FROM system.numbers WHERE number < %(n)s", {"n": 10})
        cur.fetchall()
        cur.fetch_arrow_table()      # the rest as a pyarrow.Table (ADBC's name)

``polars.read_database(sql, conn)`` and ``pandas.read_sql(sql, conn)`` accept the connection.

Parameters: ``%(name)s`` / ``%s`` placeholders (paramstyle ``pyformat``) are bound as typed
server-side parameters (``{name:Type}``, typed by their Python values), never spliced into
the SQL text; ClickHouse's own ``{name:Type}`` placeholders work too with a mapping.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import ipaddress as _ipaddress
import re
import uuid as _uuid
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from . import _chwire
from ._client import Client, QueryResult, connect as _connect
from ._errors import (  # noqa: F401 - the PEP 249 names live here
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections
paramstyle = "pyformat"



class _TypeObject:
    """A PEP 249 type object: equal to the ``description`` type codes (ClickHouse type names)
    of its kind, whatever their Nullable/LowCardinality wrapping and parameters."""

    def __init__(self, name: str, *types: str) -> None:
        self._name, self._types = name, types

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, _TypeObject):
            return self is other
        if not isinstance(other, str):
            return NotImplemented
        t = other
        for wrap in ("Nullable(", "LowCardinality("):
            while t.startswith(wrap):
                t = t[len(wrap):-1]
        return t.split("(", 1)[0] in self._types

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"dbapi.{self._name}"


STRING = _TypeObject("STRING", "String", "FixedString", "Enum8", "Enum16", "UUID", "IPv4", "IPv6", "JSON")
BINARY = _TypeObject("BINARY", "FixedString")
NUMBER = _TypeObject("NUMBER", "UInt8", "UInt16", "UInt32", "UInt64", "UInt128", "UInt256", "Int8", "Int16", "Int32",
                     "Int64", "Int128", "Int256", "Float32", "Float64", "BFloat16", "Decimal", "Decimal32", "Decimal64",
                     "Decimal128", "Decimal256", "Bool")
DATETIME = _TypeObject("DATETIME", "Date", "Date32", "DateTime", "DateTime64")
ROWID = _TypeObject("ROWID")  # ClickHouse has no row ids

# PEP 249 constructors.
Date = _dt.date
Time = _dt.time
Timestamp = _dt.datetime
Binary = bytes


def DateFromTicks(ticks: float) -> _dt.date:  # noqa: N802 - PEP 249's name
    return _dt.date.fromtimestamp(ticks)


def TimeFromTicks(ticks: float) -> _dt.time:  # noqa: N802
    return _dt.datetime.fromtimestamp(ticks).time()


def TimestampFromTicks(ticks: float) -> _dt.datetime:  # noqa: N802
    return _dt.datetime.fromtimestamp(ticks)


def connect(url: Optional[str] = None, **kwargs: Any) -> "Connection":
    """Open a connection (the arguments of ``chwire.connect``)."""
    return Connection(_connect(url, **kwargs))


_DATE_RANGE = (_dt.date(1970, 1, 1), _dt.date(2149, 6, 6))
_DATE32_RANGE = (_dt.date(1900, 1, 1), _dt.date(2299, 12, 31))
_DATETIME_SECONDS = (86400, 2**32 - 1 - 86400)
_DATETIME64_SECONDS = (
    _dt.datetime(1900, 1, 1, tzinfo=_dt.timezone.utc).timestamp(),
    _dt.datetime(2299, 12, 31, 23, 59, 59, 999999, tzinfo=_dt.timezone.utc).timestamp(),
)


def _type_of(v: Any) -> str:
    """The ClickHouse type a Python parameter value is bound as."""
    if v is None:
        return "Nullable(String)"
    if isinstance(v, bool):
        return "UInt8"
    if isinstance(v, int):
        if not -(2**255) <= v < 2**256:
            raise DataError(f"{v} is outside what ClickHouse's integers hold (Int256 and UInt256)")
        if v >= 2**63:
            return "UInt64" if v < 2**64 else "UInt256"
        return "Int64" if v >= -(2**63) else "Int256"
    if isinstance(v, float):
        return "Float64"
    if isinstance(v, _dt.datetime):
        # DateTime holds 1970 to 2106 (a day's margin for the server's zone, naive values being
        # its local time); DateTime64 1900 to 2299; outside, the server would clamp: refused.
        secs = (v if v.tzinfo is not None else v.replace(tzinfo=_dt.timezone.utc)).timestamp()
        if not _DATETIME64_SECONDS[0] <= secs <= _DATETIME64_SECONDS[1]:
            raise DataError(f"{v!r} is outside what ClickHouse stores (DateTime64: 1900-01-01 to 2299-12-31)")
        fine = v.microsecond or not _DATETIME_SECONDS[0] <= secs <= _DATETIME_SECONDS[1]
        if v.tzinfo is not None:
            return "DateTime64(6, 'UTC')" if fine else "DateTime('UTC')"
        return "DateTime64(6)" if fine else "DateTime"
    if isinstance(v, _dt.date):
        # Date holds 1970-01-01 to 2149-06-06, Date32 1900-01-01 to 2299-12-31.
        if _DATE_RANGE[0] <= v <= _DATE_RANGE[1]:
            return "Date"
        if _DATE32_RANGE[0] <= v <= _DATE32_RANGE[1]:
            return "Date32"
        raise DataError(f"{v!r} is outside what ClickHouse stores (Date32: 1900-01-01 to 2299-12-31)")
    if isinstance(v, _decimal.Decimal):
        exp = v.as_tuple().exponent
        scale = -exp if isinstance(exp, int) and exp < 0 else 0
        return f"Decimal(38, {min(scale, 38)})"
    if isinstance(v, _uuid.UUID):
        return "UUID"
    if isinstance(v, _ipaddress.IPv4Address):
        return "IPv4"
    if isinstance(v, _ipaddress.IPv6Address):
        return "IPv6"
    if isinstance(v, (list, tuple)):
        inner = _element_type(v)
        return f"Array({inner or 'String'})"
    return "String"


def _element_type(v: Any) -> Optional[str]:
    """The one type covering a list's elements (None: no element says, e.g. an empty list)."""
    inner: Optional[str] = None
    for x in v:
        if x is None:
            continue
        t = f"Array({_element_type(x) or '?'})" if isinstance(x, (list, tuple)) else _type_of(x)
        u = t if inner is None else _unify(inner, t)
        if u is None:
            raise ProgrammingError(f"the elements of {v!r} have different types ({inner}, {t}): "
                                   "an Array has one; bind it with a {name:Array(Type)} placeholder")
        inner = u
    if inner is not None and any(x is None for x in v) and not inner.startswith(("Nullable(", "Array(")):
        inner = f"Nullable({inner})"
    return inner.replace("?", "String") if inner else None


def _unify(a: str, b: str) -> Optional[str]:
    """The type holding values of types a and b (as _type_of names them), if any."""
    if a == b:
        return a
    if {a, b} == {"Int64", "Float64"}:
        return "Float64"  # ints among floats
    if a.startswith("Decimal(38, ") and b.startswith("Decimal(38, "):
        return max(a, b, key=lambda t: int(t[12:-1]))
    times = {"DateTime": "DateTime64(6)", "DateTime('UTC')": "DateTime64(6, 'UTC')", "Date": "Date32"}
    for plain, fine in times.items():
        if {a, b} == {plain, fine}:
            return fine
    for wrap in ("Nullable(", "Array("):
        if a.startswith(wrap) or b.startswith(wrap):
            ia = a[len(wrap):-1] if a.startswith(wrap) else (a if wrap == "Nullable(" else None)
            ib = b[len(wrap):-1] if b.startswith(wrap) else (b if wrap == "Nullable(" else None)
            if ia is None or ib is None:
                return None
            inner = ib if ia == "?" else ia if ib == "?" else _unify(ia, ib)
            return f"{wrap}{inner})" if inner else None
    return None


# pyformat placeholders, looked for outside the statement's strings, quoted identifiers and
# comments (where a %s is text), which the core's lexer finds (``_chwire.sql_text_spans``).
_PYFORMAT = re.compile(r"%\((\w+)\)s|%s|%%")


def _bind(operation: str, parameters: Any) -> Tuple[str, Optional[Mapping[str, Any]]]:
    """``%(name)s``/``%s`` → ``{name:Type}`` placeholders and their values."""
    if parameters is None:
        return operation, None
    positional = not isinstance(parameters, Mapping)
    values = list(parameters) if positional else parameters
    bound: dict = {}
    counter = iter(range(len(values) if positional else 0))
    used_pyformat = False

    def sub(m: "re.Match[str]") -> str:
        nonlocal used_pyformat
        if m.group(0) == "%%":
            return "%"
        used_pyformat = True
        if m.group(1) is not None:
            if positional:
                raise ProgrammingError("%(name)s placeholders need a mapping of parameters")
            name = m.group(1)
            if name not in values:
                raise ProgrammingError(f"no value for parameter {name!r}")
        else:
            if not positional:
                raise ProgrammingError("%s placeholders need a sequence of parameters")
            try:
                i = next(counter)
            except StopIteration:
                raise ProgrammingError("more %s placeholders than parameters") from None
            name = f"_p{i}"
            bound[name] = values[i]
        value = values[name] if not positional else bound[name]
        bound[name] = value
        return "{" + name + ":" + _type_of(value) + "}"

    pieces, at = [], 0
    for start, end in _chwire.sql_text_spans(operation):
        pieces.append(_PYFORMAT.sub(sub, operation[at:start]))
        # Inside quotes or a comment a %s is text (a server-side parameter would not be
        # substituted there anyway); %% is % as everywhere in pyformat.
        pieces.append(operation[start:end].replace("%%", "%"))
        at = end
    pieces.append(_PYFORMAT.sub(sub, operation[at:]))
    sql = "".join(pieces)
    if positional and used_pyformat and len(bound) < len(values):
        raise ProgrammingError(f"{len(values)} parameters for {len(bound)} %s placeholders")
    if not used_pyformat:
        # ClickHouse's own {name:Type} placeholders: the values as given.
        if positional:
            if values:
                raise ProgrammingError("positional parameters need %s placeholders")
            return operation, None
        return operation, parameters
    return sql, bound


# The VALUES of an executemany that is one block insert: nothing (the rows follow), or one
# tuple of placeholders only (``(%s, %s)``, ``(%(a)s, %(b)s)``), as pyformat writes them.
_PLACEHOLDER_ROW = re.compile(r"\s*(?:\(\s*(%s|%\(\w+\)s)(?:\s*,\s*(?:%s|%\(\w+\)s))*\s*\)\s*)?;?\s*")
_NAMED = re.compile(r"%\((\w+)\)s")


def _block_insert(operation: str) -> Optional[Tuple[str, Optional[List[str]], Dict[str, str], List[str]]]:
    """``INSERT INTO t [(a, b)] [SETTINGS …] VALUES [(placeholders)]`` read by the core's SQL
    rules: the table (as SQL), its column list, the statement's settings and the placeholders'
    names; None for any other statement (it then runs once per parameter set)."""
    try:
        found = _chwire.sql_insert_values(operation)
    except DataError:  # INSERT INTO FUNCTION …: the server reads it, once per parameter set
        return None
    if found is None:
        return None
    table, cols, settings, values = found
    if not _PLACEHOLDER_ROW.fullmatch(values):
        return None
    return table, cols, dict(settings), _NAMED.findall(values)


def _ordered(rows: List[Any], names: List[str], cols: Optional[List[str]]) -> Tuple[List[list], Optional[List[str]]]:
    """Rows of values in column order. Mappings are read by the VALUES placeholders' names
    (``%(a)s``), else by the column list, else by the first row's keys (which then name the
    columns); every mapping must have those keys."""
    if not rows or not isinstance(rows[0], Mapping):
        if any(isinstance(r, Mapping) for r in rows):
            raise ProgrammingError("rows mix sequences and mappings")
        return [list(r) for r in rows], cols
    keys = names or cols or list(rows[0].keys())
    plain = []
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise ProgrammingError(f"row {i} is not a mapping like the first row")
        missing = [k for k in keys if k not in r]
        if missing:
            raise ProgrammingError(f"row {i} has no value for {missing}")
        plain.append([r[k] for k in keys])
    return plain, cols if (names or cols) else keys


class Cursor:
    """A DB-API cursor. ``fetch_arrow_table()``/``fetch_record_batch()`` give the (rest of
    the) result as Arrow without building Python rows."""

    arraysize = 1

    def __init__(self, connection: "Connection") -> None:
        self.connection = connection
        self._result: Optional[QueryResult] = None
        self._pos = 0
        self.rowcount = -1
        self.description: Optional[List[tuple]] = None
        self._closed = False

    @property
    def _client(self) -> Client:
        if self._closed:
            raise InterfaceError("the cursor is closed")
        return self.connection._get_client()

    def execute(self, operation: str, parameters: Any = None) -> "Cursor":
        sql, params = _bind(operation, parameters)
        table = self._client.query_arrow(sql, params)
        self._result = QueryResult(table)
        self._pos = 0
        # PEP 249: -1 when the statement gave no result set (DDL, INSERT … SELECT).
        self.rowcount = table.num_rows if table.num_columns else -1
        if table.num_columns:
            self.description = [
                (name, ctype, None, None, None, None, field.nullable)
                for name, ctype, field in zip(self._result.column_names, self._result.column_types, table.schema)
            ]
        else:
            self.description = None
        return self

    def executemany(self, operation: str, seq_of_parameters: Sequence[Any]) -> "Cursor":
        """``INSERT INTO t (a, b) VALUES`` with rows of values is one block insert; other
        statements run once per parameter set."""
        block = _block_insert(operation)
        rows = list(seq_of_parameters)
        if block:
            table, cols, settings, names = block
            plain, cols = _ordered(rows, names, cols)
            self.rowcount = self._client.insert(table, plain, cols, settings=settings or None)
            self._result, self.description = None, None
            return self
        total = 0
        for p in rows:
            self.execute(operation, p)
            total += max(self.rowcount, 0)
        self.rowcount = total
        return self

    def _need_result(self) -> QueryResult:
        if self._result is None:
            raise ProgrammingError("no result: execute a query first")
        return self._result

    def fetchone(self) -> Optional[tuple]:
        rows = self._need_result().result_rows
        if self._pos >= len(rows):
            return None
        self._pos += 1
        return rows[self._pos - 1]

    def fetchmany(self, size: Optional[int] = None) -> List[tuple]:
        rows = self._need_result().result_rows
        n = self.arraysize if size is None else size
        if not isinstance(n, int) or n < 0:
            raise ProgrammingError(f"fetchmany(size): size must be an int of at least 0, not {n!r}")
        out = rows[self._pos:self._pos + n]
        self._pos += len(out)
        return out

    def fetchall(self) -> List[tuple]:
        rows = self._need_result().result_rows
        out = rows[self._pos:]
        self._pos = len(rows)
        return out

    def fetch_arrow_table(self) -> Any:
        """The remaining rows as a ``pyarrow.Table`` (ADBC)."""
        table = self._need_result().arrow_table.slice(self._pos)
        self._pos = self._need_result().row_count
        return table

    def fetch_record_batch(self) -> Any:
        """The remaining rows as a ``pyarrow.RecordBatchReader`` (ADBC)."""
        import pyarrow

        table = self.fetch_arrow_table()
        return pyarrow.RecordBatchReader.from_batches(table.schema, table.to_batches())

    def fetch_df(self) -> Any:
        return self.fetch_arrow_table().to_pandas()

    def __iter__(self) -> Iterator[tuple]:
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    def setinputsizes(self, sizes: Any) -> None:
        pass

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        pass

    def close(self) -> None:
        self._closed = True
        self._result = None

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Connection:
    """A DB-API connection (one chwire client). ClickHouse has no transactions: ``commit``
    does nothing, ``rollback`` raises ``NotSupportedError``."""

    def __init__(self, client: Client) -> None:
        self._client: Optional[Client] = client

    def _get_client(self) -> Client:
        if self._client is None:
            raise InterfaceError("the connection is closed")
        return self._client

    @property
    def client(self) -> Client:
        """The chwire client behind this connection."""
        return self._get_client()

    def cursor(self) -> Cursor:
        self._get_client()
        return Cursor(self)

    def commit(self) -> None:
        self._get_client()

    def rollback(self) -> None:
        raise NotSupportedError("ClickHouse has no transactions to roll back")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
