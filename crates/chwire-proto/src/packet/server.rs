//! Server → client packets (bodies). Decoding happens in [`crate::decoder`].

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::block::Block;
use crate::error::{DecodeError, ReadResult};
use crate::revision::*;
use crate::wire::Reader;

/// The server's answer to ClientHello.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerHello {
    /// The server's name, e.g. `ClickHouse`.
    pub name: String,
    /// The server's major version.
    pub version_major: u64,
    /// The server's minor version.
    pub version_minor: u64,
    /// The server's patch version (revision >= 54401; 0 before).
    pub version_patch: u64,
    /// The server's own revision.
    pub revision: u64,
    /// The parallel-replicas protocol version (revision >= 54471).
    pub parallel_replicas_version: Option<u64>,
    /// The server's timezone (revision >= 54058).
    pub timezone: Option<String>,
    /// The server's display name (revision >= 54372).
    pub display_name: Option<String>,
    /// How the server frames the packets it sends and wants to receive (revision >= 54470):
    /// `chunked`, `notchunked`, or either with `_optional`.
    pub chunked_send: Option<String>,
    /// See `chunked_send`: the framing the server wants to receive.
    pub chunked_recv: Option<String>,
    /// The password complexity rules as (regular expression, message) pairs (revision >=
    /// 54461).
    pub password_complexity_rules: Vec<(String, String)>,
    /// The nonce of the interserver secret (revision >= 54462).
    pub nonce: Option<u64>,
    /// The settings the server applies to this session, as (name, value) text (revision >=
    /// 54474): the user's profile, as the server lists them.
    pub settings: Vec<(String, String)>,
    /// The query-plan serialization version (revision >= 54477).
    pub query_plan_version: Option<u64>,
    /// The cluster-function protocol version (revision >= 54479).
    pub cluster_function_version: Option<u64>,
}

/// Most settings a ServerHello may list (a server lists the profile's changed settings).
pub const MAX_HELLO_SETTINGS: usize = 1 << 16;
/// Longest string a ServerHello may hold (`DBMS_MAX_HELLO_STRING_SIZE`, 4 KiB, in ClickHouse's
/// own client; chwire allows more, for settings with long values).
pub const MAX_HELLO_STRING: usize = 1 << 20;

impl ServerHello {
    /// Decode the body (after the packet type). `client_revision` is what the client announced.
    pub fn decode(r: &mut Reader<'_>, client_revision: u64) -> ReadResult<ServerHello> {
        let text = |r: &mut Reader<'_>| -> ReadResult<String> {
            let len = r.varuint_len("ServerHello string bytes", MAX_HELLO_STRING)?;
            Ok(String::from_utf8_lossy(r.bytes(len)?).into_owned())
        };
        let mut h = ServerHello {
            name: text(r)?,
            version_major: r.varuint()?,
            version_minor: r.varuint()?,
            revision: r.varuint()?,
            ..Default::default()
        };
        let rev = Revision::negotiate(client_revision, h.revision);
        if rev.has(VERSIONED_PARALLEL_REPLICAS_PROTOCOL) {
            h.parallel_replicas_version = Some(r.varuint()?);
        }
        if rev.has(SERVER_TIMEZONE) {
            h.timezone = Some(text(r)?);
        }
        if rev.has(SERVER_DISPLAY_NAME) {
            h.display_name = Some(text(r)?);
        }
        if rev.has(VERSION_PATCH) {
            h.version_patch = r.varuint()?;
        }
        if rev.has(CHUNKED_PACKETS) {
            h.chunked_send = Some(text(r)?);
            h.chunked_recv = Some(text(r)?);
        }
        if rev.has(PASSWORD_COMPLEXITY_RULES) {
            let n = r.varuint_len("password complexity rules", 256)?;
            for _ in 0..n {
                h.password_complexity_rules.push((text(r)?, text(r)?));
            }
        }
        if rev.has(INTERSERVER_SECRET_V2) {
            h.nonce = Some(r.u64_le()?);
        }
        if rev.has(SERVER_SETTINGS) {
            loop {
                let name = text(r)?;
                if name.is_empty() {
                    break;
                }
                if h.settings.len() >= MAX_HELLO_SETTINGS {
                    return Err(DecodeError::LimitExceeded {
                        what: "ServerHello settings",
                        size: (MAX_HELLO_SETTINGS as u64).saturating_add(1),
                        limit: MAX_HELLO_SETTINGS as u64,
                    }
                    .into());
                }
                r.varuint()?; // flags (important, custom, tier): what the server means by it
                h.settings.push((name, text(r)?));
            }
        }
        if rev.has(QUERY_PLAN_SERIALIZATION) {
            h.query_plan_version = Some(r.varuint()?);
        }
        if rev.has(VERSIONED_CLUSTER_FUNCTION_PROTOCOL) {
            h.cluster_function_version = Some(r.varuint()?);
        }
        Ok(h)
    }

    /// The revision both sides speak: the lower of `client_revision` and the server's.
    pub fn negotiated(&self, client_revision: u64) -> Revision {
        Revision::negotiate(client_revision, self.revision)
    }
}

