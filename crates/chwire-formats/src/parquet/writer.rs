//! Writing a Parquet file's columns on several threads: each thread owns a group of root
//! columns and encodes and compresses their pages (parquet's `ArrowColumnWriter`), while the
//! calling thread converts the next block; at the end of a row group the column chunks come
//! back and are appended in schema order. The file is the same whatever the number of
//! threads: the row groups end where the one-thread writer's would (rows, and the bytes of
//! the Arrow data before encoding, as ClickHouse's `output_format_parquet_row_group_size_bytes`
//! counts them), and the chunks are written in column order.
//!
//! Why: encoding and compressing pages is most of a Parquet write, and it is independent per
//! column. Memory holds the row group being encoded (as the one-thread writer) and at most two
//! blocks queued per thread.

use crate::error::guarded;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{FieldRef, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory};
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{ConvertedType, LogicalType};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};
use std::io::Write;
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

type Chunks = Vec<(usize, ArrowColumnChunk)>;

enum Job {
    /// This row group's writers of the thread's leaves, each with its leaf index.
    Start(Vec<(usize, ArrowColumnWriter)>),
    /// The thread's root columns of a batch.
    Columns(Vec<(FieldRef, std::sync::Arc<dyn Array>)>),
    /// End the row group: send the chunks back.
    Close,
}

struct Worker {
    jobs: SyncSender<Job>,
    chunks: Receiver<Result<Chunks, ParquetError>>,
    thread: JoinHandle<()>,
}

impl Worker {
    fn spawn() -> std::io::Result<Self> {
        let (jobs, todo) = sync_channel::<Job>(2);
        let (done, chunks) = sync_channel(1);
        let thread = std::thread::Builder::new().name("chwire-parquet-w".into()).spawn(move || {
            let mut writers: Vec<(usize, ArrowColumnWriter)> = Vec::new();
            let mut failed: Option<ParquetError> = None;
            for job in todo {
                match job {
                    Job::Start(w) => writers = w,
                    Job::Columns(_) if failed.is_some() => {}
                    Job::Columns(columns) => failed = encode(&mut writers, &columns).err(),
                    Job::Close => {
                        let result = match failed.take() {
                            Some(e) => Err(e),
                            None => close(std::mem::take(&mut writers)),
                        };
                        if done.send(result).is_err() {
                            return;
                        }
                    }
                }
            }
        })?;
        Ok(Self { jobs, chunks, thread })
    }
}

/// The leaves of `columns` through their writers, in order; a panic is an error.
fn encode(writers: &mut [(usize, ArrowColumnWriter)], columns: &[(FieldRef, std::sync::Arc<dyn Array>)]) -> Result<(), ParquetError> {
    let mut writers = writers.iter_mut();
    for (field, array) in columns {
        for leaf in compute_leaves(field, array)? {
            let (_, w) = writers.next().ok_or_else(|| ParquetError::General("more leaves than column writers".into()))?;
            guarded(|| Ok(w.write(&leaf))).map_err(|e| ParquetError::External(Box::new(e)))??;
        }
    }
    Ok(())
}

fn close(writers: Vec<(usize, ArrowColumnWriter)>) -> Result<Chunks, ParquetError> {
    writers.into_iter().map(|(leaf, w)| Ok((leaf, w.close()?))).collect()
}

/// `node` with the ENUM logical type on the byte-array leaves that `marks` flags (by leaf
/// index, counted from `next`), everything else as it was.
fn with_enum_leaves(node: TypePtr, marks: &[bool], next: &mut usize) -> Result<TypePtr, ParquetError> {
    let info = node.get_basic_info();
    if node.is_primitive() {
        let marked = marks.get(*next).copied().unwrap_or(false);
        *next += 1;
        if !marked || node.get_physical_type() != parquet::basic::Type::BYTE_ARRAY {
            return Ok(node);
        }
        let mut b = Type::primitive_type_builder(info.name(), parquet::basic::Type::BYTE_ARRAY)
            .with_logical_type(Some(LogicalType::Enum))
            .with_converted_type(ConvertedType::ENUM)
            .with_id(info.has_id().then(|| info.id()));
        if info.has_repetition() {
            b = b.with_repetition(info.repetition());
        }
        return Ok(Arc::new(b.build()?));
    }
    let fields = node.get_fields().iter().map(|f| with_enum_leaves(f.clone(), marks, next)).collect::<Result<Vec<_>, _>>()?;
    let mut b = Type::group_type_builder(info.name())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_converted_type(info.converted_type())
        .with_fields(fields)
        .with_id(info.has_id().then(|| info.id()));
    if info.has_repetition() {
        b = b.with_repetition(info.repetition());
    }
    Ok(Arc::new(b.build()?))
}

