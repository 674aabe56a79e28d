//! Captures the raw bytes a ClickHouse server sends in a set of conversations, as fixtures
//! for chwire-proto's offline packet tests (`crates/chwire-proto/tests/packets.rs`).
//!
//! ```text
//! cargo run -p chwire --example capture_fixtures -- crates/chwire-proto/tests/fixtures/packets
//! ```
//!
//! Each conversation runs on its own TCP connection to 127.0.0.1:19000 (`CHWIRE_CH_TCP_PORT`
//! overrides the port). Client packets are built with chwire-proto's encoders; the server's
//! bytes are recorded exactly as they arrive (never re-encoded) and the [`PacketDecoder`] is
//! only used to know when a conversation is over. For every fixture `<name>` this writes
//! `<name>.bin` (the bytes) and `<name>.hex` (an `xxd`-style dump), plus `MANIFEST.md`
//! describing where each came from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::BytesMut;
use chwire_proto::column::NullableColumn;
use chwire_proto::packet::client::{encode_addendum, encode_data, encode_ping, ClientHello, ClientInfo, Query, Setting};
use chwire_proto::revision::CLIENT_REVISION;
use chwire_proto::wire::WriteExt;
use chwire_proto::{Block, Column, ColumnData, Compression, DataType, PacketDecoder, Revision, ServerHello, ServerPacket};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The revision announced in ClientHello and ClientInfo.
const ANNOUNCED_REVISION: u64 = CLIENT_REVISION;
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// For conversations chwire cannot decode: stop reading after this long without bytes.
const IDLE_TIMEOUT: Duration = Duration::from_millis(1500);
const DATABASE: &str = "chwire_fixtures";

/// One captured fixture.
struct Fixture {
    name: String,
    bytes: Vec<u8>,
    /// Markdown lines: what the client sent, what was recorded.
    notes: Vec<String>,
    /// The packets the decoder saw in the recorded bytes (or the error that stopped it).
    packets: Vec<String>,
}

/// A raw connection that records what the server sends.
struct Session {
    stream: TcpStream,
    /// Every byte received since the last [`Session::take_recorded`].
    raw: Vec<u8>,
    /// Received bytes not yet decoded (always a suffix of `raw`).
    rbuf: BytesMut,
    decoder: PacketDecoder,
    rev: Revision,
    hello: Option<ServerHello>,
    /// Client packets sent since the last [`Session::take_sent`], in words.
    sent: Vec<String>,
    /// Packets decoded since the last [`Session::take_recorded`].
    seen: Vec<String>,
}

impl Session {
    /// Connect and send ClientHello; returns the session and the server's first packet.
    async fn open(port: u16, password: &str) -> Res<(Session, ServerPacket)> {
        let stream = tokio::time::timeout(READ_TIMEOUT, TcpStream::connect(("127.0.0.1", port))).await??;
        stream.set_nodelay(true)?;
        let mut s = Session {
            stream,
            raw: Vec::new(),
            rbuf: BytesMut::with_capacity(1 << 16),
            decoder: PacketDecoder::new(ANNOUNCED_REVISION),
            rev: Revision(ANNOUNCED_REVISION),
            hello: None,
            sent: Vec::new(),
            seen: Vec::new(),
        };
        let hello = ClientHello {
            client_name: "chwire-fixtures".into(),
            version_major: 0,
            version_minor: 1,
            revision: ANNOUNCED_REVISION,
            database: "default".into(),
            user: "default".into(),
            password: password.into(),
        };
        let mut out = Vec::new();
        hello.encode(&mut out);
        let desc = format!(
            "ClientHello(name `chwire-fixtures` 0.1, revision {ANNOUNCED_REVISION}, database `default`, user `default`, password {})",
            if password.is_empty() { "empty".to_string() } else { format!("`{password}`") }
        );
        s.send(&out, desc).await?;
        let first = s.recv().await?;
        if let ServerPacket::Hello(h) = &first {
            s.rev = h.negotiated(ANNOUNCED_REVISION);
            s.hello = Some(h.clone());
            let mut addendum = Vec::new();
            encode_addendum(s.rev, "", &mut addendum);
            if !addendum.is_empty() {
                s.send(&addendum, "addendum (quota key)".into()).await?;
            }
        }
        Ok((s, first))
    }

