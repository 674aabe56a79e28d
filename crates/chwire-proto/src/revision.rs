//! Protocol revisions and the named gates chwire implements.
//!
//! Every revision-gated field is present iff `min(client, server) >= gate`; [`Revision`]
//! holds that negotiated value.

/// The revision chwire announces by default, ClickHouse 26.9's own (`DBMS_TCP_PROTOCOL_VERSION`).
/// Every gate up to it is implemented; docs/ARCHITECTURE.md ("Protocol revisions") lists what
/// chwire does with each and which test proves it.
pub const CLIENT_REVISION: u64 = 54492;

/// Lowest revision chwire can talk to (BlockInfo, temporary-table names in Data).
pub const MIN_REVISION: u64 = 54032;

/// Query: ClientInfo after the query id.
pub const CLIENT_INFO: u64 = 54032;
/// ServerHello: the server's timezone.
pub const SERVER_TIMEZONE: u64 = 54058;
/// ClientInfo: the quota key.
pub const QUOTA_KEY_IN_CLIENT_INFO: u64 = 54060;
/// TablesStatusRequest and TablesStatusResponse packets.
pub const TABLES_STATUS: u64 = 54226;
/// `DateTime('tz')`: a timezone in DateTime type names.
pub const TIME_ZONE_PARAMETER_IN_DATETIME: u64 = 54337;
/// ServerHello: the server's display name.
pub const SERVER_DISPLAY_NAME: u64 = 54372;
/// ServerHello and ClientInfo: the patch version.
pub const VERSION_PATCH: u64 = 54401;
/// LowCardinality columns sent as such (below it the server sends their inner type).
pub const LOW_CARDINALITY_TYPE: u64 = 54405;
/// Log packets (`send_logs_level`).
pub const SERVER_LOGS: u64 = 54406;
/// TableColumns: an INSERT's table columns with their defaults, before the server asks for
/// data.
pub const COLUMN_DEFAULTS_METADATA: u64 = 54410;
/// Progress: rows and bytes written.
pub const CLIENT_WRITE_INFO: u64 = 54420;
/// Query: settings as (name, flags, value text); below it each setting's binary form
/// (`packet::legacy_settings`).
pub const SETTINGS_SERIALIZED_AS_STRINGS: u64 = 54429;
/// Query: the interserver secret (external clients send it empty).
pub const INTERSERVER_SECRET: u64 = 54441;
/// ClientInfo: the OpenTelemetry trace context (chwire sends none).
pub const OPENTELEMETRY: u64 = 54442;
/// ClientInfo: the distributed depth.
pub const DISTRIBUTED_DEPTH: u64 = 54448;
/// ClientInfo: the initial query's start time in microseconds.
pub const INITIAL_QUERY_START_TIME: u64 = 54449;
/// ProfileEvents blocks carry increments since the previous packet.
pub const INCREMENTAL_PROFILE_EVENTS: u64 = 54451;
/// ClientInfo: the parallel-replicas fields.
pub const PARALLEL_REPLICAS: u64 = 54453;
/// Data: a serialization kind per column (sparse columns).
pub const CUSTOM_SERIALIZATION: u64 = 54454;
/// The addendum the client sends after ServerHello (the quota key first).
pub const ADDENDUM: u64 = 54458;
/// Query: server-side parameters `{name:Type}` after the query text.
pub const PARAMETERS: u64 = 54459;
/// Progress: the query's elapsed time on the server.
pub const SERVER_QUERY_TIME_IN_PROGRESS: u64 = 54460;
/// ServerHello: the password complexity rules.
pub const PASSWORD_COMPLEXITY_RULES: u64 = 54461;
/// ServerHello: the nonce of the interserver secret.
pub const INTERSERVER_SECRET_V2: u64 = 54462;
/// Progress: the total bytes to read.
pub const TOTAL_BYTES_IN_PROGRESS: u64 = 54463;
/// TimezoneUpdate packets.
pub const TIMEZONE_UPDATES: u64 = 54464;
/// Sparse columns sent as such (below it the server materializes them).
pub const SPARSE_SERIALIZATION: u64 = 54465;
/// SSH key authentication (a challenge before ServerHello); chwire authenticates by password.
pub const SSH_AUTHENTICATION: u64 = 54466;
/// `is_readonly` after `absolute_delay` of a replicated table in TablesStatusResponse.
pub const TABLE_READ_ONLY_CHECK: u64 = 54467;
/// No wire change (the server's `system.keywords` table).
pub const SYSTEM_KEYWORDS_TABLE: u64 = 54468;
/// ProfileInfo: `applied_aggregation`, `rows_before_aggregation`.
pub const ROWS_BEFORE_AGGREGATION: u64 = 54469;
/// Chunked packet framing, negotiated in ServerHello and the addendum.
pub const CHUNKED_PACKETS: u64 = 54470;
/// The parallel-replicas protocol version in ServerHello (right after the revision) and in
/// the addendum.
pub const VERSIONED_PARALLEL_REPLICAS_PROTOCOL: u64 = 54471;
/// Query: `external_roles` after the settings (external clients send it empty).
pub const INTERSERVER_EXTERNALLY_GRANTED_ROLES: u64 = 54472;
/// Dynamic and JSON columns in their V2 serialization (self-describing: the version is the
/// first field of their state prefix).
pub const V2_DYNAMIC_AND_JSON_SERIALIZATION: u64 = 54473;
/// ServerHello: the settings the server applies to the session.
pub const SERVER_SETTINGS: u64 = 54474;
/// ClientInfo: script query and line numbers.
pub const QUERY_AND_LINE_NUMBERS: u64 = 54475;
/// ClientInfo: the JWT flag.
pub const JWT_IN_INTERSERVER: u64 = 54476;
/// ServerHello: the query-plan serialization version.
pub const QUERY_PLAN_SERIALIZATION: u64 = 54477;
/// Columns marshalled in parallel (ColumnBLOB, serialization kind DETACHED): only for
/// secondary (interserver) queries; an initial query never receives them.
pub const PARALLEL_BLOCK_MARSHALLING: u64 = 54478;
/// ServerHello: the cluster-function protocol version (last field).
pub const VERSIONED_CLUSTER_FUNCTION_PROTOCOL: u64 = 54479;
/// BlockInfo field 3, `out_of_order_buckets`, written in every block.
pub const OUT_OF_ORDER_BUCKETS_IN_AGGREGATION: u64 = 54480;
/// Log and ProfileEvents blocks and TableColumns bodies go through compression when the
/// query has it on.
pub const COMPRESSED_LOGS_PROFILE_EVENTS_COLUMNS: u64 = 54481;
/// The REPLICATED serialization kind (a column of indexes into its distinct rows).
pub const REPLICATED_SERIALIZATION: u64 = 54482;
/// Sparse serialization of Nullable columns (the default is NULL).
pub const NULLABLE_SPARSE_SERIALIZATION: u64 = 54483;
/// An extra Progress packet after an asynchronous insert was queued.
pub const PROGRESS_IN_ASYNC_INSERT: u64 = 54484;
/// ClientInfo: `client_agent`.
pub const CLIENT_AGENT_IN_CLIENT_INFO: u64 = 54485;
/// ClientInfo: `is_internal`.
pub const INTERNAL_QUERY_FLAG: u64 = 54486;
/// The interserver secret's hash before a TablesStatusRequest (interserver only).
pub const INTERSERVER_SECRET_TABLES_STATUS: u64 = 54487;
/// ClientInfo: the current roles (a flag; external clients send none).
pub const INTERSERVER_CURRENT_ROLES: u64 = 54488;
/// No wire change (how servers choose an aggregation variant among themselves).
pub const CURRENT_AGGREGATION_VARIANT_SELECTION_METHOD: u64 = 54489;
/// ClientInfo, HTTP interface only: the handler's name and the request URL (chwire's
/// ClientInfo is a TCP one).
pub const HTTP_HANDLER_IN_CLIENT_INFO: u64 = 54490;
/// The state of `quantile(s)Deterministic` gains a trailing `skip_degree` byte (state version 1).
pub const QUANTILE_DETERMINISTIC_SKIP_DEGREE: u64 = 54491;
/// String columns as a stream of UInt64 end offsets followed by all the bytes (both
/// directions, at every depth but LowCardinality dictionaries).
pub const STRING_WITH_SIZE_STREAM_SERIALIZATION: u64 = 54492;

