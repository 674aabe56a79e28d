//! Arrow IPC (file and stream) and Parquet files: blocks become record batches through
//! `chwire-arrow` (which owns every conversion), and the batches go through arrow-ipc's
//! writers and readers, and parquet's column writers and `ParquetRecordBatchReader` (on threads:
//! `parquet_writer`, `parquet_columns`). Memory holds a few blocks (one Parquet row group while
//! writing; a few batches per column group while reading).

use super::ipc_guard::{check_file, guarded, CheckedStream};
use super::options::FileOptions;
use super::{Format, Input, Output, Sink, Source};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use chwire::{Block, DataType};
use chwire_arrow::{
    batch_into_block, batch_into_block_inferred, block_to_batch, clickhouse_type_for_parquet, schema_for, ArrowOptions, DictionaryUnifier,
};
use std::io::{BufReader, BufWriter, Seek, Write};

fn invalid(e: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(e.to_string())
}

pub(super) fn parquet_error(e: parquet::errors::ParquetError) -> chwire::Error {
    match e {
        // An I/O error, or one of ours passed through parquet-rs (e.g. from an encoding thread).
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => (*io).into(),
            Err(other) => match other.downcast::<chwire::Error>() {
                Ok(ours) => *ours,
                Err(other) => invalid(unread_codec(format!("Parquet: {other}"))),
            },
        },
        e => invalid(unread_codec(format!("Parquet: {e}"))),
    }
}

pub(super) fn arrow_error(e: arrow_schema::ArrowError) -> chwire::Error {
    match e {
        // Input that is malformed or ends early is bad input (exit code 2), not an I/O failure.
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::InvalidData => invalid(io.to_string()),
        arrow_schema::ArrowError::IoError(_, io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            invalid(format!("malformed Arrow input: the input ends early (truncated): {io}"))
        }
        arrow_schema::ArrowError::IoError(_, io) => io.into(),
        e => invalid(unread_codec(format!("Arrow: {e}"))),
    }
}

/// parquet-rs' message for a codec left out of the build, said as what it means: chwire reads
/// ZSTD, LZ4, Snappy and uncompressed Parquet; GZIP and BROTLI decompress without a bound on
/// their output in parquet-rs (a small page could claim gigabytes), so they are not built in.
fn unread_codec(message: String) -> String {
    let codec = ["flate2", "brotli", "lzo"].into_iter().find(|c| message.contains(&format!("Disabled feature at compile time: {c}")));
    match codec {
        Some(c) => format!(
            "the Parquet file is compressed with {}, which chwire does not read (it reads ZSTD, LZ4, Snappy and uncompressed \
             files); rewrite it, e.g. pyarrow.parquet.write_table(pyarrow.parquet.read_table(f), g, compression='zstd')",
            match c {
                "flate2" => "GZIP",
                "brotli" => "BROTLI",
                _ => "LZO",
            }
        ),
        None => message,
    }
}

enum Writer {
    File(arrow_ipc::writer::FileWriter<BufWriter<Output>>),
    Stream(arrow_ipc::writer::StreamWriter<BufWriter<Output>>),
    Parquet(super::parquet_writer::ParallelWriter<BufWriter<Output>>),
}

/// Blocks into an Arrow IPC file or stream, or a Parquet file.
struct ArrowSink {
    format: Format,
    out: Option<Output>,
    files: FileOptions,
    schema: Option<SchemaRef>,
    writer: Option<Writer>,
    /// Arrow files: one dictionary per LowCardinality column across blocks (written as deltas).
    dictionaries: DictionaryUnifier,
    /// Parquet: the schema written when Parquet cannot hold the batches' own types
    /// ([`chwire_arrow::parquet_schema`]: timestamps in seconds).
    parquet_schema: Option<SchemaRef>,
}

pub fn sink(format: Format, out: Output, files: &FileOptions) -> chwire::Result<Box<dyn Sink>> {
    Ok(Box::new(ArrowSink {
        format,
        out: Some(out),
        files: files.clone(),
        schema: None,
        writer: None,
        dictionaries: DictionaryUnifier::new(),
        parquet_schema: None,
    }))
}

