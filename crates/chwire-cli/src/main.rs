//! `chwire`: the command-line client.

use chwire::{Client, Compression, Event, Options};
use chwire_cli::{bench, convert, demo, insert, limits, parse_kv, progress};
use chwire_formats as formats;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::IsTerminal;
use std::process::ExitCode;

/// glibc's malloc, left to its dynamic thresholds, serves the buffers of a block (a few hundred
/// KiB to a few MiB each) with `mmap` and gives them back on free, so that every block faults
/// its pages in again (and a batch freed on another thread than the one that made it gets its
/// arena trimmed): a third of a Parquet read, and most of the system time of a large scan, went
/// to page faults. Buffers below 32 MiB come from the heap, and up to 128 MiB of free heap is
/// kept (per arena: glibc gives threads their own). Freed memory is kept for reuse rather than
/// returned; what is kept was in use at a peak, so memory stays bounded by the peaks.
/// (A different allocator, mimalloc, removed the faults too but doubled every workload's RSS.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_malloc() {
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread
    // exists, and both values are in the ranges glibc documents.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

/// chwire: a fast ClickHouse client for the native TCP protocol and the HTTP interface.
///
/// Connection options may come from a URL (--url or CHWIRE_URL), from the individual
/// flags, or both (flags override the URL). Exit codes: 0 success, 1 the server reported
/// an error (code, name and message are printed), 2 bad usage, 3 connection or protocol
/// failure, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM); either signal cancels the
/// running query on the server first.
#[derive(Parser, Debug)]
#[command(name = "chwire", version, about, long_about)]
struct Cli {
    #[command(flatten)]
    conn: ConnArgs,
    #[command(flatten)]
    limits: limits::LimitArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Connection (query, insert, demo, bench)")]
struct ConnArgs {
    /// Server URL: tcp://user:password@host:port/database?compression=lz4&setting=value
    /// (http:// or https:// for the HTTP interface)
    #[arg(long, env = "CHWIRE_URL", global = true)]
    url: Option<String>,
    /// Server host name or address, or several: a:9000,b:9000 (repeatable; the others are
    /// failover servers, see --load-balancing) [default: 127.0.0.1]
    #[arg(long, short = 'H', env = "CHWIRE_HOST", global = true)]
    host: Vec<String>,
    /// Server port [default: 9000 native, 9440 native with TLS, 8123 http, 8443 https]
    #[arg(long, env = "CHWIRE_PORT", global = true)]
    port: Option<u16>,
    /// User name [default: default]
    #[arg(long, short = 'u', env = "CHWIRE_USER", global = true)]
    user: Option<String>,
    /// Password (prefer the CHWIRE_PASSWORD variable: command lines are visible to others)
    #[arg(long, env = "CHWIRE_PASSWORD", hide_env_values = true, global = true)]
    password: Option<String>,
    /// Default database [default: default]
    #[arg(long, short = 'd', env = "CHWIRE_DATABASE", global = true)]
    database: Option<String>,
    /// Compression of data blocks: none, lz4, zstd or zstd:LEVEL [default: none]
    #[arg(long, global = true)]
    compression: Option<Compression>,
    /// Connect timeout, e.g. 5s or 500ms [default: 10s]
    #[arg(long, global = true)]
    connect_timeout: Option<String>,
    /// Longest wait for the socket to take data (0: none) [default: 300s]
    #[arg(long, global = true)]
    send_timeout: Option<String>,
    /// Longest wait for the server's next bytes (0: none) [default: 300s]
    #[arg(long, global = true)]
    receive_timeout: Option<String>,
    /// Deadline of the whole query; on expiry it is cancelled [default: none]
    #[arg(long, global = true)]
    query_timeout: Option<String>,
    /// Which of several servers to try first: in_order, round_robin or random [default: in_order]
    #[arg(long, global = true)]
    load_balancing: Option<chwire::LoadBalancing>,
    /// Connect over TLS (the server's tcp_port_secure); the certificate is verified
    #[arg(long, global = true)]
    secure: bool,
    /// PEM file of the CA to trust (implies --secure) [default: the system's roots]
    #[arg(long, global = true, value_name = "PATH")]
    ca_file: Option<std::path::PathBuf>,
    /// Client certificate (PEM) for mutual TLS (implies --secure; needs --key)
    #[arg(long, global = true, value_name = "PATH", requires = "key")]
    cert: Option<std::path::PathBuf>,
    /// Private key (PEM) of --cert
    #[arg(long, global = true, value_name = "PATH", requires = "cert")]
    key: Option<std::path::PathBuf>,
    /// Name to verify the server's certificate against (and send as SNI) [default: the host]
    #[arg(long, global = true, value_name = "NAME")]
    tls_server_name: Option<String>,
    /// Protocol revision to announce, from 54032 to chwire's own (54492, ClickHouse 26.9's):
    /// a lower one makes a current server talk as to an older client (URL key client_revision)
    #[arg(long, global = true, value_name = "N")]
    client_revision: Option<u64>,
    /// native (TCP protocol) or http (ClickHouse's HTTP interface, https with --secure);
    /// http:// and https:// URLs choose http [default: native]
    #[arg(long, global = true, value_name = "native|http")]
    transport: Option<chwire::Transport>,
    /// HTTP: run the queries in this server session (temporary tables, SET)
    #[arg(long, global = true, value_name = "ID")]
    session_id: Option<String>,
}

impl ConnArgs {
    fn options(&self) -> chwire::Result<Options> {
        // What decides ports goes through the core's reader with the URL, as every binding's
        // options do: a host without a port gets the default of the transport and TLS that
        // the URL and flags choose together.
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(t) = self.transport {
            pairs.push(("transport", if t == chwire::Transport::Http { "http" } else { "native" }.into()));
        }
        if self.secure || self.ca_file.is_some() || self.cert.is_some() || self.tls_server_name.is_some() {
            pairs.push(("secure", "true".into()));
        }
        if let Some(p) = self.port {
            pairs.push(("port", p.to_string()));
        }
        let mut o = Options::from_url_and(self.url.as_deref(), pairs)?;
        if let Some(id) = &self.session_id {
            o.session_id = Some(id.clone());
        }
        if let Some(u) = &self.user {
            o.user = u.clone();
        }
        if let Some(p) = &self.password {
            o.password = p.clone();
        }
        if let Some(d) = &self.database {
            o.database = d.clone();
        }
        if let Some(c) = self.compression {
            o.compression = c;
        }
        if let Some(r) = self.client_revision {
            o.client_revision = r;
        }
        for (key, value) in [
            ("connect_timeout", &self.connect_timeout),
            ("send_timeout", &self.send_timeout),
            ("receive_timeout", &self.receive_timeout),
            ("query_timeout", &self.query_timeout),
        ] {
            if let Some(v) = value {
                o.set(key, v)?;
            }
        }
        if let Some(lb) = self.load_balancing {
            o.load_balancing = lb;
        }
        if self.secure || self.ca_file.is_some() || self.cert.is_some() || self.tls_server_name.is_some() {
            let tls = o.tls.get_or_insert_with(chwire::TlsOptions::default);
            if let Some(ca) = &self.ca_file {
                tls.ca_file = Some(ca.clone());
            }
            if let (Some(c), Some(k)) = (&self.cert, &self.key) {
                tls.cert_file = Some(c.clone());
                tls.key_file = Some(k.clone());
            }
            if let Some(n) = &self.tls_server_name {
                tls.server_name = Some(n.clone());
            }
        }
        if !self.host.is_empty() {
            let mut list = Vec::new();
            for h in &self.host {
                list.extend(chwire::Endpoint::parse_list(h, o.port)?);
            }
            if !list.is_empty() {
                o = o.hosts(list);
            }
        }
        Ok(o)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a query and stream its result to stdout.
    Query(QueryArgs),
    /// Create a demo table, insert generated rows with a progress bar, and aggregate them.
    Demo(demo::DemoArgs),
    /// Run one benchmark workload (see bench/PEERS.md) and print a RESULT line.
    Bench(bench::BenchArgs),
    /// Convert a file (or stdin) from one format to another, e.g. Native or CSV to Parquet.
    Convert(convert::ConvertArgs),
    /// Insert rows of any input format (a file or stdin) into a table.
    Insert(insert::InsertArgs),
}

#[derive(Args, Debug)]
struct QueryArgs {
    /// The SQL text; `-` reads it from stdin
    sql: String,
    /// Output format [default: the query's FORMAT clause, else Pretty on a terminal, TSV
    /// otherwise]: ClickHouse's names, any case: TSV, TSVWithNames, TSVWithNamesAndTypes, CSV,
    /// CSVWithNames, CSVWithNamesAndTypes, JSONEachRow (jsonl), Pretty, Native, Arrow,
    /// ArrowStream, Parquet, Null (the rows are received and dropped)
    #[arg(long, short = 'f', value_parser = formats::any_format)]
    format: Option<formats::Format>,
    /// A ClickHouse setting for this query (repeatable): --setting max_threads=4
    #[arg(long = "setting", short = 's', value_name = "NAME=VALUE", value_parser = parse_kv)]
    settings: Vec<(String, String)>,
    /// Query id (default: a random UUID)
    #[arg(long)]
    query_id: Option<String>,
    /// A value for a `{name:Type}` placeholder (repeatable): --param id=42. The value is
    /// taken as it is (no escapes) and always arrives as data, never as SQL; `\N` is NULL
    /// (as `param_name=\N` over ClickHouse's HTTP interface)
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = parse_kv)]
    params: Vec<(String, String)>,
    /// Progress on stderr: auto (a bar on a terminal), always (when stderr is no terminal, a
    /// line of text once a second and at the end), never
    #[arg(long, value_enum, default_value_t = progress::When::Auto)]
    progress: progress::When,
    /// Print the query's totals (rows, bytes, peak memory) to stderr at the end
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    files: chwire_cli::file_args::FileArgs,
}

