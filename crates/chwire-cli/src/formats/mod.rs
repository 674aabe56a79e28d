//! The one format registry of the CLI: `query --format`, `convert --from/--to` and
//! `insert --format` all name formats here, by ClickHouse's names (case-insensitive).
//!
//! The CLI only picks formats: text output is `text_writer::Writer`, text input the parsers
//! of [`text_in`]/[`parse`], Arrow and Parquet go through `chwire-arrow` ([`arrow_io`]).

// Every reader here takes input from files and pipes: no unwrap or expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod arrow_io;
mod ipc_guard;
mod ipc_read;
pub mod options;
mod parquet_columns;
mod parquet_geo;
mod parquet_guard;
mod parquet_strings;
mod parquet_types;
mod parquet_writer;
pub mod parse;
pub mod text_in;
pub mod text_out;
pub mod text_writer;

use chwire::{Block, DataType};
use std::fmt;
use std::str::FromStr;

/// A file or stream format, as ClickHouse names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Native,
    Arrow,
    ArrowStream,
    Parquet,
    Csv,
    CsvWithNames,
    CsvWithNamesAndTypes,
    Tsv,
    TsvWithNames,
    TsvWithNamesAndTypes,
    JsonEachRow,
    /// Output only.
    Pretty,
    /// Output only: the rows are read (and decoded) and dropped, as ClickHouse's `FORMAT Null`.
    Null,
}

/// Every format with the names it answers to (the first is ClickHouse's own).
const NAMES: &[(Format, &[&str])] = &[
    (Format::Native, &["Native"]),
    (Format::Arrow, &["Arrow", "ArrowFile"]),
    (Format::ArrowStream, &["ArrowStream"]),
    (Format::Parquet, &["Parquet"]),
    (Format::Csv, &["CSV"]),
    (Format::CsvWithNames, &["CSVWithNames", "csv-with-names"]),
    (Format::CsvWithNamesAndTypes, &["CSVWithNamesAndTypes"]),
    (Format::Tsv, &["TSV", "TabSeparated"]),
    (Format::TsvWithNames, &["TSVWithNames", "TabSeparatedWithNames", "tsv-with-names"]),
    (Format::TsvWithNamesAndTypes, &["TSVWithNamesAndTypes", "TabSeparatedWithNamesAndTypes"]),
    (Format::JsonEachRow, &["JSONEachRow", "jsonl", "NDJSON", "JSONLines"]),
    (Format::Pretty, &["Pretty"]),
    (Format::Null, &["Null"]),
];

impl Format {
    /// ClickHouse's name of the format.
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|(f, _)| *f == self).map(|(_, n)| n[0]).unwrap_or("?")
    }

    /// Whether chwire reads this format (every one but Pretty and Null).
    pub fn readable(self) -> bool {
        !matches!(self, Format::Pretty | Format::Null)
    }

    /// CSV and its `WithNames…` forms.
    pub fn csv(self) -> bool {
        matches!(self, Format::Csv | Format::CsvWithNames | Format::CsvWithNamesAndTypes)
    }

    /// Whether the text starts with a line of column names (`…WithNames`, `…WithNamesAndTypes`).
    pub fn names_line(self) -> bool {
        self.types_line() || matches!(self, Format::CsvWithNames | Format::TsvWithNames)
    }

    /// Whether a line of column types follows the names (`…WithNamesAndTypes`).
    pub fn types_line(self) -> bool {
        matches!(self, Format::CsvWithNamesAndTypes | Format::TsvWithNamesAndTypes)
    }

    /// The text writer's format, for the text formats.
    pub fn text(self) -> Option<text_writer::TextFormat> {
        use text_writer::TextFormat as T;
        Some(match self {
            Format::Csv => T::Csv,
            Format::CsvWithNames => T::CsvWithNames,
            Format::CsvWithNamesAndTypes => T::CsvWithNamesAndTypes,
            Format::Tsv => T::Tsv,
            Format::TsvWithNames => T::TsvWithNames,
            Format::TsvWithNamesAndTypes => T::TsvWithNamesAndTypes,
            Format::JsonEachRow => T::Jsonl,
            Format::Pretty => T::Pretty,
            _ => return None,
        })
    }

    /// For `--help`: every name, comma-separated.
    pub fn all_names() -> String {
        NAMES.iter().map(|(_, n)| n[0]).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        NAMES
            .iter()
            .find(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(s)))
            .map(|(f, _)| *f)
            .ok_or_else(|| format!("unknown format {s:?}; formats: {}", Format::all_names()))
    }
}

