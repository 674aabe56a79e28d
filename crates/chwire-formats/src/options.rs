//! Options of the file formats: what the readers and writers need besides their input and
//! output, and ClickHouse's format settings (`output_format_parquet_*`, `output_format_arrow_*`)
//! that set them.

use arrow_ipc::CompressionType;
use chwire_arrow::ArrowOptions;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};

/// ClickHouse settings that shape files rather than queries (`output_format_parquet_*`,
/// `output_format_arrow_*`): applied by chwire, never sent to the server.
/// (`input_format_skip_unknown_fields` is the server's too: `chwire insert` applies it to its
/// input and sends it.)
pub fn is_format_setting(name: &str) -> bool {
    name.starts_with("output_format_arrow_") || name.starts_with("output_format_parquet_")
}

/// `NAME=VALUE` settings.
pub type Settings = Vec<(String, String)>;

/// Split `--setting`s into the format's (applied here) and the server's.
/// Refuse the format settings chwire does not apply (`format_csv_delimiter`,
/// `output_format_json_*`, `input_format_*` but `input_format_skip_unknown_fields`): chwire
/// reads and writes the files itself, so the server's formats never see them, and sending them
/// would silently change nothing.
pub fn refuse_unapplied(settings: &Settings) -> crate::Result<()> {
    let unapplied = |k: &str| {
        let k = k.trim();
        (k.starts_with("format_") || k.starts_with("output_format_") || k.starts_with("input_format_"))
            && !is_format_setting(k)
            && k != "input_format_skip_unknown_fields"
    };
    match settings.iter().find(|(k, _)| unapplied(k)) {
        Some((k, _)) => Err(crate::Error::unsupported(format!(
            "the format setting {k} is not supported by chwire (it reads and writes the formats itself; the server's \
             formats never see it)"
        ))),
        None => Ok(()),
    }
}

/// Split `settings` into (format settings, [`is_format_setting`]; the others, for the server).
pub fn split_settings(settings: Settings) -> (Settings, Settings) {
    settings.into_iter().partition(|(k, _)| is_format_setting(k))
}

/// Everything the format readers and writers need besides their input and output.
#[derive(Debug, Clone)]
pub struct FileOptions {
    /// Rows (and text bytes) per block read.
    pub block_limits: crate::BlockLimits,
    /// Block → Arrow mapping and its `output_format_arrow_*` settings.
    pub arrow: ArrowOptions,
    /// Compression of Arrow IPC record batches (`none` by default, as ClickHouse), or why
    /// `--file-compression` has none for Arrow files.
    pub ipc_compression: Result<Option<CompressionType>, String>,
    /// The codec of Parquet output (`zstd` by default, as ClickHouse).
    pub parquet_compression: Compression,
    /// A Parquet row group ends after this many rows (ClickHouse's default 1,000,000)…
    pub row_group_rows: usize,
    /// …or once its data reaches this many bytes before encoding, counted as Arrow buffers
    /// (ClickHouse's default 512 MiB, which it also counts before compression).
    pub row_group_bytes: usize,
    /// The Parquet format version written (`output_format_parquet_version`; 2.x by default).
    pub parquet_version: WriterVersion,
    /// Threads reading or writing a Parquet file's columns (`--threads`); writes use one
    /// when `output_format_parquet_parallel_encoding` is 0.
    pub threads: usize,
    /// `output_format_parquet_parallel_encoding`: Parquet columns encoded on `threads` threads
    /// (default true).
    pub parallel_encoding: bool,
    /// JSONEachRow input: members naming no column are left out
    /// (`input_format_skip_unknown_fields`), else an error.
    pub skip_unknown_fields: bool,
    /// `output_format_parquet_datetime_as_uint32`: the clickhouse mapping's DateTime stays
    /// `uint32` in Parquet (else `timestamp[ms]`, as ClickHouse writes it).
    pub parquet_datetime_as_uint32: bool,
}

impl FileOptions {
    /// What Parquet output follows besides Parquet's own needs (`chwire_arrow::ParquetMapping`).
    pub fn parquet_mapping(&self) -> chwire_arrow::ParquetMapping {
        chwire_arrow::ParquetMapping {
            clickhouse: self.arrow.mapping == chwire_arrow::Mapping::ClickHouse,
            datetime_as_uint32: self.parquet_datetime_as_uint32,
        }
    }
}

