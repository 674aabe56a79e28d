"""The synchronous client: ``chwire.connect(...)`` → ``Client``."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import ipaddress as _ipaddress
import uuid as _uuid
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import _arrays, _types
from ._chwire import Instant, QueryStream, RawClient, check_insert_options, sql_identifier, sql_table
from ._errors import DataError, NotSupportedError, ProgrammingError

CLICKHOUSE_TYPE = "clickhouse.type"
_EPOCH = _dt.datetime(1970, 1, 1)

Parameters = Optional[Mapping[str, Any]]
Settings = Optional[Mapping[str, Any]]
Progress = Optional[Callable[[Dict[str, int]], Any]]


def _param_value(v: Any) -> Any:
    """Python values the Rust layer binds directly, or their ClickHouse text."""
    if isinstance(v, str):
        _utf8(v)
        return v
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, list):
        return [_param_value(x) for x in v]
    if isinstance(v, tuple):  # a Tuple for a Tuple(...) placeholder, else an array
        return tuple(_param_value(x) for x in v)
    if isinstance(v, dict):  # for a Map(...) placeholder
        return {_param_value(k): _param_value(x) for k, x in v.items()}
    if isinstance(v, _dt.datetime):
        # The instant (a naive datetime taken as UTC): the Rust layer writes it in the zone the
        # server reads the placeholder's DateTime in (its own, or the type's).
        if v.tzinfo is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return Instant((v - _EPOCH) // _dt.timedelta(microseconds=1))
    if isinstance(v, (_dt.date, _decimal.Decimal, _uuid.UUID, _ipaddress.IPv4Address, _ipaddress.IPv6Address)):
        return str(v)
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(f"a bytes parameter must be UTF-8 text, {v[:16]!r}… is not: "
                            "bind its hex and use unhex({name:String})") from None
    raise DataError(f"cannot bind a {type(v).__name__} as a query parameter")


def _params(parameters: Parameters) -> Optional[Dict[str, Any]]:
    if parameters is None:
        return None
    if not isinstance(parameters, Mapping):
        raise ProgrammingError(f"parameters must be a mapping {{name: value}}, not a {type(parameters).__name__}")
    return {k: _param_value(v) for k, v in parameters.items()} or None


def _settings(settings: Settings) -> Settings:
    if settings is not None and not isinstance(settings, Mapping):
        raise ProgrammingError(f"settings must be a mapping {{name: value}}, not a {type(settings).__name__}")
    return settings


def _insert_options(block_rows: Any) -> List[Tuple[str, str]]:
    """An insert's options (docs/OPTIONS.md), checked by the core."""
    return [] if block_rows is None else [("block_rows", str(block_rows))]


def _check_insert_options(block_rows: Any) -> None:
    """The core's error for a bad insert option, before any work is done."""
    check_insert_options(_insert_options(block_rows))


def _utf8(s: str) -> None:
    """A str parameter (also inside a list, tuple or dict) that UTF-8 cannot encode (a lone
    surrogate) is a DataError."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise DataError(f"the parameter {s[:32]!r} is not valid Unicode text: {e}") from None


class QueryResult:
    """Rows of a query as Python values (``Client.query``)."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self.column_names: List[str] = list(table.schema.names)
        self.column_types: List[str] = [
            (f.metadata or {}).get(CLICKHOUSE_TYPE.encode(), b"").decode() for f in table.schema
        ]
        self._rows: Optional[List[tuple]] = None
        self._columns: Optional[List[list]] = None

    @property
    def arrow_table(self) -> Any:
        """The result as the ``pyarrow.Table`` it was built from."""
        return self._table

    @property
    def result_columns(self) -> List[list]:
        """One list of Python values per column."""
        if self._columns is None:
            self._columns = [_arrays.column_values(col, t) for col, t in zip(self._table.columns, self.column_types)]
        return self._columns

    @property
    def result_rows(self) -> List[tuple]:
        """The rows as tuples of Python values (datetime with zone, Decimal, UUID, ipaddress, dict
        for Map, tuple for Tuple, ...)."""
        if self._rows is None:
            self._rows = list(zip(*self.result_columns)) if self.column_names else []
        return self._rows

    result_set = result_rows

    @property
    def row_count(self) -> int:
        return self._table.num_rows

    @property
    def first_row(self) -> Optional[tuple]:
        return self.result_rows[0] if self.row_count else None

    @property
    def first_item(self) -> Optional[Dict[str, Any]]:
        row = self.first_row
        return dict(zip(self.column_names, row)) if row is not None else None

    def named_results(self) -> Iterable[Dict[str, Any]]:
        for row in self.result_rows:
            yield dict(zip(self.column_names, row))

    def __len__(self) -> int:
        return self.row_count

    def __repr__(self) -> str:
        return f"QueryResult({self.row_count} rows, columns={self.column_names})"