impl Sink for ArrowSink {
    fn begin(&mut self, header: &[(String, DataType)]) -> chwire::Result<()> {
        let schema = schema_for(header, &self.files.arrow).map_err(invalid)?;
        let out = BufWriter::with_capacity(1 << 20, self.out.take().ok_or_else(|| invalid("the writer has begun already"))?);
        let ipc_codec = match (&self.files.ipc_compression, self.format) {
            (Err(why), Format::Arrow | Format::ArrowStream) => return Err(invalid(why)),
            (c, _) => c.clone().unwrap_or(None),
        };
        // A file takes one dictionary per field, grown by deltas (see `DictionaryUnifier`).
        let ipc = arrow_ipc::writer::IpcWriteOptions::default()
            .try_with_compression(ipc_codec)
            .map_err(arrow_error)?
            .with_dictionary_handling(arrow_ipc::writer::DictionaryHandling::Delta);
        self.writer = Some(match self.format {
            Format::Arrow => Writer::File(arrow_ipc::writer::FileWriter::try_new_with_options(out, &schema, ipc).map_err(arrow_error)?),
            Format::ArrowStream => {
                Writer::Stream(arrow_ipc::writer::StreamWriter::try_new_with_options(out, &schema, ipc).map_err(arrow_error)?)
            }
            _ => {
                check_parquet_types(&schema)?;
                let threads = if self.files.parallel_encoding { self.files.threads } else { 1 };
                self.parquet_schema = chwire_arrow::parquet_schema(&schema, self.files.parquet_mapping());
                let written = self.parquet_schema.clone().unwrap_or_else(|| schema.clone());
                Writer::Parquet(
                    super::parquet_writer::ParallelWriter::try_new(
                        out,
                        written.clone(),
                        self.files.parquet_properties(),
                        threads,
                        &chwire_arrow::enum_name_leaves(&written, self.files.parquet_mapping()),
                    )
                    .map_err(parquet_error)?,
                )
            }
        });
        self.schema = Some(schema);
        Ok(())
    }

    fn write(&mut self, block: Block) -> chwire::Result<()> {
        let (Some(schema), Some(writer)) = (&self.schema, &mut self.writer) else {
            return Err(invalid("a block before the header"));
        };
        let batch = block_to_batch(block, schema, &self.files.arrow).map_err(invalid)?;
        match writer {
            Writer::File(w) => w.write(&self.dictionaries.unify(batch).map_err(invalid)?).map_err(arrow_error),
            Writer::Stream(w) => w.write(&batch).map_err(arrow_error),
            // A Parquet file counts rows in its columns: rows without columns would be lost.
            Writer::Parquet(_) if batch.num_columns() == 0 && batch.num_rows() > 0 => {
                Err(invalid(format!("a Parquet file cannot hold rows without columns (a block of {} rows has none)", batch.num_rows())))
            }
            // Row groups end at the properties' row and byte limits.
            Writer::Parquet(w) => match &self.parquet_schema {
                Some(target) => {
                    let batch = chwire_arrow::to_parquet_batch(&batch, target, self.files.parquet_mapping()).map_err(invalid)?;
                    w.write(&batch).map_err(parquet_error)
                }
                None => w.write(&batch).map_err(parquet_error),
            },
        }
    }

    fn flush(&mut self) -> chwire::Result<()> {
        match &mut self.writer {
            Some(Writer::Stream(w)) => w.flush().map_err(arrow_error),
            _ => Ok(()),
        }
    }

    fn finish(self: Box<Self>) -> chwire::Result<()> {
        match self.writer {
            Some(Writer::File(mut w)) => {
                w.finish().map_err(arrow_error)?;
                w.into_inner().map_err(arrow_error)?.flush()?;
            }
            Some(Writer::Stream(mut w)) => {
                w.finish().map_err(arrow_error)?;
                w.into_inner().map_err(arrow_error)?.flush()?;
            }
            Some(Writer::Parquet(w)) => {
                w.into_inner().map_err(parquet_error)?.flush()?;
            }
            // No header (a statement without a result): no file.
            None => {}
        }
        Ok(())
    }
}

/// Parquet has no union type (parquet's writer would panic on one): a Variant column, which
/// both mappings write as a dense union, cannot go to Parquet (nor can ClickHouse 26.9 write it).
fn check_parquet_types(schema: &arrow_schema::Schema) -> chwire::Result<()> {
    use arrow_schema::DataType as A;
    fn has_union(t: &A) -> bool {
        match t {
            A::Union(..) => true,
            A::List(f) | A::LargeList(f) | A::FixedSizeList(f, _) | A::Map(f, _) | A::ListView(f) | A::LargeListView(f) => {
                has_union(f.data_type())
            }
            A::Struct(fields) => fields.iter().any(|f| has_union(f.data_type())),
            A::Dictionary(_, v) => has_union(v),
            _ => false,
        }
    }
    match schema.fields().iter().find(|f| has_union(f.data_type())) {
        Some(f) => Err(invalid(format!(
            "column {}: Parquet has no union type for its {} values; write Arrow or Native instead",
            f.name(),
            f.metadata().get(chwire_arrow::CLICKHOUSE_TYPE_KEY).map_or("variant", String::as_str)
        ))),
        None => Ok(()),
    }
}

