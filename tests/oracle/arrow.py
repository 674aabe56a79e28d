"""Arrow conformance of chwire-arrow against ClickHouse 26.9 (chdb), for every case of the
conformance corpus (cases.py):

1. clickhouse mapping: chwire's Arrow stream of chdb's Native block has the logical types and
   values of chdb's own `FORMAT ArrowStream` for the same query (physical variants that may
   differ: large vs regular offsets of strings/lists, field nullability of list items, field
   metadata — see docs/ARROW.md);
2. both mappings: chdb reads chwire's Arrow stream back (file(..., 'ArrowStream', structure)
   with the query's own column types) to the same JSONEachRow as the query itself;
3. both mappings: chwire converts its own stream back to the identical Native bytes (Dynamic
   and JSON, which travel as JSON text: to a Native file chdb reads as the same JSON values).

    build/oracle-venv/bin/python tests/oracle/arrow.py --bin target/release/examples/arrow_oracle [-k FILTER] [-v]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

SETTINGS = " SETTINGS max_threads = 1"


def normalize_type(t):
    """A pyarrow type with large/regular offsets and item nullability folded together."""
    import pyarrow as pa
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(normalize_type(t.value_type))
    if pa.types.is_map(t):
        if pa.types.is_null(t.key_type) or pa.types.is_integer(t.key_type) and str(t.item_type) == "null":
            return "map of nothing"
        return pa.map_(normalize_type(t.key_type), normalize_type(t.item_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, normalize_type(f.type)) for f in t])
    if pa.types.is_dictionary(t):
        return pa.dictionary(t.index_type, normalize_type(t.value_type))
    if pa.types.is_union(t):
        return pa.union([pa.field(f.name, normalize_type(f.type)) for f in t], t.mode)
    if isinstance(t, pa.ExtensionType):
        return t
    return t


def same(a, b):
    if a is b:
        return True
    if a is not b and a != a and b != b and str(a) == str(b):  # NaN, NaT
        return True
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def table_rows(table):
    return [list(r.values()) for r in table.to_pylist()]


READ_SETTINGS = (" SETTINGS max_threads = 1, schema_inference_use_cache_for_file = 0, flatten_nested = 0, "
                 "allow_suspicious_variant_types = 1, allow_suspicious_low_cardinality_types = 1, "
                 "enable_time_time64_type = 1, allow_experimental_qbit_type = 1, allow_suspicious_fixed_string_types = 1")


def sql_string(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def columns_equal(ours, theirs):
    """Values of two pyarrow tables equal (NaN equal to NaN, NaT to NaT)."""
    try:
        ro, rt = table_rows(ours), table_rows(theirs)
    except (OverflowError, ValueError):
        # Values Python cannot hold (dates beyond year 9999, ...): compare the arrays.
        for i in range(ours.num_columns):
            o, t = ours.column(i).combine_chunks(), theirs.column(i).combine_chunks()
            if o.type != t.type:
                o = o.cast(t.type)
            if not o.equals(t):
                return f"column {ours.schema[i].name} differs (compared as arrays)"
        return None
    if not same(ro, rt):
        i = next((i for i, (x, y) in enumerate(zip(ro, rt)) if not same(x, y)), min(len(ro), len(rt)))
        return (f"values differ from chdb's at row {i}: "
                f"{str(ro[i] if i < len(ro) else None)[:200]} vs {str(rt[i] if i < len(rt) else None)[:200]}")
    return None


class Chdb:
    """A chdb session that is opened anew after a query fails (chdb 26.9's session may
    answer the next query with stale bytes after an exception)."""

    SETS = ("max_threads", "enable_time_time64_type", "allow_experimental_qbit_type", "allow_suspicious_variant_types",
            "allow_suspicious_low_cardinality_types", "allow_suspicious_fixed_string_types")

    def __init__(self):
        self.conn = None
        self.open()

    def open(self):
        import chdb
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
        self.conn = chdb.connect(":memory:")
        for setting in self.SETS:
            self.conn.query(f"SET {setting} = 1")

    def query(self, sql, fmt):
        try:
            return self.conn.query(sql, fmt)
        except Exception:
            self.open()
            raise


def read_back(db, path, structure):
    """chdb's JSONEachRow of an Arrow stream read with the given structure: (bytes, error)."""
    q = f"SELECT * FROM file({sql_string(path)}, 'ArrowStream', {sql_string(structure)})"
    try:
        return db.query(q + READ_SETTINGS, "JSONEachRow").bytes(), None
    except Exception as e:
        return None, str(e).splitlines()[0][:300]


