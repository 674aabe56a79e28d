"""Variant columns (Arrow dense unions) between Python rows and Arrow.

pyarrow builds no union array from Python values (``pa.array(values, type=dense_union)`` is
``ArrowNotImplementedError``), and its ``to_pylist`` of a union forgets which member a value
came from, which the member's own fix-ups need (an Int128 arrives as bytes, a Point as a dict).
So ``insert`` builds columns that hold a union here, member by member, and ``query`` reads a
Variant column's rows through the union's type codes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import ipaddress
import uuid
from typing import Any, Callable, List, Optional, Sequence

from . import _chwire, _types
from ._types import Node

# The Python value kinds a Variant member of each type family takes, most fitting first: a
# value goes to the first member (in the Variant's order) of the first family that takes it.
_INT_RANGES = {f"{s}Int{b}": ((0, 2**b - 1) if s else (-(2 ** (b - 1)), 2 ** (b - 1) - 1))
               for s in ("", "U") for b in (8, 16, 32, 64, 128, 256)}
_UNSIGNED = tuple(n for n in _INT_RANGES if n.startswith("U"))
_SIGNED = tuple(n for n in _INT_RANGES if not n.startswith("U"))
_FLOATS = ("Float64", "Float32", "BFloat16")
_STRINGS = ("String", "FixedString", "Enum8", "Enum16", "UUID", "IPv4", "IPv6", "Date", "Date32", "DateTime",
            "DateTime64", "JSON")


def _families(v: Any) -> Sequence[str]:
    """The type families a Python value may be a member of, in order of preference."""
    if isinstance(v, bool):
        return ("Bool", *_UNSIGNED, *_SIGNED)
    if isinstance(v, int):
        # The narrowest integer type that holds it, unsigned first for a count.
        return (*(_UNSIGNED + _SIGNED if v >= 0 else _SIGNED), "Decimal", *_FLOATS)
    if isinstance(v, float):
        return (*_FLOATS, "Decimal")
    if isinstance(v, decimal.Decimal):
        return ("Decimal", *_FLOATS)
    if isinstance(v, (str, bytes)):
        return _STRINGS if isinstance(v, str) else ("String", "FixedString")
    if isinstance(v, dt.datetime):
        return ("DateTime64", "DateTime")
    if isinstance(v, dt.date):
        return ("Date", "Date32", "DateTime", "DateTime64")
    if isinstance(v, dt.timedelta):
        return ("Time", "Time64")
    if isinstance(v, uuid.UUID):
        return ("UUID",)
    if isinstance(v, ipaddress.IPv4Address):
        return ("IPv4",)
    if isinstance(v, ipaddress.IPv6Address):
        return ("IPv6",)
    if isinstance(v, dict):
        return ("Map", "Tuple", "JSON")
    if isinstance(v, tuple):
        return ("Tuple", "Array")
    if isinstance(v, list):
        return ("Array", "Tuple")
    return ()


def _fits(v: Any, node: Node) -> bool:
    """A cheap check that a value of a fitting kind can be a value of ``node``'s type (an
    integer in its range, a string of a FixedString's length, an Enum's name, a tuple's
    length); the member's conversion checks the rest."""
    name, args = _types._storage(node)
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        return lo <= v <= hi
    if name == "FixedString" and args and args[0][0].isdigit():
        return len(v.encode() if isinstance(v, str) else v) <= int(args[0][0])
    if name in ("Enum8", "Enum16"):
        return v in _types._enum_names(args).values()
    if name == "UUID" and isinstance(v, str):
        return _parses(uuid.UUID, v)
    if name in ("IPv4", "IPv6") and isinstance(v, str):
        return _parses(ipaddress.IPv4Address if name == "IPv4" else ipaddress.IPv6Address, v)
    if name in ("Date", "Date32", "DateTime", "DateTime64") and isinstance(v, str):
        return False  # a str is a String; a date is given as a date
    if name == "Tuple" and not isinstance(v, dict):
        return len(v) == len(args)
    return True


def _parses(f: Callable[[str], Any], v: str) -> bool:
    try:
        f(v)
        return True
    except ValueError:
        return False


def _member(v: Any, members: List[Node]) -> Optional[int]:
    """The member a value goes to: by ``_families``, then the Variant's order."""
    names = [_types._storage(m)[0] for m in members]
    for family in _families(v):
        for i, name in enumerate(names):
            if name == family and _fits(v, members[i]):
                return i
    return None


