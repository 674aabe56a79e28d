//! Spark-facing Arrow: the Arrow type Spark's `ArrowColumnVector` reads for each Spark type
//! (Spark's own `ArrowUtils` mapping: timestamps as microseconds in UTC, decimals as
//! Decimal128, lists of `element`, maps of `entries` {`key`, `value`}), and the conversion of
//! chwire's batches into it: checked (a value that does not fit is an error naming the column,
//! never truncated or wrapped), structs matched by position, every array at offset 0.

use arrow_array::{cast::AsArray, types::TimestampMicrosecondType, Array, ArrayRef, ListArray, MapArray, RecordBatch, StructArray};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use serde_json::Value;
use std::sync::Arc;

use crate::types::SparkColumn;
use crate::{invalid, Error, Result};

/// The Arrow type of a Spark type in Spark's JSON form.
pub fn arrow_type(t: &Value) -> Result<DataType> {
    Ok(match t {
        Value::String(s) => match s.as_str() {
            "byte" => DataType::Int8,
            "short" => DataType::Int16,
            "integer" => DataType::Int32,
            "long" => DataType::Int64,
            "float" => DataType::Float32,
            "double" => DataType::Float64,
            "boolean" => DataType::Boolean,
            "string" => DataType::Utf8,
            "binary" => DataType::Binary,
            "date" => DataType::Date32,
            "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            d if d.starts_with("decimal(") => {
                let inner = d.trim_start_matches("decimal(").trim_end_matches(')');
                let (p, s) = inner.split_once(',').unwrap_or((inner, "0"));
                let p: u8 = p.trim().parse().map_err(|_| Error::Invalid(format!("bad Spark type {d}")))?;
                let s: i8 = s.trim().parse().map_err(|_| Error::Invalid(format!("bad Spark type {d}")))?;
                DataType::Decimal128(p, s)
            }
            other => return invalid(format!("no Arrow type for Spark type {other}")),
        },
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            Some("array") => {
                let elem = arrow_type(&o["elementType"])?;
                let nullable = o.get("containsNull").and_then(Value::as_bool).unwrap_or(true);
                DataType::List(Arc::new(Field::new("element", elem, nullable)))
            }
            Some("struct") => DataType::Struct(struct_fields(&o["fields"])?),
            Some("map") => {
                let nullable = o.get("valueContainsNull").and_then(Value::as_bool).unwrap_or(true);
                let entries = Fields::from(vec![
                    Field::new("key", arrow_type(&o["keyType"])?, false),
                    Field::new("value", arrow_type(&o["valueType"])?, nullable),
                ]);
                DataType::Map(Arc::new(Field::new("entries", DataType::Struct(entries), false)), false)
            }
            _ => return invalid(format!("no Arrow type for Spark type {t}")),
        },
        _ => return invalid(format!("no Arrow type for Spark type {t}")),
    })
}

fn struct_fields(fields: &Value) -> Result<Fields> {
    let Some(list) = fields.as_array() else { return invalid("a Spark struct without fields") };
    list.iter().map(field).collect::<Result<Vec<_>>>().map(Fields::from)
}

/// The Arrow field of a Spark StructField in JSON form.
pub fn field(f: &Value) -> Result<Field> {
    let name = f["name"].as_str().unwrap_or_default();
    Ok(Field::new(name, arrow_type(&f["type"])?, f["nullable"].as_bool().unwrap_or(true)))
}

/// The Arrow fields of a Spark schema in JSON form (`StructType.json()`).
pub fn spark_fields(schema: &str) -> Result<Vec<Field>> {
    let v: Value = serde_json::from_str(schema).map_err(|e| Error::Invalid(format!("bad Spark schema JSON: {e}")))?;
    Ok(struct_fields(&v["fields"])?.iter().map(|f| f.as_ref().clone()).collect())
}

/// The Arrow schema Spark reads for `columns`.
pub fn spark_schema(columns: &[SparkColumn]) -> Result<SchemaRef> {
    let fields = columns.iter().map(|c| field(&c.field)).collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

fn checked() -> CastOptions<'static> {
    CastOptions { safe: false, ..Default::default() }
}

