#!/usr/bin/env python3
"""Conformance harness: the real ClickHouse engine (chdb-core, in-process) is the oracle for
chwire's Native decoder/encoder and its JSONEachRow output.

Run with the oracle venv (scripts/oracle-venv.sh makes it):

    build/oracle-venv/bin/python tests/oracle/run.py [--chwire PATH] [-k SUBSTRING]

For every case (name, SQL) in cases.py:
  a. chdb runs the SQL twice: FORMAT Native gives the input bytes, FORMAT JSONEachRow the
     expected rows (ClickHouse 26.9's default JSON settings are the spec);
  b. `chwire convert --from native --to JSONEachRow` on those bytes must give the same rows:
     each value is compared strictly: numbers as exact decimals, and 1 vs 1.0, -0 vs 0,
     true vs 1, "1" vs 1 all differ (texts that denote the same value only get a note);
  b2. `chwire convert` to TSV and to CSV must write exactly chdb's TSV and CSV;
  c. `chwire convert --from native --to native` must reproduce the bytes exactly;
  d. chdb reads chwire's re-encoded bytes back (file(..., Native)) and must print the
     expected rows;
  e. chwire never crashes: a failure exits non-zero with a message on stderr, no panic.
PENDING cases (types chwire does not support yet) must instead fail cleanly with
"unsupported" on stderr; one that passes every check is reported "now passes".

Prints one line per case and ends with `oracle: N passed, M failed`; exits 1 if M > 0.
"""

import argparse
import decimal
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

# The oracle's server timezone, for DateTime columns without their own; chwire's default is UTC.
os.environ["TZ"] = "UTC"

import cases  # noqa: E402

TIMEOUT = 120  # seconds per chwire run
MAX_SHOWN = 6  # mismatches shown per check


# ---- strict JSON values ---------------------------------------------------------------------

class Obj(tuple):
    """A JSON object as its ordered (key, value) pairs (duplicates kept)."""


class NegZero:
    """The integer literal -0 (ClickHouse writes -0.0 as `-0`); json would make it int 0."""

    def __repr__(self):
        return "-0"


NEG_ZERO = NegZero()


def _parse_int(s):
    return NEG_ZERO if s == "-0" else int(s)


def _reject_constant(s):
    raise ValueError(f"{s} is not JSON")


# Numbers with a fraction or exponent parse as exact decimals: two texts are the same value only
# if they denote the same number ("1e-7" = "0.0000001", but "0.1" != "0.10000000149011612").
DECODER = json.JSONDecoder(object_pairs_hook=Obj, parse_int=_parse_int, parse_float=decimal.Decimal,
                           parse_constant=_reject_constant)
WS = re.compile(r"[ \t\n\r]*")


def parse_row(line):
    """One JSONEachRow line -> list of (key, value, raw value text). Raises ValueError."""
    i = WS.match(line, 0).end()
    if line[i:i + 1] != "{":
        raise ValueError(f"expected '{{' at char {i}")
    i = WS.match(line, i + 1).end()
    fields = []
    if line[i:i + 1] == "}":
        i += 1
    else:
        while True:
            key, i = DECODER.raw_decode(line, i)
            if not isinstance(key, str):
                raise ValueError(f"object key is not a string at char {i}")
            i = WS.match(line, i).end()
            if line[i:i + 1] != ":":
                raise ValueError(f"expected ':' at char {i}")
            i = WS.match(line, i + 1).end()
            start = i
            value, i = DECODER.raw_decode(line, i)
            fields.append((key, value, line[start:i]))
            i = WS.match(line, i).end()
            c = line[i:i + 1]
            i = WS.match(line, i + 1).end()
            if c == "}":
                break
            if c != ",":
                raise ValueError(f"expected ',' or '}}' at char {i}")
    if line[i:].strip(" \t\r\n"):
        raise ValueError(f"trailing text at char {i}")
    return fields