class Client:
    """One connection to ClickHouse. Also a context manager (closes the connection).

    A client runs one query at a time; use one client per thread (the GIL is released while a
    query waits on the network or decodes, so clients in different threads run in parallel).
    """

    def __init__(self, raw: RawClient) -> None:
        self._raw = raw

    # -- reads --------------------------------------------------------------------------------

    def query_arrow_stream(self, query: str, parameters: Parameters = None, settings: Settings = None,
                           query_id: Optional[str] = None, progress: Progress = None) -> QueryStream:
        """Stream the result as ``pyarrow.RecordBatch`` es (one per block) in bounded memory. The
        stream is an iterator and context manager and implements ``__arrow_c_stream__``."""
        return self._raw.query_stream(query, _params(parameters), _settings(settings), query_id, progress)

    def query_arrow(self, query: str, parameters: Parameters = None, settings: Settings = None,
                    query_id: Optional[str] = None, progress: Progress = None) -> Any:
        """Run a query; its result as a ``pyarrow.Table``."""
        return self._raw.query_arrow(query, _params(parameters), _settings(settings), query_id, progress)

    def query_df(self, query: str, parameters: Parameters = None, settings: Settings = None,
                 query_id: Optional[str] = None, progress: Progress = None,
                 dtype_backend: Optional[str] = None) -> Any:
        """Run a query; its result as a ``pandas.DataFrame``.

        ``dtype_backend`` as in pandas' readers: ``None`` gives NumPy columns (pandas' own
        conversion: numbers and timestamps are copied out of the Arrow buffers), ``"pyarrow"``
        ``pd.ArrowDtype`` columns over the Arrow buffers themselves (no copy), and
        ``"numpy_nullable"`` pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``,
        ``string``) where a column has one."""
        if dtype_backend not in _DTYPE_BACKENDS:  # before the query runs
            raise ProgrammingError(f"dtype_backend must be one of {_DTYPE_BACKENDS}, not {dtype_backend!r}")
        _need("pandas", "query_df")
        return _to_pandas(self.query_arrow(query, parameters, settings, query_id, progress), dtype_backend)

    def query_pl(self, query: str, parameters: Parameters = None, settings: Settings = None,
                 query_id: Optional[str] = None, progress: Progress = None) -> Any:
        """Run a query; its result as a ``polars.DataFrame`` (Arrow buffers handed over, not copied)."""
        polars = _need("polars", "query_pl")

        # Collected whole by Polars: the client's bounds apply (max_collected_rows, ...).
        stream = self._raw.query_stream(query, _params(parameters), _settings(settings), query_id, progress, True)
        # Polars panics (a PanicException, which `except Exception` does not catch) on the Arrow
        # types it lacks: refused here, naming the column, before Polars sees the stream.
        for f in stream.schema:
            lacking = _polars_lacks(f.type)
            if lacking:
                stream.close_stream()
                raise NotSupportedError(f"column {f.name!r} ({_ch_type(f)}) holds {lacking}, which Polars has no type "
                                        "for: cast it in the query (e.g. toString, variantElement) or use query_arrow")
        try:
            return polars.DataFrame(stream)
        except Exception as e:
            # Polars raises its own exception for the stream's error: chwire's, raised instead.
            err = stream.take_error()
            if err is not None:
                raise err from e
            raise

    def query_np(self, query: str, parameters: Parameters = None, settings: Settings = None,
                 query_id: Optional[str] = None, progress: Progress = None) -> Dict[str, Any]:
        """Run a query; its result as ``{column: numpy.ndarray}``."""
        import pyarrow.types as pat

        _need("numpy", "query_np")
        table = self.query_arrow(query, parameters, settings, query_id, progress)
        names = table.column_names
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ProgrammingError(f"query_np returns a dict by column name, and the result names "
                                   f"{', '.join(map(repr, twice))} more than once: give the columns aliases")
        # Dictionaries (Enum, LowCardinality) decoded first: pyarrow's to_numpy of a
        # dictionary array ignores null keys (a NULL would show the value its key points at).
        # UUIDs (also inside arrays, tuples, maps) are uuid.UUID objects, as query() and
        # query_df() give them; so are the values NumPy would get as raw bytes or cannot take
        # (128/256-bit integers, IPv6, Variant).
        return {name: _row_objects(col, _ch_type(f)) if _types.rows_only(_ch_type(f)) or _arrays.objects_kind(_ch_type(f)) else
                _objects(col) if _has_uuid(col.type) else
                (col.cast(col.type.value_type) if pat.is_dictionary(col.type) else col).to_numpy()
                for name, col, f in zip(names, table.columns, table.schema)}

    def query(self, query: str, parameters: Parameters = None, settings: Settings = None,
              query_id: Optional[str] = None, progress: Progress = None) -> QueryResult:
        """Run a query; its rows as Python values (``.result_rows``, ``.column_names``, ...)."""
        return QueryResult(self.query_arrow(query, parameters, settings, query_id, progress))

    def command(self, cmd: str, parameters: Parameters = None, settings: Settings = None,
                query_id: Optional[str] = None) -> Any:
        """Run a statement (DDL, ALTER, ...). Returns the first row of its result: its value
        for one column, the row as a list for several; None when there is no row (as
        clickhouse-connect's ``command``: read a result of several rows with ``query``)."""
        result = self.query(cmd, parameters, settings, query_id)
        if not result.column_names or result.row_count == 0:
            return None
        row = result.result_rows[0]
        return row[0] if len(row) == 1 else list(row)

    # -- writes -------------------------------------------------------------------------------

    def insert_arrow(self, table: str, data: Any, settings: Settings = None,
                     query_id: Optional[str] = None, *, block_rows: Optional[int] = None) -> int:
        """Insert Arrow data: a ``pyarrow.Table``/``RecordBatch``/``RecordBatchReader`` or any
        object with ``__arrow_c_stream__``/``__arrow_c_array__``. Columns are matched by name;
        returns the number of rows sent. ``table`` is an SQL name (``db.table`` allowed).
        Batches are gathered and cut into blocks of ``block_rows`` rows (default 1048576,
        docs/OPTIONS.md)."""
        if not any(hasattr(data, a) for a in ("__arrow_c_stream__", "__arrow_c_array__")):
            raise ProgrammingError(f"insert_arrow takes Arrow data (a pyarrow Table, RecordBatch or reader, or an object "
                                   f"with __arrow_c_stream__/__arrow_c_array__), not a {type(data).__name__}")
        try:
            return self._raw.insert_arrow(table, data, _settings(settings), query_id, _insert_options(block_rows))
        except ValueError as e:  # the Arrow import refused the data (e.g. NULLs in a non-nullable field)
            raise DataError(f"the Arrow data cannot be read: {e}") from e

    def insert_df(self, table: str, df: Any, settings: Settings = None,
                  query_id: Optional[str] = None, *, block_rows: Optional[int] = None) -> int:
        """Insert a pandas or Polars DataFrame (by column name), in blocks of ``block_rows``
        rows (as ``insert_arrow``)."""
        _check_insert_options(block_rows)
        if type(df).__module__.startswith("polars") and hasattr(df, "collect") and not hasattr(df, "to_arrow"):
            df = df.collect()  # a LazyFrame
        if hasattr(df, "to_arrow") and not hasattr(df, "to_pandas") or type(df).__module__.startswith("polars"):
            data = df.to_arrow()
        else:
            import pyarrow

            try:
                arrow = pyarrow.Table.from_pandas(df, preserve_index=False)
            except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError, pyarrow.ArrowNotImplementedError, TypeError,
                    ValueError) as e:
                raise DataError(f"the DataFrame does not convert to Arrow: {e}") from e
            data = self._nan_stays_nan(table, df, arrow)
        data = self._fit_timestamps(table, data)
        return self.insert_arrow(table, data, settings, query_id, block_rows=block_rows)

    def insert(self, table: str, data: Sequence[Sequence[Any]], column_names: Optional[Sequence[str]] = None,
               settings: Settings = None, query_id: Optional[str] = None, *, block_rows: Optional[int] = None) -> int:
        """Insert Python rows (sequences of values in ``column_names`` order, by default the
        table's columns), in blocks of ``block_rows`` rows (as ``insert_arrow``)."""
        import pyarrow

        _check_insert_options(block_rows)

        schema = self._table_schema(table, column_names)
        columns: List[list] = [[] for _ in schema]
        width = len(columns)
        for row in data:
            if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
                raise DataError(f"a row must be a sequence of values (a tuple or list), not {row!r}")
            if len(row) != width:
                raise DataError(f"a row has {len(row)} values, the insert has {width} columns")
            for i, v in enumerate(row):
                columns[i].append(v)
        arrays = []
        for field, values in zip(schema, columns):
            t = (field.metadata or {}).get(CLICKHOUSE_TYPE.encode(), b"").decode()
            conv = _types.to_arrow(_types.parse_type(t)) if t else None
            row = None
            try:
                if t and _arrays.holds_union(field.type):  # Variant: pyarrow builds no unions
                    arrays.append(_arrays.build(values, field.type, _types.parse_type(t)))
                    continue
                if conv is not None:
                    converted = []
                    for row, v in enumerate(values):
                        converted.append(conv(v))
                    values, row = converted, None
                arrays.append(_arrays.plain(values, field.type))
            except (pyarrow.ArrowInvalid, pyarrow.ArrowTypeError, pyarrow.ArrowNotImplementedError, TypeError, ValueError,
                    OverflowError) as e:
                where = f", row {row}" if row is not None else ""
                raise DataError(f"column {field.name!r} ({t}){where}: {e}; nothing was inserted") from e
        # Every column may hold None here: the core decides where a NULL fits (a NULL Array or
        # Map is the empty one, a NULL scalar an error naming the column), as for every front end.
        schema = pyarrow.schema([f.with_nullable(True) for f in schema])
        return self.insert_arrow(table, pyarrow.Table.from_arrays(arrays, schema=schema), settings, query_id,
                                 block_rows=block_rows)

    def _table_schema(self, table: str, column_names: Optional[Sequence[str]]) -> Any:
        cols = "*" if not column_names else ", ".join(sql_identifier(c) for c in column_names)
        return self.query_arrow(f"SELECT {cols} FROM {sql_table(table)} LIMIT 0").schema

    def _nan_stays_nan(self, table: str, df: Any, data: Any) -> Any:
        """pandas has no NULL for a float64 column but NaN, which ``from_pandas`` makes null:
        into a Float column that is not Nullable those rows go back to NaN (a Float64 value;
        into a Nullable one they stay NULL, pandas' meaning of a missing value)."""
        import numpy
        import pyarrow
        import pyarrow.types as pat

        # By position: from_pandas names a column 0 "0" (preserve_index=False keeps the order).
        floats = [f.name for i, f in enumerate(data.schema) if pat.is_floating(f.type) and data.column(i).null_count
                  and getattr(df.iloc[:, i], "dtype", None) in (numpy.float32, numpy.float64)]
        if not floats:
            return data
        import pyarrow.compute as pc

        # All the table's columns (a column the table lacks stays for insert_arrow's error).
        target = [f for f in self._table_schema(table, None) if f.name in floats]
        for f in target:
            if pat.is_floating(f.type) and not (f.metadata or {}).get(CLICKHOUSE_TYPE.encode(), b"").startswith(b"Nullable"):
                i = data.schema.get_field_index(f.name)
                col = pc.fill_null(data.column(i), pyarrow.scalar(float("nan"), data.schema.field(i).type))
                data = data.set_column(i, data.schema.field(i), col)
        return data

    def _fit_timestamps(self, table: str, data: Any) -> Any:
        """pandas and Polars keep times in ns or µs: cast them (checked, never truncating) to
        the unit of the table's DateTime/DateTime64 columns."""
        import pyarrow
        import pyarrow.types as pat

        if not any(pat.is_timestamp(f.type) for f in data.schema):
            return data
        target = self._table_schema(table, [f.name for f in data.schema if pat.is_timestamp(f.type)])
        for f in target:
            i = data.schema.get_field_index(f.name)
            if pat.is_timestamp(f.type) and data.schema.field(i).type != f.type:
                try:
                    col = data.column(i).cast(f.type, safe=True)
                except pyarrow.ArrowInvalid as e:
                    raise DataError(f"column {f.name!r}: {e}") from e
                data = data.set_column(i, data.schema.field(i).with_type(f.type), col)
        return data

    # -- the connection -----------------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel the running query from another thread (a pool's: every one running); it
        raises ``OperationalError``."""
        self._raw.cancel()

    def pool_status(self) -> Optional[Dict[str, int]]:
        """A pool's connections (``size``, ``idle``, ``in_use``, ``waiting``); None for a
        client of one connection."""
        return self._raw.pool_status()

    @property
    def server_info(self) -> Dict[str, Any]:
        return self._raw.server_info()

    @property
    def server_version(self) -> str:
        return self._raw.server_info().get("version", "")

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_DTYPE_BACKENDS = (None, "pyarrow", "numpy_nullable")


def _has_uuid(t: Any) -> bool:
    """Whether Arrow type `t` is or holds ``arrow.uuid`` values."""
    if getattr(t, "extension_name", None) == "arrow.uuid":
        return True
    return any(_has_uuid(t.field(i).type) for i in range(getattr(t, "num_fields", 0) or 0))


def _need(module: str, what: str) -> Any:
    """``module`` imported, or a ModuleNotFoundError that says which extra of chwire brings it
    (before the query runs: a missing pandas is no reason to fetch a result)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{what} needs {module}, which is not installed: pip install 'chwire[{module}]' (or pip install {module})",
            name=module,
        ) from e