/// `array` as Arrow type `to` (see the module's doc).
pub fn conform(array: &ArrayRef, to: &DataType) -> std::result::Result<ArrayRef, String> {
    let from = array.data_type();
    if from == to && array.offset() == 0 {
        return Ok(array.clone());
    }
    if let DataType::Dictionary(_, values) = from {
        let plain = cast_with_options(array, values, &checked()).map_err(|e| e.to_string())?;
        return conform(&plain, to);
    }
    match (from, to) {
        (DataType::Struct(_), DataType::Struct(fields)) => {
            let s = array.as_struct();
            if s.num_columns() != fields.len() {
                return Err(format!("a Tuple of {} elements does not fit a struct of {}", s.num_columns(), fields.len()));
            }
            let children = s
                .columns()
                .iter()
                .zip(fields.iter())
                .map(|(c, f)| conform(c, f.data_type()))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let nulls = s.nulls().cloned();
            let out = StructArray::try_new(fields.clone(), children, nulls).map_err(|e| e.to_string())?;
            Ok(Arc::new(out))
        }
        (DataType::List(_) | DataType::LargeList(_), DataType::List(field)) => {
            let list = if matches!(from, DataType::LargeList(_)) {
                let inner = array.as_list::<i64>().values().data_type().clone();
                let as32 = DataType::List(Arc::new(Field::new("item", inner, true)));
                cast_with_options(array, &as32, &checked()).map_err(|e| e.to_string())?
            } else {
                array.clone()
            };
            let l = list.as_list::<i32>();
            // Offsets rebased to the values they point at (a sliced list keeps its offsets).
            let first = l.value_offsets()[0] as usize;
            let last = *l.value_offsets().last().unwrap_or(&0) as usize;
            let values = conform(&l.values().slice(first, last - first), field.data_type())?;
            let offsets = arrow_buffer::OffsetBuffer::new(l.offsets().iter().map(|o| o - first as i32).collect());
            let out = ListArray::try_new(field.clone(), offsets, values, l.nulls().cloned()).map_err(|e| e.to_string())?;
            Ok(Arc::new(out))
        }
        (DataType::Map(_, _), DataType::Map(field, sorted)) => {
            let m = array.as_map();
            let first = m.value_offsets()[0] as usize;
            let last = *m.value_offsets().last().unwrap_or(&0) as usize;
            let entries: ArrayRef = Arc::new(m.entries().clone());
            let entries = conform(&entries.slice(first, last - first), field.data_type())?;
            let offsets = arrow_buffer::OffsetBuffer::new(m.offsets().iter().map(|o| o - first as i32).collect());
            let out = MapArray::try_new(field.clone(), offsets, entries.as_struct().clone(), m.nulls().cloned(), *sorted)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(out))
        }
        (DataType::Timestamp(unit, _), DataType::Timestamp(TimeUnit::Microsecond, _)) if *unit == TimeUnit::Nanosecond => {
            let out = cast_with_options(array, to, &checked()).map_err(|e| e.to_string())?;
            // arrow's cast divides: a value finer than a microsecond would be truncated.
            let ns = cast_with_options(array, &DataType::Int64, &checked()).map_err(|e| e.to_string())?;
            let ns = ns.as_primitive::<arrow_array::types::Int64Type>();
            if let Some(i) = (0..ns.len()).find(|&i| ns.is_valid(i) && ns.value(i) % 1000 != 0) {
                return Err(format!("row {i}: a timestamp of nanoseconds is finer than Spark's microseconds"));
            }
            debug_assert!(out.as_primitive_opt::<TimestampMicrosecondType>().is_some());
            Ok(out)
        }
        _ => {
            let out = cast_with_options(array, to, &checked()).map_err(|e| e.to_string())?;
            if out.offset() != 0 {
                // A cast that passed the array through as it was: copied to offset 0.
                return Ok(arrow_array::make_array(out.to_data().slice(0, out.len())));
            }
            Ok(out)
        }
    }
}

