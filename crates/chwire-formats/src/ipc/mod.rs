//! Arrow IPC files (`Arrow`) and streams (`ArrowStream`): blocks become record batches through
//! `chwire-arrow` and go through arrow-ipc's writers; reading, every length is checked first
//! (`guard`) and the batches are decoded against the schema with utf8 read as bytes
//! (`read`), then become blocks in `crate::batches`.

mod guard;
mod read;

use guard::{check_file, CheckedStream};

use crate::batches::{seek_file, BatchSource, Batches, SeekFile};
use crate::error::{arrow_error, guarded, invalid};
use crate::io::{open_input, Input, Output, Sink, Source};
use crate::options::FileOptions;
use arrow_ipc::writer::{DictionaryHandling, FileWriter, IpcWriteOptions, StreamWriter};
use arrow_schema::SchemaRef;
use chwire_arrow::{block_to_batch, schema_for, DictionaryUnifier};
use chwire_proto::{Block, DataType};
use std::io::{BufReader, BufWriter, Seek, Write};

/// An IPC file (random access: a footer indexes the batches) or stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpcKind {
    /// An Arrow IPC file (`Arrow`): a footer indexes the batches.
    File,
    /// An Arrow IPC stream (`ArrowStream`).
    Stream,
}

enum Writer {
    File(FileWriter<BufWriter<Output>>),
    Stream(StreamWriter<BufWriter<Output>>),
}

/// Blocks into an Arrow IPC file or stream.
pub struct IpcSink {
    kind: IpcKind,
    out: Option<Output>,
    files: FileOptions,
    schema: Option<SchemaRef>,
    writer: Option<Writer>,
    /// Arrow files: one dictionary per LowCardinality column across blocks (written as deltas).
    dictionaries: DictionaryUnifier,
}

impl IpcSink {
    /// A sink of `kind` writing to `out`, with the Arrow mapping and IPC compression of `files`.
    pub fn new(kind: IpcKind, out: Output, files: &FileOptions) -> IpcSink {
        IpcSink { kind, out: Some(out), files: files.clone(), schema: None, writer: None, dictionaries: DictionaryUnifier::new() }
    }
}

impl Sink for IpcSink {
    fn begin(&mut self, header: &[(String, DataType)]) -> crate::Result<()> {
        let schema = schema_for(header, &self.files.arrow).map_err(invalid)?;
        let out = BufWriter::with_capacity(1 << 20, self.out.take().ok_or_else(|| invalid("the writer has begun already"))?);
        let codec = self.files.ipc_compression.clone().map_err(invalid)?;
        // A file takes one dictionary per field, grown by deltas (see `DictionaryUnifier`).
        let ipc = IpcWriteOptions::default()
            .try_with_compression(codec)
            .map_err(arrow_error)?
            .with_dictionary_handling(DictionaryHandling::Delta);
        self.writer = Some(match self.kind {
            IpcKind::File => Writer::File(FileWriter::try_new_with_options(out, &schema, ipc).map_err(arrow_error)?),
            IpcKind::Stream => Writer::Stream(StreamWriter::try_new_with_options(out, &schema, ipc).map_err(arrow_error)?),
        });
        self.schema = Some(schema);
        Ok(())
    }

    fn write(&mut self, block: Block) -> crate::Result<()> {
        let (Some(schema), Some(writer)) = (&self.schema, &mut self.writer) else {
            return Err(invalid("a block before the header"));
        };
        let batch = block_to_batch(block, schema, &self.files.arrow).map_err(invalid)?;
        match writer {
            Writer::File(w) => w.write(&self.dictionaries.unify(batch).map_err(invalid)?).map_err(arrow_error),
            Writer::Stream(w) => w.write(&batch).map_err(arrow_error),
        }
    }

    fn flush(&mut self) -> crate::Result<()> {
        match &mut self.writer {
            Some(Writer::Stream(w)) => w.flush().map_err(arrow_error),
            _ => Ok(()),
        }
    }

    fn finish(self: Box<Self>) -> crate::Result<()> {
        match self.writer {
            Some(Writer::File(mut w)) => {
                w.finish().map_err(arrow_error)?;
                w.into_inner().map_err(arrow_error)?.flush()?;
            }
            Some(Writer::Stream(mut w)) => {
                w.finish().map_err(arrow_error)?;
                w.into_inner().map_err(arrow_error)?.flush()?;
            }
            // No header (a statement without a result): no file.
            None => {}
        }
        Ok(())
    }
}

/// The reader of an Arrow IPC file. A message body, and the decompressed buffers of a
/// message, may not exceed `limits.max_block_bytes`.
pub fn file_source(input: Input, limits: chwire_proto::Limits) -> crate::Result<Box<dyn Source>> {
    let max_body = limits.max_block_bytes as u64;
    let (schema, batches) = match seek_file(input, "Arrow")? {
        SeekFile::Disk(f) => arrow_file(f, max_body)?,
        SeekFile::Memory(b) => arrow_file(std::io::Cursor::new(b), max_body)?,
    };
    Ok(Box::new(BatchSource::new(schema, batches, None)))
}

/// The reader of an Arrow IPC stream (a file or stdin), with the limits of [`file_source`].
pub fn stream_source(input: Input, limits: chwire_proto::Limits) -> crate::Result<Box<dyn Source>> {
    let input = CheckedStream::new(open_input(input)?, limits.max_block_bytes as u64);
    let (schema, r) = guarded(|| read::stream(BufReader::with_capacity(1 << 20, input)).map_err(arrow_error))?;
    Ok(Box::new(BatchSource::new(schema, Box::new(r.map(|b| b.map_err(arrow_error))), None)))
}

fn arrow_file<F: std::io::Read + Seek + 'static>(mut f: F, max_body: u64) -> crate::Result<(SchemaRef, Batches)> {
    check_file(&mut f, max_body)?;
    f.rewind()?;
    let (schema, r) = guarded(|| read::file(BufReader::new(f)).map_err(arrow_error))?;
    Ok((schema, Box::new(r.map(|b| b.map_err(arrow_error)))))
}
