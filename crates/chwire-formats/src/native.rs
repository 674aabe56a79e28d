//! The Native format (ClickHouse's blocks without packet framing): [`NativeBlocks`] reads them
//! from a byte stream in bounded memory, [`NativeSource`] and [`NativeSink`] are its reader and
//! writer; and `FORMAT Null`'s writer, which drops every block.

use crate::io::{columns_of, Output, Sink, Source};
use bytes::{Buf, BytesMut};
use chwire_proto::error::ReadError;
use chwire_proto::native;
use chwire_proto::wire::Reader;
use chwire_proto::{Block, DataType, Limits};
use std::io::{BufWriter, Read, Write};

/// Native blocks re-encoded by chwire.
pub struct NativeSink {
    out: BufWriter<Output>,
    encoded: Vec<u8>,
}

impl NativeSink {
    /// A sink writing Native blocks (without BlockInfo, as `FORMAT Native` writes them) to `out`.
    pub fn new(out: Output) -> NativeSink {
        NativeSink { out: BufWriter::with_capacity(1 << 20, out), encoded: Vec::new() }
    }
}

impl Sink for NativeSink {
    fn begin(&mut self, _header: &[(String, DataType)]) -> crate::Result<()> {
        Ok(())
    }
    fn write(&mut self, block: Block) -> crate::Result<()> {
        Ok(chwire_proto::native::write_block(&block, &mut self.encoded, &mut self.out)?)
    }
    fn flush(&mut self) -> crate::Result<()> {
        Ok(self.out.flush()?)
    }
    fn finish(mut self: Box<Self>) -> crate::Result<()> {
        Ok(self.out.flush()?)
    }
}

/// `FORMAT Null`: every block is taken (so read and decoded in full, its errors raised) and
/// dropped; nothing is written.
pub struct NullSink;

impl Sink for NullSink {
    fn begin(&mut self, _header: &[(String, DataType)]) -> crate::Result<()> {
        Ok(())
    }
    fn write(&mut self, _block: Block) -> crate::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> crate::Result<()> {
        Ok(())
    }
    fn finish(self: Box<Self>) -> crate::Result<()> {
        Ok(())
    }
}

/// Native blocks from a file or stdin, one at a time. A column whose type differs from the
/// target's (a UInt64 file column into a UInt32 table column, `Nullable(String)` into
/// `LowCardinality(Nullable(String))`) is converted with chwire-arrow's lossless casts, the
/// rule of every Arrow and Parquet insert: a value the target type cannot hold is an error
/// naming the column and row (where the server, converting on insert, would wrap 2^32 to 0).
pub struct NativeSource {
    blocks: NativeBlocks,
    peeked: Option<Block>,
    skip: u64,
    target: Vec<(String, DataType)>,
}

impl NativeSource {
    /// A source reading Native blocks from `input`, within `limits`.
    pub fn new(input: Box<dyn std::io::Read>, limits: chwire_proto::Limits) -> NativeSource {
        NativeSource { blocks: NativeBlocks::new(input, limits), peeked: None, skip: 0, target: Vec::new() }
    }

    /// The block with its columns in the target's types (unchanged when they are already).
    fn converted(&self, block: Block) -> crate::Result<Block> {
        let same =
            |name: &str, ty: &DataType| self.target.iter().find(|(n, _)| n == name).is_none_or(|(_, t)| t == ty || same_on_the_wire(t, ty));
        if self.target.is_empty() || block.columns().iter().all(|(n, c)| same(n, c.data_type())) {
            return Ok(block);
        }
        let opts = chwire_arrow::ArrowOptions::default();
        let schema = chwire_arrow::schema_of_block(&block, &opts).map_err(crate::error::invalid)?;
        let batch = chwire_arrow::block_to_batch(block, &schema, &opts).map_err(crate::error::invalid)?;
        let schema = batch.schema();
        let target: Vec<(String, DataType)> =
            self.target.iter().filter(|(n, _)| schema.fields().iter().any(|f| f.name() == n)).cloned().collect();
        chwire_arrow::batch_into_block(batch, &target).map_err(crate::error::invalid)
    }
}

/// Types equal on the wire (a `DateTime` without a zone is any zone's).
fn same_on_the_wire(a: &DataType, b: &DataType) -> bool {
    match (a, b) {
        (DataType::DateTime(_), DataType::DateTime(_)) => true,
        (DataType::Nullable(x), DataType::Nullable(y)) | (DataType::Array(x), DataType::Array(y)) => same_on_the_wire(x, y),
        _ => a == b,
    }
}