/// Report an error the way the exit codes promise.
fn fail(e: &chwire_cli::Error) -> ExitCode {
    match e.server() {
        Some(ex) => {
            eprintln!("Error: code {} ({}): {}", ex.code, ex.name(), ex.text());
            let mut n = ex.nested.as_deref();
            while let Some(x) = n {
                eprintln!("  caused by: code {} ({}): {}", x.code, x.name(), x.text());
                n = x.nested.as_deref();
            }
        }
        None => eprintln!("Error: {e}"),
    }
    ExitCode::from(e.exit_code())
}

/// SIGINT (Ctrl-C) and SIGTERM, caught from the start of `chwire query`: either one stops the
/// query on the server (`QueryStream::cancel`: Cancel over the native protocol, KILL QUERY by
/// its id over HTTP) before the process exits, rather than ending the process with the query
/// still running. A signal that comes while a block is being written is acted on once it is
/// written.
struct Stop {
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Stop {
    fn new() -> std::io::Result<Stop> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Stop { int: signal(SignalKind::interrupt())?, term: signal(SignalKind::terminate())? })
        }
        #[cfg(not(unix))]
        Ok(Stop {})
    }

    /// The next signal, as the exit code it ends the process with.
    async fn recv(&mut self) -> u8 {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.int.recv() => 130,
                _ = self.term.recv() => 143,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            130
        }
    }
}

