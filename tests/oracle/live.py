#!/usr/bin/env python3
"""The conformance corpus (cases.py) live, against a running ClickHouse 26.9 server: what the
server prints is the truth.

    scripts/with-server.sh python3 tests/oracle/live.py [--chwire PATH] [-k SUBSTRING] [--quick]

For every case (name, SQL):
  a. the server runs the SQL as FORMAT JSONEachRow over HTTP: the expected rows;
  b. `chwire query --format JSONEachRow` must print the same rows (compared value by value as
     run.py compares them) over the native protocol at each revision of the matrix (54465:
     sparse columns; 54473: Dynamic/JSON V2; 54482: replicated columns; 54492: String offsets)
     with each compression (none, LZ4, ZSTD), and over HTTP;
  c. the rows go back into a table of the same columns through each of chwire's insert paths
     (blocks from Native, rows from JSONEachRow, Arrow batches from ArrowStream; at 54492, and
     Native over HTTP): chwire writes the file (`chwire query --format F`), `chwire insert`
     puts it into one table and the server itself (`INSERT ... FORMAT F` over HTTP) into
     another, and the two must hold the same rows; Native, which loses nothing, must also
     give back the expected rows.
Besides the corpus, the MergeTree tables of tests/features/tables.json (shared with every
front end's suite) check what only parts send — sparse columns at every depth the server stores
them, LowCardinality across parts, JSON with typed paths and SKIP hints, Dynamic, Variant,
Time/Time64, QBit, BFloat16, Nested — read at every revision and inserted back through each
insert path into a copy that must hold the same text.

--quick runs the matrix's first and last revision only (the slice `make test` runs in full
is chosen in the Makefile). Prints one line per case and `live: N passed, M failed`; exits 1
if anything failed.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import cases  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests", "features"))
import features  # noqa: E402
from run import compare_rows, parse_json_rows, show  # noqa: E402

MATRIX = [54465, 54473, 54482, 54492]
COMPRESSIONS = ["none", "lz4", "zstd"]
TIMEOUT = 120

# Insert paths where chwire and the server part ways by design, each with its reason:
# (name prefix, path). A known one that starts passing is reported, so that the list stays true.
KNOWN_INSERT = {
    # chwire writes valid Arrow only: a String that is not UTF-8 cannot go into a utf8 array
    # (the error names output_format_arrow_string_as_string = 0); ClickHouse writes it anyway.
    ("string/high_bytes_invalid_utf8", "ArrowStream"): "not UTF-8 into Arrow utf8 (refused by design)",
    ("string/invalid_utf8", "ArrowStream"): "not UTF-8 into Arrow utf8 (refused by design)",
    ("nullable/String", "ArrowStream"): "not UTF-8 into Arrow utf8 (refused by design)",
    ("array/of_every_type", "ArrowStream"): "not UTF-8 into Arrow utf8 (refused by design)",
    # The server re-serializes the hash tables of these states in its own order on insert: the
    # same sets, other bytes.
    ("aggregate/uniq_many", "Native"): "hash-table states are re-serialized by the server",
    ("aggregate/uniqExact", "Native"): "hash-table states are re-serialized by the server",
    # Dynamic values go to Arrow as JSON text (as ClickHouse writes them); the Arrow reader
    # types arrays and objects back by the core's rule for lists and maps, but those beyond a
    # column's max_types go to its shared variant as their text (chwire-arrow json_text.rs).
    ("dynamic_shared/inferred_max_types_2", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
    ("dynamic_shared/inferred_max_types_0", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
    ("dynamic_shared/max_types_1_many_rows", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
    ("dynamic_shared/variant_max_types_1", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
    ("dynamic_shared/in_array_tuple_map", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
}


def http_base():
    return os.environ.get("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")


def native_url():
    return os.environ.get("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")


def server_query(sql, fmt="JSONEachRow", settings=None):
    """The server's own answer over HTTP (bytes), or raises with its error text."""
    u = urllib.parse.urlsplit(http_base())
    params = {"database": u.path.strip("/") or "default", "default_format": fmt}
    params.update(settings or {})
    url = f"http://{u.hostname}:{u.port}/?{urllib.parse.urlencode(params)}"
    req = urllib.request.Request(url, data=sql.encode(), method="POST")
    if u.username:
        req.add_header("X-ClickHouse-User", urllib.parse.unquote(u.username))
    if u.password:
        req.add_header("X-ClickHouse-Key", urllib.parse.unquote(u.password))
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            return r.read()
    except urllib.error.HTTPError as e:
        raise RuntimeError(e.read().decode(errors="replace").strip()) from None


