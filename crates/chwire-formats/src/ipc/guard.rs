//! Arrow IPC input that cannot crash the CLI.
//!
//! arrow-ipc's readers trust the lengths inside a file:
//! - a block or message body of 2^63 bytes is allocated before a byte of it is read, and the
//!   process aborts;
//! - offsets that point outside a message body panic in arrow-buffer.
//!
//! Mutating chwire's own files found both: 31 of 800 mutations, in a run of `tests/malformed.rs`'s
//! shape.
//!
//! This module is the boundary:
//! - the lengths are checked before arrow-ipc sees them: the footer's blocks against the file's
//!   size, and each stream message's metadata and body length as the bytes pass;
//! - a panic inside the reader is caught and becomes a typed error, and the process goes on.
//!   The default panic message is not printed for it ([`crate::error::guarded`]).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use std::io::{Read, Seek, SeekFrom};

/// The largest message metadata (a flatbuffer: the schema or a batch's buffer list) accepted.
const MAX_METADATA: usize = 64 << 20;

use crate::error::malformed_arrow as malformed;

/// The body offsets of a compressed record batch's (or dictionary batch's) buffers: each
/// starts with its decompressed length (an i64; -1 = stored uncompressed), which arrow-ipc
/// allocates before decompressing. Empty for uncompressed messages.
fn compressed_buffers(message: &arrow_ipc::Message<'_>) -> Vec<u64> {
    let batch = message.header_as_record_batch().or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
    let Some(batch) = batch.filter(|b| b.compression().is_some()) else { return Vec::new() };
    let mut offsets: Vec<u64> =
        batch.buffers().into_iter().flatten().filter(|b| b.length() >= 8).filter_map(|b| u64::try_from(b.offset()).ok()).collect();
    offsets.sort_unstable();
    offsets
}

/// Adds one buffer's decompressed length to a message's total, which may not exceed `max`.
fn add_decompressed(total: &mut u64, prefix: [u8; 8], max: u64) -> Result<(), String> {
    let len = i64::from_le_bytes(prefix);
    if len == -1 {
        return Ok(());
    }
    *total = u64::try_from(len)
        .ok()
        .and_then(|l| total.checked_add(l))
        .filter(|&t| t <= max)
        .ok_or_else(|| format!("a compressed buffer claims {len} bytes decompressed (at most {max} per message)"))?;
    Ok(())
}

/// Check an Arrow IPC file's footer: every record batch and dictionary block must lie inside
/// the file, and the buffers of compressed ones may not claim more than `max_decompressed`
/// bytes per block. Leaves the file's position unspecified.
pub fn check_file<F: Read + Seek>(file: &mut F, max_decompressed: u64) -> crate::Result<()> {
    let size = file.seek(SeekFrom::End(0))?;
    if size < 10 {
        return Err(malformed("the file is too short for an Arrow file"));
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10))?;
    file.read_exact(&mut tail)?;
    let footer_len = arrow_ipc::reader::read_footer_length(tail).map_err(malformed)? as u64;
    if footer_len.saturating_add(10) > size {
        return Err(malformed(format!("the footer claims {footer_len} bytes of a {size}-byte file")));
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::Start(size.saturating_sub(10).saturating_sub(footer_len)))?;
    file.read_exact(&mut footer)?;
    let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| malformed(format!("the footer: {e}")))?;
    let blocks = footer.recordBatches().into_iter().flatten().chain(footer.dictionaries().into_iter().flatten());
    for b in blocks {
        let (offset, meta, body) = (b.offset(), i64::from(b.metaDataLength()), b.bodyLength());
        let end = (offset >= 0 && meta >= 0 && body >= 0).then(|| offset.checked_add(meta)?.checked_add(body)).flatten();
        if end.is_none_or(|e| e as u64 > size) {
            return Err(malformed(format!(
                "a block (offset {offset}, metadata {meta} bytes, body {body} bytes) lies outside the {size}-byte file"
            )));
        }
        check_block_buffers(file, offset as u64, meta as u64, body as u64, max_decompressed)?;
    }
    Ok(())
}

/// The decompressed lengths of a file block's compressed buffers (see [`compressed_buffers`]).
fn check_block_buffers<F: Read + Seek>(file: &mut F, offset: u64, meta: u64, body: u64, max: u64) -> crate::Result<()> {
    if !(8..=MAX_METADATA as u64).contains(&meta) {
        return Err(malformed(format!("a block claims {meta} bytes of metadata")));
    }
    let mut head = vec![0u8; meta as usize];
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(&mut head)?;
    // The continuation marker (0xFFFFFFFF) and the metadata length, then the flatbuffer. It
    // must lie within the block's metadata: arrow-ipc parses it from the metadata and the body
    // together, so a message that reaches into the body would escape this check.
    let skip = if head.starts_with(&[0xff; 4]) { 8 } else { 4 };
    let message = arrow_ipc::root_as_message(head.get(skip..).unwrap_or_default())
        .map_err(|e| malformed(format!("a block's message header: {e}")))?;
    let mut total = 0;
    for at in compressed_buffers(&message) {
        if at.saturating_add(8) > body {
            continue; // outside the body: the reader reports it
        }
        let mut prefix = [0u8; 8];
        // Within the file: the caller checked offset + meta + body against its size.
        file.seek(SeekFrom::Start(offset.saturating_add(meta).saturating_add(at)))?;
        file.read_exact(&mut prefix)?;
        add_decompressed(&mut total, prefix, max).map_err(malformed)?;
    }
    Ok(())
}