    /// Connect and complete the handshake; the Hello bytes are not kept.
    async fn connect(port: u16) -> Res<Session> {
        let (mut s, first) = Session::open(port, "").await?;
        if !matches!(first, ServerPacket::Hello(_)) {
            return Err(format!("expected ServerHello, got {}", describe(&first)).into());
        }
        s.take_recorded();
        s.take_sent();
        Ok(s)
    }

    async fn send(&mut self, bytes: &[u8], desc: String) -> Res<()> {
        self.stream.write_all(bytes).await?;
        self.sent.push(desc);
        Ok(())
    }

    /// Read until the decoder has the next packet.
    async fn recv(&mut self) -> Res<ServerPacket> {
        loop {
            if self.rbuf.len() >= self.decoder.needed() {
                if let Some(p) = self.decoder.decode(&mut self.rbuf)? {
                    self.seen.push(describe(&p));
                    return Ok(p);
                }
            }
            let n = self.read_some(READ_TIMEOUT).await?.ok_or("timed out waiting for the server")?;
            if n == 0 {
                return Err("the server closed the connection".into());
            }
        }
    }

    /// One read; `None` on timeout.
    async fn read_some(&mut self, timeout: Duration) -> Res<Option<usize>> {
        let mut chunk = vec![0u8; 1 << 16];
        match tokio::time::timeout(timeout, self.stream.read(&mut chunk)).await {
            Err(_) => Ok(None),
            Ok(n) => {
                let n = n?;
                self.raw.extend_from_slice(&chunk[..n]);
                self.rbuf.extend_from_slice(&chunk[..n]);
                Ok(Some(n))
            }
        }
    }

    /// Receive packets up to and including the first one `stop` accepts.
    async fn recv_until(&mut self, stop: impl Fn(&ServerPacket) -> bool) -> Res<Vec<ServerPacket>> {
        let mut out = Vec::new();
        loop {
            let p = self.recv().await?;
            let done = stop(&p);
            out.push(p);
            if done {
                return Ok(out);
            }
        }
    }

    /// Receive to the end of a query (EndOfStream or Exception). A decode error is noted in
    /// the packet list and the rest of the server's bytes are read until it goes quiet.
    async fn finish_query(&mut self) -> Res<()> {
        match self.recv_until(|p| matches!(p, ServerPacket::EndOfStream | ServerPacket::Exception(_))).await {
            Ok(_) => Ok(()),
            Err(e) => {
                self.seen.push(format!("**decoder error**: {e}"));
                while let Some(n) = self.read_some(IDLE_TIMEOUT).await? {
                    if n == 0 {
                        break;
                    }
                }
                self.rbuf.clear();
                Ok(())
            }
        }
    }

    /// The bytes received and decoded since the last call (bytes of a packet not yet
    /// complete stay for the next one).
    fn take_recorded(&mut self) -> (Vec<u8>, Vec<String>) {
        let keep = self.rbuf.len();
        let rest = self.raw.split_off(self.raw.len() - keep);
        (std::mem::replace(&mut self.raw, rest), std::mem::take(&mut self.seen))
    }

    fn take_sent(&mut self) -> Vec<String> {
        std::mem::take(&mut self.sent)
    }

    /// Send a Query packet and the empty Data block that ends the external tables.
    async fn query(&mut self, id: &str, sql: &str, settings: &[(&str, &str)], compression: Compression) -> Res<()> {
        let info = ClientInfo {
            initial_user: String::new(),
            initial_query_id: String::new(),
            initial_address: "0.0.0.0:0".into(),
            initial_query_start_time_us: 0,
            os_user: "chwire".into(),
            client_hostname: "chwire-fixtures".into(),
            client_name: "chwire-fixtures".into(),
            version_major: 0,
            version_minor: 1,
            version_patch: 0,
            client_revision: ANNOUNCED_REVISION,
            quota_key: String::new(),
        };
        let settings: Vec<Setting> =
            settings.iter().map(|(n, v)| Setting { name: n.to_string(), value: v.to_string(), important: false }).collect();
        let packet = Query {
            query_id: id,
            client_info: &info,
            settings: &settings,
            compression: compression.is_enabled(),
            query: sql,
            parameters: &[],
        };
        let mut out = Vec::new();
        packet.encode(self.rev, &mut out).expect("the fixtures' settings fit their binary form");
        let settings_desc = if settings.is_empty() {
            "no settings".to_string()
        } else {
            settings.iter().map(|s| format!("`{}={}`", s.name, s.value)).collect::<Vec<_>>().join(", ")
        };
        self.send(
            &out,
            format!(
                "Query(id `{id}`, ClientInfo TCP initial query, {settings_desc}, stage Complete, compression {}, SQL below)",
                compression.is_enabled() as u8
            ),
        )
        .await?;
        self.send_block(&Block::new(), compression).await?;
        self.decoder.set_compression(compression.is_enabled());
        Ok(())
    }

