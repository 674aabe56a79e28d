//! Parquet files: blocks become record batches through `chwire-arrow` and are encoded by
//! parquet's column writers on threads (`writer`); reading, the footer and pages are checked
//! first (`guard`), the columns are read on threads (`columns`) with strings as bytes
//! (`strings`) and INTERVALs as their bytes (`types`), and the ClickHouse types come from
//! the file's schema as ClickHouse 26.9 infers them, geo columns included (`geo`). Memory
//! holds a few blocks (one row group while writing; a few batches per column group while
//! reading).

mod columns;
mod geo;
mod guard;
mod strings;
mod types;
mod writer;

use crate::batches::{seek_file, BatchSource, Batches, SeekFile};
use crate::error::{arrow_error, guarded, invalid, parquet_error};
use crate::io::{Input, Output, Sink, Source};
use crate::options::FileOptions;
use arrow_schema::SchemaRef;
use chwire_arrow::{block_to_batch, clickhouse_type_for_parquet, schema_for};
use chwire_proto::{Block, DataType};
use std::io::{BufWriter, Write};

/// Blocks into a Parquet file.
pub struct ParquetSink {
    out: Option<Output>,
    files: FileOptions,
    schema: Option<SchemaRef>,
    writer: Option<writer::ParallelWriter<BufWriter<Output>>>,
    /// The schema written when Parquet cannot hold the batches' own types
    /// ([`chwire_arrow::parquet_schema`]: timestamps in seconds).
    parquet_schema: Option<SchemaRef>,
}

impl ParquetSink {
    /// A sink writing a Parquet file to `out`, with the mapping, codec and row groups of `files`.
    pub fn new(out: Output, files: &FileOptions) -> ParquetSink {
        ParquetSink { out: Some(out), files: files.clone(), schema: None, writer: None, parquet_schema: None }
    }
}

impl Sink for ParquetSink {
    fn begin(&mut self, header: &[(String, DataType)]) -> crate::Result<()> {
        let schema = schema_for(header, &self.files.arrow).map_err(invalid)?;
        let out = BufWriter::with_capacity(1 << 20, self.out.take().ok_or_else(|| invalid("the writer has begun already"))?);
        let threads = if self.files.parallel_encoding { self.files.threads } else { 1 };
        self.parquet_schema = chwire_arrow::parquet_schema(&schema, self.files.parquet_mapping());
        let written = self.parquet_schema.clone().unwrap_or_else(|| schema.clone());
        check_parquet_types(&written)?;
        self.writer = Some(
            writer::ParallelWriter::try_new(
                out,
                written.clone(),
                self.files.parquet_properties(),
                threads,
                &chwire_arrow::enum_name_leaves(&written, self.files.parquet_mapping()),
            )
            .map_err(parquet_error)?,
        );
        self.schema = Some(schema);
        Ok(())
    }

    fn write(&mut self, block: Block) -> crate::Result<()> {
        let (Some(schema), Some(w)) = (&self.schema, &mut self.writer) else {
            return Err(invalid("a block before the header"));
        };
        let batch = block_to_batch(block, schema, &self.files.arrow).map_err(invalid)?;
        // A Parquet file counts rows in its columns: rows without columns would be lost.
        if batch.num_columns() == 0 && batch.num_rows() > 0 {
            return Err(invalid(format!(
                "a Parquet file cannot hold rows without columns (a block of {} rows has none)",
                batch.num_rows()
            )));
        }
        // Row groups end at the properties' row and byte limits.
        match &self.parquet_schema {
            Some(target) => {
                let batch = chwire_arrow::to_parquet_batch(&batch, target, self.files.parquet_mapping()).map_err(invalid)?;
                w.write(&batch).map_err(parquet_error)
            }
            None => w.write(&batch).map_err(parquet_error),
        }
    }

    fn flush(&mut self) -> crate::Result<()> {
        Ok(())
    }