def holds_union(t: Any) -> bool:
    """Whether Arrow type ``t`` is or holds a union."""
    import pyarrow.types as pat

    if pat.is_union(t):
        return True
    if pat.is_map(t):
        return holds_union(t.key_type) or holds_union(t.item_type)
    return any(holds_union(t.field(i).type) for i in range(getattr(t, "num_fields", 0) or 0))


def build(values: List[Any], t: Any, node: Node) -> Any:
    """A pyarrow array of Arrow type ``t`` (ClickHouse type ``node``) from row values, for types
    that hold a Variant; values that fit nothing are a ``ValueError`` naming them."""
    import pyarrow as pa
    import pyarrow.types as pat

    name, args = _types._storage(node)
    if name in ("Nullable", "LowCardinality", "SimpleAggregateFunction") and args:
        return build(values, t, args[-1])
    if name == "Nested":
        return build(values, t, ("Array", [("Tuple", args)]))
    if not holds_union(t):
        conv = _types.to_arrow(node)
        return pa.array([conv(v) for v in values] if conv else values, type=t)
    if pat.is_union(t):
        return _variant(values, t, args)
    mask = pa.array([v is None for v in values], pa.bool_())
    if pat.is_map(t):
        items = [list(v.items()) if isinstance(v, dict) else list(v or ()) for v in values]
        offsets = _offsets(items)
        flat = [kv for kvs in items for kv in kvs]
        keys = build([k for k, _ in flat], t.key_type, args[0])
        vals = build([x for _, x in flat], t.item_type, args[1])
        return pa.MapArray.from_arrays(offsets, keys, vals, type=t, mask=mask)
    if pat.is_list(t) or pat.is_large_list(t):
        lists = [list(_types._sequence(v)) if v is not None else [] for v in values]
        child = build([x for xs in lists for x in xs], t.value_type, args[0])
        offsets = pa.array(_offsets(lists), pa.int64() if pat.is_large_list(t) else pa.int32())
        cls = pa.LargeListArray if pat.is_large_list(t) else pa.ListArray
        return cls.from_arrays(offsets, child, type=t, mask=mask)
    if pat.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        rows = [_tuple_items(v, names) for v in values]
        children = [build([r[i] for r in rows], t.field(i).type, args[i]) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    raise ValueError(f"chwire cannot build {t} from Python values: use insert_arrow")


def _offsets(lists: List[list]) -> List[int]:
    out = [0]
    for xs in lists:
        out.append(out[-1] + len(xs))
    return out


def _tuple_items(v: Any, names: List[str]) -> list:
    if v is None:
        return [None] * len(names)
    if isinstance(v, dict):
        extra = set(v) - set(names)
        if extra:
            raise ValueError(f"{v!r} has elements the tuple has not: {sorted(extra)}")
        return [v.get(n) for n in names]
    items = list(_types._sequence(v))
    if len(items) != len(names):
        raise ValueError(f"{v!r} has {len(items)} elements, the tuple {len(names)}")
    return items


def _variant(values: List[Any], t: Any, members: List[Node]) -> Any:
    """A dense union of Variant members (its last member, if the Arrow type has one more than
    the Variant, the NULL one)."""
    import pyarrow as pa

    if t.num_fields not in (len(members), len(members) + 1):
        raise ValueError(f"the Arrow type {t} does not match the Variant's {len(members)} types")
    null_member = len(members) if t.num_fields > len(members) else None
    children: List[list] = [[] for _ in range(t.num_fields)]
    codes, offsets = [], []
    for v in values:
        i = null_member if v is None else _member(v, members)
        if i is None:
            what = "NULL (the Variant type has no NULL member)" if v is None else f"{v!r} ({type(v).__name__})"
            raise ValueError(f"{what} is none of the Variant's types")
        codes.append(t.type_codes[i])
        offsets.append(len(children[i]))
        children[i].append(v)
    arrays = [pa.nulls(len(children[i]), t.field(i).type) if i == null_member else
              build(children[i], t.field(i).type, members[i]) for i in range(t.num_fields)]
    return pa.Array.from_buffers(t, len(values), [None, pa.array(codes, pa.int8()).buffers()[1],
                                                  pa.array(offsets, pa.int32()).buffers()[1]], children=arrays)


def column_values(col: Any, type_text: str) -> list:
    """The row values of a result column (a ``pyarrow.ChunkedArray``) of ClickHouse type
    ``type_text``."""
    node = _types.parse_type(type_text) if type_text else ("", [])
    kind = _objects_kind(node)
    if kind:
        values: list = []
        for chunk in col.chunks:
            values.extend(_chwire.column_objects(getattr(chunk, "storage", chunk), kind))
        return values
    name, args = _types._storage(node)
    if name in ("Variant", "Geometry"):
        import pyarrow.types as pat

        if pat.is_union(col.type):
            return [v for chunk in col.chunks for v in _union_values(chunk, args if name == "Variant" else None)]
    values = col.to_pylist()
    conv = _types.to_python(node) if type_text else None
    return [conv(v) for v in values] if conv else values


def objects_kind(type_text: str) -> Optional[str]:
    """"UUID" or "IPv6" for a column of that type (or Nullable of it) whose objects are built a
    column at a time (``_chwire.column_objects``), else None."""
    return _objects_kind(_types.parse_type(type_text)) if type_text else None


def _objects_kind(node: Node) -> Optional[str]:
    name, args = _types._storage(node)
    if name == "Nullable" and args:
        name, args = _types._storage(args[-1])
    return name if name in ("UUID", "IPv6") and not args and _objects_match(name) else None


@functools.lru_cache(maxsize=None)
def _objects_match(kind: str) -> bool:
    """Whether ``_chwire.column_objects`` builds the objects the constructors build on this
    Python (same value, text, hash and pickle; no ``__dict__``): it sets the slots the classes'
    constructors set, and another Python's classes could keep others."""
    import pickle

    import pyarrow as pa

    raw = bytes(range(0xF0, 0x100))  # the top bit set: an unsigned 128-bit value
    try:
        got, null = _chwire.column_objects(pa.array([raw, None], pa.binary(16)), kind)
    except Exception:  # an interpreter whose classes refuse the slots: the constructors then
        return False
    want = uuid.UUID(bytes=raw) if kind == "UUID" else ipaddress.IPv6Address(raw)
    # No __dict__ (slots only): the objects are left out of the garbage collector's walks,
    # which is right only for objects that can hold no reference cycle.
    return (null is None and type(got) is type(want) and got == want and str(got) == str(want)
            and hash(got) == hash(want) and pickle.dumps(got) == pickle.dumps(want)
            and not hasattr(got, "__dict__"))


def _union_values(arr: Any, members: Optional[List[Node]]) -> list:
    """A union array's values, each converted by its member's type (``members``: the Variant's
    types; None: the members' field names, which name them, as Geometry's do)."""
    t = arr.type
    if members is None:
        members = [_types.parse_type(t.field(i).name) for i in range(t.num_fields)]
    convs = [_types.to_python(members[i]) if i < len(members) else None for i in range(t.num_fields)]
    children = [arr.field(i).to_pylist() for i in range(t.num_fields)]
    children = [[c(x) for x in xs] if c else xs for xs, c in zip(children, convs)]
    position = {code: i for i, code in enumerate(t.type_codes)}
    codes = arr.type_codes.to_pylist()
    if t.mode == "dense":
        return [children[position[c]][o] for c, o in zip(codes, arr.offsets.to_pylist())]
    return [children[position[c]][r] for r, c in enumerate(codes)]


def _storage_type(t: Any) -> Any:
    """``t`` with every extension type (JSON and Dynamic are ``arrow.json``) as its storage."""
    import pyarrow as pa

    if isinstance(t, pa.BaseExtensionType):
        return _storage_type(t.storage_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        item = pa.field(t.value_field.name, _storage_type(t.value_type), t.value_field.nullable)
        return pa.large_list(item) if pa.types.is_large_list(t) else pa.list_(item)
    if pa.types.is_map(t):
        return pa.map_(pa.field(t.key_field.name, _storage_type(t.key_type), False),
                       pa.field(t.item_field.name, _storage_type(t.item_type), t.item_field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _storage_type(f.type), f.nullable, f.metadata) for f in t])
    return t


def plain(values: List[Any], t: Any) -> Any:
    """``pyarrow.array(values, type=t)``, also where ``t`` holds an extension type inside a list,
    map or struct (``Array(Dynamic)``, ``Tuple(a JSON)``), which pyarrow does not build from
    Python values (``ArrowNotImplementedError: extension``): built as its storage, then viewed
    as ``t`` (the same buffers)."""
    import pyarrow as pa

    storage = _storage_type(t)
    if storage == t or isinstance(t, pa.BaseExtensionType):
        return pa.array(values, type=t)
    return pa.array(values, type=storage).view(t)