    async fn send_block(&mut self, block: &Block, compression: Compression) -> Res<()> {
        let mut out = Vec::new();
        encode_data(block, self.rev, compression, &mut Vec::new(), &mut out);
        let what = if block.is_empty() {
            "empty block".to_string()
        } else {
            format!("block of {} rows: {}", block.rows(), block.names().collect::<Vec<_>>().join(", "))
        };
        let how = match compression {
            Compression::None => String::new(),
            c => format!(", compressed {c:?}"),
        };
        self.send(&out, format!("Data({what}{how})")).await
    }

    /// Run a statement whose packets are not recorded (setup).
    async fn exec(&mut self, sql: &str) -> Res<()> {
        self.query("chwire-fixture-setup", sql, &[], Compression::None).await?;
        let packets = self.recv_until(|p| matches!(p, ServerPacket::EndOfStream | ServerPacket::Exception(_))).await?;
        if let Some(ServerPacket::Exception(e)) = packets.last() {
            return Err(format!("setup statement {sql:?} failed: {e}").into());
        }
        self.take_recorded();
        self.take_sent();
        Ok(())
    }
}

/// A short description of a packet for the manifest.
fn describe(p: &ServerPacket) -> String {
    match p {
        ServerPacket::Hello(h) => format!(
            "Hello({} {}.{}.{}, revision {}, timezone {:?}, display name {:?})",
            h.name, h.version_major, h.version_minor, h.version_patch, h.revision, h.timezone, h.display_name
        ),
        ServerPacket::Exception(e) => format!("Exception({} {}: {:?})", e.code, e.name, e.message.lines().next().unwrap_or("")),
        ServerPacket::Progress(p) => {
            format!("Progress(rows {}, bytes {}, total rows {})", p.read_rows, p.read_bytes, p.total_rows_to_read)
        }
        ServerPacket::ProfileInfo(i) => format!(
            "ProfileInfo(rows {}, blocks {}, bytes {}, applied limit {}, rows before limit {}, calculated {})",
            i.rows, i.blocks, i.bytes, i.applied_limit, i.rows_before_limit, i.calculated_rows_before_limit
        ),
        ServerPacket::Data(b)
        | ServerPacket::Totals(b)
        | ServerPacket::Extremes(b)
        | ServerPacket::Log(b)
        | ServerPacket::ProfileEvents(b) => {
            let cols: Vec<String> = b.columns().iter().map(|(n, c)| format!("{n} {}", c.data_type())).collect();
            format!("{}({} rows; {})", p.name(), b.rows(), cols.join(", "))
        }
        ServerPacket::TableColumns { table, description } => format!("TableColumns(table {table:?}, {description:?})"),
        ServerPacket::TablesStatus(v) => format!("TablesStatusResponse({v:?})"),
        other => other.name().to_string(),
    }
}

fn hexdump(bytes: &[u8]) -> String {
    let mut s = String::new();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(s, "{:08x}: ", i * 16);
        for j in 0..16 {
            match chunk.get(j) {
                Some(b) => {
                    let _ = write!(s, "{b:02x}");
                }
                None => s.push_str("  "),
            }
            if j % 2 == 1 {
                s.push(' ');
            }
        }
        s.push(' ');
        s.extend(chunk.iter().map(|&b| if (0x20..0x7f).contains(&b) { b as char } else { '.' }));
        s.push('\n');
    }
    s
}

struct Capture {
    port: u16,
    fixtures: Vec<Fixture>,
    server: Option<ServerHello>,
}

impl Capture {
    fn keep(&mut self, name: &str, s: &mut Session, mut notes: Vec<String>) {
        let (bytes, packets) = s.take_recorded();
        let sent = s.take_sent();
        notes.insert(0, format!("client packets: {}", sent.join(" → ")));
        self.fixtures.push(Fixture { name: name.into(), bytes, notes, packets });
    }