/// Stop the query on the server after a signal (a second signal exits at once), then exit.
async fn cancel_and_exit(stream: chwire::QueryStream<'_>, stop: &mut Stop, code: u8) -> std::convert::Infallible {
    let what = if code == 143 { "Terminated" } else { "Interrupted" };
    eprintln!("{what}: cancelling the query.");
    tokio::select! {
        r = stream.cancel() => if let Err(e) = r {
            eprintln!("Error while cancelling: {e}");
        },
        _ = stop.recv() => {}
    }
    std::process::exit(code.into());
}

async fn run_query(opts: Options, args: QueryArgs) -> chwire_cli::Result<()> {
    let mut stop = Stop::new()?;
    let sql = if args.sql == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        s
    } else {
        args.sql
    };
    let stdout_tty = std::io::stdout().is_terminal();
    // The query's own FORMAT clause is the output format (as clickhouse-client takes it: over
    // the native protocol the server ignores the clause, over HTTP it would answer in that
    // format instead of the Native chwire decodes; `chwire::sql::format_clause`). A trailing
    // `format <word>` whose word is no ClickHouse format may be something else (`ORDER BY
    // format DESC`, a column named format): the SQL then goes as it is. A ClickHouse format
    // chwire does not write is an error: the server would ignore it (native) or answer in it
    // (HTTP), and either way the output would not be what the clause asks.
    let (sql, clause) = match chwire::sql::format_clause(&sql) {
        Some(c) => match formats::any_format(&c.name) {
            Ok(f) => (chwire::sql::without_format_clause(&sql).into_owned(), Some((f, c.name))),
            Err(_) if c.known => {
                let name = c.name;
                return Err(chwire_cli::Error::invalid_input(format!(
                    "the query asks for FORMAT {name}, which chwire does not write; it writes {} (remove the clause or pick one \
                     of those, or --format)",
                    formats::Format::all_names()
                )));
            }
            Err(_) => (sql, None),
        },
        None => (sql, None),
    };
    let fmt = match (clause, args.format) {
        (Some((f, name)), given) => {
            if let Some(g) = given.filter(|g| *g != f) {
                return Err(chwire_cli::Error::invalid_input(format!("the query says FORMAT {name}, --format says {g}")));
            }
            f
        }
        (None, Some(f)) => f,
        (None, None) if stdout_tty => formats::Format::Pretty,
        (None, None) => formats::Format::Tsv,
    };
    formats::options::refuse_unapplied(&args.settings)?;
    args.files.check_output(Some(fmt))?;
    let (format_settings, settings) = formats::options::split_settings(args.settings);
    let mut client = tokio::select! {
        c = Client::connect(opts) => c?,
        code = stop.recv() => std::process::exit(code.into()), // no query was sent
    };
    let tz = client.server_info().and_then(|i| i.timezone);
    let files = args.files.options(&format_settings, tz.as_deref())?;
    let mut q = client.query(sql);
    for (k, v) in settings {
        q = q.setting(k, v);
    }
    if let Some(id) = args.query_id {
        q = q.query_id(id);
    }
    for (k, v) in args.params {
        // Text (the server's escaped text form), shaped by the placeholder's type where an
        // older server gets a literal: a zoned DateTime's text read in its zone.
        q = if v == "\\N" { q.param(k, None::<String>) } else { q.bind(k, &chwire::ParamValue::Str(v)) };
    }
    // A signal that came while the query was being sent is taken in the loop below.
    let mut stream = q.stream().await?;
    let mut out = match formats::sink(fmt, Box::new(std::io::stdout()), tz.as_deref(), &files) {
        Ok(o) => o,
        Err(e) => {
            let _ = stream.cancel().await;
            return Err(e.into());
        }
    };
    let mut begun = false;
    let bar = progress::Bar::new(args.progress);
    let mut result_rows = 0u64;
    loop {
        // A failed read has stopped the query itself (Cancel, or KILL QUERY over HTTP).
        let ev = tokio::select! {
            ev = stream.next_event() => ev?,
            code = stop.recv() => {
                bar.finish(false);
                let _ = out.flush();
                match cancel_and_exit(stream, &mut stop, code).await {}
            }
        };
        let Some(ev) = ev else { break };
        if let (false, Some(h)) = (begun, stream.header()) {
            if let Err(e) = out.begin(&formats::columns_of(h)) {
                let _ = stream.cancel().await;
                return Err(e.into());
            }
            begun = true;
        }
        match ev {
            Event::Data(block) => {
                result_rows += block.rows() as u64;
                bar.update(stream.progress());
                let res = if bar.is_visible() && stdout_tty {
                    bar.suspend(|| out.write(block).and_then(|_| out.flush()))
                } else {
                    out.write(block)
                };
                if let Err(e) = res {
                    // The rest of the result is not wanted: stop the query on the server.
                    bar.finish(false);
                    let _ = stream.cancel().await;
                    if formats::is_broken_pipe(&e) {
                        // The reader went away (e.g. `| head`): stop quietly.
                        return Ok(());
                    }
                    return Err(e.into());
                }
            }
            Event::Progress(_) => bar.update(stream.progress()),
            Event::Log(b) => {
                let text = b.column("text");
                for i in 0..b.rows() {
                    if let Some(chwire::Value::String(s)) = text.map(|c| c.value(i)) {
                        bar.suspend(|| eprintln!("[server] {}", String::from_utf8_lossy(s)));
                    }
                }
            }
            _ => {}
        }
    }
    if let (false, Some(h)) = (begun, stream.header()) {
        out.begin(&formats::columns_of(h))?;
    }
    if let Err(e) = out.finish() {
        if !formats::is_broken_pipe(&e) {
            return Err(e.into());
        }
    }
    bar.finish(stream.progress_is_final());
    if args.stats {
        let p = stream.progress();
        let peak = peak_rss_kib().map(|k| format!("; peak memory {:.1} MiB", k as f64 / 1024.0)).unwrap_or_default();
        // Over HTTP the server reports its progress only when the result begins (18.16: not
        // at all): say so rather than print a count that stopped there, or zeros.
        let read = if stream.progress_is_final() {
            format!("{} rows, {} bytes read", p.read_rows, p.read_bytes)
        } else if *p == chwire::Progress::default() {
            "rows and bytes read: not reported by the server over HTTP".to_string()
        } else {
            format!(
                "at least {} rows, {} bytes read (the server reports its progress over HTTP only until the result begins)",
                p.read_rows, p.read_bytes
            )
        };
        eprintln!("{read}; {result_rows} rows in the result{peak}");
    }
    Ok(())
}

