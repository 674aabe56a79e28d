//! The command line's flags of the file formats (`chwire_formats::FileOptions`).

use chwire_formats::options::{arrow_options, FileOptions};
use chwire_formats::BlockLimits;
use clap::Args;

/// The flags of the file formats, shared by `query`, `convert` and `insert`.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Formats")]
pub struct FileArgs {
    /// Arrow/Parquet types: `rich` (each value's natural Arrow type: timestamps, dictionaries,
    /// decimals) or `clickhouse` (what ClickHouse itself writes for FORMAT Arrow/Parquet); the
    /// `arrow_mapping` option of every binding (`--arrow-types` is its old name)
    #[arg(long, alias = "arrow-types", value_parser = ["rich", "clickhouse"], default_value = "rich")]
    pub arrow_mapping: String,
    /// Compression inside Parquet and Arrow files: `zstd[:LEVEL]` (Parquet's default), lz4,
    /// snappy, none (Arrow's default; Arrow files have lz4 and zstd, without levels)
    #[arg(long, value_name = "CODEC[:LEVEL]")]
    pub file_compression: Option<String>,
    /// Rows per block read from text, Arrow and Parquet input
    #[arg(long, default_value_t = 65_536)]
    pub block_rows: usize,
    /// Threads to read and write a Parquet file's columns with [default: one per core, at
    /// most 4]; the files are the same whatever the number
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

impl FileArgs {
    /// `--file-compression` compresses Arrow and Parquet output: given for another output
    /// (or for an input), it would change nothing, so it is refused.
    pub fn check_output(&self, output: Option<chwire_formats::Format>) -> crate::Result<()> {
        use chwire_formats::Format as F;
        match (&self.file_compression, output) {
            (None, _) | (Some(_), Some(F::Arrow | F::ArrowStream | F::Parquet)) => Ok(()),
            (Some(c), Some(f)) => Err(crate::Error::invalid_input(format!(
                "--file-compression {c} compresses Arrow, ArrowStream and Parquet output, not {f}"
            ))),
            (Some(c), None) => Err(crate::Error::invalid_input(format!(
                "--file-compression {c} compresses output files; an input's compression is read from the file"
            ))),
        }
    }

    /// The options of these flags and of the format settings among `settings`; `tz` is the
    /// zone of DateTime columns without their own (the server's, or `--timezone`).
    pub fn options(&self, settings: &[(String, String)], tz: Option<&str>) -> crate::Result<FileOptions> {
        if self.block_rows == 0 {
            return Err(crate::Error::invalid_input("--block-rows must be at least 1"));
        }
        if self.threads == Some(0) {
            return Err(crate::Error::invalid_input("--threads must be at least 1"));
        }
        let mut o = FileOptions {
            block_limits: BlockLimits { rows: self.block_rows, ..Default::default() },
            arrow: arrow_options(&self.arrow_mapping, tz)?,
            ..FileOptions::default()
        };
        if let Some(n) = self.threads {
            o.threads = n;
        }
        let o = o.with_settings(settings)?;
        match &self.file_compression {
            Some(c) => Ok(o.with_file_compression(c)?),
            None => Ok(o),
        }
    }
}
