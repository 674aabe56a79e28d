//! Arrow IPC streams handed over as bytes (what the Elixir and Node bindings receive from
//! their hosts): read whole, safely. arrow-ipc allocates what a message claims and panics on
//! some inconsistent buffers, so the framing is checked first and a panic is an error.

use crate::{Error, Result};
use arrow_array::RecordBatch;

/// Every record batch of an IPC stream, or an error ([`Error::Ipc`]) for bytes that are not
/// one: a message or body running past the end, a header arrow-ipc cannot read, a batch it
/// refuses or panics on. Nothing is read lazily: a malformed stream fails before anything of
/// it is used.
pub fn read_ipc_stream(bytes: Vec<u8>) -> Result<Vec<RecordBatch>> {
    check_framing(&bytes).map_err(Error::Ipc)?;
    let read = std::panic::catch_unwind(|| {
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)?;
        reader.collect::<std::result::Result<Vec<_>, _>>()
    });
    match read {
        Ok(Ok(batches)) => Ok(batches),
        Ok(Err(e)) => Err(Error::Ipc(e.to_string())),
        Err(p) => Err(Error::Ipc(panic_text(&*p))),
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "panic".into())
}

/// Every message's metadata and body lie within `bytes`.
fn check_framing(bytes: &[u8]) -> std::result::Result<(), String> {
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut pos = 0usize;
    while pos < bytes.len() {
        let mut p = pos;
        if word(p) == Some(0xFFFF_FFFF) {
            p += 4;
        }
        let len = word(p).ok_or_else(|| format!("cut in a message length at byte {p}"))? as usize;
        p += 4;
        if len == 0 {
            // The end-of-stream marker: anything after it would be dropped unread (a second
            // stream appended to the first, junk).
            return match bytes.len() - p {
                0 => Ok(()),
                n => Err(format!("{n} bytes after the end-of-stream marker at byte {pos} (two streams in one? send one)")),
            };
        }
        let meta = bytes.get(p..p.saturating_add(len)).ok_or_else(|| format!("a message of {len} bytes at byte {p} runs past the end"))?;
        let message = arrow_ipc::root_as_message(meta).map_err(|e| format!("a message header at byte {p}: {e}"))?;
        let body = usize::try_from(message.bodyLength()).map_err(|_| "a negative body length".to_string())?;
        p = p.saturating_add(len);
        if body > bytes.len().saturating_sub(p) {
            return Err(format!("a body of {body} bytes at byte {p} runs past the end ({} bytes)", bytes.len()));
        }
        pos = p + body;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int32Array};
    use std::sync::Arc;

    fn stream() -> Vec<u8> {
        let batch = RecordBatch::try_from_iter([("a", Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef)]).unwrap();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        w.into_inner().unwrap()
    }

    #[test]
    fn a_stream_reads_and_every_cut_or_corruption_is_an_error() {
        let bytes = stream();
        let batches = read_ipc_stream(bytes.clone()).unwrap();
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 3);
        // Cut anywhere, or a byte flipped anywhere: an error or the batches, never a panic.
        for n in 0..bytes.len() {
            if let Err(e) = read_ipc_stream(bytes[..n].to_vec()) {
                assert!(e.to_string().starts_with("malformed IPC stream: "), "{e}");
            }
            let mut flipped = bytes.clone();
            flipped[n] ^= 0xA5;
            let _ = read_ipc_stream(flipped);
        }
        let mut twice = bytes.clone();
        twice.extend_from_slice(&bytes);
        let e = read_ipc_stream(twice).unwrap_err().to_string();
        assert!(e.contains("after the end-of-stream marker"), "{e}");
        let mut huge = bytes.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = read_ipc_stream(huge).unwrap_err().to_string();
        assert!(e.contains("runs past the end"), "{e}");
    }
}
