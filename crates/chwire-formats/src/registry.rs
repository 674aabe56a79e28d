//! The registry: formats by ClickHouse's names (case-insensitive, with aliases) and the reader
//! or writer of each. It only maps names and options to the format modules; `chwire query
//! --format`, `convert --from/--to` and `insert --format` all name formats here.

use crate::io::{open_input, Input, Output, Sink, Source};
use crate::options::FileOptions;
use crate::text::TextFormat;
use crate::{ipc, native, parquet, text};
use std::fmt;
use std::str::FromStr;

/// A file or stream format, as ClickHouse names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// ClickHouse's Native format: blocks as the server sends them.
    Native,
    /// Apache Arrow IPC file (`ArrowFile`).
    Arrow,
    /// Apache Arrow IPC stream.
    ArrowStream,
    /// Apache Parquet.
    Parquet,
    /// CSV.
    Csv,
    /// CSV with a line of column names first.
    CsvWithNames,
    /// CSV with lines of column names and types first.
    CsvWithNamesAndTypes,
    /// TSV (`TabSeparated`).
    Tsv,
    /// TSV with a line of column names first.
    TsvWithNames,
    /// TSV with lines of column names and types first.
    TsvWithNamesAndTypes,
    /// One JSON object per line (`jsonl`, `NDJSON`).
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