def _object_array(values: List[Any]) -> Any:
    """A NumPy array of Python values, one per row."""
    import numpy

    out = numpy.empty(len(values), dtype=object)
    for i, v in enumerate(values):  # element-wise: a list value must not become a dimension
        out[i] = v
    return out


def _objects(col: Any) -> Any:
    """A column as a NumPy array of Python values (uuid.UUID for UUIDs, dicts for Maps), one
    per row."""
    return _object_array(_with_dicts(lambda maps: col.to_pylist(maps_as_pydicts=maps)))


def _polars_lacks(t: Any) -> Optional[str]:
    """What Arrow type ``t`` is or holds that Polars cannot import: unions (Variant) and
    decimal256 (Decimal beyond 38 digits)."""
    import pyarrow.types as pat

    if pat.is_union(t):
        return "a union (Variant)"
    if pat.is_decimal256(t):
        return "a decimal256 (Decimal of more than 38 digits)"
    if pat.is_map(t):
        return _polars_lacks(t.key_type) or _polars_lacks(t.item_type)
    for i in range(getattr(t, "num_fields", 0) or 0):
        lacking = _polars_lacks(t.field(i).type)
        if lacking:
            return lacking
    return None


def _ch_type(field: Any) -> str:
    """The ClickHouse type of a result's Arrow field (its ``clickhouse.type`` metadata)."""
    return (field.metadata or {}).get(CLICKHOUSE_TYPE.encode(), b"").decode()


