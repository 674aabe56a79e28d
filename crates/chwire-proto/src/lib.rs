//! # chwire-proto
//!
//! The ClickHouse native protocol without IO: framing primitives, packets, the handshake,
//! revision gates, compressed frames, blocks and column codecs. Everything works on byte
//! buffers, so it can be tested byte for byte and reused by the async client, the CLI's
//! file conversion and future bindings.
//!
//! Layers, bottom up:
//! * [`wire`]: VarUInt, strings, a bounds-checked [`wire::Reader`];
//! * [`types`]: ClickHouse type names parsed into [`DataType`];
//! * [`column`](mod@column): Arrow-compatible column buffers and their codecs;
//! * [`block`]: blocks of named columns;
//! * [`compress`]: LZ4/ZSTD frames with CityHash128 v1.0.2 checksums;
//! * [`packet`]: client packets (encoders) and server packet bodies;
//! * [`decoder`]: the state machine that turns received bytes into [`ServerPacket`]s.

#![warn(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod block;
pub mod chunked;
pub mod column;
pub mod compress;
pub mod decoder;
pub mod error;
pub mod error_codes;
pub mod limits;
pub mod native;
pub mod packet;
pub mod revision;
pub mod sql;
pub mod types;
pub mod wire;

pub use block::{Block, BlockInfo};
pub use column::{Column, ColumnData, StringColumn, Value};
pub use compress::Compression;
pub use decoder::PacketDecoder;
pub use error::{DecodeError, EncodeError};
pub use limits::Limits;
pub use packet::server::{ProfileInfo, Progress, ServerException, ServerHello, ServerPacket};
pub use revision::Revision;
pub use types::DataType;
