//! The Native format (as `FORMAT Native` writes it): a sequence of blocks without packet
//! framing, at revision 0 semantics — no BlockInfo, no custom-serialization byte.

use crate::block::{Block, BlockInfo};
use crate::column::encode_column_of;
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
    out.put_varuint(block.num_columns() as u64);
    out.put_varuint(block.rows() as u64);
    for (name, col) in block.columns() {
        out.put_str(name);
        out.put_str(col.data_type().to_string());
        if block.rows() > 0 {
            encode_column_of(col.data_type(), col.data(), out);
        }
    }
}