/// clap value parser: any format.
pub fn any_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// clap value parser: a format chwire can read.
pub fn input_format(s: &str) -> Result<Format, String> {
    let f: Format = s.parse()?;
    if !f.readable() {
        return Err(format!("{f} is an output format only"));
    }
    Ok(f)
}

/// Where blocks go: one writer per output format. `begin` gets the header (names and types,
/// no rows) before the first block; `finish` completes the file (footers, flush).
pub trait Sink {
    fn begin(&mut self, header: &[(String, DataType)]) -> chwire::Result<()>;
    fn write(&mut self, block: Block) -> chwire::Result<()>;
    /// Push what is buffered to the output (for terminals; files flush at `finish`).
    fn flush(&mut self) -> chwire::Result<()>;
    fn finish(self: Box<Self>) -> chwire::Result<()>;
}

/// A `--timezone` must name a zone chwire knows (IANA names, as ClickHouse's): an unknown one
/// would read and write times as UTC.
pub fn check_timezone(tz: Option<&str>) -> chwire::Result<()> {
    match tz {
        Some(name) => jiff::tz::TimeZone::get(name)
            .map(|_| ())
            .map_err(|e| chwire::Error::invalid_input(format!("--timezone {name:?}: unknown time zone ({e})"))),
        None => Ok(()),
    }
}

/// Whether an error is a write to a closed pipe (the reader went away, e.g. `| head`).
pub fn is_broken_pipe(e: &chwire::Error) -> bool {
    matches!(e.kind(), chwire::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// The output: a file or stdout.
pub type Output = Box<dyn std::io::Write + Send>;

/// The writer of `format` (not yet begun) into `out`. `tz` is the zone of DateTime columns
/// without their own (text formats).
pub fn sink(format: Format, out: Output, tz: Option<&str>, files: &options::FileOptions) -> chwire::Result<Box<dyn Sink>> {
    Ok(match format {
        Format::Native => Box::new(text_out::NativeSink::new(out)),
        Format::Null => Box::new(text_out::NullSink),
        Format::Arrow | Format::ArrowStream | Format::Parquet => arrow_io::sink(format, out, files)?,
        f => match f.text() {
            Some(text) => Box::new(text_out::TextSink::new(text, out, tz)),
            None => return Err(chwire::Error::invalid_input(format!("{f} is not an output format"))),
        },
    })
}

/// The reader of `format` from a file or stdin.
pub fn source(
    format: Format,
    input: Option<&std::path::Path>,
    files: &options::FileOptions,
    tz: Option<&str>,
    limits: chwire::Limits,
) -> chwire::Result<Box<dyn Source>> {
    let input = match input {
        Some(p) => Input::File(p.to_path_buf()),
        None => Input::Stdin,
    };
    source_of(format, input, files, tz, limits)
}

/// Where a [`Source`] reads from.
pub enum Input {
    File(std::path::PathBuf),
    Stdin,
    /// Bytes already in memory (the fuzz targets read through this).
    Bytes(bytes::Bytes),
}

/// The reader of `format` from `input`.
pub fn source_of(
    format: Format,
    input: Input,
    files: &options::FileOptions,
    tz: Option<&str>,
    limits: chwire::Limits,
) -> chwire::Result<Box<dyn Source>> {
    Ok(match format {
        Format::Native => Box::new(text_out::NativeSource::new(open_input(input)?, limits)),
        Format::Arrow | Format::ArrowStream | Format::Parquet => arrow_io::source(format, input, files, limits)?,
        Format::Pretty | Format::Null => return Err(chwire::Error::invalid_input(format!("{format} is an output format only"))),
        f => {
            Box::new(text_in::TextSource::new(f, open_input(input)?, tz, files.block_limits).skip_unknown_fields(files.skip_unknown_fields))
        }
    })
}

/// Open `input` as a byte stream.
pub fn open_input(input: Input) -> chwire::Result<Box<dyn std::io::Read>> {
    Ok(match input {
        Input::File(p) => Box::new(open_file(&p)?),
        Input::Stdin => Box::new(std::io::stdin().lock()),
        Input::Bytes(b) => Box::new(std::io::Cursor::new(b)),
    })
}

/// A file the user named to read: one that cannot be opened (missing, a directory, not
/// readable) is bad input (exit code 2), named in the error.
pub fn open_file(p: &std::path::Path) -> chwire::Result<std::fs::File> {
    let bad = |e: &dyn std::fmt::Display| chwire::Error::invalid_input(format!("{}: {e}", p.display()));
    let f = std::fs::File::open(p).map_err(|e| bad(&e))?;
    if f.metadata().map_err(|e| bad(&e))?.is_dir() {
        return Err(bad(&"is a directory"));
    }
    Ok(f)
}

/// Create `path` for writing, or stdout.
pub fn open_output(path: Option<&std::path::Path>) -> chwire::Result<Output> {
    Ok(match path {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| chwire::Error::invalid_input(format!("{}: {e}", p.display())))?),
        None => Box::new(std::io::stdout()),
    })
}