/// This process's peak resident memory (Linux: VmHWM), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The command line. The connection flags are global (`chwire --url U query` and `chwire query
/// --url U` both work), so clap lists them under every command: they are hidden from the help
/// of `convert`, which never connects.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    let conn: Vec<clap::Id> = ConnArgs::augment_args(clap::Command::new("conn")).get_arguments().map(|a| a.get_id().clone()).collect();
    // In place (`mut_arg` would reorder the built command's arguments).
    cmd.mut_subcommand("convert", |c| c.mut_args(|a| if conn.contains(a.get_id()) { a.hide(true) } else { a }))
}

fn main() -> ExitCode {
    tune_malloc();
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_env("CHWIRE_LOG")).with_writer(std::io::stderr).init();
    let opts = match cli.conn.options().and_then(|mut o| {
        o.limits = cli.limits.apply(o.limits)?;
        Ok(o)
    }) {
        Ok(o) => o,
        Err(e) => return fail(&e.into()),
    };
    if let Command::Convert(a) = cli.command {
        return match convert::run(a, opts.limits) {
            Ok(()) => ExitCode::SUCCESS,
            // The reader went away (e.g. `| head`): stop quietly, as `query` does.
            Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime");
    let res = rt.block_on(async move {
        match cli.command {
            Command::Query(a) => run_query(opts, a).await,
            Command::Demo(a) => demo::run(opts, a).await.map_err(Into::into),
            Command::Bench(a) => bench::run(opts, a).await.map_err(Into::into),
            Command::Insert(a) => insert::run(opts, a).await,
            Command::Convert(_) => unreachable!("handled above"),
        }
    });
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Options {
        let argv = ["chwire"].iter().chain(args).chain(&["query", "SELECT 1"]);
        Cli::try_parse_from(argv).unwrap().conn.options().unwrap()
    }

    /// The flags and the URL are read together by the core: a host without a port gets the
    /// default of the transport and TLS they choose; a port written or given stays.
    #[test]
    fn ports_follow_the_flags_and_the_url_together() {
        let ports = |o: Options| o.endpoints().iter().map(|e| e.port).collect::<Vec<_>>();
        assert_eq!(ports(options(&["--url", "tcp://a,b/db?hosts=c", "--secure"])), [9440, 9440, 9440]);
        assert_eq!(ports(options(&["--url", "tcp://a:9000?port=9001", "--secure"])), [9001]);
        assert_eq!(ports(options(&["--url", "tcp://a", "--transport", "http"])), [8123]);
        assert_eq!(ports(options(&["--url", "https://a:443"])), [443]);
        assert_eq!(ports(options(&["--url", "tcp://a:1", "--port", "2"])), [2]);
        assert_eq!(ports(options(&["-H", "x,y:5", "--secure"])), [9440, 5]);
    }
}
