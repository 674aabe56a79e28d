//! Arrow arrays → column data without copying where the layouts agree and the array is its
//! buffers' only owner (as the fresh batches of a Parquet or IPC reader are): fixed-width values
//! of exactly the target's Arrow type move into the column (`Buffer::into_vec`), and so do the
//! value bytes of strings and binaries (their offsets are widened to the column's `u64` in one
//! pass where they are 32-bit), also as the values of a `Nullable` column. Anything else —
//! casts, slices, buffers shared with another array or allocated outside Rust (e.g. by
//! pyarrow) — goes through [`from_arrow::to_column`], which copies, with the same result.

use crate::from_arrow;
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, OffsetSizeTrait, PrimitiveArray};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::DataType as A;
use chwire_proto::column::NullableColumn;
use chwire_proto::{ColumnData, DataType, StringColumn};
use std::sync::Arc;

/// Converts `array` to the storage of `ty`, taking its buffers where it can (module docs).
pub(crate) fn into_column(array: ArrayRef, ty: &DataType) -> Result<ColumnData> {
    match take(array, ty) {
        Ok(column) => column,
        Err(array) => from_arrow::to_column(array.as_ref(), ty),
    }
}

/// The column when the fast path applies (`Err`: the array, untouched, for the copying one).
fn take(array: ArrayRef, ty: &DataType) -> std::result::Result<Result<ColumnData>, ArrayRef> {
    if array.offset() != 0 {
        return Err(array);
    }
    match ty {
        // The values behind NULLs are kept as they are (the copying path copies them as they
        // are); the validity is shared, not copied, until the values are known to be taken
        // (`plain` takes only arrays whose validity is their logical nulls).
        DataType::Nullable(inner) => {
            let (validity, rows) = (array.nulls().cloned(), array.len());
            Ok(plain(array, inner)?.map(|values| {
                let nulls = from_arrow::null_map(validity.as_ref(), rows);
                ColumnData::Nullable(Box::new(NullableColumn { nulls, values }))
            }))
        }
        _ if array.null_count() > 0 => Err(array),
        _ => plain(array, ty),
    }
}

/// The values of `array` as the storage of the plain (not Nullable) type `ty`, whatever its
/// validity says.
fn plain(array: ArrayRef, ty: &DataType) -> std::result::Result<Result<ColumnData>, ArrayRef> {
    use DataType as T;
    Ok(Ok(match ty {
        T::UInt8 => ColumnData::UInt8(values::<UInt8Type>(array)?),
        T::UInt16 => ColumnData::UInt16(values::<UInt16Type>(array)?),
        T::UInt32 | T::Ipv4 => ColumnData::UInt32(values::<UInt32Type>(array)?),
        T::UInt64 => ColumnData::UInt64(values::<UInt64Type>(array)?),
        T::Int8 => ColumnData::Int8(values::<Int8Type>(array)?),
        T::Int16 => ColumnData::Int16(values::<Int16Type>(array)?),
        T::Int32 => ColumnData::Int32(values::<Int32Type>(array)?),
        T::Int64 => ColumnData::Int64(values::<Int64Type>(array)?),
        T::Float32 => ColumnData::Float32(values::<Float32Type>(array)?),
        T::Float64 => ColumnData::Float64(values::<Float64Type>(array)?),
        T::String => match array.data_type() {
            A::Utf8 | A::Binary => return Ok(strings::<i32>(array).map(ColumnData::String)),
            A::LargeUtf8 | A::LargeBinary => return Ok(strings::<i64>(array).map(ColumnData::String)),
            _ => return Err(array),
        },
        _ => return Err(array),
    }))
}