/// Record batches of one of the three readers.
type Batches = Box<dyn Iterator<Item = chwire::Result<RecordBatch>>>;

/// Blocks from an Arrow IPC file or stream, or a Parquet file.
struct ArrowSource {
    schema: SchemaRef,
    batches: Batches,
    target: Option<Vec<(String, DataType)>>,
    /// Types are inferred as from a Parquet file (its JSON logical type is `JSON`).
    parquet: bool,
    /// Those types, inferred once (at the first block) when no target is bound.
    parquet_types: Option<Vec<(String, DataType)>>,
    skip: u64,
}

/// A file these formats seek in: on disk, or in memory.
enum SeekFile {
    Disk(std::fs::File),
    Memory(bytes::Bytes),
}

/// The reader of an Arrow IPC file or stream or a Parquet file. A message body, and the
/// decompressed buffers of an Arrow message, or a Parquet dictionary decoded, may not exceed
/// `limits.max_block_bytes`.
pub fn source(format: Format, input: Input, files: &FileOptions, limits: chwire::Limits) -> chwire::Result<Box<dyn Source>> {
    let max_body = limits.max_block_bytes as u64;
    let file = |input: Input| -> chwire::Result<SeekFile> {
        match input {
            Input::File(p) => Ok(SeekFile::Disk(super::open_file(&p)?)),
            Input::Bytes(b) => Ok(SeekFile::Memory(b)),
            Input::Stdin => {
                Err(invalid(format!("{format} input is read from a file (--input FILE): its index is at the end; ArrowStream reads stdin")))
            }
        }
    };
    let (schema, batches): (SchemaRef, Batches) = match format {
        Format::Arrow => match file(input)? {
            SeekFile::Disk(f) => arrow_file(f, max_body)?,
            SeekFile::Memory(b) => arrow_file(std::io::Cursor::new(b), max_body)?,
        },
        Format::ArrowStream => {
            let input = CheckedStream::new(super::open_input(input)?, max_body);
            let (schema, r) = guarded(|| super::ipc_read::stream(BufReader::with_capacity(1 << 20, input)).map_err(arrow_error))?;
            (schema, Box::new(r.map(|b| b.map_err(arrow_error))))
        }
        _ => match file(input)? {
            SeekFile::Disk(f) => {
                let f = super::parquet_columns::PositionalFile::new(f)?;
                parquet_file(move || Ok(f.clone()), files, max_body)?
            }
            SeekFile::Memory(b) => parquet_file(move || Ok(b.clone()), files, max_body)?,
        },
    };
    let parquet = !matches!(format, Format::Arrow | Format::ArrowStream);
    Ok(Box::new(ArrowSource { schema, batches, target: None, parquet, parquet_types: None, skip: 0 }))
}

fn arrow_file<F: std::io::Read + Seek + 'static>(mut f: F, max_body: u64) -> chwire::Result<(SchemaRef, Batches)> {
    check_file(&mut f, max_body)?;
    f.rewind()?;
    let (schema, r) = guarded(|| super::ipc_read::file(BufReader::new(f)).map_err(arrow_error))?;
    Ok((schema, Box::new(r.map(|b| b.map_err(arrow_error)))))
}

