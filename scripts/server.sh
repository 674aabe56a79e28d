#!/usr/bin/env bash
# The local ClickHouse 26.9 server for chwire's tests, demo and benchmarks (the default
# server; scripts/server-18.sh runs the oldest supported one, 18.16).
#
# ClickHouse 26.9.2.1 is PyPI's chdb-core 26.9.0 (pinned), installed into its own venv
# (build/ch26-venv, the engine alone: no pandas or pyarrow). scripts/lib/chdb_server.py runs
# a whole clickhouse-local with this instance's config.xml, starts its native and HTTP
# listeners and keeps a statement running so that they serve. Config, data and logs are under
# build/ch26/; it listens on 127.0.0.1 only. Only the native and HTTP listeners exist in
# clickhouse-local (no TLS, MySQL or gRPC), users come from users.xml only (CREATE USER is
# refused), and it has no ZooKeeper client (ReplicatedMergeTree stays read-only): TLS and
# replication tests run on 18.16. Files in CHWIRE_CH_DIR/config.d/*.xml (scripts/cluster.sh's
# remote_servers) are merged into the config by the server itself.
#
# Usage: scripts/server.sh install|start|stop|status|wait|url|http-url|version
#
# Environment:
#   CHWIRE_CH_TCP_PORT       native protocol port (default 19000)
#   CHWIRE_CH_HTTP_PORT      HTTP port (default 18123)
#   CHWIRE_CH_TZ             the server's time zone (default UTC; e.g. Asia/Kolkata)
#   CHWIRE_CH_DIR            instance directory (default build/ch26)
#   CHWIRE_CH_NAME           the instance's name in messages (default server.sh)
#   CHWIRE_CH_START_TIMEOUT  seconds to wait for the server to answer (default 60)
#   CHWIRE_CH_STOP_TIMEOUT   seconds to wait for it to exit before SIGKILL (default 20)
#   CHWIRE_CH26_VENV         the venv with chdb-core (default build/ch26-venv)
#   CHWIRE_CH_PROTO_CAPS     the packet framing it offers both ways (default notchunked_optional;
#                            a real server's default is notchunked, chunked for a strict one)
#   CHWIRE_CH_HOST           the address it listens on (default 127.0.0.1); another address also
#                            admits the users from its /24 (bench/netem/w9.py: a server inside a
#                            network namespace of its own, reached over an emulated link)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CH_DIR="${CHWIRE_CH_DIR:-$ROOT/build/ch26}"
VENV="${CHWIRE_CH26_VENV:-$ROOT/build/ch26-venv}"
CHDB_VERSION=26.9.0
PROTO_CAPS="${CHWIRE_CH_PROTO_CAPS:-notchunked_optional}"
HOST="${CHWIRE_CH_HOST:-127.0.0.1}"
TCP_PORT="${CHWIRE_CH_TCP_PORT:-19000}"
HTTP_PORT="${CHWIRE_CH_HTTP_PORT:-18123}"
TZ_NAME="${CHWIRE_CH_TZ:-UTC}"
START_TIMEOUT="${CHWIRE_CH_START_TIMEOUT:-60}"
STOP_TIMEOUT="${CHWIRE_CH_STOP_TIMEOUT:-20}"
NAME="${CHWIRE_CH_NAME:-server.sh}"
PID_FILE="$CH_DIR/server.pid"
LOG_DIR="$CH_DIR/log"
STDOUT_LOG="$LOG_DIR/stdout.log"
ERROR_LOG="$LOG_DIR/clickhouse-server.err.log"
LAUNCHER="$ROOT/scripts/lib/chdb_server.py"

# shellcheck source=lib/rig.sh
source "$ROOT/scripts/lib/rig.sh"

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
}

# --- install -----------------------------------------------------------------

have_chdb() {
    [[ -x $VENV/bin/python ]] && "$VENV/bin/python" - "$CHDB_VERSION" <<'PY' >/dev/null 2>&1
import sys
from importlib.metadata import version
import chdb._chdb  # noqa: F401
sys.exit(0 if version("chdb-core") == sys.argv[1] else 1)
PY
}

