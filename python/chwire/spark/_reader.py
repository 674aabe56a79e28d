"""The reader: each Spark partition streams Spark's Arrow batches from chwire's shared read."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import uuid
from typing import Any, Iterator, List, Optional

from pyspark.sql.datasource import DataSourceReader, InputPartition

from .._chwire import spark_read
from ._filters import to_sql
from ._plan import Plan
from ._types import arrow_schema, spark_schema



class ChwirePartition(InputPartition):
    def __init__(self, index: int, part: dict) -> None:
        super().__init__(index)
        self.part = part


class ChwireReader(DataSourceReader):
    def __init__(self, plan: Plan, schema: Any = None) -> None:
        """`schema`: Spark's, one field per planned column in the same order (the planned
        types unless the user gave others)."""
        # Each reader pushes its own filters: the plan may be shared with earlier reads of the
        # same DataFrame, so its WHERE list is this reader's copy.
        self.plan = copy.copy(plan)
        self.plan.where = list(plan.where)
        self.schema = schema if schema is not None else spark_schema(plan.columns)
        # Filters are pushed only on columns Spark sees as chwire plans them: the same name,
        # the planned type, no conversion on the server.
        self.pushable = {c.name: c.ch_type for c, f in zip(plan.columns, self.schema.fields)
                         if not c.converted and f.name == c.name and f.dataType == c.field.dataType}

    def partitions(self) -> List[InputPartition]:
        return [ChwirePartition(i, p) for i, p in enumerate(self.plan.partitions)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        """The partition's batches from the read shared with the JVM connector (Rust:
        chwire-spark-core's read_partition, which also converts them to Spark's types), as an
        Arrow C stream. A partition is read by one Spark task on one core: the server reads a
        table's part of it on one thread too, unless the settings say otherwise (docs/SPARK.md).
        """
        import pyarrow as pa

        part = partition.part  # type: ignore[attr-defined]
        target = arrow_schema(self.schema)
        query_id = f"chwire-spark-{uuid.uuid4()}"
        opts = self.plan.opts
        # A replica that fails before the first batch is skipped by the connect/retry of
        # chwire's multi-host URL; one that fails after it fails the task, which Spark retries
        # (a task's partial output is never kept).
        with _Watchdog(opts, part["url"], query_id):
            stream = spark_read(self.plan.json, json.dumps(part), list(self.plan.where), self.schema.json(), query_id)
            reader = pa.RecordBatchReader.from_stream(stream)
            try:
                for batch in reader:
                    if batch.num_rows == 0:
                        continue
                    # The same types as Spark's own Arrow schema; only names inside nested
                    # types (a list's item) may differ, which a cast relabels without a copy.
                    yield batch if batch.schema == target else batch.cast(target)
            finally:
                reader.close()


class _Watchdog:
    """Over HTTP, a process that kills the read's query if this worker is killed before the
    read ends (see _watchdog.py); nothing over the native protocol, where the server stops the
    query of a closed connection itself."""

    def __init__(self, opts: Any, url: str, query_id: str) -> None:
        from .._chwire import spark_watchdog_urls

        self.proc: Optional[subprocess.Popen] = None
        # Over HTTP (by the URL's scheme or the `transport` option): each server's URL.
        urls = spark_watchdog_urls(opts.json, url)
        if not urls:
            return
        self.proc = subprocess.Popen([sys.executable, "-m", "chwire.spark._watchdog"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        job = {"urls": urls, "connect": opts.connect, "query_id": query_id}
        # Through the pipe, not the command line: the URL may hold a password.
        self.proc.stdin.write((json.dumps(job, default=str) + "\n").encode())
        self.proc.stdin.flush()

    def __enter__(self) -> "_Watchdog":
        return self

    def __exit__(self, *exc: Any) -> None:
        # The read ended here (fully, by an error or closed by Spark): the query is over or
        # was stopped by chwire itself.
        if self.proc is not None:
            try:
                self.proc.stdin.write(b"done\n")
                self.proc.stdin.close()
            except OSError:
                pass
            self.proc.wait()


class ChwirePushdownReader(ChwireReader):
    """The reader with `pushFilters`: Spark refuses a reader that has it unless
    spark.sql.python.filterPushdown.enabled is true, so it is used only with the option
    pushFilters=true."""

    def pushFilters(self, filters: List[Any]) -> Iterator[Any]:
        for f in filters:
            cond = to_sql(f, self.pushable)
            if cond is None:
                yield f
            else:
                self.plan.where.append(cond)
