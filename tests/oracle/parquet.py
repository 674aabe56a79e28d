"""Parquet and Arrow files against ClickHouse 26.9 (chdb) and pyarrow, for every conformance case
of cases.py (chdb writes the case's Native bytes; chwire converts them):

  pq-types   chwire's clickhouse-mode Parquet has the logical column types of chdb's own
             `FORMAT Parquet` (physical storage and list element names may differ);
  pq-values  and the same values, both files read by pyarrow;
  arrow-types, arrow-values  the same for chwire's clickhouse-mode Arrow file and chdb's
             `FORMAT Arrow` (Arrow types compared exactly);
  readback   chdb reads chwire's Parquet (both mappings) and Arrow IPC files back into the case's
             own column types (`file(f, Parquet, structure)`) to the case's rows;
  self       chwire converts its own Parquet (both mappings), Arrow and ArrowStream files back to
             the identical Native bytes (Parquet: the same RowBinaryWithNamesAndTypes bytes from
             chdb, as Parquet readers cut blocks at their batch size, not at the writer's blocks);
  reverse    Parquet, Arrow and ArrowStream written by chdb, and Parquet written by pyarrow,
             convert to Native blocks that chdb reads back to what it reads from those files;
  foreign    the same for the Parquet files of other writers in tests/oracle/data (DuckDB's);
  pyarrow    pyarrow reads every file chwire writes (Parquet in both mappings, Arrow, ArrowStream)
             to the values it reads from chwire's Arrow file of the same mapping (Parquet's
             own forms undone: timestamps in ms, dictionaries of fixed-size binary as values,
             a Variant's struct as its one member set);
  duckdb     DuckDB reads chwire's Parquet (both mappings) to the values pyarrow reads.

Checks a case cannot pass for a known reason (a ClickHouse type without an Arrow mapping, and
the list EXPECTED: limitations of ClickHouse 26.9, pyarrow or
arrow-rs, and chwire's documented choices, each with its reason) are reported as KNOWN with the reason; anything else is a FAIL and the
exit status is 1. Prints `parquet oracle: N passed, M failed` (checks), plus the KNOWN count.

    build/oracle-venv/bin/python tests/oracle/parquet.py --chwire target/release/chwire [-k SUBSTRING[,SUBSTRING...]]
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cases  # noqa: E402
from arrow import json_text_back  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from chdb import session  # noqa: E402
import duckdb  # noqa: E402

TIMEOUT = 120

# Where chwire's clickhouse-mapping Parquet still differs from ClickHouse 26.9's own, by the
# chdb Parquet logical type of the column: nowhere. (DateTime as timestamp[ms] and Enum as its
# names with the ENUM annotation, where ClickHouse's Parquet writer differs from its Arrow
# writer, chwire follows since 2026-11-27.)
PARQUET_WRITER_DIFFERS: list = []


# Checks that cannot pass for a reason outside chwire (a limitation of ClickHouse 26.9/chdb,
# pyarrow or arrow-rs) or a documented choice of chwire (docs/ARROW.md): (case, check, detail)
# patterns and the reason. A failing check matching one is KNOWN with its reason, not a FAIL.
EXPECTED = [
    (r"", r"^write ", r"is not valid UTF-8",
     "documented refusal: a String value that is not UTF-8 cannot go into an Arrow utf8 array (string_as_string=0 writes binary)"),
    (r"^geo/", r"^pq-(types|values)$", r"",
     "ClickHouse's Parquet writer stores geo types as WKB strings (its 'geo' metadata); chwire (and ClickHouse's Arrow writer) as their storage, structs and lists"),
    (r"^qbit/", r"^readback ", r"QBit",
     "ClickHouse 26.9 casts only String/Array to QBit, not the bit-plane struct chwire writes (documented)"),
    (r"^aggregate/", r"^arrow-values$", r"",
     "ClickHouse 26.9's Arrow writer writes the memory addresses of aggregate states, not the states (chwire writes the states)"),
    (r"^aggregate/", r"^reverse chdb Arrow", r"",
     "ClickHouse 26.9's Arrow file holds memory addresses of aggregate states: nothing to compare"),
    (r"^aggregate/", r"^readback ", r"",
     "ClickHouse parses Arrow/Parquet binary into AggregateFunction as text, not as the serialized state (documented)"),
    (r"^geometry/", r"^(readback|reverse chdb)", r"multiple children mapping to the same ClickHouse type",
     "Geometry's Ring and LineString map to one Arrow type; ClickHouse refuses such unions, its own output included (documented)"),
    (r"^bfloat16/", r"^readback (Parquet|Arrow)/clickhouse$", r"",
     "ClickHouse 26.9 writes BFloat16 to Arrow as 2-byte binary but cannot read that back (parses it as text)"),
    (r"^time", r"^write (Parquet|Arrow)/clickhouse$", r"does not fit Arrow's 32-bit time",
     "documented: Time/Time64 values outside a day have no Arrow time32/time64 value (ClickHouse 26.9 refuses them too)"),
    (r"^time", r"^readback Arrow(Stream)?/", r"Conversion from Interval|Unsupported data type in conversion function",
     "ClickHouse reads durations as intervals and time32[s] as Time64(0), and casts neither to Time/Time64"),
    (r"^time", r"^readback Parquet/", r"",
     "Parquet has no duration type (rich Time/Time64 are plain int64, which ClickHouse saturates as seconds) and ClickHouse's "
     "reader wraps Parquet TIME values into one day"),
    (r"", r"^readback Parquet/", r"Conversion from (Int32|UInt8) to Nothing",
     "Parquet has no null type: arrow-rs writes Nothing as an all-NULL int32 column (or uint8 map keys, documented), which ClickHouse does not cast to Nothing"),
    (r"", r"^readback Arrow(Stream)?/", r"Conversion from UInt8 to Nothing",
     "documented: Map(Nothing, ...) keys are uint8 (Arrow map keys cannot be null), which ClickHouse does not cast to Nothing"),
    (r"", r"^reverse chdb Arrow", r"does not support the `null` type in schema inference",
     "chdb cannot infer the schema of its own Arrow file with a null type (Nothing)"),
    (r"^tuple/empty$", r"", r"",
     "Parquet has no empty groups (arrow-rs and ClickHouse refuse them); chdb reads its own empty struct back as an empty named tuple"),
    (r"^tuple/nullable_tuple$", r"^reverse ", r"NULL does not fit the non-Nullable type",
     "a nullable struct of other writers infers as Tuple, which has no NULL (Nullable(Tuple) is experimental in ClickHouse 26.9)"),
    (r"^json_shared/(many_types_max_dynamic_paths_1|max_dynamic_paths_0)$", r"^readback ", r"",
     "ClickHouse 26.9 parses the JSON text -0 as 0 (its own Arrow output read back loses the sign too)"),
    (r"^dynamic", r"^readback ", r"",
     "ClickHouse 26.9 reads JSON text into Dynamic as String values holding that text (its own Arrow output too); chwire "
     "infers the values' types (the self check)"),
    (r"^map/basic$", r"", r"",
     "Map(Nothing, Nothing): documented uint8 keys; chdb cannot infer its own map<null, null> file"),
    (r"", r"^readback Parquet/", r"parquet type is Tuple, requested type is (Variant|Geometry)",
     "Parquet has no union: chwire writes a Variant as a struct of its members (documented), which ClickHouse 26.9 reads as a "
     "Tuple and does not cast to Variant (it cannot write Variant to Parquet at all); chwire reads it back (self), pyarrow and DuckDB read the members"),
    (r"^geometry/", r"^pq-(types|values)$", r"",
     "ClickHouse's Parquet writer stores Geometry as WKB strings; chwire writes the Variant's struct of members (documented)"),
    (r"^decimal/Decimal256", r"^duckdb Parquet/", r"",
     "DuckDB's DECIMAL holds at most 38 digits: it reads wider Parquet decimals as DOUBLE, rounded"),
    (r"^time", r"^duckdb Parquet/", r"TIME values must be within a day",
     "DuckDB refuses Parquet TIME values outside a day, which ClickHouse's Time/Time64 have (ClickHouse's reader wraps them)"),
]


def readable_arrow_file(data):
    """Whether pyarrow reads `data` as an Arrow IPC file."""
    try:
        pa.ipc.open_file(io.BytesIO(data)).read_all()
        return True
    except Exception:
        return False


def expected_difference(case, check, detail):
    for c, k, d, why in EXPECTED:
        if re.search(c, case) and re.search(k, check) and re.search(d, detail):
            return why
    return None


def comparable(t):
    """`t` with durations as int64 (Python's timedelta overflows) and zoned timestamps in UTC
    (ClickHouse's Parquet writer keeps no zone: the instants are compared), at any depth."""
    if pa.types.is_duration(t):
        return pa.int64()
    if pa.types.is_timestamp(t) and t.tz:
        return pa.timestamp(t.unit, "UTC")
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and comparable(t.value_type) != t.value_type:
        make = pa.list_ if pa.types.is_list(t) else pa.large_list
        return make(pa.field(t.value_field.name, comparable(t.value_type), t.value_field.nullable))
    if pa.types.is_struct(t) and any(comparable(f.type) != f.type for f in t):
        return pa.struct([pa.field(f.name, comparable(f.type), f.nullable) for f in t])
    return t


def plain(table):
    """Rows of a table for comparison (types made `comparable`)."""
    cols = []
    for f, col in zip(table.schema, table.columns):
        want = comparable(f.type)
        cols.append(col if want == f.type else col.cast(want))
    return pa.table(cols, names=table.column_names).to_pylist()


def fold(t):
    """An Arrow type name without nullability flags of nested members (physical, documented)."""
    return str(t).replace(" not null", "")


def run(args, data=None):
    try:
        p = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace").strip()
    except subprocess.TimeoutExpired:
        return None, b"", "timeout"


def leaves(path):
    """(column path with list naming normalised, logical type) of a Parquet file's leaves."""
    out = []
    for c in pq.ParquetFile(path).schema:
        p = re.sub(r"\.list\.(item|element)", ".list.element", c.path)
        p = re.sub(r"\.(key_value|entries)\.", ".kv.", p)
        out.append((p, str(c.logical_type)))
    return out


def chdb_json(db, sql):
    return db.query(sql, "JSONEachRow").bytes()


def q(path):
    return path.replace("\\", "\\\\").replace("'", "\\'")


class Case:
    def __init__(self, name):
        self.name = name
        self.results = []  # (check, status, detail): status PASS / FAIL / KNOWN

    def add(self, check, ok, detail="", known=None):
        known = known or (None if ok else expected_difference(self.name, check, detail))
        if ok:
            self.results.append((check, "PASS", ""))
        elif known:
            self.results.append((check, "KNOWN", known))
        else:
            self.results.append((check, "FAIL", detail[:400]))


def no_mapping(err):
    """The reason a conversion cannot exist (types without an Arrow or Parquet mapping)."""
    if "no Arrow mapping" in err:
        return "no Arrow mapping: " + re.sub(r"column \S+: ", "", err.splitlines()[-1])[:200]
    return None


def read_arrow(path):
    """An Arrow IPC file or stream, as pyarrow reads it."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return pa.ipc.open_file(io.BytesIO(data)).read_all()
    except pa.ArrowInvalid:
        return pa.ipc.open_stream(io.BytesIO(data)).read_all()


def aligned(v, arrow_t, pq_t):
    """A Python value of Arrow type `arrow_t` (chwire's Arrow file) as the Parquet file holds
    it as `pq_t`: a union (Variant) is a struct with its one member set, the rest as it is."""
    if v is None:
        return None
    if pa.types.is_union(arrow_t) and pa.types.is_struct(pq_t):
        return v  # the struct side is reduced to its member set (see `variant_value`)
    if (pa.types.is_list(arrow_t) or pa.types.is_large_list(arrow_t) or pa.types.is_fixed_size_list(arrow_t)) and \
            hasattr(pq_t, "value_type"):
        return [aligned(x, arrow_t.value_type, pq_t.value_type) for x in v]
    if pa.types.is_map(arrow_t) and pa.types.is_map(pq_t):
        return [(aligned(k, arrow_t.key_type, pq_t.key_type), aligned(x, arrow_t.item_type, pq_t.item_type)) for k, x in v]
    if pa.types.is_struct(arrow_t) and pa.types.is_struct(pq_t) and arrow_t.num_fields == pq_t.num_fields:
        return {f.name: aligned(v[f.name], f.type, g.type) for f, g in zip(arrow_t, pq_t)}
    return v


def variant_value(v, arrow_t, pq_t):
    """A Python value of the Parquet file's `pq_t` with each Variant's struct (a union in the
    Arrow file's `arrow_t`) as its one member set (None when none is); two set is an error."""
    if v is None:
        return None
    if pa.types.is_union(arrow_t) and pa.types.is_struct(pq_t):
        members = [f for f in arrow_t if not pa.types.is_null(f.type)]
        set_ = [(f, g) for f, g in zip(members, pq_t) if v[g.name] is not None]
        if len(set_) > 1:
            raise ValueError(f"a Variant struct with {len(set_)} members set: {v}")
        return variant_value(v[set_[0][1].name], set_[0][0].type, set_[0][1].type) if set_ else None
    if (pa.types.is_list(arrow_t) or pa.types.is_large_list(arrow_t) or pa.types.is_fixed_size_list(arrow_t)) and \
            hasattr(pq_t, "value_type"):
        return [variant_value(x, arrow_t.value_type, pq_t.value_type) for x in v]
    if pa.types.is_map(arrow_t) and pa.types.is_map(pq_t):
        return [(k, variant_value(x, arrow_t.item_type, pq_t.item_type)) for k, x in v]
    if pa.types.is_struct(arrow_t) and pa.types.is_struct(pq_t) and arrow_t.num_fields == pq_t.num_fields:
        return {g.name: variant_value(v[g.name], f.type, g.type) for f, g in zip(arrow_t, pq_t)}
    return v


def has_union(t):
    if pa.types.is_union(t):
        return True
    if hasattr(t, "value_type") and not pa.types.is_dictionary(t):
        return has_union(t.value_type)
    if pa.types.is_map(t):
        return has_union(t.key_type) or has_union(t.item_type)
    if pa.types.is_struct(t):
        return any(has_union(f.type) for f in t)
    return False


def parquet_as_arrow(pq_table, arrow_table):
    """Rows of chwire's Parquet file (pyarrow) and of its Arrow file of the same mapping, each
    made comparable: Arrow's types cast to Parquet's (timestamps in ms, dictionaries of
    fixed-size binary as values), Variants compared by their values."""
    a_cols, p_cols = [], []
    for f, g, a, p in zip(arrow_table.schema, pq_table.schema, arrow_table.columns, pq_table.columns):
        if has_union(f.type):
            a_cols.append([aligned(x, f.type, g.type) for x in a.to_pylist()])
            p_cols.append([variant_value(x, f.type, g.type) for x in p.to_pylist()])
            continue
        if f.type != g.type:
            a = a.cast(g.type)
        t = pa.table([a, p], names=["a", "p"])
        rows = plain(t)
        a_cols.append([r["a"] for r in rows])
        p_cols.append([r["p"] for r in rows])
    return list(zip(*a_cols)) if a_cols else [], list(zip(*p_cols)) if p_cols else []


def relaxed(t):
    """`t` with every nested field nullable (DuckDB has no required members: a NULL struct
    holds NULL members), at any depth."""
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, relaxed(f.type), True) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        make = pa.list_ if pa.types.is_list(t) else pa.large_list
        return make(pa.field(t.value_field.name, relaxed(t.value_type), True))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, relaxed(t.value_type), True), t.list_size)
    if pa.types.is_map(t):
        return pa.map_(t.key_type, pa.field(t.item_field.name, relaxed(t.item_type), True))
    return t


def storage_type(t):
    """`t` with extension types as their storage types, at any depth (the same layout)."""
    if isinstance(t, pa.BaseExtensionType):
        return storage_type(t.storage_type)
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, storage_type(f.type), f.nullable) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        make = pa.list_ if pa.types.is_list(t) else pa.large_list
        return make(pa.field(t.value_field.name, storage_type(t.value_type), t.value_field.nullable))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, storage_type(t.value_type), t.value_field.nullable), t.list_size)
    if pa.types.is_map(t):
        return pa.map_(pa.field(t.key_field.name, storage_type(t.key_type), False),
                       pa.field(t.item_field.name, storage_type(t.item_type), t.item_field.nullable))
    return t