/// A Parquet file written by column groups on several threads.
pub(super) struct ParallelWriter<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    max_rows: usize,
    max_bytes: usize,
    threads: usize,
    /// The leaves of each root column (a range of leaf indices).
    leaves: Vec<Range<usize>>,
    /// Per thread, its root columns (started with the first batch, balanced by its sizes).
    groups: Vec<Vec<usize>>,
    workers: Workers,
    /// Rows and Arrow bytes of the row group in progress (whose writers the threads have).
    rows: usize,
    bytes: usize,
    started: bool,
    row_groups: usize,
}

impl<W: Write + Send> ParallelWriter<W> {
    /// A writer on `threads` threads (at most one per root column).
    /// `enum_leaves` marks the Parquet leaves of Enum names (`chwire_arrow::enum_name_leaves`),
    /// which get Parquet's ENUM logical type as ClickHouse writes them.
    pub(super) fn try_new(
        out: W,
        schema: SchemaRef,
        props: WriterProperties,
        threads: usize,
        enum_leaves: &[bool],
    ) -> Result<Self, ParquetError> {
        let max_rows = props.max_row_group_row_count().unwrap_or(usize::MAX).max(1);
        let max_bytes = props.max_row_group_bytes().unwrap_or(usize::MAX).max(1);
        // ArrowWriter sets the file's schema, its Arrow schema metadata and the writer's
        // options exactly as the one-thread path does.
        let mut options = ArrowWriterOptions::new();
        if enum_leaves.contains(&true) {
            let converted = ArrowSchemaConverter::new().with_coerce_types(props.coerce_types()).convert(&schema)?;
            let root = with_enum_leaves(converted.root_schema_ptr(), enum_leaves, &mut 0)?;
            options = options.with_parquet_schema(SchemaDescriptor::new(root));
        }
        let (file, factory) =
            ArrowWriter::try_new_with_options(out, schema.clone(), options.with_properties(props))?.into_serialized_writer()?;
        let descr = file.schema_descr();
        let mut leaves: Vec<Range<usize>> = vec![0..0; schema.fields().len()];
        for leaf in 0..descr.num_columns() {
            let root =
                leaves.get_mut(descr.get_column_root_idx(leaf)).ok_or_else(|| ParquetError::General("a leaf without its root".into()))?;
            *root = if root.end == 0 { leaf..leaf + 1 } else { root.start..leaf + 1 };
        }
        let threads = threads.clamp(1, schema.fields().len().max(1));
        Ok(Self {
            file,
            factory,
            schema,
            max_rows,
            max_bytes,
            threads,
            leaves,
            groups: Vec::new(),
            workers: Workers::default(),
            rows: 0,
            bytes: 0,
            started: false,
            row_groups: 0,
        })
    }

    /// Encode `batch`, ending row groups at the row and byte limits as `ArrowWriter` does.
    pub(super) fn write(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        self.put(batch, batch_bytes(batch))
    }