/// An exception sent by the server (one entry of the chain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerException {
    /// ClickHouse's error code ([`crate::error_codes::code`] names them).
    pub code: i32,
    /// The exception's class as the server sends it (`DB::Exception`, `Poco::Exception`);
    /// [`ServerException::name`] is the code's name.
    pub class: String,
    /// The message, with the class in front as servers write it
    /// ([`ServerException::text`] is without it).
    pub message: String,
    /// The server's stack trace (empty unless it sends one).
    pub stack_trace: String,
    /// The next exception of the chain (the cause), if the server sent one.
    pub nested: Option<Box<ServerException>>,
}

impl ServerException {
    /// Decode the body (after the packet type), with its chain of nested exceptions (at most
    /// [`MAX_EXCEPTION_CHAIN`]).
    pub fn decode(r: &mut Reader<'_>) -> ReadResult<ServerException> {
        // Iterative: the chain's length comes from the wire.
        let mut chain = Vec::new();
        loop {
            let code = r.i32_le()?;
            let class = r.string()?;
            let message = r.string()?;
            let stack_trace = r.string()?;
            let has_nested = r.bool()?;
            chain.push(ServerException { code, class, message, stack_trace, nested: None });
            if !has_nested {
                break;
            }
            if chain.len() >= MAX_EXCEPTION_CHAIN {
                return Err(crate::error::DecodeError::LimitExceeded {
                    what: "exception chain",
                    size: (chain.len() as u64).saturating_add(1),
                    limit: MAX_EXCEPTION_CHAIN as u64,
                }
                .into());
            }
        }
        let Some(mut e) = chain.pop() else {
            return Err(crate::error::DecodeError::malformed("exception", "no exception in the chain").into());
        };
        while let Some(mut outer) = chain.pop() {
            outer.nested = Some(Box::new(e));
            e = outer;
        }
        Ok(e)
    }
}

/// Longest chain of nested exceptions accepted (servers send one).
pub const MAX_EXCEPTION_CHAIN: usize = 64;

impl ServerException {
    /// The symbolic name of the error code (`UNKNOWN_TABLE` for 60), from ClickHouse's table
    /// of codes: servers send only their exception class (`DB::Exception`) as the name.
    pub fn code_name(&self) -> Option<&'static str> {
        crate::error_codes::error_code_name(self.code)
    }

    /// What every front end calls the error: the code's name (`UNKNOWN_TABLE`), or the
    /// exception's class for a code chwire does not know.
    pub fn name(&self) -> &str {
        self.code_name().unwrap_or(&self.class)
    }

    /// The message without the class name that servers put in front of it
    /// (`DB::Exception: Table x doesn't exist` → `Table x doesn't exist`).
    pub fn text(&self) -> &str {
        self.message.strip_prefix(self.class.as_str()).and_then(|m| m.strip_prefix(": ")).unwrap_or(&self.message)
    }
}

impl std::fmt::Display for ServerException {
    /// `Code: 60. DB::Exception: Table x doesn't exist (UNKNOWN_TABLE)`: the class once, and
    /// the code's name unless the message already has it (newer servers add it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code: {}. {}: {}", self.code, self.class, self.text())?;
        if let Some(name) = self.code_name().filter(|n| !self.message.contains(&format!("({n})"))) {
            write!(f, " ({name})")?;
        }
        if let Some(n) = &self.nested {
            write!(f, " (caused by: {n})")?;
        }
        Ok(())
    }
}

/// Progress: the server sends increments; [`Progress::accumulate`] sums them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Rows read.
    pub read_rows: u64,
    /// Bytes read (uncompressed).
    pub read_bytes: u64,
    /// The rows the server expects to read in total (an estimate, may grow).
    pub total_rows_to_read: u64,
    /// The bytes the server expects to read in total (revision >= 54463).
    pub total_bytes_to_read: u64,
    /// Rows written (revision >= 54420).
    pub written_rows: u64,
    /// Bytes written (revision >= 54420).
    pub written_bytes: u64,
    /// Time the query has run on the server, in nanoseconds (revision >= 54460).
    pub elapsed_ns: u64,
}