def duckdb_rows(path, like):
    """DuckDB's rows of a Parquet file (UUIDs as arrow.uuid, `arrow_lossless_conversion`) and
    pyarrow's `like` of it, both cast to pyarrow's types with nested fields nullable."""
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET arrow_lossless_conversion = true")
        t = con.sql(f"SELECT * FROM read_parquet('{path.replace(chr(39), chr(39) * 2)}')").to_arrow_table()
    finally:
        con.close()
    def storage(c):  # a column with extension types (arrow.uuid, arrow.json) at any depth as their storage
        st = storage_type(c.type)
        return c if st == c.type else pa.chunked_array([x.view(st) for x in c.chunks], st)

    cols, mine = [], []
    for c, m in zip(t.columns, like.columns):
        c, m = storage(c), storage(m)
        want = relaxed(m.type)
        cols.append(c if c.type == want else c.cast(want))
        mine.append(m if m.type == want else m.cast(want))
    return plain(pa.table(cols, names=like.column_names)), plain(pa.table(mine, names=like.column_names))


def check(db, chwire, tmp, name, sql):
    c = Case(name)
    native = db.query(sql, "Native").bytes()
    if not native:
        c.add("case", False, known="chdb writes no block for an empty result: no columns, so no file to write")
        return c
    nat = os.path.join(tmp, "in.native")
    with open(nat, "wb") as f:
        f.write(native)
    desc = [json.loads(line) for line in db.query(f"DESCRIBE ({sql})", "JSONEachRow").bytes().decode().splitlines() if line]
    structure = ", ".join("`" + d["name"].replace("\\", "\\\\").replace("`", "\\`") + "` " + d["type"] for d in desc)
    if len({d["name"] for d in desc}) != len(desc):
        c.add("case", False, known="duplicate column names: chdb cannot read such a file back (as with Native)")
        return c
    expected = chdb_json(db, sql)
    as_json_text = any(t in d["type"] for d in desc for t in ("Dynamic", "JSON"))
    tz = json.loads(chdb_json(db, "SELECT timezone() AS tz"))["tz"]  # the zone of DateTime without one, as a server's
    settings = ("SETTINGS schema_inference_use_cache_for_file=0, max_threads=1, input_format_parallel_parsing=0, "
                "allow_suspicious_fixed_string_types=1, allow_suspicious_variant_types=1, allow_suspicious_low_cardinality_types=1, "
                "flatten_nested=0")

    # chwire's files: Parquet in both mappings, Arrow and ArrowStream (rich).
    ours = {}
    for fmt, types in [("Parquet", "clickhouse"), ("Parquet", "rich"), ("Arrow", "rich"), ("ArrowStream", "rich"),
                       ("Arrow", "clickhouse")]:
        path = os.path.join(tmp, f"ours-{types}.{fmt}")
        code, _, err = run([chwire, "convert", "--from", "native", "--to", fmt, "--arrow-types", types, "--timezone", tz,
                            "-i", nat, "-o", path])
        key = f"{fmt}/{types}"
        if code != 0:
            c.add(f"write {key}", False, err, known=no_mapping(err))
            continue
        ours[key] = path

    # pq-types and pq-values against chdb's own Parquet.
    theirs_pq = os.path.join(tmp, "theirs.parquet")
    try:
        with open(theirs_pq, "wb") as f:
            f.write(db.query(sql, "Parquet").bytes())
    except Exception as e:  # ClickHouse cannot write some types to Parquet
        theirs_pq = None
        why = re.sub(r"of column '[^']*' ", "", str(e).splitlines()[0]).split("DB::Exception: ")[-1][:160]
        c.add("pq-types", False, known=f"chdb cannot write this as Parquet: {why}")
    if theirs_pq and "Parquet/clickhouse" in ours:
        a, b = leaves(ours["Parquet/clickhouse"]), leaves(theirs_pq)
        diffs = [(x, y) for x, y in zip(a, b) if x != y] + ([("columns", f"{len(a)} vs {len(b)}")] if len(a) != len(b) else [])
        known = None
        if diffs and all(any(p.search(y[1]) for p, _ in PARQUET_WRITER_DIFFERS) for _, y in diffs if isinstance(y, tuple)):
            known = "; ".join(sorted({why for _, y in diffs for p, why in PARQUET_WRITER_DIFFERS if isinstance(y, tuple) and p.search(y[1])}))
        c.add("pq-types", not diffs, f"ours vs chdb: {diffs[:3]}", known=known)
        try:
            va, vb = plain(pq.read_table(ours["Parquet/clickhouse"])), plain(pq.read_table(theirs_pq))
            c.add("pq-values", repr(va) == repr(vb), f"first rows: ours {repr(va)[:150]} chdb {repr(vb)[:150]}", known=known)
        except Exception as e:
            c.add("pq-values", False, f"pyarrow: {e}")

    # arrow-types/arrow-values: chwire's clickhouse-mode Arrow file against chdb's FORMAT Arrow.
    if "Arrow/clickhouse" in ours:
        try:
            theirs_arrow = pa.ipc.open_file(io.BytesIO(db.query(sql, "Arrow").bytes())).read_all()
        except Exception as e:  # noqa: BLE001
            theirs_arrow = None
            c.add("arrow-types", False, known=f"chdb cannot write this as Arrow: {str(e).splitlines()[0][:160]}")
        if theirs_arrow is not None:
            mine = pa.ipc.open_file(ours["Arrow/clickhouse"]).read_all()
            ta = [(f.name, fold(f.type)) for f in mine.schema]
            tb = [(f.name, fold(f.type)) for f in theirs_arrow.schema]
            c.add("arrow-types", ta == tb, f"ours {[x for x in ta if x not in tb][:3]} chdb {[x for x in tb if x not in ta][:3]}")
            va, vb = repr(plain(mine)), repr(plain(theirs_arrow))
            c.add("arrow-values", va == vb, f"ours {va[:150]} chdb {vb[:150]}")

    # pyarrow reads every file chwire writes, Parquet to the values of the Arrow file of the
    # same mapping; DuckDB reads the Parquet files to the values pyarrow reads.
    tables = {}
    for key, path in ours.items():
        try:
            t = pq.read_table(path) if key.startswith("Parquet") else read_arrow(path)
            plain(t)
            tables[key] = t
        except Exception as e:  # noqa: BLE001
            c.add(f"pyarrow {key}", False, f"pyarrow: {type(e).__name__}: {str(e)[:300]}")
            continue
        if not key.startswith("Parquet"):
            c.add(f"pyarrow {key}", True)
    for key in [k for k in tables if k.startswith("Parquet")]:
        mapping = key.split("/")[1]
        arrow = tables.get(f"Arrow/{mapping}")
        if arrow is None or (mapping == "clickhouse" and theirs_pq):
            # Read; the values of the clickhouse mapping's Parquet (DateTime and Enum as
            # ClickHouse's Parquet writer has them) are those of chdb's Parquet (pq-values).
            c.add(f"pyarrow {key}", True)
        else:
            try:
                va, vp = parquet_as_arrow(tables[key], arrow)
                c.add(f"pyarrow {key}", repr(va) == repr(vp), f"Arrow {repr(va)[:150]} Parquet {repr(vp)[:150]}")
            except Exception as e:  # noqa: BLE001
                c.add(f"pyarrow {key}", False, f"comparing with Arrow/{mapping}: {type(e).__name__}: {str(e)[:300]}")
        try:
            vd, vp = duckdb_rows(ours[key], tables[key])
            c.add(f"duckdb {key}", repr(vd) == repr(vp), f"DuckDB {repr(vd)[:150]} pyarrow {repr(vp)[:150]}")
        except Exception as e:  # noqa: BLE001
            c.add(f"duckdb {key}", False, f"DuckDB: {type(e).__name__}: {str(e)[:300]}")

    # readback: chdb reads chwire's files into the case's own types.
    for key, path in ours.items():
        fmt = key.split("/")[0]
        try:
            got = chdb_json(db, f"SELECT * FROM file('{q(path)}', {fmt}, '{q(structure)}') {settings}")
            c.add(f"readback {key}", got == expected, f"chdb read {got[:200]!r}, the case is {expected[:200]!r}")
        except Exception as e:
            c.add(f"readback {key}", False, f"chdb: {str(e)[:300]}")

    # self: chwire's own files back to the identical Native bytes (Parquet readers cut blocks
    # at their batch size, not where the writer's blocks ended, and an Arrow file holds one
    # growing dictionary per LowCardinality column, so its blocks carry more dictionary than
    # they use: then both streams are compared as chdb writes them in
    # RowBinaryWithNamesAndTypes, names, types and values byte for byte).
    def one_block(data):
        path = os.path.join(tmp, "reblock.native")
        with open(path, "wb") as f:
            f.write(data)
        return db.query(f"SELECT * FROM file('{q(path)}', Native) SETTINGS max_threads = 1, input_format_parallel_parsing = 0, "
                        "schema_inference_use_cache_for_file = 0", "RowBinaryWithNamesAndTypes").bytes()

    for key, path in ours.items():
        code, out, err = run([chwire, "convert", "--from", key.split("/")[0], "--to", "native", "-i", path])
        same = code == 0 and (out == native or (key.startswith(("Parquet", "Arrow/")) and one_block(out) == one_block(native)))
        if code == 0 and not same and as_json_text:
            # Dynamic and JSON travel as JSON text: their values come back, not their bytes.
            back = os.path.join(tmp, "self.native")
            with open(back, "wb") as f:
                f.write(out)
            diff = json_text_back(db, back, structure, expected)
            c.add(f"self {key}", diff is None, f"Dynamic/JSON converted back: {diff}")
            continue
        c.add(f"self {key}", same, err if code else f"{len(out)} bytes vs {len(native)}, differ")

    # reverse: files written by chdb and pyarrow → chwire → Native → chdb.
    theirs = {}
    for fmt in ("Parquet", "Arrow", "ArrowStream"):
        try:
            data = db.query(sql, fmt).bytes()
            if fmt == "Arrow" and not readable_arrow_file(data):
                # chdb once wrote an Arrow file that pyarrow cannot read either ("Unexpected
                # empty message"; 0 of 30 tries reproduced it): asked again, not blamed on chwire.
                data = db.query(sql, fmt).bytes()
        except Exception:
            continue
        path = os.path.join(tmp, f"theirs.{fmt}")
        with open(path, "wb") as f:
            f.write(data)
        theirs[f"chdb {fmt}"] = (fmt, path)
    if theirs_pq:
        path = os.path.join(tmp, "pyarrow.parquet")
        try:
            pq.write_table(pq.read_table(theirs_pq), path)
            theirs["pyarrow Parquet"] = ("Parquet", path)
        except Exception:
            pass
    for key, (fmt, path) in theirs.items():
        back = os.path.join(tmp, "back.native")
        code, out, err = run([chwire, "convert", "--from", fmt, "--to", "native", "-i", path, "-o", back])
        if code != 0:
            known = no_mapping(err)
            if not known:
                # Kept for a look: a run once failed here on a file chdb writes identically
                # every other time.
                kept = os.path.join(ROOT, "build", "oracle-failures", re.sub(r"[^A-Za-z0-9_.-]", "_", f"{name}.{key}"))
                os.makedirs(os.path.dirname(kept), exist_ok=True)
                with open(path, "rb") as src, open(kept, "wb") as dst:
                    dst.write(src.read())
                err = f"{err} (the file: {kept})"
            c.add(f"reverse {key}", False, err, known=known)
            continue
        try:
            want = chdb_json(db, f"SELECT * FROM file('{q(path)}', {fmt}) {settings}")
            got = chdb_json(db, f"SELECT * FROM file('{q(back)}', Native) {settings}")
            c.add(f"reverse {key}", got == want, f"chdb read {got[:200]!r} from chwire's Native, {want[:200]!r} from the file")
        except Exception as e:
            c.add(f"reverse {key}", False, f"chdb: {str(e)[:300]}")
    return c


