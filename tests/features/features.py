"""The shared cases of tests/features/ (tables.json, params.json, refusals.json, dynamic.json,
statements.json, texts.json, nulls.json, limits.json, pool.json, blocks.json) for the Python suites (the
Python package's, ADBC's, Spark's and tests/oracle/live.py): loading them, and setting up a
case's table through the server's own HTTP interface (what the front end under test then reads
and writes back). `python3 features.py check` sets up every case on the servers of
CHWIRE_TEST_HTTP_URL (26.9) and CHWIRE_TEST_HTTP_URL_18 and checks their `sparse` columns."""

import decimal
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    """The shared case file `name` (tests/features/NAME), as JSON."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def tables():
    return load("tables.json")["tables"]


def params():
    return load("params.json")["params"]


def dynamic():
    """dynamic.json: host values into a Dynamic column, typed by the core's one rule."""
    return load("dynamic.json")["dynamic"]


def texts():
    """texts.json: text into address and UUID columns (`inserted`, `refused`), by the core's parser."""
    return load("texts.json")


def nulls():
    """nulls.json: a host NULL where the column's type has none (`inserted`, `refused`)."""
    return load("nulls.json")


def limits():
    """limits.json: bounds of a result collected whole (`sql`, `settings`, `cases`, `tightest`, `refused`)."""
    return load("limits.json")


def pool():
    """pool.json: the pool's option names (`accepted`, `refused`)."""
    return load("pool.json")


def blocks():
    """blocks.json: the blocks of an Arrow insert (`settings`, `cases`, `refused`)."""
    return load("blocks.json")


def blocks_batches(case):
    """A blocks.json case's batches: lists of the values of `n`, counting from 0 across them
    (the refusal's batch `bad_batch` starting with None)."""
    out, n = [], 0
    for rows in case["batches"]:
        out.append(list(range(n, n + rows)))
        n += rows
    if "bad_batch" in case:
        out[case["bad_batch"]][0] = None
    return out


# A blocks.json table (merges stopped after it is made), and its parts' rows in insert order.
BLOCKS_TABLE = "CREATE TABLE {t} (n UInt64) ENGINE = MergeTree ORDER BY tuple()"
BLOCKS_STOP = "SYSTEM STOP MERGES {t}"
BLOCKS_PARTS = "SELECT count() FROM {t} GROUP BY _part ORDER BY min(n)"


def run_text_cases(cases, http_url, table, command, insert, refused):
    """A texts.json or nulls.json case file through one front end: `command(sql)` runs a
    statement, `insert(cs)` inserts one row (`k` = 1 and each case's value) into `table` and
    returns the rows inserted, and
    `refused()` is the context that expects the front end's refusal. The `inserted` cases read
    back as their `text`; each `refused` one leaves its table empty."""
    inserted = cases["inserted"]
    command(f"CREATE TABLE {table} ({texts_columns(inserted)}) ENGINE = Memory")
    try:
        assert insert(inserted) == 1
        assert texts_read(http_url, table, len(inserted)) == [c["text"] for c in inserted]
    finally:
        command(f"DROP TABLE {table}")
    for case in cases["refused"]:
        command(f"CREATE TABLE {table} ({texts_columns([case])}) ENGINE = Memory")
        try:
            with refused():
                insert([case])
            assert int(command(f"SELECT count() FROM {table}")) == 0, case
        finally:
            command(f"DROP TABLE {table}")


def texts_columns(cases):
    """The columns of a texts.json table of `cases`: `k UInt32, c0 <type>, ...`."""
    return "k UInt32, " + ", ".join(f"c{i} {c['type']}" for i, c in enumerate(cases))


def texts_read(http_url, table, n):
    """The server's `toString(cN)` of the one row of a texts.json table of `n` cases."""
    cols = ", ".join(f"toString(c{i})" for i in range(n)) or "1"
    return json.loads(Server(http_url).query(f"SELECT {cols} FROM {table} FORMAT JSONCompactEachRow") or "null")


def statements():
    """statements.json: queries with their own FORMAT clause (`format`)."""
    return load("statements.json")