impl Progress {
    /// Decode the body (after the packet type): the fields the revision `rev` has.
    pub fn decode(r: &mut Reader<'_>, rev: Revision) -> ReadResult<Progress> {
        let mut p = Progress { read_rows: r.varuint()?, read_bytes: r.varuint()?, total_rows_to_read: r.varuint()?, ..Default::default() };
        if rev.has(TOTAL_BYTES_IN_PROGRESS) {
            p.total_bytes_to_read = r.varuint()?;
        }
        if rev.has(CLIENT_WRITE_INFO) {
            p.written_rows = r.varuint()?;
            p.written_bytes = r.varuint()?;
        }
        if rev.has(SERVER_QUERY_TIME_IN_PROGRESS) {
            p.elapsed_ns = r.varuint()?;
        }
        Ok(p)
    }

    /// Add an increment. Totals are increments too; elapsed time is the server's latest.
    pub fn accumulate(&mut self, d: &Progress) {
        self.read_rows = self.read_rows.saturating_add(d.read_rows);
        self.read_bytes = self.read_bytes.saturating_add(d.read_bytes);
        self.total_rows_to_read = self.total_rows_to_read.saturating_add(d.total_rows_to_read);
        self.total_bytes_to_read = self.total_bytes_to_read.saturating_add(d.total_bytes_to_read);
        self.written_rows = self.written_rows.saturating_add(d.written_rows);
        self.written_bytes = self.written_bytes.saturating_add(d.written_bytes);
        self.elapsed_ns = self.elapsed_ns.max(d.elapsed_ns);
    }
}

/// Statistics the server sends at the end of a SELECT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProfileInfo {
    /// Rows of the result.
    pub rows: u64,
    /// Blocks of the result.
    pub blocks: u64,
    /// Bytes of the result (uncompressed, in memory).
    pub bytes: u64,
    /// Whether a LIMIT applied.
    pub applied_limit: bool,
    /// Rows the result would have had without LIMIT (with `calculated_rows_before_limit`).
    pub rows_before_limit: u64,
    /// Whether `rows_before_limit` was calculated.
    pub calculated_rows_before_limit: bool,
    /// Whether the query aggregated, and the rows that went into the aggregation (revision
    /// >= 54469; `false`/0 from older servers).
    pub applied_aggregation: bool,
    /// See `applied_aggregation`.
    pub rows_before_aggregation: u64,
}

impl ProfileInfo {
    /// Decode the body (after the packet type): the fields the revision `rev` has.
    pub fn decode(r: &mut Reader<'_>, rev: Revision) -> ReadResult<ProfileInfo> {
        let mut p = ProfileInfo {
            rows: r.varuint()?,
            blocks: r.varuint()?,
            bytes: r.varuint()?,
            applied_limit: r.bool()?,
            rows_before_limit: r.varuint()?,
            calculated_rows_before_limit: r.bool()?,
            ..ProfileInfo::default()
        };
        if rev.has(ROWS_BEFORE_AGGREGATION) {
            p.applied_aggregation = r.bool()?;
            p.rows_before_aggregation = r.varuint()?;
        }
        Ok(p)
    }
}

/// One table's status in a TablesStatusResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStatus {
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// Whether the table is replicated.
    pub is_replicated: bool,
    /// The replica's delay behind the others, in seconds (replicated tables).
    pub absolute_delay: u64,
    /// A replicated table in read-only mode (revision >= 54467).
    pub is_readonly: bool,
}

/// A decoded server packet.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerPacket {
    /// The answer to ClientHello.
    Hello(ServerHello),
    /// A block of the result.
    Data(Block),
    /// The query failed: no more packets of it follow (no EndOfStream).
    Exception(ServerException),
    /// An increment of the query's progress.
    Progress(Progress),
    /// The answer to Ping.
    Pong,
    /// The query is done: no more packets for it.
    EndOfStream,
    /// Statistics of a SELECT, before EndOfStream.
    ProfileInfo(ProfileInfo),
    /// The block of `WITH TOTALS`.
    Totals(Block),
    /// The block of minimums and maximums (`extremes = 1`).
    Extremes(Block),
    /// The answer to TablesStatusRequest.
    TablesStatus(Vec<TableStatus>),
    /// A block of server log lines (`send_logs_level`).
    Log(Block),
    /// The column description of a table an INSERT writes to.
    TableColumns {
        /// The table's name (empty for the INSERT's own table).
        table: String,
        /// The columns as ClickHouse's `ColumnsDescription` text (names, types, defaults).
        description: String,
    },
    /// UUIDs of the data parts the query read.
    PartUuids(Vec<[u8; 16]>),
    /// A block of the query's profile counters.
    ProfileEvents(Block),
    /// The session timezone changed to this one.
    TimezoneUpdate(String),
}