def foreign(db, chwire, tmp):
    """Parquet files other tools wrote (tests/oracle/data, each with the script that wrote it):
    chwire converts each to Native, which chdb reads to the same names, types and values as
    it reads from the file itself."""
    c = Case("foreign files")
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    for name in sorted(f for f in os.listdir(data) if f.endswith(".parquet")):
        path = os.path.join(data, name)
        back = os.path.join(tmp, "foreign.native")
        code, _, err = run([chwire, "convert", "--from", "parquet", "--to", "native", "-i", path, "-o", back])
        if code != 0:
            c.add(f"foreign {name}", False, err)
            continue
        want = db.query(f"SELECT * FROM file('{q(path)}', Parquet)", "TSVWithNamesAndTypes").bytes()
        got = db.query(f"SELECT * FROM file('{q(back)}', Native)", "TSVWithNamesAndTypes").bytes()
        c.add(f"foreign {name}", got == want, f"chdb read {got[:300]!r} from chwire's Native, {want[:300]!r} from the file")
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chwire", default="target/release/chwire")
    ap.add_argument("-k", default="", help="run the cases whose name contains one of these comma-separated substrings")
    ap.add_argument("--summary", help="write the per-check counts as JSON here")
    a = ap.parse_args()
    db = session.Session()
    counts = {"PASS": 0, "FAIL": 0, "KNOWN": 0}
    known_reasons = {}
    with tempfile.TemporaryDirectory(prefix="chwire-parquet-") as tmp:
        for name, sql in [*cases.CASES, ("foreign files", None)]:
            if not any(k in name for k in a.k.split(",")):
                continue
            try:
                c = check(db, a.chwire, tmp, name, sql) if sql else foreign(db, a.chwire, tmp)
            except Exception as e:  # noqa: BLE001 - a broken file or tool: this case fails
                c = Case(name)
                c.add("case", False, f"{type(e).__name__}: {e}")
            fails = [r for r in c.results if r[1] == "FAIL"]
            for check_name, status, detail in c.results:
                counts[status] += 1
                if status == "KNOWN":
                    known_reasons.setdefault(detail, []).append(f"{name} ({check_name})")
            if fails:
                print(f"FAIL {name}")
                for check_name, _, detail in fails:
                    print(f"    {check_name}: {detail}")
            else:
                print(f"PASS {name}" + (" (known: " + ", ".join(r[0] for r in c.results if r[1] == "KNOWN") + ")"
                                        if any(r[1] == "KNOWN" for r in c.results) else ""))
    print()
    print("Known, with reasons (cannot pass):")
    for why, where in sorted(known_reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(where)} checks: {why}")
        print(f"      e.g. {', '.join(where[:4])}")
    print(f"parquet oracle: {counts['PASS']} passed, {counts['FAIL']} failed")
    print(f"parquet oracle: {counts['KNOWN']} known (listed above)")
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump({"counts": counts, "known": {k: len(v) for k, v in known_reasons.items()}}, f, indent=1)
    sys.exit(1 if counts["FAIL"] else 0)


if __name__ == "__main__":
    main()