    /// `batch` of `bytes`; a piece of it counts its share of the bytes by rows (a slice of a
    /// nested array would count all of its children).
    fn put(&mut self, batch: &RecordBatch, bytes: usize) -> Result<(), ParquetError> {
        // A batch that spans several row groups goes in a loop, not by recursion (a row group
        // of one row would nest a call per row); the first piece of a split recurses once.
        let (mut batch, mut bytes) = (batch.clone(), bytes);
        loop {
            let n = batch.num_rows();
            if n == 0 {
                return Ok(());
            }
            let fit = if self.rows + n > self.max_rows {
                Some(self.max_rows - self.rows)
            } else if self.rows > 0 && self.bytes >= self.max_bytes {
                self.flush()?;
                continue;
            } else {
                // The rows that fit, at the average row size of the row group so far.
                match self
                    .bytes
                    .checked_div(self.rows)
                    .filter(|&r| r > 0)
                    .and_then(|per_row| (self.max_bytes - self.bytes).checked_div(per_row))
                {
                    Some(0) => {
                        self.flush()?;
                        continue;
                    }
                    Some(fit) if n > fit => Some(fit),
                    _ => None,
                }
            };
            match fit {
                Some(fit) => {
                    let first = usize::try_from(bytes as u128 * fit as u128 / n as u128).unwrap_or(bytes);
                    self.put(&batch.slice(0, fit), first)?;
                    (batch, bytes) = (batch.slice(fit, n - fit), bytes - first);
                }
                None => return self.add(&batch, bytes),
            }
        }
    }

