# Shell helpers shared by the server scripts (scripts/server.sh for ClickHouse 26.9,
# scripts/server-18.sh for 18.16): process liveness, ports, the HTTP ping, the wait loops.
# Sourced, not run; the caller sets NAME (its name in messages) and HOST.

log() { printf '%s: %s\n' "$NAME" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# True while the process exists and is not a zombie awaiting reaping.
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    if [[ -r /proc/$1/stat ]]; then
        local stat
        stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
        stat="${stat##*) }"
        [[ ${stat:0:1} != Z ]] || return 1
    fi
}

# Prints the pid in file $1 if it names a live process whose command line contains $2
# (guards against a recycled pid).
pid_from_file() {
    [[ -f $1 ]] || return 1
    local pid
    pid="$(tr -dc '0-9' <"$1")"
    [[ -n $pid ]] || return 1
    alive "$pid" || return 1
    if [[ -r /proc/$pid/cmdline ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2"; then
        return 1
    fi
    printf '%s\n' "$pid"
}

# Waits up to $2 seconds for process $1 to exit.
wait_exit() {
    local deadline=$((SECONDS + $2))
    while alive "$1"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# True if something accepts TCP connections on port $1.
port_open() {
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$HOST" "$1" 2>/dev/null
}

# True if the HTTP interface on port $1 answers /ping with "Ok.".
http_ping() {
    if command -v curl >/dev/null 2>&1; then
        [[ "$(curl -fsS --max-time 2 "http://$HOST:$1/ping" 2>/dev/null)" == Ok.* ]]
        return
    fi
    # Fallback without curl: raw HTTP/1.0 over bash's /dev/tcp.
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 3 bash -c '
        exec 3<>"/dev/tcp/$1/$2" || exit 1
        printf "GET /ping HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3
        grep -q "^Ok\." <&3
    ' _ "$HOST" "$1" 2>/dev/null
}

# SIGTERM, then SIGKILL after $2 seconds, of process $1.
terminate() {
    kill -TERM "$1" 2>/dev/null || true
    if ! wait_exit "$1" "$2"; then
        log "still alive after ${2}s, sending SIGKILL"
        kill -KILL "$1" 2>/dev/null || true
        wait_exit "$1" 10 || die "pid $1 survived SIGKILL"
    fi
}

# Prints the last lines of each non-empty file given.
show_logs() {
    local f
    for f in "$@"; do
        if [[ -s $f ]]; then
            log "--- last lines of $f ---"
            tail -n 30 "$f" >&2
        fi
    done
}
