//! Packets: one module per direction. Client packets are encoded into a caller-owned
//! buffer; server packets are decoded by [`crate::decoder::PacketDecoder`].

pub mod client;
mod legacy_settings;
pub mod server;
mod setting;

/// Client packet type codes.
pub mod client_code {
    pub const HELLO: u64 = 0;
    pub const QUERY: u64 = 1;
    pub const DATA: u64 = 2;
    pub const CANCEL: u64 = 3;
    pub const PING: u64 = 4;
    pub const TABLES_STATUS_REQUEST: u64 = 5;
}

/// Server packet type codes.
pub mod server_code {
    pub const HELLO: u64 = 0;
    pub const DATA: u64 = 1;
    pub const EXCEPTION: u64 = 2;
    pub const PROGRESS: u64 = 3;
    pub const PONG: u64 = 4;
    pub const END_OF_STREAM: u64 = 5;
    pub const PROFILE_INFO: u64 = 6;
    pub const TOTALS: u64 = 7;
    pub const EXTREMES: u64 = 8;
    pub const TABLES_STATUS_RESPONSE: u64 = 9;
    pub const LOG: u64 = 10;
    pub const TABLE_COLUMNS: u64 = 11;
    pub const PART_UUIDS: u64 = 12;
    pub const READ_TASK_REQUEST: u64 = 13;
    pub const PROFILE_EVENTS: u64 = 14;
    pub const TIMEZONE_UPDATE: u64 = 17;
}
