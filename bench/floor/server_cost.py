#!/usr/bin/env python3
"""Server-side cost of W4/W6 per client: how much CPU the ClickHouse server itself spends.

Runs each client (chwire, peers, the raw-socket floors of bench/floor) interleaved, as
bench/run.py does, and reads the server process's user+system CPU time from
/proc/<pid>/stat before and after each run (it includes the server's threads that exited
during the run). Prints medians: the client's own wall time, the client's CPU, and the
server's CPU in total and per iteration (W4: 2000 queries; W6: 200 connections).

    python3 bench/floor/server_cost.py                 # W4,W6; 5 runs each
    python3 bench/floor/server_cost.py --runs 9 --clients chwire,native-floor,http-floor

Needs the server running (`--server 26.9`, the default: scripts/server.sh, ports
CHWIRE_CH_TCP_PORT/CHWIRE_CH_HTTP_PORT, its process is the chdb launcher that runs the whole
clickhouse-local in-process; `--server 18.16`: scripts/server-18.sh, CHWIRE_CH18_*), chwire
built (cargo build --release), the floors (bench/floor/build.sh) and, for clickhouse-rs/ch-go,
the peers of bench/peers.
"""
import argparse
import importlib.util
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "bench/run.py"))
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

PER = {"W4": 2000, "W6": 200}
TICK = os.sysconf("SC_CLK_TCK")


def server_pid(server):
    path = "build/ch26/server.pid" if server == "26.9" else "build/clickhouse/clickhouse-server.pid"
    dirvar = "CHWIRE_CH_DIR" if server == "26.9" else "CHWIRE_CH18_DIR"
    if os.environ.get(dirvar):
        path = os.path.join(os.environ[dirvar], os.path.basename(path))
    with open(os.path.join(ROOT, path)) as f:
        return int(f.read().split()[0])


def server_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15
    return (int(fields[11]) + int(fields[12])) / TICK


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workloads", default="W4,W6")
    ap.add_argument("--clients", default="chwire,clickhouse-rs,native-floor,http-floor")
    ap.add_argument("--server", default="26.9", choices=["26.9", "18.16"])
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--http-port", type=int, default=None)
    ap.add_argument("--wait-idle", type=int, default=0, metavar="SECONDS",
                    help="before each round of clients, wait (up to SECONDS) until the CPUs were 90%% idle for 2 s")
    a = ap.parse_args()
    (_, srv), = run.pick_servers(a.server)
    a.port, a.http_port = a.port or srv["tcp"], a.http_port or srv["http"]
    env = dict(os.environ, CHWIRE_BENCH_SERVER=a.server)
    pid = server_pid(a.server)
    clients = a.clients.split(",")
    bases = {cl: run.client_command(cl, a.port, a.http_port) for cl in clients}
    rows = []
    for w in a.workloads.split(","):
        here = [cl for cl in clients if cl not in run.BASELINES or (w, "none") in run.BASELINES[cl]]
        samples = {cl: [] for cl in here}
        for i in range(a.runs):
            if a.wait_idle:
                run.wait_idle(a.wait_idle)
            for cl in here:
                before = server_cpu_s(pid)
                r = run.parse(run.timed(run.argv_for(cl, bases[cl], w, "none"), 600, env), cl, w, "none")
                server = server_cpu_s(pid) - before
                if r["status"] != "ok":
                    sys.exit(f"{cl} {w}: {r['status']}: {r.get('reason', 'wrong check value')}")
                samples[cl].append((r["wall_s"], r["cpu_s"], server))
                print(f"{w} run {i + 1}/{a.runs} {cl:18s} wall {r['wall_s']:.3f}s client cpu {r['cpu_s']:.3f}s server cpu {server:.2f}s",
                      file=sys.stderr, flush=True)
        for cl in here:
            wall, cpu, server = (statistics.median(x) for x in zip(*samples[cl]))
            rows.append((w, cl, wall, cpu, server, server / PER[w] * 1e6))
    print(f"Medians of {a.runs} interleaved runs; server CPU from /proc/PID/stat (resolution {1000 // TICK} ms per run).\n")
    print("| workload | client | wall s | client CPU s | server CPU s | server CPU per iteration µs |")
    print("|---|---|---|---|---|---|")
    for w, cl, wall, cpu, server, per in rows:
        print(f"| {w} | {cl} | {wall:.3f} | {cpu:.3f} | {server:.2f} | {per:.0f} |")


if __name__ == "__main__":
    main()
