//! Modern-revision protocol paths against `modernfake`, a fake ClickHouse server at revision
//! 54460 that decodes everything chwire sends with ch-go's decoders (see
//! ../shared/tools/modernfake/README.md). It covers what the rig's 18.16 server cannot: the
//! addendum, server-side parameters, the per-column custom-serialization byte, ProfileEvents,
//! Progress with elapsed_ns, TableColumns before an insert header.
//!
//! The binary comes from `CHWIRE_MODERNFAKE` (set by `make test`) or is built with
//! `scripts/build-modernfake.sh` into build/modernfake. These tests never skip: a missing fake
//! is a failure.

use chwire::proto::revision::{self, CLIENT_REVISION};
use chwire::{Block, Client, Column, Compression, DataType, ErrorKind, Event, Options, StringColumn, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The revision modernfake announces by default (ch-go's proto.Version).
const FAKE_REVISION: u64 = 54460;

// ---------------------------------------------------------------------------------------------
// The fake server
// ---------------------------------------------------------------------------------------------

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The modernfake binary: `CHWIRE_MODERNFAKE`, else built once per test process.
fn modernfake_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("CHWIRE_MODERNFAKE").filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            assert!(
                p.is_file(),
                "CHWIRE_MODERNFAKE={} is not a file: build it with `make modernfake` \
                 (scripts/build-modernfake.sh build/modernfake) or unset CHWIRE_MODERNFAKE",
                p.display()
            );
            return p;
        }
        let root = repo_root();
        let out = root.join("build/modernfake");
        let script = root.join("scripts/build-modernfake.sh");
        let res = Command::new("bash").arg(&script).arg(&out).current_dir(&root).output();
        match res {
            Ok(o) if o.status.success() && out.is_file() => out,
            Ok(o) => panic!(
                "cannot build modernfake with {} ({}); these tests need it (Go and ../shared/tools/modernfake):\n{}{}",
                script.display(),
                o.status,
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => panic!("cannot run {}: {e}; these tests need modernfake (or set CHWIRE_MODERNFAKE)", script.display()),
        }
    })
}

/// A running modernfake; killed on drop. Its stderr is collected (printed if the test panics).
struct Fake {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

impl Fake {
    /// `modernfake -port 0 -v` plus `args`.
    fn start(args: &[&str]) -> Fake {
        Fake::spawn(true, args)
    }

    /// Without `-v`: only errors and the INSERT summary are logged.
    fn start_quiet(args: &[&str]) -> Fake {
        Fake::spawn(false, args)
    }

    fn spawn(verbose: bool, args: &[&str]) -> Fake {
        let bin = modernfake_binary();
        let mut child = Command::new(bin)
            .args(["-port", "0"])
            .args(verbose.then_some("-v"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut readers = Vec::new();
        {
            let pipe = child.stderr.take().expect("piped stderr");
            let sink = Arc::clone(&stderr);
            readers.push(std::thread::spawn(move || {
                // Lossy: a misframed packet may put any bytes into the fake's messages.
                for line in BufReader::new(pipe).split(b'\n') {
                    let Ok(line) = line else { break };
                    let mut s = sink.lock().unwrap();
                    s.push_str(&String::from_utf8_lossy(&line));
                    s.push('\n');
                }
            }));
        }
        let (tx, rx) = mpsc::channel();
        {
            let pipe = child.stdout.take().expect("piped stdout");
            readers.push(std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    let _ = tx.send(line);
                }
            }));
        }
        let mut fake = Fake { child, port: 0, stderr, readers };
        let line = rx.recv_timeout(Duration::from_secs(20));
        let port = line.as_deref().ok().and_then(|l| l.strip_prefix("LISTENING ")).and_then(|p| p.trim().parse::<u16>().ok());
        match port {
            Some(p) if p != 0 => fake.port = p,
            _ => panic!("modernfake {args:?} did not print \"LISTENING <port>\" (got {line:?}); stderr:\n{}", fake.stderr()),
        }
        fake
    }

    fn url(&self) -> String {
        format!("tcp://default@127.0.0.1:{}/default", self.port)
    }

    fn options(&self) -> Options {
        Options::from_url(&self.url()).expect("valid URL").receive_timeout(Duration::from_secs(30))
    }

    async fn client_with(&self, opts: Options) -> Client {
        let res = Client::connect(opts).await;
        self.ok(res, "connect")
    }

