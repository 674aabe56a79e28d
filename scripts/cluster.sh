#!/usr/bin/env bash
# A three-server ClickHouse cluster on loopback for chwire's multi-host and fault tests, of
# ClickHouse 26.9 (the default) or of 18.16 (CHWIRE_CLUSTER_SERVER=18.16).
#
# 26.9: three instances of scripts/server.sh (chdb-core's clickhouse-local), each with its own
# directory build/cluster26/nodeN and ports. clickhouse-local has no ZooKeeper client and no
# interserver port, so ReplicatedMergeTree cannot work there: `default.replicated` is a
# MergeTree seeded with the same rows on every node (reads see replicas; writes do not
# replicate), and what needs real replication runs on the 18.16 cluster.
# 18.16: three instances of Debian's clickhouse-server 18.16 (scripts/server-18.sh, directories
# build/cluster/nodeN) and one ZooKeeper (Debian's `zookeeper` package, build/cluster/zk), so
# that ReplicatedMergeTree works, and native TLS on every node.
# Two clusters in `remote_servers`:
#   chwire_cluster     3 shards x 1 replica  (nodes 1, 2, 3)
#   chwire_replicated  1 shard  x 3 replicas (nodes 1, 2, 3)
# and these tables on every node (created on start if missing; seeded once):
#   default.shard_local   MergeTree, node N holds the ids with id % 3 = N - 1 (0 <= id < 30000)
#   default.shard_dist    Distributed(chwire_cluster, default, shard_local, id % 3): all 30000 rows
#   default.replicated    the same 30000 rows on each node (ReplicatedMergeTree on 18.16)
#                         (id, name = toString(id), value = id * 0.5 for all three tables)
#
# Usage: scripts/cluster.sh start|stop|status|url|urls|env|clean
#        scripts/cluster.sh node N start|stop|kill|status|url|pid
#
# Environment (ports of node N = base + N):
#   CHWIRE_CLUSTER_SERVER      26.9 (default) or 18.16
#   CHWIRE_CLUSTER_TCP_BASE    native ports base (26.9: 19610, nodes on 19611-19613; 18.16: 19650,
#                              19651-19653, native over TLS on base + 20 + N: 19671-19673)
#   CHWIRE_CLUSTER_HTTP_BASE   HTTP ports base (26.9: 18710, 18711-18713; 18.16: 18750,
#                              18751-18753, interserver replication ports base + 10, HTTPS
#                              base + 20 + N)
#   CHWIRE_CLUSTER_ZK_PORT     ZooKeeper client port (18.16 only; default 19619)
#   CHWIRE_CLUSTER_DIR         directory of the rig (26.9: build/cluster26; 18.16: build/cluster)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIND="${CHWIRE_CLUSTER_SERVER:-26.9}"
case $KIND in
    26.9)
        SERVER="$ROOT/scripts/server.sh"
        DIR="${CHWIRE_CLUSTER_DIR:-$ROOT/build/cluster26}"
        TCP_BASE="${CHWIRE_CLUSTER_TCP_BASE:-19610}"
        HTTP_BASE="${CHWIRE_CLUSTER_HTTP_BASE:-18710}"
        ROOT_TAG=clickhouse
        ;;
    18.16)
        SERVER="$ROOT/scripts/server-18.sh"
        DIR="${CHWIRE_CLUSTER_DIR:-$ROOT/build/cluster}"
        TCP_BASE="${CHWIRE_CLUSTER_TCP_BASE:-19650}"
        HTTP_BASE="${CHWIRE_CLUSTER_HTTP_BASE:-18750}"
        ROOT_TAG=yandex
        ;;
    *) printf 'cluster.sh: error: CHWIRE_CLUSTER_SERVER=%s: 26.9 or 18.16\n' "$KIND" >&2; exit 2 ;;
esac
ZK_PORT="${CHWIRE_CLUSTER_ZK_PORT:-19619}"
HOST=127.0.0.1
NODES=(1 2 3)
SEED_ROWS=30000
ZK_DIR="$DIR/zk"
ZK_PID_FILE="$ZK_DIR/zookeeper.pid"
ZK_JAR=/usr/share/java/zookeeper.jar

PATH="$PATH:/usr/sbin:/usr/local/sbin"

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
}

