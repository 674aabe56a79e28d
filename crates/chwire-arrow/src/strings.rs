//! Arrow's string and binary arrays (any flavour) as a ClickHouse `StringColumn`: what the
//! conversions of strings, JSON text and WKB geometries all start from.

use crate::{mismatch, strict, Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_cast::cast::cast_with_options;
use arrow_schema::DataType as A;
use chwire_proto::{DataType, StringColumn};

/// Any string or binary flavour as offsets + bytes (rebased when the array is a slice).
pub(crate) fn strings(array: &dyn Array, ty: &DataType) -> Result<StringColumn> {
    let large;
    let array = match array.data_type() {
        A::LargeBinary | A::LargeUtf8 => array,
        A::Utf8 | A::Binary | A::Utf8View | A::BinaryView | A::FixedSizeBinary(_) => {
            large = cast_with_options(array, &A::LargeBinary, &strict())?;
            large.as_ref()
        }
        _ => return Err(mismatch(array, ty, "expected a string or binary type")),
    };
    let (offsets, values) = match array.data_type() {
        A::LargeUtf8 => {
            let a = array.as_string::<i64>();
            (a.value_offsets(), a.values().as_slice())
        }
        _ => {
            let a = array.as_binary::<i64>();
            (a.value_offsets(), a.values().as_slice())
        }
    };
    // A valid array's offsets never decrease and lie within its values.
    let start = offsets.first().map_or(0, |&o| o as usize);
    let end = offsets.last().map_or(0, |&o| o as usize);
    let rebased = offsets.iter().map(|&o| (o as usize).saturating_sub(start) as u64).collect();
    let values = values.get(start..end).ok_or_else(|| mismatch(array, ty, "offsets outside the values"))?;
    StringColumn::try_from_parts(rebased, values.to_vec()).map_err(|e| Error::value(e.to_string()))
}