    /// A SELECT-like query on a fresh connection: records the server's bytes after Hello.
    async fn query(&mut self, name: &str, sql: &str, settings: &[(&str, &str)], compression: Compression) -> Res<()> {
        let mut s = Session::connect(self.port).await?;
        s.query(&format!("chwire-fixture-{name}"), sql, settings, compression).await?;
        s.finish_query().await?;
        self.keep(name, &mut s, vec![after_hello(), format!("SQL: `{sql}`")]);
        Ok(())
    }

    async fn run(&mut self) -> Res<()> {
        // The handshake, whole.
        let (mut s, first) = Session::open(self.port, "").await?;
        let ServerPacket::Hello(h) = first else { return Err("no ServerHello".into()) };
        self.server = Some(h);
        self.keep("handshake", &mut s, vec!["recorded: the whole server side of the connection (ServerHello)".into()]);

        let (mut s, first) = Session::open(self.port, "wrong").await?;
        if !matches!(first, ServerPacket::Exception(_)) {
            return Err(format!("a wrong password got {}", describe(&first)).into());
        }
        self.keep(
            "handshake_wrong_password",
            &mut s,
            vec!["recorded: the whole server side of the connection (an Exception instead of ServerHello)".into()],
        );

        let mut s = Session::connect(self.port).await?;
        let mut out = Vec::new();
        encode_ping(&mut out);
        s.send(&out, "Ping".into()).await?;
        s.recv_until(|p| matches!(p, ServerPacket::Pong)).await?;
        self.keep("ping", &mut s, vec![after_hello()]);

        self.query("select_1", "SELECT 1", &[], Compression::None).await?;
        self.query("empty_result", "SELECT number FROM system.numbers LIMIT 0", &[], Compression::None).await?;
        self.query("syntax_error", "SELEC 1", &[], Compression::None).await?;
        self.query(
            "exception_mid_stream",
            "SELECT throwIf(number = 3) AS t FROM system.numbers LIMIT 10",
            &[("max_block_size", "1")],
            Compression::None,
        )
        .await?;
        self.query("logs", "SELECT 1", &[("send_logs_level", "trace")], Compression::None).await?;
        self.query("logs_lz4", "SELECT 1", &[("send_logs_level", "trace")], Compression::Lz4).await?;
        let totals = "SELECT number % 3 AS k, count() AS c, sum(number) AS s FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k";
        self.query("totals_extremes", totals, &[("extremes", "1")], Compression::None).await?;
        self.query("totals_extremes_lz4", totals, &[("extremes", "1")], Compression::Lz4).await?;
        let small = "SELECT number AS n, toString(number) AS s FROM numbers(5)";
        self.query("select_lz4", small, &[("network_compression_method", "lz4")], Compression::Lz4).await?;
        self.query("select_zstd", small, &[("network_compression_method", "zstd")], Compression::Zstd(1)).await?;
        self.query(
            "select_lz4_multiframe",
            "SELECT toUInt64(number % 7) AS x FROM numbers(150000)",
            &[("max_block_size", "150000"), ("network_compression_method", "lz4")],
            Compression::Lz4,
        )
        .await?;
        self.query("all_types", ALL_TYPES_SQL, &[], Compression::None).await?;
        self.query("all_types_zstd", ALL_TYPES_SQL, &[("network_compression_method", "zstd")], Compression::Zstd(1)).await?;
        self.query("unsupported_type", "SELECT toDecimal32(1.5, 2) AS d", &[], Compression::None).await?;

        // Setup for INSERT and TablesStatus (not recorded).
        let mut s = Session::connect(self.port).await?;
        s.exec(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}")).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.t")).await?;
        s.query("chwire-fixture-create_table", CREATE_TABLE_SQL, &[], Compression::None).await?;
        s.finish_query().await?;
        self.keep("create_table", &mut s, vec![after_hello(), format!("SQL: `{CREATE_TABLE_SQL}`")]);

        let mut s = Session::connect(self.port).await?;
        s.query("chwire-fixture-insert", INSERT_SQL, &[], Compression::None).await?;
        let packets = s.recv_until(|p| matches!(p, ServerPacket::Data(_) | ServerPacket::Exception(_) | ServerPacket::EndOfStream)).await?;
        if !matches!(packets.last(), Some(ServerPacket::Data(_))) {
            return Err(format!("INSERT got no header block: {:?}", packets.iter().map(describe).collect::<Vec<_>>()).into());
        }
        s.send_block(&insert_block()?, Compression::None).await?;
        s.send_block(&Block::new(), Compression::None).await?;
        s.finish_query().await?;
        self.keep(
            "insert",
            &mut s,
            vec![
                after_hello(),
                format!("SQL: `{INSERT_SQL}`; the table: `{CREATE_TABLE_SQL}`"),
                "the data block (sent after the server's header block): id UInt32 [1, 2, 3], s String ['a', '', 'ccc'], n Nullable(UInt8) [7, NULL, 9]".into(),
            ],
        );

        let mut s = Session::connect(self.port).await?;
        let mut out = Vec::new();
        out.put_varuint(chwire_proto::packet::client_code::TABLES_STATUS_REQUEST);
        out.put_varuint(2);
        for t in ["t", "missing"] {
            out.put_str(DATABASE);
            out.put_str(t);
        }
        s.send(&out, format!("TablesStatusRequest([{DATABASE}.t, {DATABASE}.missing]) (encoded by hand: chwire-proto has no encoder)"))
            .await?;
        s.recv_until(|p| matches!(p, ServerPacket::TablesStatus(_) | ServerPacket::Exception(_))).await?;
        self.keep(
            "tables_status",
            &mut s,
            vec![after_hello(), format!("`{DATABASE}.t` is a Memory table; `{DATABASE}.missing` does not exist")],
        );

        // Leave the server as it was.
        let mut s = Session::connect(self.port).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.t")).await?;
        s.exec(&format!("DROP DATABASE IF EXISTS {DATABASE}")).await?;
        Ok(())
    }

    fn write(&self, dir: &Path) -> Res<()> {
        std::fs::create_dir_all(dir)?;
        let mut manifest = String::new();
        let _ = writeln!(manifest, "# Packet fixtures: manifest\n");
        let _ = writeln!(manifest, "Written by `cargo run -p chwire --example capture_fixtures -- <this folder>`; do not edit.\n");
        if let Some(h) = &self.server {
            let _ = writeln!(
                manifest,
                "* server: {} {}.{}.{} (revision {}), timezone {:?}, display name {:?}",
                h.name, h.version_major, h.version_minor, h.version_patch, h.revision, h.timezone, h.display_name
            );
            let _ = writeln!(
                manifest,
                "* client: announced revision {ANNOUNCED_REVISION} (chwire-proto's `CLIENT_REVISION`) in ClientHello and ClientInfo; negotiated revision {}",
                h.negotiated(ANNOUNCED_REVISION)
            );
        }
        let _ = writeln!(
            manifest,
            "* query ids: `chwire-fixture-<name>`; ClientInfo: os user `chwire`, host and client name `chwire-fixtures`\n"
        );
        for f in &self.fixtures {
            std::fs::write(dir.join(format!("{}.bin", f.name)), &f.bytes)?;
            std::fs::write(dir.join(format!("{}.hex", f.name)), hexdump(&f.bytes))?;
            let _ = writeln!(manifest, "## {}\n", f.name);
            let _ = writeln!(manifest, "* `{0}.bin` ({1} bytes), `{0}.hex`", f.name, f.bytes.len());
            for n in &f.notes {
                let _ = writeln!(manifest, "* {n}");
            }
            let _ = writeln!(manifest, "* server packets:");
            for p in &f.packets {
                let _ = writeln!(manifest, "  1. {}", p.replace('\n', " "));
            }
            manifest.push('\n');
        }
        std::fs::write(dir.join("MANIFEST.md"), manifest)?;
        Ok(())
    }
}