cmd_install() {
    have_chdb && return 0
    local py="${PYTHON:-python3}"
    command -v "$py" >/dev/null 2>&1 || die "$py not found; install Python 3 (Debian: apt-get install python3 python3-venv)"
    "$py" -c 'import venv, ensurepip' >/dev/null 2>&1 ||
        die "the Python venv module is missing; install python3-venv (apt-get install -y python3-venv)"
    [[ -x $VENV/bin/python ]] || "$py" -m venv "$VENV"
    log "installing chdb-core==$CHDB_VERSION (ClickHouse 26.9) into $VENV (~180 MB download)"
    # --no-deps: the server is the extension module alone; chdb's pandas/pyarrow API is unused.
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 "$VENV/bin/python" -m pip install --no-input --quiet \
        --no-deps "chdb-core==$CHDB_VERSION" >&2
    have_chdb || die "chdb-core==$CHDB_VERSION installed but 'import chdb._chdb' fails in $VENV"
}

# --- probing -----------------------------------------------------------------

server_pid() { pid_from_file "$PID_FILE" chdb_server.py; }

# A query over HTTP (the 18.16 clickhouse-client cannot read some of 26.9's answers).
http_query() {
    curl -fsS --max-time 20 "http://$HOST:$HTTP_PORT/" --data-binary "$1"
}

answers() {
    http_ping "$HTTP_PORT" && [[ "$(http_query 'SELECT 1' 2>/dev/null)" == 1 ]] && port_open "$TCP_PORT"
}

wait_ready() {
    local pid=${1:-} deadline=$((SECONDS + START_TIMEOUT))
    while ((SECONDS < deadline)); do
        if [[ -n $pid ]] && ! alive "$pid"; then
            log "server process $pid exited during startup"
            return 1
        fi
        answers && return 0
        sleep 0.25
    done
    log "server did not answer on $HOST:$TCP_PORT / $HTTP_PORT within ${START_TIMEOUT}s"
    return 1
}

# --- config ------------------------------------------------------------------

write_config() {
    mkdir -p "$CH_DIR"/{data,tmp,user_files,config.d} "$LOG_DIR"
    cat >"$CH_DIR/config.xml" <<XML
<?xml version="1.0"?>
<!-- Generated by scripts/server.sh; rewritten on every start. -->
<clickhouse>
    <logger>
        <level>information</level>
        <log>$LOG_DIR/clickhouse-server.log</log>
        <errorlog>$ERROR_LOG</errorlog>
        <size>100M</size>
        <count>3</count>
    </logger>
    <listen_host>$HOST</listen_host>
    <tcp_port>$TCP_PORT</tcp_port>
    <http_port>$HTTP_PORT</http_port>
    <tmp_path>$CH_DIR/tmp/</tmp_path>
    <user_files_path>$CH_DIR/user_files/</user_files_path>
    <users_config>$CH_DIR/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <max_concurrent_queries>200</max_concurrent_queries>
    <mlock_executable>false</mlock_executable>
    <!-- Chunked packet framing (revision 54470): a server's default is notchunked; the rig
         makes it optional, so that clients frame only when they ask (chwire's chunked=true,
         tested live) and by default talk as to any server. -->
    <proto_caps>
        <send>$PROTO_CAPS</send>
        <recv>$PROTO_CAPS</recv>
    </proto_caps>
</clickhouse>
XML
    # The users of the 18.16 rig. clickhouse-local changes four defaults that a server does
    # not: they are set back here, so that sessions behave as a server's.
    cat >"$CH_DIR/users.xml" <<'XML'
<?xml version="1.0"?>
<!-- Generated by scripts/server.sh; rewritten on every start. -->
<clickhouse>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <implicit_select>0</implicit_select>
            <allow_introspection_functions>0</allow_introspection_functions>
            <storage_file_read_method>pread</storage_file_read_method>
            <default_format>TabSeparated</default_format>
        </default>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>::1</ip><ip>127.0.0.1</ip>EXTRA_NETWORK</networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <!-- For authentication tests. -->
        <chwire_test>
            <password>s3cret</password>
            <networks><ip>::1</ip><ip>127.0.0.1</ip>EXTRA_NETWORK</networks>
            <profile>default</profile>
            <quota>default</quota>
        </chwire_test>
    </users>
    <quotas><default></default></quotas>
</clickhouse>
XML
    local extra=""
    [[ $HOST == 127.0.0.1 ]] || extra="<ip>${HOST%.*}.0/24</ip>"
    sed -i "s#EXTRA_NETWORK#$extra#" "$CH_DIR/users.xml"
}

