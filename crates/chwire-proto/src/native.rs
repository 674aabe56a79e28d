//! The Native format (as `FORMAT Native` writes it): a sequence of blocks without packet
//! framing, at revision 0 semantics — no BlockInfo, no custom-serialization byte.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::block::{Block, BlockInfo};
use crate::column::{column_pieces, encode_column, write_prefix_of, ColumnData, Piece, Pieces};
use crate::decoder::decode_named_column;
use crate::error::{DecodeError, ReadResult};
use crate::revision::Revision;
use crate::wire::{Reader, WriteExt};

/// Decode one Native block from the start of `r`.
pub fn decode_block(r: &mut Reader<'_>) -> ReadResult<Block> {
    let ncols = r.varuint_len("block columns", r.limits().max_columns)?;
    let rows = r.varuint_len("block rows", r.limits().max_block_rows)?;
    let mut columns = Vec::with_capacity(ncols.min(1024));
    for _ in 0..ncols {
        columns.push(decode_named_column(r, rows, Revision(0))?);
    }
    Ok(Block::from_parts(BlockInfo::default(), rows, columns))
}

/// Decode every block of a complete Native stream.
pub fn decode_all(bytes: &[u8]) -> Result<Vec<Block>, DecodeError> {
    let mut r = Reader::new(bytes);
    let mut blocks = Vec::new();
    while !r.is_empty() {
        blocks.push(decode_block(&mut r).map_err(|e| e.into_complete(bytes.len()))?);
    }
    Ok(blocks)
}

/// Append one block in Native format.
pub fn encode_block(block: &Block, out: &mut Vec<u8>) {
    encode_block_with(block, out, encode_column);
}

/// A block in Native format: its header and each column's name, type and prefix appended to
/// `out`, each column's body by `body`.
fn encode_block_with<'a>(block: &'a Block, out: &mut Vec<u8>, mut body: impl FnMut(&'a ColumnData, &mut Vec<u8>)) {
    out.put_varuint(block.num_columns() as u64);
    out.put_varuint(block.rows() as u64);
    for (name, col) in block.columns() {
        out.put_str(name);
        out.put_str(col.data_type().to_string());
        if block.rows() > 0 {
            write_prefix_of(col.data_type(), col.data(), out);
            body(col.data(), out);
        }
    }
}

/// Write one block in Native format (the bytes of [`encode_block`]) with vectored writes:
/// the bytes of large fixed-width columns go from the columns to `w` (a `BufWriter` passes
/// writes larger than its buffer through), the rest is encoded into `scratch` first.
pub fn write_block(block: &Block, scratch: &mut Vec<u8>, w: &mut impl std::io::Write) -> std::io::Result<()> {
    use std::io::{ErrorKind, IoSlice};
    scratch.clear();
    let mut pieces = Pieces::new(scratch);
    encode_block_with(block, scratch, |data, scratch| column_pieces(data, Revision(0), scratch, &mut pieces));
    let pieces = pieces.finish(scratch);
    let mut slices: Vec<IoSlice<'_>> = pieces
        .iter()
        .map(|p| match p {
            Piece::Encoded(r) => IoSlice::new(scratch.get(r.clone()).unwrap_or_default()),
            Piece::Borrowed(b) => IoSlice::new(b),
        })
        .collect();
    let mut left = &mut slices[..];
    while !left.is_empty() {
        match w.write_vectored(left) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut left, n),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Recognise the exception ClickHouse writes over HTTP when a query fails after some of the result
/// was sent: the status is already 200, so the server appends the text (`Code: 395,
/// e.displayText() = DB::Exception: …` on 18.16, `Code: 395. DB::Exception: …` later) after the
/// last complete block. `rest` is the body from a block boundary on; returns the code and the
/// whole text when it starts such an exception. A real block starting with the bytes `Code: <digits>`
/// would need 67 columns, 111 rows and a 100-byte column name made of that text, so the prefix plus
/// digits plus `,`/`.` is taken as the exception.
pub fn http_exception(rest: &[u8]) -> Option<(i32, String)> {
    let tail = rest.strip_prefix(b"Code: ")?;
    let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 || !matches!(tail.get(digits), Some(b',' | b'.')) {
        return None;
    }
    let code = std::str::from_utf8(tail.get(..digits)?).ok()?.parse().ok()?;
    Some((code, String::from_utf8_lossy(rest).trim_end().to_string()))
}

/// What a tagged exception at the start of a body's rest is (see [`http_tagged_exception`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaggedException {
    /// Not one: the bytes are something else (a block).
    No,
    /// It starts one, but its end has not arrived yet.
    Partial,
    /// The whole exception: its code (0 when the text has none) and its text.
    Complete(i32, String),
}

