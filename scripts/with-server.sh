#!/usr/bin/env bash
# Runs CMD with the local ClickHouse test server up.
#
# Usage: scripts/with-server.sh CMD [ARGS...]
#
# Starts the server (scripts/server.sh start) unless it is already running,
# runs CMD with CHWIRE_TEST_URL set (unless already set), and afterwards stops
# the server only if this invocation started it, also on failure or
# interrupt. A server a developer already had running is left alone.
# Exits with CMD's exit code.
set -euo pipefail

SERVER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/server.sh"

if [[ $# -eq 0 ]]; then
    echo "usage: scripts/with-server.sh CMD [ARGS...]" >&2
    exit 2
fi

started_here=0
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    if [[ $started_here -eq 1 ]]; then
        "$SERVER" stop || true
    fi
}

if ! "$SERVER" status >/dev/null 2>&1; then
    # Armed before starting, so a failed or interrupted start is cleaned up too.
    started_here=1
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    "$SERVER" start
else
    echo "with-server.sh: using the ClickHouse server that is already running" >&2
fi

CHWIRE_TEST_URL="${CHWIRE_TEST_URL:-$("$SERVER" url)}"
export CHWIRE_TEST_URL

rc=0
"$@" || rc=$?
exit "$rc"