# --- commands ----------------------------------------------------------------

cmd_start() {
    local pid
    if pid="$(server_pid)"; then
        if wait_ready "$pid"; then
            log "already running (pid $pid) on $HOST:$TCP_PORT"
            return 0
        fi
        show_logs "$STDOUT_LOG" "$ERROR_LOG"
        die "server pid $pid is alive but does not answer; try: scripts/server.sh stop"
    fi
    rm -f "$PID_FILE"
    local port
    for port in "$TCP_PORT" "$HTTP_PORT"; do
        port_open "$port" && die "port $HOST:$port is already in use by another process (set CHWIRE_CH_TCP_PORT / CHWIRE_CH_HTTP_PORT)"
    done
    cmd_install
    write_config
    : >"$ERROR_LOG"
    log "starting ClickHouse 26.9 on $HOST:$TCP_PORT (http $HTTP_PORT, TZ $TZ_NAME), files in $CH_DIR"
    # In a new session, so it outlives this script and terminal signals; the pid is known at
    # once and an early exit is seen.
    (cd "$CH_DIR" && exec env TZ="$TZ_NAME" setsid "$VENV/bin/python" "$LAUNCHER" "$CH_DIR/data/" \
        </dev/null >"$STDOUT_LOG" 2>&1) &
    pid=$!
    printf '%s\n' "$pid" >"$PID_FILE"
    if ! wait_ready "$pid"; then
        show_logs "$STDOUT_LOG" "$ERROR_LOG"
        alive "$pid" && kill -KILL "$pid" 2>/dev/null
        rm -f "$PID_FILE"
        die "ClickHouse 26.9 failed to start"
    fi
    log "started (pid $pid, version $(http_query 'SELECT version()' 2>/dev/null || echo '?'), time zone $(http_query 'SELECT timezone()' 2>/dev/null || echo '?'))"
}

cmd_stop() {
    local pid
    if ! pid="$(server_pid)"; then
        rm -f "$PID_FILE"
        log "not running"
        return 0
    fi
    log "stopping pid $pid"
    # Ends the keep-alive statement (the KILL's own text does not start with SELECT).
    http_query "KILL QUERY WHERE query LIKE 'SELECT sleepEachRow(1)%chwire-rig-keepalive%' ASYNC" >/dev/null 2>&1 || true
    if ! wait_exit "$pid" "$STOP_TIMEOUT"; then
        log "still alive after ${STOP_TIMEOUT}s"
        terminate "$pid" 5
    fi
    rm -f "$PID_FILE"
    log "stopped"
}

cmd_status() {
    local pid version
    if pid="$(server_pid)"; then
        if version="$(http_query 'SELECT version()' 2>/dev/null)"; then
            echo "running (pid $pid) on $HOST:$TCP_PORT (http $HTTP_PORT), version $version"
            return 0
        fi
        echo "not running: pid $pid is alive but does not answer on $HOST:$HTTP_PORT"
        return 1
    fi
    echo "not running"
    return 1
}

cmd_wait() {
    local pid=""
    pid="$(server_pid)" || true
    wait_ready "$pid" || { show_logs "$STDOUT_LOG" "$ERROR_LOG"; exit 1; }
}

main() {
    [[ $# -eq 1 ]] || { usage; exit 2; }
    case "$1" in
        install) cmd_install ;;
        start) cmd_start ;;
        stop) cmd_stop ;;
        status) cmd_status ;;
        wait) cmd_wait ;;
        url) echo "tcp://default@$HOST:$TCP_PORT/default" ;;
        http-url) echo "http://default@$HOST:$HTTP_PORT/default" ;;
        version) echo 26.9 ;;
        -h | --help | help) usage ;;
        *) usage; exit 2 ;;
    esac
}

main "$@"
