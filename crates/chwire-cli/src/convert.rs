//! `chwire convert`: Native-format blocks (as `FORMAT Native` writes them) to another format,
//! block by block in bounded memory.

use crate::format::{Format, Writer};
use bytes::{Buf, BytesMut};
use chwire::proto::error::ReadError;
use chwire::proto::native;
use chwire::proto::wire::Reader;
use chwire::{Block, Limits};
use clap::Args;
use std::io::{Read, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    Native,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Native blocks re-encoded by chwire
    Native,
    #[value(name = "JSONEachRow", alias = "jsoneachrow", alias = "jsonl")]
    JsonEachRow,
    #[value(name = "CSV", alias = "csv")]
    Csv,
    #[value(name = "TSV", alias = "tsv")]
    Tsv,
    #[value(name = "Pretty", alias = "pretty")]
    Pretty,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input format
    #[arg(long, value_enum, default_value = "native")]
    from: InputFormat,
    /// Output format
    #[arg(long, value_enum)]
    to: OutputFormat,
    /// Read from this file instead of stdin
    #[arg(long, short = 'i')]
    input: Option<std::path::PathBuf>,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Timezone for DateTime columns without their own (default UTC)
    #[arg(long)]
    timezone: Option<String>,
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
    /// Blocks of the file at `path`, or of stdin.
    pub fn open(path: Option<&std::path::Path>, limits: Limits) -> chwire::Result<NativeBlocks> {
        let input: Box<dyn Read> = match path {
            Some(p) => Box::new(std::fs::File::open(p).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?),
            None => Box::new(std::io::stdin().lock()),
        };
        Ok(NativeBlocks { input, buf: BytesMut::with_capacity(READ_CHUNK), eof: false, offset: 0, limits })
    }

    /// The next block, or `None` at the end of the input.
    pub fn next_block(&mut self) -> chwire::Result<Option<Block>> {
        loop {
            if !self.buf.is_empty() {
                let mut r = Reader::with_limits(&self.buf, self.limits);
                match native::decode_block(&mut r) {
                    Ok(_) if r.position() > self.limits.max_block_bytes => {
                        return Err(chwire::proto::DecodeError::LimitExceeded {
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
                            return Err(chwire::proto::DecodeError::LimitExceeded {
                                what: "block bytes",
                                size: needed as u64,
                                limit: self.limits.max_block_bytes as u64,
                            }
                            .into());
                        }
                        if self.eof {
                            return Err(chwire::proto::DecodeError::Truncated(needed - self.buf.len()).into());
                        }
                        // Grow with what really arrives (at most doubling per read), not by
                        // what a length in the input claims.
                        let want = needed.saturating_sub(self.buf.len()).clamp(READ_CHUNK, self.buf.len().max(READ_CHUNK));
                        self.buf.reserve(want);
                    }
                    Err(ReadError::Invalid(e)) => {
                        return Err(chwire::proto::DecodeError::Malformed {
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

pub fn run(args: ConvertArgs, limits: Limits) -> chwire::Result<()> {
    let mut blocks = NativeBlocks::open(args.input.as_deref(), limits)?;
    let output: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, output);
    let text = match args.to {
        OutputFormat::Native => None,
        OutputFormat::JsonEachRow => Some(Format::Jsonl),
        OutputFormat::Csv => Some(Format::Csv),
        OutputFormat::Tsv => Some(Format::Tsv),
        OutputFormat::Pretty => Some(Format::Pretty),
    };
    let mut writer = text.map(|f| Writer::new(f, args.timezone.as_deref().or(Some("UTC"))));
    let mut encoded = Vec::new();
    while let Some(block) = blocks.next_block()? {
        match &mut writer {
            Some(w) => w.write_block(&block, &mut out)?,
            None => {
                encoded.clear();
                native::encode_block(&block, &mut encoded);
                out.write_all(&encoded)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