    fn finish(self: Box<Self>) -> crate::Result<()> {
        if let Some(w) = self.writer {
            w.into_inner().map_err(parquet_error)?.flush()?;
        }
        // No header (a statement without a result): no file.
        Ok(())
    }
}

/// Parquet has no union type (parquet's writer would panic on one): the schema written must
/// have none (`chwire_arrow::parquet_schema` makes a Variant's union a struct of its members).
fn check_parquet_types(schema: &arrow_schema::Schema) -> crate::Result<()> {
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
        Some(f) => Err(crate::Error::unsupported(format!(
            "column {}: Parquet has no union type for its {} values; write Arrow or Native instead",
            f.name(),
            f.metadata().get(chwire_arrow::CLICKHOUSE_TYPE_KEY).map_or("variant", String::as_str)
        ))),
        None => Ok(()),
    }
}

/// The reader of a Parquet file. A dictionary page decoded may not exceed
/// `limits.max_block_bytes`, nor may a page claim more uncompressed.
pub fn source(input: Input, files: &FileOptions, limits: chwire_proto::Limits) -> crate::Result<Box<dyn Source>> {
    let max_body = limits.max_block_bytes as u64;
    let (schema, batches) = match seek_file(input, "Parquet")? {
        SeekFile::Disk(f) => {
            let f = columns::PositionalFile::new(f)?;
            parquet_file(move || Ok(f.clone()), files, max_body)?
        }
        SeekFile::Memory(b) => parquet_file(move || Ok(b.clone()), files, max_body)?,
    };
    Ok(Box::new(BatchSource::new(schema, batches, Some(infer_types))))
}

/// A Parquet file's reader, its footer and pages checked (`parquet_guard`); `open`
/// gives a new handle on the file each time. The columns are read on several threads
/// (`parquet_columns`) when there are cores and columns for it.
fn parquet_file<F: parquet::file::reader::ChunkReader + Send + 'static>(
    open: impl Fn() -> std::io::Result<F>,
    files: &FileOptions,
    max_body: u64,
) -> crate::Result<(SchemaRef, Batches)> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    let f = open()?;
    guard::check_footer(&f)?;
    let metadata = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).map_err(parquet_error)?;
    let metadata = match types::intervals_as_bytes(metadata.metadata()).map_err(parquet_error)? {
        Some(rewritten) => {
            ArrowReaderMetadata::try_new(std::sync::Arc::new(rewritten), ArrowReaderOptions::new()).map_err(parquet_error)?
        }
        None => metadata,
    };
    guarded(|| guard::check_pages(&f, metadata.metadata(), max_body))?;
    // The ClickHouse types come from the file's schema; the reader reads strings as bytes.
    let schema = metadata.schema().clone();
    let metadata = strings::strings_as_bytes(&metadata).unwrap_or(metadata);
    let groups = columns::split(&metadata, files.threads);
    let batch_size = files.block_limits.rows;
    if groups.len() > 1 {
        let r = columns::ParallelColumns::start(open, metadata, groups, batch_size)?;
        return Ok((schema, Box::new(r)));
    }
    let r = ParquetRecordBatchReaderBuilder::new_with_metadata(f, metadata).with_batch_size(batch_size).build().map_err(parquet_error)?;
    Ok((schema, Box::new(r.map(|b| b.map_err(arrow_error)))))
}

/// The ClickHouse types of a Parquet file's columns, as ClickHouse 26.9 infers them.
/// Geo columns (WKB strings named in the file's `geo` metadata) get their geo type, as
/// ClickHouse 26.9 reads them (`parquet_geo`).
fn infer_types(schema: &SchemaRef) -> chwire_arrow::Result<Vec<(String, DataType)>> {
    let geo = geo::geo_columns(schema.metadata());
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::RecordBatch;
    use arrow_schema::{Field, Schema, UnionFields, UnionMode};
    use chwire_arrow::{batch_into_block_inferred, ArrowOptions};

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
