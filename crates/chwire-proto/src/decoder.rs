//! The server packet decoder: a sans-IO state machine over the receive buffer.
//!
//! The IO layer appends bytes to a [`BytesMut`] and calls [`PacketDecoder::decode`] until it
//! returns a packet. `Ok(None)` means more bytes are needed; [`PacketDecoder::needed`] then
//! says how many the buffer must hold before another attempt can make progress.
//!
//! Blocks are decoded one column at a time: columns already decoded are kept across calls,
//! so a large block arriving in many reads is not parsed again from its start. With
//! compression on, the block part of Data/Totals/Extremes packets is read from a stream of
//! compressed frames, which are decompressed into an internal buffer as they arrive.
//!
//! A fixed-width column of an uncompressed block whose bytes have not all arrived is filled
//! as they come (`decoder/fill.rs`): copied out of the buffer after each read, so the buffer never
//! holds a whole column. A top-level String column (compressed or not, either layout) is
//! received the same way (`decoder/fill_strings.rs`).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use bytes::{Buf, BytesMut};

use crate::block::{Block, BlockInfo};
use crate::column::{decode_column, decode_serialized, read_serialization, strings_with_sizes, Column};
use crate::compress::decompress_frame_limited;
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::limits::Limits;
use crate::packet::server::*;
use crate::packet::server_code as code;
use crate::revision::{Revision, COMPRESSED_LOGS_PROFILE_EVENTS_COLUMNS, CUSTOM_SERIALIZATION, TABLE_READ_ONLY_CHECK};
use crate::types::DataType;
use crate::wire::Reader;

mod fill;
mod fill_strings;
pub use fill::FILL_AHEAD;
use fill::{fixed_size, Filling};
use fill_strings::StringFilling;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Data,
    Totals,
    Extremes,
    Log,
    ProfileEvents,
}

#[derive(Debug)]
struct PartialBlock {
    kind: BlockKind,
    compressed: bool,
    header: Option<(BlockInfo, usize, usize)>,
    columns: Vec<(String, Column)>,
    /// Bytes of the block decoded so far (after decompression), with those of a column
    /// being filled.
    consumed: usize,
    /// A fixed-width column whose bytes are arriving (uncompressed blocks only).
    filling: Option<Box<Filling>>,
    /// A String column whose values are arriving (either layout).
    strings: Option<Box<StringFilling>>,
}

#[derive(Debug)]
enum State {
    Idle,
    Block(PartialBlock),
}

/// The limits a decoder applies (the former name of [`Limits`]).
pub type DecoderLimits = Limits;

/// Decodes server packets from a receive buffer.
#[derive(Debug)]
pub struct PacketDecoder {
    client_revision: u64,
    rev: Revision,
    compression: bool,
    state: State,
    plain: Vec<u8>,
    plain_pos: usize,
    needed: usize,
    limits: DecoderLimits,
    /// A bare Native stream (`FORMAT Native` over HTTP, files): blocks without packet codes,
    /// and without BlockInfo at revision 0 (a Native writer at a revision above 0, as
    /// ClickHouse's over HTTP with `client_protocol_version`, writes it).
    bare: bool,
}

impl PacketDecoder {
    /// A decoder for a connection on which the client announced `client_revision`. Until a
    /// ServerHello is decoded, the negotiated revision is taken to be `client_revision`.
    pub fn new(client_revision: u64) -> Self {
        PacketDecoder {
            client_revision,
            rev: Revision(client_revision),
            compression: false,
            state: State::Idle,
            plain: Vec::new(),
            plain_pos: 0,
            needed: 1,
            limits: DecoderLimits::default(),
            bare: false,
        }
    }

    /// A decoder of a bare Native stream, as `FORMAT Native` writes it (over HTTP, in files):
    /// every "packet" is a [`ServerPacket::Data`] block without BlockInfo, decoded at revision 0
    /// ([`PacketDecoder::set_revision`] to read one written at a revision, BlockInfo first).
    /// The caller tells the end of the stream (and a server exception appended to it, see
    /// [`crate::native::http_exception`]) from the bytes between blocks.
    pub fn native_stream() -> Self {
        PacketDecoder { bare: true, ..PacketDecoder::new(0) }
    }

