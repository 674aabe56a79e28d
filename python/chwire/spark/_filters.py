"""Spark filters (pushFilters, PySpark ≥ 4.1) → ClickHouse WHERE conditions.

Only filters whose meaning is the same on both sides are pushed: comparisons of integer,
string, Enum and Date columns with literals of the column's kind, IN, IS [NOT] NULL, NOT, and
LIKE-style prefix/suffix/substring tests on strings. Floats (NaN orders differently), UInt64
(a Decimal in Spark), timestamps (time zones) and converted columns stay with Spark. Where
ClickHouse would differ, the condition is written to agree with Spark: an Enum is compared as
its text (ClickHouse orders Enums by number and refuses names they do not have), `x IN (...)`
is NULL for a NULL x (18.16 says 0, which NOT would turn into 1), and a Date literal is a day
number, pushed only inside the range of Date (18.16 wraps others around).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Dict, Optional

from ._options import sql_string
from ._types import quote_ident

_INTS = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32"}


def _kind(ch_type: str) -> Optional[str]:
    t = ch_type
    for wrap in ("Nullable(", "LowCardinality("):
        if t.startswith(wrap):
            t = t[len(wrap):-1]
    if t in _INTS:
        return "int"
    if t == "String":
        return "str"
    if t.startswith("Enum"):
        # Compared as its text; 18.16 cannot take the text of a Nullable Enum that is NULL.
        return None if ch_type.startswith("Nullable(") else "enum"
    if t == "Date":
        return "date"
    return None


def _literal(kind: str, v: Any) -> Optional[str]:
    if kind == "int" and isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if kind in ("str", "enum") and isinstance(v, str):
        return sql_string(v)
    if kind == "date" and isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        days = (v - dt.date(1970, 1, 1)).days
        return f"toDate(toUInt16({days}))" if 0 <= days <= 65535 else None
    return None


def _like(v: str) -> str:
    return v.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def to_sql(f: Any, types: Dict[str, str]) -> Optional[str]:
    """The WHERE condition of filter `f`, or None when it is not pushed."""
    from pyspark.sql import datasource as ds

    if isinstance(f, ds.Not):
        inner = to_sql(f.child, types)
        return f"NOT ({inner})" if inner else None
    attr = getattr(f, "attribute", None)
    if not attr or len(attr) != 1 or attr[0] not in types:
        return None
    col = quote_ident(attr[0])
    if isinstance(f, ds.IsNull):
        return f"isNull({col})"
    if isinstance(f, ds.IsNotNull):
        return f"isNotNull({col})"
    kind = _kind(types[attr[0]])
    if kind is None:
        return None
    if kind == "enum":
        col = f"toString({col})"
    ops = {ds.EqualTo: "=", ds.GreaterThan: ">", ds.GreaterThanOrEqual: ">=", ds.LessThan: "<",
           ds.LessThanOrEqual: "<="}
    for cls, op in ops.items():
        if type(f) is cls:
            lit = _literal(kind, f.value)
            return f"{col} {op} {lit}" if lit is not None else None
    if isinstance(f, ds.In):
        lits = [_literal(kind, v) for v in f.value]
        if not lits or any(x is None for x in lits):
            return None
        cond = f"{col} IN ({', '.join(lits)})"  # type: ignore[arg-type]
        nullable = types[attr[0]].startswith(("Nullable(", "LowCardinality(Nullable("))
        return f"if(isNull({col}), NULL, {cond})" if nullable else cond
    if kind in ("str", "enum") and isinstance(getattr(f, "value", None), str):
        v = _like(f.value)
        if isinstance(f, ds.StringStartsWith):
            return f"{col} LIKE {sql_string(v + '%')}"
        if isinstance(f, ds.StringEndsWith):
            return f"{col} LIKE {sql_string('%' + v)}"
        if isinstance(f, ds.StringContains):
            return f"{col} LIKE {sql_string('%' + v + '%')}"
    return None