tcp_port() { echo $((TCP_BASE + $1)); }
http_port() { echo $((HTTP_BASE + $1)); }
interserver_port() { echo $((HTTP_BASE + 10 + $1)); }
tls_port() { echo $((TCP_BASE + 20 + $1)); }
https_port() { echo $((HTTP_BASE + 20 + $1)); }

# Runs the server script for node $1 with that node's directory and ports.
node_server() {
    local n=$1
    shift
    if [[ $KIND == 26.9 ]]; then
        CHWIRE_CH_DIR="$DIR/node$n" CHWIRE_CH_NAME="cluster.sh node$n" \
            CHWIRE_CH_TCP_PORT="$(tcp_port "$n")" CHWIRE_CH_HTTP_PORT="$(http_port "$n")" "$SERVER" "$@"
    else
        CHWIRE_CH18_DIR="$DIR/node$n" CHWIRE_CH18_NAME="cluster.sh node$n" \
            CHWIRE_CH18_TCP_PORT="$(tcp_port "$n")" CHWIRE_CH18_HTTP_PORT="$(http_port "$n")" \
            CHWIRE_CH18_TLS_PORT="$(tls_port "$n")" CHWIRE_CH18_HTTPS_PORT="$(https_port "$n")" \
            "$SERVER" "$@"
    fi
}

# A statement on node $1 (over HTTP: the 18.16 client cannot read some of 26.9's answers).
node_query() {
    curl -fsS --max-time 60 "http://$HOST:$(http_port "$1")/" --data-binary "$2"
}

alive() {
    kill -0 "$1" 2>/dev/null || return 1
    local stat
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    stat="${stat##*) }"
    [[ ${stat:0:1} != Z ]]
}

pid_of_file() {
    [[ -f $1 ]] || return 1
    local pid
    pid="$(tr -dc '0-9' <"$1")"
    [[ -n $pid ]] && alive "$pid" || return 1
    # A recycled pid must not be mistaken for ours.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$2" || return 1
    echo "$pid"
}

port_open() {
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$HOST" "$1" 2>/dev/null
}

# --- ZooKeeper -----------------------------------------------------------------