/// chwire's batch as Spark reads it: the columns of `schema`, in its order, by position.
pub fn to_spark(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.num_columns() != schema.fields().len() {
        return invalid(format!("the server sent {} columns, {} were planned", batch.num_columns(), schema.fields().len()));
    }
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (col, f) in batch.columns().iter().zip(schema.fields()) {
        let c = conform(col, f.data_type())
            .map_err(|e| Error::Invalid(format!("column '{}': its values do not fit Spark's {}: {e}", f.name(), f.data_type())))?;
        columns.push(c);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| Error::Invalid(format!("a batch for Spark: {e}")))
}

/// The Arrow type a Spark column of Arrow type `from` is written as into ClickHouse type `to`,
/// where Spark's own mapping differs from what chwire-arrow converts: a UInt64, read as
/// `decimal(20,0)`, is written from that decimal (checked: a value outside UInt64 is an error),
/// at any depth (array elements, map keys and values, tuple elements by position);
/// a UUID, read as its text, from that text (see [`from_spark`]).
/// None where the batch's type is written as it is.
fn written_type(from: &DataType, to: &chwire::DataType) -> Option<DataType> {
    use chwire::DataType as Ch;
    // `fields` with the written type of each that has one; None when none has.
    fn fields_written(fields: &Fields, to: &[&chwire::DataType]) -> Option<Fields> {
        if fields.len() != to.len() {
            return None;
        }
        let written: Vec<Option<DataType>> = fields.iter().zip(to).map(|(f, t)| written_type(f.data_type(), t)).collect();
        if written.iter().all(Option::is_none) {
            return None;
        }
        Some(
            fields
                .iter()
                .zip(written)
                .map(|(f, w)| match w {
                    Some(t) => Arc::new(f.as_ref().clone().with_data_type(t)),
                    None => f.clone(),
                })
                .collect(),
        )
    }
    match (from, to) {
        (_, Ch::Nullable(inner) | Ch::LowCardinality(inner)) => written_type(from, inner),
        (DataType::Decimal128(20, 0), Ch::UInt64) => Some(DataType::UInt64),
        (DataType::List(f), Ch::Array(inner)) => {
            written_type(f.data_type(), inner).map(|t| DataType::List(Arc::new(f.as_ref().clone().with_data_type(t))))
        }
        (DataType::Map(entries, sorted), Ch::Map(k, v)) => {
            let DataType::Struct(kv) = entries.data_type() else { return None };
            let kv = fields_written(kv, &[k, v])?;
            Some(DataType::Map(Arc::new(entries.as_ref().clone().with_data_type(DataType::Struct(kv))), *sorted))
        }
        (DataType::Struct(fields), Ch::Tuple(elements)) => {
            let to: Vec<&chwire::DataType> = elements.iter().map(|(_, t)| t).collect();
            fields_written(fields, &to).map(DataType::Struct)
        }
        _ => None,
    }
}