/// File name extensions and their formats ([`Format::from_path`]).
const EXTENSIONS: &[(&str, Format)] = &[
    ("native", Format::Native),
    ("arrow", Format::Arrow),
    ("feather", Format::Arrow),
    ("arrows", Format::ArrowStream),
    ("parquet", Format::Parquet),
    ("pq", Format::Parquet),
    ("csv", Format::Csv),
    ("tsv", Format::Tsv),
    ("tab", Format::Tsv),
    ("jsonl", Format::JsonEachRow),
    ("ndjson", Format::JsonEachRow),
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
    pub fn text(self) -> Option<TextFormat> {
        use TextFormat as T;
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

    /// The format a file name's extension names (any case), as clickhouse-local and DuckDB
    /// infer it: `.native`, `.arrow`/`.feather`, `.arrows`, `.parquet`/`.pq`, `.csv`,
    /// `.tsv`/`.tab`, `.jsonl`/`.ndjson`; `None` for any other name.
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|(_, f)| *f)
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

/// The writer of `format` (not yet begun) into `out`. `tz` is the zone of DateTime columns
/// without their own (text formats), usually the server's; a name no zone has writes them as
/// UTC (check a zone a user gives with [`crate::check_timezone`] first).
pub fn sink(format: Format, out: Output, tz: Option<&str>, files: &FileOptions) -> crate::Result<Box<dyn Sink>> {
    Ok(match format {
        Format::Native => Box::new(native::NativeSink::new(out)),
        Format::Null => Box::new(native::NullSink),
        Format::Arrow => Box::new(ipc::IpcSink::new(ipc::IpcKind::File, out, files)),
        Format::ArrowStream => Box::new(ipc::IpcSink::new(ipc::IpcKind::Stream, out, files)),
        Format::Parquet => Box::new(parquet::ParquetSink::new(out, files)),
        f => match f.text() {
            Some(text) => Box::new(text::TextSink::new(text, out, tz)),
            None => return Err(crate::Error::options(format!("{f} is not an output format"))),
        },
    })
}

/// The reader of `format` from a file or stdin.
pub fn source(
    format: Format,
    input: Option<&std::path::Path>,
    files: &FileOptions,
    tz: Option<&str>,
    limits: chwire_proto::Limits,
) -> crate::Result<Box<dyn Source>> {
    let input = match input {
        Some(p) => Input::File(p.to_path_buf()),
        None => Input::Stdin,
    };
    source_of(format, input, files, tz, limits)
}

/// The reader of `format` from `input`. `tz` is the zone DateTime columns without their own are
/// read in (text formats); a name no zone has is an error.
pub fn source_of(
    format: Format,
    input: Input,
    files: &FileOptions,
    tz: Option<&str>,
    limits: chwire_proto::Limits,
) -> crate::Result<Box<dyn Source>> {
    crate::check_timezone(tz)?;
    Ok(match format {
        Format::Native => Box::new(native::NativeSource::new(open_input(input)?, limits)),
        Format::Arrow => ipc::file_source(input, limits)?,
        Format::ArrowStream => ipc::stream_source(input, limits)?,
        Format::Parquet => parquet::source(input, files, limits)?,
        f => match f.text() {
            Some(text) if f.readable() => Box::new(
                text::TextSource::new(text, open_input(input)?, tz, files.block_limits).skip_unknown_fields(files.skip_unknown_fields),
            ),
            _ => return Err(crate::Error::options(format!("{format} is an output format only"))),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Input;

    #[test]
    fn an_unknown_time_zone_is_an_error_not_utc() {
        let files = crate::FileOptions::default();
        let input = || Input::Bytes(bytes::Bytes::from_static(b"1\n"));
        let e = source_of(Format::Csv, input(), &files, Some("Mars/Base"), Default::default()).err().unwrap();
        assert!(e.to_string().contains("unknown time zone \"Mars/Base\""), "{e}");
        assert!(source_of(Format::Csv, input(), &files, Some("Asia/Kolkata"), Default::default()).is_ok());
    }

    #[test]
    fn extensions_name_formats() {
        use std::path::Path;
        assert_eq!(Format::from_path(Path::new("data.csv")), Some(Format::Csv));
        assert_eq!(Format::from_path(Path::new("/x/y.PARQUET")), Some(Format::Parquet));
        assert_eq!(Format::from_path(Path::new("a.b.ndjson")), Some(Format::JsonEachRow));
        assert_eq!(Format::from_path(Path::new("t.arrows")), Some(Format::ArrowStream));
        assert_eq!(Format::from_path(Path::new("data.csv.gz")), None);
        assert_eq!(Format::from_path(Path::new("data")), None);
        assert_eq!(Format::from_path(Path::new(".csv")), None);
    }

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
    fn arrow_files_take_blocks_with_different_dictionaries() {
        #[derive(Clone, Default)]
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let csv = "a,x\nb,\\N\nc,y\na,\\N\nd,z\nb,x\n";
        let header = crate::parse_structure("lc LowCardinality(String), n LowCardinality(Nullable(String))").unwrap();
        let files = FileOptions { block_limits: crate::BlockLimits { rows: 2, bytes: 1 << 20 }, ..FileOptions::default() };
        let read = |format: Format, data: Vec<u8>| -> Vec<String> {
            let mut src = source_of(format, Input::Bytes(data.into()), &files, None, chwire_proto::Limits::default()).unwrap();
            src.bind(&header).unwrap();
            let mut out = Vec::new();
            while let Some(b) = src.next_block().unwrap() {
                for r in 0..b.rows() {
                    out.push(format!("{:?} {:?}", b.column_at(0).unwrap().value(r), b.column_at(1).unwrap().value(r)));
                }
            }
            out
        };
        let mut blocks = Vec::new();
        let mut src =
            source_of(Format::Csv, Input::Bytes(csv.as_bytes().to_vec().into()), &files, None, chwire_proto::Limits::default()).unwrap();
        src.bind(&header).unwrap();
        while let Some(b) = src.next_block().unwrap() {
            blocks.push(b);
        }
        assert_eq!(blocks.len(), 3);
        let out = Shared::default();
        let mut sink = sink(Format::Arrow, Box::new(out.clone()), None, &files).unwrap();
        sink.begin(&header).unwrap();
        for b in blocks {
            sink.write(b).unwrap();
        }
        sink.finish().unwrap();
        let file = out.0.lock().unwrap().clone();
        assert_eq!(read(Format::Arrow, file), read(Format::Csv, csv.as_bytes().to_vec()));
    }
}
