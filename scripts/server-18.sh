#!/usr/bin/env bash
# The oldest ClickHouse chwire supports, 18.16 (protocol revision 54412), for chwire's tests
# of old servers and of TLS (scripts/server.sh runs the default server, ClickHouse 26.9).
#
# Runs a private ClickHouse server (Debian's clickhouse-server package) with
# its own config, data and logs under build/clickhouse/ in the repository.
# It listens on 127.0.0.1 only and never touches /etc/clickhouse-server.
# scripts/cluster.sh runs several instances through this script, each with its
# own CHWIRE_CH18_DIR and ports; files in CHWIRE_CH18_DIR/config.d/*.xml are left
# alone here and merged into the config by the server itself.
#
# Usage: scripts/server-18.sh install|start|stop|status|wait|url|http-url|version
#
# Environment:
#   CHWIRE_CH18_TCP_PORT       native protocol port (default 19100)
#   CHWIRE_CH18_HTTP_PORT      HTTP port, used for /ping (default 18200)
#   CHWIRE_CH18_START_TIMEOUT  seconds to wait for the server to answer (default 60)
#   CHWIRE_CH18_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL (default 30)
#   CHWIRE_CH18_DIR            instance directory (default build/clickhouse)
#   CHWIRE_CH18_NAME           the instance's name in messages (default server-18.sh)
#   CHWIRE_CH18_TLS_PORT       native protocol over TLS, tcp_port_secure (default: TCP port + 40;
#                              "off" disables TLS)
#   CHWIRE_CH18_HTTPS_PORT     HTTPS port (default: HTTP port + 40)
#   CHWIRE_CH18_TLS_CERT       which test certificate the server shows: server (default),
#                              expired or other-server (see scripts/tls-certs.sh)
#   CHWIRE_CH18_TLS_DIR        where the test certificates are (default build/clickhouse/tls)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CH_DIR="${CHWIRE_CH18_DIR:-$ROOT/build/clickhouse}"
CONFIG_FILE="$CH_DIR/config.xml"
USERS_FILE="$CH_DIR/users.xml"
PID_FILE="$CH_DIR/clickhouse-server.pid"
LOG_DIR="$CH_DIR/log"
SERVER_LOG="$LOG_DIR/clickhouse-server.log"
ERROR_LOG="$LOG_DIR/clickhouse-server.err.log"
STDOUT_LOG="$LOG_DIR/stdout.log"

HOST=127.0.0.1
TCP_PORT="${CHWIRE_CH18_TCP_PORT:-19100}"
HTTP_PORT="${CHWIRE_CH18_HTTP_PORT:-18200}"
TLS_PORT="${CHWIRE_CH18_TLS_PORT:-$((TCP_PORT + 40))}"
HTTPS_PORT="${CHWIRE_CH18_HTTPS_PORT:-$((HTTP_PORT + 40))}"
TLS_CERT="${CHWIRE_CH18_TLS_CERT:-server}"
TLS_DIR="${CHWIRE_CH18_TLS_DIR:-$ROOT/build/clickhouse/tls}"
START_TIMEOUT="${CHWIRE_CH18_START_TIMEOUT:-60}"
STOP_TIMEOUT="${CHWIRE_CH18_STOP_TIMEOUT:-30}"

# /usr/sbin is not always on a non-root PATH; the Debian package puts the server there.
PATH="$PATH:/usr/sbin:/usr/local/sbin"

SERVER_CMD=()
CLIENT_CMD=()

NAME="${CHWIRE_CH18_NAME:-server-18.sh}"

# shellcheck source=lib/rig.sh
source "$ROOT/scripts/lib/rig.sh"

usage() {
    cat >&2 <<EOF
usage: scripts/server-18.sh COMMAND

commands:
  install   install clickhouse-server and clickhouse-client (apt) if missing
  start     write the config under build/clickhouse/ and start the server
            (installs it first if needed); no-op if it is already running
  stop      stop the server started by 'start' (SIGKILL after ${STOP_TIMEOUT}s)
  status    print whether the server runs and its version; exit 0 if it does
  wait      wait up to ${START_TIMEOUT}s until the server answers
  url       print the native URL (CHWIRE_TEST_URL_18 of the tests)
  http-url  print the HTTP URL
  version   print 18.16

environment: CHWIRE_CH18_TCP_PORT (${TCP_PORT}), CHWIRE_CH18_HTTP_PORT (${HTTP_PORT}),
  CHWIRE_CH18_TLS_PORT (${TLS_PORT}), CHWIRE_CH18_HTTPS_PORT (${HTTPS_PORT}), CHWIRE_CH18_DIR, CHWIRE_CH18_TLS_CERT
EOF
}

