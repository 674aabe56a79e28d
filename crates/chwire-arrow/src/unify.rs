//! One growing dictionary per column across batches, for writers that allow one dictionary
//! per field: the Arrow IPC *file* format refuses a replaced dictionary but takes deltas.
//!
//! Each ClickHouse block of a LowCardinality column carries its own dictionary. The unifier
//! keeps, per dictionary<int32, T> field (a column, or one inside an Array, Map, Tuple or
//! Variant), every distinct value seen so far in
//! order of first appearance; each batch's keys are rewritten to that dictionary, which only
//! ever grows at its end, so arrow-ipc (`DictionaryHandling::Delta`) writes each batch's new
//! values as a delta. Memory holds the distinct values of those columns.

use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, DictionaryArray, FixedSizeListArray, Int32Array, LargeListArray, ListArray, MapArray, RecordBatch, StructArray,
    UInt32Array, UnionArray,
};
use arrow_schema::DataType as A;
use std::collections::HashMap;
use std::sync::Arc;

/// The dictionaries of one writer's columns.
#[derive(Default)]
pub struct DictionaryUnifier {
    /// By the field's path: its column's index, then child indexes.
    columns: HashMap<Vec<usize>, Unified>,
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
    /// A unifier that has seen no batch yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `batch` with each dictionary<int32, T> array, top-level or inside a list, map, struct
    /// or union, rewritten to its field's dictionary so far (grown by this batch's new
    /// values). Other arrays pass unchanged (and are not copied).
    pub fn unify(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
        for (c, column) in batch.columns().iter().enumerate() {
            columns.push(self.unify_array(vec![c], column)?);
        }
        // The row count given: a block of rows without columns has no array to tell it.
        let rows = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(batch.schema(), columns, &rows)?)
    }

    /// One array at `path` (column index, then child indexes).
    fn unify_array(&mut self, path: Vec<usize>, array: &ArrayRef) -> Result<ArrayRef> {
        if !has_dictionary(array.data_type()) {
            return Ok(array.clone());
        }
        let child = |i: usize| {
            let mut p = path.clone();
            p.push(i);
            p
        };
        Ok(match array.data_type() {
            A::Dictionary(k, _) if **k == A::Int32 => self.unify_dictionary(path, array.as_dictionary::<Int32Type>())?,
            A::List(field) => {
                let l = array.as_list::<i32>();
                let values = self.unify_array(child(0), l.values())?;
                Arc::new(ListArray::try_new(field.clone(), l.offsets().clone(), values, l.nulls().cloned())?)
            }
            A::LargeList(field) => {
                let l = array.as_list::<i64>();
                let values = self.unify_array(child(0), l.values())?;
                Arc::new(LargeListArray::try_new(field.clone(), l.offsets().clone(), values, l.nulls().cloned())?)
            }
            A::FixedSizeList(field, size) => {
                let l = array.as_fixed_size_list();
                let values = self.unify_array(child(0), l.values())?;
                Arc::new(FixedSizeListArray::try_new(field.clone(), *size, values, l.nulls().cloned())?)
            }
            A::Map(field, sorted) => {
                let m = array.as_map();
                let entries: ArrayRef = Arc::new(m.entries().clone());
                let entries = self.unify_array(child(0), &entries)?;
                Arc::new(MapArray::try_new(field.clone(), m.offsets().clone(), entries.as_struct().clone(), m.nulls().cloned(), *sorted)?)
            }
            A::Struct(fields) => {
                let s = array.as_struct();
                let children = s.columns().iter().enumerate().map(|(i, c)| self.unify_array(child(i), c)).collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new(fields.clone(), children, s.nulls().cloned())?)
            }
            A::Union(fields, _) => {
                let u = array.as_any().downcast_ref::<UnionArray>().ok_or_else(|| Error::value("a union array of another layout"))?;
                let mut children = Vec::with_capacity(fields.len());
                for (i, (type_id, _)) in fields.iter().enumerate() {
                    children.push(self.unify_array(child(i), u.child(type_id))?);
                }
                let (fields, type_ids, offsets, _) = u.clone().into_parts();
                Arc::new(UnionArray::try_new(fields, type_ids, offsets, children)?)
            }
            t => return Err(Error::UnsupportedType(format!("dictionaries inside {t} in one Arrow file"))),
        })
    }

    fn unify_dictionary(&mut self, path: Vec<usize>, dict: &DictionaryArray<Int32Type>) -> Result<ArrayRef> {
        let values = dict.values();
        let unified = self.columns.entry(path).or_insert_with(|| Unified { values: values.slice(0, 0), index: HashMap::new() });
        // Where each of this batch's dictionary values is in the field's dictionary.
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
        Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(keys, unified.values.clone())?))
    }
}

