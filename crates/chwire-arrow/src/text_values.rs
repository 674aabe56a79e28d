//! UUID, IPv4 and IPv6 columns from the text of their values (as ClickHouse reads those
//! types' text), for Arrow string arrays written into such columns.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::{mismatch, strict, Result};
use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_cast::cast_with_options;
use arrow_schema::DataType as A;
use chwire_proto::column::uuid_to_wire;
use chwire_proto::{ColumnData, DataType};

pub(crate) fn is_text(array: &dyn Array) -> bool {
    matches!(array.data_type(), A::Utf8 | A::LargeUtf8 | A::Utf8View)
}

/// A UUID, IPv4 or IPv6 column from the text of its values (NULL rows zero).
pub(crate) fn text_column(array: &dyn Array, ty: &DataType) -> Result<ColumnData> {
    Ok(match ty {
        DataType::Ipv4 => ColumnData::UInt32(from_text(array, ty, |t| chwire_text::parse_ipv4(t).map(u32::from))?),
        DataType::Ipv6 => {
            ColumnData::Fixed { width: 16, data: from_text(array, ty, |t| chwire_text::parse_ipv6(t).map(|a| a.octets()))?.concat() }
        }
        _ => ColumnData::Fixed {
            width: 16,
            data: from_text(array, ty, |t| chwire_text::parse_uuid(t.as_bytes()).map(|u| uuid_to_wire(&u)))?.concat(),
        },
    })
}

/// Each value of a string array read by `parse` as ClickHouse reads the type's text (UUID,
/// IPv4, IPv6); NULL rows are `T::default()` (the nulls are the Nullable's). Text that does
/// not parse is an error naming the row.
fn from_text<T: Default>(array: &dyn Array, ty: &DataType, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>> {
    let utf8;
    let array = match array.data_type() {
        A::Utf8 => array,
        _ => {
            utf8 = cast_with_options(array, &A::Utf8, &strict())?;
            utf8.as_ref()
        }
    };
    let mut out = Vec::with_capacity(array.len());
    for (row, text) in array.as_string::<i32>().iter().enumerate() {
        out.push(match text {
            None => T::default(),
            Some(t) => parse(t).ok_or_else(|| {
                let shown: String = t.chars().take(64).collect();
                let more = if shown.len() < t.len() { "…" } else { "" };
                mismatch(array, ty, format!("row {row}: {shown:?}{more} is not the text of a {ty}"))
            })?,
        });
    }
    Ok(out)
}
