//! Protocol revisions and the named gates chwire implements.
//!
//! Every revision-gated field is present iff `min(client, server) >= gate`; [`Revision`]
//! holds that negotiated value.

/// The revision chwire announces by default. Every gate up to it is implemented:
/// 54465 lets current servers send sparse columns (decoded into ordinary columns).
pub const CLIENT_REVISION: u64 = 54465;

/// Lowest revision chwire can talk to (BlockInfo, temporary-table names in Data).
pub const MIN_REVISION: u64 = 54032;

pub const CLIENT_INFO: u64 = 54032;
pub const SERVER_TIMEZONE: u64 = 54058;
pub const QUOTA_KEY_IN_CLIENT_INFO: u64 = 54060;
pub const TABLES_STATUS: u64 = 54226;
pub const TIME_ZONE_PARAMETER_IN_DATETIME: u64 = 54337;
pub const SERVER_DISPLAY_NAME: u64 = 54372;
pub const VERSION_PATCH: u64 = 54401;
pub const LOW_CARDINALITY_TYPE: u64 = 54405;
pub const SERVER_LOGS: u64 = 54406;
pub const COLUMN_DEFAULTS_METADATA: u64 = 54410;
pub const CLIENT_WRITE_INFO: u64 = 54420;
pub const SETTINGS_SERIALIZED_AS_STRINGS: u64 = 54429;
pub const INTERSERVER_SECRET: u64 = 54441;
pub const OPENTELEMETRY: u64 = 54442;
pub const DISTRIBUTED_DEPTH: u64 = 54448;
pub const INITIAL_QUERY_START_TIME: u64 = 54449;
pub const INCREMENTAL_PROFILE_EVENTS: u64 = 54451;
pub const PARALLEL_REPLICAS: u64 = 54453;
pub const CUSTOM_SERIALIZATION: u64 = 54454;
pub const ADDENDUM: u64 = 54458;
pub const PARAMETERS: u64 = 54459;
pub const SERVER_QUERY_TIME_IN_PROGRESS: u64 = 54460;
pub const PASSWORD_COMPLEXITY_RULES: u64 = 54461;
pub const INTERSERVER_SECRET_V2: u64 = 54462;
pub const TOTAL_BYTES_IN_PROGRESS: u64 = 54463;
pub const TIMEZONE_UPDATES: u64 = 54464;
pub const SPARSE_SERIALIZATION: u64 = 54465;
/// Gates above [`CLIENT_REVISION`], listed so code can refer to them by name.
pub const ROWS_BEFORE_AGGREGATION: u64 = 54469;
pub const OUT_OF_ORDER_BUCKETS_IN_AGGREGATION: u64 = 54480;

/// The negotiated revision: `min(client, server)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Revision(pub u64);

impl Revision {
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
        assert_eq!(Revision::negotiate(54400, 54460), Revision(54400));
        assert!(Revision(54412).has(CLIENT_INFO));
        assert!(!Revision(54412).has(SETTINGS_SERIALIZED_AS_STRINGS));
    }
}
