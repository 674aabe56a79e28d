"""ClickHouse type names → converters between Arrow's Python values and chwire's row values.

``query()`` builds its rows from Arrow (``to_pylist``) and fixes up what Arrow alone cannot
tell: IP addresses, 128/256-bit integers, UUIDs, Maps as dicts and Tuples as tuples.
``insert()`` does the reverse before building Arrow arrays of the table's types.
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import struct
import uuid
from typing import Any, Callable, List, Optional, Tuple

Conv = Optional[Callable[[Any], Any]]
Node = Tuple[str, list]


def parse_type(text: str) -> Node:
    """Parse a ClickHouse type name into ``(name, args)``; args are nodes or literal strings."""
    node, pos = _parse(text, 0)
    return node


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _parse(text: str, pos: int) -> Tuple[Node, int]:
    pos = _skip(text, pos)
    start = pos
    if pos < len(text) and text[pos] in "'-0123456789":
        # A literal argument (Enum values, numbers, time zones).
        if text[pos] == "'":
            pos += 1
            while pos < len(text) and text[pos] != "'":
                pos += 2 if text[pos] == "\\" else 1
            pos += 1
        while pos < len(text) and text[pos] not in ",)":
            pos += 1
        return (text[start:pos].strip(), []), pos
    while pos < len(text) and (text[pos].isalnum() or text[pos] in "_."):
        pos += 1
    name = text[start:pos]
    pos = _skip(text, pos)
    # A named tuple element: `name Type`.
    if pos < len(text) and text[pos] not in ",()" and name:
        inner, pos = _parse(text, pos)
        return ("__named__", [name, inner]), pos
    args: list = []
    if pos < len(text) and text[pos] == "(":
        pos += 1
        while True:
            pos = _skip(text, pos)
            if pos < len(text) and text[pos] == ")":
                pos += 1
                break
            arg, pos = _parse(text, pos)
            args.append(arg)
            pos = _skip(text, pos)
            if pos < len(text) and text[pos] == ",":
                pos += 1
    return (name, args), pos


def _unnamed(node: Node) -> Node:
    return node[1][1] if node[0] == "__named__" else node


_INT_BYTES = {"Int128": (16, True), "UInt128": (16, False), "Int256": (32, True), "UInt256": (32, False)}


def _on_values(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else f(v)


def to_python(node: Node) -> Conv:
    """A converter from ``to_pylist`` values of this type to row values (None: identity)."""
    name, args = _unnamed(node)
    if name in ("Nullable", "LowCardinality", "SimpleAggregateFunction"):
        return to_python(args[-1])
    if name == "IPv4":
        return _on_values(ipaddress.IPv4Address)
    if name == "IPv6":
        return _on_values(lambda b: ipaddress.IPv6Address(bytes(b)))
    if name == "UUID":
        return _on_values(lambda b: b if isinstance(b, uuid.UUID) else uuid.UUID(bytes=bytes(b)))
    if name in _INT_BYTES:
        signed = _INT_BYTES[name][1]
        return _on_values(lambda b: int.from_bytes(bytes(b), "little", signed=signed))
    if name in ("Array", "Nested"):
        if name == "Nested":
            inner = to_python(("Tuple", args))
        else:
            inner = to_python(args[0])
        if inner is None:
            return None
        return _on_values(lambda xs: [inner(x) for x in xs])
    if name == "Map":
        ck = to_python(args[0]) or (lambda x: x)
        cv = to_python(args[1]) or (lambda x: x)
        return _on_values(lambda kvs: {ck(k): cv(v) for k, v in kvs})
    if name in ("Tuple", "Point", "Ring", "Polygon", "MultiPolygon", "LineString", "MultiLineString"):
        if name != "Tuple":
            return None
        convs = [to_python(a) or (lambda x: x) for a in args]

        def tup(d: Any) -> Any:
            values = list(d.values()) if isinstance(d, dict) else list(d)
            return tuple(c(v) for c, v in zip(convs, values))

        return _on_values(tup)
    return None


_INTS = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"}


def _exact_int(v: Any) -> int:
    """An integer, or a float/Decimal/NumPy number with an integral value; else an error
    (pyarrow would truncate 1.5 to 1)."""
    if isinstance(v, int):
        return int(v)  # bool too (18.16 has no Bool type: UInt8 holds flags)
    if isinstance(v, str) or not hasattr(v, "__int__"):
        raise TypeError(f"{v!r} is not an integer")
    i = int(v)
    if i != v:
        raise ValueError(f"{v!r} is not an integer (chwire does not round)")
    return i


def _float32(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) != float("inf"):
        # Rounded to the nearest Float32 (3.4028235e38 is its maximum); beyond, infinity.
        try:
            rounded = struct.unpack("f", struct.pack("f", v))[0]
        except (OverflowError, struct.error):
            rounded = float("inf")
        if abs(rounded) == float("inf"):
            raise ValueError(f"{v!r} is beyond Float32's range")
    return v


def _datetime(digits: int, v: Any) -> Any:
    """A datetime whose fraction the column keeps (DateTime: whole seconds; DateTime64(p): p
    digits); pyarrow would cut finer ones off."""
    if isinstance(v, dt.datetime):
        fraction = v.microsecond * 1000 + getattr(v, "nanosecond", 0)
        if fraction % 10 ** (9 - min(digits, 9)):
            kind = f"DateTime64({digits})" if digits else "DateTime"
            raise ValueError(f"{v!r} has a finer fraction of a second than {kind} keeps (chwire does not round)")
    return v


def _date(v: Any) -> Any:
    """A date, or a datetime at midnight; pyarrow would drop another time of day."""
    if isinstance(v, dt.datetime):
        if v.time() != dt.time(0):
            raise ValueError(f"{v!r} has a time of day, a Date has none")
        return v.date()
    return v


def _fixed_string(n: int, v: Any) -> bytes:
    """A FixedString(n) value: shorter ones padded with zero bytes, as the server pads them;
    longer ones refused (the server's TOO_LARGE_STRING_SIZE)."""
    b = v.encode() if isinstance(v, str) else bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else None
    if b is None:
        raise TypeError(f"{v!r} is not bytes or str")
    if len(b) > n:
        raise ValueError(f"{v!r} is longer than FixedString({n})")
    return b.ljust(n, b"\0")


def _sequence(v: Any) -> Any:
    if isinstance(v, (str, bytes, bytearray)):
        raise TypeError(f"{v!r} is a string, not an array")
    return v


def to_arrow(node: Node, field_names: Optional[List[str]] = None) -> Conv:
    """A converter from row values to values pyarrow builds arrays of this type from,
    refusing what pyarrow would change silently (1.5 into an integer, a string as an array
    of its characters, a tuple of another length)."""
    name, args = _unnamed(node)
    if name in ("Nullable", "LowCardinality", "SimpleAggregateFunction"):
        return to_arrow(args[-1])
    if name in _INTS:
        return _on_values(_exact_int)
    if name == "Float32":
        return _on_values(_float32)
    if name == "DateTime":
        return _on_values(functools.partial(_datetime, 0))
    if name == "DateTime64" and args and args[0][0].isdigit():
        return _on_values(functools.partial(_datetime, int(args[0][0])))
    if name in ("Date", "Date32"):
        return _on_values(_date)
    if name == "IPv4":
        return _on_values(lambda v: int(ipaddress.IPv4Address(v)))
    if name == "IPv6":
        return _on_values(lambda v: ipaddress.IPv6Address(v).packed)
    if name == "UUID":
        return _on_values(lambda v: (v if isinstance(v, uuid.UUID) else uuid.UUID(str(v))).bytes)
    if name in _INT_BYTES:
        width, signed = _INT_BYTES[name]
        return _on_values(lambda v: _exact_int(v).to_bytes(width, "little", signed=signed))
    if name == "FixedString" and args and args[0][0].isdigit():
        return _on_values(functools.partial(_fixed_string, int(args[0][0])))
    if name == "Array":
        inner = to_arrow(args[0])
        if inner is None:
            return _on_values(_sequence)
        return _on_values(lambda xs: [inner(x) for x in _sequence(xs)])
    if name == "Map":
        ck = to_arrow(args[0]) or (lambda x: x)
        cv = to_arrow(args[1]) or (lambda x: x)
        return _on_values(lambda m: [(ck(k), cv(v)) for k, v in (m.items() if isinstance(m, dict) else m)])
    if name == "Tuple":
        names = [a[1][0] if a[0] == "__named__" else str(i + 1) for i, a in enumerate(args)]
        convs = [to_arrow(a) or (lambda x: x) for a in args]

        def struct(v: Any) -> Any:
            if isinstance(v, dict):
                extra = set(v) - set(names)
                if extra:
                    raise ValueError(f"{v!r} has elements the tuple has not: {sorted(extra)}")
                return {n: c(v.get(n)) for n, c in zip(names, convs)}
            if len(_sequence(v)) != len(names):
                raise ValueError(f"{v!r} has {len(v)} elements, the tuple {len(names)}")
            return {n: c(x) for n, c, x in zip(names, convs, v)}

        return _on_values(struct)
    return None
