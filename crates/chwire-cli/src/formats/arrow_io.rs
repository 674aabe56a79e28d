//! Arrow IPC (file and stream) and Parquet through `chwire-arrow`.

use super::options::FileOptions;
use super::{Format, Output, Sink, Source};

pub fn sink(format: Format, _out: Output, _files: &FileOptions) -> chwire::Result<Box<dyn Sink>> {
    Err(chwire::Error::invalid_input(format!("{format} output is not available yet")))
}

pub fn source(format: Format, _input: Option<&std::path::Path>, _files: &FileOptions) -> chwire::Result<Box<dyn Source>> {
    Err(chwire::Error::invalid_input(format!("{format} input is not available yet")))
}
