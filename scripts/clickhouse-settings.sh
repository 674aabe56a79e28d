#!/usr/bin/env bash
# Regenerates crates/chwire/src/options/clickhouse-settings.txt from the running 26.9 rig
# (scripts/server.sh start): the names chwire takes as ClickHouse settings in URLs and options.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HTTP="$("$ROOT/scripts/server.sh" http-url)"
version="$(curl -fsS "$HTTP/?query=SELECT+version()")"
out="$ROOT/crates/chwire/src/options/clickhouse-settings.txt"
{
    echo "# ClickHouse $version's session settings (system.settings), one per line, sorted: keys that are no chwire option"
    echo "# and one of these are sent to the server as settings; anything else is refused with the closest name."
    echo "# Regenerate with scripts/clickhouse-settings.sh against the rig's server."
    curl -fsS "$HTTP/?query=SELECT+name+FROM+system.settings+ORDER+BY+name"
} > "$out"
echo "clickhouse-settings.sh: $(grep -vc '^#' "$out") settings of ClickHouse $version in $out"
