//! Arrow record batches handed to JavaScript as their own buffers.
//!
//! chwire builds each block's `RecordBatch` on the IO threads (`chwire::ArrowStream`, the
//! column data moved, not copied, where the layouts agree). Instead of writing Arrow IPC (a
//! copy of every buffer) for apache-arrow to read back, each array's buffers go to JS as
//! external ArrayBuffers over the batch's own memory, described by small objects that
//! `lib/arrow.ts` turns into apache-arrow `Data` with `makeData` (the types come from the
//! schema, sent once as an IPC schema message). Nothing of the column data is copied on
//! either side.
//!
//! An array's descriptor: `n` length, `nc` null count, `z` validity bitmap, `d` values (the
//! keys of a dictionary), `o` offsets, `t` union type ids, `c` children, `x` a dictionary's
//! values. Arrays with an offset (slices) are copied to fresh ones first: apache-arrow takes
//! one offset for all of an array's buffers, arrow-rs keeps them per buffer.

use crate::error::Result;
use crate::js::{self, Env, Val};
use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_data::transform::MutableArrayData;
use arrow_data::ArrayData;
use arrow_schema::{DataType as A, UnionMode};

/// One record batch's columns, ready for JS.
pub struct Batch {
    rows: usize,
    columns: Vec<ArrayData>,
}

impl Batch {
    pub fn new(b: &RecordBatch) -> Result<Batch> {
        Ok(Batch { rows: b.num_rows(), columns: b.columns().iter().map(|c| unsliced(c.to_data())).collect::<Result<_>>()? })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `[descriptor per column]` (on the JS thread; buffers handed over, not copied).
    pub fn into_js(self, env: Env) -> Result<Val> {
        let arr = js::array(env, self.columns.len())?;
        for (i, d) in self.columns.iter().enumerate() {
            js::push(env, arr, i as u32, array(env, d)?)?;
        }
        Ok(arr)
    }
}

fn sliced(d: &ArrayData) -> bool {
    d.offset() != 0 || d.nulls().is_some_and(|n| n.offset() != 0) || d.child_data().iter().any(sliced)
}

/// `d`, copied to an array of offset 0 (and children of offset 0) when it is a slice.
fn unsliced(d: ArrayData) -> Result<ArrayData> {
    if !sliced(&d) {
        return Ok(d);
    }
    let mut m = MutableArrayData::new(vec![&d], false, d.len());
    m.try_extend(0, 0, d.len())?;
    Ok(m.freeze())
}

fn buffer(env: Env, b: &Buffer) -> Result<Val> {
    let owner = b.clone();
    // SAFETY: the bytes are the buffer's, which `owner` (a reference to the same allocation)
    // keeps alive and in place until the ArrayBuffer is collected.
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(b.as_ptr(), b.len()) };
    Ok(unsafe { js::external_arraybuffer(env, owner, bytes) }?)
}

fn array(env: Env, d: &ArrayData) -> Result<Val> {
    let o = js::object(env)?;
    let set = |k: &str, v: Val| js::set(env, o, k, v);
    set("n", js::number(env, d.len() as f64)?)?;
    set("nc", js::number(env, d.null_count() as f64)?)?;
    if let Some(n) = d.nulls() {
        set("z", buffer(env, n.buffer())?)?;
    }
    let b = d.buffers();
    let buf = |k: &str, i: usize| -> Result<()> {
        if let Some(x) = b.get(i) {
            set(k, buffer(env, x)?)?;
        }
        Ok(())
    };
    let mut children = true;
    match d.data_type() {
        A::Utf8 | A::Binary | A::LargeUtf8 | A::LargeBinary => {
            buf("o", 0)?;
            buf("d", 1)?;
        }
        A::List(_) | A::LargeList(_) | A::Map(..) => buf("o", 0)?,
        A::Union(_, UnionMode::Dense) => {
            buf("t", 0)?;
            buf("o", 1)?;
        }
        A::Union(_, UnionMode::Sparse) => buf("t", 0)?,
        A::Dictionary(..) => {
            buf("d", 0)?;
            if let Some(values) = d.child_data().first() {
                set("x", array(env, values)?)?;
            }
            children = false;
        }
        A::Struct(_) | A::FixedSizeList(..) | A::Null => {}
        // Fixed-width values: numbers, booleans (a bitmap), decimals, dates and times,
        // fixed-size binary.
        _ => buf("d", 0)?,
    }
    if children && !d.child_data().is_empty() {
        let arr = js::array(env, d.child_data().len())?;
        for (i, c) in d.child_data().iter().enumerate() {
            js::push(env, arr, i as u32, array(env, c)?)?;
        }
        set("c", arr)?;
    }
    Ok(o)
}
