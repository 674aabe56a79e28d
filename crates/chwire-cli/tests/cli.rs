//! The `chwire` binary against the rig's server.

use std::process::{Command, Output};

fn url() -> String {
    std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".to_string())
}

/// The rig's native port for clickhouse-client, also when the suite runs over HTTP.
fn native_port() -> String {
    let o = chwire::Options::from_url(&url()).unwrap();
    if o.transport == chwire::Transport::Http {
        return std::env::var("CHWIRE_TEST_TCP_PORT").unwrap_or_else(|_| "19000".into());
    }
    o.port.to_string()
}

fn chwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chwire")).arg("--url").arg(url()).args(args).env_remove("CHWIRE_URL").output().expect("run chwire")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "chwire failed: {}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn formats() {
    let sql = "SELECT number AS n, concat('a\\tb\"', toString(number)) AS s, toDate('2020-01-02') AS d, [1, 2] AS a, CAST(NULL AS Nullable(UInt8)) AS z FROM system.numbers LIMIT 2";
    assert_eq!(
        stdout(&chwire(&["query", "--format", "tsv", sql])),
        "0\ta\\tb\"0\t2020-01-02\t[1,2]\t\\N\n1\ta\\tb\"1\t2020-01-02\t[1,2]\t\\N\n"
    );
    assert_eq!(
        stdout(&chwire(&["query", "--format", "csv-with-names", sql])),
        "\"n\",\"s\",\"d\",\"a\",\"z\"\n0,\"a\tb\"\"0\",\"2020-01-02\",\"[1,2]\",\\N\n1,\"a\tb\"\"1\",\"2020-01-02\",\"[1,2]\",\\N\n"
    );
    assert_eq!(
        stdout(&chwire(&["query", "--format", "jsonl", sql])),
        "{\"n\":0,\"s\":\"a\\tb\\\"0\",\"d\":\"2020-01-02\",\"a\":[1,2],\"z\":null}\n{\"n\":1,\"s\":\"a\\tb\\\"1\",\"d\":\"2020-01-02\",\"a\":[1,2],\"z\":null}\n"
    );
    let pretty = stdout(&chwire(&["query", "--format", "pretty", "SELECT 1 AS one, 'x' AS s"]));
    assert!(pretty.contains("│ one │ s │") && pretty.contains("│   1 │ x │"), "{pretty}");
    // The query's own FORMAT clause is the output format (over HTTP too, where the server
    // would otherwise answer in it); one chwire does not write, or another --format, is an error.
    assert_eq!(
        stdout(&chwire(&["query", &format!("{sql} FORMAT CSVWithNames;")])),
        stdout(&chwire(&["query", "--format", "csv-with-names", sql]))
    );
    let o = chwire(&["query", "-f", "TSV", "SELECT 1 FORMAT CSV"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--format says TSV"), "{o:?}");
    // A trailing `format <word>` that names no format is not the clause: the SQL goes as it is.
    assert_eq!(stdout(&chwire(&["query", "-f", "TSV", "SELECT 1 AS format ORDER BY format DESC"])), "1\n");
    // A ClickHouse format chwire does not write is an error, not TSV under another name (the
    // server ignores the clause over the native protocol and answers in it over HTTP).
    for clause in ["FORMAT JSON", "format Vertical;", "FORMAT RowBinary"] {
        let o = chwire(&["query", &format!("SELECT 1 AS x {clause}")]);
        assert_eq!(o.status.code(), Some(2), "{clause}: {o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("which chwire does not write"), "{o:?}");
        assert!(o.stdout.is_empty());
    }
    // FORMAT Null: the rows are received and dropped; an error on the way is still one.
    assert_eq!(stdout(&chwire(&["query", "SELECT number FROM system.numbers LIMIT 300000 FORMAT Null"])), "");
    let o = chwire(&["query", "-f", "null", "SELECT throwIf(number = 200000) FROM system.numbers LIMIT 300000"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(o.stdout.is_empty());
    // So is a format setting chwire's writers do not apply (it would reach the server, which
    // formats nothing here).
    let o = chwire(&["query", "--format", "csv", "-s", "format_csv_delimiter=;", "SELECT 1, 2"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("format_csv_delimiter is not supported"), "{o:?}");
}

/// The same query through ClickHouse's own client: the TSV text must be identical.
#[test]
fn output_matches_clickhouse_client_tsv() {
    let sql = "SELECT number, toString(number * 7) AS s, toFloat64(number) / 3 AS f, toDateTime(1600000000 + number * 3607) AS t, \
               toDate(17000 + number) AS d, [number, 1] AS a, if(number % 3 = 0, NULL, number) AS n, 'q\\'\\\\\\t' AS e \
               FROM system.numbers LIMIT 2000";
    let ours = stdout(&chwire(&["query", "--format", "tsv", sql]));
    let port = native_port();
    let theirs = Command::new("clickhouse-client")
        .args(["--host", "127.0.0.1", "--port", &port, "--format", "TSV", "--query", sql])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("clickhouse-client is installed by scripts/server.sh");
    let theirs = stdout(&theirs);
    assert_eq!(ours.lines().count(), 2000);
    for (i, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(a, b, "line {i}");
    }
    assert_eq!(ours, theirs);
}

#[test]
fn settings_and_query_id() {
    let o = chwire(&[
        "query",
        "--setting",
        "max_block_size=7",
        "--query-id",
        "chwire-cli-test-id",
        "SELECT number FROM system.numbers LIMIT 20",
    ]);
    assert_eq!(stdout(&o).lines().count(), 20);
    let o = chwire(&[
        "query",
        "--setting",
        "max_result_rows=5",
        "--setting",
        "result_overflow_mode=throw",
        "SELECT number FROM system.numbers LIMIT 20",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("code 396"), "{err}");
}

#[test]
fn server_errors_exit_1_with_code_name_message() {
    let o = chwire(&["query", "SELECT * FROM chwire_cli_missing_table"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("code 60") && err.contains("chwire_cli_missing_table"), "{err}");
    // The code's name (18.16 sends only its class, DB::Exception; 26.9 also puts the name at
    // the end of its message), and the class not twice.
    assert!(err.starts_with("Error: code 60 (UNKNOWN_TABLE): "), "{err}");
    assert!(!err.contains("DB::Exception"), "{err}");
}

#[test]
fn connection_and_usage_errors() {
    let o =
        Command::new(env!("CARGO_BIN_EXE_chwire")).args(["--port", "1", "query", "SELECT 1"]).env_remove("CHWIRE_URL").output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_chwire")).args(["--url", "ftp://x", "query", "SELECT 1"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(env!("CARGO_BIN_EXE_chwire")).args(["query", "--format", "xml", "SELECT 1"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A TLS file that cannot be read is a usage error (2), named, not a connection failure.
    let o = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["--port", "1", "--ca-file", "/nonexistent/ca.pem", "query", "SELECT 1"])
        .env_remove("CHWIRE_URL")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("TLS") && err.contains("/nonexistent/ca.pem"), "{err}");
}

#[test]
fn help_explains_every_option() {
    let o = Command::new(env!("CARGO_BIN_EXE_chwire")).args(["query", "--help"]).output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    for opt in [
        "--host",
        "--port",
        "--user",
        "--password",
        "--database",
        "--compression",
        "--format",
        "--setting",
        "--query-id",
        "--progress",
        "--url",
    ] {
        assert!(help.contains(opt), "{opt} missing from:\n{help}");
    }
}

#[test]
fn streams_many_rows_with_each_compression() {
    for c in ["none", "lz4", "zstd"] {
        let o = chwire(&["--compression", c, "query", "--format", "tsv", "SELECT number FROM system.numbers LIMIT 300000"]);
        let out = stdout(&o);
        let sum: u64 = out.lines().map(|l| l.parse::<u64>().unwrap()).sum();
        assert_eq!(sum, 299_999 * 300_000 / 2, "{c}");
    }
}

#[test]
fn demo_inserts_and_aggregates() {
    let o = chwire(&["demo", "--rows", "20000", "--block-rows", "3000", "--table", "chwire_cli_demo"]);
    let out = stdout(&o);
    assert!(out.contains("click") && out.contains("5000"), "{out}");
    let count = stdout(&chwire(&["query", "--format", "tsv", "SELECT count(), sum(id) FROM chwire_cli_demo"]));
    assert_eq!(count, format!("20000\t{}\n", 19_999u64 * 20_000 / 2));
    chwire(&["query", "DROP TABLE chwire_cli_demo"]);
}

/// The README's promise: a large result streams in bounded memory (one block at a time).
#[test]
fn streams_100m_rows_in_bounded_memory() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .arg("--url")
        .arg(url())
        .args(["query", "--format", "tsv", "--stats", "--progress", "never", "SELECT number FROM system.numbers LIMIT 100000000"])
        .env_remove("CHWIRE_URL")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Count the lines as they stream, keeping only the tail.
    let mut stdout = child.stdout.take().unwrap();
    let (mut lines, mut tail, mut buf) = (0u64, Vec::new(), vec![0u8; 1 << 20]);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        tail.extend_from_slice(&buf[n.saturating_sub(16)..n]);
        let keep = tail.len().saturating_sub(16);
        tail.drain(..keep);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(lines, 100_000_000);
    assert!(tail.ends_with(b"\n99999999\n"), "{:?}", String::from_utf8_lossy(&tail));
    let peak: f64 = err
        .split("peak memory ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory in {err:?}"));
    assert!(peak < 64.0, "peak memory {peak} MiB for 100M rows");
    // The rows of the result as chwire counted them; what the server read, where it says
    // (over HTTP the server reports progress only until the result begins, 18.16 not at all:
    // no count that stopped early is passed off as the total, and no zeros are made up).
    assert!(err.contains("; 100000000 rows in the result"), "{err}");
    if url().starts_with("http") {
        assert!(
            err.contains("rows and bytes read: not reported by the server over HTTP")
                || err.contains("(the server reports its progress over HTTP only until the result begins)"),
            "{err}"
        );
    } else {
        let read: u64 = err.split(" rows, ").next().and_then(|n| n.trim().parse().ok()).unwrap_or_else(|| panic!("{err}"));
        assert!(read >= 100_000_000, "{err}");
    }
}

/// `--format Native` writes blocks that `chwire convert` (and ClickHouse) read back.
#[test]
fn native_output_converts_back() {
    let sql = "SELECT number AS n, toString(number) AS s, [number, 1] AS a FROM system.numbers LIMIT 1000";
    let native = chwire(&["query", "--format", "Native", sql]);
    assert!(native.status.success(), "{}", String::from_utf8_lossy(&native.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["convert", "--from", "native", "--to", "TSV"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &native.stdout).unwrap();
    drop(child.stdin.take());
    let converted = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(converted.stdout).unwrap(), stdout(&chwire(&["query", "--format", "TSV", sql])));
}

#[test]
fn params_from_the_command_line() {
    let o =
        chwire(&["query", "--format", "tsv", "--param", "s=it's; DROP TABLE x --", "--param", "n=41", "SELECT {s:String}, {n:UInt64} + 1"]);
    assert_eq!(stdout(&o), "it\\'s; DROP TABLE x --\t42\n");
    // \N is NULL (as param_name=\N over HTTP), for every type; an integer out of the
    // placeholder type's range is refused before it is sent (the server would wrap 300 into
    // an Int8 as 44, the old server's CAST too).
    let o = chwire(&["query", "-p", "a=\\N", "-p", "b=\\N", "SELECT {a:Nullable(Int32)} IS NULL, {b:Nullable(String)} IS NULL"]);
    assert_eq!(stdout(&o), "1\t1\n");
    let o = chwire(&["query", "-p", "c=300", "SELECT {c:Int8}"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("300 is outside the range of Int8"), "{o:?}");
    // A placeholder given two values is an error, not one of them silently.
    let o = chwire(&["query", "-p", "n=1", "-p", "n=2", "SELECT {n:UInt8}"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"n\" is bound twice"), "{o:?}");
    assert!(o.stdout.is_empty());
}

/// `chwire insert`: Native blocks written by `chwire query --format native` go back into a
/// table (from a file and from stdin); a column whose type differs from the table's is
/// converted where the conversion loses nothing, and refused otherwise, nothing of that insert
/// committed.
#[test]
fn insert_native_files_into_a_table() {
    let dir = std::env::temp_dir().join(format!("chwire-insert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rows.native");
    let t = "chwire_cli_insert";
    stdout(&chwire(&["query", &format!("DROP TABLE IF EXISTS {t}")]));
    stdout(&chwire(&[
        "query",
        &format!("CREATE TABLE {t} (id UInt64, s String, lc LowCardinality(String), a Array(Nullable(Int32)), d DateTime('UTC')) ENGINE = Memory"),
    ]));
    let native = chwire(&[
        "query",
        "--format",
        "native",
        "SELECT number AS id, toString(number) AS s, toLowCardinality(toString(number % 7)) AS lc, [toInt32(number), NULL] AS a, \
         toDateTime(number, 'UTC') AS d FROM system.numbers LIMIT 200000",
    ]);
    assert!(native.status.success());
    std::fs::write(&file, &native.stdout).unwrap();
    let ins = chwire(&["insert", t, "--input", file.to_str().unwrap(), "--setting", "max_insert_block_size=50000"]);
    assert!(ins.status.success(), "{}", String::from_utf8_lossy(&ins.stderr));
    assert!(String::from_utf8_lossy(&ins.stderr).contains("Inserted 200000 rows"), "{}", String::from_utf8_lossy(&ins.stderr));
    let check =
        format!("SELECT count(), sum(id), uniqExact(lc), sum(length(a)), countIf(s = toString(id) AND d = toDateTime(id, 'UTC')) FROM {t}");
    assert_eq!(stdout(&chwire(&["query", &check])), "200000\t19999900000\t7\t400000\t200000\n");

    // Other types the table's hold exactly are converted (as the server converts, but
    // without its wrap-around): Int8 into UInt64, String into LowCardinality(String).
    let other = chwire(&["query", "--format", "native", "SELECT toInt8(1) AS id, 'x' AS s, toString(2) AS lc"]);
    std::fs::write(&file, &other.stdout).unwrap();
    stdout(&chwire(&["insert", t, "--input", file.to_str().unwrap()]));
    assert_eq!(
        stdout(&chwire(&["query", &format!("SELECT id, lc FROM {t} WHERE s = 'x'")])),
        "1	2
"
    );
    stdout(&chwire(&["query", &format!("ALTER TABLE {t} DELETE WHERE s = 'x' SETTINGS mutations_sync = 1")]));

    // From stdin, and a block whose values the table's type cannot hold: refused, exit 2,
    // nothing added.
    let wrong = chwire(&["query", "--format", "native", "SELECT toInt8(-1) AS id"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["--url", &url(), "insert", t])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &wrong.stdout).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("column id") && err.contains("UInt64"), "{err}");
    assert_eq!(stdout(&chwire(&["query", &format!("SELECT count() FROM {t}")])), "200000\n");
    stdout(&chwire(&["query", &format!("DROP TABLE {t}")]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// CSV spreads a Tuple, and a Point, over fields of their own, as ClickHouse writes and reads
/// it: what `chwire query -f CSV` writes, `chwire insert -f CSV` reads back (with names too);
/// a tuple's quoted text in one field is refused, as the server refuses it.
#[test]
fn csv_tuples_and_points_are_fields_of_their_own() {
    let t = "chwire_cli_csv_point";
    stdout(&chwire(&["query", &format!("DROP TABLE IF EXISTS {t}")]));
    stdout(&chwire(&["query", &format!("CREATE TABLE {t} (id UInt32, p Point, t Tuple(UInt8, String)) ENGINE = Memory")]));
    stdout(&chwire(&["query", &format!("INSERT INTO {t} VALUES (1, (1.5, 2.5), (3, 'x'))")]));
    let csv = stdout(&chwire(&["query", "-f", "CSV", &format!("SELECT * FROM {t}")]));
    assert_eq!(csv, "1,1.5,2.5,3,\"x\"\n");
    for fmt in ["CSV", "CSVWithNames"] {
        let data = chwire(&["query", "-f", fmt, &format!("SELECT * FROM {t} WHERE id = 1")]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
            .args(["--url", &url(), "insert", t, "-f", fmt])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &data.stdout).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{fmt}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(
        stdout(&chwire(&["query", &format!("SELECT count(), sum(p.1), sum(t.1) FROM {t}")])),
        "4\t6\t12\n",
        "1 row, then 1 from CSV, then 2 from CSVWithNames"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
        .args(["--url", &url(), "insert", t, "-f", "CSV"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"2,\"(3.5,4.5)\",4,y\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    stdout(&chwire(&["query", &format!("DROP TABLE {t}")]));
}

/// `--progress always` with stderr not a terminal (here a pipe) writes lines of text, the last
/// with the final figures; `never` and the default (auto: no terminal) write none.
#[test]
fn progress_always_writes_lines_when_stderr_is_no_terminal() {
    let sql = "SELECT count() FROM numbers(100000000) WHERE cityHash64(number) % 7 = 1";
    let o = chwire(&["query", "--progress", "always", sql]);
    stdout(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("progress: ") && last.ends_with("(done)") && last.contains("rows"), "{err}");
    for quiet in [&["query", "--progress", "never", sql][..], &["query", sql][..]] {
        let o = chwire(quiet);
        stdout(&o);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("progress"), "{o:?}");
    }
}

/// `insert` takes the input's format from its file name's extension when `--format` is not
/// given; a file without one is read as Native, and the error says so.
#[test]
fn insert_format_follows_the_file_extension() {
    let dir = std::env::temp_dir().join(format!("chwire-insert-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = "chwire_cli_insert_ext";
    stdout(&chwire(&["query", &format!("DROP TABLE IF EXISTS {t}")]));
    stdout(&chwire(&["query", &format!("CREATE TABLE {t} (id UInt64, s String) ENGINE = Memory")]));
    let jsonl = dir.join("rows.jsonl");
    std::fs::write(&jsonl, "{\"id\": 1, \"s\": \"a\"}\n{\"id\": 2, \"s\": \"b\"}\n").unwrap();
    let ins = chwire(&["insert", t, "--input", jsonl.to_str().unwrap()]);
    assert!(ins.status.success(), "{}", String::from_utf8_lossy(&ins.stderr));
    assert_eq!(stdout(&chwire(&["query", &format!("SELECT id, s FROM {t} ORDER BY id")])), "1\ta\n2\tb\n");
    let bare = dir.join("rows");
    std::fs::write(&bare, "3,c\n").unwrap();
    let ins = chwire(&["insert", t, "--input", bare.to_str().unwrap()]);
    assert_eq!(ins.status.code(), Some(2));
    let err = String::from_utf8_lossy(&ins.stderr);
    assert!(err.contains("read as Native") && err.contains("--format CSVWithNames"), "{err}");
    stdout(&chwire(&["query", &format!("DROP TABLE {t}")]));
}

/// tests/features/refusals.json through the CLI: `--param p=<text>` for the cases given as text
/// or integers, and every option in the URL; each refused with the core's message before
/// anything is sent (exit code 2).
#[test]
fn what_every_front_end_refuses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/refusals.json");
    let refusals: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut wrong = Vec::new();
    let mut ran = 0;
    for p in refusals["params"].as_array().unwrap() {
        let text = match &p["value"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) if n.is_i64() => n.to_string(),
            serde_json::Value::Object(m) if m.contains_key("int") => m["int"].as_str().unwrap().to_string(),
            _ => continue,
        };
        if p["cli"] == serde_json::Value::Bool(false) {
            continue;
        }
        ran += 1;
        let (ty, error) = (p["type"].as_str().unwrap(), p["error"].as_str().unwrap());
        let o = chwire(&["query", "-p", &format!("p={text}"), &format!("SELECT toString({{p:{ty}}})")]);
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(2) || !err.contains(error) {
            wrong.push(format!("{ty} {text}: {:?} {err}", o.status.code()));
        }
    }
    assert!(ran >= 8, "{ran} parameter cases ran");
    for o in refusals["options"].as_array().unwrap() {
        let (query, error) = (o["query"].as_str().unwrap(), o["error"].as_str().unwrap());
        let with = format!("{}{}{query}", url(), if url().contains('?') { '&' } else { '?' });
        let out = Command::new(env!("CARGO_BIN_EXE_chwire"))
            .args(["--url", &with, "query", "SELECT 1"])
            .env_remove("CHWIRE_URL")
            .output()
            .expect("run chwire");
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || !err.contains(error) {
            wrong.push(format!("{query}: {:?} {err}", out.status.code()));
        }
    }
    for t in refusals["tables"].as_array().unwrap() {
        let (table, error) = (t["table"].as_str().unwrap(), t["error"].as_str().unwrap());
        let mut child = Command::new(env!("CARGO_BIN_EXE_chwire"))
            .args(["--url", &url(), "insert", table, "--format", "CSV"])
            .env_remove("CHWIRE_URL")
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run chwire");
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(b"1\n");
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || !err.contains(error) {
            wrong.push(format!("table {table:?}: {:?} {err}", out.status.code()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// tests/features/statements.json through the CLI: a query's own FORMAT clause is its output
/// format (`cli`, stdout not a terminal), taken off by the core's rule; words that only look
/// like one stay, and the output is the default TSV.
#[test]
fn a_querys_own_format_clause() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/statements.json");
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in cases["format"].as_array().unwrap() {
        let sql = case["sql"].as_str().unwrap();
        assert_eq!(stdout(&chwire(&["query", sql])), case["cli"].as_str().unwrap(), "{sql}");
    }
}

/// tests/features/nulls.json through the CLI: a JSON Lines file's `null` where the column's type
/// has none. A NULL Array or Map is the empty one (the core's rule). The CLI reads files as
/// ClickHouse reads them, and ClickHouse's JSONEachRow takes `null` for a scalar or Tuple that is
/// not Nullable as the type's default (`input_format_null_as_default`): the `refused` cases are
/// stored as the server's own reading of the same line. On 26.9.
#[test]
fn nulls_where_the_type_has_none() {
    if !stdout(&chwire(&["query", "SELECT version()"])).starts_with("26.") {
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/nulls.json");
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("chwire-cli-nulls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = format!("chwire_cli_nulls_{}", std::process::id());
    let table = |cases: &[serde_json::Value]| {
        let cols: Vec<String> = cases.iter().enumerate().map(|(i, c)| format!("c{i} {}", c["type"].as_str().unwrap())).collect();
        stdout(&chwire(&["query", &format!("DROP TABLE IF EXISTS {t}")]));
        stdout(&chwire(&["query", &format!("CREATE TABLE {t} (k UInt32, {}) ENGINE = Memory", cols.join(", "))]));
        let mut row = serde_json::Map::new();
        row.insert("k".into(), 1.into());
        for (i, c) in cases.iter().enumerate() {
            row.insert(format!("c{i}"), c["value"].clone());
        }
        let file = dir.join("rows.jsonl");
        std::fs::write(&file, format!("{}\n", serde_json::Value::Object(row))).unwrap();
        chwire(&["insert", &t, "--input", file.to_str().unwrap()])
    };
    let inserted = cases["inserted"].as_array().unwrap();
    stdout(&table(inserted));
    let texts: Vec<String> = (0..inserted.len()).map(|i| format!("toString(c{i})")).collect();
    let got = stdout(&chwire(&["query", "-f", "jsonl", &format!("SELECT [{}] AS t FROM {t}", texts.join(", "))]));
    let want: Vec<serde_json::Value> = inserted.iter().map(|c| c["text"].clone()).collect();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&got).unwrap()["t"], serde_json::Value::Array(want));
    for case in cases["refused"].as_array().unwrap() {
        stdout(&table(std::slice::from_ref(case)));
        let ty = case["type"].as_str().unwrap();
        let server = stdout(&chwire(&["query", &format!("SELECT toString(c0) FROM format(JSONEachRow, 'c0 {ty}', '{{\"c0\": null}}')")]));
        assert_eq!(stdout(&chwire(&["query", &format!("SELECT toString(c0) FROM {t}")])), server, "{case}");
    }
    stdout(&chwire(&["query", &format!("DROP TABLE {t}")]));
}