/// The marker around the exception ClickHouse 24.11 and later write into a response whose
/// status was already sent: `\r\n__exception__\r\n<tag>\r\n<text>\n<length> <tag>\r\n__exception__\r\n`,
/// with the tag of the response's `X-ClickHouse-Exception-Tag` header (a random 16
/// characters), so that no result bytes can be mistaken for it. The server then breaks the
/// chunked body off, so that a client that does not know the marker sees a failed transfer,
/// never a complete result. `rest` is the body from a block boundary on.
pub fn http_tagged_exception(rest: &[u8], tag: &[u8]) -> TaggedException {
    const MARK: &[u8] = b"\r\n__exception__\r\n";
    let head_len = MARK.len().saturating_add(tag.len()).saturating_add(2);
    let Some(head) = rest.get(..head_len.min(rest.len())) else { return TaggedException::No };
    let mut want = Vec::with_capacity(head_len);
    want.extend_from_slice(MARK);
    want.extend_from_slice(tag);
    want.extend_from_slice(b"\r\n");
    if tag.is_empty() || !want.starts_with(head) {
        return TaggedException::No;
    }
    if head.len() < head_len {
        return TaggedException::Partial;
    }
    let body = rest.get(head_len..).unwrap_or_default();
    let mut tail = Vec::with_capacity(tag.len().saturating_add(MARK.len()).saturating_add(1));
    tail.push(b' ');
    tail.extend_from_slice(tag);
    tail.extend_from_slice(MARK);
    let Some(end) = body.windows(tail.len()).position(|w| w == tail.as_slice()) else { return TaggedException::Partial };
    // `<text>\n<length>` before the closing tag.
    let text = body.get(..end).unwrap_or_default();
    let text = match text.iter().rposition(|&b| b == b'\n') {
        Some(nl) if text.get(nl.saturating_add(1)..).is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit)) => {
            text.get(..nl).unwrap_or_default()
        }
        _ => text,
    };
    let code = http_exception(text).map_or(0, |(c, _)| c);
    TaggedException::Complete(code, String::from_utf8_lossy(text).trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::{http_exception, http_tagged_exception, TaggedException};

    #[test]
    fn http_exception_as_18_16_sends_it() {
        // The tail of `SELECT number, throwIf(number = 300000) FROM numbers(1000000)
        // SETTINGS max_block_size=10000 FORMAT Native` over HTTP on the 18.16 rig.
        let body =
            b"Code: 395, e.displayText() = DB::Exception: Value passed to 'throwIf' function is non zero, e.what() = DB::Exception\n";
        let (code, text) = http_exception(body).unwrap();
        assert_eq!(code, 395);
        assert!(text.ends_with("e.what() = DB::Exception"), "{text}");
        assert_eq!(http_exception(b"Code: 60. DB::Exception: Table x doesn't exist").unwrap().0, 60);
    }

    #[test]
    fn tagged_exception_as_26_9_sends_it() {
        // The tail of `SELECT number, throwIf(number = 30000) FROM numbers(100000)
        // FORMAT Native` with max_block_size=10000 over HTTP on the 26.9 rig.
        let text = "Code: 395. DB::Exception: Value passed to 'throwIf' function is non-zero. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO) (version 26.9.2.1)";
        let tag = b"plzmsgnmvvxehbgr";
        let body = format!("\r\n__exception__\r\nplzmsgnmvvxehbgr\r\n{text}\n{} plzmsgnmvvxehbgr\r\n__exception__\r\n", text.len() + 1);
        assert_eq!(http_tagged_exception(body.as_bytes(), tag), TaggedException::Complete(395, text.to_string()));
        for cut in [1, 5, 20, 40, body.len() - 3] {
            assert_eq!(http_tagged_exception(&body.as_bytes()[..cut], tag), TaggedException::Partial, "{cut}");
        }
        assert_eq!(http_tagged_exception(body.as_bytes(), b"otherotherother0"), TaggedException::No);
        assert_eq!(http_tagged_exception(body.as_bytes(), b""), TaggedException::No);
        assert_eq!(http_tagged_exception(b"\x02\x03\x06number", tag), TaggedException::No);
        assert_eq!(http_tagged_exception(b"", tag), TaggedException::Partial);
    }

    #[test]
    fn http_exception_rejects_blocks_and_partial_text() {
        assert_eq!(http_exception(b"\x02\x03\x06number"), None);
        assert_eq!(http_exception(b"Code: "), None);
        assert_eq!(http_exception(b"Code: x, "), None);
        assert_eq!(http_exception(b"Code: 12"), None);
        assert_eq!(http_exception(b"Code: 1234567890, x"), None);
    }

    /// A writer taking at most `most` bytes a call, vectored or not.
    struct Trickle {
        out: Vec<u8>,
        most: usize,
    }

    impl std::io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.most);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn written_blocks_are_the_encoded_ones_whatever_the_writer_takes() {
        use crate::column::{ArrayColumn, NullableColumn};
        use crate::{Block, Column, ColumnData, DataType};
        for rows in [0usize, 3, 600, 5000] {
            let mut b = Block::new();
            let n = |i: usize| i as u64;
            b.push("n", Column::new(DataType::UInt64, ColumnData::UInt64((0..rows).map(n).collect())).unwrap()).unwrap();
            b.push("s", Column::new(DataType::String, ColumnData::String((0..rows).map(|i| i.to_string()).collect())).unwrap()).unwrap();
            let nulls = ColumnData::Nullable(Box::new(NullableColumn {
                nulls: (0..rows).map(|i| (i % 3 == 0) as u8).collect(),
                values: ColumnData::Float64((0..rows).map(|i| i as f64).collect()),
            }));
            b.push("f", Column::new(DataType::Nullable(Box::new(DataType::Float64)), nulls).unwrap()).unwrap();
            let lists = ColumnData::Array(Box::new(ArrayColumn {
                offsets: (0..=rows).map(|i| (i * 2) as u64).collect(),
                values: ColumnData::Int32((0..rows * 2).map(|i| i as i32).collect()),
            }));
            b.push("a", Column::new(DataType::Array(Box::new(DataType::Int32)), lists).unwrap()).unwrap();
            let mut want = Vec::new();
            super::encode_block(&b, &mut want);
            for most in [1, 7, 4096, usize::MAX] {
                let mut w = Trickle { out: Vec::new(), most };
                super::write_block(&b, &mut Vec::new(), &mut w).unwrap();
                assert!(w.out == want, "{rows} rows, {most} bytes a write");
            }
            let mut v = Vec::new();
            super::write_block(&b, &mut Vec::new(), &mut std::io::BufWriter::with_capacity(64, &mut v)).unwrap();
            assert!(v == want, "{rows} rows through a BufWriter");
        }
    }

    #[test]
    fn native_stream_decoder_reads_blocks_split_anywhere() {
        use crate::{Block, Column, ColumnData, DataType};
        let mut bytes = Vec::new();
        for n in [3u64, 0, 5] {
            let mut b = Block::new();
            let nums: Vec<u64> = (0..n).collect();
            b.push("n", Column::new(DataType::UInt64, ColumnData::UInt64(nums)).unwrap()).unwrap();
            super::encode_block(&b, &mut bytes);
        }
        let want = super::decode_all(&bytes).unwrap();
        assert_eq!(want.len(), 3);
        for step in [1, 2, 7, bytes.len()] {
            assert_eq!(stream_blocks(&bytes, step, None), want, "chunks of {step}");
        }
    }

    /// The blocks of a Native stream fed to its decoder `step` bytes at a time (at `revision`,
    /// when given), every byte consumed.
    fn stream_blocks(bytes: &[u8], step: usize, revision: Option<crate::Revision>) -> Vec<crate::Block> {
        use crate::{PacketDecoder, ServerPacket};
        let mut dec = PacketDecoder::native_stream();
        if let Some(r) = revision {
            dec.set_revision(r);
        }
        let mut buf = bytes::BytesMut::new();
        let mut got = Vec::new();
        for chunk in bytes.chunks(step) {
            buf.extend_from_slice(chunk);
            while let Some(p) = dec.decode(&mut buf).unwrap() {
                let ServerPacket::Data(b) = p else { panic!("{p:?}") };
                got.push(b);
            }
        }
        assert!(buf.is_empty() && !dec.is_mid_packet());
        got
    }

    /// ClickHouse 26.9's `FORMAT Native` over HTTP with `client_protocol_version=54454`:
    /// BlockInfo first, the types with their zones, a custom-serialization byte per column.
    #[test]
    fn native_stream_at_a_revision_reads_block_info_and_zones() {
        use crate::{Revision, Value};
        let hex = "010002ffffffff0002020174164461746554696d652827417369612f546f6b796f272900010000000100\
                   0000016e0655496e7436340000000000000000000100000000000000";
        let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        for step in [1, 5, bytes.len()] {
            let got = stream_blocks(&bytes, step, Some(Revision(54454)));
            assert_eq!(got.len(), 1);
            let b = &got[0];
            assert_eq!(b.column_at(0).unwrap().data_type().to_string(), "DateTime('Asia/Tokyo')");
            assert_eq!(
                (b.column_at(0).unwrap().value(1), b.column_at(1).unwrap().value(1)),
                (Value::DateTime(1, Some("Asia/Tokyo")), Value::UInt(1))
            );
        }
    }
}