/// Spark's batch as chwire-arrow converts it to the columns `target` (by name): the columns of
/// `written_type` converted, checked, the others as they are.
pub fn from_spark(batch: RecordBatch, target: &[(String, chwire::DataType)]) -> Result<RecordBatch> {
    let schema = batch.schema();
    let mut changed = false;
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (col, f) in batch.columns().iter().zip(schema.fields()) {
        let ch = target.iter().find(|(n, _)| n == f.name()).map(|(_, t)| t);
        // Doubles for Float32 places, also inside arrays: rounded by the rule every front end
        // shares (chwire-arrow's narrow_floats).
        let narrowed = match ch {
            Some(t) => chwire_arrow::narrow_floats(col, t).map_err(|e| Error::Invalid(format!("column '{}': {e}", f.name())))?,
            None => col.clone(),
        };
        let converted = if !Arc::ptr_eq(&narrowed, col) {
            Some(narrowed)
        } else {
            match ch.and_then(|t| written_type(f.data_type(), t)) {
                Some(to) => Some(
                    conform(col, &to)
                        .map_err(|e| Error::Invalid(format!("column '{}': its values do not fit ClickHouse's: {e}", f.name())))?,
                ),
                None => None,
            }
        };
        match converted {
            Some(c) => {
                fields.push(Arc::new(f.as_ref().clone().with_data_type(c.data_type().clone())));
                columns.push(c);
                changed = true;
            }
            None => {
                fields.push(f.clone());
                columns.push(col.clone());
            }
        }
    }
    if !changed {
        return Ok(batch);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| Error::Invalid(format!("a batch for ClickHouse: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray, TimestampNanosecondArray, UInt64Array};
    use serde_json::json;

    #[test]
    fn types() {
        assert_eq!(arrow_type(&json!("decimal(20,0)")).unwrap(), DataType::Decimal128(20, 0));
        let m = arrow_type(&json!({"type": "map", "keyType": "string", "valueType": "long", "valueContainsNull": true})).unwrap();
        assert!(matches!(m, DataType::Map(_, false)));
        assert!(arrow_type(&json!("interval")).is_err());
    }

    #[test]
    fn uint64_is_written_from_spark_decimals() {
        use arrow_array::Decimal128Array;
        let target = [("u".to_string(), chwire::DataType::Nullable(Box::new(chwire::DataType::UInt64)))];
        let d = Decimal128Array::from(vec![Some(u64::MAX as i128), None]).with_precision_and_scale(20, 0).unwrap();
        let batch = RecordBatch::try_from_iter([("u", Arc::new(d) as ArrayRef)]).unwrap();
        let out = from_spark(batch, &target).unwrap();
        assert_eq!(out.column(0).as_primitive::<arrow_array::types::UInt64Type>().value(0), u64::MAX);
        let neg = Decimal128Array::from(vec![-1i128]).with_precision_and_scale(20, 0).unwrap();
        let batch = RecordBatch::try_from_iter([("u", Arc::new(neg) as ArrayRef)]).unwrap();
        assert!(from_spark(batch, &target).unwrap_err().to_string().contains("column 'u'"));
    }

    #[test]
    fn uint64_is_written_from_spark_decimals_inside_maps_and_tuples() {
        use arrow_array::builder::{Decimal128Builder, MapBuilder, StringBuilder};
        use arrow_array::Decimal128Array;
        use chwire::DataType as Ch;
        let u64_ = || Box::new(Ch::UInt64);
        // Map(String, UInt64), read as map<string, decimal(20,0)>.
        let mut b = MapBuilder::new(None, StringBuilder::new(), Decimal128Builder::new().with_data_type(DataType::Decimal128(20, 0)));
        b.keys().append_value("top");
        b.values().append_value(u64::MAX as i128);
        b.append(true).unwrap();
        let m: ArrayRef = Arc::new(b.finish());
        // Tuple(Int32, Nullable(UInt64)), read as struct<1: int, 2: decimal(20,0)>.
        let d = Decimal128Array::from(vec![Some(7i128)]).with_precision_and_scale(20, 0).unwrap();
        let t: ArrayRef = Arc::new(StructArray::from(vec![
            (Arc::new(Field::new("1", DataType::Int32, false)), Arc::new(arrow_array::Int32Array::from(vec![1])) as ArrayRef),
            (Arc::new(Field::new("2", DataType::Decimal128(20, 0), true)), Arc::new(d) as ArrayRef),
        ]));
        let target = [
            ("m".to_string(), Ch::Map(Box::new(Ch::String), u64_())),
            ("t".to_string(), Ch::Tuple(vec![(None, Ch::Int32), (None, Ch::Nullable(u64_()))])),
        ];
        let batch = RecordBatch::try_from_iter([("m", m.clone()), ("t", t)]).unwrap();
        let out = from_spark(batch, &target).unwrap();
        let values = out.column(0).as_map().values().as_primitive::<arrow_array::types::UInt64Type>().value(0);
        assert_eq!(values, u64::MAX);
        let second = out.column(1).as_struct().column(1).as_primitive::<arrow_array::types::UInt64Type>().value(0);
        assert_eq!(second, 7);
        // A decimal outside UInt64 in a map value is an error naming the column.
        let mut b = MapBuilder::new(None, StringBuilder::new(), Decimal128Builder::new().with_data_type(DataType::Decimal128(20, 0)));
        b.keys().append_value("neg");
        b.values().append_value(-1);
        b.append(true).unwrap();
        let batch = RecordBatch::try_from_iter([("m", Arc::new(b.finish()) as ArrayRef)]).unwrap();
        assert!(from_spark(batch, &target[..1]).unwrap_err().to_string().contains("column 'm'"));
    }

    #[test]
    fn a_null_array_is_the_empty_one_by_the_cores_rule() {
        use arrow_array::builder::{Int32Builder, ListBuilder};
        use chwire::DataType as Ch;
        let mut b = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
        b.values().values().append_value(1);
        b.values().append(true);
        b.append(true);
        b.values().append_null(); // a NULL inner array
        b.append(true);
        b.append_null(); // a NULL outer array
        let nested = Ch::Array(Box::new(Ch::Array(Box::new(Ch::Nullable(Box::new(Ch::Int32))))));
        let target = [("c".to_string(), nested)];
        let batch = from_spark(RecordBatch::try_from_iter([("c", Arc::new(b.finish()) as ArrayRef)]).unwrap(), &target).unwrap();
        let block = chwire_arrow::batch_to_block(&batch, &target).unwrap();
        let c = block.column("c").unwrap();
        let ints = |v: &[i32]| chwire::Value::Array(v.iter().map(|&i| chwire::Value::Int(i.into())).collect());
        assert_eq!(c.value(0), chwire::Value::Array(vec![ints(&[1])]));
        assert_eq!(c.value(1), chwire::Value::Array(vec![ints(&[])]));
        assert_eq!(c.value(2), chwire::Value::Array(vec![]));
    }

    #[test]
    fn doubles_into_float32_are_rounded_or_refused_beyond_its_range() {
        use arrow_array::Float64Array;
        let target = [("f".to_string(), chwire::DataType::Nullable(Box::new(chwire::DataType::Float32)))];
        let d = Float64Array::from(vec![Some(1.5), None, Some(0.1), Some(f64::NAN), Some(f64::INFINITY)]);
        let batch = RecordBatch::try_from_iter([("f", Arc::new(d) as ArrayRef)]).unwrap();
        let out = from_spark(batch, &target).unwrap();
        let f = out.column(0).as_primitive::<arrow_array::types::Float32Type>();
        assert_eq!((f.value(0), f.is_null(1), f.value(2)), (1.5, true, 0.1f32));
        assert!(f.value(3).is_nan() && f.value(4).is_infinite());
        let big = Float64Array::from(vec![1.0, 1e300]);
        let batch = RecordBatch::try_from_iter([("f", Arc::new(big) as ArrayRef)]).unwrap();
        let e = from_spark(batch, &target).unwrap_err().to_string();
        assert!(e.contains("column 'f'") && e.contains("row 1: ") && e.contains("beyond Float32's range"), "{e}");
    }

    #[test]
    fn checked_conversions() {
        let u: ArrayRef = Arc::new(UInt64Array::from(vec![1, u64::MAX]));
        assert!(conform(&u, &DataType::Int64).is_err());
        assert_eq!(conform(&u, &DataType::Decimal128(20, 0)).unwrap().len(), 2);
        let ok: ArrayRef = Arc::new(UInt64Array::from(vec![1, 2]));
        assert_eq!(conform(&ok, &DataType::Int64).unwrap().as_primitive::<arrow_array::types::Int64Type>().value(1), 2);
        let ts: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![1_000, 1_001]).with_timezone("UTC"));
        let micro = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        assert!(conform(&ts, &micro).unwrap_err().contains("row 1"));
        let sliced: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]).slice(1, 2));
        assert_eq!(conform(&sliced, &DataType::Int64).unwrap().offset(), 0);
        let s: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        assert!(conform(&s, &DataType::Utf8).is_ok());
    }
}