    /// The decoder with these limits on what it accepts (by default
    /// [`Limits::default`](crate::Limits::default)).
    pub fn with_limits(mut self, limits: DecoderLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The negotiated revision (set when ServerHello is decoded).
    pub fn revision(&self) -> Revision {
        self.rev
    }

    /// Set the negotiated revision explicitly (e.g. for Native files, or tests).
    pub fn set_revision(&mut self, rev: Revision) {
        self.rev = rev;
    }

    /// Whether the server compresses blocks (the compression flag of the current query).
    pub fn set_compression(&mut self, on: bool) {
        self.compression = on;
    }

    /// Bytes the receive buffer must hold before [`decode`](Self::decode) can progress.
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// Whether a packet is partly decoded (the stream is mid-packet).
    pub fn is_mid_packet(&self) -> bool {
        matches!(self.state, State::Block(_))
    }

    /// Forget any partial state (after the connection is discarded).
    pub fn reset(&mut self) {
        self.state = State::Idle;
        self.plain.clear();
        self.plain_pos = 0;
        self.needed = 1;
    }

    /// More bytes are needed: `needed` from the start of the receive buffer, on top of
    /// the `consumed` bytes of the current block already decoded.
    fn incomplete(&mut self, needed: usize, consumed: usize) -> Result<Option<ServerPacket>, DecodeError> {
        let max = match &self.state {
            State::Block(PartialBlock { kind: BlockKind::Log | BlockKind::ProfileEvents, .. }) => Limits::SERVER_BLOCKS.max_block_bytes,
            _ => self.limits.max_block_bytes,
        };
        let total = needed.saturating_add(consumed);
        if total > max {
            let what = if consumed > 0 || self.is_mid_packet() { "block bytes" } else { "server packet bytes" };
            return Err(DecodeError::LimitExceeded { what, size: total as u64, limit: max as u64 });
        }
        self.needed = needed;
        Ok(None)
    }

    /// Decode the next packet from `buf`, consuming its bytes.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<ServerPacket>, DecodeError> {
        loop {
            match &mut self.state {
                State::Idle if self.bare => {
                    if buf.is_empty() {
                        return self.incomplete(1, 0);
                    }
                    self.state = State::Block(PartialBlock {
                        kind: BlockKind::Data,
                        compressed: false,
                        header: None,
                        columns: Vec::new(),
                        consumed: 0,
                        filling: None,
                        strings: None,
                    });
                }
                State::Idle => {
                    let mut r = Reader::with_limits(buf, self.limits);
                    let result = match r.varuint() {
                        Ok(c) => self.start_packet(c, &mut r),
                        Err(e) => Err(e),
                    };
                    match result {
                        Ok(Some(packet)) => {
                            let used = r.position();
                            buf.advance(used);
                            self.needed = 1;
                            return Ok(Some(packet));
                        }
                        // A block packet started: its header is consumed, go on with the block.
                        Ok(None) => {
                            let used = r.position();
                            buf.advance(used);
                        }
                        Err(ReadError::Incomplete { needed }) => return self.incomplete(needed, 0),
                        Err(ReadError::Invalid(e)) => return Err(e),
                    }
                }
                State::Block(_) => return self.continue_block(buf),
            }
        }
    }

