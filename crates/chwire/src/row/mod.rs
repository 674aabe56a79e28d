//! Typed rows: Rust structs in and out of ClickHouse, column by column.
//!
//! The row layer itself — [`Row`], [`FromColumn`], [`ToColumn`], the column [`Builders`],
//! [`rows_of`]/[`block_of`], the field types of other crates ([`ext`]) — is the `chwire-row`
//! crate (no IO), re-exported here with `#[derive(Row)]`. This module adds what runs rows
//! through a connection: [`RowCursor`] (`Query::fetch`), [`Inserter`] (`Client::insert_rows`),
//! and the schema-free [`DynRowCursor`]/[`DynInserter`].

pub(crate) mod cursor;
pub(crate) mod dynamic;
mod insert;

pub use chwire_derive::Row;
pub use chwire_row::Row;
pub use chwire_row::{
    __private, approx_bytes, block_from_values, block_of, ext, plan_for, rows_of, Builders, Decimal, Decimal256, Error, FromColumn,
    RowOwned, ToColumn, I256, U256,
};
pub use cursor::RowCursor;
pub use dynamic::{DynInserter, DynRow, DynRowCursor};
pub use insert::{InsertLimits, Inserter};