zk_install() {
    [[ -f $ZK_JAR ]] && command -v java >/dev/null 2>&1 && return 0
    local sudo=()
    if [[ $EUID -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "zookeeper is not installed and we are not root (no sudo either)"
        sudo=(sudo)
    fi
    log "installing zookeeper with apt-get"
    local apt_opts=(-o DPkg::Lock::Timeout=300)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update </dev/null
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends \
        zookeeper default-jre-headless </dev/null
    [[ -f $ZK_JAR ]] || die "$ZK_JAR still missing after apt-get install zookeeper"
}

# True once ZooKeeper serves requests. (`ruok` says imok while it still loads its snapshot,
# and a ClickHouse 18.16 whose session is refused then fails to start.)
zk_ok() {
    # shellcheck disable=SC2016 # expanded by the inner bash
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"; printf srvr >&3; cat <&3' _ "$HOST" "$ZK_PORT" 2>/dev/null |
        grep -q '^Mode: standalone'
}

zk_start() {
    local pid
    if pid="$(pid_of_file "$ZK_PID_FILE" ZooKeeperServerMain)"; then
        zk_ok && return 0
    else
        port_open "$ZK_PORT" && die "port $HOST:$ZK_PORT is in use by another process (set CHWIRE_CLUSTER_ZK_PORT)"
        zk_install
        mkdir -p "$ZK_DIR/data"
        cat >"$ZK_DIR/zoo.cfg" <<EOF
# Generated by scripts/cluster.sh; rewritten on every start.
tickTime=500
dataDir=$ZK_DIR/data
clientPort=$ZK_PORT
clientPortAddress=$HOST
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
autopurge.purgeInterval=1
# A test rig: no fsync per transaction (a crashed ZooKeeper process loses nothing, only the
# machine could); with it, every insert and every part dropped waits for the disk.
forceSync=no
EOF
        log "starting ZooKeeper on $HOST:$ZK_PORT"
        # The jar's manifest names its dependencies; slf4j-simple logs to stderr.
        (cd "$ZK_DIR" && exec setsid java -Xmx256m -Dzookeeper.jmx.log4j.disable=true \
            -cp "$ZK_JAR:/usr/share/java/slf4j-simple.jar" \
            org.apache.zookeeper.server.ZooKeeperServerMain "$ZK_DIR/zoo.cfg" \
            </dev/null >"$ZK_DIR/zookeeper.log" 2>&1) &
        pid=$!
        echo "$pid" >"$ZK_PID_FILE"
    fi
    local deadline=$((SECONDS + 60))
    until zk_ok; do
        if ! alive "$pid" || ((SECONDS > deadline)); then
            tail -n 30 "$ZK_DIR/zookeeper.log" >&2 || true
            die "ZooKeeper did not start"
        fi
        sleep 0.25
    done
}

zk_stop() {
    local pid
    pid="$(pid_of_file "$ZK_PID_FILE" ZooKeeperServerMain)" || { rm -f "$ZK_PID_FILE"; return 0; }
    log "stopping ZooKeeper (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 20))
    while alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
    rm -f "$ZK_PID_FILE"
}

# --- ClickHouse nodes ------------------------------------------------------------

write_node_config() {
    local n=$1 d="$DIR/node$1" replicas="" shards="" m
    mkdir -p "$d/config.d"
    for m in "${NODES[@]}"; do
        replicas+="
                <replica><host>$HOST</host><port>$(tcp_port "$m")</port></replica>"
        shards+="
            <shard><replica><host>$HOST</host><port>$(tcp_port "$m")</port></replica></shard>"
    done
    local replication=""
    if [[ $KIND == 18.16 ]]; then
        replication="
    <interserver_http_host>$HOST</interserver_http_host>
    <interserver_http_port>$(interserver_port "$n")</interserver_http_port>
    <zookeeper>
        <node><host>$HOST</host><port>$ZK_PORT</port></node>
        <session_timeout_ms>6000</session_timeout_ms>
    </zookeeper>
    <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>"
    fi
    cat >"$d/config.d/cluster.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by scripts/cluster.sh; rewritten on every start. -->
<$ROOT_TAG>$replication
    <remote_servers>
        <chwire_cluster>$shards
        </chwire_cluster>
        <chwire_replicated>
            <shard>
                <internal_replication>true</internal_replication>$replicas
            </shard>
        </chwire_replicated>
    </remote_servers>
    <macros>
        <shard>01</shard>
        <replica>node$n</replica>
        <node>$n</node>
    </macros>
    <merge_tree>
        <!-- Retried inserts (same block) stay deduplicated over a whole load test. -->
        <replicated_deduplication_window>100000</replicated_deduplication_window>
        <!-- Load tests insert many small parts; a replica back from a crash fetches them all. -->
        <parts_to_delay_insert>1500</parts_to_delay_insert>
        <parts_to_throw_insert>3000</parts_to_throw_insert>
    </merge_tree>
</$ROOT_TAG>
EOF
}

node_pid() {
    if [[ $KIND == 26.9 ]]; then pid_of_file "$DIR/node$1/server.pid" chdb_server.py; else pid_of_file "$DIR/node$1/clickhouse-server.pid" clickhouse; fi
}

node_start() {
    write_node_config "$1"
    node_server "$1" start
}

# Creates the rig's tables where missing and seeds them once.
create_tables() {
    local n engine="MergeTree"
    [[ $KIND == 26.9 ]] || engine="ReplicatedMergeTree('/clickhouse/tables/chwire/replicated', '{replica}')"
    for n in "${NODES[@]}"; do
        node_query "$n" "CREATE TABLE IF NOT EXISTS default.shard_local (id UInt64, name String, value Float64)
                ENGINE = MergeTree ORDER BY id"
        node_query "$n" "CREATE TABLE IF NOT EXISTS default.shard_dist (id UInt64, name String, value Float64)
                ENGINE = Distributed(chwire_cluster, default, shard_local, id % 3)"
        node_query "$n" "CREATE TABLE IF NOT EXISTS default.replicated (id UInt64, name String, value Float64)
                ENGINE = $engine ORDER BY id"
    done
    for n in "${NODES[@]}"; do
        if [[ "$(node_query "$n" 'SELECT count() FROM default.shard_local')" == 0 ]]; then
            node_query "$n" "INSERT INTO default.shard_local SELECT number, toString(number), number * 0.5
                FROM system.numbers WHERE number % 3 = $((n - 1)) LIMIT $((SEED_ROWS / 3))"
        fi
        # 26.9: every node is seeded by hand; 18.16: node 1's rows replicate to the others.
        if [[ ($KIND == 26.9 || $n == 1) && "$(node_query "$n" 'SELECT count() FROM default.replicated')" == 0 ]]; then
            node_query "$n" "INSERT INTO default.replicated SELECT number, toString(number), number * 0.5
                FROM system.numbers LIMIT $SEED_ROWS"
        fi
    done
    for n in "${NODES[@]}"; do
        [[ $KIND == 26.9 ]] || curl -fsS --max-time 70 "http://$HOST:$(http_port "$n")/?receive_timeout=60" \
            --data-binary 'SYSTEM SYNC REPLICA default.replicated' >/dev/null
        local got
        got="$(node_query "$n" 'SELECT count() FROM default.replicated')"
        [[ $got == "$SEED_ROWS" ]] || die "node$n holds $got rows of default.replicated, expected $SEED_ROWS"
    done
}

cmd_start() {
    mkdir -p "$DIR"
    node_server 1 install
    [[ $KIND == 26.9 ]] || zk_start
    local n
    for n in "${NODES[@]}"; do
        node_start "$n"
    done
    create_tables
    log "cluster up: $(cmd_url)"
}

cmd_stop() {
    local n
    for n in "${NODES[@]}"; do
        node_server "$n" stop
    done
    [[ $KIND == 26.9 ]] || zk_stop
}

cmd_status() {
    local n rc=0
    for n in "${NODES[@]}"; do
        printf 'node%s: ' "$n"
        node_server "$n" status || rc=1
    done
    if [[ $KIND == 18.16 ]]; then
        if zk_ok; then echo "zookeeper: running on $HOST:$ZK_PORT"; else echo "zookeeper: not running"; rc=1; fi
    fi
    return $rc
}

# The multi-host URL of the three nodes.
cmd_url() {
    local n hosts=()
    for n in "${NODES[@]}"; do hosts+=("$HOST:$(tcp_port "$n")"); done
    local IFS=,
    echo "tcp://default@${hosts[*]}/default"
}

cmd_env() {
    local n
    echo "CHWIRE_CLUSTER_URL=$(cmd_url)"
    echo "CHWIRE_CLUSTER_SERVER=$KIND"
    for n in "${NODES[@]}"; do
        echo "CHWIRE_CLUSTER_NODE$n=$HOST:$(tcp_port "$n")"
        echo "CHWIRE_CLUSTER_HTTP_NODE$n=$HOST:$(http_port "$n")"
        # Native TLS: 18.16 only (clickhouse-local has no TLS listener).
        [[ $KIND == 26.9 ]] || echo "CHWIRE_CLUSTER_TLS_NODE$n=$HOST:$(tls_port "$n")"
    done
    echo "CHWIRE_CLUSTER_SCRIPT=$ROOT/scripts/cluster.sh"
}

cmd_clean() {
    if cmd_status >/dev/null 2>&1 || node_pid 1 >/dev/null || node_pid 2 >/dev/null || node_pid 3 >/dev/null; then
        die "the cluster is running; stop it first"
    fi
    log "removing $DIR"
    rm -rf "$DIR"
}

cmd_node() {
    [[ $# -eq 2 ]] || { usage; exit 2; }
    local n=$1
    [[ " ${NODES[*]} " == *" $n "* ]] || die "no node $n (nodes: ${NODES[*]})"
    case "$2" in
        start) node_start "$n" ;;
        stop) node_server "$n" stop ;;
        status) node_server "$n" status ;;
        url) echo "tcp://default@$HOST:$(tcp_port "$n")/default" ;;
        pid) node_pid "$n" ;;
        kill)
            # SIGKILL, as a crash: no shutdown, connections cut at once.
            local pid
            pid="$(node_pid "$n")" || die "node$n is not running"
            kill -KILL "$pid"
            local deadline=$((SECONDS + 20))
            while alive "$pid"; do
                ((SECONDS < deadline)) || die "node$n (pid $pid) survived SIGKILL"
                sleep 0.05
            done
            log "node$n (pid $pid) killed"
            ;;
        *) usage; exit 2 ;;
    esac
}

main() {
    [[ $# -ge 1 ]] || { usage; exit 2; }
    local cmd=$1
    shift
    case "$cmd" in
        start) cmd_start ;;
        stop) cmd_stop ;;
        status) cmd_status ;;
        url) cmd_url ;;
        env) cmd_env ;;
        clean) cmd_clean ;;
        node) cmd_node "$@" ;;
        -h | --help | help) usage ;;
        *) usage; exit 2 ;;
    esac
}

main "$@"