def with_params(url, **kv):
    sep = "&" if "?" in url else "?"
    return url + sep + urllib.parse.urlencode(kv)


class Chwire:
    def __init__(self, binary):
        self.binary = binary

    def run(self, url, args, stdin=None):
        p = subprocess.run([self.binary, "--url", url, *args], input=stdin, capture_output=True, timeout=TIMEOUT,
                           env={**os.environ, "CHWIRE_URL": ""})
        if p.returncode < 0 or b"panicked" in p.stderr:
            raise RuntimeError(f"chwire crashed ({p.returncode}): {p.stderr.decode(errors='replace')[-400:]}")
        return p

    def query(self, url, sql, fmt="JSONEachRow"):
        p = self.run(url, ["query", "--format", fmt, sql])
        if p.returncode != 0:
            raise RuntimeError(p.stderr.decode(errors="replace").strip())
        return p.stdout


def known(name, path):
    for (prefix, p), why in KNOWN_INSERT.items():
        if name.startswith(prefix) and p == path:
            return why
    return None


def check_reads(cw, name, sql, expected, revisions):
    problems = []
    urls = [(f"native {rev} {comp}", with_params(native_url(), client_revision=rev, compression=comp))
            for rev in revisions for comp in COMPRESSIONS]
    urls.append(("http", http_base()))
    for who, url in urls:
        try:
            got, err = parse_json_rows(cw.query(url, sql))
        except RuntimeError as e:
            problems.append(f"{who}: {show(str(e), 300)}")
            continue
        if err:
            problems.append(f"{who}: {err}")
        p, _ = compare_rows(expected, got, who, "chwire")
        problems += p
    return problems


def check_inserts(cw, idx, name, sql, expected, tmp):
    """Each insert path: the rows into a fresh table of the case's columns through chwire and
    through the server's own parser of the same file, read back."""
    problems, notes = [], []
    ours, theirs = f"chwire_live_{idx}", f"chwire_live_{idx}_server"
    paths = [("Native", "native"), ("JSONEachRow", "native"), ("ArrowStream", "native"), ("Native", "http")]
    make = {"allow_suspicious_low_cardinality_types": "1", "allow_experimental_qbit_type": "1"}
    # Memory tables read back in insertion order with one thread.
    read = "SETTINGS max_threads = 1"
    for fmt, transport in paths:
        url = with_params(native_url(), client_revision=MATRIX[-1]) if transport == "native" else http_base()
        who = f"insert {fmt} over {transport}"
        why = known(name, fmt)
        try:
            for t in (ours, theirs):
                server_query(f"DROP TABLE IF EXISTS {t}")
                server_query(f"CREATE TABLE {t} ENGINE = Memory AS SELECT * FROM ({sql}) LIMIT 0", settings=make)
        except RuntimeError as e:
            notes.append(f"{who}: no table of these columns ({show(str(e), 120)})")
            return problems, notes
        path = os.path.join(tmp, f"{idx}.{fmt.lower()}")
        found = []
        try:
            data = cw.query(url, sql, fmt)
            with open(path, "wb") as f:
                f.write(data)
            # One insert thread: a Memory table then keeps the blocks in the order they came.
            p = cw.run(url, ["insert", ours, "--format", fmt, "--input", path, "--setting", "max_insert_threads=1"])
            if p.returncode != 0:
                raise RuntimeError(p.stderr.decode(errors="replace").strip())
            got, err = parse_json_rows(server_query(f"SELECT * FROM {ours} {read}"))
            found += [f"{who}: {err}"] if err else []
            # The rows read, or else (a text or Arrow file keeps less than Native) what the
            # server's own reading of the same file gives.
            vs_expected = compare_rows(expected, got, who, "table")[0]
            if not vs_expected or fmt == "Native":
                found += vs_expected
            else:
                try:
                    insert_raw(theirs, fmt, data)
                    want, err = parse_json_rows(server_query(f"SELECT * FROM {theirs} {read}"))
                    found += compare_rows(want, got, who, "chwire's table")[0] if not err else [f"{who}: {err}"]
                except RuntimeError as e:
                    found += vs_expected + [f"{who}: and the server cannot read chwire's {fmt} ({show(str(e), 100)})"]
        except RuntimeError as e:
            found = [f"{who}: {show(str(e), 300)}"]
        if why and found:
            notes.append(f"{who}: known: {why}")
        elif why:
            problems.append(f"{who}: now passes: remove ({name.split('/')[0]}/, {fmt}) from KNOWN_INSERT")
        else:
            problems += found
    for t in (ours, theirs):
        server_query(f"DROP TABLE IF EXISTS {t}")
    return problems, notes


