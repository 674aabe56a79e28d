//! ClickHouse's file formats as readers and writers of blocks: Native, Arrow (IPC file),
//! ArrowStream, Parquet, CSV, TSV and JSONEachRow (with their `...WithNames(AndTypes)` forms),
//! and Pretty and Null for output. They read as ClickHouse 26.9 reads them and write what it
//! writes; every reader takes untrusted input (lengths checked before allocating, panics of
//! arrow-rs and parquet-rs caught) and streams in memory bounded by a block.
//!
//! Each format is a module implementing [`Source`] (blocks from a `Read`) and [`Sink`] (blocks
//! into a `Write`); [`Format`] maps ClickHouse's names (any case) to them, and [`FileOptions`]
//! carries what they need besides their input and output (block sizes, the Arrow mapping,
//! ClickHouse's `output_format_parquet_*`/`output_format_arrow_*` settings).
//!
//! Layers: this crate sits on `chwire-arrow` (blocks ⇄ record batches), `chwire-text` (values as
//! text) and `chwire-proto` (blocks, types, the Native format, values into columns), with its
//! own [`Error`]; it depends on no client, async runtime, HTTP or TLS crate (`scripts/deps.sh`
//! keeps it so). The `chwire` command line sits on it and on the client. Inside, imports
//! point one way: the registry → the formats (`native`, `text`, `ipc`, `parquet`) →
//! `batches` → `io`, `options`, `error`.
//!
//! A CSV file into a Parquet file:
//!
//! ```
//! use chwire_formats::{columns_of, parse_structure, sink, source, FileOptions, Format};
//!
//! # fn main() -> chwire_formats::Result<()> {
//! # let dir = std::env::temp_dir().join(format!("chwire-formats-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("events.csv"), "1,start\n2,stop\n")?;
//! let limits = chwire_proto::Limits::default();
//! let mut csv = source(Format::Csv, Some(&dir.join("events.csv")), &FileOptions::default(), None, limits)?;
//! csv.bind(&parse_structure("id UInt64, name String")?)?; // text parses to these columns
//! let out = Box::new(std::fs::File::create(dir.join("events.parquet"))?);
//! let mut parquet = sink(Format::Parquet, out, None, &FileOptions::default())?;
//! let mut begun = false;
//! while let Some(block) = csv.next_block()? {
//!     if !begun {
//!         parquet.begin(&columns_of(&block))?;
//!         begun = true;
//!     }
//!     parquet.write(block)?;
//! }
//! parquet.finish()?;
//!
//! let mut back = source(Format::Parquet, Some(&dir.join("events.parquet")), &FileOptions::default(), None, limits)?;
//! let block = back.next_block()?.expect("the rows");
//! assert_eq!((block.rows(), block.column_at(1).map(|c| c.value(1))), (2, Some(chwire_proto::Value::String(b"stop"))));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! Loading a file into a table is the same loop with the client's block insert as the sink:
//! bind the source to the table's columns (`source.bind(&columns_of(insert.header()))`, with
//! `chwire::Client::insert_blocks`) and send each block; `chwire insert` does this (its
//! `crates/chwire-cli/src/insert.rs`, tested against a server).

#![warn(missing_docs)]
// Every reader here takes input from files and pipes: no unwrap or expect outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod error;
pub mod io;
pub mod options;
mod structure;

mod batches;
pub mod ipc;
pub mod native;
pub mod parquet;
pub mod text;

mod registry;

pub use error::{Error, ErrorKind, Result};
pub use io::{columns_of, is_broken_pipe, open_file, open_input, open_output, BlockLimits, Input, Output, Sink, Source};
pub use options::FileOptions;
pub use registry::{any_format, input_format, sink, source, source_of, Format};
pub use structure::{check_timezone, parse_structure};
