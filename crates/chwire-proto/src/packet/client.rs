//! Client → server packets, encoded into a caller-owned buffer.

use super::client_code;
pub use super::setting::Setting;
use crate::block::Block;
use crate::compress::{compress, Compression};
use crate::error::EncodeError;
use crate::revision::*;
use crate::wire::WriteExt;

/// The first packet of a connection.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientHello {
    /// The client's name, e.g. `chwire`.
    pub client_name: String,
    /// The client's major version.
    pub version_major: u64,
    /// The client's minor version.
    pub version_minor: u64,
    /// The revision the client announces.
    pub revision: u64,
    /// The default database of the session (empty: the user's default).
    pub database: String,
    /// The user to authenticate as.
    pub user: String,
    /// The user's password (redacted in `Debug`).
    pub password: String,
}

impl std::fmt::Debug for ClientHello {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHello")
            .field("client_name", &self.client_name)
            .field("version", &format_args!("{}.{}", self.version_major, self.version_minor))
            .field("revision", &self.revision)
            .field("database", &self.database)
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

impl ClientHello {
    /// Append the packet (type code and body) to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_varuint(client_code::HELLO);
        out.put_str(&self.client_name);
        out.put_varuint(self.version_major);
        out.put_varuint(self.version_minor);
        out.put_varuint(self.revision);
        out.put_str(&self.database);
        out.put_str(&self.user);
        out.put_str(&self.password);
    }
}

/// The parallel-replicas protocol version chwire announces in the addendum (ClickHouse's
/// `DBMS_PARALLEL_REPLICAS_PROTOCOL_VERSION`; chwire takes part in no parallel replicas).
pub const PARALLEL_REPLICAS_PROTOCOL_VERSION: u64 = 8;

/// Sent right after ServerHello when the negotiated revision has the addendum: the quota key,
/// then (revision >= 54470) how chwire frames what it sends and wants to receive (`chunked`
/// or `notchunked`, as negotiated from the server's Hello: [`crate::chunked`]), then
/// (>= 54471) the parallel-replicas protocol version.
pub fn encode_addendum(rev: Revision, quota_key: &str, chunked_send: bool, chunked_recv: bool, out: &mut Vec<u8>) {
    if rev.has(ADDENDUM) {
        out.put_str(quota_key);
    }
    let word = |chunked: bool| if chunked { "chunked" } else { "notchunked" };
    if rev.has(CHUNKED_PACKETS) {
        out.put_str(word(chunked_send));
        out.put_str(word(chunked_recv));
    }
    if rev.has(VERSIONED_PARALLEL_REPLICAS_PROTOCOL) {
        out.put_varuint(PARALLEL_REPLICAS_PROTOCOL_VERSION);
    }
}

/// ClientInfo sent inside a Query packet (an initial query over TCP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    /// The user who started the query (for a distributed query: on the initiator).
    pub initial_user: String,
    /// The id of the query this one is part of (the initiator's, for a distributed query).
    pub initial_query_id: String,
    /// The address of the client that started the query, as `host:port`.
    pub initial_address: String,
    /// When the initial query started, in microseconds since the epoch (revision >= 54449).
    pub initial_query_start_time_us: i64,
    /// The operating system user running the client.
    pub os_user: String,
    /// The client machine's host name.
    pub client_hostname: String,
    /// The client's name, e.g. `chwire`.
    pub client_name: String,
    /// The client's major version.
    pub version_major: u64,
    /// The client's minor version.
    pub version_minor: u64,
    /// The client's patch version (revision >= 54401).
    pub version_patch: u64,
    /// The revision the client announced in Hello.
    pub client_revision: u64,
    /// The quota key (revision >= 54060).
    pub quota_key: String,
    /// What the client is (revision >= 54485; `system.query_log.client_agent`).
    pub client_agent: String,
}

