//! `chwire query` ended early stops its query on the server, over both transports: SIGINT
//! (Ctrl-C) and SIGTERM (exit codes 130 and 143), and `--query-timeout`. Each test names its
//! query by a unique id, sees it in `system.processes`, ends the process, and waits (bounded)
//! until `system.processes` no longer has it. The query runs for a minute unless it is
//! stopped, and over HTTP writes too little for a closed connection to stop it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A row every three seconds for a minute.
const SLOW: &str = "SELECT sleep(3) AS s FROM numbers(20) SETTINGS max_block_size = 1";

fn native_url() -> String {
    std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".to_string())
}

fn http_url() -> String {
    std::env::var("CHWIRE_TEST_HTTP_URL").unwrap_or_else(|_| "http://default@127.0.0.1:18123/default".to_string())
}

fn transports() -> [(&'static str, String); 2] {
    [("native", native_url()), ("http", http_url())]
}

fn unique_id(what: &str, transport: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("cx-cli-{what}-{transport}-{}-{nanos}", std::process::id())
}

fn chwire(url: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_chwire"));
    c.arg("--url").arg(url).env_remove("CHWIRE_URL");
    c
}

/// Whether the query `id` is in `system.processes` (asked through the native protocol).
fn running(id: &str) -> bool {
    let o = chwire(&native_url())
        .args([
            "query",
            "--format",
            "tsv",
            "--param",
            &format!("id={id}"),
            "SELECT count() FROM system.processes WHERE query_id = {id:String}",
        ])
        .output()
        .expect("run chwire");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim() != "0"
}

fn wait_running(id: &str) {
    let start = Instant::now();
    while !running(id) {
        assert!(start.elapsed() < Duration::from_secs(10), "the query {id} never showed up in system.processes");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_gone(id: &str) {
    let start = Instant::now();
    while running(id) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the query {id} still runs on the server {:?} after chwire ended",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The exit code of `child`, which must end within 15 s.
fn exit_code(child: &mut Child) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("chwire did not end within 15 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn slow_query(url: &str, id: &str, extra: &[&str]) -> Child {
    chwire(url)
        .args(extra)
        .args(["query", "--format", "tsv", "--query-id", id, SLOW])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chwire")
}

#[test]
fn sigint_and_sigterm_cancel_the_query() {
    for (transport, url) in transports() {
        for (sig, name, code) in [(libc::SIGINT, "sigint", 130), (libc::SIGTERM, "sigterm", 143)] {
            let id = unique_id(name, transport);
            let mut child = slow_query(&url, &id, &[]);
            wait_running(&id);
            // SAFETY: kill(2) on the pid of our own child process, which has not been waited for.
            assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
            assert_eq!(exit_code(&mut child), Some(code), "{transport} {name}");
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            assert!(err.contains("cancelling the query"), "{transport} {name}: {err}");
            wait_gone(&id);
        }
    }
}

#[test]
fn a_query_timeout_stops_the_query() {
    for (transport, url) in transports() {
        let id = unique_id("timeout", transport);
        let mut child = slow_query(&url, &id, &["--query-timeout", "2s"]);
        wait_running(&id);
        assert_eq!(exit_code(&mut child), Some(3), "{transport}");
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(err.contains("timed out") || err.contains("timeout"), "{transport}: {err}");
        wait_gone(&id);
    }
}