impl ServerPacket {
    /// The packet's name as ClickHouse calls it (`TablesStatusResponse`, `PartUUIDs`).
    pub fn name(&self) -> &'static str {
        match self {
            ServerPacket::Hello(_) => "Hello",
            ServerPacket::Data(_) => "Data",
            ServerPacket::Exception(_) => "Exception",
            ServerPacket::Progress(_) => "Progress",
            ServerPacket::Pong => "Pong",
            ServerPacket::EndOfStream => "EndOfStream",
            ServerPacket::ProfileInfo(_) => "ProfileInfo",
            ServerPacket::Totals(_) => "Totals",
            ServerPacket::Extremes(_) => "Extremes",
            ServerPacket::TablesStatus(_) => "TablesStatusResponse",
            ServerPacket::Log(_) => "Log",
            ServerPacket::TableColumns { .. } => "TableColumns",
            ServerPacket::PartUuids(_) => "PartUUIDs",
            ServerPacket::ProfileEvents(_) => "ProfileEvents",
            ServerPacket::TimezoneUpdate(_) => "TimezoneUpdate",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::WriteExt;

    /// A ServerHello body as a server of revision `server_rev` writes it for a client that
    /// announced `client_rev` (fields gated on the minimum, in the server's order).
    fn hello_bytes(server_rev: u64, client_rev: u64) -> Vec<u8> {
        let rev = Revision::negotiate(client_rev, server_rev);
        let mut b = Vec::new();
        b.put_str("ClickHouse");
        b.put_varuint(24);
        b.put_varuint(8);
        b.put_varuint(server_rev);
        if rev.has(SERVER_TIMEZONE) {
            b.put_str("Europe/Berlin");
        }
        if rev.has(SERVER_DISPLAY_NAME) {
            b.put_str("box");
        }
        if rev.has(VERSION_PATCH) {
            b.put_varuint(7);
        }
        if rev.has(PASSWORD_COMPLEXITY_RULES) {
            b.put_varuint(1);
            b.put_str("^.{8,}$");
            b.put_str("at least 8 characters");
        }
        if rev.has(INTERSERVER_SECRET_V2) {
            b.put_u64_le(0x1122334455667788);
        }
        b
    }

    #[test]
    fn server_hello_at_every_gate() {
        for (server, client) in
            [(54412, 54465), (54460, 54465), (54461, 54465), (54462, 54465), (54465, 54465), (54470, 54465), (54465, 54405), (54057, 54465)]
        {
            let bytes = hello_bytes(server, client);
            let mut r = Reader::new(&bytes);
            let h = ServerHello::decode(&mut r, client).unwrap();
            assert!(r.is_empty(), "{server}/{client}: {} bytes left", r.remaining());
            let rev = Revision::negotiate(client, server);
            assert_eq!(h.negotiated(client), rev);
            assert_eq!(h.revision, server);
            assert_eq!(h.timezone.is_some(), rev.has(SERVER_TIMEZONE));
            assert_eq!(h.display_name.as_deref(), rev.has(SERVER_DISPLAY_NAME).then_some("box"));
            assert_eq!(h.version_patch, if rev.has(VERSION_PATCH) { 7 } else { 0 });
            assert_eq!(h.password_complexity_rules.len(), usize::from(rev.has(PASSWORD_COMPLEXITY_RULES)));
            assert_eq!(h.nonce, rev.has(INTERSERVER_SECRET_V2).then_some(0x1122334455667788));
            // Every strict prefix is incomplete.
            for cut in 0..bytes.len() {
                assert!(matches!(
                    ServerHello::decode(&mut Reader::new(&bytes[..cut]), client),
                    Err(crate::error::ReadError::Incomplete { .. })
                ));
            }
        }
    }

    #[test]
    fn progress_fields_follow_the_revision() {
        let mut b = Vec::new();
        for v in [10u64, 800, 100, 4000, 3, 24, 123456] {
            b.put_varuint(v);
        }
        let full = Progress::decode(&mut Reader::new(&b), Revision(54465)).unwrap();
        assert_eq!(
            full,
            Progress {
                read_rows: 10,
                read_bytes: 800,
                total_rows_to_read: 100,
                total_bytes_to_read: 4000,
                written_rows: 3,
                written_bytes: 24,
                elapsed_ns: 123456
            }
        );
        // 54460: no total_bytes_to_read.
        let mut r = Reader::new(&b[..b.len()]);
        let p = Progress::decode(&mut r, Revision(54460)).unwrap();
        assert_eq!((p.total_bytes_to_read, p.written_rows, p.written_bytes, p.elapsed_ns), (0, 4000, 3, 24));
        // 54420: read, bytes, total, written rows/bytes; nothing else.
        let mut r = Reader::new(&b);
        let p = Progress::decode(&mut r, Revision(54420)).unwrap();
        assert_eq!((p.written_rows, p.written_bytes, p.elapsed_ns), (4000, 3, 0));
        assert_eq!(r.position(), 7, "five VarUInts: 1 + 2 + 1 + 2 + 1 bytes");
        // 54412 (the 18.16 rig): no write info.
        let mut r = Reader::new(&b);
        let p = Progress::decode(&mut r, Revision(54412)).unwrap();
        assert_eq!((p.written_rows, p.written_bytes), (0, 0));
        assert_eq!(r.position(), 4, "three VarUInts: 1 + 2 + 1 bytes");

        let mut acc = Progress::default();
        acc.accumulate(&full);
        acc.accumulate(&full);
        assert_eq!((acc.read_rows, acc.total_rows_to_read, acc.elapsed_ns), (20, 200, 123456));
    }

    #[test]
    fn exception_text_has_its_class_once_and_the_codes_name() {
        let e = |code, message: &str| ServerException {
            code,
            class: "DB::Exception".into(),
            message: message.into(),
            stack_trace: String::new(),
            nested: None,
        };
        // 18.16 repeats the class in the message.
        let old = e(60, "DB::Exception: Table default.x doesn't exist.");
        assert_eq!(old.text(), "Table default.x doesn't exist.");
        assert_eq!(old.code_name(), Some("UNKNOWN_TABLE"));
        assert_eq!(old.to_string(), "Code: 60. DB::Exception: Table default.x doesn't exist. (UNKNOWN_TABLE)");
        // Newer servers end the message with the name: not twice.
        let new = e(60, "Table default.x does not exist. (UNKNOWN_TABLE)");
        assert_eq!(new.to_string(), "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)");
        let http = e(60, "DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE) (version 24.3.1.1)");
        assert!(http.to_string().ends_with("(UNKNOWN_TABLE) (version 24.3.1.1)"), "{http}");
        // A code chwire does not know: the message alone.
        assert_eq!(e(5, "odd").to_string(), "Code: 5. DB::Exception: odd");
    }

    #[test]
    fn nested_exceptions() {
        let mut b = Vec::new();
        b.put_i32_le(60);
        b.put_str("DB::Exception");
        b.put_str("Table x doesn't exist");
        b.put_str("stack");
        b.put_u8(1);
        b.put_i32_le(1000);
        b.put_str("Poco::Exception");
        b.put_str("inner");
        b.put_str("");
        b.put_u8(0);
        let e = ServerException::decode(&mut Reader::new(&b)).unwrap();
        assert_eq!(e.code, 60);
        assert_eq!(e.nested.as_ref().unwrap().code, 1000);
        assert_eq!(
            e.to_string(),
            "Code: 60. DB::Exception: Table x doesn't exist (UNKNOWN_TABLE) (caused by: Code: 1000. Poco::Exception: inner (POCO_EXCEPTION))"
        );
    }

    #[test]
    fn profile_info() {
        let mut b = Vec::new();
        for v in [5u64, 2, 40] {
            b.put_varuint(v);
        }
        b.put_u8(1);
        b.put_varuint(9);
        b.put_u8(1);
        let old = ProfileInfo {
            rows: 5,
            blocks: 2,
            bytes: 40,
            applied_limit: true,
            rows_before_limit: 9,
            calculated_rows_before_limit: true,
            ..Default::default()
        };
        assert_eq!(ProfileInfo::decode(&mut Reader::new(&b), Revision(54468)).unwrap(), old);
        // From 54469: applied_aggregation and rows_before_aggregation follow.
        assert!(ProfileInfo::decode(&mut Reader::new(&b), Revision(ROWS_BEFORE_AGGREGATION)).is_err());
        b.put_u8(1);
        b.put_varuint(1234);
        let new = ProfileInfo::decode(&mut Reader::new(&b), Revision(ROWS_BEFORE_AGGREGATION)).unwrap();
        assert_eq!(new, ProfileInfo { applied_aggregation: true, rows_before_aggregation: 1234, ..old });
    }
}
