"""ClickHouse type names → converters between Arrow's Python values and chwire's row values.

``query()`` builds its rows from Arrow (``to_pylist``) and fixes up what Arrow alone cannot
tell: IP addresses, 128/256-bit integers, UUIDs, Maps as dicts and Tuples as tuples.
``insert()`` does the reverse before building Arrow arrays of the table's types.
"""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import json
import re
import struct
import uuid
from typing import Any, Callable, List, Optional, Tuple

Conv = Optional[Callable[[Any], Any]]
Node = Tuple[str, list]


def parse_type(text: str) -> Node:
    """Parse a ClickHouse type name into ``(name, args)``; args are nodes or literal strings.

    Any text parses, always advancing (a type this parser does not know the grammar of, such as
    ``Dynamic(max_types=3)``, once made it loop forever): an argument that is no type name is
    kept as a literal up to the next ``,`` or ``)`` at its depth."""
    node, pos = _parse(text, 0)
    return node


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _literal_end(text: str, pos: int) -> int:
    """Where a literal argument starting at ``pos`` ends: the next ``,`` or ``)`` outside quotes
    and brackets."""
    depth = 0
    while pos < len(text):
        ch = text[pos]
        if ch == "'":
            pos += 1
            while pos < len(text) and text[pos] != "'":
                pos += 2 if text[pos] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        pos += 1
    return min(pos, len(text))


def _parse(text: str, pos: int) -> Tuple[Node, int]:
    pos = _skip(text, pos)
    start = pos
    if pos < len(text) and text[pos] in "'-0123456789":
        # A literal argument (Enum values, numbers, time zones).
        pos = _literal_end(text, pos)
        return (text[start:pos].strip(), []), pos
    if pos < len(text) and text[pos] == "`":
        # A backquoted element name, as in Tuple(`a b` UInt8).
        pos += 1
        while pos < len(text) and text[pos] != "`":
            pos += 2 if text[pos] == "\\" else 1
        pos += 1
        name = text[start + 1:pos - 1].replace("\\`", "`").replace("\\\\", "\\")
    else:
        while pos < len(text) and (text[pos].isalnum() or text[pos] in "_."):
            pos += 1
        name = text[start:pos]
    pos = _skip(text, pos)
    if pos < len(text) and (not name or text[pos] == "="):
        if text[pos] in ",)":
            return ("", []), pos
        # A setting (`max_types=3`, `max_dynamic_paths=8`) or other text that names no type.
        pos = _literal_end(text, pos)
        return (text[start:pos].strip(), []), pos
    # A named tuple element: `name Type`.
    if pos < len(text) and text[pos] not in ",()":
        inner, pos = _parse(text, pos)
        return ("__named__", [name, inner]), pos
    args: list = []
    if pos < len(text) and text[pos] == "(":
        pos += 1
        while pos < len(text):
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
    # Named once per word before the type: `a UInt8`, JSON's `SKIP a.b` and `SKIP REGEXP 'x'`.
    while node[0] == "__named__":
        node = node[1][1]
    return node


_INT_BYTES = {"Int128": (16, True), "UInt128": (16, False), "Int256": (32, True), "UInt256": (32, False)}


