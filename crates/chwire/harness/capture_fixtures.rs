//! Captures the raw bytes a ClickHouse server sends in a set of conversations, as fixtures
//! for chwire-proto's offline packet tests (`crates/chwire-proto/tests/packets.rs`).
//!
//! ```text
//! cargo run -p chwire --example capture_fixtures -- DIR [--revision N] [--chunked] [--port P]
//! # the 18.16 set (announcing 54465): DIR = crates/chwire-proto/tests/fixtures/packets, --port 19100 --revision 54465
//! # the 26.9 set (54492): DIR = crates/chwire-proto/tests/fixtures/packets26, --port 19000;
//! #   its chunked conversations with --chunked against a 26.9 server configured for chunks
//! ```
//!
//! Each conversation runs on its own TCP connection to 127.0.0.1 (`--port`, default 19000).
//! Against a 26.9 server the tool also captures what only current servers send (sparse and
//! replicated columns, String offsets, Dynamic/JSON V2, versioned aggregate states,
//! compressed ProfileEvents and TableColumns, settings in the Hello, an async insert).
//! With `--chunked` the client asks for chunked framing both ways (`chunked=true`) and the
//! recorded bytes are the framed ones. Client packets are built with chwire-proto's encoders; the server's
//! bytes are recorded exactly as they arrive (never re-encoded) and the [`PacketDecoder`] is
//! only used to know when a conversation is over. For every fixture `<name>` this writes
//! `<name>.bin` (the bytes) and `<name>.hex` (an `xxd`-style dump), plus `MANIFEST.md`
//! describing where each came from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::BytesMut;
use chwire_proto::chunked::{self, ChunkedMode, Dechunker};
use chwire_proto::column::NullableColumn;
use chwire_proto::packet::client::{encode_addendum, encode_data, encode_ping, ClientHello, ClientInfo, Query, Setting};
use chwire_proto::revision::CLIENT_REVISION;
use chwire_proto::wire::WriteExt;
use chwire_proto::{Block, Column, ColumnData, Compression, DataType, PacketDecoder, Revision, ServerHello, ServerPacket};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

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

/// What the client asks for: the revision announced in ClientHello and ClientInfo, and the
/// framing.
#[derive(Clone, Copy)]
struct Mode {
    revision: u64,
    chunked: ChunkedMode,
}

/// A raw connection that records what the server sends.
struct Session {
    mode: Mode,
    /// Chunked framing: what was received, before its headers are taken out into `rbuf`.
    chunked_in: Option<(Dechunker, BytesMut)>,
    send_chunked: bool,
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
    async fn open(port: u16, password: &str, mode: Mode) -> Res<(Session, ServerPacket)> {
        let stream = tokio::time::timeout(READ_TIMEOUT, TcpStream::connect(("127.0.0.1", port))).await??;
        stream.set_nodelay(true)?;
        let announced = mode.revision;
        let mut s = Session {
            mode,
            chunked_in: None,
            send_chunked: false,
            stream,
            raw: Vec::new(),
            rbuf: BytesMut::with_capacity(1 << 16),
            decoder: PacketDecoder::new(announced),
            rev: Revision(announced),
            hello: None,
            sent: Vec::new(),
            seen: Vec::new(),
        };
        let hello = ClientHello {
            client_name: "chwire-fixtures".into(),
            version_major: 0,
            version_minor: 1,
            revision: announced,
            database: "default".into(),
            user: "default".into(),
            password: password.into(),
        };
        let mut out = Vec::new();
        hello.encode(&mut out);
        let desc = format!(
            "ClientHello(name `chwire-fixtures` 0.1, revision {announced}, database `default`, user `default`, password {})",
            if password.is_empty() { "empty".to_string() } else { format!("`{password}`") }
        );
        s.send(&out, desc).await?;
        let first = s.recv().await?;
        if let ServerPacket::Hello(h) = &first {
            s.rev = h.negotiated(announced);
            s.hello = Some(h.clone());
            let (mut send, mut recv) = (false, false);
            if s.rev.has(chwire_proto::revision::CHUNKED_PACKETS) {
                let word = |w: &Option<String>| w.clone().unwrap_or_else(|| "notchunked".into());
                send = chunked::negotiate(&word(&h.chunked_recv), mode.chunked, "receiving")?;
                recv = chunked::negotiate(&word(&h.chunked_send), mode.chunked, "sending")?;
            }
            let mut addendum = Vec::new();
            encode_addendum(s.rev, "", send, recv, &mut addendum);
            if !addendum.is_empty() {
                let what = if s.rev.has(chwire_proto::revision::CHUNKED_PACKETS) {
                    format!("addendum (quota key, framing: send {}, receive {})", framing(send), framing(recv))
                } else {
                    "addendum (quota key)".into()
                };
                s.send(&addendum, what).await?;
            }
            s.send_chunked = send;
            if recv {
                let mut raw = s.rbuf.split();
                let mut d = Dechunker::new(1 << 30);
                d.feed(&mut raw, &mut s.rbuf)?;
                s.chunked_in = Some((d, raw));
            }
        }
        Ok((s, first))
    }