impl ClientInfo {
    /// Append the ClientInfo fields the revision `rev` has, as an initial TCP query.
    pub fn encode(&self, rev: Revision, out: &mut Vec<u8>) {
        out.put_u8(1); // query kind: initial
        out.put_str(&self.initial_user);
        out.put_str(&self.initial_query_id);
        out.put_str(&self.initial_address);
        if rev.has(INITIAL_QUERY_START_TIME) {
            out.extend_from_slice(&self.initial_query_start_time_us.to_le_bytes());
        }
        out.put_u8(1); // interface: TCP
        out.put_str(&self.os_user);
        out.put_str(&self.client_hostname);
        out.put_str(&self.client_name);
        out.put_varuint(self.version_major);
        out.put_varuint(self.version_minor);
        out.put_varuint(self.client_revision);
        if rev.has(QUOTA_KEY_IN_CLIENT_INFO) {
            out.put_str(&self.quota_key);
        }
        if rev.has(DISTRIBUTED_DEPTH) {
            out.put_varuint(0);
        }
        if rev.has(VERSION_PATCH) {
            out.put_varuint(self.version_patch);
        }
        if rev.has(OPENTELEMETRY) {
            out.put_u8(0); // no trace context
        }
        if rev.has(PARALLEL_REPLICAS) {
            out.put_varuint(0); // collaborate_with_initiator
            out.put_varuint(0); // count_participating_replicas
            out.put_varuint(0); // number_of_current_replica
        }
        if rev.has(QUERY_AND_LINE_NUMBERS) {
            out.put_varuint(0); // script_query_number
            out.put_varuint(0); // script_line_number
        }
        if rev.has(JWT_IN_INTERSERVER) {
            out.put_u8(0); // no JWT
        }
        if rev.has(CLIENT_AGENT_IN_CLIENT_INFO) {
            out.put_str(&self.client_agent);
        }
        if rev.has(INTERNAL_QUERY_FLAG) {
            out.put_u8(0); // is_internal
        }
        if rev.has(INTERSERVER_CURRENT_ROLES) {
            out.put_u8(0); // no current roles
        }
    }
}

const FLAG_IMPORTANT: u64 = 0x01;
const FLAG_CUSTOM: u64 = 0x02;

// Quoting lives in `crate::sql`, the one place SQL text is written and read.
pub use crate::sql::{quote_identifier, quote_identifiers, quote_string as quote_sql_string};

/// The Query packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query<'a> {
    /// The query id (empty: the server makes one).
    pub query_id: &'a str,
    /// Who is asking: sent when the revision has ClientInfo.
    pub client_info: &'a ClientInfo,
    /// Settings for this query.
    pub settings: &'a [Setting],
    /// Whether Data packets of this query are compressed, both ways.
    pub compression: bool,
    /// The SQL text.
    pub query: &'a str,
    /// Server-side parameters `{name:Type}` (revision >= 54459), values as text.
    pub parameters: &'a [(String, String)],
}

impl Query<'_> {
    /// Append the packet. Below revision 54429 a setting whose value does not fit the
    /// setting's binary form is an error (see the `legacy_settings` module); `out` is then as it was.
    pub fn encode(&self, rev: Revision, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        self.encode_unchecked(rev, out).inspect_err(|_| out.truncate(start))
    }

    fn encode_unchecked(&self, rev: Revision, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_varuint(client_code::QUERY);
        out.put_str(self.query_id);
        if rev.has(CLIENT_INFO) {
            self.client_info.encode(rev, out);
        }
        for s in self.settings {
            if rev.has(SETTINGS_SERIALIZED_AS_STRINGS) {
                out.put_str(&s.name);
                out.put_varuint(if s.important { FLAG_IMPORTANT } else { 0 });
                out.put_str(&s.value);
            } else {
                super::legacy_settings::encode(s, out)?;
            }
        }
        out.put_str(""); // end of settings
        if rev.has(INTERSERVER_EXTERNALLY_GRANTED_ROLES) {
            out.put_str(""); // external_roles: none (the server reads them from interservers only)
        }
        if rev.has(INTERSERVER_SECRET) {
            out.put_str("");
        }
        out.put_varuint(2); // stage: Complete
        out.put_varuint(self.compression as u64);
        out.put_str(self.query);
        if rev.has(PARAMETERS) {
            for (name, value) in self.parameters {
                out.put_str(name);
                out.put_varuint(FLAG_CUSTOM);
                out.put_str(quote_sql_string(value));
            }
            out.put_str("");
        }
        Ok(())
    }
}

