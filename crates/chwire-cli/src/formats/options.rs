//! Options of the file formats: command-line flags and ClickHouse's format settings.

use clap::Args;

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Formats")]
pub struct FileArgs {
    /// Arrow/Parquet types: `rich` (each value's natural Arrow type: timestamps, dictionaries,
    /// decimals) or `clickhouse` (what ClickHouse itself writes for FORMAT Arrow/Parquet)
    #[arg(long, value_parser = ["rich", "clickhouse"], default_value = "rich")]
    pub arrow_types: String,
    /// Compression inside Parquet and Arrow files: zstd[:LEVEL] (Parquet's default), lz4,
    /// snappy, gzip[:LEVEL], brotli[:LEVEL], none (Arrow's default; Arrow has lz4 and zstd)
    #[arg(long, value_name = "CODEC[:LEVEL]")]
    pub file_compression: Option<String>,
    /// Rows per block read from text, Arrow and Parquet input
    #[arg(long, default_value_t = 65_536)]
    pub block_rows: usize,
}

/// ClickHouse settings that shape files rather than queries (`output_format_parquet_*`,
/// `output_format_arrow_*`, `input_format_*`): applied by chwire, never sent to the server.
pub fn is_format_setting(name: &str) -> bool {
    name.starts_with("output_format_arrow_") || name.starts_with("output_format_parquet_") || name.starts_with("input_format_")
}

/// `NAME=VALUE` settings.
pub type Settings = Vec<(String, String)>;

/// Split `--setting`s into the format's (applied here) and the server's.
pub fn split_settings(settings: Settings) -> (Settings, Settings) {
    settings.into_iter().partition(|(k, _)| is_format_setting(k))
}

/// Everything the format readers and writers need besides their input and output.
#[derive(Debug, Clone, Default)]
pub struct FileOptions {
    pub block_limits: super::BlockLimits,
}

impl FileArgs {
    /// The options of these flags and of the format settings among `settings`.
    pub fn options(&self, settings: &[(String, String)]) -> chwire::Result<FileOptions> {
        if let Some((k, _)) = settings.first() {
            return Err(chwire::Error::invalid_input(format!("unknown format setting {k}")));
        }
        if self.block_rows == 0 {
            return Err(chwire::Error::invalid_input("--block-rows must be at least 1"));
        }
        Ok(FileOptions { block_limits: super::BlockLimits { rows: self.block_rows, ..Default::default() } })
    }
}