    /// Connect and complete the handshake; the Hello bytes are not kept.
    async fn connect(port: u16, mode: Mode) -> Res<Session> {
        let (mut s, first) = Session::open(port, "", mode).await?;
        if !matches!(first, ServerPacket::Hello(_)) {
            return Err(format!("expected ServerHello, got {}", describe(&first)).into());
        }
        s.take_recorded();
        s.take_sent();
        Ok(s)
    }

    async fn send(&mut self, bytes: &[u8], desc: String) -> Res<()> {
        if self.send_chunked {
            // One message: the packet in one chunk, then the end marker.
            let mut framed = Vec::with_capacity(bytes.len() + 8);
            for (i, (at, header)) in chunked::headers(bytes.len()).iter().enumerate() {
                framed.extend_from_slice(header);
                let next = chunked::headers(bytes.len()).get(i + 1).map_or(*at, |(n, _)| *n);
                framed.extend_from_slice(&bytes[*at..next]);
            }
            self.stream.write_all(&framed).await?;
            self.sent.push(format!("{desc} [chunked]"));
            return Ok(());
        }
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
                match self.chunked_in.as_mut() {
                    Some((d, raw)) => {
                        raw.extend_from_slice(&chunk[..n]);
                        d.feed(raw, &mut self.rbuf)?;
                    }
                    None => self.rbuf.extend_from_slice(&chunk[..n]),
                }
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
        // Framed bytes: a conversation ends with its message, nothing of the next is kept.
        let keep = if self.chunked_in.is_some() { 0 } else { self.rbuf.len() };
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
            client_revision: self.mode.revision,
            quota_key: String::new(),
            client_agent: "chwire-fixtures".into(),
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

fn framing(chunked: bool) -> &'static str {
    if chunked {
        "chunked"
    } else {
        "notchunked"
    }
}

/// A short description of a packet for the manifest.
fn describe(p: &ServerPacket) -> String {
    match p {
        ServerPacket::Hello(h) => format!(
            "Hello({} {}.{}.{}, revision {}, timezone {:?}, display name {:?})",
            h.name, h.version_major, h.version_minor, h.version_patch, h.revision, h.timezone, h.display_name
        ),
        ServerPacket::Exception(e) => format!("Exception({} {}: {:?})", e.code, e.class, e.message.lines().next().unwrap_or("")),
        ServerPacket::Progress(p) => {
            format!("Progress(rows {}, bytes {}, total rows {})", p.read_rows, p.read_bytes, p.total_rows_to_read)
        }
        ServerPacket::ProfileInfo(i) => format!(
            "ProfileInfo(rows {}, blocks {}, bytes {}, applied limit {}, rows before limit {}, calculated {}, applied aggregation {}, rows before aggregation {})",
            i.rows,
            i.blocks,
            i.bytes,
            i.applied_limit,
            i.rows_before_limit,
            i.calculated_rows_before_limit,
            i.applied_aggregation,
            i.rows_before_aggregation
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
    mode: Mode,
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
        let mut s = Session::connect(self.port, self.mode).await?;
        s.query(&format!("chwire-fixture-{name}"), sql, settings, compression).await?;
        s.finish_query().await?;
        self.keep(name, &mut s, vec![after_hello(), format!("SQL: `{sql}`")]);
        Ok(())
    }

    async fn run(&mut self) -> Res<()> {
        // The handshake, whole.
        let (mut s, first) = Session::open(self.port, "", self.mode).await?;
        let ServerPacket::Hello(h) = first else { return Err("no ServerHello".into()) };
        self.server = Some(h);
        self.keep("handshake", &mut s, vec!["recorded: the whole server side of the connection (ServerHello)".into()]);

        let (mut s, first) = Session::open(self.port, "wrong", self.mode).await?;
        if !matches!(first, ServerPacket::Exception(_)) {
            return Err(format!("a wrong password got {}", describe(&first)).into());
        }
        self.keep(
            "handshake_wrong_password",
            &mut s,
            vec!["recorded: the whole server side of the connection (an Exception instead of ServerHello)".into()],
        );

        let mut s = Session::connect(self.port, self.mode).await?;
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
        let mut s = Session::connect(self.port, self.mode).await?;
        s.exec(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}")).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.t")).await?;
        s.query("chwire-fixture-create_table", CREATE_TABLE_SQL, &[], Compression::None).await?;
        s.finish_query().await?;
        self.keep("create_table", &mut s, vec![after_hello(), format!("SQL: `{CREATE_TABLE_SQL}`")]);

        let mut s = Session::connect(self.port, self.mode).await?;
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

        let mut s = Session::connect(self.port, self.mode).await?;
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

        if self.server.as_ref().is_some_and(|h| h.version_major >= 24) {
            self.run_current().await?;
        }

        // Leave the server as it was.
        let mut s = Session::connect(self.port, self.mode).await?;
        for t in ["t", "sparse", "defaults"] {
            s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.{t}")).await?;
        }
        s.exec(&format!("DROP DATABASE IF EXISTS {DATABASE}")).await?;
        Ok(())
    }