def _row_objects(col: Any, type_text: str) -> Any:
    """A column as a NumPy array of its row values (``query()``'s), one per row."""
    return _object_array(_arrays.column_values(col, type_text))


def _to_pandas(table: Any, dtype_backend: Optional[str]) -> Any:
    """A pyarrow Table as a pandas DataFrame with the dtypes ``dtype_backend`` (one of
    ``_DTYPE_BACKENDS``, checked by the caller before its query) asks for."""
    # pandas' conversion has no way for UUIDs inside arrays, tuples or maps: those columns are
    # converted on their own, as Python values (uuid.UUID), like query() gives them. So are
    # columns pandas would get as raw bytes (128/256-bit integers, IPv6) or cannot convert at
    # all (Variant: "No known equivalent Pandas block"), as query()'s row values.
    # UUIDs and IPv6 addresses at the top level are built a column at a time (the row values'
    # fast path), not by pandas' conversion (a constructor call per value).
    rows = [i for i, f in enumerate(table.schema) if dtype_backend != "pyarrow"
            and (_types.rows_only(_ch_type(f)) or _arrays.objects_kind(_ch_type(f)))]
    nested = [i for i, f in enumerate(table.schema) if dtype_backend != "pyarrow" and _has_uuid(f.type)
              and getattr(f.type, "extension_name", None) != "arrow.uuid" and i not in rows]
    if nested or rows:
        df = _to_pandas(table.select([i for i in range(table.num_columns) if i not in nested + rows]), dtype_backend)
        for i in sorted(nested + rows):
            col = _row_objects(table.column(i), _ch_type(table.schema.field(i))) if i in rows else _objects(table.column(i))
            df.insert(i, table.column_names[i], col, allow_duplicates=True)
        return df
    if dtype_backend is None:
        return _maps_as_dicts(table, {})
    import pandas as pd

    if dtype_backend == "pyarrow":
        return table.to_pandas(types_mapper=pd.ArrowDtype)
    import pyarrow as pa

    nullable = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
                pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.float32(): pd.Float32Dtype(),
                pa.float64(): pd.Float64Dtype(), pa.bool_(): pd.BooleanDtype(), pa.string(): pd.StringDtype(),
                pa.large_string(): pd.StringDtype()}
    return _maps_as_dicts(table, {"types_mapper": nullable.get})  # "numpy_nullable"