/// A Parquet file's reader, its footer and pages checked (`parquet_guard`); `open`
/// gives a new handle on the file each time. The columns are read on several threads
/// (`parquet_columns`) when there are cores and columns for it.
fn parquet_file<F: parquet::file::reader::ChunkReader + Send + 'static>(
    open: impl Fn() -> std::io::Result<F>,
    files: &FileOptions,
    max_body: u64,
) -> chwire::Result<(SchemaRef, Batches)> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    let f = open()?;
    super::parquet_guard::check_footer(&f)?;
    let metadata = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).map_err(parquet_error)?;
    let metadata = match super::parquet_types::intervals_as_bytes(metadata.metadata()).map_err(parquet_error)? {
        Some(rewritten) => {
            ArrowReaderMetadata::try_new(std::sync::Arc::new(rewritten), ArrowReaderOptions::new()).map_err(parquet_error)?
        }
        None => metadata,
    };
    guarded(|| super::parquet_guard::check_pages(&f, metadata.metadata(), max_body))?;
    // The ClickHouse types come from the file's schema; the reader reads strings as bytes.
    let schema = metadata.schema().clone();
    let metadata = super::parquet_strings::strings_as_bytes(&metadata).unwrap_or(metadata);
    let groups = super::parquet_columns::split(&metadata, files.threads);
    let batch_size = files.block_limits.rows;
    if groups.len() > 1 {
        let r = super::parquet_columns::ParallelColumns::start(open, metadata, groups, batch_size)?;
        return Ok((schema, Box::new(r)));
    }
    let r = ParquetRecordBatchReaderBuilder::new_with_metadata(f, metadata).with_batch_size(batch_size).build().map_err(parquet_error)?;
    Ok((schema, Box::new(r.map(|b| b.map_err(arrow_error)))))
}

/// The ClickHouse types of a Parquet file's columns, as ClickHouse 26.9 infers them.
/// Geo columns (WKB strings named in the file's `geo` metadata) get their geo type, as
/// ClickHouse 26.9 reads them (`parquet_geo`).
fn parquet_types(schema: &SchemaRef) -> chwire_arrow::Result<Vec<(String, DataType)>> {
    let geo = super::parquet_geo::geo_columns(schema.metadata());
    schema
        .fields()
        .iter()
        .map(|f| {
            let ty = clickhouse_type_for_parquet(f).map_err(|e| e.in_column(f.name()))?;
            let ty = match (geo.get(f.name()), &ty) {
                (Some(kind), DataType::String) => DataType::Geo(*kind),
                (Some(kind), DataType::Nullable(inner)) if **inner == DataType::String => DataType::Geo(*kind),
                _ => ty,
            };
            Ok((f.name().clone(), ty))
        })
        .collect()
}

impl Source for ArrowSource {
    fn names(&mut self) -> chwire::Result<Option<Vec<String>>> {
        Ok(Some(self.schema.fields().iter().map(|f| f.name().clone()).collect()))
    }

    fn bind(&mut self, target: &[(String, DataType)]) -> chwire::Result<()> {
        self.target = Some(target.to_vec());
        Ok(())
    }

    fn skip_rows(&mut self, rows: u64) -> chwire::Result<()> {
        self.skip = rows;
        Ok(())
    }

    fn next_block(&mut self) -> chwire::Result<Option<Block>> {
        loop {
            let batches = &mut self.batches;
            let Some(batch) = guarded(|| batches.next().transpose())? else { return Ok(None) };
            let rows = batch.num_rows() as u64;
            let batch = match self.skip {
                0 => batch,
                s if s >= rows => {
                    self.skip -= rows;
                    continue;
                }
                s => {
                    self.skip = 0;
                    batch.slice(s as usize, (rows - s) as usize)
                }
            };
            if batch.num_rows() == 0 {
                continue;
            }
            if self.parquet && self.target.is_none() && self.parquet_types.is_none() {
                self.parquet_types = Some(parquet_types(&self.schema).map_err(invalid)?);
            }
            let block = match self.target.as_ref().or(self.parquet_types.as_ref()) {
                Some(types) => batch_into_block(batch, types),
                None => batch_into_block_inferred(batch),
            };
            return block.map(Some).map_err(invalid);
        }
    }

    fn columns(&self) -> Option<Vec<(String, DataType)>> {
        match self.target.as_ref().or(self.parquet_types.as_ref()) {
            Some(types) => Some(types.clone()),
            None if self.parquet => parquet_types(&self.schema).ok(),
            None => self.schema.fields().iter().map(|f| Some((f.name().clone(), chwire_arrow::clickhouse_type_for(f).ok()?))).collect(),
        }
    }
}