/// Where blocks come from: one reader per input format.
pub trait Source {
    /// The column names the input itself declares (Native and Arrow headers, the names line
    /// of `...WithNames`), or `None` when its values follow the target's columns in order.
    fn names(&mut self) -> chwire::Result<Option<Vec<String>>>;
    /// The columns blocks must have (an INSERT's header; `convert --structure`). Text
    /// formats need it to parse; Arrow inputs convert to it (without it, to the types the
    /// file itself carries); Native blocks are checked against it by the insert.
    fn bind(&mut self, target: &[(String, DataType)]) -> chwire::Result<()>;
    /// Skip the first `rows` data rows of the input (without parsing text ones).
    fn skip_rows(&mut self, rows: u64) -> chwire::Result<()>;
    /// The next block, or `None` at the end of the input.
    fn next_block(&mut self) -> chwire::Result<Option<Block>>;
    /// The columns of the blocks, when the input declares them even without rows (an Arrow
    /// or Parquet schema, a `...WithNamesAndTypes` header, the bound target): an empty input
    /// still converts to an empty file of those columns.
    fn columns(&self) -> Option<Vec<(String, DataType)>> {
        None
    }
}

/// How many rows (and how many bytes of text) a block read from text holds at most.
#[derive(Debug, Clone, Copy)]
pub struct BlockLimits {
    pub rows: usize,
    pub bytes: usize,
}

impl Default for BlockLimits {
    fn default() -> Self {
        BlockLimits { rows: 65_536, bytes: 16 << 20 }
    }
}

/// Names and types of a block's columns.
pub fn columns_of(block: &Block) -> Vec<(String, DataType)> {
    block.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect()
}

/// `a UInt64, b String` (as clickhouse-local's `--structure`) into columns.
pub fn parse_structure(s: &str) -> chwire::Result<Vec<(String, DataType)>> {
    // Split at top-level commas (types nest parentheses and quote enum names).
    let (mut parts, mut depth, mut quote, mut start) = (Vec::new(), 0i32, false, 0);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if quote => i += 1,
            b'\'' => quote = !quote,
            b'(' if !quote => depth += 1,
            b')' if !quote => depth -= 1,
            b',' if !quote && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&s[start..]);
    parts
        .into_iter()
        .map(|p| {
            let p = p.trim();
            let bad = || chwire::Error::invalid_input(format!("--structure: expected `name Type`, got {p:?}"));
            let (name, ty) = match p.strip_prefix('`') {
                Some(rest) => rest.split_once('`').ok_or_else(bad)?,
                None => p.split_once(char::is_whitespace).ok_or_else(bad)?,
            };
            let name = name.to_string();
            let ty = DataType::parse(ty.trim()).map_err(|e| chwire::Error::invalid_input(format!("--structure: column {name}: {e}")))?;
            Ok((name, ty))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_with_aliases() {
        for (s, f) in [
            ("native", Format::Native),
            ("NATIVE", Format::Native),
            ("parquet", Format::Parquet),
            ("arrowstream", Format::ArrowStream),
            ("tabseparated", Format::Tsv),
            ("TabSeparatedWithNames", Format::TsvWithNames),
            ("tsv-with-names", Format::TsvWithNames),
            ("jsonl", Format::JsonEachRow),
            ("JSONEachRow", Format::JsonEachRow),
            ("csvwithnames", Format::CsvWithNames),
            ("csvwithnamesandtypes", Format::CsvWithNamesAndTypes),
            ("TabSeparatedWithNamesAndTypes", Format::TsvWithNamesAndTypes),
            ("pretty", Format::Pretty),
            ("null", Format::Null),
        ] {
            assert_eq!(s.parse::<Format>().unwrap(), f, "{s}");
        }
        assert!("xml".parse::<Format>().is_err());
        assert!(input_format("Pretty").is_err());
        assert!(input_format("Null").is_err());
        assert_eq!(input_format("csv").unwrap(), Format::Csv);
    }

    #[test]
    fn structures_split_at_top_level_commas() {
        let s = parse_structure("a UInt64, `b c` Map(String, Array(Tuple(UInt8, String))), e Enum8('x,y' = 1, 'z' = 2)").unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].0, "b c");
        assert!(parse_structure("a").is_err());
    }
}
