//! Reading a Parquet file's columns on several threads: the root columns are split into groups
//! of about equal uncompressed size, each group is read by its own `ParquetRecordBatchReader`
//! (a projection of the same file and metadata) on its own thread, and the batches are zipped
//! back into the file's schema, in order. Every reader yields batches of the same row counts
//! (the same batch size over the same row groups), which is checked.
//!
//! Why: decompressing and decoding pages is most of a Parquet read (zstd alone is half of it),
//! and it is independent per column. Memory stays bounded: each thread holds the batch it is
//! decoding, one in its channel and one waiting to enter it, beside the batch being zipped.

use super::guard::malformed;
use crate::error::guarded;
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::file::reader::ChunkReader;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

/// The root columns split into at most `groups` groups of about equal uncompressed size.
pub(super) fn split(metadata: &ArrowReaderMetadata, groups: usize) -> Vec<Vec<usize>> {
    let parquet = metadata.metadata();
    let schema = parquet.file_metadata().schema_descr();
    let mut sizes = vec![0usize; schema.root_schema().get_fields().len()];
    for rg in parquet.row_groups() {
        for (leaf, chunk) in rg.columns().iter().enumerate() {
            if let Some(size) = sizes.get_mut(schema.get_column_root_idx(leaf)) {
                *size = size.saturating_add(usize::try_from(chunk.uncompressed_size()).unwrap_or(0));
            }
        }
    }
    balance(&sizes, groups)
}

/// Column indices split into at most `groups` groups of about equal `sizes` (the largest
/// first, each to the lightest group), each group in column order, none empty.
pub(super) fn balance(sizes: &[usize], groups: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(sizes.get(c).copied().unwrap_or(0)));
    let mut out: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); groups.clamp(1, sizes.len().max(1))];
    for c in order {
        if let Some(lightest) = out.iter_mut().min_by_key(|(load, _)| *load) {
            lightest.0 = lightest.0.saturating_add(sizes.get(c).copied().unwrap_or(0).max(1));
            lightest.1.push(c);
        }
    }
    out.into_iter()
        .filter(|(_, g)| !g.is_empty())
        .map(|(_, mut g)| {
            g.sort_unstable();
            g
        })
        .collect()
}

/// Batches of one group of columns, from its thread.
struct Group {
    roots: Vec<usize>,
    batches: Receiver<crate::Result<RecordBatch>>,
}

/// The batches of a Parquet file read by column groups on several threads.
pub(super) struct ParallelColumns {
    schema: SchemaRef,
    groups: Vec<Group>,
    threads: Vec<JoinHandle<()>>,
}

impl ParallelColumns {
    /// Start one thread per group of `groups` (from [`split`]), each on its own handle of the
    /// file from `open`.
    pub(super) fn start<F: ChunkReader + Send + 'static>(
        open: impl Fn() -> std::io::Result<F>,
        metadata: ArrowReaderMetadata,
        groups: Vec<Vec<usize>>,
        batch_size: usize,
    ) -> crate::Result<Self> {
        let schema = metadata.schema().clone();
        let mut started = Self { schema, groups: Vec::new(), threads: Vec::new() };
        for roots in groups {
            let file = open()?;
            let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata.clone());
            let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
            let mut reader = builder.with_projection(mask).with_batch_size(batch_size).build().map_err(crate::error::parquet_error)?;
            let (tx, rx) = sync_channel(1);
            let thread = std::thread::Builder::new().name("chwire-parquet".into()).spawn(move || loop {
                let next = guarded(|| reader.next().transpose().map_err(crate::error::arrow_error));
                let last = !matches!(next, Ok(Some(_)));
                let Some(item) = next.transpose() else { return };
                if tx.send(item).is_err() || last {
                    return;
                }
            })?;
            started.threads.push(thread);
            started.groups.push(Group { roots, batches: rx });
        }
        Ok(started)
    }

    /// The next batch of every group zipped into one of the file's schema.
    fn zip(&mut self) -> crate::Result<Option<RecordBatch>> {
        let mut columns = vec![None; self.schema.fields().len()];
        let mut rows = None;
        let mut ended = 0;
        for group in &self.groups {
            let Ok(batch) = group.batches.recv() else {
                ended += 1;
                continue;
            };
            let batch = batch?;
            if *rows.get_or_insert(batch.num_rows()) != batch.num_rows() || batch.num_columns() != group.roots.len() {
                return Err(malformed("the Parquet file's columns do not have the same number of rows"));
            }
            for (&root, column) in group.roots.iter().zip(batch.columns()) {
                if let Some(slot) = columns.get_mut(root) {
                    *slot = Some(column.clone());
                }
            }
        }
        match (ended, rows) {
            (_, None) => Ok(None),
            (0, Some(rows)) => {
                let columns = columns.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| malformed("a Parquet column is missing"))?;
                let options = RecordBatchOptions::new().with_row_count(Some(rows));
                RecordBatch::try_new_with_options(self.schema.clone(), columns, &options).map(Some).map_err(crate::error::arrow_error)
            }
            _ => Err(malformed("the Parquet file's columns do not have the same number of rows")),
        }
    }
}