    /// Decode a whole small packet, or start a block packet (returns `Ok(None)`).
    fn start_packet(&mut self, c: u64, r: &mut Reader<'_>) -> ReadResult<Option<ServerPacket>> {
        let block_kind = match c {
            code::DATA => Some(BlockKind::Data),
            code::TOTALS => Some(BlockKind::Totals),
            code::EXTREMES => Some(BlockKind::Extremes),
            code::LOG => Some(BlockKind::Log),
            code::PROFILE_EVENTS => Some(BlockKind::ProfileEvents),
            _ => None,
        };
        if let Some(kind) = block_kind {
            r.str_bytes()?; // temporary table name: not used by clients
                            // Log and ProfileEvents blocks go through compression from 54481 only.
            let compressed = self.compression
                && (matches!(kind, BlockKind::Data | BlockKind::Totals | BlockKind::Extremes)
                    || self.rev.has(COMPRESSED_LOGS_PROFILE_EVENTS_COLUMNS));
            self.state = State::Block(PartialBlock {
                kind,
                compressed,
                header: None,
                columns: Vec::new(),
                consumed: 0,
                filling: None,
                strings: None,
            });
            return Ok(None);
        }
        let packet = match c {
            code::HELLO => {
                let hello = ServerHello::decode(r, self.client_revision)?;
                self.rev = hello.negotiated(self.client_revision);
                ServerPacket::Hello(hello)
            }
            code::EXCEPTION => ServerPacket::Exception(ServerException::decode(r)?),
            code::PROGRESS => ServerPacket::Progress(Progress::decode(r, self.rev)?),
            code::PONG => ServerPacket::Pong,
            code::END_OF_STREAM => ServerPacket::EndOfStream,
            code::PROFILE_INFO => ServerPacket::ProfileInfo(ProfileInfo::decode(r, self.rev)?),
            code::TABLES_STATUS_RESPONSE => {
                let n = r.varuint_len("tables status entries", 1 << 20)?;
                let mut v = Vec::new();
                for _ in 0..n {
                    let database = r.string()?;
                    let table = r.string()?;
                    let is_replicated = r.bool()?;
                    let (mut absolute_delay, mut is_readonly) = (0, false);
                    if is_replicated {
                        absolute_delay = r.varuint()?;
                        if self.rev.has(TABLE_READ_ONLY_CHECK) {
                            is_readonly = r.varuint()? != 0;
                        }
                    }
                    v.push(TableStatus { database, table, is_replicated, absolute_delay, is_readonly });
                }
                ServerPacket::TablesStatus(v)
            }
            // From 54481 both strings go through compression when the query has it on.
            code::TABLE_COLUMNS if self.compression && self.rev.has(COMPRESSED_LOGS_PROFILE_EVENTS_COLUMNS) => {
                let [table, description] = compressed_strings(r, self.limits)?;
                ServerPacket::TableColumns { table, description }
            }
            code::TABLE_COLUMNS => ServerPacket::TableColumns { table: r.string()?, description: r.string()? },
            code::PART_UUIDS => {
                let n = r.varuint_len("part UUIDs", 1 << 24)?;
                let mut uuids = Vec::new();
                for _ in 0..n {
                    uuids.push(r.array::<16>()?);
                }
                ServerPacket::PartUuids(uuids)
            }
            code::TIMEZONE_UPDATE => ServerPacket::TimezoneUpdate(r.string()?),
            other => return Err(DecodeError::UnknownPacket(other).into()),
        };
        Ok(Some(packet))
    }

