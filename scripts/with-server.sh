#!/usr/bin/env bash
# Runs CMD with the local ClickHouse test server(s) up.
#
# Usage: scripts/with-server.sh [--18 | --both] CMD [ARGS...]
#
#   (default)  ClickHouse 26.9 (scripts/server.sh): CHWIRE_TEST_URL, CHWIRE_TEST_HTTP_URL
#   --18       ClickHouse 18.16 only (scripts/server-18.sh), in the same two variables
#   --both     both: 26.9 in those two, 18.16 in CHWIRE_TEST_URL_18, CHWIRE_TEST_HTTP_URL_18
#
# CHWIRE_TEST_SERVER says which server CHWIRE_TEST_URL is (26.9 or 18.16), CHWIRE_TEST_TCP_PORT
# and CHWIRE_TEST_HTTP_PORT the ports of the two URLs. Variables already
# set are kept. Servers not running yet are started, and afterwards stopped only if this
# invocation started them, also on failure or interrupt. A server a developer already had
# running is left alone. Exits with CMD's exit code.
set -euo pipefail

SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode=26
case "${1:-}" in
    --18) mode=18; shift ;;
    --both) mode=both; shift ;;
esac
if [[ $# -eq 0 ]]; then
    echo "usage: scripts/with-server.sh [--18 | --both] CMD [ARGS...]" >&2
    exit 2
fi

stop_list=()
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
    local s
    for s in "${stop_list[@]}"; do "$s" stop || true; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Starts the server of script $1 unless it runs; armed before starting, so that a failed or
# interrupted start is cleaned up too.
up() {
    if ! "$1" status >/dev/null 2>&1; then
        stop_list+=("$1")
        "$1" start
    else
        echo "with-server.sh: using the ClickHouse $("$1" version) server that is already running" >&2
    fi
}

case $mode in
    26)
        up "$SCRIPTS/server.sh"
        main="$SCRIPTS/server.sh"
        ;;
    18)
        up "$SCRIPTS/server-18.sh"
        main="$SCRIPTS/server-18.sh"
        export CHWIRE_TEST_URL_18="${CHWIRE_TEST_URL_18:-$("$main" url)}"
        export CHWIRE_TEST_HTTP_URL_18="${CHWIRE_TEST_HTTP_URL_18:-$("$main" http-url)}"
        ;;
    both)
        up "$SCRIPTS/server.sh"
        up "$SCRIPTS/server-18.sh"
        main="$SCRIPTS/server.sh"
        export CHWIRE_TEST_URL_18="${CHWIRE_TEST_URL_18:-$("$SCRIPTS/server-18.sh" url)}"
        export CHWIRE_TEST_HTTP_URL_18="${CHWIRE_TEST_HTTP_URL_18:-$("$SCRIPTS/server-18.sh" http-url)}"
        ;;
esac
export CHWIRE_TEST_URL="${CHWIRE_TEST_URL:-$("$main" url)}"
export CHWIRE_TEST_HTTP_URL="${CHWIRE_TEST_HTTP_URL:-$("$main" http-url)}"
export CHWIRE_TEST_SERVER="${CHWIRE_TEST_SERVER:-$("$main" version)}"
# The ports of the two URLs (scripts/nginx.sh proxies the HTTP one; suites that switch
# CHWIRE_TEST_URL to HTTP still reach the native one).
port="${CHWIRE_TEST_HTTP_URL##*:}"
export CHWIRE_TEST_HTTP_PORT="${CHWIRE_TEST_HTTP_PORT:-${port%%/*}}"
port="${CHWIRE_TEST_URL##*:}"
export CHWIRE_TEST_TCP_PORT="${CHWIRE_TEST_TCP_PORT:-${port%%/*}}"

rc=0
"$@" || rc=$?
exit "$rc"
