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
//!   The default panic message is not printed for it.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use std::cell::Cell;
use std::io::{Read, Seek, SeekFrom};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The largest message metadata (a flatbuffer: the schema or a batch's buffer list) accepted.
const MAX_METADATA: usize = 64 << 20;

fn malformed(what: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(format!("malformed Arrow input: {what}"))
}

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

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, turning a panic inside it into an error (arrow-rs asserts on inconsistent
/// offsets rather than returning an error).
pub fn guarded<T>(f: impl FnOnce() -> chwire::Result<T>) -> chwire::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("the Arrow reader failed");
        Err(malformed(why))
    })
}

/// Check an Arrow IPC file's footer: every record batch and dictionary block must lie inside
/// the file, and the buffers of compressed ones may not claim more than `max_decompressed`
/// bytes per block. Leaves the file's position unspecified.
pub fn check_file<F: Read + Seek>(file: &mut F, max_decompressed: u64) -> chwire::Result<()> {
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
fn check_block_buffers<F: Read + Seek>(file: &mut F, offset: u64, meta: u64, body: u64, max: u64) -> chwire::Result<()> {
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

/// Where a [`CheckedStream`] is in the message framing.
enum State {
    /// At a message's start: the continuation marker and the metadata length come next.
    Start,
    /// Inside a message body: this many bytes pass (the buffers' decompressed lengths checked).
    Body(u64),
    /// After the end-of-stream marker or the input's end.
    Done,
}

/// An Arrow IPC stream passed through unchanged, with each message's metadata length and body
/// length checked before the reader allocates them: a body may not exceed `max_body` bytes.
pub struct CheckedStream<R> {
    inner: R,
    state: State,
    /// Checked bytes not yet handed on (a message's prefix and metadata).
    pending: Vec<u8>,
    at: usize,
    max_body: u64,
    /// The current body: its length, its compressed buffers (offset, the length prefix
    /// collected so far, how many of its bytes) and the decompressed total so far.
    body_len: u64,
    buffers: Vec<(u64, [u8; 8], usize)>,
    decompressed: u64,
}

impl<R: Read> CheckedStream<R> {
    pub fn new(inner: R, max_body: u64) -> Self {
        CheckedStream {
            inner,
            state: State::Start,
            pending: Vec::new(),
            at: 0,
            max_body,
            body_len: 0,
            buffers: Vec::new(),
            decompressed: 0,
        }
    }

    /// Look at body bytes `data` (starting at body offset `pos`) for the decompressed
    /// lengths of compressed buffers; an error once they add up to more than `max_body`.
    /// Buffers may overlap: every buffer's 8-byte prefix is collected from the bytes as they
    /// pass, whichever other buffers those bytes belong to.
    fn watch_body(&mut self, pos: u64, data: &[u8]) -> std::io::Result<()> {
        let end = pos.saturating_add(data.len() as u64);
        for (start, prefix, filled) in &mut self.buffers {
            let (from, to) = ((*start).max(pos), start.saturating_add(8).min(end));
            if from >= to || *filled == 8 {
                continue;
            }
            // pos <= from < to <= end, and start <= from < start + 8.
            let (src, dst) = (from.saturating_sub(pos) as usize, from.saturating_sub(*start) as usize);
            let n = to.saturating_sub(from) as usize;
            let (Some(value), Some(slot)) = (data.get(src..).and_then(|d| d.get(..n)), prefix.get_mut(dst..).and_then(|p| p.get_mut(..n)))
            else {
                continue;
            };
            slot.copy_from_slice(value);
            *filled = filled.saturating_add(n);
            if *filled == 8 {
                add_decompressed(&mut self.decompressed, *prefix, self.max_body)
                    .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("malformed Arrow input: {m}")))?;
            }
        }
        Ok(())
    }

    /// Read the next message's prefix and metadata into `pending`, checking its lengths.
    fn next_message(&mut self) -> std::io::Result<()> {
        let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("malformed Arrow input: {m}"));
        self.pending.clear();
        self.at = 0;
        let mut word = [0u8; 4];
        let n = read_full(&mut self.inner, &mut word)?;
        if n == 0 {
            self.state = State::Done;
            return Ok(());
        }
        self.pending.extend_from_slice(word.get(..n).unwrap_or_default());
        if n < 4 {
            self.state = State::Done;
            return Ok(()); // the reader reports the truncation
        }
        if word == [0xff; 4] {
            let n = read_full(&mut self.inner, &mut word)?;
            self.pending.extend_from_slice(word.get(..n).unwrap_or_default());
            if n < 4 {
                self.state = State::Done;
                return Ok(());
            }
        }
        let meta_len = i32::from_le_bytes(word);
        if meta_len == 0 {
            self.state = State::Done;
            return Ok(());
        }
        let meta_len = usize::try_from(meta_len)
            .ok()
            .filter(|&l| l <= MAX_METADATA)
            .ok_or_else(|| bad(format!("a message claims {meta_len} bytes of metadata (at most {MAX_METADATA})")))?;
        let start = self.pending.len();
        self.pending.resize(start.saturating_add(meta_len), 0); // meta_len <= MAX_METADATA
        let metadata = self.pending.get_mut(start..).unwrap_or_default();
        self.inner.read_exact(metadata)?;
        let message = arrow_ipc::root_as_message(metadata).map_err(|e| bad(format!("a message header: {e}")))?;
        let body = u64::try_from(message.bodyLength())
            .ok()
            .filter(|&b| b <= self.max_body)
            .ok_or_else(|| bad(format!("a message claims a body of {} bytes (at most {})", message.bodyLength(), self.max_body)))?;
        let mut offsets = compressed_buffers(&message);
        offsets.dedup();
        self.buffers = offsets.into_iter().map(|o| (o, [0; 8], 0)).collect();
        self.decompressed = 0;
        self.body_len = body;
        self.state = State::Body(body);
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
            match self.state {
                State::Done => return self.inner.read(buf),
                State::Body(0) => self.next_message()?,
                State::Start => self.next_message()?,
                State::Body(left) => {
                    let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    let n = self.inner.read(buf.get_mut(..want).unwrap_or_default())?;
                    if n == 0 {
                        self.state = State::Done;
                    } else {
                        // A reader returns at most what it was given room for: n <= want <= left.
                        self.watch_body(self.body_len.saturating_sub(left), buf.get(..n).unwrap_or_default())?;
                        self.state = State::Body(left.saturating_sub(n as u64));
                    }
                    return Ok(n);
                }
            }
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

    /// Overlapping buffers (offsets 0 and 4): the second's prefix is read from bytes that
    /// also belong to the first, in whatever pieces the body passes.
    #[test]
    fn overlapping_buffers_are_each_checked() {
        // Buffer 0's prefix (bytes 0..8) is -1, "stored uncompressed"; buffer 4's (bytes
        // 4..12) is 0x04000000_ffffffff.
        let mut body = vec![0xff; 8];
        body.extend_from_slice(&0x0400_0000u32.to_le_bytes());
        for piece in [1, 3, 5, 64] {
            let mut s = CheckedStream::new(std::io::empty(), 1 << 20);
            s.buffers = vec![(0, [0; 8], 0), (4, [0; 8], 0)];
            let res = body.chunks(piece).enumerate().try_for_each(|(i, c)| s.watch_body((i * piece) as u64, c));
            assert!(res.unwrap_err().to_string().contains("claims 288230380446679039 bytes"), "pieces of {piece}");
        }
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
