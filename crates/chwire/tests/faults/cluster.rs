//! The cluster rig (scripts/cluster.sh) as the fault tests see it: node addresses and
//! SIGKILL / restart of a node's real server process.

use std::process::Command;

/// `host:port` of node `n` (1..=3): `CHWIRE_CLUSTER_NODE<n>`, set by scripts/with-cluster.sh.
pub fn node(n: usize) -> String {
    std::env::var(format!("CHWIRE_CLUSTER_NODE{n}"))
        .unwrap_or_else(|_| panic!("CHWIRE_CLUSTER_NODE{n} is not set: run under `scripts/with-cluster.sh --toxiproxy`"))
}

pub fn node_url(n: usize) -> String {
    format!("tcp://default@{}/default", node(n))
}

fn script(args: &[&str]) {
    let script = std::env::var("CHWIRE_CLUSTER_SCRIPT").expect("CHWIRE_CLUSTER_SCRIPT is set by scripts/with-cluster.sh");
    let out = Command::new(&script).args(args).output().unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    assert!(out.status.success(), "{script} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// SIGKILL node `n`'s server process (a crash: no shutdown, connections cut).
pub async fn kill(n: usize) {
    let n = n.to_string();
    tokio::task::spawn_blocking(move || script(&["node", &n, "kill"])).await.unwrap();
}

/// Start node `n` again and wait until it answers.
pub async fn start(n: usize) {
    let n = n.to_string();
    tokio::task::spawn_blocking(move || script(&["node", &n, "start"])).await.unwrap();
}