fn after_hello() -> String {
    "recorded: the server's bytes after ServerHello (the handshake itself is in `handshake.bin`)".into()
}

const CREATE_TABLE_SQL: &str = "CREATE TABLE chwire_fixtures.t (id UInt32, s String DEFAULT 'dflt', n Nullable(UInt8), d Date DEFAULT toDate('2019-01-02')) ENGINE = Memory";
const INSERT_SQL: &str = "INSERT INTO chwire_fixtures.t (id, s, n) VALUES";

fn insert_block() -> Res<Block> {
    let n = Column::new(
        DataType::parse("Nullable(UInt8)")?,
        ColumnData::Nullable(Box::new(NullableColumn { nulls: vec![0, 1, 0], values: ColumnData::UInt8(vec![7, 0, 9]) })),
    )?;
    Ok(Block::new().with("id", vec![1u32, 2, 3])?.with("s", vec!["a", "", "ccc"])?.with("n", n)?)
}

/// Three rows of every type chwire decodes; row `number` takes element `number + 1` of each
/// array literal. The expected values are spelled out in tests/packets.rs.
const ALL_TYPES_SQL: &str = "SELECT \
CAST(['0','127','255'][number + 1] AS UInt8) AS u8, \
CAST(['0','1000','65535'][number + 1] AS UInt16) AS u16, \
CAST(['0','100000','4294967295'][number + 1] AS UInt32) AS u32, \
CAST(['0','10000000000','18446744073709551615'][number + 1] AS UInt64) AS u64, \
CAST(['-128','0','127'][number + 1] AS Int8) AS i8, \
CAST(['-32768','-1','32767'][number + 1] AS Int16) AS i16, \
CAST(['-2147483648','-1','2147483647'][number + 1] AS Int32) AS i32, \
CAST(['-9223372036854775808','-1','9223372036854775807'][number + 1] AS Int64) AS i64, \
CAST(['1.5','-0.25','3.4028235e38'][number + 1] AS Float32) AS f32, \
CAST(['0.1','-2.5','1e308'][number + 1] AS Float64) AS f64, \
['', 'héllo', 'tab\\there'][number + 1] AS s, \
toFixedString(['ab', '', 'wxyz'][number + 1], 4) AS fs, \
toDate(['1970-01-01', '2019-01-02', '2105-12-31'][number + 1]) AS d, \
toDateTime(['1970-01-01 00:00:00', '2019-01-02 03:04:05', '2105-12-31 23:59:59'][number + 1], 'UTC') AS dt_utc, \
toDateTime(['2000-01-01 00:00:00', '2019-01-02 03:04:05', '2020-06-30 12:00:00'][number + 1], 'Asia/Tokyo') AS dt_tokyo, \
CAST(['a', 'b', 'a'][number + 1] AS Enum8('a' = 1, 'b' = -2)) AS e8, \
CAST(['x', 'y', 'z'][number + 1] AS Enum16('x' = -1000, 'y' = 0, 'z' = 1000)) AS e16, \
toUUID(['00000000-0000-0000-0000-000000000000', '61f0c404-5cb3-11e7-907b-a6006ad3dba0', 'ffffffff-ffff-ffff-ffff-ffffffffffff'][number + 1]) AS uuid, \
if(number = 1, NULL, toInt32(number * 10)) AS n_i32, \
if(number = 0, NULL, ['', 'x', 'yz'][number + 1]) AS n_s, \
[[], [1], [2, 3]][number + 1] AS arr_u8, \
[['a'], [], ['b', '']][number + 1] AS arr_s, \
CAST(['[[1,2],[]]', '[]', '[[3]]'][number + 1] AS Array(Array(UInt8))) AS arr_arr, \
CAST(['[[\\'a\\',NULL]]', '[[],[\\'\\']]', '[]'][number + 1] AS Array(Array(Nullable(String)))) AS arr_arr_ns, \
[[NULL], [1, NULL], []][number + 1] AS arr_n \
FROM system.numbers LIMIT 3";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let dir: PathBuf = std::env::args_os().nth(1).map(PathBuf::from).ok_or("usage: capture_fixtures <output directory>")?;
    let port = match std::env::var("CHWIRE_CH_TCP_PORT") {
        Ok(p) => p.parse().map_err(|_| format!("CHWIRE_CH_TCP_PORT={p:?} is not a port"))?,
        Err(_) => 19000,
    };
    let mut capture = Capture { port, fixtures: Vec::new(), server: None };
    capture.run().await?;
    capture.write(&dir)?;
    for f in &capture.fixtures {
        println!(
            "{:28} {:7} bytes  {}",
            f.name,
            f.bytes.len(),
            f.packets.iter().map(|p| p.split('(').next().unwrap_or(p)).collect::<Vec<_>>().join(" ")
        );
    }
    println!("wrote {} fixtures to {}", capture.fixtures.len(), dir.display());
    Ok(())
}