def parse_json_rows(data):
    """JSONEachRow bytes -> (rows, error). Bytes that are not UTF-8 (ClickHouse writes String
    bytes as they are) become surrogate escapes, so they compare byte for byte. A line that is
    not valid JSON becomes None (so later rows still line up) and is described in `error`."""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows, bad, first = [], 0, None
    for n, line in enumerate(lines):
        try:
            rows.append(parse_row(line))
        except ValueError as e:
            rows.append(None)
            bad += 1
            if first is None:
                first = f"line {n + 1}: {e}: {show(line)}"
    if not bad:
        return rows, None
    return rows, f"{bad} of {len(lines)} lines are not valid JSON; first: {first}"


def same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, decimal.Decimal):
        return a == b and a.is_signed() == b.is_signed()  # -0.0 and 0.0 differ
    if isinstance(a, Obj):
        return len(a) == len(b) and all(ka == kb and same(va, vb) for (ka, va), (kb, vb) in zip(a, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def show(s, limit=160):
    """Readable, bounded text, shown as it is except: raw bytes that are not UTF-8 as <0xFF>,
    control and invisible characters (and U+FFFD) as <U+000B>."""
    if isinstance(s, (bytes, bytearray)):
        s = bytes(s).decode("utf-8", "surrogateescape")
    out = []
    for c in s:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"<0x{o - 0xDC00:02X}>")
        elif 0x20 <= o < 0x7F or (o > 0x7F and c.isprintable() and o != 0xFFFD):
            out.append(c)
        else:
            out.append(f"<U+{o:04X}>")
    r = "".join(out)
    if len(r) > limit:
        r = r[:limit] + f"...({len(r)} chars)"
    return r


def show_diff(a, b, limit=120):
    """Both texts cut around their first difference."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if max(len(a), len(b)) <= limit:
        return show(a, limit * 4), show(b, limit * 4)
    lo = max(0, i - 40)
    pre = f"[{lo} chars]..." if lo else ""
    return pre + show(a[lo:lo + limit], limit * 4), pre + show(b[lo:lo + limit], limit * 4)


def compare_rows(expected, got, who, theirs="chwire"):
    """Problems (strings) where `got` differs from `expected` (chdb's JSONEachRow of the SQL);
    and notes on values whose JSON text differs although the values are equal."""
    problems, notes = [], []
    mismatches = 0
    text_diffs = 0
    if len(expected) != len(got):
        problems.append(f"{who}: {len(got)} rows, chdb printed {len(expected)}")
    for r, (erow, grow) in enumerate(zip(expected, got)):
        if erow is None or grow is None:
            continue  # an invalid line: already reported
        ekeys = [k for k, _, _ in erow]
        gkeys = [k for k, _, _ in grow]
        if ekeys != gkeys:
            mismatches += 1
            if mismatches <= MAX_SHOWN:
                problems.append(f"{who}: row {r}: columns {show(json.dumps(gkeys, ensure_ascii=False))}, "
                                f"chdb {show(json.dumps(ekeys, ensure_ascii=False))}")
            continue
        for (k, ev, etext), (_, gv, gtext) in zip(erow, grow):
            if not same(ev, gv):
                mismatches += 1
                if mismatches <= MAX_SHOWN:
                    a, b = show_diff(etext, gtext)
                    problems.append(f"{who}: row {r} column {show(k)}: chdb {a} | {theirs} {b}")
            elif etext != gtext:
                text_diffs += 1
                if text_diffs == 1:
                    a, b = show_diff(etext, gtext, 60)
                    notes.append(f"row {r} column {show(k)}: chdb {a} | {theirs} {b}")
    if mismatches > MAX_SHOWN:
        problems.append(f"{who}: ... {mismatches} value mismatches in all")
    if text_diffs:
        notes[0] = f"JSON text differs but parses equal in {text_diffs} values, e.g. " + notes[0]
    return problems, notes


def text_diff(want, got):
    """Where two outputs of a text format first differ: line and both texts around it."""
    wl, gl = want.split(b"\n"), got.split(b"\n")
    for i, (a, b) in enumerate(zip(wl, gl)):
        if a != b:
            x, y = show_diff(a.decode("utf-8", "surrogateescape"), b.decode("utf-8", "surrogateescape"))
            return f"line {i + 1}: chdb {x} | chwire {y}"
    return f"chdb wrote {len(wl) - 1} lines, chwire {len(gl) - 1}"


def first_diff(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else None


def hexctx(data, off, before=12, after=12):
    lo = max(0, off - before)
    chunk = data[lo:off + after]
    hx = " ".join(("[" if lo + j == off else "") + f"{c:02x}" + ("]" if lo + j == off else "") for j, c in enumerate(chunk))
    asc = "".join(chr(c) if 32 <= c < 127 else "." for c in chunk)
    return f"{hx}  |{asc}|"


# ---- where in a Native stream a byte is ----------------------------------------------------
# A small walker over the Native layout (revision 0) of the types that chdb writes here, used
# only to say where a byte is ("block 2 column 'a' Array(String): elements: value 7, byte 3").

FIXED_WIDTH = {
    "UInt8": 1, "Int8": 1, "Bool": 1, "Nothing": 1, "UInt16": 2, "Int16": 2, "Date": 2, "BFloat16": 2,
    "UInt32": 4, "Int32": 4, "Float32": 4, "DateTime": 4, "Date32": 4, "Time": 4, "IPv4": 4,
    "UInt64": 8, "Int64": 8, "Float64": 8, "DateTime64": 8, "Time64": 8,
    "UInt128": 16, "Int128": 16, "UUID": 16, "IPv6": 16, "UInt256": 32, "Int256": 32,
    "Enum8": 1, "Enum16": 2, "Decimal32": 4, "Decimal64": 8, "Decimal128": 16, "Decimal256": 32,
}
GEO = {"Point": "Tuple(Float64, Float64)", "Ring": "Array(Point)", "LineString": "Array(Point)",
       "MultiLineString": "Array(Ring)", "Polygon": "Array(Ring)", "MultiPolygon": "Array(Polygon)"}


class CannotLocate(Exception):
    pass


def _varint(data, pos):
    r = shift = 0
    while True:
        if pos >= len(data):
            raise CannotLocate("truncated varint")
        c = data[pos]
        pos += 1
        r |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return r, pos


def _split_args(s):
    """Top-level comma-separated parts of s (quotes and parentheses respected)."""
    parts, depth, quote, cur, i = [], 0, None, [], 0
    while i < len(s):
        c = s[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "'`\"":
            quote = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _element_type(e):
    """`name Type` (a named Tuple/Nested element) -> Type; `Type` -> Type."""
    depth, quote = 0, None
    for i, c in enumerate(e):
        if quote:
            if c == quote:
                quote = None
        elif c in "'`\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == " " and depth == 0:
            return e[i + 1:].strip()
    return e


def _parse(t):
    """Type name -> (family, [argument texts])."""
    t = t.strip()
    if "(" not in t or not t.endswith(")"):
        return t, []
    head = t[:t.index("(")]
    return head, _split_args(t[len(head) + 1:-1])


def _normalize(t):
    """Aliases to the layout they share: (family, args)."""
    fam, args = _parse(t)
    if fam in GEO:
        return _normalize(GEO[fam])
    if fam == "SimpleAggregateFunction":
        return _normalize(args[1])
    if fam == "Map":
        return "Array", [f"Tuple({args[0]}, {args[1]})"]
    if fam == "Nested":
        return "Array", ["Tuple(" + ", ".join(args) + ")"]
    if fam == "Tuple":
        return "Tuple", [_element_type(a) for a in args]
    return fam, args


def _width(fam, args):
    if fam in FIXED_WIDTH:
        return FIXED_WIDTH[fam]
    if fam.startswith("Interval"):
        return 8
    if fam == "FixedString":
        return int(args[0])
    if fam == "Decimal":
        p = int(args[0])
        return 4 if p <= 9 else 8 if p <= 18 else 16 if p <= 38 else 32
    return None


def _u64(data, pos):
    if pos + 8 > len(data):
        raise CannotLocate("truncated")
    return int.from_bytes(data[pos:pos + 8], "little")


def _prefix(t, data, pos, target):
    """Skip the serialization prefix that precedes a column's data: (end, hit)."""
    fam, args = _normalize(t)
    if fam == "LowCardinality":
        if pos <= target < pos + 8:
            return pos + 8, "LowCardinality key version (prefix)"
        return pos + 8, None
    if fam == "Variant":
        if pos <= target < pos + 8:
            return pos + 8, "Variant discriminators mode (prefix)"
        pos += 8
        args = [a for a in args]
    elif fam in ("Array", "Nullable"):
        args = args[:1]
    elif fam != "Tuple":
        if fam in ("Dynamic", "JSON", "Object", "AggregateFunction", "QBit", "Geometry", "MultiPoint"):
            raise CannotLocate(f"type {t} not known to the locator")
        return pos, None
    for a in args:
        pos, hit = _prefix(a, data, pos, target)
        if hit:
            return pos, hit
    return pos, None


def _walk(t, n, data, pos, target):
    """Skip the data of n values of type t at pos: (end, description of target or None)."""
    fam, args = _normalize(t)
    w = _width(fam, args)
    if w is not None:
        end = pos + n * w
        if pos <= target < end:
            k, b = divmod(target - pos, w)
            return end, f"value {k}" + (f", byte {b} of {w}" if w > 1 else "")
        return end, None
    if fam == "String":
        for i in range(n):
            l, p = _varint(data, pos)
            if pos <= target < p + l:
                return p + l, f"value {i} ({'its length' if target < p else f'byte {target - p} of {l}'})"
            pos = p + l
        return pos, None
    if fam == "Nullable":
        if pos <= target < pos + n:
            return pos + n, f"null map, row {target - pos}"
        end, hit = _walk(args[0], n, data, pos + n, target)
        return end, (f"values: {hit}" if hit else None)
    if fam == "Array":
        if pos <= target < pos + 8 * n:
            return pos + 8 * n, f"array offsets, row {(target - pos) // 8}"
        total = _u64(data, pos + 8 * (n - 1)) if n else 0
        end, hit = _walk(args[0], total, data, pos + 8 * n, target)
        return end, (f"elements: {hit}" if hit else None)
    if fam == "Tuple":
        if not args:  # Tuple(): one placeholder byte per row
            if pos <= target < pos + n:
                return pos + n, f"empty tuple placeholder, row {target - pos}"
            return pos + n, None
        for i, a in enumerate(args):
            pos, hit = _walk(a, n, data, pos, target)
            if hit:
                return pos, f"tuple element {i + 1} ({a}): {hit}"
        return pos, None
    if fam == "LowCardinality":
        keys_type = args[0]
        kf, ka = _parse(keys_type)
        if kf == "Nullable":
            keys_type = ka[0]
        done = 0
        while done < n:
            flags = _u64(data, pos)
            if pos <= target < pos + 8:
                return pos + 8, "LowCardinality index type/flags"
            pos += 8
            if flags & (1 << 9):
                nkeys = _u64(data, pos)
                if pos <= target < pos + 8:
                    return pos + 8, "LowCardinality dictionary size"
                pos, hit = _walk(keys_type, nkeys, data, pos + 8, target)
                if hit:
                    return pos, f"LowCardinality dictionary: {hit}"
            rows = _u64(data, pos)
            if pos <= target < pos + 8:
                return pos + 8, "LowCardinality index count"
            pos += 8
            iw = 1 << (flags & 0xFF)
            if pos <= target < pos + rows * iw:
                return pos + rows * iw, f"LowCardinality index of row {done + (target - pos) // iw}"
            pos += rows * iw
            if rows == 0:
                raise CannotLocate("empty LowCardinality page")
            done += rows
        return pos, None
    if fam == "Variant":
        if pos <= target < pos + n:
            return pos + n, f"Variant discriminator of row {target - pos}"
        discr = data[pos:pos + n]
        pos += n
        for i, a in enumerate(args):
            pos, hit = _walk(a, discr.count(i), data, pos, target)
            if hit:
                return pos, f"variant {i} ({a}): {hit}"
        return pos, None
    raise CannotLocate(f"type {t} not known to the locator")


def _column_data(tname, nrows, data, pos, target):
    pos, hit = _prefix(tname, data, pos, target)
    if hit:
        return pos, hit
    return _walk(tname, nrows, data, pos, target)


def locate(data, target):
    """Where byte `target` of a Native stream is: (description, start of the enclosing header
    string or None)."""
    pos = block = 0
    try:
        while pos < len(data):
            ncols, pos = _varint(data, pos)
            nrows, pos = _varint(data, pos)
            if target < pos:
                return f"block {block} header ({ncols} columns, {nrows} rows)", None
            for c in range(ncols):
                start = pos
                l, pos = _varint(data, pos)
                name = data[pos:pos + l].decode("utf-8", "replace")
                pos += l
                if target < pos:
                    return f"block {block}: the name of column {c}", start
                start = pos
                l, pos = _varint(data, pos)
                tname = data[pos:pos + l].decode("utf-8", "replace")
                pos += l
                if target < pos:
                    return f"block {block} column {c} {name!r}: its type name", start
                if nrows:
                    pos, hit = _column_data(tname, nrows, data, pos, target)
                    if hit:
                        return f"block {block} ({nrows} rows) column {c} {name!r} {tname}: {hit}", None
            block += 1
        return "past the end of chdb's stream", None
    except (CannotLocate, ValueError, IndexError) as e:
        return f"somewhere after byte {pos} ({e})", None


def block_ends(data):
    """Offsets where the blocks of a Native stream end (None if a type is unknown here)."""
    ends, pos = [], 0
    try:
        while pos < len(data):
            ncols, pos = _varint(data, pos)
            nrows, pos = _varint(data, pos)
            for _ in range(ncols):
                l, pos = _varint(data, pos)
                pos += l
                l, pos = _varint(data, pos)
                tname = data[pos:pos + l].decode("utf-8", "replace")
                pos += l
                if nrows:
                    pos = _column_data(tname, nrows, data, pos, -1)[0]
            ends.append(pos)
    except (CannotLocate, ValueError, IndexError):
        return None
    return ends


def header_string(data, start):
    l, p = _varint(data, start)
    return data[p:p + l]


def native_diff(ours, theirs):
    """None if equal, else a description of the first difference."""
    off = first_diff(ours, theirs)
    if off is None:
        return None
    where, start = locate(ours, off)
    msg = (f"bytes differ at offset {off} (chdb {len(ours)} bytes, chwire {len(theirs)}), in {where}: "
           f"chdb {hexctx(ours, off)} chwire {hexctx(theirs, off)}")
    if start is not None:
        try:
            a, b = show_diff(header_string(ours, start).decode("utf-8", "surrogateescape"),
                             header_string(theirs, start).decode("utf-8", "surrogateescape"), 400)
            msg += f"; chdb writes {a} | chwire writes {b}"
        except CannotLocate:
            pass
    return msg


# ---- chdb and chwire ------------------------------------------------------------------------

def chdb_query(db, sql, fmt):
    """The bytes chdb writes for sql in format fmt (db: a chdb connection)."""
    return db.query(sql, fmt).bytes()


class Run:
    def __init__(self, proc_or_exc, secs):
        self.secs = secs
        if isinstance(proc_or_exc, Exception):
            self.code, self.out, self.err = None, b"", str(proc_or_exc).encode()
            self.timeout = isinstance(proc_or_exc, subprocess.TimeoutExpired)
        else:
            self.code, self.out, self.err = proc_or_exc.returncode, proc_or_exc.stdout, proc_or_exc.stderr
            self.timeout = False

    @property
    def errtext(self):
        return self.err.decode("utf-8", "replace").strip()

    def crash(self):
        """A crash description, or None: killed, hung, panicked, or failed silently."""
        if self.timeout:
            return f"hung: no exit within {TIMEOUT}s"
        if self.code is None:
            return f"could not run: {self.errtext}"
        if self.code < 0:
            return f"killed by signal {-self.code}: {show(self.errtext, 300)}"
        if "panicked" in self.errtext:
            return f"PANIC (exit {self.code}): {show(self.errtext, 400)}"
        if self.code != 0 and not self.errtext:
            return f"exit {self.code} with nothing on stderr"
        return None


def chwire_convert(binary, to, data):
    t = time.monotonic()
    try:
        p = subprocess.run([binary, "convert", "--from", "native", "--to", to], input=data,
                           capture_output=True, timeout=TIMEOUT)
        return Run(p, time.monotonic() - t)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Run(e, time.monotonic() - t)


def chdb_read_native(db, tmpdir, idx, data):
    """chdb's JSONEachRow of a Native stream read with file(): (rows, error)."""
    path = os.path.join(tmpdir, f"case{idx}.native")
    with open(path, "wb") as f:
        f.write(data)
    qpath = path.replace("\\", "\\\\").replace("'", "\\'")
    try:
        raw = chdb_query(db, f"SELECT * FROM file('{qpath}', Native) "
                         "SETTINGS schema_inference_use_cache_for_file=0, max_threads=1, input_format_parallel_parsing=0",
                         "JSONEachRow")
    except Exception as e:
        return None, show(str(e), 400)
    finally:
        os.unlink(path)
    rows, err = parse_json_rows(raw)
    return (None, f"its JSONEachRow does not parse: {err}") if err else (rows, None)


def check_read_back(db, tmpdir, idx, native, ours, expected):
    """Step d: chdb reads chwire's re-encoded bytes and must print the expected rows. Where chdb
    cannot read back (or reproduce) even its own bytes, that is a limit of the oracle: then
    chwire's bytes are held to what chdb makes of its own, or the check is skipped, with a note."""
    who = "read back by chdb"
    theirs = "chdb-reading-chwire's-bytes"
    back, err = chdb_read_native(db, tmpdir, idx, ours)
    if back is not None:
        problems = compare_rows(expected, back, who, theirs)[0]
        if not problems:
            return [], []
    own, own_err = chdb_read_native(db, tmpdir, idx, native) if ours != native else (back, err)
    if own is None:
        note = f"read-back not checked: chdb cannot read its own Native bytes back either ({own_err})"
        return [], [note]
    if back is None:
        return [f"{who}: chdb rejects chwire's Native bytes (but reads its own): {err}"], []
    if compare_rows(expected, own, who)[0]:
        # chdb's own bytes do not reproduce the SQL's JSON: compare with what they do give.
        problems = compare_rows(own, back, who + " (vs chdb reading its own bytes)", theirs)[0]
        return problems, ["read-back compared with chdb reading its own bytes (they differ from the SQL's JSON)"]
    return problems, []


def check_truncated(binary, native):
    problems = []
    ends = block_ends(native)
    cuts = sorted({c for c in (1, 3, len(native) // 3, len(native) // 2, len(native) - 1) if 0 < c < len(native)})
    for cut in cuts:
        r = chwire_convert(binary, "native", native[:cut])
        crash = r.crash()
        if crash:
            problems.append(f"input truncated to {cut} of {len(native)} bytes: {crash}")
        elif ends is not None and r.code == 0 and cut not in ends:
            problems.append(f"input truncated to {cut} of {len(native)} bytes (inside a block): exit 0, "
                            f"{len(r.out)} bytes out; expected an error")
        elif ends is not None and r.code != 0 and cut in ends:
            problems.append(f"input truncated to {cut} bytes, a block boundary: exit {r.code}: {show(r.errtext, 200)}")
    return problems


def check_case(db, binary, tmpdir, idx, name, sql, pending=False):
    """All checks of one case: (problems, notes, info). problems empty = pass. info has
    `unsupported` (list of the conversions that refused the type cleanly)."""
    problems, notes = [], []
    info = {"unsupported": [], "ran": 0}
    try:
        native = chdb_query(db, sql, "Native")
        expected_raw = chdb_query(db, sql, "JSONEachRow")
    except Exception as e:  # the corpus itself is wrong
        return [f"chdb rejected the SQL: {show(str(e), 400)}"], notes, info
    expected, err = parse_json_rows(expected_raw)
    if err:
        return [f"chdb's own JSONEachRow does not parse: {err}"], notes, info

    # b. Native -> JSONEachRow
    js = chwire_convert(binary, "JSONEachRow", native)
    crash = js.crash()
    if crash:
        problems.append(f"to JSONEachRow: {crash}")
    elif js.code != 0:
        if "unsupported" in js.errtext.lower():
            info["unsupported"].append("JSONEachRow")
            info["message"] = show(js.errtext.splitlines()[-1], 160)
        problems.append(f"to JSONEachRow: exit {js.code}: {show(js.errtext, 300)}")
    else:
        info["ran"] += 1
        got, err = parse_json_rows(js.out)
        if err:
            problems.append(f"to JSONEachRow: chwire's output: {err}")
        p, n = compare_rows(expected, got, "to JSONEachRow")
        problems += p
        notes += n

    # b2. Native -> TSV and CSV: byte for byte what chdb writes
    if not pending:
        for fmt in ("TSV", "CSV"):
            try:
                want = chdb_query(db, sql, fmt)
            except Exception as e:
                problems.append(f"chdb rejected the SQL as {fmt}: {show(str(e), 200)}")
                continue
            got = chwire_convert(binary, fmt, native)
            crash = got.crash()
            if crash:
                problems.append(f"to {fmt}: {crash}")
            elif got.code != 0:
                problems.append(f"to {fmt}: exit {got.code}: {show(got.errtext, 300)}")
            elif got.out != want:
                problems.append(f"to {fmt}: {text_diff(want, got.out)}")

    # c. Native -> Native, byte for byte
    nat = chwire_convert(binary, "native", native)
    crash = nat.crash()
    if crash:
        problems.append(f"to native: {crash}")
    elif nat.code != 0:
        if "unsupported" in nat.errtext.lower():
            info["unsupported"].append("native")
        problems.append(f"to native: exit {nat.code}: {show(nat.errtext, 300)}")
    else:
        info["ran"] += 1
        diff = native_diff(native, nat.out)
        if diff:
            problems.append(f"to native: {diff}")
        # e. truncated input: a clean error (or success exactly at a block boundary), never a crash
        if not pending:
            problems += check_truncated(binary, native)
        # d. chdb reads chwire's bytes back
        if nat.out or expected:  # (an empty stream has no header to read a schema from)
            p, n = check_read_back(db, tmpdir, idx, native, nat.out, expected)
            problems += p
            notes += n
    info["secs"] = js.secs + nat.secs
    return problems, notes, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chwire", default=os.path.join(ROOT, "target/release/chwire"),
                    help="chwire binary (default: target/release/chwire)")
    ap.add_argument("-k", dest="filter", default=None, help="run only cases whose name contains this substring")
    ap.add_argument("-v", "--verbose", action="store_true", help="show notes on passing cases too")
    ap.add_argument("--built", action="append", default=[], metavar="FILE",
                    help="also check a Native file written by chwire's builders (chwire-proto's "
                         "built_columns example): chdb must read it to the values chwire prints")
    args = ap.parse_args()

    if not (os.path.isfile(args.chwire) and os.access(args.chwire, os.X_OK)):
        print(f"oracle: chwire binary not found: {args.chwire} (build it: cargo build --release -p chwire-cli)",
              file=sys.stderr)
        sys.exit(2)
    try:
        import chdb
        from importlib.metadata import version
    except ImportError as e:
        print(f"oracle: cannot import chdb ({e}); run scripts/oracle-venv.sh and use build/oracle-venv/bin/python",
              file=sys.stderr)
        sys.exit(2)
    # One in-memory session; max_threads=1 keeps row order identical between the two runs of
    # each query (Native, JSONEachRow) and in the read-back.
    db = chdb.connect(":memory:")
    db.query("SET max_threads = 1")
    engine, tz = chdb_query(db, "SELECT version(), timezone()", "TSV").decode().split()
    print(f"oracle: chdb-core {version('chdb-core')} (ClickHouse {engine}, timezone {tz}), chwire {args.chwire}")

    selected = [(n, s, None) for n, s in cases.CASES] + [(n, s, r) for n, s, r in cases.PENDING]
    names = [n for n, _, _ in selected]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        print(f"oracle: duplicate case names in cases.py: {sorted(dups)}", file=sys.stderr)
        sys.exit(2)
    if args.filter:
        selected = [c for c in selected if args.filter in c[0]]

    passed = failed = 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="chwire-oracle-") as tmpdir:
        for idx, (name, sql, reason) in enumerate(selected):
            problems, notes, info = check_case(db, args.chwire, tmpdir, idx, name, sql, pending=reason is not None)
            if reason is None:
                ok = not problems
                if ok:
                    line = f"PASS {name}"
                    if notes:
                        line += "  (note: " + "; ".join(notes) + ")"
                else:
                    line = f"FAIL {name}\n" + "\n".join("    " + p for p in problems)
            else:
                chdb_broken = problems and problems[0].startswith("chdb")
                if len(info["unsupported"]) == 2 and not chdb_broken:
                    msg = info.get("message", "")
                    msg = msg[msg.lower().find("unsupported"):]
                    ok, line = True, f"PENDING-OK {name} ({reason}): chwire says {msg!r}"
                elif not problems:
                    ok, line = False, f"FAIL {name}: now passes: remove from PENDING"
                else:
                    ok = False
                    why = ("expected chwire to refuse the type ('unsupported' on stderr, non-zero exit) "
                           "for both conversions")
                    for conv in ("JSONEachRow", "native"):
                        if not any(p.startswith(f"to {conv}:") for p in problems):
                            problems.append(f"to {conv}: exit 0 and its checks pass")
                    line = f"FAIL {name} (PENDING: {why})\n" + "\n".join("    " + p for p in problems)
            if ok:
                passed += 1
            else:
                failed += 1
            print(line, flush=True)
        for idx, path in enumerate(args.built):
            # Columns built from scratch: chdb's reading of chwire's bytes must equal chwire's.
            name = f"built/{os.path.basename(path)}"
            with open(path, "rb") as f:
                native = f.read()
            ours = chwire_convert(args.chwire, "JSONEachRow", native)
            problems = []
            if ours.code != 0:
                problems.append(f"chwire convert failed: {show(ours.errtext, 300)}")
            else:
                mine, err = parse_json_rows(ours.out)
                theirs, cerr = chdb_read_native(db, tmpdir, 10_000 + idx, native)
                if err:
                    problems.append(f"chwire's JSONEachRow does not parse: {err}")
                elif cerr:
                    problems.append(f"chdb cannot read chwire's bytes: {cerr}")
                else:
                    problems += compare_rows(theirs, mine, "chdb reading chwire's bytes")[0]
            selected.append((name, None, None))
            if problems:
                failed += 1
                print(f"FAIL {name}\n" + "\n".join("    " + p for p in problems), flush=True)
            else:
                passed += 1
                print(f"PASS {name}", flush=True)
    secs = time.monotonic() - t0
    print(f"oracle: {len(selected)} cases in {secs:.1f}s")
    print(f"oracle: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
