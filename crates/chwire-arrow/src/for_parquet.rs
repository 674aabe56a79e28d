//! Arrow types that Parquet cannot hold as they are, and their lossless equivalents.
//!
//! A timestamp in seconds (DateTime in the rich mapping) has no Parquet logical type:
//! parquet-rs writes it as a bare INT64, which only arrow-rs readers (through the embedded
//! Arrow schema) take back as a time; pyarrow, ClickHouse and DuckDB read a number. It goes to
//! Parquet in milliseconds instead, as ClickHouse 26.9 writes DateTime (`timestamp[ms]` with
//! its zone), at any depth. Reading back to a DateTime column divides exactly.

use crate::Result;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType as A, Field, Fields, Schema, SchemaRef, TimeUnit};
use std::sync::Arc;

/// The schema to write to Parquet, when it differs from `schema`.
pub fn parquet_schema(schema: &Schema) -> Option<SchemaRef> {
    let fields: Vec<Option<Field>> = schema.fields().iter().map(|f| field(f)).collect();
    if fields.iter().all(Option::is_none) {
        return None;
    }
    let fields: Vec<Field> =
        fields.into_iter().zip(schema.fields()).map(|(new, old)| new.unwrap_or_else(|| old.as_ref().clone())).collect();
    Some(Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())))
}

/// `batch` cast to [`parquet_schema`]'s `target` (milliseconds are seconds × 1000: exact).
pub fn to_parquet_batch(batch: &RecordBatch, target: &SchemaRef) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .zip(target.fields())
        .map(|(c, f)| if c.data_type() == f.data_type() { Ok(c.clone()) } else { arrow_cast::cast(c, f.data_type()) })
        .collect::<std::result::Result<Vec<ArrayRef>, _>>()?;
    Ok(RecordBatch::try_new(target.clone(), columns)?)
}

fn field(f: &Field) -> Option<Field> {
    ty(f.data_type()).map(|t| f.clone().with_data_type(t))
}

fn fields(fs: &Fields) -> Option<Fields> {
    let new: Vec<Option<Field>> = fs.iter().map(|f| field(f)).collect();
    if new.iter().all(Option::is_none) {
        return None;
    }
    Some(new.into_iter().zip(fs.iter()).map(|(n, o)| n.unwrap_or_else(|| o.as_ref().clone())).collect())
}

/// `t` with timestamps in seconds as milliseconds; None when it has none.
fn ty(t: &A) -> Option<A> {
    match t {
        A::Timestamp(TimeUnit::Second, tz) => Some(A::Timestamp(TimeUnit::Millisecond, tz.clone())),
        A::List(f) => field(f).map(|f| A::List(Arc::new(f))),
        A::LargeList(f) => field(f).map(|f| A::LargeList(Arc::new(f))),
        A::FixedSizeList(f, n) => field(f).map(|f| A::FixedSizeList(Arc::new(f), *n)),
        A::Struct(fs) => fields(fs).map(A::Struct),
        A::Map(f, sorted) => field(f).map(|f| A::Map(Arc::new(f), *sorted)),
        A::Dictionary(k, v) => ty(v).map(|v| A::Dictionary(k.clone(), Box::new(v))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampMillisecondType;
    use arrow_array::{Array, ListArray, TimestampSecondArray};

    #[test]
    fn seconds_become_milliseconds_at_any_depth() {
        let ts = TimestampSecondArray::from(vec![1_577_836_800, -1]).with_timezone("UTC");
        let list = ListArray::new(
            Arc::new(Field::new_list_field(ts.data_type().clone(), true)),
            arrow_buffer::OffsetBuffer::from_lengths([1, 1]),
            Arc::new(ts.clone()),
            None,
        );
        let schema = Arc::new(Schema::new(vec![
            Field::new("t", ts.data_type().clone(), false),
            Field::new("l", list.data_type().clone(), false),
            Field::new("n", A::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(ts), Arc::new(list), Arc::new(arrow_array::Int32Array::from(vec![1, 2])) as ArrayRef],
        )
        .unwrap();
        let target = parquet_schema(&schema).expect("changed");
        let out = to_parquet_batch(&batch, &target).unwrap();
        let t = out.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(t.values(), &[1_577_836_800_000, -1000]);
        assert_eq!(t.timezone(), Some("UTC"));
        let inner = out.column(1).as_list::<i32>().values().as_primitive::<TimestampMillisecondType>().values().to_vec();
        assert_eq!(inner, [1_577_836_800_000, -1000]);
        assert!(parquet_schema(&Schema::new(vec![Field::new("n", A::Int32, false)])).is_none());
    }
}