    fn continue_block(&mut self, buf: &mut BytesMut) -> Result<Option<ServerPacket>, DecodeError> {
        let State::Block(pb) = &mut self.state else { unreachable!() };
        let compressed = pb.compressed;
        let limits = match pb.kind {
            BlockKind::Log | BlockKind::ProfileEvents => Limits::SERVER_BLOCKS,
            _ => self.limits,
        };
        loop {
            // A fixed-width column being received: what the buffer holds goes into it.
            if let Some(fill) = pb.filling.as_mut() {
                fill.take_from(buf);
                if !fill.is_complete() {
                    // Any byte makes progress.
                    self.needed = 1;
                    return Ok(None);
                }
                if let Some(fill) = pb.filling.take() {
                    pb.columns.push((*fill).finish());
                }
                continue;
            }
            let step = if let Some(sf) = pb.strings.as_mut() {
                // A String column being received: the values whole in the bytes at hand go
                // into it; an incomplete one says how many bytes it needs, like a step.
                let before = pb.consumed;
                let (used, res) = if compressed {
                    let plain = self.plain.get(self.plain_pos..).unwrap_or_default();
                    let (used, res) = sf.take_from(plain, limits, before);
                    self.plain_pos = self.plain_pos.saturating_add(used);
                    (used, res)
                } else {
                    let (used, res) = sf.take_from(buf, limits, before);
                    buf.advance(used);
                    (used, res)
                };
                pb.consumed = pb.consumed.saturating_add(used);
                match res {
                    Ok(()) => {
                        if let Some(sf) = pb.strings.take() {
                            pb.columns.push((*sf).finish());
                        }
                        Ok(true)
                    }
                    Err(ReadError::Incomplete { needed }) => Err(ReadError::Incomplete { needed: needed.saturating_sub(used) }),
                    Err(e) => Err(in_column(sf.name(), e)),
                }
            } else if compressed {
                let plain = self.plain.get(self.plain_pos..).unwrap_or_default();
                let mut r = Reader::with_limits(plain, limits).at_revision(self.rev);
                let res = block_step(pb, &mut r, self.rev, self.bare, false);
                if res.is_ok() {
                    // A reader's position never passes the end of its slice.
                    self.plain_pos = self.plain_pos.saturating_add(r.position());
                    pb.consumed = pb.consumed.saturating_add(r.position());
                }
                res
            } else {
                let mut r = Reader::with_limits(buf, limits).at_revision(self.rev);
                let res = block_step(pb, &mut r, self.rev, self.bare, true);
                if res.is_ok() {
                    let used = r.position();
                    buf.advance(used);
                    pb.consumed = pb.consumed.saturating_add(used);
                }
                res
            };
            if pb.consumed > limits.max_block_bytes {
                return Err(DecodeError::LimitExceeded {
                    what: "block bytes",
                    size: pb.consumed as u64,
                    limit: limits.max_block_bytes as u64,
                });
            }
            match step {
                Ok(true) => {}
                Ok(false) => break,
                Err(ReadError::Invalid(e)) => return Err(e),
                Err(ReadError::Incomplete { needed }) => {
                    let consumed = pb.consumed;
                    if !compressed {
                        return self.incomplete(needed, consumed);
                    }
                    // The block's decompressed bytes count against the block limit too.
                    if needed.saturating_add(consumed) > limits.max_block_bytes {
                        return self.incomplete(needed, consumed);
                    }
                    // Pull frames until the step's bytes are there. Only as many as
                    // needed: after the block's last frame come other packets.
                    if self.plain_pos > 0 {
                        self.plain.drain(..self.plain_pos);
                        self.plain_pos = 0;
                    }
                    loop {
                        match decompress_frame_limited(buf, &mut self.plain, limits.max_frame_size) {
                            Ok(n) => buf.advance(n),
                            Err(ReadError::Incomplete { needed }) => return self.incomplete(needed, 0),
                            Err(ReadError::Invalid(e)) => return Err(e),
                        }
                        if self.plain.len() >= needed {
                            break;
                        }
                    }
                }
            }
        }
        // The block is complete.
        let State::Block(pb) = std::mem::replace(&mut self.state, State::Idle) else { unreachable!() };
        if compressed {
            if self.plain_pos != self.plain.len() {
                return Err(DecodeError::malformed(
                    "compressed block",
                    format!("{} bytes follow the block inside its frames", self.plain.len().saturating_sub(self.plain_pos)),
                ));
            }
            self.plain.clear();
            self.plain_pos = 0;
        }
        self.needed = 1;
        let Some((info, _, rows)) = pb.header else {
            return Err(DecodeError::malformed("block", "ended before its header"));
        };
        let block = Block::from_parts(info, rows, pb.columns);
        Ok(Some(match pb.kind {
            BlockKind::Data => ServerPacket::Data(block),
            BlockKind::Totals => ServerPacket::Totals(block),
            BlockKind::Extremes => ServerPacket::Extremes(block),
            BlockKind::Log => ServerPacket::Log(block),
            BlockKind::ProfileEvents => ServerPacket::ProfileEvents(block),
        }))
    }
}