impl Iterator for ParallelColumns {
    type Item = crate::Result<RecordBatch>;

    /// After the last batch or an error, no group is left (and the threads end).
    fn next(&mut self) -> Option<Self::Item> {
        if self.groups.is_empty() {
            return None;
        }
        let next = self.zip();
        if !matches!(next, Ok(Some(_))) {
            self.groups.clear();
        }
        next.transpose()
    }
}

impl Drop for ParallelColumns {
    /// Closing the channels ends every thread after the batch it is decoding.
    fn drop(&mut self) {
        self.groups.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A file read at positions (`pread`), so that handles on several threads do not share (and
/// race on) one file offset as `File::try_clone`'s do.
#[derive(Clone)]
pub(super) struct PositionalFile {
    file: std::sync::Arc<std::fs::File>,
    len: u64,
}

impl PositionalFile {
    pub(super) fn new(file: std::fs::File) -> std::io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self { file: std::sync::Arc::new(file), len })
    }

    /// Read at `at` into `buf`'s spare capacity, up to `buf.len() == limit`, without first
    /// zeroing it (a Parquet read is made of such reads: zeroing them was 7 % of an
    /// uncompressed file's read). Returns the bytes read (0 at the end of the file).
    #[cfg(unix)]
    fn read_into_spare(&self, buf: &mut Vec<u8>, at: u64, limit: usize) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd;
        let want = limit.saturating_sub(buf.len()).min(buf.capacity().saturating_sub(buf.len()));
        let offset = libc::off_t::try_from(at).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        let spare = buf.spare_capacity_mut();
        // SAFETY: pread writes at most `want` bytes into `spare`, which has at least `want`
        // bytes; `set_len` then covers only the bytes it reported as written.
        let n = unsafe { libc::pread(self.file.as_raw_fd(), spare.as_mut_ptr().cast(), want, offset) };
        let n = usize::try_from(n).map_err(|_| std::io::Error::last_os_error())?;
        // SAFETY: the first `n <= want` bytes of the spare capacity were written by pread.
        unsafe { buf.set_len(buf.len().saturating_add(n.min(want))) };
        Ok(n)
    }

    #[cfg(not(unix))]
    fn read_into_spare(&self, buf: &mut Vec<u8>, at: u64, limit: usize) -> std::io::Result<usize> {
        let mut chunk = vec![0; limit.saturating_sub(buf.len())];
        let n = self.read_at(&mut chunk, at)?;
        buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
        Ok(n)
    }

    fn read_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
        #[cfg(unix)]
        return std::os::unix::fs::FileExt::read_at(&*self.file, buf, at);
        #[cfg(windows)]
        return std::os::windows::fs::FileExt::seek_read(&*self.file, buf, at);
    }
}

impl parquet::file::reader::Length for PositionalFile {
    fn len(&self) -> u64 {
        self.len
    }
}

/// A reader from a position of a [`PositionalFile`].
pub(super) struct PositionalRead {
    file: PositionalFile,
    at: u64,
}

impl std::io::Read for PositionalRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at = self.at.saturating_add(n as u64);
        Ok(n)
    }
}