def _maps_as_dicts(table: Any, kwargs: Dict[str, Any]) -> Any:
    """``table.to_pandas(**kwargs)`` with Maps as dicts, as ``query()`` gives them (pandas' own
    conversion gives lists of key-value tuples, at 5x the time)."""
    return _with_dicts(lambda maps: table.to_pandas(maps_as_pydicts=maps, **kwargs))


def _with_dicts(convert: Callable[[str], Any]) -> Any:
    """``convert(maps_as_pydicts)`` with ``"strict"``, or where a map holds a key twice (which a
    dict cannot), with ``"lossy"``: the key's last value, as ``query()``'s dict keeps it
    (pyarrow's warning of the loss is silenced; docs/PYTHON.md says so)."""
    import warnings

    import pyarrow as pa

    try:
        return convert("strict")
    except (KeyError, pa.ArrowException):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return convert("lossy")  # another error than a key twice: raised again here


def _options(host: Optional[str], port: Optional[int], user: Optional[str], password: Optional[str],
             database: Optional[str], compression: Any, connect_timeout: Any, send_receive_timeout: Any,
             extra: Mapping[str, Any]) -> List[tuple]:
    opts: Dict[str, Any] = {}
    if host is not None:
        opts["host"] = host
    if port is not None:
        opts["port"] = port
    if user is not None:
        opts["user"] = user
    if password is not None:
        opts["password"] = password
    if database is not None:
        opts["database"] = database
    if compression is not None:
        opts["compression"] = {True: "lz4", False: "none"}.get(compression, compression)
    if connect_timeout is not None:
        opts["connect_timeout"] = connect_timeout
    if send_receive_timeout is not None:
        opts["read_timeout"] = send_receive_timeout
        opts["write_timeout"] = send_receive_timeout
    opts.update(extra)
    return [(k, _option_text(v)) for k, v in opts.items()]


