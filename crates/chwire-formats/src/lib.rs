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
//! text) and `chwire` (blocks, errors); the `chwire` command line sits on it. Inside, imports
//! point one way: the registry → the formats (`native`, `text`, `ipc`, `parquet`) →
//! `batches` → `io`, `options`, `error`.
//!
//! Loading a Parquet file and a CSV file into a table:
//!
//! ```
//! use chwire_formats::{columns_of, source, FileOptions, Format};
//!
//! # fn files(dir: &std::path::Path) -> chwire::Result<()> {
//! #     let mut csv = std::fs::File::create(dir.join("events.csv"))?;
//! #     std::io::Write::write_all(&mut csv, b"1,start\n2,stop\n")?;
//! #     let mut from_csv = source(Format::Csv, Some(&dir.join("events.csv")), &FileOptions::default(), None, chwire::Limits::default())?;
//! #     from_csv.bind(&chwire_formats::parse_structure("id UInt64, name String")?)?;
//! #     let out = Box::new(std::fs::File::create(dir.join("events.parquet"))?);
//! #     let mut sink = chwire_formats::sink(Format::Parquet, out, None, &FileOptions::default())?;
//! #     let block = from_csv.next_block()?.expect("rows");
//! #     sink.begin(&columns_of(&block))?;
//! #     sink.write(block)?;
//! #     sink.finish()
//! # }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> chwire::Result<()> {
//! # let url = std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".into());
//! # let dir = std::env::temp_dir().join(format!("chwire-formats-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # files(&dir)?;
//! let mut client = chwire::Client::connect_url(&url).await?;
//! # client.execute("DROP TABLE IF EXISTS formats_doc_events").await?;
//! client.execute("CREATE TABLE formats_doc_events (id UInt64, name String) ENGINE = Memory").await?;
//! for (file, format) in [("events.parquet", Format::Parquet), ("events.csv", Format::Csv)] {
//!     let mut input = source(format, Some(&dir.join(file)), &FileOptions::default(), None, chwire::Limits::default())?;
//!     let mut insert = client.insert_blocks("INSERT INTO formats_doc_events VALUES").await?;
//!     input.bind(&columns_of(insert.header()))?; // the table's columns: text parses to them
//!     while let Some(block) = input.next_block()? {
//!         insert.send(&block).await?;
//!     }
//!     insert.end().await?;
//! }
//! # let rows = client.query("SELECT count() FROM formats_doc_events").fetch_blocks().await?;
//! # assert_eq!(format!("{:?}", rows[0].column_at(0).unwrap().value(0)), "UInt(4)");
//! # client.execute("DROP TABLE formats_doc_events").await?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

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

pub use io::{columns_of, is_broken_pipe, open_file, open_input, open_output, BlockLimits, Input, Output, Sink, Source};
pub use options::FileOptions;
pub use registry::{any_format, input_format, sink, source, source_of, Format};
pub use structure::{check_timezone, parse_structure};
