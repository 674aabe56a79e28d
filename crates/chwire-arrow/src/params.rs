//! Arrow values bound to query parameters (`{name:Type}` placeholders): converted as a batch
//! is for an insert ([`crate::batch_into_block`]), plus one conversion an insert refuses as
//! lossy but a parameter means: a double given for a `Float32` placeholder (also inside
//! `Array(Float32)`) is rounded to the nearest Float32, as the server reads a parameter's text
//! in its declared type (chwire's own client sends a Python float so). A finite double beyond
//! Float32's range is refused rather than made infinite.

use crate::{batch_into_block, mismatch, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type};
use arrow_array::{Array, ArrayRef, GenericListArray, OffsetSizeTrait, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as A, FieldRef, Schema};
use chwire_proto::column::f32_of;
use chwire_proto::{Block, DataType};
use std::sync::Arc;

/// The columns of `batch` (one row per parameter set) as a block of the placeholders' types
/// `target`, matched by name: [`crate::batch_to_block`]'s conversion with doubles rounded for
/// Float32 placeholders.
pub fn params_to_block(batch: &RecordBatch, target: &[(String, DataType)]) -> Result<Block> {
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        let array = match target.iter().find(|(n, _)| n == field.name()) {
            Some((_, ty)) => narrow_floats(array, ty).map_err(|e| e.in_column(field.name()))?,
            None => array.clone(),
        };
        fields.push(field.as_ref().clone().with_data_type(array.data_type().clone()));
        columns.push(array);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let batch = RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)?;
    batch_into_block(batch, target)
}

fn base(ty: &DataType) -> &DataType {
    match ty {
        DataType::Nullable(inner) | DataType::LowCardinality(inner) => base(inner),
        t => t,
    }
}

/// `array` with its doubles for Float32 places (`ty` itself, or the items of Arrays) rounded
/// to Float32 by [`f32_of`] (a finite double beyond Float32's range is an error naming its
/// row, or its item's index in the flattened values); the array itself where there are none.
/// The rule of every front end that takes doubles for Float32 (parameters, the Spark sources).
pub fn narrow_floats(array: &ArrayRef, ty: &DataType) -> Result<ArrayRef> {
    match (array.data_type(), base(ty)) {
        (A::Float64, DataType::Float32) => {
            let a = array.as_primitive::<Float64Type>();
            if let Some((row, e)) = a.iter().enumerate().find_map(|(row, x)| x.and_then(|x| f32_of(x).err()).map(|e| (row, e))) {
                return Err(mismatch(array.as_ref(), ty, format!("row {row}: {e}")));
            }
            Ok(Arc::new(a.unary::<_, Float32Type>(|x| x as f32)))
        }
        (A::List(item), DataType::Array(inner)) => narrow_list::<i32>(array, item, inner),
        (A::LargeList(item), DataType::Array(inner)) => narrow_list::<i64>(array, item, inner),
        _ => Ok(array.clone()),
    }
}

/// A list array (offsets of width `O`) with its items narrowed by [`narrow_floats`].
fn narrow_list<O: OffsetSizeTrait>(array: &ArrayRef, item: &FieldRef, inner: &DataType) -> Result<ArrayRef> {
    let list = array.as_list::<O>();
    let values = narrow_floats(list.values(), inner)?;
    if Arc::ptr_eq(&values, list.values()) {
        return Ok(array.clone());
    }
    Ok(Arc::new(GenericListArray::<O>::try_new(retyped(item, &values), list.offsets().clone(), values, list.nulls().cloned())?))
}

fn retyped(item: &FieldRef, values: &ArrayRef) -> FieldRef {
    Arc::new(item.as_ref().clone().with_data_type(values.data_type().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, StringArray};
    use arrow_array::{LargeListArray, ListArray};
    use chwire_proto::column::Value;

    fn one(array: ArrayRef, ty: &str) -> Result<Block> {
        let batch = RecordBatch::try_from_iter([("x", array)]).unwrap();
        params_to_block(&batch, &[("x".into(), DataType::parse(ty).unwrap())])
    }

    #[test]
    fn doubles_round_to_float32_placeholders() {
        let b = one(Arc::new(Float64Array::from(vec![Some(0.1), None, Some(f64::NAN)])), "Nullable(Float32)").unwrap();
        let col = &b.columns()[0].1;
        assert!(matches!(col.value(0), Value::Float32(x) if x == 0.1f32));
        assert!(matches!(col.value(1), Value::Null));
        assert!(matches!(col.value(2), Value::Float32(x) if x.is_nan()));
        let list = ListArray::from_iter_primitive::<Float64Type, _, _>([Some(vec![Some(0.1), Some(2.5)])]);
        let large = LargeListArray::from_iter_primitive::<Float64Type, _, _>([Some(vec![Some(0.1), Some(2.5)])]);
        for array in [Arc::new(list) as ArrayRef, Arc::new(large)] {
            let b = one(array, "Array(Float32)").unwrap();
            assert!(
                matches!(b.columns()[0].1.value(0), Value::Array(items) if matches!(items[..], [Value::Float32(a), Value::Float32(b)] if a == 0.1f32 && b == 2.5))
            );
        }
        // Beyond the range: refused, naming the column; an insert's conversion stays strict.
        let e = one(Arc::new(Float64Array::from(vec![1e39])), "Float32").unwrap_err().to_string();
        assert!(e.contains("beyond Float32's range") && e.contains('x'), "{e}");
        let batch = RecordBatch::try_from_iter([("x", Arc::new(Float64Array::from(vec![0.1])) as ArrayRef)]).unwrap();
        assert!(crate::batch_to_block(&batch, &[("x".into(), DataType::Float32)]).is_err());
    }

    #[test]
    fn uuid_and_addresses_from_text() {
        let b = one(Arc::new(StringArray::from(vec![Some("61f0c404-5cb3-11e7-907b-a6006ad3dba0"), None])), "Nullable(UUID)").unwrap();
        assert_eq!(
            format!("{:?}", b.columns()[0].1.value(0)),
            format!("{:?}", Value::Uuid(chwire_text::parse_uuid(b"61f0c4045cb311e7907ba6006ad3dba0").unwrap()))
        );
        let dict: arrow_array::DictionaryArray<arrow_array::types::Int32Type> = vec![None, Some("1.2.3.4")].into_iter().collect();
        let b = one(Arc::new(dict), "Nullable(IPv4)").unwrap();
        assert!(matches!(b.columns()[0].1.value(0), Value::Null));
        assert!(matches!(b.columns()[0].1.value(1), Value::Ipv4(a) if a == std::net::Ipv4Addr::new(1, 2, 3, 4)));
        let b = one(Arc::new(StringArray::from(vec!["1.2.3.4"])), "IPv4").unwrap();
        assert!(matches!(b.columns()[0].1.value(0), Value::Ipv4(a) if a == std::net::Ipv4Addr::new(1, 2, 3, 4)));
        let b = one(Arc::new(StringArray::from(vec!["2001:db8::1"])), "IPv6").unwrap();
        assert!(matches!(b.columns()[0].1.value(0), Value::Ipv6(a) if a == "2001:db8::1".parse::<std::net::Ipv6Addr>().unwrap()));
        for (text, ty) in [("1.2.3", "IPv4"), ("not an address", "IPv6"), ("61f0c404-5cb3-11e7-907b-a6006ad3dbaz", "UUID")] {
            let e = one(Arc::new(StringArray::from(vec![text])), ty).unwrap_err().to_string();
            assert!(e.contains("is not the text of a") && e.contains(text), "{e}");
        }
    }
}