def _option_text(v: Any) -> str:
    """An option's value as the URL spells it: booleans as true/false (str(True) is "True",
    which the options refuse or, for some, read as false)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else str(v)


def connect(url: Optional[str] = None, *, host: Optional[str] = None, port: Optional[int] = None,
            user: Optional[str] = None, username: Optional[str] = None, password: Optional[str] = None,
            database: Optional[str] = None, compression: Any = None, settings: Settings = None,
            connect_timeout: Any = None, send_receive_timeout: Any = None, arrow_mapping: str = "rich",
            **options: Any) -> Client:
    """Connect to ClickHouse over the native protocol (``tcp://``) or HTTP (``http://``,
    ``https://``), with the same API.

    ``url`` is ``tcp://user:password@host:port/database?compression=lz4&...`` (as the Rust
    client and the ``chwire`` CLI take it); keyword options override its parts. ``compression``
    is ``"lz4"``, ``"zstd"``, ``"none"`` or a bool. ``settings`` are sent with every query.
    Other keywords are URL options (``read_timeout="30s"``, ``client_name=...``) and the
    bounds of results collected whole, ``max_collected_rows`` and ``max_collected_bytes``
    (decoded column data; none by default): past one, ``query``, ``query_arrow``,
    ``query_df``, ``query_pl``, ``query_np`` and ``command`` cancel the query and raise
    :class:`ResultTooLargeError` (streams are not bounded). They are not ClickHouse's
    ``max_result_rows``/``max_result_bytes`` settings, which go in ``settings``.
    """
    if username is not None:  # the core's alias of `user`: both given is refused there
        options = {**options, "username": username}
    opts = _options(host, port, user, password, database, compression, connect_timeout, send_receive_timeout, options)
    return Client(RawClient.connect(url, opts, _settings_list(settings), arrow_mapping))


def _settings_list(settings: Settings) -> List[Tuple[str, str]]:
    return [(k, ("1" if v else "0") if isinstance(v, bool) else str(v)) for k, v in (settings or {}).items()]


def create_pool(url: Optional[str] = None, pool: Optional[Mapping[str, Any]] = None, *, host: Optional[str] = None,
                port: Optional[int] = None, user: Optional[str] = None, username: Optional[str] = None,
                password: Optional[str] = None, database: Optional[str] = None, compression: Any = None,
                settings: Settings = None, connect_timeout: Any = None, send_receive_timeout: Any = None,
                arrow_mapping: str = "rich", **options: Any) -> Client:
    """A client over a pool of connections (the core's pool, as Node's ``createPool`` and
    Elixir's pool): each query takes a connection of its own, opened as needed, so threads
    share one client and run their queries at once. ``pool`` holds the pool's options by the
    core's names (``max_size`` (10), ``min_idle``, ``acquire_timeout``, ``idle_timeout``,
    ``max_lifetime``, ``health_check_after``; docs/OPTIONS.md); the other arguments are
    :func:`connect`'s. ``server_info`` is empty: a pool's connections come and go."""
    if username is not None:  # the core's alias of `user`: both given is refused there
        options = {**options, "username": username}
    opts = _options(host, port, user, password, database, compression, connect_timeout, send_receive_timeout, options)
    pool_opts = [(k, _option_text(v)) for k, v in (pool or {}).items()]
    return Client(RawClient.create_pool(url, opts, _settings_list(settings), arrow_mapping, pool_opts))
