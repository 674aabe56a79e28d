#!/usr/bin/env python3
"""W9 (bench/PEERS.md): W1, W2 and W5 over an emulated network link, each compression.

Two network namespaces of this run's own (`w9s-PORT` for a ClickHouse 26.9 server of its own,
`w9c-PORT` for the clients) joined by bench/netem's link emulator, which plays the part of
`tc qdisc … netem delay D rate R` on each side (this machine's kernel has no sch_netem):

    link "1gbit":   1 Gbit/s, 0.25 ms each way (0.5 ms RTT)
    link "100mbit": 100 Mbit/s, 10 ms each way (20 ms RTT)

Every client runs interleaved per round (as bench/run.py does), inside the client namespace,
against 10.231.0.1 (the server's end of the link; the addresses exist only inside these two
namespaces). Needs root (ip netns). Prints a table per link and which compression wins for each
client, and writes build/bench/w9.json.

    python3 bench/netem/w9.py                      # chwire, chwire-http, ch-go, clickhouse-rs; 1 run
    python3 bench/netem/w9.py --links 100mbit --workloads W2 --compressions none,lz4 --runs 3
    python3 bench/netem/w9.py --smoke              # the link alone: RTT and one W3 of chwire (CI)
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run  # noqa: E402  bench/run.py: client commands, timing, parsing

LINKS = {"1gbit": (1000, 250), "100mbit": (100, 10_000)}  # Mbit/s, one-way delay µs
SERVER_IP, CLIENT_IP = "10.231.0.1", "10.231.0.2"


def sh(*cmd, check=True, **kw):
    return subprocess.run(list(cmd), check=check, cwd=ROOT, **kw)


class Rig:
    """The two namespaces, the link between them and the server behind it."""

    def __init__(self, port, http_port):
        self.port, self.http_port = port, http_port
        self.srv, self.cli = f"w9s-{port}", f"w9c-{port}"
        self.link = None
        self.env = dict(os.environ, CHWIRE_CH_DIR=os.path.join(ROOT, "build/ch26-w9"), CHWIRE_CH_HOST=SERVER_IP,
                        CHWIRE_CH_TCP_PORT=str(port), CHWIRE_CH_HTTP_PORT=str(http_port), CHWIRE_CH_NAME="w9 server")

    def __enter__(self):
        for ns in (self.srv, self.cli):
            sh("ip", "netns", "del", ns, check=False, stderr=subprocess.DEVNULL)
            sh("ip", "netns", "add", ns)
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        return self

    def up(self, link):
        """(Re)starts the link emulator with `link`'s rate and delay, then the server behind it."""
        self.stop_server()
        self.stop_link()
        mbit, delay_us = LINKS[link]
        binary = subprocess.run([os.path.join(HERE, "build.sh")], check=True, capture_output=True, text=True).stdout.strip()
        self.link = subprocess.Popen([binary, "--ns-a", self.srv, "--dev-a", "w9s", "--ns-b", self.cli, "--dev-b", "w9c",
                                      "--rate-mbit", str(mbit), "--delay-us", str(delay_us)], stderr=open(os.path.join(ROOT, "build/bench/netem.log"), "a"))
        deadline = time.time() + 10
        while sh("ip", "netns", "exec", self.srv, "ip", "link", "show", "w9s", check=False, capture_output=True).returncode != 0:
            if time.time() > deadline or self.link.poll() is not None:
                raise SystemExit("the link emulator did not create its devices (see build/bench/netem.log)")
            time.sleep(0.1)
        for ns, dev, me, peer in ((self.srv, "w9s", SERVER_IP, CLIENT_IP), (self.cli, "w9c", CLIENT_IP, SERVER_IP)):
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", me, "peer", peer, "dev", dev)
            sh("ip", "netns", "exec", ns, "ip", "link", "set", dev, "up")
        sh("ip", "netns", "exec", self.srv, "scripts/server.sh", "start", env=self.env)
        self.http(run.W5_DDL)

    def http(self, sql):
        return sh("ip", "netns", "exec", self.srv, "curl", "-fsS", f"http://{SERVER_IP}:{self.http_port}/?user=default",
                  "--data-binary", sql, capture_output=True, text=True).stdout

    def stop_server(self):
        sh("ip", "netns", "exec", self.srv, "scripts/server.sh", "stop", env=self.env, check=False, stderr=subprocess.DEVNULL)

    def stop_link(self):
        if self.link and self.link.poll() is None:
            self.link.terminate()
            self.link.wait()
        self.link = None

    def __exit__(self, *exc):
        self.stop_server()
        self.stop_link()
        for ns in (self.srv, self.cli):
            sh("ip", "netns", "del", ns, check=False)