def refusals():
    """refusals.json: what every front end refuses the same way (`params`, `options`)."""
    return load("refusals.json")


def with_query(url, query):
    """`url` with `query` appended to its query string."""
    return url + ("&" if "?" in url else "?") + query


def server_name(version):
    """'26.9' or '18.16' (the rig's two servers) from a version string such as 26.9.2.1."""
    return "18.16" if int(str(version).split(".")[0]) < 19 else "26.9"


def for_server(cases, version):
    name = server_name(version)
    return [c for c in cases if name in c.get("servers", ["26.9"])]


def settings_of(case, version):
    """The settings for the case's statements on that server."""
    if server_name(version) == "18.16":
        return dict(case.get("settings_18", {}))
    return dict(case.get("settings", {}))


class Server:
    """A ClickHouse server's HTTP interface (the URL of CHWIRE_TEST_HTTP_URL's form)."""

    def __init__(self, http_url):
        u = urllib.parse.urlsplit(http_url)
        self.base = f"http://{u.hostname}:{u.port}/"
        self.database = u.path.strip("/") or "default"
        self.user = urllib.parse.unquote(u.username or "default")
        self.password = urllib.parse.unquote(u.password or "")
        self.version = self.query("SELECT version()").strip()

    def query(self, sql, settings=None, body=None):
        q = {"database": self.database, **{k: str(v) for k, v in (settings or {}).items()}}
        if body is not None:
            q["query"] = sql
        data = (sql if body is None else body)
        data = data.encode() if isinstance(data, str) else data
        req = urllib.request.Request(self.base + "?" + urllib.parse.urlencode(q), data=data, method="POST")
        req.add_header("X-ClickHouse-User", self.user)
        if self.password:
            req.add_header("X-ClickHouse-Key", self.password)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{sql[:200]}: {e.read().decode(errors='replace').strip()}") from None

    def create(self, case, table):
        """Create and fill the case's table `table`."""
        s = settings_of(case, self.version)
        self.query(f"DROP TABLE IF EXISTS {table}")
        self.query(f"CREATE TABLE {table} ({case['columns']}) ENGINE = {case['engine']}", s)
        for ins in case["inserts"]:
            self.query(ins.replace("{t}", table), s)

    def copy(self, case, table, copy):
        """An empty table of the same structure as `table`."""
        self.query(f"DROP TABLE IF EXISTS {copy}")
        self.query(f"CREATE TABLE {copy} AS {table}", settings_of(case, self.version))

    def text(self, case, table):
        """The server's own text of the table's rows (what a copy must equal)."""
        return self.query(f"SELECT * FROM {table} ORDER BY k FORMAT TSVWithNamesAndTypes", settings_of(case, self.version))

    def sparse(self, table):
        """The columns and subcolumns of `table`'s active parts stored as Sparse."""
        out = self.query(
            "SELECT DISTINCT column, serialization_kind, subcolumns.names, subcolumns.serializations "
            f"FROM system.parts_columns WHERE database = currentDatabase() AND table = '{table}' AND active "
            "FORMAT JSONEachRow")
        found = set()
        for line in out.splitlines():
            r = json.loads(line)
            if r["serialization_kind"] == "Sparse":
                found.add(r["column"])
            for n, k in zip(r["subcolumns.names"], r["subcolumns.serializations"]):
                if k == "Sparse":
                    found.add(f"{r['column']}.{n}")
        return found

    def drop(self, *tables):
        for t in tables:
            self.query(f"DROP TABLE IF EXISTS {t}")