/// Whether a type holds a dictionary<int32, T> anywhere (the arrays the unifier rewrites).
fn has_dictionary(t: &A) -> bool {
    match t {
        A::Dictionary(k, _) => **k == A::Int32,
        A::List(f) | A::LargeList(f) | A::FixedSizeList(f, _) | A::Map(f, _) => has_dictionary(f.data_type()),
        A::Struct(fields) => fields.iter().any(|f| has_dictionary(f.data_type())),
        A::Union(fields, _) => fields.iter().any(|(_, f)| has_dictionary(f.data_type())),
        _ => false,
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
    /// Dictionaries inside a list, a map and a struct, different in each batch: one Arrow
    /// file (delta dictionaries) holds both batches, and they read back as written.
    #[test]
    fn nested_dictionaries_are_unified_too() {
        use arrow_array::builder::{ListBuilder, StringDictionaryBuilder};
        let list = |rows: &[&[&str]]| -> ArrayRef {
            let mut b = ListBuilder::new(StringDictionaryBuilder::<Int32Type>::new());
            for row in rows {
                for v in *row {
                    b.values().append_value(v);
                }
                b.append(true);
            }
            Arc::new(b.finish())
        };
        let strukt = |values: &[&str]| -> ArrayRef {
            let d: DictionaryArray<Int32Type> = values.iter().copied().collect();
            let field = Field::new("1", d.data_type().clone(), false);
            Arc::new(StructArray::try_new(vec![field].into(), vec![Arc::new(d) as ArrayRef], None).unwrap())
        };
        let make = |l: ArrayRef, s: ArrayRef| {
            let schema = Schema::new(vec![Field::new("l", l.data_type().clone(), true), Field::new("s", s.data_type().clone(), false)]);
            RecordBatch::try_new(Arc::new(schema), vec![l, s]).unwrap()
        };
        let a = make(list(&[&["x", "y"], &[]]), strukt(&["p", "q"]));
        let b = make(list(&[&["z"], &["y", "z", "x"]]), strukt(&["r", "p"]));
        let mut u = DictionaryUnifier::new();
        let mut file = Vec::new();
        {
            let opts = arrow_ipc::writer::IpcWriteOptions::default().with_dictionary_handling(arrow_ipc::writer::DictionaryHandling::Delta);
            let mut w = arrow_ipc::writer::FileWriter::try_new_with_options(&mut file, &a.schema(), opts).unwrap();
            for batch in [&a, &b] {
                // Without unifying, the file writer refuses the second batch's dictionaries.
                w.write(&u.unify(batch.clone()).unwrap()).unwrap();
            }
            w.finish().unwrap();
        }
        let r = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(file), None).unwrap();
        let back: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
        let plain = |b: &RecordBatch| -> Vec<String> {
            let opts = arrow_cast::display::FormatOptions::default();
            (0..b.num_columns())
                .map(|c| {
                    let f = arrow_cast::display::ArrayFormatter::try_new(b.column(c).as_ref(), &opts).unwrap();
                    (0..b.num_rows()).map(|i| f.value(i).to_string()).collect::<Vec<_>>().join(";")
                })
                .collect()
        };
        assert_eq!(back.iter().map(plain).collect::<Vec<_>>(), vec![plain(&a), plain(&b)]);
        let mut w = arrow_ipc::writer::FileWriter::try_new(Vec::new(), &a.schema()).unwrap();
        w.write(&a).unwrap();
        assert!(w.write(&b).is_err(), "the file writer refuses a replaced nested dictionary");
    }
}
