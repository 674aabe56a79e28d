#!/usr/bin/env bash
# Interleaved runs (chwire, clickhouse-client, chwire, ...) of one query printed as TSV to
# /dev/null; prints each run and the medians of wall time, user CPU and peak RSS.
# Usage: scripts/bench-cli-tsv.sh [RUNS] [SQL]   (server: scripts/server.sh start)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-5}"
SQL="${2:-SELECT number FROM system.numbers LIMIT 100000000}"
PORT="${CHWIRE_CH_TCP_PORT:-19000}"
CHWIRE="$ROOT/target/release/chwire"
[ -x "$CHWIRE" ] || (cd "$ROOT" && cargo build --release -p chwire-cli)
TMP="$(mktemp)"
trap 'rm -f "$TMP"' EXIT
for _ in $(seq "$RUNS"); do
    /usr/bin/time -a -o "$TMP" -f "chwire %e %U %M" "$CHWIRE" --port "$PORT" query --format tsv "$SQL" >/dev/null
    /usr/bin/time -a -o "$TMP" -f "clickhouse-client %e %U %M" clickhouse-client --port "$PORT" --format TSV --query "$SQL" </dev/null >/dev/null
done
cat "$TMP"
python3 - "$TMP" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
med = {}
for name in ("chwire", "clickhouse-client"):
    r = [x for x in rows if x[0] == name]
    med[name] = [statistics.median(float(x[i]) for x in r) for i in (1, 2, 3)]
    print(f"median {name}: wall {med[name][0]:.2f} s, user {med[name][1]:.2f} s, peak RSS {med[name][2]/1024:.1f} MiB")
a, b = med["chwire"], med["clickhouse-client"]
print(f"ratio chwire/clickhouse-client: wall {a[0]/b[0]:.2f}, user CPU {a[1]/b[1]:.2f}, RSS {a[2]/b[2]:.2f}")
PY
