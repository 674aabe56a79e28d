"""A PySpark (≥ 4.1) data source reading and writing ClickHouse through chwire, as Arrow.

    from chwire.spark import ChwireDataSource
    spark.dataSource.register(ChwireDataSource)
    df = spark.read.format("chwire").option("url", "tcp://default@host:9000/db").option("table", "db.t").load()

Options, partitioning, the write guarantee and the type mapping: docs/SPARK.md.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql.datasource import DataSource

from ._options import Options
from ._plan import Plan
from ._reader import ChwirePushdownReader, ChwireReader
from ._types import UnsupportedType, spark_schema
from ._writer import ChwireWriter


class ChwireDataSource(DataSource):
    """`spark.read.format("chwire")` / `df.write.format("chwire")`."""

    @classmethod
    def name(cls) -> str:
        return "chwire"

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self._opts = Options(options)
        self._plan: Any = None

    def _planned(self) -> Plan:
        if self._plan is None:
            self._plan = Plan(self._opts)
        return self._plan

    def schema(self) -> Any:
        return spark_schema(self._planned().columns)

    def reader(self, schema: Any) -> ChwireReader:
        # `schema` is ours, or one the user gave with `.schema(...)`: its fields name the
        # columns to read (the only column pruning this API allows) and the Spark types to
        # cast them to.
        names = [f.name for f in schema.fields]
        plan = self._planned() if self._plan is not None and names == [c.name for c in self._plan.columns] \
            else Plan(self._opts, wanted=names)
        if self._opts.push_filters:
            return ChwirePushdownReader(plan, schema)
        return ChwireReader(plan, schema)

    def writer(self, schema: Any, overwrite: bool) -> ChwireWriter:
        return ChwireWriter(self._opts, schema, overwrite)


__all__ = ["ChwireDataSource", "UnsupportedType"]