def rtt_ms(rig):
    """Median connect time over the link (one SYN/SYN-ACK round trip), from the client side."""
    code = ("import socket,time,statistics\nts=[]\nfor _ in range(20):\n t=time.perf_counter()\n"
            f" s=socket.create_connection(('{SERVER_IP}',{rig.http_port}))\n ts.append(time.perf_counter()-t)\n s.close()\n"
            "print(statistics.median(ts)*1e3)")
    out = sh("ip", "netns", "exec", rig.cli, sys.executable, "-c", code, capture_output=True, text=True).stdout
    return float(out.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--links", default="1gbit,100mbit")
    ap.add_argument("--workloads", default="W1,W2,W5")
    ap.add_argument("--compressions", default="none,lz4,zstd")
    ap.add_argument("--clients", default="chwire,chwire-http,ch-go,clickhouse-rs")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("w9.py needs root (ip netns)")
    port = int(os.environ.get("CHWIRE_CH_TCP_PORT", 19000)) + 50
    http_port = int(os.environ.get("CHWIRE_CH_HTTP_PORT", 18123)) + 50
    os.makedirs(os.path.join(ROOT, "build/bench"), exist_ok=True)
    if a.smoke:
        a.links, a.workloads, a.compressions, a.clients = "1gbit", "W3", "none", "chwire"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = {}
    with Rig(port, http_port) as rig:
        for link in a.links.split(","):
            rig.up(link)
            rtt = rtt_ms(rig)
            print(f"link {link}: connect RTT {rtt:.2f} ms", file=sys.stderr, flush=True)
            results[link] = {"rtt_ms": rtt, "runs": {}}
            env = dict(os.environ, CHWIRE_BENCH_SERVER="26.9")
            bases = {cl: run.client_command(cl, port, http_port, host=SERVER_IP) for cl in a.clients.split(",")}
            for w in a.workloads.split(","):
                for c in a.compressions.split(","):
                    for i in range(a.runs):
                        for cl, base in bases.items():
                            key = f"{cl}|{w}|{c}"
                            prev = results[link]["runs"].get(key, [])
                            if prev and prev[-1]["status"] != "ok":
                                continue
                            argv = ["ip", "netns", "exec", rig.cli] + run.argv_for(cl, base, w, c)
                            r = run.parse(run.timed(argv, a.timeout, env), cl, w, c)
                            results[link]["runs"].setdefault(key, []).append(r)
                            desc = f"wall {r['wall_s']:.3f}s cpu {r['cpu_s']:.3f}s" if r["status"] == "ok" else f"{r['status']}: {r.get('reason')}"
                            print(f"{link} {w} {c} run {i + 1}/{a.runs} {cl:14s} {desc}", file=sys.stderr, flush=True)
    with open(os.path.join(ROOT, "build/bench/w9.json"), "w") as f:
        json.dump(results, f, indent=1)
    failed = [k for res in results.values() for k, v in res["runs"].items() if v[-1]["status"] in ("wrong", "error")]
    print(table(results, a))
    if failed:
        print(f"failed: {failed}", file=sys.stderr)
        sys.exit(1)


def table(results, a):
    out = []
    clients = a.clients.split(",")
    comps = a.compressions.split(",")
    for link, res in results.items():
        out.append(f"\n### W9 over {link} ({LINKS[link][0]} Mbit/s, {2 * LINKS[link][1] / 1000:g} ms RTT; measured connect RTT {res['rtt_ms']:.2f} ms)\n")
        out.append("| workload | client | " + " | ".join(f"{c} wall s (CPU s)" for c in comps) + " | fastest |")
        out.append("|---|---|" + "---|" * len(comps) + "---|")
        for w in a.workloads.split(","):
            for cl in clients:
                cells, walls = [], {}
                for c in comps:
                    runs = [r for r in res["runs"].get(f"{cl}|{w}|{c}", []) if r["status"] == "ok"]
                    if runs:
                        wall = statistics.median(r["wall_s"] for r in runs)
                        walls[c] = wall
                        cells.append(f"{wall:.2f} ({statistics.median(r['cpu_s'] for r in runs):.2f})")
                    else:
                        bad = res["runs"].get(f"{cl}|{w}|{c}", [{}])[-1]
                        cells.append(bad.get("status", "–"))
                fastest = min(walls, key=walls.get) if walls else "–"
                out.append(f"| {w} | {cl} | " + " | ".join(cells) + f" | {fastest} |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
