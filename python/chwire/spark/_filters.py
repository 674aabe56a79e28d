"""Spark filters (pushFilters, PySpark ≥ 4.1) → ClickHouse WHERE conditions.

The translation is chwire's shared Spark rule (Rust: chwire-spark-core's filters, the same
code the JVM connector uses): only filters whose meaning is the same on both sides are pushed
(integer, string, Enum and Date columns against literals of their kind, IN, IS [NOT] NULL,
NOT, prefix/suffix/substring tests), written to agree with Spark where ClickHouse differs
(Enums compared as text, a NULL-safe IN, Date literals only within Date's range). This module
only describes PySpark's filter objects to it.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Dict, Optional

from .._chwire import spark_filter_sql

_OPS = {"EqualTo": "eq", "GreaterThan": "gt", "GreaterThanOrEqual": "ge", "LessThan": "lt",
        "LessThanOrEqual": "le", "StringStartsWith": "starts_with", "StringEndsWith": "ends_with",
        "StringContains": "contains"}


def _lit(v: Any) -> Dict[str, Any]:
    if isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63:
        return {"kind": "int", "v": v}
    if isinstance(v, str):
        return {"kind": "str", "v": v}
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return {"kind": "date", "v": (v - dt.date(1970, 1, 1)).days}
    return {"kind": "other"}


def describe(f: Any) -> Dict[str, Any]:
    """PySpark's filter `f` in the shared rules' JSON form (`{"op": "other"}` when unknown)."""
    from pyspark.sql import datasource as ds

    if isinstance(f, ds.Not):
        return {"op": "not", "child": describe(f.child)}
    attr = getattr(f, "attribute", None)
    if not attr or len(attr) != 1:
        return {"op": "other"}
    col = attr[0]
    if isinstance(f, ds.IsNull):
        return {"op": "is_null", "col": col}
    if isinstance(f, ds.IsNotNull):
        return {"op": "is_not_null", "col": col}
    if isinstance(f, ds.In):
        return {"op": "in", "col": col, "values": [_lit(v) for v in f.value]}
    op = _OPS.get(type(f).__name__)
    if op is None or type(f) is not getattr(ds, type(f).__name__, None):
        return {"op": "other"}
    return {"op": op, "col": col, "value": _lit(f.value)}


def to_sql(f: Any, types: Dict[str, str]) -> Optional[str]:
    """The WHERE condition of filter `f` over columns of ClickHouse types `types`, or None
    when it is not pushed."""
    return spark_filter_sql(json.dumps(describe(f)), types)
