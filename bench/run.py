#!/usr/bin/env python3
"""Side-by-side benchmark runner: chwire and its peers on the workloads of bench/PEERS.md,
against ClickHouse 26.9 (scripts/server.sh) and 18.16 (scripts/server-18.sh).

Runs every client on each (workload, compression) in interleaved order (A B C ... A B C ...),
records each process's own wall time (its RESULT line), the process wall time, user+sys CPU
and peak RSS (wait4), checks every result, and writes medians and ratios to
docs/BENCHMARKS.md (between the generated markers), build/bench/results.json and an SVG
chart docs/bench-ratios.svg.

    python3 bench/run.py                       # everything on both servers, 5 runs
    python3 bench/run.py --servers 26.9 --runs 3 --workloads W1,W3 --clients chwire,ch-go
    python3 bench/run.py --smoke               # a short run of chwire only (CI): W3, W6 and a
        # slice of W7, W7i, W10q, W10i (CHWIRE_BENCH_SCALE=100)
    python3 bench/run.py --workloads W4,W6 --compressions none \
        --clients chwire,clickhouse-rs,native-floor,native-floor-1rtt,http-floor   # with the raw-socket floors
    python3 bench/run.py --no-setup --clients chwire,chwire@54465,chwire-chunked   # chwire at another
        # revision / with chunked framing (what 54492 changed; docs/BENCHMARKS.md)

Servers: `--servers 26.9,18.16` (default both; ports from CHWIRE_CH_TCP_PORT/CHWIRE_CH_HTTP_PORT
and CHWIRE_CH18_TCP_PORT/CHWIRE_CH18_HTTP_PORT). Under scripts/with-server.sh (CHWIRE_TEST_TCP_PORT
set) the default is the one server it started (CHWIRE_TEST_SERVER). Peers learn the server from
CHWIRE_BENCH_SERVER (ch-go pins an old revision for 18.16; peers that cannot talk to a server
report UNSUPPORTED). W7 and W7i (the wide table: Map, IPv6, DateTime64, sparse) run on 26.9 only.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  bench/report.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
WORKLOADS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W7i", "W8", "W10q", "W10i"]
# W9 (the same workloads over a shaped link) is bench/netem/w9.py's.
EXPECTED = {"W1": 4999999950000000, "W2": 50000063888890, "W3": 2997000000, "W4": 99000000, "W5": 49999995000000, "W6": 200,
            "W8": 1005000000}
W7_ROWS = 10_000_000
CLIENTS = ["chwire", "chwire-http", "ch-go", "clickhouse-go", "clickhouse-rs", "clickhouse-rs-arrow", "klickhouse", "nativeclick",
           "clickhouse-arrow", "clickhouse-driver", "clickhouse-connect", "clickhouse-connect-rust", "clickhouse-connect-arrow",
           "clickhouse-connect-1.6", "st-clickhouse"]
GO_PEERS = {"ch-go", "clickhouse-go"}
RUST_PEERS = {"clickhouse-rs", "clickhouse-rs-arrow", "klickhouse", "nativeclick", "clickhouse-arrow"}
# Python peers and the venv each runs from (bench/peers/python/setup.sh).
PY_PEERS = {"clickhouse-driver": "bench-venv-current", "clickhouse-connect": "bench-venv-current",
            "clickhouse-connect-rust": "bench-venv-current", "clickhouse-connect-arrow": "bench-venv-current",
            "clickhouse-connect-1.6": "bench-venv", "st-clickhouse": "bench-venv-py312"}
# chwire's CLI (`chwire bench`) runs these; the others run in bench/chwire-ext.
CLI_WORKLOADS = {"W1", "W2", "W3", "W4", "W5", "W6", "W8"}
# Baselines, not peers: raw-socket programs (bench/floor) that do the least client work the
# protocol allows, to show what the server and the protocol cost by themselves. They run only
# on the (workload, compression) pairs listed here and are left out of the ratio chart.
BASELINES = {
    # W5's floor encodes its rows before the clock: its wall is the server's intake, its
    # process CPU includes the encoding (not a floor of CPU).
    "native-floor": {("W1", "none"), ("W1", "lz4"), ("W2", "none"), ("W2", "lz4"), ("W3", "none"), ("W3", "lz4"), ("W4", "none"),
                     ("W4", "lz4"), ("W5", "none"), ("W6", "none"), ("W8", "none"), ("W8", "lz4")},
    "native-floor-1rtt": {("W6", "none")},
    "http-floor": {("W4", "none"), ("W6", "none")},
}
SERVERS = {
    "26.9": {"script": "scripts/server.sh", "tcp": ("CHWIRE_CH_TCP_PORT", 19000), "http": ("CHWIRE_CH_HTTP_PORT", 18123)},
    "18.16": {"script": "scripts/server-18.sh", "tcp": ("CHWIRE_CH18_TCP_PORT", 19100), "http": ("CHWIRE_CH18_HTTP_PORT", 18200)},
}
BEGIN, END = report.BEGIN, report.END


def sh(cmd, **kw):
    print("+", cmd if isinstance(cmd, str) else " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, shell=isinstance(cmd, str), cwd=ROOT, **kw)


def scale():
    """CHWIRE_BENCH_SCALE divides W7i's repeats and W10's operations (the smoke run's slice)."""
    return int(os.environ.get("CHWIRE_BENCH_SCALE", "1"))


def expected(workload, w7_rows=W7_ROWS):
    s = scale()
    tri = lambda n: n * (n - 1) // 2
    if workload == "W7":
        return tri(min(w7_rows, W7_ROWS // s))
    if workload == "W7i":
        return tri(100_000) * (100 // s)
    if workload == "W10q":
        return 1498500 * (20_000 // s)
    if workload == "W10i":
        return tri(100_000 * (160 // s))
    return EXPECTED[workload]


# chwire itself in other protocol settings (not peers: they compare chwire with chwire, e.g.
# `--clients chwire,chwire@54465,chwire-chunked`): the revision it announces, chunked framing.
VARIANTS = {"chwire-chunked": "chunked=true"}


def variant_query(client):
    """The URL query of a chwire variant (`chwire@REVISION` or one of VARIANTS), or None."""
    if client.startswith("chwire@"):
        return "client_revision=" + client.split("@", 1)[1]
    return VARIANTS.get(client)


def client_command(client, port, http_port, host="127.0.0.1"):
    chwire = os.path.join(ROOT, "target/release/chwire")
    if client == "chwire":
        return [chwire, "--host", host, "--port", str(port), "bench"]
    if variant_query(client):
        return [chwire, "--url", f"tcp://default@{host}:{port}/default?{variant_query(client)}", "bench"]
    if client == "chwire-http":
        # The same binary over ClickHouse's HTTP interface (docs/HTTP.md).
        return [chwire, "--host", host, "--port", str(http_port), "--transport", "http", "bench"]
    peer_args = ["--client", client, "--host", host, "--port", str(port), "--http-port", str(http_port)]
    if client in GO_PEERS:
        return [os.path.join(BUILD, "peers/go-peer")] + peer_args
    if client in RUST_PEERS:
        return [os.path.join(BUILD, "rust-peers-target/release/chwire-rust-peer")] + peer_args
    if client in BASELINES:
        return [os.path.join(BUILD, "floor-target/release/chwire-bench-floor")] + peer_args
    venv = PY_PEERS.get(client)
    if venv is None:
        raise SystemExit(f"unknown client {client}")
    return [os.path.join(BUILD, venv, "bin/python"), os.path.join(ROOT, "bench/peers/python/peer.py")] + peer_args


def ext_url(client, base):
    """The chwire-bench-ext URL of chwire's `client_command` base (W7, W7i, W10q, W10i)."""
    host, port = base[base.index("--host") + 1], base[base.index("--port") + 1]
    return f"{'http' if client == 'chwire-http' else 'tcp'}://default@{host}:{port}/default"


def argv_for(client, base, workload, compression):
    if client in ("chwire", "chwire-http") and workload not in CLI_WORKLOADS:
        return [os.path.join(ROOT, "target/release/chwire-bench-ext"), "--url", ext_url(client, base),
                "--workload", workload, "--compression", compression]
    if client in ("chwire", "chwire-http") or variant_query(client):
        # chwire's connection options come before the subcommand.
        return base[:-1] + ["--compression", compression, "bench", workload]
    return base + ["--workload", workload, "--compression", compression]


def timed(argv, timeout, env=None):
    """Run one client process; wall time, and user+sys CPU and peak RSS of that process alone
    (from wait4). Output goes to temporary files, so nothing blocks on pipes."""
    import tempfile
    import threading

    # A process started from this Python process inherits its resident-set high-water mark
    # until exec, so wait4's ru_maxrss would report at least Python's size: /usr/bin/time
    # (small) reports its own child's peak instead.
    gnu_time = os.path.exists("/usr/bin/time")
    if gnu_time:
        argv = ["/usr/bin/time", "-f", "RSS_KB=%M"] + argv
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=ROOT, env=env)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        r = {"returncode": proc.returncode, "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace"),
             "proc_wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rss_kb": usage.ru_maxrss}
        if gnu_time:
            lines = r["stderr"].splitlines()
            rss = [line for line in lines if line.startswith("RSS_KB=")]
            if rss:
                r["rss_kb"] = int(rss[-1].split("=")[1])
            r["stderr"] = "\n".join(line for line in lines if not line.startswith("RSS_KB=") and not line.startswith("Command exited with non-zero status"))
        if wall >= timeout:
            return {"error": f"timed out after {timeout} s"}
        return r


def parse(r, client, workload, compression, want=None):
    if "error" in r:
        return {"status": "error", "reason": r["error"]}
    for line in r["stdout"].splitlines():
        if line.startswith("RESULT "):
            kv = dict(p.split("=", 1) for p in line.split()[1:])
            ok = int(kv["check"]) == (want if want is not None else expected(workload))
            out = {"status": "ok" if ok else "wrong", "wall_s": float(kv["wall_s"]), "rows": int(kv["rows"]), "check": int(kv["check"]),
                   "proc_wall_s": r["proc_wall_s"], "cpu_s": r["cpu_s"], "rss_kb": r.get("rss_kb")}
            for k in report.EXTRA:
                if k in kv:
                    out[k] = float(kv[k])
            return out
        if line.startswith("UNSUPPORTED "):
            reason = line.split("reason=", 1)[1] if "reason=" in line else line
            return {"status": "unsupported", "reason": reason}
    tail = " | ".join(r["stderr"].strip().splitlines()[-3:])
    return {"status": "error", "reason": f"exit {r['returncode']}: {tail}"}


def http(port, sql):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/?user=default", data=sql.encode(), method="POST")
    with urllib.request.urlopen(req, timeout=900) as resp:
        return resp.read().decode()


W5_DDL = "CREATE TABLE IF NOT EXISTS chwire_bench_w5 (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null"
# W7: 20 columns the way production tables look (bench/PEERS.md); `note` is 99% empty and
# `is_bot` 95% zeros: both are stored Sparse (ratio_of_defaults_for_sparse_serialization).
W7_COLUMNS = """id UInt64, ts DateTime64(3), user_id UInt32, session UUID, ip IPv6, country LowCardinality(String),
    event Enum8('view' = 1, 'click' = 2, 'cart' = 3, 'buy' = 4), url String, referrer Nullable(String), tags Array(String),
    props Map(String, UInt64), price Decimal(18, 4), quantity Int32, score Float64, duration_ms Nullable(UInt32), is_bot UInt8,
    device LowCardinality(String), latency Float32, day Date, note String"""
W7_SELECT = """SELECT number, fromUnixTimestamp64Milli(toInt64(1700000000000 + number * 37), 'UTC'), toUInt32(number % 1000003),
    generateUUIDv4(number), toIPv6(IPv4NumToString(toUInt32((number * 2654435761) % 4294967296))),
    ['US', 'DE', 'FR', 'IN', 'BR', 'JP', 'GB', 'CA', 'AU', 'NL'][number % 10 + 1], CAST(toInt8(number % 4 + 1), 'Enum8(\\'view\\' = 1, \\'click\\' = 2, \\'cart\\' = 3, \\'buy\\' = 4)'),
    concat('https://example.com/p/', toString(number % 100000)), if(number % 3 = 0, NULL, concat('https://ref.example/', toString(number % 1000))),
    arrayMap(i -> concat('tag', toString((number + i) % 50)), range(number % 4)),
    mapFromArrays(arraySlice(['k1', 'k2', 'k3'], 1, number % 3 + 1), arraySlice([number, number * 2, number * 3], 1, number % 3 + 1)),
    toDecimal64(number % 100000, 4) / 100, toInt32(number % 100) - 50, number / 7, if(number % 5 = 0, NULL, toUInt32(number % 30000)),
    toUInt8(number % 20 = 0), ['desktop', 'mobile', 'tablet'][number % 3 + 1], toFloat32(number % 1000) / 10, toDate('2024-01-01') + number % 365,
    if(number % 100 = 0, concat('note ', toString(number)), '')
    FROM numbers({rows})"""


def w7_rows(http_port):
    try:
        return int(http(http_port, "SELECT count() FROM chwire_bench_w7").strip())
    except Exception:
        return None


def setup_tables(label, http_port, w7=W7_ROWS):
    """W5's Null table; on 26.9 also W7's MergeTree (`w7` rows, made when its count differs;
    with w7=None only when missing) and its Null sink."""
    http(http_port, W5_DDL)
    if label != "26.9":
        return
    have = w7_rows(http_port)
    if have is None or (w7 is not None and have != w7):
        rows = w7 or 100_000
        print(f"+ creating chwire_bench_w7 with {rows} rows", file=sys.stderr, flush=True)
        http(http_port, "DROP TABLE IF EXISTS chwire_bench_w7")
        http(http_port, f"CREATE TABLE chwire_bench_w7 ({W7_COLUMNS}) ENGINE = MergeTree ORDER BY id "
                        "SETTINGS ratio_of_defaults_for_sparse_serialization = 0.9")
        http(http_port, f"INSERT INTO chwire_bench_w7 {W7_SELECT.format(rows=rows)}")
        http(http_port, "OPTIMIZE TABLE chwire_bench_w7 FINAL")
    http(http_port, f"CREATE TABLE IF NOT EXISTS chwire_bench_w7_sink ({W7_COLUMNS}) ENGINE = Null")


def setup(clients, servers):
    if not os.path.exists("/usr/bin/time"):
        sh("apt-get install -y time >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y time)")
    for label, srv in servers:
        sh([SERVERS[label]["script"], "start"])
        setup_tables(label, srv["http"])
    sh(["cargo", "build", "--release", "-p", "chwire-cli", "-p", "chwire-bench-ext"])
    if GO_PEERS & set(clients):
        sh(["bench/peers/go/build.sh", os.path.join(BUILD, "peers/go-peer")])
    if RUST_PEERS & set(clients):
        sh(["bench/peers/rust/build.sh"], stdout=subprocess.DEVNULL)
    if set(PY_PEERS) & set(clients):
        sh(["bench/peers/python/setup.sh"], stdout=subprocess.DEVNULL)
    if set(BASELINES) & set(clients):
        sh(["bench/floor/build.sh"], stdout=subprocess.DEVNULL)


def wait_idle(max_wait, threshold=0.9, window=2.0):
    """On a shared machine: wait until the CPUs were at least `threshold` idle during the last
    `window` seconds (from /proc/stat), at most `max_wait` seconds."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)  # idle + iowait, total

    deadline = time.time() + max_wait
    while True:
        i0, t0 = snap()
        time.sleep(window)
        i1, t1 = snap()
        idle = (i1 - i0) / max(1, t1 - t0)
        if idle >= threshold:
            return
        if time.time() > deadline:
            print(f"warning: the machine is still busy ({100 * (1 - idle):.0f}% CPU) after {max_wait} s; running anyway", file=sys.stderr, flush=True)
            return


def pick_servers(arg):
    """[(label, {"tcp": port, "http": port})] to run on."""
    if arg is None and os.environ.get("CHWIRE_TEST_TCP_PORT"):
        label = "18.16" if os.environ.get("CHWIRE_TEST_SERVER", "").startswith("18.") else "26.9"
        return [(label, {"tcp": int(os.environ["CHWIRE_TEST_TCP_PORT"]), "http": int(os.environ["CHWIRE_TEST_HTTP_PORT"])})]
    out = []
    for label in (arg or "26.9,18.16").split(","):
        s = SERVERS[label]
        out.append((label, {"tcp": int(os.environ.get(s["tcp"][0]) or s["tcp"][1]), "http": int(os.environ.get(s["http"][0]) or s["http"][1])}))
    return out


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--servers", default=None, help="comma-separated: 26.9,18.16 (default both, or with-server.sh's)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--compressions", default="none,lz4")
    ap.add_argument("--clients", default=",".join(CLIENTS + list(BASELINES)),
                    help="comma-separated; the default is every peer and every baseline (" + ", ".join(BASELINES) + ")")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--no-setup", action="store_true")
    ap.add_argument("--fail-on-error", action="store_true", help="exit 1 if any run failed (as --smoke does)")
    ap.add_argument("--wait-idle", type=int, default=0, metavar="SECONDS",
                    help="before each round of clients, wait (up to SECONDS) until the CPUs were 90%% idle for 2 s")
    ap.add_argument("--smoke", action="store_true", help="one run of chwire on W3, W6 and a slice of W7, W7i, W10q, W10i; no report")
    ap.add_argument("--write-docs", action="store_true", help="update docs/BENCHMARKS.md and docs/bench-ratios.svg")
    ap.add_argument("--out", default=os.path.join(BUILD, "bench/results.json"))
    a = ap.parse_args()
    if a.smoke:
        a.runs, a.workloads, a.clients = 1, "W3,W6,W7,W7i,W10q,W10i", "chwire"
        os.environ["CHWIRE_BENCH_SCALE"] = "100"
    clients = a.clients.split(",")
    workloads = a.workloads.split(",")
    compressions = a.compressions.split(",")
    servers = pick_servers(a.servers)
    if not a.no_setup:
        setup(clients, servers)
    elif a.smoke or {"W7", "W7i"} & set(workloads):
        for label, srv in servers:
            setup_tables(label, srv["http"], w7=None)  # what a full setup made, or a 100,000-row W7
    loads = [loadavg()]
    all_results, summaries = {}, []
    for label, srv in servers:
        env = dict(os.environ, CHWIRE_BENCH_SERVER=label)
        w7n = w7_rows(srv["http"]) if label == "26.9" else None
        results = {}
        bases = {cl: client_command(cl, srv["tcp"], srv["http"]) for cl in clients}
        here = [w for w in workloads if label == "26.9" or w not in ("W7", "W7i")]
        for w in here:
            want = expected(w, w7n) if w == "W7" and w7n else None
            for c in compressions:
                for run in range(a.runs):
                    if a.wait_idle:
                        wait_idle(a.wait_idle)
                    for cl in clients:
                        if cl in BASELINES and (w, c) not in BASELINES[cl]:
                            continue
                        key = f"{cl}|{w}|{c}"
                        prev = results.get(key, [])
                        if prev and prev[-1]["status"] in ("unsupported", "error"):
                            continue  # do not repeat what cannot run
                        r = parse(timed(argv_for(cl, bases[cl], w, c), a.timeout, env), cl, w, c, want)
                        results.setdefault(key, []).append(r)
                        desc = (f"wall {r['wall_s']:.3f}s cpu {r['cpu_s']:.3f}s rss {r.get('rss_kb', 0) / 1024:.1f}MiB"
                                if r["status"] == "ok" else f"{r['status']}: {r.get('reason', '')}")
                        print(f"{label} {w} {c} run {run + 1}/{a.runs} {cl:24s} {desc}", file=sys.stderr, flush=True)
        all_results[label] = results
        summaries.append((label, report.summarize(results, clients, here, compressions)))
        loads.append(loadavg())
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    meta = {"date": time.strftime("%Y-%m-%d"), "machine": f"{os.cpu_count()} cores, {platform.platform()}", "runs": a.runs,
            "load": " → ".join(loads)}
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "results": all_results}, f, indent=1)
    md = report.markdown(summaries, clients, BASELINES, meta)
    if not a.smoke:
        print(md)
    failed = [k for res in all_results.values() for k, v in res.items() if any(r["status"] in ("wrong", "error") for r in v)]
    if a.write_docs:
        path = os.path.join(ROOT, "docs/BENCHMARKS.md")
        doc = open(path).read()
        if BEGIN in doc and END in doc:
            doc = doc[: doc.index(BEGIN)] + md + doc[doc.index(END) + len(END):]
        else:
            doc = doc.rstrip() + "\n\n## Side-by-side workloads\n\n" + md + "\n"
        open(path, "w").write(doc)
        open(os.path.join(ROOT, "docs/bench-ratios.svg"), "w").write(report.svg(summaries, clients, BASELINES))
    if (a.smoke or a.fail_on_error) and failed:
        for label, res in all_results.items():
            for k, v in res.items():
                if k in failed:
                    print(f"smoke {label}: {k}: {[r.get('reason', r['status']) for r in v]}", file=sys.stderr)
        sys.exit(1)
    if any(res[k][-1]["status"] == "wrong" for res in all_results.values() for k in res):
        print("some results had a wrong check value", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
