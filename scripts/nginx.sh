#!/usr/bin/env bash
# A private nginx (Debian's package) as a reverse proxy in front of the rig's HTTP interface,
# for the HTTP transport's tests through a real proxy.
#
# Two listeners on 127.0.0.1, both proxying to the ClickHouse HTTP port with HTTP/1.1,
# keep-alive upstream connections, no response or request buffering (streamed results and
# inserts):
#   $CHWIRE_NGINX_PORT      (default 18190) long timeouts
#   $CHWIRE_NGINX_PORT + 1  proxy_read_timeout 1s: cuts a response whose next bytes take longer
# Config, pid, logs and temp files under build/nginx; the system's nginx service is not used.
#
# Usage: scripts/nginx.sh install|start|stop|status|url|cut-url
#
# Environment: CHWIRE_NGINX_PORT; the upstream is CHWIRE_TEST_HTTP_PORT (set by
# scripts/with-server.sh), else CHWIRE_CH_HTTP_PORT, else 18123
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/build/nginx"
PID_FILE="$DIR/nginx.pid"
HOST=127.0.0.1
PORT="${CHWIRE_NGINX_PORT:-18190}"
CUT_PORT=$((PORT + 1))
UPSTREAM_PORT="${CHWIRE_TEST_HTTP_PORT:-${CHWIRE_CH_HTTP_PORT:-18123}}"

log() { printf 'nginx.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

cmd_install() {
    [[ -x /usr/sbin/nginx ]] && return 0
    log "installing Debian's nginx (without starting its service)"
    # policy-rc.d 101: the package's postinst must not start the system service on port 80.
    local policy=/usr/sbin/policy-rc.d created=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null; } ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >/dev/null
    ((created)) && rm -f "$policy"
    [[ -x /usr/sbin/nginx ]] || die "nginx did not install"
}

write_config() {
    mkdir -p "$DIR/conf" "$DIR/logs" "$DIR/tmp"
    local server
    server() {
        cat <<CONF
    server {
        listen $HOST:$1;
        client_max_body_size 0;
        location / {
            proxy_pass http://clickhouse;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout $2;
            proxy_send_timeout 300s;
        }
    }
CONF
    }
    cat >"$DIR/conf/nginx.conf" <<CONF
daemon on;
pid $PID_FILE;
error_log $DIR/logs/error.log warn;
worker_processes 1;
events { worker_connections 256; }
http {
    access_log $DIR/logs/access.log;
    client_body_temp_path $DIR/tmp/body;
    proxy_temp_path $DIR/tmp/proxy;
    fastcgi_temp_path $DIR/tmp/fastcgi;
    uwsgi_temp_path $DIR/tmp/uwsgi;
    scgi_temp_path $DIR/tmp/scgi;
    upstream clickhouse {
        server 127.0.0.1:$UPSTREAM_PORT;
        keepalive 8;
    }
$(server "$PORT" 300s)
$(server "$CUT_PORT" 1s)
}
CONF
}

master_pid() {
    [[ -f $PID_FILE ]] || return 1
    local pid
    pid="$(tr -dc '0-9' <"$PID_FILE")"
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

answers() { curl -s -m 2 -o /dev/null --data-binary 'SELECT 1' "http://$HOST:$PORT/"; }

cmd_start() {
    if master_pid >/dev/null && answers; then return 0; fi
    cmd_install
    write_config
    log "starting nginx on $HOST:$PORT and $HOST:$CUT_PORT (upstream 127.0.0.1:$UPSTREAM_PORT)"
    /usr/sbin/nginx -p "$DIR" -c "$DIR/conf/nginx.conf" -g 'user root;' 2>"$DIR/logs/start.log" || { cat "$DIR/logs/start.log" >&2; die "nginx did not start"; }
    local deadline=$((SECONDS + 20))
    until answers; do
        ((SECONDS < deadline)) || die "nginx does not answer on $HOST:$PORT (is the ClickHouse rig running?)"
        sleep 0.1
    done
}

cmd_stop() {
    local pid
    pid="$(master_pid)" || { rm -f "$PID_FILE"; return 0; }
    log "stopping nginx (pid $pid)"
    kill -QUIT "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    pkill -KILL -f "nginx: worker process" -P "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
}

cmd_status() {
    if master_pid >/dev/null && answers; then echo "running on $HOST:$PORT (cutting proxy on $CUT_PORT)"; return 0; fi
    echo "not running"
    return 1
}

case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    url) echo "http://default@$HOST:$PORT/default" ;;
    cut-url) echo "http://default@$HOST:$CUT_PORT/default" ;;
    *) echo "usage: scripts/nginx.sh install|start|stop|status|url|cut-url" >&2; exit 2 ;;
esac
