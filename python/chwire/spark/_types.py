"""ClickHouse columns → Spark types, and the SELECT expression that reads each one.

The mapping is chwire's shared Spark rule (Rust: chwire-spark-core's types, the same code the
JVM connector uses); it gives each column's Spark field in Spark's JSON form. A column maps
through chwire's rich Arrow mapping (docs/PYTHON.md) to the Arrow type Spark expects for that
Spark type; batches are then cast (checked, never truncating) to Spark's Arrow schema. Types
Spark has no equivalent for are converted on the server (UUID and IP addresses become their
text), read as JSON text (JSON, Dynamic) or refused with an error naming the column.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List


class UnsupportedType(Exception):
    """A column whose ClickHouse type has no Spark mapping."""


def quote_ident(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


class Column:
    """One column: its name, ClickHouse type, Spark field and SELECT expression."""

    def __init__(self, name: str, ch_type: str, u64_long: bool = False) -> None:
        from .._chwire import spark_column

        self._set(json.loads(spark_column(name, ch_type, u64_long)))

    @classmethod
    def of(cls, mapped: Dict[str, Any]) -> "Column":
        """A column as the shared rules mapped it (a plan's)."""
        c = cls.__new__(cls)
        c._set(mapped)
        return c

    def _set(self, c: Dict[str, Any]) -> None:
        from pyspark.sql import types as T

        self.name: str = c["name"]
        self.ch_type: str = c["ch_type"]
        self.field = T.StructField.fromJson(c["field"])
        self.converted: bool = c["converted"]
        self.select: str = c["select"]


def spark_schema(columns: List[Column]) -> Any:
    from pyspark.sql.types import StructType

    return StructType([c.field for c in columns])


def arrow_schema(schema: Any) -> Any:
    """The Arrow schema Spark's Python data source worker checks batches against."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema, timezone="UTC")