/// The values of a primitive array of exactly `T`'s Arrow type, moved out of its buffer when
/// the array owns it alone (`Err`: an equal array, for the copying path).
fn values<T: ArrowPrimitiveType>(array: ArrayRef) -> std::result::Result<Vec<T::Native>, ArrayRef> {
    if array.data_type() != &T::DATA_TYPE {
        return Err(array);
    }
    let Some(owned) = array.as_primitive_opt::<T>().cloned() else { return Err(array) };
    drop(array); // the buffer's other owner
    let (data_type, values, nulls) = owned.into_parts();
    let len = values.len();
    values.into_inner().into_vec::<T::Native>().map_err(|buffer: Buffer| {
        Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::new(buffer, 0, len), nulls).with_data_type(data_type)) as ArrayRef
    })
}

/// A string or binary array's offsets and bytes; each moves when the array owns it alone and
/// its offsets start at 0 (the offsets only when they are 64-bit), and is copied otherwise.
fn strings<O: OffsetSizeTrait>(array: ArrayRef) -> Result<StringColumn> {
    let data = array.to_data();
    drop(array); // the buffers' other owner
    let rows = data.len();
    let offsets: &[O] = data.buffer::<O>(0).get(..rows.saturating_add(1)).unwrap_or_default();
    let start = offsets.first().map_or(0, |o| o.as_usize());
    let end = offsets.last().map_or(0, |o| o.as_usize());
    let rebased: Option<Vec<u64>> =
        (!O::IS_LARGE || start != 0).then(|| offsets.iter().map(|o| o.as_usize().wrapping_sub(start) as u64).collect());
    let mut buffers = data.buffers().to_vec().into_iter();
    drop(data);
    let (offset_buffer, value_buffer) = (buffers.next().unwrap_or_default(), buffers.next().unwrap_or_default());
    drop(buffers);
    let mut offsets = match rebased {
        Some(rebased) => rebased,
        None => match offset_buffer.into_vec::<u64>() {
            Ok(mut owned) => {
                owned.truncate(rows.saturating_add(1));
                owned
            }
            Err(shared) => {
                shared.chunks_exact(8).take(rows.saturating_add(1)).map(|c| c.try_into().map_or(0, u64::from_ne_bytes)).collect()
            }
        },
    };
    if offsets.is_empty() {
        offsets.push(0); // no rows (an empty offsets buffer, as other writers may give)
    }
    let outside = || Error::value("string offsets outside the values");
    let bytes = match value_buffer.into_vec::<u8>() {
        Ok(mut owned) if start == 0 && end <= owned.len() => {
            owned.truncate(end);
            owned
        }
        Ok(owned) => owned.get(start..end).map(<[u8]>::to_vec).ok_or_else(outside)?,
        Err(shared) => shared.get(start..end).map(<[u8]>::to_vec).ok_or_else(outside)?,
    };
    StringColumn::try_from_parts(offsets, bytes).map_err(|e| Error::value(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, Float64Array, LargeStringArray, StringArray, UInt64Array};

    fn both(array: ArrayRef, ty: &str) -> (ColumnData, ColumnData) {
        let ty = DataType::parse(ty).unwrap();
        let copied = from_arrow::to_column(array.as_ref(), &ty).unwrap();
        (into_column(array, &ty).unwrap(), copied)
    }

    #[test]
    fn an_owned_buffer_moves_into_the_column() {
        let values: Vec<u64> = (0..1000).collect();
        let at = values.as_ptr();
        let array: ArrayRef = Arc::new(UInt64Array::from(values));
        match into_column(array, &DataType::UInt64).unwrap() {
            ColumnData::UInt64(v) => {
                assert_eq!(v.as_ptr(), at, "the same allocation, not a copy");
                assert_eq!(v, (0..1000).collect::<Vec<u64>>());
            }
            other => panic!("{other:?}"),
        }
        let bytes = b"onetwothree".to_vec();
        let at = bytes.as_ptr();
        let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32, 3, 6, 11].into());
        let array: ArrayRef = Arc::new(StringArray::new(offsets, Buffer::from_vec(bytes), None));
        match into_column(array, &DataType::String).unwrap() {
            ColumnData::String(s) => {
                assert_eq!(s.iter().collect::<Vec<_>>(), vec![&b"one"[..], b"two", b"three"]);
                assert_eq!(s.iter().next().unwrap().as_ptr(), at, "the same allocation, not a copy");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nullable_columns_take_their_values_and_build_the_null_map() {
        let values: Vec<f64> = (0..1000).map(f64::from).collect();
        let at = values.as_ptr();
        let nulls = arrow_buffer::NullBuffer::from((0..1000).map(|i| i % 3 != 0).collect::<Vec<bool>>());
        let array: ArrayRef = Arc::new(Float64Array::new(values.into(), Some(nulls)));
        let copied = from_arrow::to_column(array.as_ref(), &DataType::parse("Nullable(Float64)").unwrap()).unwrap();
        let taken = into_column(array, &DataType::parse("Nullable(Float64)").unwrap()).unwrap();
        assert_eq!(taken, copied);
        match taken {
            ColumnData::Nullable(n) => match &n.values {
                ColumnData::Float64(v) => assert_eq!(v.as_ptr(), at, "the same allocation, not a copy"),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn shared_sliced_and_cast_arrays_convert_as_the_copying_path_does() {
        let floats: ArrayRef = Arc::new(Float64Array::from_iter_values((0..100).map(|i| i as f64 / 3.0)));
        let keep = floats.clone(); // shared: copied
        let (taken, copied) = both(floats, "Float64");
        assert_eq!(taken, copied);
        drop(keep);
        let ints: ArrayRef = Arc::new(UInt64Array::from_iter_values(0..100));
        for (array, ty) in [
            (ints.slice(10, 50), "UInt64"),
            (ints.clone(), "Int128"),
            (Arc::new(UInt64Array::from(vec![Some(1), None])) as ArrayRef, "Nullable(UInt64)"),
            (Arc::new(UInt64Array::from(vec![Some(1), None])) as ArrayRef, "Nullable(Int64)"),
            (Arc::new(UInt64Array::from(vec![1, 2])) as ArrayRef, "Nullable(UInt64)"),
            (Arc::new(StringArray::from(vec![Some("a"), None, Some("ccc")])) as ArrayRef, "Nullable(String)"),
            (Arc::new(LargeStringArray::from(vec![None, Some("bb"), None])) as ArrayRef, "Nullable(String)"),
            ((Arc::new(StringArray::from(vec!["a", "bc", "", "def"])) as ArrayRef).slice(1, 3), "String"),
            (Arc::new(LargeStringArray::from(vec!["a", "bc", "", "def"])) as ArrayRef, "String"),
            ((Arc::new(LargeStringArray::from(vec!["a", "bc", "", "def"])) as ArrayRef).slice(2, 2), "String"),
            (Arc::new(BinaryArray::from(vec![&b"\xff"[..], b""])) as ArrayRef, "String"),
            (arrow_array::new_empty_array(&A::LargeUtf8), "String"),
            (arrow_array::new_empty_array(&A::Utf8), "String"),
            (arrow_array::new_empty_array(&A::UInt64), "UInt64"),
        ] {
            let (taken, copied) = both(array, ty);
            assert_eq!(taken, copied, "{ty}");
        }
    }

    #[test]
    fn no_rows_and_no_offsets_is_an_empty_column() {
        for t in [A::LargeUtf8, A::Utf8] {
            let data = arrow_data::ArrayData::builder(t.clone())
                .len(0)
                .add_buffer(Buffer::from_vec(Vec::<i64>::new()))
                .add_buffer(Buffer::from_vec(Vec::<u8>::new()))
                .build()
                .unwrap();
            let column = into_column(arrow_array::make_array(data), &DataType::String).unwrap();
            assert_eq!(column.len(), 0, "{t}");
        }
    }

    #[test]
    fn nulls_in_a_non_nullable_column_are_still_refused() {
        let array: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None]));
        assert!(into_column(array, &DataType::String).is_err());
        let array: ArrayRef = Arc::new(UInt64Array::from(vec![Some(1), None]));
        assert!(into_column(array, &DataType::UInt64).is_err());
    }
}
