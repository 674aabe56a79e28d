//! Arrow helpers for the two Arrow peers, which use different major versions of arrow-rs
//! (clickhouse-arrow: 57, clickhouse-ext-arrow: 59): one body, instantiated for each.

macro_rules! arrow_util {
    ($m:ident, $array:ident, $schema:ident) => {
        pub mod $m {
            use crate::*;
            use std::sync::Arc;
            use $array::cast::AsArray;
            use $array::types::UInt64Type;
            use $array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
            use $schema::{DataType, Field, Schema};

            pub fn sum_u64(col: &ArrayRef) -> AnyResult<u64> {
                let a = col.as_primitive_opt::<UInt64Type>().ok_or_else(|| format!("expected UInt64, got {}", col.data_type()))?;
                Ok(a.values().iter().fold(0u64, |s, &v| s.wrapping_add(v)))
            }

            pub fn string_bytes(col: &ArrayRef) -> AnyResult<u64> {
                match col.data_type() {
                    DataType::Utf8 => {
                        let s = col.as_string::<i32>();
                        Ok((s.value_offsets()[s.len()] - s.value_offsets()[0]) as u64)
                    }
                    DataType::Binary => {
                        let s = col.as_binary::<i32>();
                        Ok((s.value_offsets()[s.len()] - s.value_offsets()[0]) as u64)
                    }
                    other => Err(format!("expected a string column, got {other}").into()),
                }
            }

            pub fn sum_all(b: &RecordBatch) -> AnyResult<u64> {
                let mut s = 0u64;
                for c in b.columns() {
                    s = s.wrapping_add(sum_u64(c)?);
                }
                Ok(s)
            }

            /// W5's block `b` as a record batch (DateTime sent as UInt32 seconds).
            pub fn w5_batch(b: u64) -> AnyResult<RecordBatch> {
                let ids: Vec<u64> = (b * W5_BLOCK..(b + 1) * W5_BLOCK).collect();
                let mut name = String::new();
                let names: StringArray = ids
                    .iter()
                    .map(|&i| {
                        w5_row(i, &mut name);
                        Some(name.clone())
                    })
                    .collect();
                let values = Float64Array::from_iter_values(ids.iter().map(|&i| i as f64 * 0.5));
                let ts = UInt32Array::from_iter_values(ids.iter().map(|&i| 1_600_000_000 + (i % 86_400) as u32));
                let schema = Arc::new(Schema::new(vec![
                    Field::new("id", DataType::UInt64, false),
                    Field::new("name", DataType::Utf8, false),
                    Field::new("value", DataType::Float64, false),
                    Field::new("ts", DataType::UInt32, false),
                ]));
                Ok(RecordBatch::try_new(schema, vec![Arc::new(UInt64Array::from(ids)), Arc::new(names), Arc::new(values), Arc::new(ts)])?)
            }
        }
    };
}

arrow_util!(a57, arrow_array_57, arrow_schema_57);
arrow_util!(a59, arrow_array, arrow_schema);
