//! Native and text formats as sinks (the text writer itself is `text_writer`), and
//! Native blocks as a source.

use super::text_writer::{TextFormat, Writer};
use super::{Output, Sink, Source};
use crate::convert::NativeBlocks;
use chwire::{Block, DataType};
use std::io::{BufWriter, Write};

/// TSV, CSV, JSONEachRow, Pretty: `text_writer::Writer` into a 1 MiB buffer.
pub struct TextSink {
    writer: Writer,
    out: BufWriter<Output>,
}

impl TextSink {
    pub fn new(format: TextFormat, out: Output, tz: Option<&str>) -> TextSink {
        TextSink { writer: Writer::new(format, tz), out: BufWriter::with_capacity(1 << 20, out) }
    }
}

impl Sink for TextSink {
    /// The `...WithNames(AndTypes)` header lines, also for a result without rows.
    fn begin(&mut self, header: &[(String, DataType)]) -> chwire::Result<()> {
        Ok(self.writer.write_header(header, &mut self.out)?)
    }
    fn write(&mut self, block: Block) -> chwire::Result<()> {
        Ok(self.writer.write_block(&block, &mut self.out)?)
    }
    fn flush(&mut self) -> chwire::Result<()> {
        Ok(self.out.flush()?)
    }
    fn finish(mut self: Box<Self>) -> chwire::Result<()> {
        Ok(self.out.flush()?)
    }
}

/// Native blocks re-encoded by chwire.
pub struct NativeSink {
    out: BufWriter<Output>,
    encoded: Vec<u8>,
}

impl NativeSink {
    pub fn new(out: Output) -> NativeSink {
        NativeSink { out: BufWriter::with_capacity(1 << 20, out), encoded: Vec::new() }
    }
}

impl Sink for NativeSink {
    fn begin(&mut self, _header: &[(String, DataType)]) -> chwire::Result<()> {
        Ok(())
    }
    fn write(&mut self, block: Block) -> chwire::Result<()> {
        Ok(chwire::proto::native::write_block(&block, &mut self.encoded, &mut self.out)?)
    }
    fn flush(&mut self) -> chwire::Result<()> {
        Ok(self.out.flush()?)
    }
    fn finish(mut self: Box<Self>) -> chwire::Result<()> {
        Ok(self.out.flush()?)
    }
}

/// `FORMAT Null`: every block is taken (so read and decoded in full, its errors raised) and
/// dropped; nothing is written.
pub struct NullSink;

impl Sink for NullSink {
    fn begin(&mut self, _header: &[(String, DataType)]) -> chwire::Result<()> {
        Ok(())
    }
    fn write(&mut self, _block: Block) -> chwire::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> chwire::Result<()> {
        Ok(())
    }
    fn finish(self: Box<Self>) -> chwire::Result<()> {
        Ok(())
    }
}

/// Native blocks from a file or stdin, one at a time.
pub struct NativeSource {
    blocks: NativeBlocks,
    peeked: Option<Block>,
    skip: u64,
}

impl NativeSource {
    pub fn new(input: Box<dyn std::io::Read>, limits: chwire::Limits) -> NativeSource {
        NativeSource { blocks: NativeBlocks::new(input, limits), peeked: None, skip: 0 }
    }
}

impl Source for NativeSource {
    fn names(&mut self) -> chwire::Result<Option<Vec<String>>> {
        if self.peeked.is_none() {
            self.peeked = self.blocks.next_block()?;
        }
        Ok(self.peeked.as_ref().map(|b| b.names().map(str::to_string).collect()))
    }
    fn bind(&mut self, _target: &[(String, DataType)]) -> chwire::Result<()> {
        // The blocks carry their own types; an INSERT checks them against the table.
        Ok(())
    }
    fn skip_rows(&mut self, rows: u64) -> chwire::Result<()> {
        self.skip = rows;
        Ok(())
    }
    fn next_block(&mut self) -> chwire::Result<Option<Block>> {
        loop {
            let Some(block) = (match self.peeked.take() {
                Some(b) => Some(b),
                None => self.blocks.next_block()?,
            }) else {
                return Ok(None);
            };
            let rows = block.rows() as u64;
            if self.skip == 0 {
                return Ok(Some(block));
            }
            if self.skip >= rows {
                self.skip -= rows;
                continue;
            }
            let from = std::mem::take(&mut self.skip) as usize;
            return Ok(Some(tail_of(&block, from)?));
        }
    }
}

/// The rows of `block` from `from` on, as a new block (values copied: used once, for
/// `--skip-rows` inside a block).
pub fn tail_of(block: &Block, from: usize) -> chwire::Result<Block> {
    let columns = super::columns_of(block);
    let cols: Vec<(&str, DataType)> = columns.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let rows: Vec<Vec<chwire::Value<'_>>> =
        (from..block.rows()).map(|r| block.columns().iter().map(|(_, c)| c.value(r)).collect()).collect();
    chwire::row::block_from_values(&cols, rows.iter().map(Vec::as_slice))
}
