//! Server → client packets (bodies). Decoding happens in [`crate::decoder`].

use crate::block::Block;
use crate::error::ReadResult;
use crate::revision::*;
use crate::wire::Reader;

/// The server's answer to ClientHello.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerHello {
    pub name: String,
    pub version_major: u64,
    pub version_minor: u64,
    pub version_patch: u64,
    /// The server's own revision.
    pub revision: u64,
    pub timezone: Option<String>,
    pub display_name: Option<String>,
    pub password_complexity_rules: Vec<(String, String)>,
    pub nonce: Option<u64>,
}

impl ServerHello {
    /// Decode the body (after the packet type). `client_revision` is what the client announced.
    pub fn decode(r: &mut Reader<'_>, client_revision: u64) -> ReadResult<ServerHello> {
        let mut h = ServerHello {
            name: r.string()?,
            version_major: r.varuint()?,
            version_minor: r.varuint()?,
            revision: r.varuint()?,
            ..Default::default()
        };
        let rev = Revision::negotiate(client_revision, h.revision);
        if rev.has(SERVER_TIMEZONE) {
            h.timezone = Some(r.string()?);
        }
        if rev.has(SERVER_DISPLAY_NAME) {
            h.display_name = Some(r.string()?);
        }
        if rev.has(VERSION_PATCH) {
            h.version_patch = r.varuint()?;
        }
        if rev.has(PASSWORD_COMPLEXITY_RULES) {
            let n = r.varuint_len("password complexity rules", 256)?;
            for _ in 0..n {
                h.password_complexity_rules.push((r.string()?, r.string()?));
            }
        }
        if rev.has(INTERSERVER_SECRET_V2) {
            h.nonce = Some(r.u64_le()?);
        }
        Ok(h)
    }

    pub fn negotiated(&self, client_revision: u64) -> Revision {
        Revision::negotiate(client_revision, self.revision)
    }
}

/// An exception sent by the server (one entry of the chain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerException {
    pub code: i32,
    pub name: String,
    pub message: String,
    pub stack_trace: String,
    /// The next exception of the chain (the cause), if the server sent one.
    pub nested: Option<Box<ServerException>>,
}

impl ServerException {
    pub fn decode(r: &mut Reader<'_>) -> ReadResult<ServerException> {
        let code = r.i32_le()?;
        let name = r.string()?;
        let message = r.string()?;
        let stack_trace = r.string()?;
        let has_nested = r.bool()?;
        let nested = if has_nested { Some(Box::new(ServerException::decode(r)?)) } else { None };
        Ok(ServerException { code, name, message, stack_trace, nested })
    }
}

impl std::fmt::Display for ServerException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Code: {}. {}: {}", self.code, self.name, self.message)?;
        if let Some(n) = &self.nested {
            write!(f, " (caused by: {n})")?;
        }
        Ok(())
    }
}

/// Progress: the server sends increments; [`Progress::accumulate`] sums them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    pub read_rows: u64,
    pub read_bytes: u64,
    pub total_rows_to_read: u64,
    pub total_bytes_to_read: u64,
    pub written_rows: u64,
    pub written_bytes: u64,
    pub elapsed_ns: u64,
}

impl Progress {
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
    pub rows: u64,
    pub blocks: u64,
    pub bytes: u64,
    pub applied_limit: bool,
    pub rows_before_limit: u64,
    pub calculated_rows_before_limit: bool,
}

impl ProfileInfo {
    pub fn decode(r: &mut Reader<'_>) -> ReadResult<ProfileInfo> {
        Ok(ProfileInfo {
            rows: r.varuint()?,
            blocks: r.varuint()?,
            bytes: r.varuint()?,
            applied_limit: r.bool()?,
            rows_before_limit: r.varuint()?,
            calculated_rows_before_limit: r.bool()?,
        })
    }
}

/// One table's status in a TablesStatusResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStatus {
    pub database: String,
    pub table: String,
    pub is_replicated: bool,
    pub absolute_delay: u64,
}

/// A decoded server packet.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerPacket {
    Hello(ServerHello),
    Data(Block),
    Exception(ServerException),
    Progress(Progress),
    Pong,
    EndOfStream,
    ProfileInfo(ProfileInfo),
    Totals(Block),
    Extremes(Block),
    TablesStatus(Vec<TableStatus>),
    Log(Block),
    TableColumns { table: String, description: String },
    PartUuids(Vec<[u8; 16]>),
    ProfileEvents(Block),
    TimezoneUpdate(String),
}

impl ServerPacket {
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
