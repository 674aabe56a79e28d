#!/usr/bin/env bash
# toxiproxy (Shopify's TCP fault proxy) for chwire's fault tests, on loopback.
#
# Installs toxiproxy-server and toxiproxy-cli v2.12.0 from the Go module proxy into
# build/go-bin (`go install ...@v2.12.0`, pinned), starts the server with its HTTP API on
# 127.0.0.1. The tests create their proxies (listening on 127.0.0.1) and toxics over the API.
#
# Usage: scripts/toxiproxy.sh install|start|stop|status|url
#
# Environment:
#   CHWIRE_TOXIPROXY_PORT   API port (default 18730)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION=v2.12.0
BIN_DIR="$ROOT/build/go-bin"
SERVER_BIN="$BIN_DIR/toxiproxy-server"
CLI_BIN="$BIN_DIR/toxiproxy-cli"
STAMP="$BIN_DIR/toxiproxy.version"
DIR="$ROOT/build/toxiproxy"
PID_FILE="$DIR/toxiproxy.pid"
HOST=127.0.0.1
PORT="${CHWIRE_TOXIPROXY_PORT:-18730}"

log() { printf 'toxiproxy.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

cmd_install() {
    # Built by `go install`, the binaries report version "git": a stamp file records ours.
    if [[ -x $SERVER_BIN && -x $CLI_BIN && "$(cat "$STAMP" 2>/dev/null)" == "$VERSION" ]]; then
        return 0
    fi
    command -v go >/dev/null 2>&1 || die "go is missing (apt-get install golang-go)"
    log "installing toxiproxy $VERSION into $BIN_DIR"
    local tmp
    tmp="$(mktemp -d)"
    # `go install` names binaries after their package directories (server, cli).
    GOBIN="$tmp" GOFLAGS=-mod=mod go install "github.com/Shopify/toxiproxy/v2/cmd/server@$VERSION" \
        "github.com/Shopify/toxiproxy/v2/cmd/cli@$VERSION"
    mkdir -p "$BIN_DIR"
    mv "$tmp/server" "$SERVER_BIN"
    mv "$tmp/cli" "$CLI_BIN"
    echo "$VERSION" >"$STAMP"
    rm -rf "$tmp"
}

server_pid() {
    [[ -f $PID_FILE ]] || return 1
    local pid
    pid="$(tr -dc '0-9' <"$PID_FILE")"
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q toxiproxy-server || return 1
    echo "$pid"
}

answers() {
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 2 bash -c '
        exec 3<>"/dev/tcp/$1/$2" || exit 1
        printf "GET /version HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3
        grep -q "^HTTP/1.[01] 200" <&3
    ' _ "$HOST" "$PORT" 2>/dev/null
}

cmd_start() {
    local pid
    if pid="$(server_pid)" && answers; then
        return 0
    fi
    [[ -n ${pid:-} ]] || ! answers || die "port $HOST:$PORT is in use by another process (set CHWIRE_TOXIPROXY_PORT)"
    cmd_install
    mkdir -p "$DIR"
    log "starting toxiproxy on $HOST:$PORT"
    (exec setsid "$SERVER_BIN" -host "$HOST" -port "$PORT" </dev/null >"$DIR/toxiproxy.log" 2>&1) &
    pid=$!
    echo "$pid" >"$PID_FILE"
    local deadline=$((SECONDS + 30))
    until answers; do
        if ! kill -0 "$pid" 2>/dev/null || ((SECONDS > deadline)); then
            tail -n 20 "$DIR/toxiproxy.log" >&2 || true
            die "toxiproxy did not start"
        fi
        sleep 0.1
    done
}

cmd_stop() {
    local pid
    pid="$(server_pid)" || { rm -f "$PID_FILE"; return 0; }
    log "stopping toxiproxy (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
}

cmd_status() {
    if server_pid >/dev/null && answers; then
        echo "running on $HOST:$PORT"
        return 0
    fi
    echo "not running"
    return 1
}

case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    url) echo "http://$HOST:$PORT" ;;
    *)
        echo "usage: scripts/toxiproxy.sh install|start|stop|status|url" >&2
        exit 2
        ;;
esac
