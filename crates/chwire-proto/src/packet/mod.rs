//! Packets: one module per direction. Client packets are encoded into a caller-owned
//! buffer; server packets are decoded by [`crate::decoder::PacketDecoder`].

pub mod client;
mod legacy_settings;
pub mod server;
mod setting;

/// Client packet type codes.
pub mod client_code {
    /// ClientHello: the first packet of a connection.
    pub const HELLO: u64 = 0;
    /// Query: a statement with its settings and parameters.
    pub const QUERY: u64 = 1;
    /// Data: a block (the rows of an INSERT, or the empty block that ends them).
    pub const DATA: u64 = 2;
    /// Cancel: stop the running query.
    pub const CANCEL: u64 = 3;
    /// Ping: the server answers Pong.
    pub const PING: u64 = 4;
    /// TablesStatusRequest: the replication status of tables.
    pub const TABLES_STATUS_REQUEST: u64 = 5;
}

/// Server packet type codes.
pub mod server_code {
    /// ServerHello: the answer to ClientHello.
    pub const HELLO: u64 = 0;
    /// Data: a block of the result.
    pub const DATA: u64 = 1;
    /// Exception: the query failed.
    pub const EXCEPTION: u64 = 2;
    /// Progress: increments of rows and bytes read and written.
    pub const PROGRESS: u64 = 3;
    /// Pong: the answer to Ping.
    pub const PONG: u64 = 4;
    /// EndOfStream: the query is done.
    pub const END_OF_STREAM: u64 = 5;
    /// ProfileInfo: statistics at the end of a SELECT.
    pub const PROFILE_INFO: u64 = 6;
    /// Totals: the block of `WITH TOTALS`.
    pub const TOTALS: u64 = 7;
    /// Extremes: the block of minimums and maximums (`extremes = 1`).
    pub const EXTREMES: u64 = 8;
    /// TablesStatusResponse: the answer to TablesStatusRequest.
    pub const TABLES_STATUS_RESPONSE: u64 = 9;
    /// Log: a block of server log lines (`send_logs_level`).
    pub const LOG: u64 = 10;
    /// TableColumns: the column description of a table an INSERT writes to.
    pub const TABLE_COLUMNS: u64 = 11;
    /// PartUUIDs: UUIDs of the data parts a query read.
    pub const PART_UUIDS: u64 = 12;
    /// ReadTaskRequest: a remote server of a cluster read asks its initiating server for work.
    pub const READ_TASK_REQUEST: u64 = 13;
    /// ProfileEvents: a block of the query's profile counters.
    pub const PROFILE_EVENTS: u64 = 14;
    /// TimezoneUpdate: the session timezone changed.
    pub const TIMEZONE_UPDATE: u64 = 17;
}