/// The Arrow options of `--arrow-types`, and the default zone.
pub fn arrow_options(mapping: &str, tz: Option<&str>) -> ArrowOptions {
    let mut o = if mapping == "clickhouse" { ArrowOptions::clickhouse() } else { ArrowOptions::rich() };
    o.default_timezone = tz.map(str::to_string);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{Field, Schema, UnionFields, UnionMode};

    #[test]
    fn our_errors_come_back_through_parquet_as_they_were() {
        let ours = chwire::Error::invalid_input("malformed Parquet input: x");
        let back = parquet_error(parquet::errors::ParquetError::External(Box::new(ours)));
        assert_eq!(back.to_string(), chwire::Error::invalid_input("malformed Parquet input: x").to_string());
        let io = parquet_error(parquet::errors::ParquetError::External(Box::new(std::io::Error::other("disk"))));
        assert!(matches!(io.kind(), chwire::ErrorKind::Io(_)), "{io:?}");
        let general = parquet_error(parquet::errors::ParquetError::General("g".into()));
        assert!(general.to_string().ends_with("Parquet: Parquet error: g"), "{general}");
    }

    #[test]
    fn parquet_refuses_unions_anywhere() {
        let union = arrow_schema::DataType::Union(
            UnionFields::try_new(vec![0], vec![Field::new("u", arrow_schema::DataType::UInt64, true)]).unwrap(),
            UnionMode::Dense,
        );
        let nested = arrow_schema::DataType::List(Field::new("item", union.clone(), true).into());
        for t in [union, nested] {
            let err = check_parquet_types(&Schema::new(vec![Field::new("v", t, true)])).unwrap_err();
            assert!(err.to_string().contains("column v: Parquet has no union type"), "{err}");
        }
        assert!(check_parquet_types(&Schema::new(vec![Field::new("x", arrow_schema::DataType::Utf8, false)])).is_ok());
    }

    /// Blocks of a LowCardinality column with different dictionaries go to one Arrow file
    /// (one dictionary per field, grown by deltas) and read back to the same values.
    #[test]
    fn arrow_files_take_blocks_with_different_dictionaries() {
        #[derive(Clone, Default)]
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let csv = "a,x\nb,\\N\nc,y\na,\\N\nd,z\nb,x\n";
        let header = super::super::parse_structure("lc LowCardinality(String), n LowCardinality(Nullable(String))").unwrap();
        let files = FileOptions { block_limits: super::super::BlockLimits { rows: 2, bytes: 1 << 20 }, ..FileOptions::default() };
        let read = |format: Format, data: Vec<u8>| -> Vec<String> {
            let mut src = super::super::source_of(format, Input::Bytes(data.into()), &files, None, chwire::Limits::default()).unwrap();
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
            super::super::source_of(Format::Csv, Input::Bytes(csv.as_bytes().to_vec().into()), &files, None, chwire::Limits::default())
                .unwrap();
        src.bind(&header).unwrap();
        while let Some(b) = src.next_block().unwrap() {
            blocks.push(b);
        }
        assert_eq!(blocks.len(), 3);
        let out = Shared::default();
        let mut sink = sink(Format::Arrow, Box::new(out.clone()), &files).unwrap();
        sink.begin(&header).unwrap();
        for b in blocks {
            sink.write(b).unwrap();
        }
        sink.finish().unwrap();
        let file = out.0.lock().unwrap().clone();
        assert_eq!(read(Format::Arrow, file), read(Format::Csv, csv.as_bytes().to_vec()));
    }

    /// UUID columns carry Parquet's UUID logical type and come back as UUID (as from
    /// ClickHouse's own Parquet files), which needs parquet's canonical extension types.
    #[test]
    fn uuid_columns_have_the_parquet_logical_type() {
        use arrow_array::{ArrayRef, FixedSizeBinaryArray};
        let opts = ArrowOptions::rich();
        let schema = schema_for(&[("u".to_string(), DataType::Uuid)], &opts).unwrap();
        let column: ArrayRef = std::sync::Arc::new(FixedSizeBinaryArray::try_from_iter([[7u8; 16]].into_iter()).unwrap());
        let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
        // A file as ClickHouse writes it: no Arrow schema, only the Parquet types.
        let props = parquet::file::properties::WriterProperties::builder().build();
        let mut w = parquet::arrow::ArrowWriter::try_new(Vec::new(), schema, Some(props)).unwrap();
        w.write(&batch).unwrap();
        let bytes = bytes::Bytes::from(w.into_inner().unwrap());
        let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new_with_options(
            bytes,
            parquet::arrow::arrow_reader::ArrowReaderOptions::new().with_skip_arrow_metadata(true),
        )
        .unwrap();
        let column = builder.parquet_schema().column(0);
        assert_eq!(column.logical_type_ref(), Some(&parquet::basic::LogicalType::Uuid));
        let read = builder.build().unwrap().next().unwrap().unwrap();
        assert_eq!(batch_into_block_inferred(read).unwrap().column("u").unwrap().data_type(), &DataType::Uuid);
    }
}
