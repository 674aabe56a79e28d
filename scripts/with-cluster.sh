#!/usr/bin/env bash
# Runs CMD with the three-server cluster (scripts/cluster.sh) up, and with --toxiproxy also
# the fault proxy (scripts/toxiproxy.sh). The cluster is of ClickHouse 26.9, or with --18 of
# 18.16 (CHWIRE_CLUSTER_SERVER).
#
# Usage: scripts/with-cluster.sh [--18] [--toxiproxy] CMD [ARGS...]
#
# Starts what is not running yet, runs CMD with the cluster's environment
# (CHWIRE_CLUSTER_URL, CHWIRE_CLUSTER_NODE1..3, CHWIRE_CLUSTER_SCRIPT and, with --toxiproxy,
# CHWIRE_TOXIPROXY_URL) and afterwards stops only what this invocation started, also on
# failure or interrupt. Exits with CMD's exit code.
set -euo pipefail

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLUSTER="$SCRIPTS/cluster.sh"
TOXIPROXY="$SCRIPTS/toxiproxy.sh"

toxi=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --toxiproxy) toxi=1; shift ;;
        --18) export CHWIRE_CLUSTER_SERVER=18.16; shift ;;
        *) break ;;
    esac
done
if [[ $# -eq 0 ]]; then
    echo "usage: scripts/with-cluster.sh [--18] [--toxiproxy] CMD [ARGS...]" >&2
    exit 2
fi

cluster_here=0
toxi_here=0
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    if [[ $toxi_here -eq 1 ]]; then "$TOXIPROXY" stop || true; fi
    if [[ $cluster_here -eq 1 ]]; then "$CLUSTER" stop || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Armed before starting, so a failed or interrupted start is cleaned up too. A cluster of
# which something already runs (ZooKeeper, or a node while another was killed by a fault
# test) belongs to whoever started it: the missing parts are started, nothing is stopped.
if ! "$CLUSTER" status >/dev/null 2>&1; then
    parts="$("$CLUSTER" status 2>/dev/null || true)"
    if ! grep -q ': running' <<<"$parts"; then
        cluster_here=1
    fi
    "$CLUSTER" start
else
    echo "with-cluster.sh: using the cluster that is already running" >&2
fi
if [[ $toxi -eq 1 ]]; then
    if ! "$TOXIPROXY" status >/dev/null 2>&1; then
        toxi_here=1
        "$TOXIPROXY" start
    fi
    CHWIRE_TOXIPROXY_URL="$("$TOXIPROXY" url)"
    export CHWIRE_TOXIPROXY_URL
fi

while IFS= read -r line; do
    export "${line?}"
done < <("$CLUSTER" env)

rc=0
"$@" || rc=$?
exit "$rc"
