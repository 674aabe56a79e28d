"""Arrow columns named like a target type before a cast.

ClickHouse Tuples are positional and Spark structs are named, but Arrow's cast of a struct
matches fields by name and makes a field it cannot find all NULL. Before any cast, a column's
struct fields (also inside lists and maps) take the target's names by position: a view, no
copy. Structs with a different number of fields keep their names, and the cast refuses them.
"""

from __future__ import annotations

from typing import Any


def _renamed(src: Any, dst: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_struct(src) and pa.types.is_struct(dst) and src.num_fields == dst.num_fields:
        return pa.struct([pa.field(dst.field(i).name, _renamed(src.field(i).type, dst.field(i).type),
                                   src.field(i).nullable, src.field(i).metadata)
                          for i in range(src.num_fields)])
    if pa.types.is_map(src) and pa.types.is_map(dst):
        return pa.map_(src.key_field.with_type(_renamed(src.key_type, dst.key_type)),
                       src.item_field.with_type(_renamed(src.item_type, dst.item_type)),
                       src.keys_sorted)
    lists = (pa.types.is_list(src) or pa.types.is_large_list(src) or pa.types.is_fixed_size_list(src))
    if lists and (pa.types.is_list(dst) or pa.types.is_large_list(dst) or pa.types.is_fixed_size_list(dst)):
        inner = src.value_field.with_type(_renamed(src.value_type, dst.value_type))
        if pa.types.is_large_list(src):
            return pa.large_list(inner)
        if pa.types.is_fixed_size_list(src):
            return pa.list_(inner, src.list_size)
        return pa.list_(inner)
    return src


def named_type(src: Any, dst: Any) -> Any:
    """Type `src` with its struct fields named as in `dst` by position; None when no name
    changes (the column is cast as it is)."""
    t = _renamed(src, dst)
    return None if t.equals(src, check_metadata=True) else t


def named_like(col: Any, target: Any) -> Any:
    """`col` (an Array or ChunkedArray) with its struct fields named as in `target` by position."""
    import pyarrow as pa

    t = named_type(col.type, target)
    if t is None:
        return col
    if isinstance(col, pa.ChunkedArray):
        return pa.chunked_array([c.view(t) for c in col.chunks], type=t)
    return col.view(t)