    /// What only current servers send (revisions above 54465).
    async fn run_current(&mut self) -> Res<()> {
        self.query("strings", STRINGS_SQL, &[], Compression::None).await?;
        self.query("strings_lz4", STRINGS_SQL, &[("network_compression_method", "lz4")], Compression::Lz4).await?;
        self.query("current_types", CURRENT_TYPES_SQL, &[("allow_experimental_qbit_type", "1")], Compression::None).await?;
        self.query("dynamic_json", DYNAMIC_JSON_SQL, &[], Compression::None).await?;
        self.query("replicated", REPLICATED_SQL, &[], Compression::None).await?;
        self.query("quantile_state", QUANTILE_SQL, &[], Compression::None).await?;
        let group_by = "SELECT number % 3 AS k, count() AS c FROM numbers(100) GROUP BY k ORDER BY k";
        self.query("group_by", group_by, &[("rows_before_aggregation", "1")], Compression::None).await?;
        self.query("profile_events_lz4", "SELECT 1", &[("network_compression_method", "lz4")], Compression::Lz4).await?;

        let mut s = Session::connect(self.port, self.mode).await?;
        s.exec(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}")).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.sparse")).await?;
        s.exec(SPARSE_TABLE_SQL).await?;
        s.exec(SPARSE_INSERT_SQL).await?;
        self.query("sparse", SPARSE_SELECT_SQL, &[], Compression::None).await?;
        self.query("sparse_zstd", SPARSE_SELECT_SQL, &[("network_compression_method", "zstd")], Compression::Zstd(1)).await?;

        // TableColumns (a table with defaults) through compression, then an insert's blocks.
        let mut s = Session::connect(self.port, self.mode).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.defaults")).await?;
        s.exec(DEFAULTS_TABLE_SQL).await?;
        let sql = format!("INSERT INTO {DATABASE}.defaults (id, s) VALUES");
        let settings = [("input_format_defaults_for_omitted_fields", "1"), ("network_compression_method", "lz4")];
        s.query("chwire-fixture-insert_table_columns_lz4", &sql, &settings, Compression::Lz4).await?;
        let packets = s.recv_until(|p| matches!(p, ServerPacket::Data(_) | ServerPacket::Exception(_) | ServerPacket::EndOfStream)).await?;
        if !matches!(packets.last(), Some(ServerPacket::Data(_))) {
            return Err(format!("INSERT got no header block: {:?}", packets.iter().map(describe).collect::<Vec<_>>()).into());
        }
        let block = Block::new().with("id", vec![1u64, 2])?.with("s", vec!["x", "yz"])?;
        s.send_block(&block, Compression::Lz4).await?;
        s.send_block(&Block::new(), Compression::Lz4).await?;
        s.finish_query().await?;
        self.keep("insert_table_columns_lz4", &mut s, vec![after_hello(), format!("SQL: `{sql}`; the table: `{DEFAULTS_TABLE_SQL}`")]);

        // An asynchronous insert (inline VALUES, not waited for).
        let mut s = Session::connect(self.port, self.mode).await?;
        let sql = format!("INSERT INTO {DATABASE}.defaults (id, s) VALUES (7, 'async')");
        s.query("chwire-fixture-async_insert", &sql, &[("async_insert", "1"), ("wait_for_async_insert", "0")], Compression::None).await?;
        s.finish_query().await?;
        self.keep("async_insert", &mut s, vec![after_hello(), format!("SQL: `{sql}` with async_insert=1, wait_for_async_insert=0")]);
        Ok(())
    }

    /// Chunked framing both ways (`--chunked`, against a server whose `proto_caps` allow it):
    /// a handshake, a ping, a query of several blocks, an insert.
    async fn run_chunked(&mut self) -> Res<()> {
        let (mut s, first) = Session::open(self.port, "", self.mode).await?;
        let ServerPacket::Hello(h) = first else { return Err("no ServerHello".into()) };
        self.server = Some(h);
        self.keep(
            "chunked_handshake",
            &mut s,
            vec!["recorded: the whole server side of the connection (ServerHello, never framed)".into()],
        );
        let mut s = Session::connect(self.port, self.mode).await?;
        let mut out = Vec::new();
        encode_ping(&mut out);
        s.send(&out, "Ping".into()).await?;
        s.recv_until(|p| matches!(p, ServerPacket::Pong)).await?;
        self.keep("chunked_ping", &mut s, vec![after_hello()]);
        self.query(
            "chunked_select",
            "SELECT number AS n, toString(number) AS s FROM numbers(10)",
            &[("max_block_size", "4")],
            Compression::None,
        )
        .await?;
        self.query(
            "chunked_select_lz4",
            "SELECT number AS n, toString(number) AS s FROM numbers(10)",
            &[("max_block_size", "4"), ("network_compression_method", "lz4")],
            Compression::Lz4,
        )
        .await?;
        let mut s = Session::connect(self.port, self.mode).await?;
        s.exec(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}")).await?;
        s.exec(&format!("DROP TABLE IF EXISTS {DATABASE}.t")).await?;
        s.exec(CREATE_TABLE_SQL).await?;
        let mut s = Session::connect(self.port, self.mode).await?;
        s.query("chwire-fixture-chunked_insert", INSERT_SQL, &[], Compression::None).await?;
        let packets = s.recv_until(|p| matches!(p, ServerPacket::Data(_) | ServerPacket::Exception(_) | ServerPacket::EndOfStream)).await?;
        if !matches!(packets.last(), Some(ServerPacket::Data(_))) {
            return Err(format!("INSERT got no header block: {:?}", packets.iter().map(describe).collect::<Vec<_>>()).into());
        }
        s.send_block(&insert_block()?, Compression::None).await?;
        s.send_block(&Block::new(), Compression::None).await?;
        s.finish_query().await?;
        self.keep("chunked_insert", &mut s, vec![after_hello(), format!("SQL: `{INSERT_SQL}`; the table: `{CREATE_TABLE_SQL}`")]);
        let mut s = Session::connect(self.port, self.mode).await?;
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
                "* client: announced revision {} in ClientHello and ClientInfo (chwire-proto's `CLIENT_REVISION` is {CLIENT_REVISION}); negotiated revision {}; framing asked for: {:?}",
                self.mode.revision,
                h.negotiated(self.mode.revision),
                self.mode.chunked
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
        let name = if self.mode.chunked == ChunkedMode::On { "MANIFEST-chunked.md" } else { "MANIFEST.md" };
        std::fs::write(dir.join(name), manifest)?;
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

/// Strings at every depth: from 54492 offsets and bytes, but LowCardinality dictionaries.
const STRINGS_SQL: &str = "SELECT ['', 'a', 'bc'][number + 1] AS s, [['x'], [], ['yz', '']][number + 1] AS a, \
if(number = 1, NULL, 'n') AS n, toLowCardinality(['p', 'q', 'p'][number + 1]) AS lc, \
tuple(['t1', '', 't3'][number + 1], number) AS t, map(['k1', 'k2', 'k3'][number + 1], 'v') AS m FROM numbers(3)";

/// Types 18.16 lacks, three rows each.
const CURRENT_TYPES_SQL: &str = "SELECT toBool(number % 2) AS b, toDate32('1900-01-01') + number AS d32, \
toDateTime64('2024-05-06 07:08:09.123', 3, 'UTC') + number AS dt64, toInt128('-170141183460469231731687303715884105728') + number AS i128, \
toUInt256('1000000000000000000000000000000') * number AS u256, toIPv4('10.0.0.1') AS ip4, toIPv6('::ffff:1.2.3.4') AS ip6, \
toDecimal128(number, 20) / 3 AS dec128, CAST((number, toString(number)) AS Tuple(a UInt64, b String)) AS nt, \
CAST(if(number = 0, 42::UInt64::Variant(UInt64, String), 'forty-two'::Variant(UInt64, String)) AS Variant(UInt64, String)) AS v, toBFloat16(number + 0.5) AS bf, \
CAST(number * 3661 AS Time) AS tm, CAST([1.5, -2, 3][number + 1] AS BFloat16) AS bf2 FROM numbers(3)";

/// Dynamic (a UInt8, a String beyond max_types in the shared variant, a NULL) and JSON (a typed path, dynamic paths, shared data).
const DYNAMIC_JSON_SQL: &str = "SELECT CAST(if(number = 0, 1::UInt8::Dynamic, if(number = 1, 'a'::Dynamic, NULL::Dynamic)) AS Dynamic(max_types = 1)) AS d, \
CAST(['{\"a\": 1, \"b\": \"x\", \"c\": [1]}', '{\"a\": 2, \"d\": {\"e\": true}}', '{}'][number + 1] AS JSON(max_dynamic_paths = 1, a UInt32)) AS j \
FROM numbers(3)";

/// The non-array columns of an ARRAY JOIN are replicated (from 54482, as lazy columns).
const REPLICATED_SQL: &str =
    "SELECT s, x FROM (SELECT concat('v', toString(number)) AS s, range(3) AS arr FROM numbers(2)) ARRAY JOIN arr AS x";

/// A state whose layout changed at 54491 (quantileDeterministic's skip_degree).
const QUANTILE_SQL: &str = "SELECT quantileDeterministicState(0.5)(toUInt64(number), number) AS q, \
quantileDeterministicState(0.5)(toUInt16(number), number) AS q16 FROM numbers(5)";

/// A MergeTree table whose mostly-default columns are stored sparse (top level, Nullable,
/// and a Tuple's elements).
const SPARSE_TABLE_SQL: &str = "CREATE TABLE chwire_fixtures.sparse (id UInt64, u UInt32, s String, n Nullable(UInt32), \
t Tuple(a UInt32, b String)) ENGINE = MergeTree ORDER BY id SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5";
const SPARSE_INSERT_SQL: &str = "INSERT INTO chwire_fixtures.sparse SELECT number, if(number % 7 = 3, number, 0), \
if(number % 7 = 3, toString(number), ''), if(number % 7 = 3, number, NULL), if(number % 7 = 3, (number, 'x'), (0, '')) FROM numbers(20)";
const SPARSE_SELECT_SQL: &str = "SELECT u, s, n, t FROM chwire_fixtures.sparse ORDER BY id";

const DEFAULTS_TABLE_SQL: &str =
    "CREATE TABLE chwire_fixtures.defaults (id UInt64, s String, d UInt32 DEFAULT 7, m String MATERIALIZED upper(s)) ENGINE = MergeTree ORDER BY id";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let usage = "usage: capture_fixtures DIR [--revision N] [--chunked] [--port P]";
    let mut args = std::env::args().skip(1);
    let dir: PathBuf = args.next().map(PathBuf::from).ok_or(usage)?;
    let (mut port, mut mode) = (19000u16, Mode { revision: CLIENT_REVISION, chunked: ChunkedMode::Off });
    while let Some(a) = args.next() {
        match a.as_str() {
            "--revision" => mode.revision = args.next().ok_or(usage)?.parse()?,
            "--port" => port = args.next().ok_or(usage)?.parse()?,
            "--chunked" => mode.chunked = ChunkedMode::On,
            _ => return Err(usage.into()),
        }
    }
    let mut capture = Capture { port, mode, fixtures: Vec::new(), server: None };
    if mode.chunked == ChunkedMode::On {
        capture.run_chunked().await?;
    } else {
        capture.run().await?;
    }
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
