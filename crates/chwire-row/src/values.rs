//! Dynamic values as column values: [`Value`] writes into any column type it represents
//! exactly, and [`block_from_values`] builds a block from rows of them.

use crate::{Result, ToColumn};
use chwire_proto::{Block, ColumnData, DataType, Value};

/// Dynamic values write into a column of any type they represent exactly (see
/// [`chwire_proto::column::write_value`], which the file formats' readers build blocks with too).
impl ToColumn for Value<'_> {
    fn check_write(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Unsupported(_) => Err(format!("inserting rows into {ty} columns is not supported")),
            _ => Ok(()),
        }
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        chwire_proto::column::write_value(self, ty, col)
    }

    fn write_fields(&self, fields: &[(String, DataType)], elements: &mut [ColumnData]) -> Result<(), String> {
        chwire_proto::column::write_nested_fields(self, fields, elements)
    }

    fn check_write_fields(_: &[(String, DataType)]) -> Result<(), String> {
        Ok(())
    }
}

/// Build a block from dynamic rows for the given columns (names and types): the
/// schema-free counterpart of the column builders, for a block an insert sends.
/// (The builder is [`chwire_proto::column::block_from_values`]; its errors are
/// [`Error::Row`](crate::Error::Row) errors here, but for a column type that cannot be built.)
pub fn block_from_values<'v>(columns: &[(&str, DataType)], rows: impl IntoIterator<Item = &'v [Value<'v>]>) -> Result<Block> {
    Ok(chwire_proto::column::block_from_values(columns, rows)?)
}