# --- locating binaries -------------------------------------------------------

find_server() {
    if command -v clickhouse-server >/dev/null 2>&1; then
        SERVER_CMD=(clickhouse-server)
    elif command -v clickhouse >/dev/null 2>&1; then
        SERVER_CMD=(clickhouse server)
    else
        return 1
    fi
}

find_client() {
    if command -v clickhouse-client >/dev/null 2>&1; then
        CLIENT_CMD=(clickhouse-client)
    elif command -v clickhouse >/dev/null 2>&1; then
        CLIENT_CMD=(clickhouse client)
    else
        return 1
    fi
}

cmd_install() {
    if find_server && find_client; then
        return 0
    fi
    local sudo=()
    if [[ $EUID -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "clickhouse is not installed and we are not root (no sudo either)"
        sudo=(sudo)
    fi
    log "installing clickhouse-server and clickhouse-client with apt-get"
    local apt_opts=(-o DPkg::Lock::Timeout=300)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update </dev/null
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends \
        clickhouse-server clickhouse-client </dev/null
    find_server || die "clickhouse-server still not found after apt-get install"
    find_client || die "clickhouse-client still not found after apt-get install"
}

# --- probing -----------------------------------------------------------------

# The pid of our server, if the pid file names a live clickhouse process.
server_pid() { pid_from_file "$PID_FILE" clickhouse; }

# Runs a query through the native protocol port; extra args go to the client.
ch_query() {
    local query=$1
    shift
    find_client || die "clickhouse-client not found (run: scripts/server-18.sh install)"
    timeout 20 "${CLIENT_CMD[@]}" --host "$HOST" --port "$TCP_PORT" "$@" --query "$query" </dev/null
}

answers() {
    http_ping "$HTTP_PORT" && ch_query 'SELECT 1' >/dev/null 2>&1
}

# Waits until the server answers. With a pid, fails early if that process dies.
wait_ready() {
    local pid=${1:-} deadline=$((SECONDS + START_TIMEOUT))
    while ((SECONDS < deadline)); do
        if [[ -n $pid ]] && ! alive "$pid"; then
            log "server process $pid exited during startup"
            return 1
        fi
        if answers; then
            return 0
        fi
        sleep 0.25
    done
    log "server did not answer on $HOST:$TCP_PORT within ${START_TIMEOUT}s"
    return 1
}

# --- config ------------------------------------------------------------------

write_config() {
    mkdir -p "$CH_DIR"/{data,tmp,user_files,format_schemas,config.d} "$LOG_DIR"
    # Element names as in 18.16's /etc/clickhouse-server/config.xml (root <yandex>).
    # No <interserver_http_port>: the interserver port stays disabled.
    cat >"$CONFIG_FILE" <<EOF
<?xml version="1.0"?>
<!-- Generated by scripts/server-18.sh; rewritten on every start. -->
<yandex>
    <logger>
        <level>information</level>
        <log>$SERVER_LOG</log>
        <errorlog>$ERROR_LOG</errorlog>
        <size>100M</size>
        <count>3</count>
    </logger>

    <listen_host>$HOST</listen_host>
    <tcp_port>$TCP_PORT</tcp_port>
    <http_port>$HTTP_PORT</http_port>

    <path>$CH_DIR/data/</path>
    <tmp_path>$CH_DIR/tmp/</tmp_path>
    <user_files_path>$CH_DIR/user_files/</user_files_path>
    <format_schema_path>$CH_DIR/format_schemas/</format_schema_path>

    <users_config>$USERS_FILE</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>

    <max_connections>1024</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <mlock_executable>false</mlock_executable>
</yandex>
EOF
    cat >"$USERS_FILE" <<'EOF'
<?xml version="1.0"?>
<!-- Generated by scripts/server-18.sh; rewritten on every start. -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type>
        </default>
    </profiles>

    <users>
        <default>
            <password></password>
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <!-- For authentication tests. -->
        <chwire_test>
            <password>s3cret</password>
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </chwire_test>
    </users>

    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
}

# TLS: test certificates (scripts/tls-certs.sh) and the secure ports, in config.d/tls.xml
# (merged into the config by the server). Client certificates are verified when offered
# (verificationMode relaxed: a certificate the test CA did not sign is refused).
write_tls_config() {
    rm -f "$CH_DIR/config.d/tls.xml"
    [[ $TLS_PORT != off ]] || return 0
    if ! command -v openssl >/dev/null 2>&1; then
        log "installing openssl (for the TLS test certificates) with apt-get"
        local sudo=()
        [[ $EUID -eq 0 ]] || sudo=(sudo)
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends openssl </dev/null ||
            die "openssl is needed for the TLS test certificates (apt-get install openssl)"
    fi
    "$ROOT/scripts/tls-certs.sh" "$TLS_DIR"
    cat >"$CH_DIR/config.d/tls.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by scripts/server-18.sh; rewritten on every start. -->
<yandex>
    <tcp_port_secure>$TLS_PORT</tcp_port_secure>
    <https_port>$HTTPS_PORT</https_port>
    <openSSL>
        <server>
            <certificateFile>$TLS_DIR/$TLS_CERT.pem</certificateFile>
            <privateKeyFile>$TLS_DIR/$TLS_CERT.key</privateKeyFile>
            <caConfig>$TLS_DIR/ca.pem</caConfig>
            <verificationMode>relaxed</verificationMode>
            <loadDefaultCAFile>false</loadDefaultCAFile>
            <cacheSessions>true</cacheSessions>
            <disableProtocols>sslv2,sslv3,tlsv1,tlsv1_1</disableProtocols>
            <preferServerCiphers>true</preferServerCiphers>
        </server>
    </openSSL>
</yandex>
EOF
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
        die "server pid $pid is alive but does not answer; try: scripts/server-18.sh stop"
    fi
    rm -f "$PID_FILE"

    local port
    for port in "$TCP_PORT" "$HTTP_PORT" $([[ $TLS_PORT == off ]] || echo "$TLS_PORT $HTTPS_PORT"); do
        if port_open "$port"; then
            die "port $HOST:$port is already in use by another process (set CHWIRE_CH18_TCP_PORT / CHWIRE_CH18_HTTP_PORT)"
        fi
    done

    cmd_install
    write_config
    write_tls_config
    # Fresh error logs per start, so a failure shows this start's errors only.
    : >"$ERROR_LOG"

    log "starting ClickHouse on $HOST:$TCP_PORT (http $HTTP_PORT, tls $TLS_PORT, https $HTTPS_PORT), files in $CH_DIR"
    # Foreground mode in a new session instead of --daemon: we learn the pid
    # at once and can see an early exit (18.16's --daemon dies silently on
    # some errors, e.g. a missing log directory). setsid detaches it from our
    # process group so it outlives this script and terminal signals.
    (cd "$CH_DIR" && exec setsid "${SERVER_CMD[@]}" --config-file="$CONFIG_FILE" \
        </dev/null >"$STDOUT_LOG" 2>&1) &
    pid=$!
    printf '%s\n' "$pid" >"$PID_FILE"

    if ! wait_ready "$pid"; then
        show_logs "$STDOUT_LOG" "$ERROR_LOG"
        if kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$PID_FILE"
        die "ClickHouse failed to start"
    fi
    log "started (pid $pid, version $(ch_query 'SELECT version()' 2>/dev/null || echo '?'))"
}

cmd_stop() {
    local pid
    if ! pid="$(server_pid)"; then
        rm -f "$PID_FILE"
        log "not running"
        return 0
    fi
    log "stopping pid $pid"
    terminate "$pid" "$STOP_TIMEOUT"
    rm -f "$PID_FILE"
    log "stopped"
}

cmd_status() {
    local pid version
    if pid="$(server_pid)"; then
        if version="$(ch_query 'SELECT version()' 2>/dev/null)"; then
            echo "running (pid $pid) on $HOST:$TCP_PORT, version $version"
            return 0
        fi
        echo "not running: pid $pid is alive but does not answer on $HOST:$TCP_PORT"
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

cmd_url() {
    echo "tcp://default@$HOST:$TCP_PORT/default"
}

main() {
    if [[ $# -ne 1 ]]; then
        usage
        exit 2
    fi
    case "$1" in
        install) cmd_install ;;
        start) cmd_start ;;
        stop) cmd_stop ;;
        status) cmd_status ;;
        wait) cmd_wait ;;
        url) cmd_url ;;
        http-url) echo "http://default@$HOST:$HTTP_PORT/default" ;;
        version) echo 18.16 ;;
        -h | --help | help) usage ;;
        *)
            usage
            exit 2
            ;;
    esac
}

main "$@"