/// An Arrow IPC stream passed through unchanged, each message checked before the reader sees
/// any of it: its metadata length, its body length (at most `max_body` bytes) and the
/// decompressed lengths its compressed buffers claim. A message is read whole first (its body
/// growing as its bytes arrive, so a length that claims more than the input holds costs no
/// memory), so that an input cut anywhere inside a message is an error, never a shorter
/// stream: arrow-ipc takes an input that ends where it reads a message's length for the end
/// of the stream, and allocates a body's claimed length before reading it.
pub struct CheckedStream<R> {
    inner: R,
    done: bool,
    /// The checked message not yet handed on.
    pending: Vec<u8>,
    at: usize,
    max_body: u64,
}

/// The reader's error for a stream that fails a check (bad input: exit code 2, not I/O).
fn invalid_data(what: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("malformed Arrow input: {what}"))
}

fn truncated(what: &str) -> std::io::Error {
    invalid_data(format!("the input ends inside {what} (truncated)"))
}

impl<R: Read> CheckedStream<R> {
    pub fn new(inner: R, max_body: u64) -> Self {
        CheckedStream { inner, done: false, pending: Vec::new(), at: 0, max_body }
    }

    /// Read the next message (prefix, metadata and body) into `pending`, checking it.
    fn next_message(&mut self) -> std::io::Result<()> {
        self.pending.clear();
        self.at = 0;
        let mut word = [0u8; 4];
        let n = read_full(&mut self.inner, &mut word)?;
        if n == 0 {
            // The end of the input between messages. The format allows a writer to close the
            // stream without its end marker, but every writer chwire meets (ClickHouse, arrow-rs,
            // pyarrow, Arrow Java) writes it: without it, an input cut between two batches
            // would read as a complete, shorter one.
            return Err(truncated("the stream: it ends without the end-of-stream marker"));
        }
        if n < 4 {
            return Err(truncated("a message's length"));
        }
        self.pending.extend_from_slice(&word);
        if word == [0xff; 4] {
            if read_full(&mut self.inner, &mut word)? < 4 {
                return Err(truncated("a message's length"));
            }
            self.pending.extend_from_slice(&word);
        }
        let meta_len = i32::from_le_bytes(word);
        if meta_len == 0 {
            self.done = true; // the end-of-stream marker
            return Ok(());
        }
        let meta_len = usize::try_from(meta_len)
            .ok()
            .filter(|&l| l <= MAX_METADATA)
            .ok_or_else(|| invalid_data(format!("a message claims {meta_len} bytes of metadata (at most {MAX_METADATA})")))?;
        let start = self.pending.len();
        self.pending.resize(start.saturating_add(meta_len), 0); // meta_len <= MAX_METADATA
        if read_full(&mut self.inner, self.pending.get_mut(start..).unwrap_or_default())? < meta_len {
            return Err(truncated("a message's metadata"));
        }
        let metadata = self.pending.get(start..).unwrap_or_default();
        let message = arrow_ipc::root_as_message(metadata).map_err(|e| invalid_data(format!("a message header: {e}")))?;
        let body = u64::try_from(message.bodyLength()).ok().filter(|&b| b <= self.max_body).ok_or_else(|| {
            invalid_data(format!("a message claims a body of {} bytes (at most {})", message.bodyLength(), self.max_body))
        })?;
        let mut offsets = compressed_buffers(&message);
        offsets.dedup();
        let body_start = self.pending.len();
        (&mut self.inner).take(body).read_to_end(&mut self.pending)?;
        let got = self.pending.len().saturating_sub(body_start) as u64;
        if got < body {
            return Err(truncated(&format!("a message body ({got} of its {body} bytes)")));
        }
        let body_bytes = self.pending.get(body_start..).unwrap_or_default();
        let mut total = 0;
        for at in offsets {
            let prefix = usize::try_from(at).ok().and_then(|a| body_bytes.get(a..)?.get(..8));
            if let Some(p) = prefix.and_then(|p| <[u8; 8]>::try_from(p).ok()) {
                add_decompressed(&mut total, p, self.max_body).map_err(invalid_data)?;
            } // else outside the body: the reader reports it
        }
        Ok(())
    }
}