/// What no flag or setting changes: the rich Arrow mapping in UTC, uncompressed Arrow files,
/// zstd Parquet, ClickHouse's row group sizes.
impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            block_limits: crate::BlockLimits::default(),
            arrow: ArrowOptions::rich(),
            ipc_compression: Ok(None),
            parquet_compression: Compression::ZSTD(ZstdLevel::default()),
            row_group_rows: 1_000_000,
            row_group_bytes: 512 << 20,
            parquet_version: WriterVersion::PARQUET_2_0,
            threads: default_threads(),
            parallel_encoding: true,
            skip_unknown_fields: false,
            parquet_datetime_as_uint32: false,
        }
    }
}

impl FileOptions {
    /// The Parquet writer's properties: dictionary pages with PLAIN pages once a column's
    /// dictionary outgrows its 1 MiB (as pyarrow and ClickHouse write; parquet-rs would fall
    /// back to the DELTA encodings with the 2.x format, which cost a third of the write time
    /// for smaller files), statistics per column chunk and page index, 1 MiB pages.
    pub fn parquet_properties(&self) -> WriterProperties {
        WriterProperties::builder()
            .set_compression(self.parquet_compression)
            .set_encoding(Encoding::PLAIN)
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_max_row_group_bytes(Some(self.row_group_bytes))
            .set_writer_version(self.parquet_version)
            .set_created_by(format!("chwire version {}", env!("CARGO_PKG_VERSION")))
            .build()
    }
}

/// `zstd[:LEVEL]`, `lz4`, `snappy`, `none` as a Parquet codec.
fn parquet_codec(s: &str) -> crate::Result<Compression> {
    let (name, level) = match s.split_once(':') {
        Some((n, l)) => (n, Some(l.parse::<i32>().map_err(|_| crate::Error::options(format!("compression level {l:?} is not a number")))?)),
        None => (s, None),
    };
    let bad_level = |e: parquet::errors::ParquetError| crate::Error::options(format!("{s}: {e}")).caused_by(e);
    let codec = match name.to_ascii_lowercase().as_str() {
        "zstd" => Compression::ZSTD(match level {
            Some(l) => ZstdLevel::try_new(l).map_err(bad_level)?,
            None => ZstdLevel::default(),
        }),
        "lz4" | "lz4_raw" if level.is_none() => Compression::LZ4_RAW,
        "snappy" if level.is_none() => Compression::SNAPPY,
        "none" | "uncompressed" if level.is_none() => Compression::UNCOMPRESSED,
        "lz4" | "lz4_raw" | "snappy" | "none" | "uncompressed" => {
            return Err(crate::Error::options(format!("{name} has no compression level")))
        }
        _ => return Err(crate::Error::options(format!("unknown compression {s:?}: zstd[:LEVEL], lz4, snappy, none"))),
    };
    Ok(codec)
}

/// `lz4`/`lz4_frame`, `zstd`, `none` as an Arrow IPC codec.
fn ipc_codec(s: &str) -> crate::Result<Option<CompressionType>> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "lz4" | "lz4_frame" => Some(CompressionType::LZ4_FRAME),
        "zstd" => Some(CompressionType::ZSTD),
        "none" | "uncompressed" => None,
        _ => return Err(crate::Error::options(format!("Arrow files compress with lz4 or zstd (no levels), not {s:?}"))),
    })
}

/// Threads that read and write a Parquet file's columns at most by default.
const MAX_THREADS: usize = 4;

/// The threads to read and write Parquet with by default: one per core (at most 4).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
}

/// The Arrow options of a mapping (`rich` or `clickhouse`, as `--arrow-types`; anything else is
/// an error), and the zone of DateTime columns without their own.
pub fn arrow_options(mapping: &str, tz: Option<&str>) -> crate::Result<ArrowOptions> {
    let mut o = ArrowOptions::named(mapping).map_err(|e| crate::Error::options(e.to_string()).caused_by(e))?;
    o.default_timezone = tz.map(str::to_string);
    Ok(o)
}

