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

use std::cell::Cell;
use std::io::{Read, Seek, SeekFrom};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The largest message metadata (a flatbuffer: the schema or a batch's buffer list) accepted.
const MAX_METADATA: usize = 64 << 20;

fn malformed(what: impl std::fmt::Display) -> chwire::Error {
    chwire::Error::invalid_input(format!("malformed Arrow input: {what}"))
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
/// the file. Leaves the file's position unspecified.
pub fn check_file(file: &mut std::fs::File) -> chwire::Result<()> {
    let size = file.metadata()?.len();
    if size < 10 {
        return Err(malformed("the file is too short for an Arrow file"));
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10))?;
    file.read_exact(&mut tail)?;
    let footer_len = arrow_ipc::reader::read_footer_length(tail).map_err(malformed)? as u64;
    if footer_len + 10 > size {
        return Err(malformed(format!("the footer claims {footer_len} bytes of a {size}-byte file")));
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::End(-10 - footer_len as i64))?;
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
    }
    Ok(())
}

/// Where a [`CheckedStream`] is in the message framing.
enum State {
    /// At a message's start: the continuation marker and the metadata length come next.
    Start,
    /// Inside a message body: this many bytes pass unchecked.
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
}

impl<R: Read> CheckedStream<R> {
    pub fn new(inner: R, max_body: u64) -> Self {
        CheckedStream { inner, state: State::Start, pending: Vec::new(), at: 0, max_body }
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
        self.pending.extend_from_slice(&word[..n]);
        if n < 4 {
            self.state = State::Done;
            return Ok(()); // the reader reports the truncation
        }
        if word == [0xff; 4] {
            let n = read_full(&mut self.inner, &mut word)?;
            self.pending.extend_from_slice(&word[..n]);
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
        self.pending.resize(start + meta_len, 0);
        self.inner.read_exact(&mut self.pending[start..])?;
        let message = arrow_ipc::root_as_message(&self.pending[start..]).map_err(|e| bad(format!("a message header: {e}")))?;
        let body = u64::try_from(message.bodyLength())
            .ok()
            .filter(|&b| b <= self.max_body)
            .ok_or_else(|| bad(format!("a message claims a body of {} bytes (at most {})", message.bodyLength(), self.max_body)))?;
        self.state = State::Body(body);
        Ok(())
    }
}

/// Read until `buf` is full or the input ends; the number of bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> Read for CheckedStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.at < self.pending.len() {
                let n = buf.len().min(self.pending.len() - self.at);
                buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            match self.state {
                State::Done => return self.inner.read(buf),
                State::Body(0) => self.next_message()?,
                State::Start => self.next_message()?,
                State::Body(left) => {
                    let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    let n = self.inner.read(&mut buf[..want])?;
                    if n == 0 {
                        self.state = State::Done;
                    } else {
                        self.state = State::Body(left - n as u64);
                    }
                    return Ok(n);
                }
            }
        }
    }
}
