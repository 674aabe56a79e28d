"""The writer: each task attempt inserts into its own staging table; the driver's commit moves
the staged rows into the target.

* `writer()` (driver) picks the server (the first host of the URL that answers) and a job id;
* `write()` (one per task attempt) creates `<db>.chwire_stage_<job>_<partition>_<attempt>`
  (`CREATE TABLE ... AS target ENGINE = Log`) on that server and inserts the task's Arrow
  batches into it in blocks of `blockRows` rows; it returns the table's name and row count;
* a plain `MergeTree` target gets staging tables `AS target` (same engine, key and partition
  key) and `commit()` attaches their parts (`ALTER TABLE target ATTACH PARTITION ID ... FROM
  stage`: hard links, no rows copied);
* any other target: `commit()` (driver, after every task succeeded) runs, per message,
  `INSERT INTO target SELECT ... FROM stage` on the server (synchronously for a Distributed target) and drops the
  staging table, then drops every other staging table of the job (attempts that failed or were
  killed, whose messages never reached the driver);
* `abort()` creates the (empty) table `chwire_aborted_<job>`, then drops every staging table
  of the job; a task still running then drops its own table when it sees the marker.

A task killed mid-write or retried leaves only a staging table that is never moved: the
target gets each row of each partition exactly once.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Iterator, List, Optional

from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from .._errors import ServerError
from .._types import parse_type, to_arrow
from ._options import Options, url_with_hosts, sql_string
from ._arrays import named_like
from ._plan import split_table
from ._types import quote_ident

STAGE_PREFIX = "chwire_stage_"
ABORT_PREFIX = "chwire_aborted_"
# Listings of the job's staging tables tried while tables are dropped beside them.
LIST_ATTEMPTS = 8


class StagedPartition(WriterCommitMessage):
    def __init__(self, table: str, rows: int) -> None:
        self.table = table
        self.rows = rows


def _first_answering(opts: Options) -> str:
    from urllib.parse import urlsplit

    netloc = urlsplit(opts.url).netloc
    hosts = netloc.rpartition("@")[2].split(",")
    last: Optional[Exception] = None
    for h in hosts:
        host, _, port = h.rpartition(":") if h.count(":") == 1 or h.startswith("[") else (h, "", "")
        # A host without a port is on ClickHouse's default: 9440 over TLS, else 9000.
        url = url_with_hosts(opts.url, [(host.strip("[]"), int(port) if port else opts.default_port)])
        try:
            with opts.client(url) as c:
                c.command("SELECT 1")
            return url
        except Exception as e:  # noqa: BLE001 - try the next host
            last = e
    raise last if last else ValueError("no host in url")


class ChwireWriter(DataSourceArrowWriter):
    def __init__(self, opts: Options, schema: Any, overwrite: bool) -> None:
        if overwrite:
            raise ValueError("the chwire data source appends only: use mode('append')")
        if not opts.table:
            raise ValueError("writing with the chwire data source needs option 'table'")
        self.opts = opts
        self.url = _first_answering(opts)
        self.job = uuid.uuid4().hex[:16]
        self.names = list(schema.names)
        with opts.client(self.url) as c:
            db, name = split_table(opts.table)
            self.db = db or c.command("SELECT currentDatabase()")
            self.target = f"{quote_ident(self.db)}.{quote_ident(name)}"
            engine = c.command(
                "SELECT engine FROM system.tables WHERE database = {d:String} AND name = {n:String}",
                parameters={"d": self.db, "n": name})
            self.distributed = engine == "Distributed"
            # A plain MergeTree target: staging tables of the same structure whose parts the
            # commit attaches (hard links, no rows copied).
            self.attach_parts = engine == "MergeTree"
            have = c.query_arrow(f"SELECT * FROM {self.target} LIMIT 0").schema.names
        missing = [n for n in self.names if n not in have]
        if missing:
            raise ValueError(f"columns {missing} of the DataFrame are not in {opts.table}")

    def _stage_name(self) -> str:
        try:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            tag = f"{ctx.partitionId()}_{ctx.attemptNumber()}_{ctx.taskAttemptId()}" if ctx else uuid.uuid4().hex[:8]
        except Exception:  # noqa: BLE001 - no task context: any unique name does
            tag = uuid.uuid4().hex[:8]
        return f"{quote_ident(self.db)}.{quote_ident(STAGE_PREFIX + self.job + '_' + tag)}"

    def write(self, iterator: Iterator[Any]) -> StagedPartition:
        stage = self._stage_name()
        cols = ", ".join(quote_ident(n) for n in self.names)
        rows = 0
        with self.opts.client(self.url) as c:
            if self.attach_parts:
                c.command(f"CREATE TABLE {stage} AS {self.target}")
            else:
                c.command(f"CREATE TABLE {stage} ENGINE = Log AS SELECT {cols} FROM {self.target} LIMIT 0")
            try:
                target = c.query_arrow(f"SELECT {cols} FROM {stage} LIMIT 0").schema
                pending: List[Any] = []
                n = 0
                for batch in iterator:
                    pending.append(batch)
                    n += batch.num_rows
                    if n >= self.opts.block_rows:
                        rows += self._insert(c, stage, pending, target)
                        pending, n = [], 0
                if pending:
                    rows += self._insert(c, stage, pending, target)
                # A task still running when the job was aborted (its abort() has already
                # swept the staging tables) removes its own.
                if c.command(f"EXISTS TABLE {self._abort_marker()}"):
                    raise RuntimeError(f"the write job {self.job} was aborted")
            except BaseException:
                try:
                    c.command(f"DROP TABLE IF EXISTS {stage}")
                finally:
                    raise
        return StagedPartition(stage, rows)

    def _abort_marker(self) -> str:
        return f"{quote_ident(self.db)}.{quote_ident(ABORT_PREFIX + self.job)}"

    def _insert(self, c: Any, stage: str, batches: List[Any], target: Any) -> int:
        import pyarrow as pa

        table = pa.Table.from_batches(batches).select(target.names)
        arrays = []
        for field, col in zip(target, table.columns):
            if col.type != field.type:
                try:
                    if pa.types.is_float32(field.type) and pa.types.is_floating(col.type):
                        _fits_float32(col)
                    if _is_uuid(field.type) and pa.types.is_string(col.type):
                        col = _uuids(col, field.type)
                    else:
                        col = named_like(col, field.type).cast(field.type, safe=True)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                    raise ValueError(f"column {field.name!r}: {col.type} does not fit {field.type}: {e}") from e
            arrays.append(col)
        data = pa.Table.from_arrays(arrays, names=target.names).combine_chunks()
        return c.insert_arrow(stage, data)

    def commit(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        cols = ", ".join(quote_ident(n) for n in self.names)
        settings = {"insert_distributed_sync": 1} if self.distributed else None
        with self.opts.client(self.url) as c:
            for m in messages:
                if not isinstance(m, StagedPartition):
                    continue
                if self.attach_parts:
                    db, name = split_table(m.table)
                    for (pid,) in c.query(
                            "SELECT DISTINCT partition_id FROM system.parts WHERE database = {d:String} "
                            "AND table = {n:String} AND active", parameters={"d": db, "n": name}).result_rows:
                        c.command(f"ALTER TABLE {self.target} ATTACH PARTITION ID {sql_string(pid)} FROM {m.table}")
                else:
                    c.command(f"INSERT INTO {self.target} ({cols}) SELECT {cols} FROM {m.table}", settings=settings)
                c.command(f"DROP TABLE IF EXISTS {m.table}")
            self._drop_job_tables(c)

    def abort(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        with self.opts.client(self.url) as c:
            # The marker first, then the sweep: a task that finishes after the marker drops
            # its own table; one that finished before it is swept.
            c.command(f"CREATE TABLE IF NOT EXISTS {self._abort_marker()} (job String) ENGINE = Log")
            self._drop_job_tables(c)

    def _drop_job_tables(self, c: Any) -> None:
        """Drops every staging table of the job. Tasks drop their own tables meanwhile, and
        ClickHouse 18.16 fails a listing of `system.tables` that meets a table being dropped
        (UNKNOWN_TABLE, code 60): the listing is then tried again."""
        for attempt in range(LIST_ATTEMPTS):
            try:
                names = [name for (name,) in c.query(
                    "SELECT name FROM system.tables WHERE database = {d:String} AND startsWith(name, {p:String})",
                    parameters={"d": self.db, "p": STAGE_PREFIX + self.job + "_"}).result_rows]
            except ServerError as e:
                if e.code != 60 or attempt + 1 == LIST_ATTEMPTS:
                    raise
                time.sleep(0.1 * (attempt + 1))
                continue
            for name in names:
                c.command(f"DROP TABLE IF EXISTS {quote_ident(self.db)}.{quote_ident(name)}")
            return

def _fits_float32(col: Any) -> None:
    """A finite value beyond Float32's range would become infinity: refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    big = pc.and_(pc.is_finite(col), pc.greater(pc.abs(col), 3.4028234663852886e38))
    if pc.any(big).as_py():
        first = pc.filter(col, big)[0].as_py()
        raise pa.ArrowInvalid(f"{first!r} is beyond the range of Float32")


def _is_uuid(t: Any) -> bool:
    return getattr(t, "extension_name", None) == "arrow.uuid"


def _uuids(col: Any, uuid_type: Any) -> Any:
    """Spark's strings (UUIDs are read as their text) → `arrow.uuid` values; a string that is
    not a UUID is an error naming it."""
    import pyarrow as pa

    to_bytes = to_arrow(parse_type("UUID"))  # insert()'s converter: None stays None
    out = []
    for s in col.to_pylist():
        try:
            out.append(to_bytes(s))
        except ValueError:
            raise pa.ArrowInvalid(f"{s!r} is not a UUID") from None
    storage = pa.array(out, pa.binary(16))
    return pa.ExtensionArray.from_storage(uuid_type, storage)


__all__ = ["ChwireWriter", "StagedPartition", "sql_string"]