    /// `batch` (of `bytes`) into the row group in progress, which it fits.
    fn add(&mut self, batch: &RecordBatch, bytes: usize) -> Result<(), ParquetError> {
        let n = batch.num_rows();
        self.start(batch)?;
        for (group, worker) in self.groups.iter().zip(&self.workers.0) {
            let columns =
                group.iter().filter_map(|&r| Some((self.schema.fields().get(r)?.clone(), batch.columns().get(r)?.clone()))).collect();
            worker.jobs.send(Job::Columns(columns)).map_err(|_| gone())?;
        }
        self.rows += n;
        self.bytes = self.bytes.saturating_add(bytes);
        if self.rows >= self.max_rows || self.bytes >= self.max_bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// Give the threads this row group's column writers (and start the threads with the first
    /// batch, its columns spread by size).
    fn start(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        if self.started {
            return Ok(());
        }
        if self.workers.0.is_empty() {
            let sizes: Vec<usize> = batch.columns().iter().map(|c| c.get_array_memory_size()).collect();
            self.groups = super::columns::balance(&sizes, self.threads);
            for _ in &self.groups {
                self.workers.0.push(Worker::spawn().map_err(|e| ParquetError::External(Box::new(e)))?);
            }
        }
        let mut writers: Vec<Option<ArrowColumnWriter>> =
            self.factory.create_column_writers(self.row_groups)?.into_iter().map(Some).collect();
        for (group, worker) in self.groups.iter().zip(&self.workers.0) {
            let mut mine = Vec::new();
            for leaf in group.iter().filter_map(|&r| self.leaves.get(r)).flat_map(Clone::clone) {
                let w =
                    writers.get_mut(leaf).and_then(Option::take).ok_or_else(|| ParquetError::General("a missing column writer".into()))?;
                mine.push((leaf, w));
            }
            worker.jobs.send(Job::Start(mine)).map_err(|_| gone())?;
        }
        self.started = true;
        Ok(())
    }

    /// End the row group in progress: its column chunks, in column order, into the file.
    pub(super) fn flush(&mut self) -> Result<(), ParquetError> {
        if !self.started {
            return Ok(());
        }
        self.started = false;
        self.rows = 0;
        self.bytes = 0;
        for worker in &self.workers.0 {
            worker.jobs.send(Job::Close).map_err(|_| gone())?;
        }
        let mut chunks = Vec::new();
        let mut failed = None;
        for worker in &self.workers.0 {
            match worker.chunks.recv().map_err(|_| gone()) {
                Ok(Ok(c)) => chunks.extend(c),
                Ok(Err(e)) | Err(e) => failed = failed.or(Some(e)),
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        chunks.sort_unstable_by_key(|(leaf, _)| *leaf);
        let mut row_group = self.file.next_row_group()?;
        for (_, chunk) in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        self.row_groups += 1;
        Ok(())
    }

    /// The last row group and the footer; the output back.
    pub(super) fn into_inner(mut self) -> Result<W, ParquetError> {
        self.flush()?;
        drop(std::mem::take(&mut self.workers));
        self.file.into_inner()
    }
}

/// The threads; dropping them closes their job channels, which ends them.
#[derive(Default)]
struct Workers(Vec<Worker>);

impl Drop for Workers {
    fn drop(&mut self) {
        for Worker { jobs, chunks, thread } in self.0.drain(..) {
            drop((jobs, chunks));
            let _ = thread.join();
        }
    }
}

fn gone() -> ParquetError {
    ParquetError::General("a Parquet encoding thread ended early".into())
}

/// The bytes of a batch's Arrow data, what a row group's size is counted in.
fn batch_bytes(batch: &RecordBatch) -> usize {
    batch.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or_else(|_| c.get_array_memory_size())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::columns::tests::sample;

    fn write_with(threads: Option<usize>, props: WriterProperties, pieces: &[RecordBatch]) -> Vec<u8> {
        let schema = pieces[0].schema();
        match threads {
            None => {
                let mut w = ArrowWriter::try_new(Vec::new(), schema, Some(props)).unwrap();
                pieces.iter().for_each(|b| w.write(b).unwrap());
                w.into_inner().unwrap()
            }
            Some(t) => {
                let mut w = ParallelWriter::try_new(Vec::new(), schema, props, t, &[]).unwrap();
                pieces.iter().for_each(|b| w.write(b).unwrap());
                w.into_inner().unwrap()
            }
        }
    }

    fn row_groups(file: Vec<u8>) -> Vec<i64> {
        let r = parquet::file::reader::SerializedFileReader::new(bytes::Bytes::from(file)).unwrap();
        parquet::file::reader::FileReader::metadata(&r).row_groups().iter().map(|g| g.num_rows()).collect()
    }

    #[test]
    fn files_are_the_same_bytes_as_the_one_thread_writer() {
        let batch = sample(5000);
        let pieces: Vec<RecordBatch> = (0..5000).step_by(700).map(|at| batch.slice(at, 700.min(5000 - at))).collect();
        let props = || WriterProperties::builder().set_max_row_group_row_count(Some(1500)).set_max_row_group_bytes(None).build();
        let one = write_with(None, props(), &pieces);
        for t in [1, 2, 3, 5, 8] {
            assert!(write_with(Some(t), props(), &pieces) == one, "{t} threads");
        }
        assert_eq!(row_groups(one), [1500, 1500, 1500, 500]);
    }

    #[test]
    fn a_block_of_many_row_groups_is_split_in_a_loop() {
        // Row groups of one row: a split per row (recursion nested a call per row group and
        // overflowed the stack).
        let batch = RecordBatch::try_from_iter([(
            "n",
            std::sync::Arc::new(arrow_array::Int64Array::from_iter_values(0..20_000)) as std::sync::Arc<dyn Array>,
        )])
        .unwrap();
        let props = WriterProperties::builder().set_max_row_group_row_count(Some(1)).build();
        let groups = row_groups(write_with(Some(2), props, &[batch]));
        assert_eq!(groups.len(), 20_000);
        assert!(groups.iter().all(|&g| g == 1));
    }

    #[test]
    fn row_groups_end_at_the_arrow_bytes_whatever_the_threads() {
        let pieces = vec![sample(700); 8];
        let limit = batch_bytes(&pieces[0]) * 5 / 2;
        let props = || WriterProperties::builder().set_max_row_group_bytes(Some(limit)).build();
        let one = write_with(Some(1), props(), &pieces);
        for t in [2, 4] {
            assert!(write_with(Some(t), props(), &pieces) == one, "{t} threads");
        }
        // 2.5 blocks a row group: the third block of each is split where the bytes run out
        // (at the average row size so far, rounded down as ArrowWriter does).
        let groups = row_groups(one.clone());
        assert_eq!((groups.len(), groups.iter().sum::<i64>()), (4, 5600), "{groups:?}");
        assert!(groups[..3].iter().all(|&g| (1745..=1755).contains(&g)), "{groups:?}");
        let back = parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(bytes::Bytes::from(one), 700).unwrap();
        let back: Vec<RecordBatch> = back.collect::<Result<_, _>>().unwrap();
        assert_eq!(back, pieces);
    }
}