/// Read until `buf` is full or the input ends; the number of bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while let Some(rest) = buf.get_mut(n..).filter(|rest| !rest.is_empty()) {
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => n = n.saturating_add(k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> Read for CheckedStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if let Some(pending) = self.pending.get(self.at..).filter(|p| !p.is_empty()) {
                let n = buf.len().min(pending.len());
                if let (Some(dst), Some(src)) = (buf.get_mut(..n), pending.get(..n)) {
                    dst.copy_from_slice(src);
                }
                self.at = self.at.saturating_add(n);
                return Ok(n);
            }
            if self.done {
                return self.inner.read(buf);
            }
            self.next_message()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
    use std::sync::Arc;

    /// An LZ4-compressed Arrow stream or file of 100 Int64s whose data buffer claims
    /// `claimed` bytes decompressed (the real 800 patched).
    fn compressed(file: bool, claimed: i64) -> Vec<u8> {
        let batch = RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from_iter_values(0..100)) as _)]).unwrap();
        let opts = IpcWriteOptions::default().try_with_compression(Some(arrow_ipc::CompressionType::LZ4_FRAME)).unwrap();
        let mut out = Vec::new();
        if file {
            let mut w = FileWriter::try_new_with_options(&mut out, &batch.schema(), opts).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        } else {
            let mut w = StreamWriter::try_new_with_options(&mut out, &batch.schema(), opts).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        }
        let real = 800i64.to_le_bytes();
        let at = out.windows(8).position(|w| w == real).expect("the buffer's length prefix");
        out[at..at + 8].copy_from_slice(&claimed.to_le_bytes());
        out
    }

    fn read_stream(bytes: Vec<u8>) -> Result<usize, String> {
        let input = CheckedStream::new(std::io::Cursor::new(bytes), 1 << 20);
        let r = arrow_ipc::reader::StreamReader::try_new(input, None).map_err(|e| e.to_string())?;
        r.map(|b| b.map(|b| b.num_rows()).map_err(|e| e.to_string())).sum()
    }

    /// An uncompressed stream of three batches of 100 Int64s.
    fn plain_stream() -> Vec<u8> {
        let batch = RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from_iter_values(0..100)) as _)]).unwrap();
        let mut out = Vec::new();
        let mut w = StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
        for _ in 0..3 {
            w.write(&batch).unwrap();
        }
        w.finish().unwrap();
        out
    }

    /// Found by a mutation run of the CLI: a stream cut inside a message's metadata read as a
    /// complete stream of fewer batches. Cut anywhere, also between messages, a stream fails.
    #[test]
    fn a_stream_cut_anywhere_fails() {
        let full = plain_stream();
        assert_eq!(read_stream(full.clone()), Ok(300));
        for cut in 0..full.len() {
            let err = read_stream(full[..cut].to_vec()).expect_err(&format!("cut at {cut} of {}", full.len()));
            assert!(err.contains("truncated"), "cut at {cut}: {err}");
        }
    }

    /// A message whose body claims far more than the input holds fails without allocating
    /// the claim (arrow-ipc sizes its buffer by the claim before reading).
    #[test]
    fn a_body_claiming_more_than_the_input_allocates_nothing() {
        let mut bytes = plain_stream();
        // The first batch's message follows the schema's (its prefix: marker and length).
        let len = |at: usize| i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let batch = 8 + len(0);
        let meta = batch + 8..batch + 8 + len(batch);
        let body = arrow_ipc::root_as_message(&bytes[meta.clone()]).unwrap().bodyLength();
        let at = meta.start + bytes[meta].windows(8).position(|w| w == body.to_le_bytes()).expect("the body length");
        bytes[at..at + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
        let input = CheckedStream::new(std::io::Cursor::new(bytes), u64::MAX);
        let r = arrow_ipc::reader::StreamReader::try_new(input, None).unwrap();
        let err = r.map(|b| b.map(|b| b.num_rows())).sum::<Result<usize, _>>().unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }

    /// Found by the arrow_input fuzz target: a compressed buffer claiming 2^58 bytes
    /// decompressed aborted the process in arrow-ipc (a failed allocation).
    #[test]
    fn decompressed_lengths_are_checked_before_arrow_allocates_them() {
        assert_eq!(read_stream(compressed(false, 800)), Ok(100));
        let err = read_stream(compressed(false, 1 << 58)).unwrap_err();
        assert!(err.contains("claims 288230376151711744 bytes decompressed"), "{err}");
        assert!(read_stream(compressed(false, -5)).unwrap_err().contains("decompressed"));

        let mut ok = std::io::Cursor::new(compressed(true, 800));
        check_file(&mut ok, 1 << 20).unwrap();
        let mut bad = std::io::Cursor::new(compressed(true, 1 << 58));
        let err = check_file(&mut bad, 1 << 20).unwrap_err().to_string();
        assert!(err.contains("claims 288230376151711744 bytes decompressed"), "{err}");
        // Within the limit and the same in total: accepted.
        check_file(&mut std::io::Cursor::new(compressed(true, 800)), 800).unwrap();
        assert!(check_file(&mut std::io::Cursor::new(compressed(true, 800)), 799).is_err());
    }
}
