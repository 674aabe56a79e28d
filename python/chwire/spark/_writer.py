"""The writer: each task attempt inserts into its own staging table; the driver's commit moves
the staged rows into the target. The protocol's statements, commit and abort are chwire's
shared Spark rules (Rust: chwire-spark-core's write, the same code the JVM connector uses);
this module inserts the task's Arrow batches.

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

import json
import uuid
from typing import Any, Iterator, List, Optional

from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from .._chwire import (spark_write_abort, spark_write_commit, spark_write_prepare, spark_write_sweep,
                       spark_write_task)
from .._types import parse_type, to_arrow
from ._arrays import named_like
from ._options import Options
from ._types import quote_ident

STAGE_PREFIX = "chwire_stage_"
ABORT_PREFIX = "chwire_aborted_"


class StagedPartition(WriterCommitMessage):
    def __init__(self, table: str, rows: int) -> None:
        self.table = table
        self.rows = rows


class ChwireWriter(DataSourceArrowWriter):
    def __init__(self, opts: Options, schema: Any, overwrite: bool) -> None:
        self.opts = opts
        self.names = list(schema.names)
        # The shared protocol (Rust): the server (the first host of the URL that answers),
        # a job id, the target's engine, and the written columns checked against it. With
        # overwrite, the commit replaces the target's rows (a filled copy swapped in).
        self.job = spark_write_prepare(opts.json, self.names, overwrite)

    def _tag(self) -> str:
        try:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            return f"{ctx.partitionId()}_{ctx.attemptNumber()}_{ctx.taskAttemptId()}" if ctx else uuid.uuid4().hex[:8]
        except Exception:  # noqa: BLE001 - no task context: any unique name does
            return uuid.uuid4().hex[:8]

    def write(self, iterator: Iterator[Any]) -> StagedPartition:
        task = spark_write_task(self.job, self._tag())
        stage = task["stage"]
        rows = 0
        with self.opts.client(task["url"]) as c:
            c.command(task["create"])
            try:
                target = c.query_arrow(f"SELECT {', '.join(quote_ident(n) for n in self.names)} FROM {stage} LIMIT 0").schema
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
                if c.command(task["aborted"]):
                    raise RuntimeError(f"the write job {json.loads(self.job)['job']} was aborted")
            except BaseException:
                try:
                    c.command(task["drop"])
                finally:
                    raise
        return StagedPartition(stage, rows)

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
        spark_write_commit(self.job, [m.table for m in messages if isinstance(m, StagedPartition)])

    def abort(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        spark_write_abort(self.job)


def sweep(job: str) -> None:
    """Drop every staging table of write job `job` (the shared protocol's JSON)."""
    spark_write_sweep(job)


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


__all__ = ["ChwireWriter", "StagedPartition"]