/// The revisions the live tests read the type corpus at: the last before each change of the
/// data a server sends (sparse columns, Dynamic/JSON V2, replicated columns, String offsets).
pub const MATRIX: [u64; 4] =
    [SPARSE_SERIALIZATION, V2_DYNAMIC_AND_JSON_SERIALIZATION, REPLICATED_SERIALIZATION, STRING_WITH_SIZE_STREAM_SERIALIZATION];

/// The negotiated revision: `min(client, server)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Revision(pub u64);

impl Revision {
    /// The revision both sides speak: the lower of the two announced.
    pub fn negotiate(client: u64, server: u64) -> Self {
        Revision(client.min(server))
    }

    /// Whether a field gated on `gate` is on the wire.
    #[inline]
    pub fn has(self, gate: u64) -> bool {
        self.0 >= gate
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_is_min() {
        assert_eq!(Revision::negotiate(CLIENT_REVISION, 54412), Revision(54412));
        assert_eq!(Revision::negotiate(CLIENT_REVISION, 54492), Revision(54492));
        assert_eq!(CLIENT_REVISION, STRING_WITH_SIZE_STREAM_SERIALIZATION);
        assert_eq!(Revision::negotiate(54400, 54460), Revision(54400));
        assert!(Revision(54412).has(CLIENT_INFO));
        assert!(!Revision(54412).has(SETTINGS_SERIALIZED_AS_STRINGS));
    }
}
