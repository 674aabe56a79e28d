//! `chwire convert`: Native-format blocks (as `FORMAT Native` writes them) to another format,
//! block by block in bounded memory.

use crate::format::{Format, Writer};
use bytes::{Buf, BytesMut};
use chwire::proto::error::ReadError;
use chwire::proto::native;
use chwire::proto::wire::Reader;
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

pub fn run(args: ConvertArgs) -> chwire::Result<()> {
    let mut input: Box<dyn Read> = match &args.input {
        Some(p) => Box::new(std::fs::File::open(p).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?),
        None => Box::new(std::io::stdin().lock()),
    };
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
    let mut buf = BytesMut::with_capacity(1 << 20);
    let mut encoded = Vec::new();
    let mut eof = false;
    let mut offset = 0u64;
    loop {
        // Decode every complete block in the buffer.
        loop {
            if buf.is_empty() {
                break;
            }
            let mut r = Reader::new(&buf);
            match native::decode_block(&mut r) {
                Ok(block) => {
                    let used = r.position();
                    offset += used as u64;
                    buf.advance(used);
                    match &mut writer {
                        Some(w) => w.write_block(&block, &mut out)?,
                        None => {
                            encoded.clear();
                            native::encode_block(&block, &mut encoded);
                            out.write_all(&encoded)?;
                        }
                    }
                }
                Err(ReadError::Incomplete { needed }) => {
                    if eof {
                        return Err(chwire::proto::DecodeError::Truncated(needed - buf.len()).into());
                    }
                    buf.reserve(needed.saturating_sub(buf.len()));
                    break;
                }
                Err(ReadError::Invalid(e)) => {
                    return Err(chwire::proto::DecodeError::Malformed {
                        what: "Native input",
                        detail: format!("block at byte {offset}: {e}"),
                    }
                    .into());
                }
            }
        }
        if eof {
            break;
        }
        buf.reserve(1 << 20);
        let start = buf.len();
        buf.resize(buf.capacity(), 0);
        let n = input.read(&mut buf[start..])?;
        buf.truncate(start + n);
        eof = n == 0;
    }
    out.flush()?;
    Ok(())
}
