#!/usr/bin/env python3
"""Benchmark peers for chwire (protocol: bench/PEERS.md).

--client clickhouse-driver         clickhouse-driver (native TCP protocol; driver.py)
--client clickhouse-connect[-rust|-arrow|-1.6]   clickhouse-connect (HTTP; connect.py)
--client st-clickhouse             st-clickhouse-py (native protocol, Python >= 3.12; st.py)

Each runs from its venv (bench/peers/python/setup.sh): build/bench-venv (clickhouse-connect
1.6.0 for 18.16), build/bench-venv-current (clickhouse-connect current with its Rust codec,
clickhouse-driver), build/bench-venv-py312 (st-clickhouse-py).

Run with the venv made by bench/peers/python/setup.sh:
    build/bench-venv/bin/python bench/peers/python/peer.py --client clickhouse-driver \
        --workload W1 --compression none --host 127.0.0.1 --port 19000 --http-port 18123
"""
import argparse
import sys


from common import WORKLOADS, Unsupported

CLIENTS = ["clickhouse-driver", "clickhouse-connect", "clickhouse-connect-rust", "clickhouse-connect-arrow",
           "clickhouse-connect-1.6", "st-clickhouse"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--client", required=True, choices=CLIENTS)
    p.add_argument("--workload", required=True, choices=WORKLOADS)
    p.add_argument("--compression", default="none", choices=["none", "lz4", "zstd"])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=19000)
    p.add_argument("--http-port", type=int, default=18123)
    a = p.parse_args()

    if a.client == "clickhouse-driver":
        import driver as peer
    elif a.client == "st-clickhouse":
        import st as peer
    else:
        import connect as peer
    try:
        res = peer.run(a)
    except Unsupported as e:
        print(f"UNSUPPORTED client={a.client} workload={a.workload} compression={a.compression} reason={e}")
        return 0
    wall, rows, check, extra = res if len(res) == 4 else (*res, "")
    print(f"RESULT client={a.client} workload={a.workload} compression={a.compression} "
          f"wall_s={wall:.6f} rows={rows} check={check}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
