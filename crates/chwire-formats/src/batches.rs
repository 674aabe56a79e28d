//! Blocks from record batches: the reader half shared by the Arrow IPC and Parquet formats.
//! Their readers yield record batches; [`BatchSource`] converts each into a block through
//! `chwire-arrow` (which owns every conversion), to the bound target's types, the types a
//! Parquet file's schema infers, or the Arrow types' own.

use crate::error::{guarded, invalid};
use crate::io::{open_file, Input, Source};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use chwire_arrow::{batch_into_block, batch_into_block_inferred};
use chwire_proto::{Block, DataType};

/// Record batches of one of the readers.
pub type Batches = Box<dyn Iterator<Item = crate::Result<RecordBatch>>>;

/// The ClickHouse types of a file's columns, inferred from its schema (Parquet's rules).
pub type InferTypes = fn(&SchemaRef) -> chwire_arrow::Result<Vec<(String, DataType)>>;

/// Blocks from an Arrow IPC file or stream, or a Parquet file.
pub struct BatchSource {
    schema: SchemaRef,
    batches: Batches,
    target: Option<Vec<(String, DataType)>>,
    /// How a Parquet file's types are inferred (else the Arrow types' own mapping).
    infer: Option<InferTypes>,
    /// Those types, inferred once (at the first block) when no target is bound.
    inferred: Option<Vec<(String, DataType)>>,
    skip: u64,
}

impl BatchSource {
    /// The blocks of `batches` of `schema`; `infer` gives the ClickHouse types when no target
    /// is bound (else each batch's Arrow types map on their own).
    pub fn new(schema: SchemaRef, batches: Batches, infer: Option<InferTypes>) -> BatchSource {
        BatchSource { schema, batches, target: None, infer, inferred: None, skip: 0 }
    }
}

/// A file these formats seek in: on disk, or in memory.
pub enum SeekFile {
    Disk(std::fs::File),
    Memory(bytes::Bytes),
}

/// `input` as a file to seek in: stdin cannot be (the format's index is at the end).
pub fn seek_file(input: Input, format: &str) -> crate::Result<SeekFile> {
    match input {
        Input::File(p) => Ok(SeekFile::Disk(open_file(&p)?)),
        Input::Bytes(b) => Ok(SeekFile::Memory(b)),
        Input::Stdin => Err(crate::Error::options(format!(
            "{format} input is read from a file (--input FILE): its index is at the end; ArrowStream reads stdin"
        ))),
    }
}

impl Source for BatchSource {
    fn names(&mut self) -> crate::Result<Option<Vec<String>>> {
        Ok(Some(self.schema.fields().iter().map(|f| f.name().clone()).collect()))
    }

    fn bind(&mut self, target: &[(String, DataType)]) -> crate::Result<()> {
        self.target = Some(target.to_vec());
        Ok(())
    }

    fn skip_rows(&mut self, rows: u64) -> crate::Result<()> {
        self.skip = rows;
        Ok(())
    }

    fn next_block(&mut self) -> crate::Result<Option<Block>> {
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
            if let (Some(infer), None, None) = (self.infer, &self.target, &self.inferred) {
                self.inferred = Some(infer(&self.schema).map_err(invalid)?);
            }
            let block = match self.target.as_ref().or(self.inferred.as_ref()) {
                Some(types) => batch_into_block(batch, types),
                None => batch_into_block_inferred(batch),
            };
            return block.map(Some).map_err(invalid);
        }
    }

    fn columns(&self) -> Option<Vec<(String, DataType)>> {
        match self.target.as_ref().or(self.inferred.as_ref()) {
            Some(types) => Some(types.clone()),
            None => match self.infer {
                Some(infer) => infer(&self.schema).ok(),
                None => self.schema.fields().iter().map(|f| Some((f.name().clone(), chwire_arrow::clickhouse_type_for(f).ok()?))).collect(),
            },
        }
    }
}