def _on_values(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else f(v)


# The geo types as the types they are stored as (ClickHouse's own definitions).
_POINT: Node = ("Tuple", [("Float64", []), ("Float64", [])])
_GEO: dict = {"Point": _POINT}
_GEO["Ring"] = _GEO["LineString"] = _GEO["MultiPoint"] = ("Array", [_POINT])
_GEO["Polygon"] = _GEO["MultiLineString"] = ("Array", [_GEO["Ring"]])
_GEO["MultiPolygon"] = ("Array", [_GEO["Polygon"]])

# QBit(T, d) element types: their width in bits and how Python reads their bits.
_QBIT = {"Float32": 32, "Float64": 64, "BFloat16": 16}


def _storage(node: Node) -> Node:
    """Alias types as the type they are stored as (the geo types); others unchanged."""
    node = _unnamed(node)
    return _GEO.get(node[0], node) if not node[1] else node


def to_python(node: Node) -> Conv:
    """A converter from ``to_pylist`` values of this type to row values (None: identity)."""
    name, args = _storage(node)
    if name in ("Nullable", "LowCardinality", "SimpleAggregateFunction") and args:
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
    if name in ("JSON", "Dynamic"):
        # The Arrow column holds each value's JSON text (JSONEachRow's): rows get the value.
        return _on_values(_json_value)
    if name == "QBit" and len(args) == 2 and args[0][0] in _QBIT and args[1][0].isdigit():
        return _on_values(functools.partial(_qbit_values, args[0][0], int(args[1][0])))
    if name in ("Array", "Nested") and args:
        if name == "Nested":
            inner = to_python(("Tuple", args))
        else:
            inner = to_python(args[0])
        if inner is None:
            return None
        return _on_values(lambda xs: [inner(x) for x in xs])
    if name == "Map" and len(args) == 2:
        ck = to_python(args[0]) or (lambda x: x)
        cv = to_python(args[1]) or (lambda x: x)
        return _on_values(lambda kvs: {ck(k): cv(v) for k, v in kvs})
    if name == "Tuple":
        convs = [to_python(a) or (lambda x: x) for a in args]

        def tup(d: Any) -> Any:
            values = list(d.values()) if isinstance(d, dict) else list(d)
            return tuple(c(v) for c, v in zip(convs, values))

        return _on_values(tup)
    return None


# Types whose Arrow form pandas and NumPy get as raw bytes (the 128/256-bit integers and IPv6
# as fixed_size_binary) or cannot convert (Variant's dense union).
_ROWS_ONLY = {*_INT_BYTES, "IPv6", "Variant", "Geometry"}


def rows_only(type_text: str) -> bool:
    """Whether a column of this ClickHouse type is or holds values that pandas and NumPy get
    only as row values (``query_df``/``query_np`` build them as ``query()`` does)."""
    def walk(node: Node) -> bool:
        name, args = _storage(node)
        return name in _ROWS_ONLY or any(walk(a) for a in args if a[0] and not a[0][0] in "'-0123456789")
    return bool(type_text) and walk(parse_type(type_text))


def _json_value(text: Any) -> Any:
    """A JSON or Dynamic value from its JSON text (the text itself if it is no JSON Python reads,
    e.g. ClickHouse's bare ``nan``)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _qbit_values(element: str, dimension: int, planes: Any) -> List[float]:
    """A QBit's vector from its bit planes (its storage, a tuple of FixedString(ceil(d / 8))):
    plane k holds bit (width - 1 - k) of every element, element j at bit j of the plane read as a
    big-endian integer."""
    width = _QBIT[element]
    planes = list(planes.values()) if isinstance(planes, dict) else list(planes)
    numbers = [int.from_bytes(bytes(p), "big") for p in planes]
    bits = [0] * dimension
    for k, n in enumerate(numbers):
        shift = width - 1 - k
        for j in range(dimension):
            if n >> j & 1:
                bits[j] |= 1 << shift
    if element == "Float64":
        return [struct.unpack("<d", struct.pack("<Q", b))[0] for b in bits]
    # BFloat16 is the upper half of a Float32.
    return [struct.unpack("<f", struct.pack("<I", b << 16 if element == "BFloat16" else b))[0] for b in bits]


def _qbit_planes(element: str, dimension: int, v: Any) -> dict:
    """A QBit's bit planes from its vector (the reverse of ``_qbit_values``); a value its element
    type does not hold exactly (beyond Float32's range, a BFloat16 that would be rounded) is
    refused, as for columns of those types."""
    values = list(_sequence(v))
    if len(values) != dimension:
        raise ValueError(f"{v!r} has {len(values)} elements, the QBit {dimension}")
    width = _QBIT[element]
    bits = []
    for x in values:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError(f"{x!r} is not a number")
        if element == "Float64":
            bits.append(struct.unpack("<Q", struct.pack("<d", x))[0])
            continue
        b = struct.unpack("<I", struct.pack("<f", _float32(x)))[0]
        if element == "BFloat16":
            if b & 0xFFFF:
                raise ValueError(f"{x!r} is not exactly a BFloat16 (chwire does not round)")
            b >>= 16
        bits.append(b)
    size = (dimension + 7) // 8
    planes = {}
    for k in range(width):
        shift = width - 1 - k
        n = sum(1 << j for j, b in enumerate(bits) if b >> shift & 1)
        planes[str(k + 1)] = n.to_bytes(size, "big")
    return planes


def _json_text(v: Any) -> Any:
    """A JSON or Dynamic value as the JSON text its Arrow column holds: str and bytes are that
    text already (JSON) or a String value (Dynamic, see ``to_arrow``), others are dumped."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    return v if isinstance(v, str) else json.dumps(v, default=str, separators=(",", ":"))


def _enum_name(names: dict, v: Any) -> Any:
    """An Enum value by its name, or by its number (``Enum8('a' = 1)`` takes 1 for 'a')."""
    if isinstance(v, int) and not isinstance(v, bool):
        if v not in names:
            raise ValueError(f"{v!r} is none of the Enum's values {sorted(names)}")
        return names[v]
    return v


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


def _address_text(text: str, kind: str) -> Any:
    """Address or UUID text as its column stores it, read by the core's parser (as ClickHouse
    reads it, e.g. ``010.0.0.1`` as 10.0.0.1, which ``ipaddress`` refuses)."""
    from ._chwire import parse_address

    value = parse_address(text, kind)
    if value is None:
        shown = text[:64] + ("…" if len(text) > 64 else "")
        raise ValueError(f"{shown!r} is not the text of a {kind}")
    return value


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


def to_arrow(node: Node) -> Conv:
    """A converter from row values to values pyarrow builds arrays of this type from,
    refusing what pyarrow would change silently (1.5 into an integer, a string as an array
    of its characters, a tuple of another length). Variant columns are built by
    ``_arrays.variant`` (pyarrow builds no union from Python values)."""
    name, args = _storage(node)
    if name in ("Nullable", "LowCardinality", "SimpleAggregateFunction") and args:
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
        return _on_values(lambda v: _address_text(v, "IPv4") if isinstance(v, str) else int(ipaddress.IPv4Address(v)))
    if name == "IPv6":
        return _on_values(lambda v: _address_text(v, "IPv6") if isinstance(v, str) else ipaddress.IPv6Address(v).packed)
    if name == "UUID":
        return _on_values(lambda v: _address_text(v, "UUID") if isinstance(v, str) else
                          (v if isinstance(v, uuid.UUID) else uuid.UUID(str(v))).bytes)
    if name in _INT_BYTES:
        width, signed = _INT_BYTES[name]
        return _on_values(lambda v: _exact_int(v).to_bytes(width, "little", signed=signed))
    if name == "FixedString" and args and args[0][0].isdigit():
        return _on_values(functools.partial(_fixed_string, int(args[0][0])))
    if name in ("Enum8", "Enum16"):
        return _on_values(functools.partial(_enum_name, _enum_names(args)))
    if name == "JSON":
        return _on_values(_json_text)
    if name == "Dynamic":
        # A str is a String value (JSON text would be ambiguous: is "1" a number?), None the
        # NULL a Dynamic value may be (`null`; the column itself is not Nullable).
        return lambda v: json.dumps(v, separators=(",", ":")) if v is None or isinstance(v, str) else _json_text(v)
    if name == "QBit" and len(args) == 2 and args[0][0] in _QBIT and args[1][0].isdigit():
        return _on_values(functools.partial(_qbit_planes, args[0][0], int(args[1][0])))
    if name == "Nested":
        return to_arrow(("Array", [("Tuple", args)]))
    if name == "Array" and args:
        inner = to_arrow(args[0])
        if inner is None:
            return _on_values(_sequence)
        return _on_values(lambda xs: [inner(x) for x in _sequence(xs)])
    if name == "Map" and len(args) == 2:
        ck = to_arrow(args[0]) or (lambda x: x)
        cv = to_arrow(args[1]) or (lambda x: x)
        return _on_values(lambda m: [(ck(k), cv(v)) for k, v in (m.items() if isinstance(m, dict) else m)])
    if name == "Tuple":
        names = [a[1][0] if a[0] == "__named__" else str(i + 1) for i, a in enumerate(args)]
        convs = [to_arrow(a) or (lambda x: x) for a in args]

        def tup(v: Any) -> Any:
            if isinstance(v, dict):
                extra = set(v) - set(names)
                if extra:
                    raise ValueError(f"{v!r} has elements the tuple has not: {sorted(extra)}")
                return {n: c(v.get(n)) for n, c in zip(names, convs)}
            if len(_sequence(v)) != len(names):
                raise ValueError(f"{v!r} has {len(v)} elements, the tuple {len(names)}")
            return {n: c(x) for n, c, x in zip(names, convs, v)}

        return _on_values(tup)
    return None


_ENUM_ITEM = re.compile(r"^'((?:[^'\\]|\\.)*)'\s*=\s*(-?\d+)$")


def _enum_names(args: list) -> dict:
    """An Enum type's ``{number: name}`` from its arguments (``'a' = 1``)."""
    names = {}
    for text, _ in args:
        m = _ENUM_ITEM.match(text)
        if m:
            names[int(m.group(2))] = re.sub(r"\\(.)", r"\1", m.group(1))
    return names