impl ChunkReader for PositionalFile {
    type T = std::io::BufReader<PositionalRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::new(PositionalRead { file: self.clone(), at: start }))
    }

    /// Refuses a range past the end of the file before allocating for it.
    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        if start.checked_add(length as u64).is_none_or(|end| end > self.len) {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at offset {start} are past the end of the file ({} bytes)",
                self.len
            )));
        }
        let mut buf = Vec::with_capacity(length);
        while buf.len() < length {
            let at = start.saturating_add(buf.len() as u64);
            match self.read_into_spare(&mut buf, at, length) {
                Ok(0) => return Err(parquet::errors::ParquetError::EOF("the file ended early".into())),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(parquet::errors::ParquetError::External(Box::new(e))),
            }
        }
        Ok(buf.into())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use arrow_array::builder::{Int32Builder, Int64Builder, ListBuilder, MapBuilder, StringBuilder};
    use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray, StructArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// Nested and flat columns, with nulls.
    pub(crate) fn sample(rows: usize) -> RecordBatch {
        let ints: ArrayRef = Arc::new(Int64Array::from_iter_values((0..rows as i64).map(|i| i * 7)));
        let text: ArrayRef = Arc::new(StringArray::from_iter((0..rows).map(|i| (i % 3 != 0).then(|| format!("v{i}")))));
        let mut lists = ListBuilder::new(Int32Builder::new());
        let mut maps = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
        for i in 0..rows {
            if i % 5 == 0 {
                lists.append_null();
            } else {
                lists.values().append_slice(&vec![i as i32; i % 4]);
                lists.append(true);
            }
            for k in 0..i % 3 {
                maps.keys().append_value(format!("k{k}"));
                maps.values().append_value((i * k) as i64);
            }
            maps.append(true).unwrap();
        }
        let floats: ArrayRef = Arc::new(Float64Array::from_iter_values((0..rows).map(|i| i as f64 / 2.0)));
        let names: ArrayRef = Arc::new(StringArray::from_iter_values((0..rows).map(|i| "x".repeat(i % 9))));
        let tuple: ArrayRef = Arc::new(StructArray::from(vec![
            (Arc::new(Field::new("a", DataType::Float64, false)), floats),
            (Arc::new(Field::new("b", DataType::Utf8, false)), names),
        ]));
        let columns = vec![ints, text, Arc::new(lists.finish()) as ArrayRef, tuple, Arc::new(maps.finish()) as ArrayRef];
        let fields: Vec<Field> =
            ["i", "s", "l", "t", "m"].iter().zip(&columns).map(|(n, c)| Field::new(*n, c.data_type().clone(), true)).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
    }

    /// A file of [`sample`] rows in several row groups and pages.
    pub(crate) fn file(rows: usize) -> bytes::Bytes {
        let batch = sample(rows);
        let props = WriterProperties::builder().set_max_row_group_row_count(Some(1000)).set_data_page_row_count_limit(128).build();
        let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.into_inner().unwrap().into()
    }

    #[test]
    fn columns_read_on_threads_zip_back_to_the_one_reader_batches() {
        let f = file(3500);
        let metadata = ArrowReaderMetadata::load(&f, Default::default()).unwrap();
        let one: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::new_with_metadata(f.clone(), metadata.clone())
            .with_batch_size(300)
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(one.len() > 10);
        for threads in [2, 3, 4, 5, 9] {
            let groups = split(&metadata, threads);
            assert_eq!(groups.len(), threads.min(5));
            let mut all: Vec<usize> = groups.concat();
            all.sort_unstable();
            assert_eq!(all, vec![0, 1, 2, 3, 4], "every column in exactly one group");
            let f = f.clone();
            let read = ParallelColumns::start(move || Ok(f.clone()), metadata.clone(), groups, 300).unwrap();
            let many: Vec<RecordBatch> = read.collect::<crate::Result<_>>().unwrap();
            assert_eq!(many, one, "{threads} threads");
        }
    }

    #[test]
    fn the_largest_columns_go_to_different_threads() {
        let f = file(3000);
        let metadata = ArrowReaderMetadata::load(&f, Default::default()).unwrap();
        let groups = split(&metadata, 2);
        // i (8 bytes a row) and t (a struct of a float and a string) are the two largest.
        let with = |c: usize| groups.iter().position(|g| g.contains(&c)).unwrap();
        assert_ne!(with(0), with(3), "{groups:?}");
        assert_eq!(split(&metadata, 1), vec![vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn a_dropped_reader_stops_its_threads() {
        let f = file(3000);
        let metadata = ArrowReaderMetadata::load(&f, Default::default()).unwrap();
        let groups = split(&metadata, 3);
        let mut read = ParallelColumns::start(move || Ok(f.clone()), metadata, groups, 100).unwrap();
        assert_eq!(read.next().unwrap().unwrap().num_rows(), 100);
        drop(read); // joins the threads: a hang here fails the test by timeout
    }

    #[test]
    fn positional_reads_refuse_ranges_past_the_end_before_allocating() {
        let path = std::env::temp_dir().join(format!("chwire-positional-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let f = PositionalFile::new(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(&f.get_bytes(2, 5).unwrap()[..], b"23456");
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut f.get_read(7).unwrap(), &mut rest).unwrap();
        assert_eq!(rest, "789");
        assert!(f.get_bytes(8, 3).is_err());
        assert!(f.get_bytes(1, usize::MAX).is_err(), "2^64 bytes are refused, not allocated");
        assert!(f.get_bytes(u64::MAX, 2).is_err());
    }
}
