"""The writer: each task attempt inserts into its own staging table; the driver's commit moves
the staged rows into the target. The protocol's statements, commit and abort are chwire's
shared Spark rules (Rust: chwire-spark-core's write, the same code the JVM connector uses);
so is each task attempt's write (`WriteJob::write_stage`): this module hands it the task's
Arrow batches as one stream.

* `writer()` (driver) picks the server (the first host of the URL that answers) and a job id;
* `write()` (one per task attempt) creates `<db>.chwire_stage_<job>_<partition>_<attempt>`
  (`CREATE TABLE ... ENGINE = Log AS SELECT <columns> FROM target LIMIT 0`) on that server and
  inserts the task's Arrow batches into it in blocks of `blockRows` rows, converted to its
  columns by the rules the JVM connector uses (a value that does not fit is an error naming
  the column); it returns the table's name and row count;
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

import uuid
from typing import Any, Iterator, List, Optional

from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from .._chwire import spark_write_abort, spark_write_commit, spark_write_prepare, spark_write_stage, spark_write_sweep
from ._options import Options

STAGE_PREFIX = "chwire_stage_"
ABORT_PREFIX = "chwire_aborted_"


class StagedPartition(WriterCommitMessage):
    def __init__(self, table: str, rows: int) -> None:
        self.table = table
        self.rows = rows


class ChwireWriter(DataSourceArrowWriter):
    def __init__(self, opts: Options, schema: Any, overwrite: bool) -> None:
        self.opts = opts
        # The shared protocol (Rust): the server (the first host of the URL that answers),
        # a job id, the target's engine, and the written columns (names and types) checked
        # against it. With overwrite, the commit replaces the target's rows (a filled copy
        # swapped in).
        self.job = spark_write_prepare(opts.json, schema.json(), overwrite)

    def _tag(self) -> str:
        try:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            return f"{ctx.partitionId()}_{ctx.attemptNumber()}_{ctx.taskAttemptId()}" if ctx else uuid.uuid4().hex[:8]
        except Exception:  # noqa: BLE001 - no task context: any unique name does
            return uuid.uuid4().hex[:8]

    def write(self, iterator: Iterator[Any]) -> StagedPartition:
        """The task's batches go to Rust as one Arrow stream: the shared task-attempt write
        (the JVM connector's too) converts and inserts them into this attempt's staging table."""
        import itertools

        import pyarrow as pa

        first = next(iterator, None)
        data = None if first is None else pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], iterator))
        stage, rows = spark_write_stage(self.job, self._tag(), data)
        return StagedPartition(stage, rows)

    def commit(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        spark_write_commit(self.job, [m.table for m in messages if isinstance(m, StagedPartition)])

    def abort(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        spark_write_abort(self.job)


def sweep(job: str) -> None:
    """Drop every staging table of write job `job` (the shared protocol's JSON)."""
    spark_write_sweep(job)


__all__ = ["ChwireWriter", "StagedPartition"]
