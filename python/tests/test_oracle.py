"""ClickHouse 26.9 (chdb) as the oracle: every type of the Arrow conformance queries
(tests/oracle/arrow_fixture.py) decodes from chdb's Native bytes with chwire.read_native, in
both mappings; in the "clickhouse" mapping the result equals chdb's own ArrowStream output
(types and values), apart from the deviations listed below with their reasons."""

import glob
import os
import subprocess

import pyarrow as pa
import pytest

import chwire

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE_PY = os.environ.get("CHWIRE_ORACLE_PYTHON", os.path.join(ROOT, "build", "oracle-venv", "bin", "python"))

# (query number, column): why chwire's value or type differs from chdb's Arrow output.
KNOWN = {
    (3, "u0"): "generateUUIDv4() draws new UUIDs for each of chdb's two runs (Native, Arrow)",
    (17, "s"): "ClickHouse 26.9 writes AggregateFunction states to Arrow as raw memory addresses",
    (17, "g"): "ClickHouse 26.9 writes AggregateFunction states to Arrow as raw memory addresses",
    (17, "u"): "ClickHouse 26.9 writes AggregateFunction states to Arrow as raw memory addresses",
}


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    if not os.path.exists(ORACLE_PY):
        pytest.skip(f"no chdb oracle venv at {ORACLE_PY} (scripts/oracle-venv.sh makes it)")
    out = tmp_path_factory.mktemp("chdb")
    subprocess.run([ORACLE_PY, os.path.join(os.path.dirname(__file__), "chdb_dump.py"), str(out)], check=True)
    cases = sorted(glob.glob(str(out / "*.native")))
    assert len(cases) >= 20
    return cases


def _normalize(t: pa.DataType) -> pa.DataType:
    """Types compared up to what Arrow leaves open: the nullability of null-typed members (a
    Null array has only nulls either way) and union members' names (the type ids decide)."""
    if pa.types.is_null(t):
        return t
    if pa.types.is_union(t):
        fields = [pa.field(str(i), _normalize(t.field(i).type), True) for i in range(t.num_fields)]
        return pa.dense_union(fields, list(t.type_codes)) if t.mode == "dense" else pa.sparse_union(fields, list(t.type_codes))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _normalize(f.type), f.nullable or pa.types.is_null(f.type)) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        f = t.value_field
        item = pa.field(f.name, _normalize(f.type), f.nullable or pa.types.is_null(f.type))
        return pa.list_(item) if pa.types.is_list(t) else pa.large_list(item)
    if pa.types.is_map(t):
        return pa.map_(_normalize(t.key_type), pa.field("value", _normalize(t.item_type), t.item_field.nullable))
    return t


def test_every_type_matches_clickhouse_arrow(dumps):
    compared = 0
    for native in dumps:
        case = int(os.path.basename(native)[:3])
        data = open(native, "rb").read()
        rich = chwire.read_native(data)
        mine = chwire.read_native(data, mapping="clickhouse")
        assert rich.num_rows == mine.num_rows
        arrow = native[:-len("native")] + "arrow"
        if not os.path.exists(arrow):
            assert os.path.exists(arrow + ".refused"), native
            continue
        raw = open(arrow, "rb").read()
        if not raw:  # no rows: chdb writes nothing at all
            assert mine.num_rows == 0
            continue
        theirs = pa.ipc.open_stream(raw).read_all()
        if not data:  # chdb writes no Native block at all for an empty result
            assert theirs.num_rows == 0 and mine.num_columns == 0
            continue
        assert mine.column_names == theirs.column_names
        for name in theirs.column_names:
            if (case, name) in KNOWN:
                continue
            a, b = mine.column(name), theirs.column(name)
            assert _normalize(a.type) == _normalize(b.type), (case, name, a.type, b.type)
            assert a.to_pylist() == b.to_pylist(), (case, name)
            compared += 1
    assert compared >= 60


def test_read_native_rejects_garbage():
    with pytest.raises(chwire.Error):
        chwire.read_native(b"\x01\x01\x01a\x07NoSuchT\x00")
    with pytest.raises(chwire.Error):
        chwire.read_native(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")