impl Source for NativeSource {
    fn names(&mut self) -> crate::Result<Option<Vec<String>>> {
        if self.peeked.is_none() {
            self.peeked = self.blocks.next_block()?;
        }
        Ok(self.peeked.as_ref().map(|b| b.names().map(str::to_string).collect()))
    }
    fn bind(&mut self, target: &[(String, DataType)]) -> crate::Result<()> {
        // The blocks carry their own types: converted where the target's differ.
        self.target = target.to_vec();
        Ok(())
    }
    fn skip_rows(&mut self, rows: u64) -> crate::Result<()> {
        self.skip = rows;
        Ok(())
    }
    fn next_block(&mut self) -> crate::Result<Option<Block>> {
        loop {
            let Some(block) = (match self.peeked.take() {
                Some(b) => Some(b),
                None => self.blocks.next_block()?,
            }) else {
                return Ok(None);
            };
            let rows = block.rows() as u64;
            if self.skip == 0 {
                return self.converted(block).map(Some);
            }
            if self.skip >= rows {
                self.skip -= rows;
                continue;
            }
            let from = std::mem::take(&mut self.skip) as usize;
            return self.converted(tail_of(&block, from)?).map(Some);
        }
    }
}

/// The rows of `block` from `from` on, as a new block (values copied: used once, for
/// `--skip-rows` inside a block).
pub fn tail_of(block: &Block, from: usize) -> crate::Result<Block> {
    let columns = columns_of(block);
    let cols: Vec<(&str, DataType)> = columns.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let rows: Vec<Vec<chwire_proto::Value<'_>>> =
        (from..block.rows()).map(|r| block.columns().iter().map(|(_, c)| c.value(r)).collect()).collect();
    Ok(chwire_proto::column::block_from_values(&cols, rows.iter().map(Vec::as_slice))?)
}

/// Native blocks read one at a time from a byte stream: memory holds one block (plus one
/// read) at a time.
pub struct NativeBlocks {
    input: Box<dyn Read>,
    buf: BytesMut,
    eof: bool,
    offset: u64,
    limits: Limits,
}

/// Bytes read from the input at a time.
const READ_CHUNK: usize = 1 << 20;

impl NativeBlocks {
    /// Blocks of a byte stream.
    pub fn new(input: Box<dyn Read>, limits: Limits) -> NativeBlocks {
        NativeBlocks { input, buf: BytesMut::with_capacity(READ_CHUNK), eof: false, offset: 0, limits }
    }

    /// The next block, or `None` at the end of the input. A malformed or truncated input, or
    /// one beyond the limits, is bad input (exit code 2), not a protocol failure.
    pub fn next_block(&mut self) -> crate::Result<Option<Block>> {
        self.decode_next().map_err(|e| match e.kind() {
            crate::ErrorKind::Decode(d) => crate::Error::invalid_data(format!("Native input: {e}")).caused_by(d.clone()),
            _ => e,
        })
    }

    fn decode_next(&mut self) -> crate::Result<Option<Block>> {
        loop {
            if !self.buf.is_empty() {
                let mut r = Reader::with_limits(&self.buf, self.limits);
                match native::decode_block(&mut r) {
                    Ok(_) if r.position() > self.limits.max_block_bytes => {
                        return Err(chwire_proto::DecodeError::LimitExceeded {
                            what: "block bytes",
                            size: r.position() as u64,
                            limit: self.limits.max_block_bytes as u64,
                        }
                        .into());
                    }
                    Ok(block) => {
                        let used = r.position();
                        self.offset += used as u64;
                        self.buf.advance(used);
                        return Ok(Some(block));
                    }
                    Err(ReadError::Incomplete { needed }) => {
                        if needed > self.limits.max_block_bytes {
                            return Err(chwire_proto::DecodeError::LimitExceeded {
                                what: "block bytes",
                                size: needed as u64,
                                limit: self.limits.max_block_bytes as u64,
                            }
                            .into());
                        }
                        if self.eof {
                            return Err(chwire_proto::DecodeError::Truncated(needed - self.buf.len()).into());
                        }
                        // Grow with what really arrives (at most doubling per read), not by
                        // what a length in the input claims.
                        let want = needed.saturating_sub(self.buf.len()).clamp(READ_CHUNK, self.buf.len().max(READ_CHUNK));
                        self.buf.reserve(want);
                    }
                    Err(ReadError::Invalid(e)) => {
                        return Err(chwire_proto::DecodeError::Malformed {
                            what: "Native input",
                            detail: format!("block at byte {}: {e}", self.offset),
                        }
                        .into());
                    }
                }
            }
            if self.eof {
                return Ok(None);
            }
            self.buf.reserve(READ_CHUNK);
            let start = self.buf.len();
            self.buf.resize(self.buf.capacity(), 0);
            let n = self.input.read(&mut self.buf[start..])?;
            self.buf.truncate(start + n);
            self.eof = n == 0;
        }
    }
}
