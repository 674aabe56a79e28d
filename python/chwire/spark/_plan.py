"""What a read runs where: the columns, and one (URL, SELECT) per Spark partition.

The plan is made by chwire's shared Spark rules (Rust: chwire-spark-core's plan, the same
code the JVM connector uses; docs/SPARK.md describes the partitioning): one partition per
shard of a Distributed table (or with `cluster`), split further by the sorting key when
numPartitions is above the number of shards; a plain table split by ranges of its first
integer sorting-key column or by a NULL-safe hash; a query in one partition or strides of
partitionColumn.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from .._chwire import spark_partition_sql, spark_plan
from ._options import Options
from ._types import Column


class Plan:
    """Made on the driver; sent to the executors with the reader (picklable)."""

    def __init__(self, opts: Options, wanted: Optional[List[str]] = None) -> None:
        """`wanted`: the columns to read (a schema's field names), else the `columns` option's,
        else all of them."""
        self.opts = opts
        self.where: List[str] = []
        self.json: str = spark_plan(opts.json, wanted or None)
        p = json.loads(self.json)
        self.columns = [Column.of(c) for c in p["columns"]]
        self.types: Dict[str, str] = dict((n, t) for n, t in p["types"])
        self.partitions: List[Dict[str, Any]] = p["partitions"]

    def sql(self, part: Dict[str, Any]) -> str:
        return spark_partition_sql(self.json, json.dumps(part), list(self.where))


__all__ = ["Plan"]
