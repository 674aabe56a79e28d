//! `chwire convert`: a file from one format to another (the registry in `formats`), block by
//! block in bounded memory; and the Native block reader.

use crate::formats::{self, Format};
use bytes::{Buf, BytesMut};
use chwire::proto::error::ReadError;
use chwire::proto::native;
use chwire::proto::wire::Reader;
use chwire::Block;
use clap::Args;
use std::io::Read;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input format (ClickHouse's names, any case): Native, Arrow, ArrowStream, Parquet, CSV,
    /// CSVWithNames, TSV, TSVWithNames, JSONEachRow
    #[arg(long, value_parser = formats::input_format, default_value = "Native")]
    from: Format,
    /// Output format: the input formats and Pretty
    #[arg(long, value_parser = formats::any_format)]
    to: Format,
    /// Read from this file instead of stdin
    #[arg(long, short = 'i')]
    input: Option<std::path::PathBuf>,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Timezone for DateTime columns without their own (default UTC)
    #[arg(long)]
    timezone: Option<String>,
    /// The columns of text input: `name Type, ...` (as clickhouse-local's --structure);
    /// Arrow and Parquet input may convert to them too
    #[arg(long, short = 'S')]
    structure: Option<String>,
    /// A format setting (repeatable), e.g. output_format_parquet_compression_method=lz4
    #[arg(long = "setting", short = 's', value_name = "NAME=VALUE", value_parser = crate::parse_kv)]
    settings: Vec<(String, String)>,
    #[command(flatten)]
    files: formats::options::FileArgs,
}

/// Native blocks read one at a time from a byte stream: memory holds one block (plus one
/// read) at a time.
pub struct NativeBlocks {
    input: Box<dyn Read>,
    buf: BytesMut,
    eof: bool,
    offset: u64,
}

impl NativeBlocks {
    /// Blocks of the file at `path`, or of stdin.
    pub fn open(path: Option<&std::path::Path>) -> chwire::Result<NativeBlocks> {
        let input: Box<dyn Read> = match path {
            Some(p) => Box::new(std::fs::File::open(p).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?),
            None => Box::new(std::io::stdin().lock()),
        };
        Ok(NativeBlocks { input, buf: BytesMut::with_capacity(1 << 20), eof: false, offset: 0 })
    }

    /// The next block, or `None` at the end of the input.
    pub fn next_block(&mut self) -> chwire::Result<Option<Block>> {
        loop {
            if !self.buf.is_empty() {
                let mut r = Reader::new(&self.buf);
                match native::decode_block(&mut r) {
                    Ok(block) => {
                        let used = r.position();
                        self.offset += used as u64;
                        self.buf.advance(used);
                        return Ok(Some(block));
                    }
                    Err(ReadError::Incomplete { needed }) => {
                        if self.eof {
                            return Err(chwire::proto::DecodeError::Truncated(needed - self.buf.len()).into());
                        }
                        self.buf.reserve(needed.saturating_sub(self.buf.len()));
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
            self.buf.reserve(1 << 20);
            let start = self.buf.len();
            self.buf.resize(self.buf.capacity(), 0);
            let n = self.input.read(&mut self.buf[start..])?;
            self.buf.truncate(start + n);
            self.eof = n == 0;
        }
    }
}

pub fn run(args: ConvertArgs) -> chwire::Result<()> {
    let tz = Some(args.timezone.as_deref().unwrap_or("UTC"));
    let files = args.files.options(&args.settings, tz)?;
    let mut source = formats::source(args.from, args.input.as_deref(), &files, tz)?;
    let structure = args.structure.as_deref().map(formats::parse_structure).transpose()?;
    if let Some(columns) = &structure {
        source.bind(columns)?;
    }
    let mut sink = formats::sink(args.to, formats::open_output(args.output.as_deref())?, tz, &files)?;
    let mut begun = false;
    while let Some(block) = source.next_block()? {
        if !begun {
            sink.begin(&formats::columns_of(&block))?;
            begun = true;
        }
        sink.write(block)?;
    }
    if let (false, Some(columns)) = (begun, &structure) {
        sink.begin(columns)?;
    }
    sink.finish()
}
