"""ClickHouse columns → Spark types, and the SELECT expression that reads each one.

A column maps through chwire's rich Arrow mapping (docs/PYTHON.md) to the Arrow type Spark
expects for the Spark type chosen here; batches are then cast (checked, never truncating) to
Spark's Arrow schema. Types Spark has no equivalent for are converted on the server (UUID and
IP addresses become their text), read as JSON text (JSON, Dynamic) or refused with an error
naming the column.
"""

from __future__ import annotations

from typing import Any, List, Tuple

from .._types import parse_type

Node = Tuple[str, list]

_INTS = {
    "Int8": "byte",
    "Int16": "short",
    "Int32": "integer",
    "Int64": "long",
    "UInt8": "short",
    "UInt16": "integer",
    "UInt32": "long",
}
# Spark has no unsigned 64-bit integer: UInt64 becomes DecimalType(20, 0), which holds every value,
# or with the option uint64=long LongType (a value above 2^63 - 1 is then an error, checked by
# the cast of each batch).
_TEXT_ON_SERVER = {"UUID", "IPv4", "IPv6"}


class UnsupportedType(Exception):
    """A column whose ClickHouse type has no Spark mapping."""


def quote_ident(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _unnamed(node: Node) -> Tuple[str, Node]:
    if node[0] == "__named__":
        return node[1][0], node[1][1]
    return "", node


def _spark(node: Node, u64_long: bool = False) -> Tuple[Any, bool, bool]:
    """(Spark DataType, nullable, needs a server-side conversion) of a parsed type."""
    from pyspark.sql import types as T

    name, args = node
    if name in _INTS:
        return getattr(T, _INTS[name].capitalize() + "Type")(), False, False
    if name == "UInt64":
        return (T.LongType() if u64_long else T.DecimalType(20, 0)), False, False
    if name in ("Float32",):
        return T.FloatType(), False, False
    if name in ("Float64",):
        return T.DoubleType(), False, False
    if name == "Bool":
        return T.BooleanType(), False, False
    if name == "String" or name.startswith("Enum"):
        return T.StringType(), False, False
    if name == "FixedString":
        return T.BinaryType(), False, False
    if name in ("Date", "Date32"):
        return T.DateType(), False, False
    if name == "DateTime":
        return T.TimestampType(), False, False
    if name == "DateTime64":
        # Spark keeps microseconds: finer values are refused by the checked cast when read.
        return T.TimestampType(), False, False
    if name in ("Decimal", "Decimal32", "Decimal64", "Decimal128"):
        if name == "Decimal":
            p, s = int(args[0][0]), int(args[1][0])
        else:
            p, s = {"Decimal32": 9, "Decimal64": 18, "Decimal128": 38}[name], int(args[0][0])
        if p > 38:
            raise UnsupportedType(f"Decimal({p}, {s}) is wider than Spark's DecimalType (38 digits)")
        return T.DecimalType(p, s), False, False
    if name in _TEXT_ON_SERVER:
        return T.StringType(), False, True
    if name in ("JSON", "Dynamic"):
        # chwire's Arrow mapping writes both as JSON text (`arrow.json`), as ClickHouse 26.9
        # does; a Dynamic value may be NULL. Written back, the text is checked and parsed.
        return T.StringType(), name == "Dynamic", False
    if name == "Nullable":
        t, _, conv = _spark(args[0], u64_long)
        return t, True, conv
    if name == "LowCardinality":
        return _spark(args[0], u64_long)
    if name == "Array":
        t, nullable, conv = _spark(args[0], u64_long)
        return T.ArrayType(t, nullable), False, conv
    if name == "Tuple":
        fields = []
        for i, arg in enumerate(args):
            label, inner = _unnamed(arg)
            t, nullable, conv = _spark(inner, u64_long)
            if conv:
                raise UnsupportedType("a Tuple element of type UUID/IPv4/IPv6 (read it with a query and toString)")
            fields.append(T.StructField(label or str(i + 1), t, nullable))
        return T.StructType(fields), False, False
    if name == "Map":
        k, _, kconv = _spark(args[0], u64_long)
        v, vnull, vconv = _spark(args[1], u64_long)
        if kconv or vconv:
            raise UnsupportedType("a Map of UUID/IPv4/IPv6 (read it with a query and toString)")
        return T.MapType(k, v, vnull), False, False
    raise UnsupportedType(f"no Spark type for ClickHouse {name or 'this type'}")


def _expr(node: Node, ref: str) -> str:
    """The SQL expression reading `ref` of type `node` as Spark can hold it."""
    name, args = node
    if name in _TEXT_ON_SERVER:
        return f"toString({ref})"
    if name == "Nullable":
        return _expr(args[0], ref)
    if name == "LowCardinality":
        return _expr(args[0], ref)
    if name == "Array":
        return f"arrayMap(x -> {_expr(args[0], 'x')}, {ref})"
    return ref


class Column:
    """One column: its name, ClickHouse type, Spark field and SELECT expression."""

    def __init__(self, name: str, ch_type: str, u64_long: bool = False) -> None:
        from pyspark.sql import types as T

        self.name = name
        self.ch_type = ch_type
        node = parse_type(ch_type)
        try:
            t, nullable, conv = _spark(node, u64_long)
        except (UnsupportedType, IndexError, ValueError) as e:
            raise UnsupportedType(
                f"column {name!r} of type {ch_type} cannot be read into Spark: {e}; "
                f"leave it out with the 'columns' option or convert it in a 'query'") from None
        self.field = T.StructField(name, t, nullable)
        self.converted = conv
        self.base = node[1][0][0] if node[0] in ("Nullable", "LowCardinality") and node[1] else node[0]
        ident = quote_ident(name)
        self.select = f"{_expr(node, ident)} AS {ident}" if conv else ident


def spark_schema(columns: List[Column]) -> Any:
    from pyspark.sql.types import StructType

    return StructType([c.field for c in columns])


def arrow_schema(schema: Any) -> Any:
    """The Arrow schema Spark's Python data source worker checks batches against."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema, timezone="UTC")