impl FileOptions {
    /// These options changed by ClickHouse's format settings among `settings`
    /// (`output_format_parquet_*`, `output_format_arrow_*`, `input_format_skip_unknown_fields`);
    /// any other setting is an error.
    pub fn with_settings(mut self, settings: &[(String, String)]) -> crate::Result<FileOptions> {
        let o = &mut self;
        let number = |k: &str, v: &str| {
            v.parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| crate::Error::options(format!("{k} = {v:?}: expected a positive number")))
        };
        for (k, v) in settings {
            let bad = |e: chwire_arrow::Error| crate::Error::options(e.to_string()).caused_by(e);
            match k.as_str() {
                "output_format_parquet_compression_method" => o.parquet_compression = parquet_codec(v)?,
                "output_format_parquet_row_group_size" => o.row_group_rows = number(k, v)?,
                "output_format_parquet_row_group_size_bytes" => o.row_group_bytes = number(k, v)?,
                "output_format_parquet_parallel_encoding" => o.parallel_encoding = chwire_arrow::setting_flag(k, v).map_err(bad)?,
                "output_format_parquet_version" => {
                    o.parquet_version = match v.as_str() {
                        "1.0" => WriterVersion::PARQUET_1_0,
                        "2.4" | "2.6" | "2.latest" => WriterVersion::PARQUET_2_0,
                        _ => return Err(crate::Error::options(format!("{k} = {v:?}: expected 1.0, 2.4, 2.6 or 2.latest"))),
                    }
                }
                "output_format_parquet_string_as_string" => o.arrow.set("string_as_string", v).map_err(bad)?,
                "output_format_parquet_datetime_as_uint32" => {
                    o.parquet_datetime_as_uint32 = chwire_arrow::setting_flag(k, v).map_err(bad)?
                }
                "output_format_parquet_fixed_string_as_fixed_byte_array" => {
                    o.arrow.set("fixed_string_as_fixed_byte_array", v).map_err(bad)?
                }
                "input_format_skip_unknown_fields" => o.skip_unknown_fields = chwire_arrow::setting_flag(k, v).map_err(bad)?,
                "output_format_arrow_compression_method" => o.ipc_compression = Ok(ipc_codec(v)?),
                k if k.starts_with("output_format_arrow_") => o.arrow.set(k, v).map_err(bad)?,
                k => return Err(crate::Error::unsupported(format!("the format setting {k} is not supported by chwire"))),
            }
        }
        Ok(self)
    }

    /// These options with one compression for Parquet and Arrow output (`zstd[:LEVEL]`, `lz4`,
    /// `snappy`, `none`, as `--file-compression`): Arrow files take lz4 and zstd without a level,
    /// and refuse the others when written.
    pub fn with_file_compression(mut self, c: &str) -> crate::Result<FileOptions> {
        self.parquet_compression = parquet_codec(c)?;
        self.ipc_compression = match self.parquet_compression {
            Compression::ZSTD(_) if !c.contains(':') => Ok(Some(CompressionType::ZSTD)),
            Compression::LZ4_RAW => Ok(Some(CompressionType::LZ4_FRAME)),
            Compression::UNCOMPRESSED => Ok(None),
            _ => Err(format!("Arrow files compress with lz4 or zstd (without a level), not {c}")),
        };
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_with_levels() {
        assert_eq!(parquet_codec("zstd:3").unwrap(), Compression::ZSTD(ZstdLevel::try_new(3).unwrap()));
        assert_eq!(parquet_codec("ZSTD").unwrap(), Compression::ZSTD(ZstdLevel::default()));
        assert_eq!(parquet_codec("lz4").unwrap(), Compression::LZ4_RAW);
        assert_eq!(parquet_codec("none").unwrap(), Compression::UNCOMPRESSED);
        assert!(parquet_codec("zstd:99").is_err());
        assert!(parquet_codec("snappy:2").is_err());
        assert!(parquet_codec("lzma").is_err());
        assert_eq!(ipc_codec("lz4_frame").unwrap(), Some(CompressionType::LZ4_FRAME));
    }

    /// Columns whose dictionary overflows (unique strings, counters) continue in PLAIN pages,
    /// not in the slower DELTA encodings parquet-rs picks for the 2.x format by default.
    #[test]
    fn dictionary_then_plain_pages() {
        use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
        use std::sync::Arc;
        let o = FileOptions::default().with_file_compression("none").unwrap();
        let n = 200_000u64;
        let batch = RecordBatch::try_from_iter([
            ("n", Arc::new(UInt64Array::from_iter_values(0..n)) as ArrayRef),
            ("s", Arc::new(StringArray::from_iter_values((0..n).map(|i| i.to_string()))) as ArrayRef),
        ])
        .unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), Some(o.parquet_properties())).unwrap();
        w.write(&batch).unwrap();
        let bytes = bytes::Bytes::from(w.into_inner().unwrap());
        let meta =
            parquet::file::reader::FileReader::metadata(&parquet::file::serialized_reader::SerializedFileReader::new(bytes).unwrap())
                .clone();
        for c in meta.row_group(0).columns() {
            let encodings: Vec<Encoding> = c.encodings().collect();
            assert!(encodings.contains(&Encoding::PLAIN), "{}: {encodings:?}", c.column_path());
            assert!(encodings.contains(&Encoding::RLE_DICTIONARY), "{}: {encodings:?}", c.column_path());
            assert!(!encodings.iter().any(|e| matches!(e, Encoding::DELTA_BINARY_PACKED | Encoding::DELTA_BYTE_ARRAY)), "{encodings:?}");
        }
    }
}
