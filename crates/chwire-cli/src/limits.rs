//! `--max-*` flags: the decoding limits for the server's answers and for Native input
//! (see `chwire::Limits`; the same names work as URL keys).

use chwire::Limits;
use clap::Args;

/// The `--max-*` flags (global: accepted by every subcommand).
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Input limits (server answers and Native files)")]
pub struct LimitArgs {
    /// Most rows one block may declare [default: 134217728]
    #[arg(long, global = true, value_name = "ROWS")]
    max_block_rows: Option<usize>,
    /// Most bytes one block may take (after decompression) [default: 2147483648]
    #[arg(long, global = true, value_name = "BYTES")]
    max_block_bytes: Option<usize>,
    /// Longest string value in bytes [default: 1073741824]
    #[arg(long, global = true, value_name = "BYTES")]
    max_string_len: Option<usize>,
    /// Most elements in one array or map value [default: 1073741824]
    #[arg(long, global = true, value_name = "ELEMENTS")]
    max_array_len: Option<usize>,
    /// Deepest nesting of types and values [default: 64, at most 256]
    #[arg(long, global = true, value_name = "LEVELS")]
    max_depth: Option<usize>,
    /// Largest compressed frame in bytes [default: 1073741824]
    #[arg(long, global = true, value_name = "BYTES")]
    max_frame_size: Option<usize>,
    /// Most columns one block may declare [default: 65536]
    #[arg(long, global = true, value_name = "COLUMNS")]
    max_columns: Option<usize>,
}

impl LimitArgs {
    /// `base` (from the URL) with the flags given on top.
    pub fn apply(&self, base: Limits) -> chwire::Result<Limits> {
        let flags = [
            ("max_block_rows", self.max_block_rows),
            ("max_block_bytes", self.max_block_bytes),
            ("max_string_len", self.max_string_len),
            ("max_array_len", self.max_array_len),
            ("max_depth", self.max_depth),
            ("max_frame_size", self.max_frame_size),
            ("max_columns", self.max_columns),
        ];
        // Options::set checks each value as the URL keys are checked.
        let mut o = chwire::Options::new().limits(base);
        for (name, v) in flags {
            if let Some(v) = v {
                o.set(name, &v.to_string())?;
            }
        }
        Ok(o.limits)
    }
}
