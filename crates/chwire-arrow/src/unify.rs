//! One growing dictionary per column across batches, for writers that allow one dictionary
//! per field: the Arrow IPC *file* format refuses a replaced dictionary but takes deltas.
//!
//! Each ClickHouse block of a LowCardinality column carries its own dictionary. The unifier
//! keeps, per top-level dictionary<int32, T> column, every distinct value seen so far in
//! order of first appearance; each batch's keys are rewritten to that dictionary, which only
//! ever grows at its end, so arrow-ipc (`DictionaryHandling::Delta`) writes each batch's new
//! values as a delta. Memory holds the distinct values of those columns.

use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, Int32Array, RecordBatch, UInt32Array};
use arrow_schema::DataType as A;
use std::collections::HashMap;

/// The dictionaries of one writer's columns.
#[derive(Default)]
pub struct DictionaryUnifier {
    columns: HashMap<usize, Unified>,
}

/// One column's dictionary so far and where each value is in it (`None`: a null value).
struct Unified {
    values: ArrayRef,
    index: HashMap<Option<Vec<u8>>, i32>,
}

/// A dictionary value's identity: its bytes (`None` for null), for the value types the
/// mappings put in dictionaries; `Err` for others.
fn key(values: &dyn Array, i: usize) -> std::result::Result<Option<Vec<u8>>, ()> {
    if values.is_null(i) {
        return Ok(None);
    }
    let bytes = match values.data_type() {
        A::Utf8 => values.as_string::<i32>().value(i).as_bytes().to_vec(),
        A::LargeUtf8 => values.as_string::<i64>().value(i).as_bytes().to_vec(),
        A::Binary => values.as_binary::<i32>().value(i).to_vec(),
        A::LargeBinary => values.as_binary::<i64>().value(i).to_vec(),
        A::FixedSizeBinary(_) => values.as_fixed_size_binary().value(i).to_vec(),
        t if t.is_primitive() => {
            let width = t.primitive_width().ok_or(())?;
            let data = values.to_data();
            let buffer = data.buffers().first().ok_or(())?;
            let start = (data.offset() + i) * width;
            buffer.as_slice().get(start..start + width).ok_or(())?.to_vec()
        }
        _ => return Err(()),
    };
    Ok(Some(bytes))
}

impl DictionaryUnifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// `batch` with each top-level dictionary<int32, T> column rewritten to its column's
    /// dictionary so far (grown by this batch's new values). Other columns pass unchanged.
    pub fn unify(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for (c, column) in columns.iter_mut().enumerate() {
            let A::Dictionary(k, _) = column.data_type() else { continue };
            if **k != A::Int32 {
                continue;
            }
            let dict = column.as_dictionary::<Int32Type>();
            let values = dict.values();
            let unified = match self.columns.get_mut(&c) {
                Some(u) => u,
                None => self.columns.entry(c).or_insert(Unified { values: values.slice(0, 0), index: HashMap::new() }),
            };
            // Where each of this batch's dictionary values is in the column's dictionary.
            let mut to_global = Vec::with_capacity(values.len());
            let mut new_values = Vec::new();
            for i in 0..values.len() {
                let k = key(values.as_ref(), i)
                    .map_err(|()| Error::UnsupportedType(format!("dictionary of {} in one Arrow file", values.data_type())))?;
                let next = i32::try_from(unified.index.len()).map_err(|_| Error::value("more than 2^31 distinct dictionary values"))?;
                let g = match unified.index.get(&k) {
                    Some(&g) => g,
                    None => {
                        unified.index.insert(k, next);
                        new_values.push(i as u32);
                        next
                    }
                };
                to_global.push(g);
            }
            if !new_values.is_empty() {
                let added = arrow_select::take::take(values.as_ref(), &UInt32Array::from(new_values), None)?;
                unified.values = arrow_select::concat::concat(&[unified.values.as_ref(), added.as_ref()])?;
            }
            let keys: Int32Array = dict.keys().iter().map(|k| k.and_then(|k| to_global.get(k as usize).copied())).collect();
            *column = std::sync::Arc::new(DictionaryArray::<Int32Type>::try_new(keys, unified.values.clone())?);
        }
        Ok(RecordBatch::try_new(batch.schema(), columns)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::StringArray;
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    fn batch(keys: Vec<Option<i32>>, values: Vec<Option<&str>>) -> RecordBatch {
        let d = DictionaryArray::<Int32Type>::try_new(Int32Array::from(keys), Arc::new(StringArray::from(values))).unwrap();
        let schema = Schema::new(vec![Field::new("lc", d.data_type().clone(), true)]);
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(d)]).unwrap()
    }

    fn strings(b: &RecordBatch) -> Vec<Option<String>> {
        let d = b.column(0).as_dictionary::<Int32Type>();
        let v = d.values().as_string::<i32>();
        d.keys().iter().map(|k| k.and_then(|k| v.is_valid(k as usize).then(|| v.value(k as usize).to_string()))).collect()
    }

    #[test]
    fn dictionaries_grow_at_their_end_and_values_stay() {
        let mut u = DictionaryUnifier::new();
        let a = batch(vec![Some(1), Some(0), None], vec![None, Some("x")]);
        let b = batch(vec![Some(0), Some(1), Some(2)], vec![Some("y"), Some("x"), None]);
        let (a2, b2) = (u.unify(a.clone()).unwrap(), u.unify(b.clone()).unwrap());
        assert_eq!(strings(&a2), strings(&a));
        assert_eq!(strings(&b2), strings(&b));
        let first = a2.column(0).as_dictionary::<Int32Type>().values().to_data();
        let second = b2.column(0).as_dictionary::<Int32Type>().values().to_data();
        assert_eq!(second.len(), 3, "null, x, then y");
        assert_eq!(second.slice(0, first.len()), first, "a delta: the old dictionary is a prefix");
    }
}