    async fn client(&self) -> Client {
        self.client_with(self.options()).await
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The end of the fake's stderr, for failure messages.
    fn tail(&self) -> String {
        let s = self.stderr();
        let lines: Vec<&str> = s.lines().collect();
        let from = lines.len().saturating_sub(80);
        format!("--- modernfake stderr (last {} of {} lines) ---\n{}", lines.len() - from, lines.len(), lines[from..].join("\n"))
    }

    /// Unwrap a chwire result, showing the fake's stderr on failure.
    fn ok<T>(&self, res: chwire::Result<T>, what: &str) -> T {
        match res {
            Ok(v) => v,
            Err(e) => panic!("{what}: {e} ({e:?})\n{}", self.tail()),
        }
    }

    /// Lines of stderr containing `needle`.
    fn lines_with(&self, needle: &str) -> Vec<String> {
        self.stderr().lines().filter(|l| l.contains(needle)).map(str::to_string).collect()
    }

    /// Wait until stderr has at least `n` lines containing `needle`; returns them.
    async fn wait_for(&self, needle: &str, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let found = self.lines_with(needle);
            if found.len() >= n {
                return found;
            }
            if Instant::now() > deadline {
                panic!("modernfake did not log {n} line(s) with {needle:?} within 10 s (found {})\n{}", found.len(), self.tail());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// No packet chwire sent failed to decode.
    fn assert_clean(&self) {
        let s = self.stderr();
        assert!(!s.contains("FAKE-DECODE-ERROR"), "chwire misframed a packet\n{}", self.tail());
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        if std::thread::panicking() {
            eprintln!("{}", self.tail());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn text(v: Value<'_>) -> String {
    match v {
        Value::String(s) => String::from_utf8_lossy(s).into_owned(),
        other => panic!("expected a String value, got {other:?}"),
    }
}

/// A one-row block of String columns as name → value.
fn row_map(blocks: &[Block]) -> BTreeMap<String, String> {
    assert_eq!(blocks.len(), 1, "one block expected: {blocks:?}");
    let b = &blocks[0];
    assert_eq!(b.rows(), 1);
    b.columns()
        .iter()
        .map(|(name, col)| {
            assert_eq!(col.data_type(), &DataType::String, "column {name}");
            (name.clone(), text(col.value(0)))
        })
        .collect()
}

async fn client_info(fake: &Fake, c: &mut Client) -> BTreeMap<String, String> {
    let res = c.query("SELECT client_info").fetch_blocks().await;
    row_map(&fake.ok(res, "SELECT client_info"))
}

async fn select_one(fake: &Fake, c: &mut Client) {
    let res = c.query("SELECT 1").fetch_blocks().await;
    let blocks = fake.ok(res, "SELECT 1");
    assert_eq!(blocks.len(), 1);
    let col = blocks[0].column("1").expect("column `1`");
    assert_eq!(col.as_u8(), Some(&[1u8][..]));
}

fn now_us() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros() as i64
}

/// ClickHouse's `readQuotedString`: the value of a single-quoted SQL literal (the whole input).
fn unquote_sql(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = Vec::new();
    let mut it = inner.bytes();
    while let Some(b) = it.next() {
        match b {
            b'\'' => return None, // an unescaped quote ends the literal early
            b'\\' => {
                let e = it.next()?;
                out.push(match e {
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'0' => 0,
                    b'a' => 0x07,
                    b'v' => 0x0b,
                    b'x' => {
                        let h: String = [it.next()? as char, it.next()? as char].iter().collect();
                        u8::from_str_radix(&h, 16).ok()?
                    }
                    other => other,
                });
            }
            b => out.push(b),
        }
    }
    String::from_utf8(out).ok()
}

fn insert_block(a: Vec<u64>, s: Vec<String>) -> Block {
    Block::new().with("a", Column::from(a)).unwrap().with("s", Column::from(StringColumn::from_iter(s))).unwrap()
}

const COMPRESSIONS: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Zstd(3)];

// ---------------------------------------------------------------------------------------------
// 1. Handshake
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn handshake_negotiates_the_lower_revision() {
    let fake = Fake::start(&["-tz", "Asia/Tokyo"]);
    let mut c = fake.client().await;
    let info = c.server_info().expect("connected");
    assert_eq!(CLIENT_REVISION, 54492);
    assert_eq!(info.revision, FAKE_REVISION);
    assert_eq!(info.negotiated_revision, FAKE_REVISION, "min(54492, 54460)");
    assert_eq!(info.name, "ClickHouse");
    assert_eq!(info.version, (23, 1, 1));
    assert_eq!(info.timezone.as_deref(), Some("Asia/Tokyo"));
    assert_eq!(info.display_name.as_deref(), Some("modernfake"));

    // The fake saw our Hello and the addendum (quota key), then Ping and a query.
    let ping = c.ping().await;
    fake.ok(ping, "ping");
    let ping = c.ping().await;
    fake.ok(ping, "second ping");
    select_one(&fake, &mut c).await;
    let hello = fake.wait_for("recv Hello", 1).await;
    assert!(
        hello[0].contains(r#"client="chwire""#)
            && hello[0].contains("revision=54492")
            && hello[0].contains("negotiated revision 54460")
            && hello[0].contains(r#"database="default" user="default""#),
        "{hello:?}"
    );
    assert_eq!(fake.wait_for("recv addendum", 1).await.len(), 1);
    assert_eq!(fake.wait_for("recv Ping", 2).await.len(), 2);
    assert!(c.is_connected());
    fake.assert_clean();
}

#[tokio::test]
async fn handshake_with_an_older_server() {
    // The server is the lower side this time: min(54492, 54451).
    let fake = Fake::start(&["-revision", "54451"]);
    let mut c = fake.client().await;
    let info = c.server_info().unwrap();
    assert_eq!((info.revision, info.negotiated_revision), (54451, 54451));
    let ci = client_info(&fake, &mut c).await;
    assert_eq!(ci["server_revision"], "54451");
    assert_eq!(ci["negotiated_revision"], "54451");
    assert_eq!(ci["hello_protocol_version"], "54492");
    // No addendum below 54458.
    assert_eq!(ci["addendum_quota_key"], "");
    assert!(fake.lines_with("recv addendum").is_empty());
    select_one(&fake, &mut c).await;
    fake.assert_clean();
}

// ---------------------------------------------------------------------------------------------
// 2. What the fake decoded from Hello, addendum, Query and ClientInfo
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn client_info_fields_as_decoded_by_ch_go() {
    let fake = Fake::start(&[]);
    let opts = Options::from_url(&format!("{}?quota_key=qk-42", fake.url())).unwrap();
    assert_eq!(opts.quota_key, "qk-42");
    let mut c = fake.client_with(opts).await;
    let before = now_us();
    let res = c.query("SELECT client_info").query_id("chwire-modern-qid-1").fetch_blocks().await;
    let ci = row_map(&fake.ok(res, "SELECT client_info"));
    let after = now_us();

    let expect = [
        ("server_revision", "54460"),
        ("negotiated_revision", "54460"),
        ("hello_client_name", "chwire"),
        ("hello_version", "0.1"),
        ("hello_protocol_version", "54492"),
        ("hello_database", "default"),
        ("hello_user", "default"),
        ("addendum_quota_key", "qk-42"),
        ("query_id", "chwire-modern-qid-1"),
        ("stage", "2"),
        ("compression", "0"),
        ("interserver_secret", ""),
        ("query_kind", "1"),
        ("initial_user", ""),
        ("initial_query_id", ""),
        ("initial_address", "0.0.0.0:0"),
        ("interface", "1"),
        ("client_name", "chwire"),
        ("client_version", "0.1.0"),
        ("client_tcp_protocol_version", "54492"),
        ("quota_key", "qk-42"),
        ("distributed_depth", "0"),
        ("opentelemetry", ""),
        ("collaborate_with_initiator", "false"),
        ("count_participating_replicas", "0"),
        ("number_of_current_replica", "0"),
    ];
    for (k, v) in expect {
        assert_eq!(ci.get(k).map(String::as_str), Some(v), "field {k}; all: {ci:#?}");
    }
    let t: i64 = ci["initial_query_start_time_microseconds"].parse().unwrap();
    assert!((before - 5_000_000..=after + 5_000_000).contains(&t), "start time {t} not within [{before}, {after}]");
    assert_eq!(ci["os_user"], std::env::var("USER").unwrap_or_default());
    assert!(ci.contains_key("client_hostname"));

    // Without .query_id: a random UUID-shaped id; compression flag follows the options.
    let mut c = fake.client_with(fake.options().compression(Compression::Lz4)).await;
    let ci = client_info(&fake, &mut c).await;
    assert_eq!(ci["query_id"].len(), 36, "{}", ci["query_id"]);
    assert_eq!(ci["compression"], "1");
    assert_eq!(ci["addendum_quota_key"], "");
    fake.assert_clean();
}

// ---------------------------------------------------------------------------------------------
// 3. Parameters and settings
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn parameters_arrive_quoted_and_settings_as_sent() {
    let fake = Fake::start(&[]);
    // Connection-level settings; the query overrides one of them.
    let opts = Options::from_url(&format!("{}?max_block_size=1000&max_threads=8", fake.url())).unwrap();
    let mut c = fake.client_with(opts).await;
    let p = "it's \\ 'x'\n";
    let tricky = "tab\there\r\0nul ünï 🚀 '' \\' end\\";
    let res = c
        .query("SELECT echo_params")
        .server_param("p", p)
        .server_param("tricky", tricky)
        .server_param("empty", "")
        .setting("max_threads", "2")
        .setting("load_balancing", "in_order")
        .setting("format_csv_delimiter", ";")
        .fetch_blocks()
        .await;
    let blocks = fake.ok(res, "SELECT echo_params");
    let names: Vec<&str> = blocks[0].names().collect();
    assert_eq!(
        names,
        ["p", "tricky", "empty", "setting:max_block_size", "setting:max_threads", "setting:load_balancing", "setting:format_csv_delimiter"],
        "parameters in order, then settings (connection ones first, overridden in place, no duplicates)"
    );
    let got = row_map(&blocks);

    // A parameter is a SQL string literal, as ClickHouse's client sends it (Field::dump of a
    // String): backslash and quote escaped, control characters escaped.
    assert_eq!(got["p"], r"'it\'s \\ \'x\'\n'");
    assert_eq!(got["empty"], "''");
    for (name, value) in [("p", p), ("tricky", tricky), ("empty", "")] {
        assert_eq!(unquote_sql(&got[name]).as_deref(), Some(value), "parameter {name} arrived as {:?}", got[name]);
    }
    // Settings: raw text, as given.
    assert_eq!(got["setting:max_block_size"], "1000");
    assert_eq!(got["setting:max_threads"], "2");
    assert_eq!(got["setting:load_balancing"], "in_order");
    assert_eq!(got["setting:format_csv_delimiter"], ";");
    // ... flagged important (unknown names fail instead of being ignored).
    let flags = fake.wait_for("  setting ", 4).await;
    assert_eq!(flags.len(), 4, "{flags:?}");
    assert!(flags.iter().all(|l| l.contains("important=true custom=false")), "{flags:?}");
    fake.wait_for(r#"  parameter p="'it\\'s \\\\ \\'x\\'\\n'""#, 1).await;
    fake.assert_clean();
}

// ---------------------------------------------------------------------------------------------
// 4. A streamed SELECT: blocks, ProfileEvents, Progress, compression
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn numbers_with_every_compression() {
    const N: u64 = 200_000;
    // (client compression, network_compression_method setting, how the fake compresses replies)
    let cases: [(Compression, Option<&str>, &str); 5] = [
        (Compression::None, None, ""),
        (Compression::Lz4, None, "LZ4-compressed"),
        // The server compresses its replies with network_compression_method, which chwire
        // sets to its own method (the server's default differs: LZ4 here, ZSTD on 26.9)...
        (Compression::Zstd(3), None, "ZSTD-compressed"),
        (Compression::Zstd(3), Some("zstd"), "ZSTD-compressed"),
        // ...unless the caller set it.
        (Compression::Zstd(3), Some("lz4"), "LZ4-compressed"),
    ];
    for (compression, method, reply) in cases {
        let fake = Fake::start(&[]);
        let mut c = fake.client_with(fake.options().compression(compression)).await;
        let mut q = c.query(format!("SELECT number FROM numbers({N})"));
        if let Some(m) = method {
            q = q.setting("network_compression_method", m);
        }
        let res = q.stream().await;
        let mut s = fake.ok(res, "stream");
        let (mut next, mut blocks, mut progress_events, mut profile_events, mut selected_rows) = (0u64, Vec::new(), 0, 0, 0i64);
        let mut profile_infos = 0;
        loop {
            let ev = s.next_event().await;
            let Some(ev) = fake.ok(ev, "next_event") else { break };
            match ev {
                Event::Data(b) => {
                    assert_eq!(b.names().collect::<Vec<_>>(), ["number"]);
                    let col = b.column("number").unwrap();
                    assert_eq!(col.data_type(), &DataType::UInt64);
                    for &v in col.as_u64().unwrap() {
                        assert_eq!(v, next, "{compression:?}: values in order");
                        next += 1;
                    }
                    blocks.push(b.rows());
                }
                Event::Progress(p) => {
                    progress_events += 1;
                    assert!(p.elapsed_ns > 0, "{compression:?}: Progress without elapsed_ns at 54460: {p:?}");
                }
                Event::ProfileEvents(b) => {
                    profile_events += 1;
                    assert_eq!(
                        b.columns().iter().map(|(n, c)| format!("{n} {}", c.data_type())).collect::<Vec<_>>(),
                        [
                            "host_name String",
                            "current_time DateTime",
                            "thread_id UInt64",
                            "type Enum8('increment' = 1, 'gauge' = 2)",
                            "name String",
                            "value Int64"
                        ]
                    );
                    let names = b.column("name").unwrap();
                    let values = b.column("value").unwrap().as_i64().unwrap();
                    assert_eq!(values.len(), b.rows());
                    for (i, &value) in values.iter().enumerate() {
                        assert_eq!(text(b.column("host_name").unwrap().value(i)), "modernfake");
                        let name = text(names.value(i));
                        match b.column("type").unwrap().value(i) {
                            Value::Enum(t, _) => assert_eq!(t, if name == "MemoryTrackerUsage" { "gauge" } else { "increment" }),
                            other => panic!("{other:?}"),
                        }
                        if name == "SelectedRows" {
                            selected_rows += value;
                        }
                    }
                }
                Event::ProfileInfo(_) => profile_infos += 1,
                other => panic!("{compression:?}: unexpected event {other:?}"),
            }
        }
        assert!(s.is_finished());
        assert_eq!(next, N, "{compression:?}: all rows");
        assert_eq!(blocks, [65536, 65536, 65536, 3392], "{compression:?}");
        assert_eq!(progress_events, 5, "{compression:?}: one per block and one at the end");
        assert_eq!(profile_events, 5, "{compression:?}: one per block and one at the end");
        assert_eq!(selected_rows, N as i64);
        assert_eq!(profile_infos, 1);
        let p = *s.progress();
        assert_eq!((p.read_rows, p.total_rows_to_read, p.written_rows), (N, N, 0), "{p:?}");
        // Bytes are the blocks' uncompressed sizes: the values plus a few dozen bytes per block.
        assert!((N * 8..N * 8 + 4 * 64).contains(&p.read_bytes), "{p:?}");
        assert!(p.elapsed_ns > 0, "{p:?}");
        let pi = s.profile_info().copied().expect("profile info");
        assert_eq!((pi.rows, pi.blocks), (N, 4), "{pi:?}");
        drop(s);

        // Replies were compressed as asked, and the connection is reusable.
        let data_lines = fake.wait_for("send Data columns=1 rows=65536", 3).await;
        assert_eq!(data_lines.len(), 3, "{data_lines:?}");
        for l in &data_lines {
            if reply.is_empty() {
                assert!(!l.contains("compressed"), "{l}");
            } else {
                assert!(l.contains(reply), "{compression:?}: {l}");
            }
        }
        select_one(&fake, &mut c).await;
        assert_eq!(fake.wait_for("connection from", 1).await.len(), 1);
        fake.assert_clean();
    }
}

// ---------------------------------------------------------------------------------------------
// 5. INSERT
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn insert_blocks_are_framed_for_54460() {
    for compression in COMPRESSIONS {
        let fake = Fake::start(&[]);
        let mut c = fake.client_with(fake.options().compression(compression)).await;
        let res = c.insert_blocks("t", None).await;
        let mut ins = fake.ok(res, "insert");
        let header: Vec<String> = ins.header().columns().iter().map(|(n, c)| format!("{n} {}", c.data_type())).collect();
        assert_eq!(header, ["a UInt64", "s String"]);
        assert_eq!(ins.header().rows(), 0);

        // A block that does not fit the header is refused before anything is sent.
        let wrong = Block::new().with("a", Column::from(vec![1u32])).unwrap().with("s", Column::from(vec!["x"])).unwrap();
        let e = ins.send(&wrong).await.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::InvalidInput(_)), "{e}");

        // Three blocks; the last one is > 1 MiB uncompressed (several compressed frames).
        let sizes = [1000u64, 1, 150_000];
        let (mut start, mut sum) = (0u64, 0u64);
        for n in sizes {
            let a: Vec<u64> = (start..start + n).map(|i| i * 3 + 1).collect();
            sum += a.iter().sum::<u64>();
            let s: Vec<String> = (start..start + n).map(|i| if i % 7 == 0 { String::new() } else { format!("ü-{i}") }).collect();
            let res = ins.send(&insert_block(a, s)).await;
            fake.ok(res, "send");
            start += n;
        }
        // Empty blocks are skipped (an empty block would end the insert).
        let res = ins.send(&insert_block(vec![], vec![])).await;
        fake.ok(res, "send of an empty block");
        let res = ins.end().await;
        let summary = fake.ok(res, "end");
        let rows: u64 = sizes.iter().sum();
        assert_eq!(summary.rows_sent, rows, "{compression:?}");
        assert_eq!(summary.progress.written_rows, rows, "{compression:?}: {summary:?}");

        let got = fake.wait_for("INSERT received", 1).await;
        let want = format!("INSERT received rows={rows} blocks=3 sum(a)={sum}");
        assert!(got[0].ends_with(&want), "{compression:?}: fake logged {:?}, expected ...{want}", got[0]);
        if compression.is_enabled() {
            let frames = fake.wait_for("recv Data table=\"\" columns=2 rows=150000", 1).await;
            assert_eq!(frames.len(), 1);
            let method = if compression == Compression::Lz4 { "[LZ4]" } else { "[ZSTD]" };
            assert!(frames[0].contains(method), "{compression:?}: {frames:?}");
        }
        // The connection goes on.
        select_one(&fake, &mut c).await;
        assert_eq!(fake.wait_for("connection from", 1).await.len(), 1);
        fake.assert_clean();
    }
}

/// A modern server (revision >= 54456) answers every insert block with a ProfileEvents packet
/// (ClickHouse's TCPHandler::readDataNext calls sendInsertProfileEvents after each block;
/// modernfake does the same, 230 bytes each). A client that sends block after block without
/// reading them fills the socket buffers: the server blocks in its write and stops reading,
/// then the client blocks in its own write: a deadlock, ended here by the write timeout.
/// 400,000 one-row blocks make ~92 MB of ProfileEvents, more than any socket buffers hold.
#[tokio::test]
async fn insert_of_many_blocks_reads_the_servers_profile_events() {
    const BLOCKS: u64 = 400_000;
    // Quiet: -v would log two lines per block.
    let fake = Fake::start_quiet(&[]);
    let opts = fake.options().send_timeout(Duration::from_secs(5)).receive_timeout(Duration::from_secs(20));
    let mut c = fake.client_with(opts).await;
    let res = c.insert_blocks("t", None).await;
    let mut ins = fake.ok(res, "insert");
    let started = Instant::now();
    for i in 0..BLOCKS {
        let res = ins.send(&insert_block(vec![i], vec![String::new()])).await;
        if let Err(e) = res {
            panic!(
                "Insert::send of block {i} of {BLOCKS} failed after {:?}: {e} ({e:?}). The server answers every block with \
                 ProfileEvents (revision >= 54456) and Insert::send never reads them: once the socket buffers are full \
                 the server stops reading and the client's write blocks.\n{}",
                started.elapsed(),
                fake.tail()
            );
        }
    }
    let res = ins.end().await;
    let summary = fake.ok(res, "end");
    assert_eq!(summary.rows_sent, BLOCKS);
    let want = format!("INSERT received rows={BLOCKS} blocks={BLOCKS} sum(a)={}", BLOCKS * (BLOCKS - 1) / 2);
    let got = fake.wait_for("INSERT received", 1).await;
    assert!(got[0].ends_with(&want), "{got:?}");
    select_one(&fake, &mut c).await;
    fake.assert_clean();
}

// ---------------------------------------------------------------------------------------------
// 6. Server exceptions
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn unknown_query_is_exception_62_and_the_connection_stays() {
    for compression in [Compression::None, Compression::Lz4] {
        let fake = Fake::start(&[]);
        let mut c = fake.client_with(fake.options().compression(compression)).await;
        let e = c.query("SELECT 'no such thing'").fetch_blocks().await.unwrap_err();
        let ex = e.server().unwrap_or_else(|| panic!("a server exception expected, got {e:?}\n{}", fake.tail()));
        assert_eq!(ex.code, 62, "{e}");
        assert_eq!(ex.class, "DB::Exception");
        assert_eq!(ex.message, "fake server: unknown query");
        assert!(ex.nested.is_none());
        assert!(!e.breaks_connection());
        assert!(c.is_connected());
        select_one(&fake, &mut c).await;

        // Twice in a row, then another exception: an unknown compression method.
        let e = c.query("SELEKT").fetch_blocks().await.unwrap_err();
        assert_eq!(e.code(), Some(62), "{e}");
        let e = c.execute("SELECT nothing").await.unwrap_err();
        assert_eq!(e.code(), Some(62), "{e}");
        if compression.is_enabled() {
            let e = c.query("SELECT 1").setting("network_compression_method", "brotli").fetch_blocks().await.unwrap_err();
            assert!(e.server().is_some_and(|x| x.message.contains("unsupported network_compression_method")), "{e}");
        }
        select_one(&fake, &mut c).await;
        assert_eq!(fake.wait_for("connection from", 1).await.len(), 1, "the connection was reused");
        fake.assert_clean();
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Abandoned streams
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn dropping_a_stream_midway_then_select_1() {
    for compression in [Compression::None, Compression::Lz4] {
        let fake = Fake::start(&[]);
        let mut c = fake.client_with(fake.options().compression(compression)).await;
        {
            let res = c.query("SELECT number FROM numbers(10000000)").stream().await;
            let mut s = fake.ok(res, "stream");
            for i in 0..2u64 {
                let b = s.next_block().await;
                let b = fake.ok(b, "next_block").expect("a block");
                assert_eq!(b.column_at(0).unwrap().as_u64().unwrap()[0], i * 65536);
            }
        } // dropped: Cancel, then the rest is drained before the next query
        let started = Instant::now();
        select_one(&fake, &mut c).await;
        assert!(c.is_connected());
        // The same connection: the abandoned query was drained (the fake ignores Cancel and
        // sends all 10M rows), not given up on by reconnecting.
        assert_eq!(fake.wait_for("connection from", 1).await.len(), 1, "{compression:?}: drained in {:?}", started.elapsed());
        assert_eq!(fake.wait_for("recv Cancel", 1).await.len(), 1, "{compression:?}");

        // cancel() instead of drop.
        let res = c.query("SELECT number FROM numbers(1000000)").stream().await;
        let mut s = fake.ok(res, "stream");
        assert!(fake.ok(s.next_block().await, "next_block").is_some());
        fake.ok(s.cancel().await, "cancel");
        let res = c.query("SELECT number FROM numbers(3)").fetch_blocks().await;
        let b = fake.ok(res, "numbers(3)");
        assert_eq!(b[0].column_at(0).unwrap().as_u64(), Some(&[0u64, 1, 2][..]));
        assert_eq!(fake.wait_for("connection from", 1).await.len(), 1);
        fake.assert_clean();
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Lower announced revisions: every gate the fake can check
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn announced_revision_54458_has_no_parameters() {
    let fake = Fake::start(&[]);
    let mut c = fake.client_with(fake.options().client_revision(54458)).await;
    let info = c.server_info().unwrap();
    assert_eq!((info.revision, info.negotiated_revision), (FAKE_REVISION, 54458));
    let ci = client_info(&fake, &mut c).await;
    assert_eq!(ci["negotiated_revision"], "54458");
    assert_eq!(ci["hello_protocol_version"], "54458");
    assert_eq!(ci["client_tcp_protocol_version"], "54458");
    assert_eq!(fake.wait_for("recv addendum", 1).await.len(), 1, "the addendum is due from 54458");

    let queries_before = fake.lines_with("recv Query").len();
    let e = c.query("SELECT echo_params").server_param("p", "1").fetch_blocks().await.unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidInput(_)), "{e:?}");
    assert!(e.to_string().contains("54459"), "{e}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(fake.lines_with("recv Query").len(), queries_before, "nothing was sent");

    // Without parameters the same query works; no elapsed_ns in Progress below 54460.
    let res = c.query("SELECT echo_params").setting("max_threads", "3").fetch_blocks().await;
    let got = row_map(&fake.ok(res, "echo_params"));
    assert_eq!(got.into_iter().collect::<Vec<_>>(), [("setting:max_threads".to_string(), "3".to_string())]);
    let mut s = fake.ok(c.query("SELECT number FROM numbers(70000)").stream().await, "stream");
    while fake.ok(s.next_block().await, "next_block").is_some() {}
    assert_eq!(s.progress().read_rows, 70000);
    assert_eq!(s.progress().elapsed_ns, 0, "elapsed_ns is not on the wire at 54458");
    drop(s);
    select_one(&fake, &mut c).await;
    assert_eq!(fake.wait_for("connection from", 1).await.len(), 1);
    fake.assert_clean();
}

#[tokio::test]
async fn every_revision_gate_the_fake_decodes() {
    let gates = [
        revision::SETTINGS_SERIALIZED_AS_STRINGS, // 54429, the oldest ch-go's Query decoder reads
        revision::INTERSERVER_SECRET - 1,
        revision::INTERSERVER_SECRET,
        revision::OPENTELEMETRY,
        revision::DISTRIBUTED_DEPTH,
        revision::INITIAL_QUERY_START_TIME,
        revision::INCREMENTAL_PROFILE_EVENTS,
        revision::PARALLEL_REPLICAS,
        revision::CUSTOM_SERIALIZATION,
        54456, // ProfileEvents after each insert block
        revision::ADDENDUM,
        revision::PARAMETERS,
        revision::SERVER_QUERY_TIME_IN_PROGRESS,
    ];
    let fake = Fake::start(&[]);
    for (i, rev) in gates.into_iter().enumerate() {
        for compression in [Compression::None, Compression::Lz4] {
            let mut c = fake.client_with(fake.options().client_revision(rev).compression(compression)).await;
            assert_eq!(c.server_info().unwrap().negotiated_revision, rev);
            let ci = client_info(&fake, &mut c).await;
            assert_eq!(ci["negotiated_revision"], rev.to_string());
            assert_eq!(ci["client_tcp_protocol_version"], rev.to_string());
            assert_eq!(ci["client_name"], "chwire");
            let start: i64 = ci["initial_query_start_time_microseconds"].parse().unwrap();
            assert_eq!(start > 0, rev >= revision::INITIAL_QUERY_START_TIME, "rev {rev}: {start}");

            // Parameters exist from 54459.
            let res = c.query("SELECT echo_params").server_param("v", "a'b").setting("max_threads", "1").fetch_blocks().await;
            if rev >= revision::PARAMETERS {
                let got = row_map(&fake.ok(res, "echo_params"));
                assert_eq!(got["v"], r"'a\'b'", "rev {rev}");
                assert_eq!(got["setting:max_threads"], "1", "rev {rev}");
            } else {
                let e = res.unwrap_err();
                assert!(matches!(e.kind(), ErrorKind::InvalidInput(_)), "rev {rev}: {e:?}");
            }

            // A SELECT of two blocks: ProfileEvents from 54451, elapsed_ns from 54460.
            let mut s = fake.ok(c.query("SELECT number FROM numbers(70000)").stream().await, "stream");
            let (mut rows, mut profile_events) = (0, 0);
            while let Some(ev) = fake.ok(s.next_event().await, "next_event") {
                match ev {
                    Event::Data(b) => rows += b.rows(),
                    Event::ProfileEvents(_) => profile_events += 1,
                    _ => {}
                }
            }
            assert_eq!(rows, 70000, "rev {rev}");
            assert_eq!(profile_events > 0, rev >= revision::INCREMENTAL_PROFILE_EVENTS, "rev {rev}");
            assert_eq!(s.progress().elapsed_ns > 0, rev >= revision::SERVER_QUERY_TIME_IN_PROGRESS, "rev {rev}");
            drop(s);

            // An insert: blocks with (>= 54454) or without the custom-serialization byte.
            let mut ins = fake.ok(c.insert_blocks("t", None).await, "insert");
            fake.ok(ins.send(&insert_block(vec![rev, 1], vec!["x".into(), "yz".into()])).await, "send");
            fake.ok(ins.send(&insert_block(vec![2], vec!["".into()])).await, "send");
            let summary = fake.ok(ins.end().await, "end");
            assert_eq!((summary.rows_sent, summary.progress.written_rows), (3, 3), "rev {rev}");
            let n = 2 * i + usize::from(compression.is_enabled()) + 1;
            let got = fake.wait_for("INSERT received", n).await;
            assert!(got[n - 1].ends_with(&format!("INSERT received rows=3 blocks=2 sum(a)={}", rev + 3)), "rev {rev}: {got:?}");
            select_one(&fake, &mut c).await;
            fake.assert_clean();
        }
    }
    assert_eq!(fake.wait_for("connection from", 2).await.len(), 2 * gates.len(), "one connection per client");
}

/// Typed `.param()` values go as server-side parameters at this revision: their escaped text
/// form, quoted for transport. Unquoting then unescaping (as the server does) gives the value.
#[tokio::test]
async fn typed_params_are_server_side_at_54460() {
    let fake = Fake::start(&[]);
    let mut c = fake.client().await;
    let hostile = "'); DROP TABLE t; --\ttab\nline \\ back";
    let res = c
        .query("SELECT echo_params")
        .param("s", hostile)
        .param("n", 42u64)
        .param("a", vec!["x'", "y"])
        .param("z", None::<u8>)
        .fetch_blocks()
        .await;
    let got = row_map(&fake.ok(res, "SELECT echo_params"));
    let unquoted = unquote_sql(&got["s"]).expect("a quoted literal");
    // The server then reads the text with escapes (TSV): tab and newline come back.
    assert_eq!(unquoted, "'); DROP TABLE t; --\\ttab\\nline \\\\ back");
    assert_eq!(got["n"], "'42'");
    assert_eq!(unquote_sql(&got["a"]).as_deref(), Some("['x\\'','y']"));
    assert_eq!(got["z"], "'\\\\N'");
    fake.assert_clean();
}