def json_equivalent(got, want):
    """A value converted back from JSON text equals the original's JSON: the same, or (a
    Dynamic value whose type was not inferred back: an array, object, date, ...) a string
    holding the same JSON, or a number within Float64's rounding of a wider one."""
    if same(got, want):
        return True
    if isinstance(got, str) and not isinstance(want, str):
        try:
            return json_equivalent(json.loads(got), want)
        except ValueError:
            return False
    if isinstance(got, (int, float)) and isinstance(want, (int, float)) and not isinstance(got, bool):
        return math.isclose(got, want, rel_tol=1e-15)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(json_equivalent(x, y) for x, y in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(json_equivalent(got[k], want[k]) for k in got)
    return False


def json_text_back(db, path, structure, want):
    """chdb reads chwire's Native file (converted back from its Arrow stream): None when each
    row's JSON is equivalent to the query's own, else what differs."""
    q = f"SELECT * FROM file({sql_string(path)}, 'Native', {sql_string(structure)})"
    try:
        got = db.query(q + READ_SETTINGS, "JSONEachRow").bytes()
    except Exception as e:
        return "chdb cannot read it: " + str(e).splitlines()[0][:300]
    gl, wl = got.splitlines(), want.splitlines()
    if len(gl) != len(wl):
        return f"{len(gl)} rows, the query gives {len(wl)}"
    for i, (g, w) in enumerate(zip(gl, wl)):
        if not json_equivalent(json.loads(g), json.loads(w)):
            return f"row {i}: {g[:200]!r}, the query gives {w[:200]!r}"
    return None


def check_case(db, binary, tmp, name, sql, tz):
    """(status, notes): status pass, fail, unsupported (no Arrow mapping), refused (a
    documented refusal: String values that are not UTF-8 with string_as_string), skip."""
    import pyarrow as pa
    problems, notes = [], []
    native = db.query(sql + SETTINGS, "Native").bytes()
    if not native:
        return "skip", ["no rows and no header"]
    inp = os.path.join(tmp, "in.native")
    with open(inp, "wb") as f:
        f.write(native)
    desc = [json.loads(l) for l in db.query(f"DESCRIBE ({sql})", "JSONEachRow").bytes().decode("utf-8", "replace").splitlines()]
    structure = ", ".join("`{}` {}".format(d["name"].replace("\\", "\\\\").replace("`", "\\`"), d["type"]) for d in desc)
    want = db.query(sql + SETTINGS, "JSONEachRow").bytes()
    try:
        theirs = pa.ipc.open_stream(db.query(sql + SETTINGS, "ArrowStream").bytes()).read_all()
    except Exception as e:
        theirs, chdb_refuses = None, str(e).splitlines()[0][:200]
    done_modes = 0
    as_json_text = any(t in d["type"] for d in desc for t in ("Dynamic", "JSON"))
    for mode in ("rich", "clickhouse"):
        p = subprocess.run([binary, inp, tmp, tz, mode], capture_output=True, timeout=120)
        err = p.stderr.decode(errors="replace").strip()
        if p.returncode == 3:
            return "unsupported", [err]
        if p.returncode != 0 or "panicked" in err:
            if "not valid UTF-8" in err and "panicked" not in err:
                notes.append(f"{mode}: refused: {err[:200]}")
                continue
            if mode == "clickhouse" and theirs is None and p.returncode == 1:
                notes.append(f"clickhouse: both refuse: chwire {err[:150]}; chdb {chdb_refuses}")
                continue
            problems.append(f"{mode}: arrow_oracle exit {p.returncode}: {err[:400]}")
            continue
        done_modes += 1
        # chwire converts its own stream back to the identical Native bytes.
        with open(os.path.join(tmp, f"{mode}.native"), "rb") as f:
            back = f.read()
        if back != native and as_json_text:
            # Dynamic and JSON travel as JSON text: their values come back, not their bytes.
            diff = json_text_back(db, os.path.join(tmp, f"{mode}.native"), structure, want)
            if diff:
                problems.append(f"{mode}: Dynamic/JSON converted back: {diff}")
        elif back != native:
            problems.append(f"{mode}: Arrow -> Native differs from chdb's Native ({len(back)} vs {len(native)} bytes)")
        path = os.path.join(tmp, f"{mode}.arrows")
        # The ClickHouse mapping: chdb's own ArrowStream, logical types and values.
        if mode == "clickhouse":
            ours = pa.ipc.open_stream(open(path, "rb").read()).read_all()
            if theirs is None:
                notes.append(f"chdb cannot write ArrowStream: {chdb_refuses}")
            else:
                bad = [f"column {fo.name}: chwire {fo.type}, chdb {ft.type}" for fo, ft in zip(ours.schema, theirs.schema)
                       if normalize_type(fo.type) != normalize_type(ft.type)]
                problems += [f"clickhouse: {b}" for b in bad]
                if not bad and any("AggregateFunction(" in d["type"] for d in desc):
                    # ClickHouse 26.9 writes the addresses of the states, not the states.
                    notes.append("AggregateFunction: chdb's ArrowStream holds state addresses; values not compared")
                elif not bad:
                    diff = columns_equal(ours, theirs)
                    if diff:
                        problems.append(f"clickhouse: {diff}")
        # chdb reads chwire's stream back to the query's own values.
        if len({d["name"] for d in desc}) != len(desc):
            notes.append("duplicate column names: not read back by name")
            continue
        if any("AggregateFunction(" in d["type"] for d in desc):
            # ClickHouse reads Arrow binary into AggregateFunction as text, not as states.
            notes.append("AggregateFunction states: not read back (ClickHouse parses them as text)")
            continue
        if any("QBit(" in d["type"] for d in desc):
            # Documented: QBit goes to Arrow as its bit planes, which ClickHouse cannot cast
            # back to QBit (and ClickHouse cannot write QBit to Arrow at all).
            notes.append(f"{mode}: QBit bit planes are not read back by ClickHouse")
            continue
        got, why = read_back(db, path, structure)
        if why is not None or got != want:
            if theirs is not None:
                own_path = os.path.join(tmp, "chdb.arrows")
                with open(own_path, "wb") as f:
                    f.write(db.query(sql + SETTINGS, "ArrowStream").bytes())
                own, own_why = read_back(db, own_path, structure)
                if own_why is not None or own != want:
                    notes.append("chdb cannot read its own ArrowStream back either: "
                                 + (own_why or "different values") + " (a ClickHouse limitation)")
                    continue
        if why is not None and "to type" in why and ("Time" in why.split("to type")[-1]) and \
                ("from type Interval" in why or "from type Nullable(Interval" in why or "Time64(0)" in why):
            # Documented: the rich mapping writes Time/Time64 as durations, which ClickHouse
            # reads as intervals and does not convert to Time; ClickHouse reads its own
            # time32[s] as Time64(0), which it does not convert to Time either.
            notes.append(f"{mode}: ClickHouse does not read this Time mapping back: {why[:120]}")
            continue
        if why is not None:
            problems.append(f"{mode}: chdb cannot read chwire's stream: {why}")
            continue
        if got != want:
            gl, wl = got.splitlines(), want.splitlines()
            i = next((i for i, (x, y) in enumerate(zip(gl, wl)) if x != y), min(len(gl), len(wl)))
            problems.append(f"{mode}: chdb reads chwire's stream as {gl[i][:200] if i < len(gl) else 'nothing'!r}, "
                            f"the query gives {wl[i][:200] if i < len(wl) else 'nothing'!r} (row {i})")
    if problems:
        return "fail", problems + notes
    return ("pass" if done_modes else "refused"), notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/examples/arrow_oracle")
    ap.add_argument("-k", dest="filter")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    db = Chdb()
    tz = db.query("SELECT timezone()", "TSV").bytes().decode().strip()
    counts = {"pass": 0, "fail": 0, "unsupported": 0, "refused": 0, "skip": 0}
    with tempfile.TemporaryDirectory(prefix="chwire-arrow-oracle-") as tmp:
        for name, sql in cases.CASES:
            if args.filter and args.filter not in name:
                continue
            try:
                status, notes = check_case(db, args.bin, tmp, name, sql, tz)
            except Exception as e:
                import traceback
                status, notes = "fail", [f"{type(e).__name__}: {str(e)[:300]}", traceback.format_exc()[-600:]]
            counts[status] += 1
            if status != "pass" or args.verbose:
                print(f"{status.upper()} {name}" + "".join("\n    " + n for n in notes))
    print(f"arrow oracle: {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['unsupported']} without an Arrow mapping, "
          f"{counts['refused']} refused as documented (String values that are not UTF-8), {counts['skip']} skipped")
    sys.exit(1 if counts["fail"] else 0)


if __name__ == "__main__":
    main()