/// `N` strings sent through compression (a TableColumns body from 54481): frames are
/// decompressed until the strings are whole, which must end on a frame boundary.
fn compressed_strings<const N: usize>(r: &mut Reader<'_>, limits: Limits) -> ReadResult<[String; N]> {
    let mut plain = Vec::new();
    loop {
        let base = r.position();
        let used = match decompress_frame_limited(r.rest(), &mut plain, limits.max_frame_size) {
            Ok(n) => n,
            Err(ReadError::Incomplete { needed }) => return Err(ReadError::Incomplete { needed: base.saturating_add(needed) }),
            Err(e) => return Err(e),
        };
        r.skip(used)?;
        let mut p = Reader::with_limits(&plain, limits);
        let mut out: [String; N] = std::array::from_fn(|_| String::new());
        let mut whole = true;
        for s in out.iter_mut() {
            match p.string() {
                Ok(v) => *s = v,
                Err(ReadError::Incomplete { .. }) => {
                    whole = false;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if whole {
            if !p.is_empty() {
                return Err(
                    DecodeError::malformed("TableColumns", format!("{} bytes follow its strings in their frames", p.remaining())).into()
                );
            }
            return Ok(out);
        }
        if plain.len() > limits.max_block_bytes {
            return Err(DecodeError::LimitExceeded {
                what: "TableColumns bytes",
                size: plain.len() as u64,
                limit: limits.max_block_bytes as u64,
            }
            .into());
        }
    }
}

/// One step of block decoding: the header or one column. Returns `Ok(false)` when the
/// block is complete. The caller consumes the reader's bytes only when a step succeeds.
/// With `fill`, a fixed-width column whose values are not all in `r` is started as
/// `pb.filling` (its header consumed, its bytes counted in `pb.consumed`).
fn block_step(pb: &mut PartialBlock, r: &mut Reader<'_>, rev: Revision, bare: bool, fill: bool) -> ReadResult<bool> {
    let Some((_, ncols, rows)) = pb.header else {
        let info = if bare && rev.0 == 0 { BlockInfo::default() } else { BlockInfo::decode(r)? };
        let ncols = r.varuint_len("block columns", r.limits().max_columns)?;
        let rows = r.varuint_len("block rows", r.limits().max_block_rows)?;
        pb.header = Some((info, ncols, rows));
        pb.columns.reserve_exact(ncols.min(1024));
        return Ok(true);
    };
    if pb.columns.len() == ncols {
        return Ok(false);
    }
    let (name, ty, serialization) = column_head(r, rev)?;
    if fill && rows > 0 && serialization.is_default() {
        if let Some(total) = fixed_size(&ty, rows)? {
            if r.remaining() < total {
                let claimed = pb.consumed.saturating_add(r.position()).saturating_add(total);
                let max = r.limits().max_block_bytes;
                if claimed > max {
                    return Err(DecodeError::LimitExceeded { what: "block bytes", size: claimed as u64, limit: max as u64 }.into());
                }
                if let Some(f) = Filling::start(name.clone(), ty.clone(), rows, total, r.remaining()) {
                    pb.filling = Some(Box::new(f));
                    pb.consumed = pb.consumed.saturating_add(total);
                    return Ok(true);
                }
            }
        }
    }
    if rows > 0 && serialization.is_default() && matches!(ty, DataType::String) {
        pb.strings = Some(Box::new(StringFilling::start(name, rows, r.remaining(), strings_with_sizes(rev))));
        return Ok(true);
    }
    let column = column_body(r, rows, name.as_str(), ty, &serialization)?;
    pb.columns.push((name, column));
    Ok(true)
}

/// A column's name, type and (from revision 54454) serialization.
fn column_head(r: &mut Reader<'_>, rev: Revision) -> ReadResult<(String, DataType, crate::column::Serialization)> {
    let name = r.string()?;
    let type_name = std::str::from_utf8(r.str_bytes()?).map_err(|_| DecodeError::malformed("column type", "type name is not UTF-8"))?;
    let ty = DataType::parse_limited(type_name, r.limits())?;
    let serialization = if rev.has(CUSTOM_SERIALIZATION) { read_serialization(&ty, r, &name)? } else { Default::default() };
    Ok((name, ty, serialization))
}

/// One column of a block: name, type, [custom serialization], data.
pub fn decode_named_column(r: &mut Reader<'_>, rows: usize, rev: Revision) -> ReadResult<(String, Column)> {
    let (name, ty, serialization) = column_head(r, rev)?;
    let column = column_body(r, rows, name.as_str(), ty, &serialization)?;
    Ok((name, column))
}

/// A malformed column's error, naming the column.
fn in_column(name: &str, e: ReadError) -> ReadError {
    match e {
        ReadError::Invalid(DecodeError::Malformed { what, detail }) => {
            ReadError::Invalid(DecodeError::Malformed { what, detail: format!("column {name:?}: {detail}") })
        }
        e => e,
    }
}

/// The data of a column whose head was read.
fn column_body(
    r: &mut Reader<'_>,
    rows: usize,
    name: &str,
    ty: DataType,
    serialization: &crate::column::Serialization,
) -> ReadResult<Column> {
    let in_column = |e| in_column(name, e);
    let data = if rows == 0 {
        crate::column::ColumnData::empty_for(&ty).map_err(|_| DecodeError::UnsupportedType(ty.to_string()))?
    } else if !serialization.is_default() {
        decode_serialized(&ty, rows, serialization, r).map_err(in_column)?
    } else {
        decode_column(&ty, rows, r).map_err(in_column)?
    };
    Ok(Column::from_trusted(ty, data))
}