/// A Data packet carrying `block` (the block part compressed when `compression` is on).
/// `scratch` is reused between calls to hold the uncompressed block.
pub fn encode_data(block: &Block, rev: Revision, compression: Compression, scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    out.put_varuint(client_code::DATA);
    out.put_str(""); // table name, never compressed
    if compression.is_enabled() {
        scratch.clear();
        block.encode(rev, scratch);
        compress(compression, scratch, out);
    } else {
        block.encode(rev, out);
    }
}

/// Append a Cancel packet: the server stops the query and ends it with EndOfStream or an
/// exception.
pub fn encode_cancel(out: &mut Vec<u8>) {
    out.put_varuint(client_code::CANCEL);
}

/// Append a Ping packet (the server answers Pong).
pub fn encode_ping(out: &mut Vec<u8>) {
    out.put_varuint(client_code::PING);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Column;

    fn info() -> ClientInfo {
        ClientInfo {
            initial_user: String::new(),
            initial_query_id: String::new(),
            initial_address: "0.0.0.0:0".into(),
            initial_query_start_time_us: 0,
            os_user: "u".into(),
            client_hostname: "h".into(),
            client_name: "chwire".into(),
            version_major: 0,
            version_minor: 1,
            version_patch: 0,
            client_revision: 54465,
            quota_key: String::new(),
            client_agent: "chwire/0.1".into(),
        }
    }

    #[test]
    fn hello_bytes() {
        let h = ClientHello {
            client_name: "c".into(),
            version_major: 1,
            version_minor: 2,
            revision: 54465,
            database: "db".into(),
            user: "u".into(),
            password: "p".into(),
        };
        let mut out = Vec::new();
        h.encode(&mut out);
        assert_eq!(out, b"\x00\x01c\x01\x02\xc1\xa9\x03\x02db\x01u\x01p");
        assert!(!format!("{h:?}").contains("\"p\""));
    }

    #[test]
    fn client_info_fields_follow_the_revision() {
        let mut at_54412 = Vec::new();
        info().encode(Revision(54412), &mut at_54412);
        let expected_54412: &[u8] = b"\x01\x00\x00\x090.0.0.0:0\x01\x01u\x01h\x06chwire\x00\x01\xc1\xa9\x03\x00\x00";
        assert_eq!(at_54412, expected_54412);
        let mut at_54465 = Vec::new();
        info().encode(Revision(54465), &mut at_54465);
        // + start time (8), + distributed depth (1), + otel flag (1), + 3 replica varuints
        let mut expected = b"\x01\x00\x00\x090.0.0.0:0".to_vec();
        expected.extend_from_slice(&[0; 8]);
        expected.extend_from_slice(b"\x01\x01u\x01h\x06chwire\x00\x01\xc1\xa9\x03\x00\x00\x00\x00\x00\x00\x00");
        assert_eq!(at_54465, expected);
        // 54492: + script query and line numbers, the JWT flag, client_agent, is_internal,
        // and the current roles flag.
        let mut at_54492 = Vec::new();
        info().encode(Revision(54492), &mut at_54492);
        expected.extend_from_slice(b"\x00\x00\x00\x0achwire/0.1\x00\x00");
        assert_eq!(at_54492, expected);
        // Each gate on its own: one field more per gate.
        let len = |rev| {
            let mut v = Vec::new();
            info().encode(Revision(rev), &mut v);
            v.len()
        };
        assert_eq!(len(QUERY_AND_LINE_NUMBERS) - len(QUERY_AND_LINE_NUMBERS - 1), 2);
        assert_eq!(len(JWT_IN_INTERSERVER) - len(JWT_IN_INTERSERVER - 1), 1);
        assert_eq!(len(CLIENT_AGENT_IN_CLIENT_INFO) - len(CLIENT_AGENT_IN_CLIENT_INFO - 1), 11);
        assert_eq!(len(INTERNAL_QUERY_FLAG) - len(INTERNAL_QUERY_FLAG - 1), 1);
        assert_eq!(len(INTERSERVER_CURRENT_ROLES) - len(INTERSERVER_CURRENT_ROLES - 1), 1);
        assert_eq!(len(HTTP_HANDLER_IN_CLIENT_INFO), len(INTERSERVER_CURRENT_ROLES), "an HTTP-only field");
    }

    #[test]
    fn query_packet_at_both_setting_formats() {
        let settings = vec![
            Setting { name: "max_threads".into(), value: "2".into(), important: true },
            Setting { name: "send_logs_level".into(), value: "trace".into(), important: true },
            Setting { name: "network_zstd_compression_level".into(), value: "-1".into(), important: true },
        ];
        let ci = info();
        let q = Query {
            query_id: "id",
            client_info: &ci,
            settings: &settings,
            compression: true,
            query: "SELECT 1",
            parameters: &[("p".into(), "it's".into())],
        };
        let mut legacy = Vec::new();
        q.encode(Revision(54412), &mut legacy).unwrap();
        let mut ci_bytes = Vec::new();
        ci.encode(Revision(54412), &mut ci_bytes);
        let mut expected = b"\x01\x02id".to_vec();
        expected.extend_from_slice(&ci_bytes);
        expected.extend_from_slice(
            b"\x0bmax_threads\x02\x0fsend_logs_level\x05trace\x1enetwork_zstd_compression_level\x01\x00\x02\x01\x08SELECT 1",
        );
        assert_eq!(legacy, expected);

        let mut modern = Vec::new();
        q.encode(Revision(54460), &mut modern).unwrap();
        let mut ci_bytes = Vec::new();
        ci.encode(Revision(54460), &mut ci_bytes);
        let mut expected = b"\x01\x02id".to_vec();
        expected.extend_from_slice(&ci_bytes);
        expected.extend_from_slice(b"\x0bmax_threads\x01\x012\x0fsend_logs_level\x01\x05trace\x1enetwork_zstd_compression_level\x01\x02-1\x00\x00\x02\x01\x08SELECT 1\x01p\x02\x07'it\\'s'\x00");
        assert_eq!(modern, expected);
    }

    #[test]
    fn quoting() {
        assert_eq!(quote_sql_string("a'b\\c\0\n"), "'a\\'b\\\\c\\0\\n'");
    }

    #[test]
    fn empty_data_packet() {
        let mut out = Vec::new();
        encode_data(&Block::new(), Revision(54412), Compression::None, &mut Vec::new(), &mut out);
        assert_eq!(out, b"\x02\x00\x01\x00\x02\xff\xff\xff\xff\x00\x00\x00");
        let mut out = Vec::new();
        encode_data(&Block::new(), Revision(54465), Compression::Lz4, &mut Vec::new(), &mut out);
        assert_eq!(&out[..2], b"\x02\x00");
        assert_eq!(crate::compress::decompress_all(&out[2..]).unwrap(), b"\x01\x00\x02\xff\xff\xff\xff\x00\x00\x00");
    }

    #[test]
    fn data_block_with_custom_serialization_byte() {
        let block = Block::new().with("a", Column::from(vec![7u8])).unwrap();
        let mut old = Vec::new();
        encode_data(&block, Revision(54412), Compression::None, &mut Vec::new(), &mut old);
        assert_eq!(old, b"\x02\x00\x01\x00\x02\xff\xff\xff\xff\x00\x01\x01\x01a\x05UInt8\x07");
        let mut new = Vec::new();
        encode_data(&block, Revision(54454), Compression::None, &mut Vec::new(), &mut new);
        assert_eq!(new, b"\x02\x00\x01\x00\x02\xff\xff\xff\xff\x00\x01\x01\x01a\x05UInt8\x00\x07");
    }
}
