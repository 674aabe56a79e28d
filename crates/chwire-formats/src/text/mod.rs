//! The text formats: TSV, CSV and JSONEachRow (with their `...WithNames(AndTypes)` forms) read
//! ([`reader`], its values parsed by [`parse`]) and written ([`writer`]), and Pretty written.

pub mod parse;
pub mod reader;
pub mod writer;

pub use reader::TextSource;
pub use writer::Writer;

use crate::io::{Output, Sink};
use chwire_proto::{Block, DataType};
use std::fmt;
use std::io::{BufWriter, Write};

/// The text formats, read by [`TextSource`] and written by [`Writer`] (the registry's
/// [`crate::Format::text`] picks one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// Tab-separated values with ClickHouse escaping (\t \n \\ \N for NULL)
    Tsv,
    /// Tab-separated values with a header line of column names
    TsvWithNames,
    /// Comma-separated values (RFC 4180 quoting, \N for NULL)
    Csv,
    /// Tab-separated values with header lines of column names and types
    TsvWithNamesAndTypes,
    /// Comma-separated values with a header line
    CsvWithNames,
    /// Comma-separated values with header lines of column names and types
    CsvWithNamesAndTypes,
    /// One JSON object per line, as ClickHouse's JSONEachRow
    Jsonl,
    /// Tables drawn per block, for people
    Pretty,
}

impl TextFormat {
    /// ClickHouse's name of the format.
    pub fn name(self) -> &'static str {
        match self {
            TextFormat::Tsv => "TSV",
            TextFormat::TsvWithNames => "TSVWithNames",
            TextFormat::TsvWithNamesAndTypes => "TSVWithNamesAndTypes",
            TextFormat::Csv => "CSV",
            TextFormat::CsvWithNames => "CSVWithNames",
            TextFormat::CsvWithNamesAndTypes => "CSVWithNamesAndTypes",
            TextFormat::Jsonl => "JSONEachRow",
            TextFormat::Pretty => "Pretty",
        }
    }

    /// CSV and its `WithNames…` forms.
    pub fn csv(self) -> bool {
        matches!(self, TextFormat::Csv | TextFormat::CsvWithNames | TextFormat::CsvWithNamesAndTypes)
    }

    /// Whether the text starts with a line of column names (`…WithNames`, `…WithNamesAndTypes`).
    pub fn names_line(self) -> bool {
        self.types_line() || matches!(self, TextFormat::CsvWithNames | TextFormat::TsvWithNames)
    }

    /// Whether a line of column types follows the names (`…WithNamesAndTypes`).
    pub fn types_line(self) -> bool {
        matches!(self, TextFormat::CsvWithNamesAndTypes | TextFormat::TsvWithNamesAndTypes)
    }
}

impl fmt::Display for TextFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// TSV, CSV, JSONEachRow, Pretty: `text_writer::Writer` into a 1 MiB buffer.
pub struct TextSink {
    writer: Writer,
    out: BufWriter<Output>,
}

impl TextSink {
    /// A sink of `format` writing to `out`; DateTime columns without a zone of their own are
    /// written in `tz` (UTC when `None` or unknown).
    pub fn new(format: TextFormat, out: Output, tz: Option<&str>) -> TextSink {
        TextSink { writer: Writer::new(format, tz), out: BufWriter::with_capacity(1 << 20, out) }
    }
}

impl Sink for TextSink {
    /// The `...WithNames(AndTypes)` header lines, also for a result without rows.
    fn begin(&mut self, header: &[(String, DataType)]) -> crate::Result<()> {
        Ok(self.writer.write_header(header, &mut self.out)?)
    }
    fn write(&mut self, block: Block) -> crate::Result<()> {
        Ok(self.writer.write_block(&block, &mut self.out)?)
    }
    fn flush(&mut self) -> crate::Result<()> {
        Ok(self.out.flush()?)
    }
    fn finish(mut self: Box<Self>) -> crate::Result<()> {
        Ok(self.out.flush()?)
    }
}