def table_name(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def check(http_url):
    """Set up every case of that server, check the sparse columns, drop them."""
    server = Server(http_url)
    bad = 0
    for case in for_server(tables(), server.version):
        t = table_name("feat_check")
        try:
            server.create(case, t)
            missing = set(case["sparse"]) - server.sparse(t) if case["sparse"] else set()
            rows = server.query(f"SELECT count() FROM {t}").strip()
            print(f"{'FAIL' if missing else 'ok  '} {server.version} {case['name']}: {rows} rows"
                  + (f", not sparse: {sorted(missing)}" if missing else ""))
            bad += bool(missing)
        except RuntimeError as e:
            print(f"FAIL {server.version} {case['name']}: {e}")
            bad += 1
        finally:
            server.drop(t)
    return bad


def etf(v):
    """`v` (what json.load gives) in Erlang's external term format, for the Elixir suite:
    Elixir 1.14 (Debian's, the binding's) has no JSON parser and the binding takes no Hex
    packages; binary_to_term reads this exactly (big integers and floats included)."""
    import struct

    def enc(x):
        if x is None or isinstance(x, bool):
            name = {None: b"nil", True: b"true", False: b"false"}[x]
            return bytes([119, len(name)]) + name
        if isinstance(x, int):
            if 0 <= x < 256:
                return bytes([97, x])
            if -(2**31) <= x < 2**31:
                return b"b" + struct.pack(">i", x)
            mag = abs(x).to_bytes((abs(x).bit_length() + 7) // 8, "little")
            return bytes([110, len(mag), 1 if x < 0 else 0]) + mag
        if isinstance(x, float):
            return b"F" + struct.pack(">d", x)
        if isinstance(x, str):
            b = x.encode("utf-8")
            return b"m" + struct.pack(">I", len(b)) + b
        if isinstance(x, list):
            return b"l" + struct.pack(">I", len(x)) + b"".join(map(enc, x)) + b"j" if x else b"j"
        if isinstance(x, dict):
            return b"t" + struct.pack(">I", len(x)) + b"".join(enc(k) + enc(w) for k, w in x.items())
        raise TypeError(type(x))

    return b"\x83" + enc(v)


if __name__ == "__main__" and sys.argv[1:] == ["etf"]:
    sys.stdout.buffer.write(etf({"tables": tables(), "params": params(), "refusals": refusals(), "dynamic": dynamic(),
                                  "statements": statements(), "texts": texts(), "nulls": nulls(), "limits": limits(), "pool": pool(),
                                  "blocks": blocks()}))

if __name__ == "__main__" and sys.argv[1:] == ["check"]:
    urls = [os.environ.get("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")]
    if os.environ.get("CHWIRE_TEST_HTTP_URL_18"):
        urls.append(os.environ["CHWIRE_TEST_HTTP_URL_18"])
    sys.exit(1 if sum(check(u) for u in urls) else 0)


def host(v):
    """A value of params.json in its Python form (what chwire's Python client binds)."""
    if isinstance(v, list):
        return [host(x) for x in v]
    if isinstance(v, dict):
        if "int" in v:
            return int(v["int"])
        if "float" in v:
            return float(v["float"])
        if "decimal" in v:
            return decimal.Decimal(v["decimal"])
        if "tuple" in v:
            return tuple(host(x) for x in v["tuple"])
        if "map" in v:
            return {host(k): host(x) for k, x in v["map"]}
        return {k: host(x) for k, x in v.items()}
    return v


# The settings that let a server take the newer types as parameters and columns.
NEW_TYPES = {"allow_experimental_json_type": 1, "allow_experimental_dynamic_type": 1, "allow_experimental_variant_type": 1,
             "enable_time_time64_type": 1, "allow_experimental_qbit_type": 1}


def dynamic_rows(http_url, table):
    """(dynamicType, toString) of each row of a dynamic.json copy, by `k`, from the server."""
    sql = f"SELECT dynamicType(d), toString(d) FROM {table} ORDER BY k FORMAT JSONCompactEachRow"
    return [tuple(json.loads(line)) for line in Server(http_url).query(sql).splitlines() if line]


def dynamic_mismatches(got):
    """What differs between the rows read back and dynamic.json's cases."""
    cases = dynamic()
    if len(got) != len(cases):
        return [f"{len(got)} rows for {len(cases)} cases"]
    return [f"{c['value']!r}: {g}, the rule says {(c['type'], c['text'])}" for c, g in zip(cases, got) if tuple(g) != (c["type"], c["text"])]