def insert_raw(table, fmt, data):
    """The server's own INSERT of `data` in format `fmt` (over HTTP)."""
    u = urllib.parse.urlsplit(http_base())
    q = urllib.parse.urlencode({"database": u.path.strip("/") or "default", "query": f"INSERT INTO {table} FORMAT {fmt}",
                                "max_insert_threads": "1"})
    req = urllib.request.Request(f"http://{u.hostname}:{u.port}/?{q}", data=data, method="POST")
    if u.username:
        req.add_header("X-ClickHouse-User", urllib.parse.unquote(u.username))
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            r.read()
    except urllib.error.HTTPError as e:
        raise RuntimeError(e.read().decode(errors="replace").strip()) from None


# Insert paths of the feature tables where chwire and the server part ways by design, each with
# its reason; one that starts passing is reported (as KNOWN_INSERT).
KNOWN_TABLE_INSERT = {
    ("dynamic", "ArrowStream"): "Dynamic arrays and objects beyond max_types stay JSON text",
    # The server writes a QBit's infinities as `inf` (not JSON; its own reader then refuses the
    # file), chwire as null (as for every float), which a QBit does not take back as inf.
    ("qbit", "JSONEachRow"): "QBit infinities have no JSON form",
}


def check_table_inserts(cw, server, case, table, tmp):
    """A feature table (tests/features/tables.json) back through each insert path of the CLI:
    chwire's copy must hold the server's text of the table (Native loses nothing), or, where a
    text or Arrow file keeps less, what the server's own insert of the same file gives."""
    problems, notes = [], []
    sql = f"SELECT * FROM {table} ORDER BY k"
    want = server.text(case, table)
    ours, theirs = table + "_cw", table + "_srv"
    for fmt, transport in [("Native", "native"), ("JSONEachRow", "native"), ("ArrowStream", "native"), ("Native", "http")]:
        url = with_params(native_url(), client_revision=MATRIX[-1]) if transport == "native" else http_base()
        who = f"insert {fmt} over {transport}"
        try:
            for t in (ours, theirs):
                server.copy(case, table, t)
            data = cw.query(url, sql, fmt)
            path = os.path.join(tmp, f"{table}.{fmt.lower()}")
            with open(path, "wb") as f:
                f.write(data)
            p = cw.run(url, ["insert", ours, "--format", fmt, "--input", path])
            if p.returncode != 0:
                raise RuntimeError(p.stderr.decode(errors="replace").strip())
            got = server.text(case, ours)
            if got != want and fmt != "Native":
                server.query(f"INSERT INTO {theirs} FORMAT {fmt}", features.settings_of(case, server.version), body=data)
                if got == server.text(case, theirs):
                    notes.append(f"{who}: as the server's own insert of the file")
                    continue
            if got != want:
                line = next((i for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines())) if a != b), None)
                problems.append(f"{who}: the copy differs" + (f" at line {line}: {show(got.splitlines()[line], 200)} vs "
                                                              f"{show(want.splitlines()[line], 200)}" if line is not None else ""))
        except RuntimeError as e:
            problems.append(f"{who}: {show(str(e), 300)}")
        why = KNOWN_TABLE_INSERT.get((case["name"], fmt))
        if why and problems and problems[-1].startswith(who):
            problems.pop()
            notes.append(f"{who}: known: {why}")
        elif why:
            problems.append(f"{who}: now passes: remove ({case['name']}, {fmt}) from KNOWN_TABLE_INSERT")
    server.drop(ours, theirs)
    return problems, notes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chwire", default=os.path.join(ROOT, "target/release/chwire"))
    ap.add_argument("-k", default=None, help="only cases whose name contains this")
    ap.add_argument("--quick", action="store_true", help="the first and last revision of the matrix only")
    ap.add_argument("--no-inserts", action="store_true")
    args = ap.parse_args()
    cw = Chwire(args.chwire)
    revisions = [MATRIX[0], MATRIX[-1]] if args.quick else MATRIX
    version = server_query("SELECT version()", "TSV").decode().strip()
    print(f"live: ClickHouse {version} at {native_url()}, revisions {revisions}, compressions {COMPRESSIONS}")
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="chwire-live-") as tmp:
        server = features.Server(http_base())
        for case in features.for_server(features.tables(), server.version):
            name = "mergetree/" + case["name"]
            if args.k and args.k not in name:
                continue
            table = features.table_name("chwire_live")
            try:
                server.create(case, table)
                problems = [f"not sparse on the server: {sorted(set(case['sparse']) - server.sparse(table))}"] \
                    if case["sparse"] and not set(case["sparse"]) <= server.sparse(table) else []
                settings = {**features.settings_of(case, server.version), **case.get("select_settings", {})}
                select = f"SELECT * FROM {table} ORDER BY k" + (
                    " SETTINGS " + ", ".join(f"{k} = {v}" for k, v in settings.items()) if settings else "")
                expected, _ = parse_json_rows(server_query(select))
                problems += check_reads(cw, name, select, expected, revisions)
                notes = []
                if not args.no_inserts:
                    p, notes = check_table_inserts(cw, server, case, table, tmp)
                    problems += p
            finally:
                server.drop(table)
            passed, failed = report(name, problems, notes, passed, failed)
        for idx, (name, sql) in enumerate(cases.CASES):
            if args.k and args.k not in name:
                continue
            try:
                expected, err = parse_json_rows(server_query(sql))
            except RuntimeError as e:
                passed, failed = report(name, [f"the server refused the case: {show(str(e), 300)}"], [], passed, failed)
                continue
            problems = [f"server: {err}"] if err else []
            problems += check_reads(cw, name, sql, expected, revisions)
            notes = []
            if not args.no_inserts:
                p, notes = check_inserts(cw, idx, name, sql, expected, tmp)
                problems += p
            passed, failed = report(name, problems, notes, passed, failed)
    print(f"live: {passed} passed, {failed} failed")
    return 1 if failed else 0


def report(name, problems, notes, passed, failed):
    if problems:
        print(f"FAIL {name}")
        for p in problems[:12]:
            print(f"     {p}")
        return passed, failed + 1
    print(f"PASS {name}" + (f"  ({'; '.join(notes)})" if notes else ""))
    return passed + 1, failed


if __name__ == "__main__":
    sys.exit(main())
