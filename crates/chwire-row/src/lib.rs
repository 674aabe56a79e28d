//! Typed rows: Rust values in and out of ClickHouse columns, column by column, with no IO.
//!
//! This is chwire's row layer (chwire re-exports it as `chwire::row`, with `#[derive(Row)]`,
//! the cursors and the inserters that run rows through a connection). `#[derive(Row)]` maps
//! a struct's fields to columns by name (`#[row(rename = "..")]`, `#[row(skip)]`,
//! `#[row(flatten)]` for nested structs). Reading checks every field against the result's
//! header block before the first row ([`Row::bind_read`]), then reads each field straight
//! from its column buffer: no intermediate values, no per-row allocation except what the
//! field type itself owns (`String`, `Vec`). Borrowed fields (`&str`, `&[u8]`) point into the
//! block.
//!
//! The field types are the [`FromColumn`] / [`ToColumn`] implementors: integers of every
//! width (also [`I256`]/[`U256`]), floats, `bool`, strings and byte strings, `[u8; N]` for
//! FixedString, `Option<T>` for Nullable, `Vec<T>` for Array, maps, tuples, IP addresses,
//! [`Decimal`]/[`Decimal256`], dynamic [`Value`]s, and behind cargo features the types of
//! `uuid`, `chrono` (and `chrono-tz`), `time`, `rust_decimal`, `bigdecimal` and `serde_json`
//! (see [`ext`]). [`QueryParam`] is the other direction of values: numbers, `bool`, strings,
//! `Option`s and sequences of them, and the types of those crates, bound to `{name:Type}`
//! placeholders.
//!
//! [`rows_of`] and [`block_of`] turn blocks into rows and rows into blocks without a server
//! (Native files, tests); [`block_from_values`] builds a block from rows of [`Value`]s.

#![warn(missing_docs)]

mod error;
pub mod ext;
mod impls;
mod param;
mod types;
mod values;

pub use chwire_proto::Value;
pub use error::{Error, Result};
pub use param::QueryParam;
pub use types::{Decimal, Decimal256, I256, U256};
pub use values::block_from_values;

// The unit tests derive rows: the derive names `::chwire::row::__private`, which this alias
// and `row` below make this crate's own.
#[cfg(test)]
extern crate self as chwire;
#[cfg(test)]
mod row {
    pub use crate::*;
    pub use chwire_derive::Row;
}
#[cfg(test)]
mod tests;

use chwire_proto::{Block, ColumnData, DataType};

/// A struct whose fields map to columns. Derive it with `#[derive(Row)]`.
pub trait Row {
    /// The struct with its borrowed fields (if any) tied to lifetime `'a`: what reading a
    /// row out of a block borrowed for `'a` produces, and what inserters take.
    type Value<'a>: Row;

    /// How many columns the struct maps to (flattened structs included).
    const COLUMN_COUNT: usize;

    /// The column names, in field order (flattened structs expanded in place).
    fn column_names(out: &mut Vec<&'static str>);

    /// Find every field's column in `header` and check that its type can be read into the
    /// field; appends the column positions to `plan`.
    fn bind_read(header: &Block, plan: &mut Vec<usize>) -> Result<()>;

    /// Read row `row` of `block`; the struct's columns are `plan[first..]`.
    fn read<'a>(block: &'a Block, plan: &[usize], first: usize, row: usize) -> Result<Self::Value<'a>>;

    /// Check that every field can be written into its column of `header` (whose column `i`
    /// is the struct's column `first + i`).
    fn bind_write(header: &Block, first: usize) -> Result<()>;

    /// Append this row to the builders; the struct's columns start at `first`.
    fn write(&self, builders: &mut Builders, first: usize) -> Result<()>;
}

/// A row type that borrows nothing (`Row::Value<'a>` is itself): what
/// `chwire::Query::fetch_all` and friends return.
pub trait RowOwned: 'static + for<'a> Row<Value<'a> = Self> {}
impl<R> RowOwned for R where R: 'static + for<'a> Row<Value<'a> = R> {}

/// A Rust type that can be read from a column.
///
/// `check` runs once per column on the header block; `read` once per value, on storage
/// whose type passed `check`. Types are seen through `LowCardinality` (non-nullable), the
/// geometry aliases and `SimpleAggregateFunction`: implementors only handle plain types.
pub trait FromColumn<'a>: Sized {
    /// Whether values of `ty` can be read as `Self`; the error says what would fit.
    fn check_plain(ty: &DataType) -> Result<(), String>;

    /// Read row `row` of `data`, whose type `ty` passed [`FromColumn::check_plain`].
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String>;

    /// [`FromColumn::check_plain`] through `LowCardinality` and aliases.
    fn check(ty: &DataType) -> Result<(), String> {
        match ty.structural() {
            DataType::LowCardinality(inner) if !inner.is_nullable() => Self::check_plain(inner.structural()),
            ty => Self::check_plain(ty),
        }
    }

    /// [`FromColumn::read_plain`] through `LowCardinality` and aliases.
    #[inline]
    fn read(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        read_through_lc(ty, data, row)
    }

    /// `u8` reads String columns as `Vec<u8>` (bytes), like a byte array.
    #[doc(hidden)]
    fn vec_from_bytes(_bytes: &[u8]) -> Option<Vec<Self>> {
        None
    }

    /// Pairs read the entries of `Map(K, V)` (so `Vec<(K, V)>` reads maps).
    #[doc(hidden)]
    fn check_map_entry(_k: &DataType, _v: &DataType) -> Result<(), String> {
        Err("a map entry is read as a pair (K, V)".into())
    }

    #[doc(hidden)]
    fn read_map_entry(_k: &'a DataType, _v: &'a DataType, _kd: &'a ColumnData, _vd: &'a ColumnData, _i: usize) -> Result<Self, String> {
        Err("a map entry is read as a pair (K, V)".into())
    }

    /// Tuples read the elements of `Nested(...)` (so `Vec<(A, B)>` reads Nested columns).
    #[doc(hidden)]
    fn check_fields(_fields: &[(String, DataType)]) -> Result<(), String> {
        Err("the elements of a Nested column are read as tuples".into())
    }

    #[doc(hidden)]
    fn read_fields(_fields: &'a [(String, DataType)], _elements: &'a [ColumnData], _i: usize) -> Result<Self, String> {
        Err("the elements of a Nested column are read as tuples".into())
    }
}

/// A Rust type that can be appended to a column.
///
/// Writers append to the plain form of the column's type (LowCardinality removed; the
/// inserter dictionary-encodes once per block) and see aliases as their structural types.
pub trait ToColumn {
    /// Whether `Self` can be written into a column of `ty`.
    fn check_write(ty: &DataType) -> Result<(), String>;

    /// Append one value to `col`, a builder of type `ty` that passed `check_write`. On an
    /// error the caller discards the partly written row.
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String>;

    /// `u8` writes `Vec<u8>`/`[u8]` into String columns.
    #[doc(hidden)]
    fn slice_as_bytes(_v: &[Self]) -> Option<&[u8]>
    where
        Self: Sized,
    {
        None
    }

    /// Pairs write the entries of `Map(K, V)` (so `Vec<(K, V)>` writes maps).
    #[doc(hidden)]
    fn check_write_map_entry(_k: &DataType, _v: &DataType) -> Result<(), String> {
        Err("map entries are written as pairs (K, V)".into())
    }

    #[doc(hidden)]
    fn write_map_entry(&self, _k: &DataType, _v: &DataType, _elements: &mut [ColumnData]) -> Result<(), String> {
        Err("map entries are written as pairs (K, V)".into())
    }

    /// Tuples write the elements of `Nested(...)`.
    #[doc(hidden)]
    fn check_write_fields(_fields: &[(String, DataType)]) -> Result<(), String> {
        Err("the elements of a Nested column are written as tuples".into())
    }

    #[doc(hidden)]
    fn write_fields(&self, _fields: &[(String, DataType)], _elements: &mut [ColumnData]) -> Result<(), String> {
        Err("the elements of a Nested column are written as tuples".into())
    }
}

impl<T: ToColumn + ?Sized> ToColumn for &T {
    fn check_write(ty: &DataType) -> Result<(), String> {
        T::check_write(ty)
    }
    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        (**self).write(ty, col)
    }
}

impl<T: ToColumn + ?Sized> ToColumn for Box<T> {
    fn check_write(ty: &DataType) -> Result<(), String> {
        T::check_write(ty)
    }
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        (**self).write(ty, col)
    }
}

/// The column builders of a block being filled row by row: names, the table's types, the
/// plain (LowCardinality-free, structural) types rows are appended to, and the columns.
#[derive(Debug)]
pub struct Builders {
    names: Vec<String>,
    table_types: Vec<DataType>,
    types: Vec<DataType>,
    cols: Vec<ColumnData>,
    /// Complete rows appended (with [`Builders::append`]).
    rows: usize,
}

impl Builders {
    /// Empty builders for columns of these names and (table) types.
    pub fn new(columns: impl IntoIterator<Item = (String, DataType)>) -> Result<Builders> {
        let (names, table_types): (Vec<String>, Vec<DataType>) = columns.into_iter().unzip();
        let types: Vec<DataType> = table_types.iter().map(DataType::without_low_cardinality).collect();
        let cols = types.iter().map(ColumnData::empty_for).collect::<Result<Vec<_>, _>>()?;
        Ok(Builders { names, table_types, types, cols, rows: 0 })
    }

    /// Append one row with `f`. A row `f` could only partly append is undone in every
    /// column, nested values included, so the rows before it stay as they were.
    pub fn append(&mut self, f: impl FnOnce(&mut Builders) -> Result<()>) -> Result<()> {
        if let Err(e) = f(self) {
            for c in &mut self.cols {
                c.truncate(self.rows)?;
            }
            return Err(e);
        }
        self.rows += 1;
        Ok(())
    }

    /// Complete rows appended since the last [`Builders::take_block`].
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Append `v` to column `i`.
    #[inline]
    pub fn write<T: ToColumn + ?Sized>(&mut self, i: usize, v: &T) -> Result<()> {
        let Some(col) = self.cols.get_mut(i) else {
            return Err(row_error(format!("there is no column {} (the block has {})", i + 1, self.names.len())));
        };
        v.write(&self.types[i], col).map_err(|why| {
            row_error(format!("column `{}` ({}): cannot write a {}: {why}", self.names[i], self.types[i], std::any::type_name::<T>()))
        })
    }

    /// The rows appended so far as a block of the table's types (LowCardinality columns
    /// dictionary-encoded, Dynamic columns in wire order); the builders start empty again.
    /// Every builder is checked first, so on an error the rows stay where they were.
    pub fn take_block(&mut self) -> Result<Block> {
        for ((name, ty), c) in self.names.iter().zip(&self.types).zip(&self.cols) {
            c.check(ty).map_err(|e| row_error(format!("column `{name}`: the rows do not fit its type {ty}: {e}")))?;
        }
        let mut block = Block::new();
        for i in 0..self.cols.len() {
            let mut data = std::mem::replace(&mut self.cols[i], ColumnData::empty_for(&self.types[i])?);
            chwire_proto::column::finish_dynamic(&mut data);
            let data = chwire_proto::column::encode_low_cardinality(&self.table_types[i], data)?;
            block.push(self.names[i].clone(), chwire_proto::Column::new(self.table_types[i].clone(), data)?)?;
        }
        self.rows = 0;
        Ok(block)
    }

    /// Take back the buffers of a block [`Builders::take_block`] made, emptied, so the next
    /// block reuses their capacity. Dictionary-encoded and Dynamic columns start afresh
    /// (the latter's type lists would otherwise only grow).
    pub fn reuse(&mut self, block: Block) {
        for (i, (_, c)) in block.into_columns().into_iter().enumerate() {
            let ty = &self.table_types[i];
            if !ty.has_low_cardinality() && !ty.contains(&|t| matches!(t, DataType::Dynamic { .. })) {
                let (_, mut data) = c.into_parts();
                if data.truncate(0).is_ok() {
                    self.cols[i] = data;
                }
            }
        }
    }

    /// Roughly how many bytes the builders hold (see [`approx_bytes`]).
    pub fn approx_bytes(&self) -> usize {
        self.cols.iter().map(approx_bytes).sum()
    }
}

/// Roughly how many bytes a column's decoded data takes: fixed-width values at their width,
/// strings their bytes plus 8 per value, arrays 8 per offset (one per row and one more) plus
/// their elements, Nullable 1 per row plus its values, LowCardinality 8 per row plus its
/// dictionary. What bounds a builder (inserts) and a result collected whole
/// (`max_collected_bytes`).
pub fn approx_bytes(c: &ColumnData) -> usize {
    use ColumnData as D;
    match c {
        D::UInt8(v) => v.len(),
        D::Int8(v) => v.len(),
        D::UInt16(v) => v.len() * 2,
        D::Int16(v) => v.len() * 2,
        D::UInt32(v) => v.len() * 4,
        D::Int32(v) => v.len() * 4,
        D::Float32(v) => v.len() * 4,
        D::UInt64(v) => v.len() * 8,
        D::Int64(v) => v.len() * 8,
        D::Float64(v) => v.len() * 8,
        D::UInt128(v) => v.len() * 16,
        D::Int128(v) => v.len() * 16,
        D::Fixed { data, .. } => data.len(),
        D::String(s) => s.data().len() + s.len() * 8,
        D::Nullable(n) => n.nulls.len() + approx_bytes(&n.values),
        D::Array(a) => a.offsets.len() * 8 + approx_bytes(&a.values),
        D::Tuple(t) => t.elements.iter().map(approx_bytes).sum(),
        D::LowCardinality(l) => l.keys.len() * 8 + approx_bytes(&l.dictionary),
        D::Variant(v) => v.discriminators.len() * 5 + v.variants.iter().map(approx_bytes).sum::<usize>(),
        D::Dynamic(d) => d.values.discriminators.len() * 5 + d.values.variants.iter().map(approx_bytes).sum::<usize>(),
        D::Json(j) => {
            j.text.as_ref().map_or(0, |t| t.data().len() + t.len() * 8)
                + j.typed.iter().map(approx_bytes).sum::<usize>()
                + j.dynamic
                    .iter()
                    .map(|(p, d)| p.len() + d.values.discriminators.len() * 5 + d.values.variants.iter().map(approx_bytes).sum::<usize>())
                    .sum::<usize>()
                + j.shared.as_ref().map_or(0, approx_bytes)
        }
        D::AggregateState(s) => s.data().len() + s.len() * 8,
        _ => 0,
    }
}

/// [`FromColumn::read`]'s default (LowCardinality, aliases), for impls that override it.
#[inline]
pub(crate) fn read_through_lc<'a, T: FromColumn<'a>>(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<T, String> {
    let ty = ty.structural();
    if let (DataType::LowCardinality(inner), ColumnData::LowCardinality(lc)) = (ty, data) {
        if !inner.is_nullable() {
            return T::read_plain(inner.structural(), &lc.dictionary, lc.keys.get(row));
        }
    }
    T::read_plain(ty, data, row)
}

fn row_error(msg: String) -> Error {
    Error::Row(msg)
}

/// Glue called by the code `#[derive(Row)]` generates; not a stable API.
#[doc(hidden)]
pub mod __private {
    use super::*;

    pub use super::Builders;
    pub use chwire_proto::{Block, ColumnData, DataType};
    pub type Result<T> = crate::Result<T>;

    /// Bind one field: `check` is the field type's [`FromColumn::check`], `rust` its name.
    pub fn bind_read(
        header: &Block,
        row: &str,
        field: &str,
        column: &str,
        plan: &mut Vec<usize>,
        check: fn(&DataType) -> std::result::Result<(), String>,
        rust: &str,
    ) -> Result<()> {
        let Some(i) = header.columns().iter().position(|(n, _)| n == column) else {
            let have = header.names().collect::<Vec<_>>().join(", ");
            return Err(row_error(format!("column `{column}` (field `{field}` of {row}) is not in the result; its columns are: {have}")));
        };
        let ty = header.columns()[i].1.data_type();
        check(ty).map_err(|why| {
            row_error(format!("column `{column}`: cannot read ClickHouse type {ty} into {rust} (field `{field}` of {row}): {why}"))
        })?;
        plan.push(i);
        Ok(())
    }

    #[inline]
    pub fn read<'a, T: FromColumn<'a>>(block: &'a Block, plan: &[usize], i: usize, row: usize) -> Result<T> {
        let (name, col) = &block.columns()[plan[i]];
        T::read(col.data_type(), col.data(), row)
            .map_err(|why| row_error(format!("column `{name}`, row {row}: cannot read {} as {}: {why}", col.data_type(), rust_name::<T>())))
    }

    /// Bind a flattened struct: only named rows can be flattened (tuples bind by position).
    pub fn bind_read_flat<R: Row>(header: &Block, plan: &mut Vec<usize>) -> Result<()> {
        flattenable::<R>()?;
        R::bind_read(header, plan)
    }

    pub fn bind_write_flat<R: Row>(header: &Block, first: usize) -> Result<()> {
        flattenable::<R>()?;
        R::bind_write(header, first)
    }

    fn flattenable<R: Row>() -> Result<()> {
        let mut names = Vec::new();
        R::column_names(&mut names);
        if names.len() != R::COLUMN_COUNT {
            return Err(row_error(format!("{} binds to columns by position and cannot be flattened into a struct", rust_name::<R>())));
        }
        Ok(())
    }

    #[inline]
    pub fn read_flat<'a, R: Row<Value<'a> = R>>(block: &'a Block, plan: &[usize], first: usize, row: usize) -> Result<R> {
        R::read(block, plan, first, row)
    }

    pub fn bind_write<T: ToColumn + ?Sized>(header: &Block, row: &str, field: &str, column: &str, i: usize) -> Result<()> {
        let Some((name, col)) = header.columns().get(i) else {
            return Err(row_error(format!("the insert has {} columns, {row} needs more", header.num_columns())));
        };
        if name != column {
            return Err(row_error(format!("column {} of the insert is `{name}`, field `{field}` of {row} expects `{column}`", i + 1)));
        }
        let ty = col.data_type();
        T::check_write(&ty.without_low_cardinality()).map_err(|why| {
            row_error(format!(
                "column `{name}`: cannot write {} into ClickHouse type {ty} (field `{field}` of {row}): {why}",
                rust_name::<T>()
            ))
        })
    }

    #[inline]
    pub fn write<T: ToColumn + ?Sized>(v: &T, builders: &mut Builders, i: usize) -> Result<()> {
        builders.write(i, v)
    }

    fn rust_name<T: ?Sized>() -> &'static str {
        std::any::type_name::<T>()
    }
}

/// Read every row of a block as `T` (for blocks from Native files or a query's blocks).
pub fn rows_of<T: RowOwned>(block: &Block) -> Result<Vec<T>> {
    let plan = plan_for::<T>(block)?;
    (0..block.rows()).map(|r| T::read(block, &plan, 0, r)).collect()
}

/// Build a block of the given columns (names and ClickHouse types) from rows of `T`:
/// the block an insert sends, or a Native file's content.
pub fn block_of<'r, T: Row + 'r>(columns: &[(&str, DataType)], rows: impl IntoIterator<Item = &'r T>) -> Result<Block> {
    let mut header = Block::new();
    for (name, ty) in columns {
        header.push(*name, chwire_proto::Column::new(ty.clone(), ColumnData::empty_for(ty)?)?)?;
    }
    T::bind_write(&header, 0)?;
    let mut b = Builders::new(columns.iter().map(|(n, t)| (n.to_string(), t.clone())))?;
    for r in rows {
        b.append(|b| r.write(b, 0))?;
    }
    b.take_block()
}

/// Bind a row type to a header block: the column positions of its fields, what
/// [`Row::read`] takes as its plan.
pub fn plan_for<T: Row>(header: &Block) -> Result<Vec<usize>> {
    let mut plan = Vec::with_capacity(T::COLUMN_COUNT);
    T::bind_read(header, &mut plan)?;
    Ok(plan)
}

/// Tuples of owned values are rows too, bound to the columns by position: `(u64, String)`
/// reads the first two columns of a result, and inserts into all columns of a table.
macro_rules! tuple_rows {
    ($n:literal; $($T:ident $i:tt),+) => {
        impl<$($T),+> Row for ($($T,)+)
        where
            $($T: for<'a> FromColumn<'a> + ToColumn + 'static),+
        {
            type Value<'a> = Self;
            const COLUMN_COUNT: usize = $n;

            fn column_names(_: &mut Vec<&'static str>) {}

            fn bind_read(header: &Block, plan: &mut Vec<usize>) -> Result<()> {
                if !plan.is_empty() {
                    return Err(row_error("a tuple binds to columns by position and cannot be flattened into a struct".into()));
                }
                if header.num_columns() < $n {
                    return Err(row_error(format!("a tuple of {} reads {} columns, the result has {}", $n, $n, header.num_columns())));
                }
                $(
                    let (name, col) = &header.columns()[$i];
                    <$T as FromColumn<'static>>::check(col.data_type()).map_err(|why| {
                        row_error(format!(
                            "column {} (`{name}`): cannot read ClickHouse type {} into {} (element {} of the tuple): {why}",
                            $i + 1,
                            col.data_type(),
                            std::any::type_name::<$T>(),
                            $i
                        ))
                    })?;
                    plan.push($i);
                )+
                Ok(())
            }

            #[inline]
            fn read<'a>(block: &'a Block, plan: &[usize], first: usize, row: usize) -> Result<Self::Value<'a>> {
                Ok(($( __private::read::<$T>(block, plan, first + $i, row)?, )+))
            }

            fn bind_write(header: &Block, first: usize) -> Result<()> {
                if first != 0 {
                    return Err(row_error("a tuple binds to columns by position and cannot be flattened into a struct".into()));
                }
                $(
                    let Some((name, col)) = header.columns().get(first + $i) else {
                        return Err(row_error(format!("the insert has {} columns, a tuple of {} needs {}", header.num_columns(), $n, first + $n)));
                    };
                    $T::check_write(&col.data_type().without_low_cardinality()).map_err(|why| {
                        row_error(format!("column `{name}`: cannot write {} into ClickHouse type {}: {why}", std::any::type_name::<$T>(), col.data_type()))
                    })?;
                )+
                Ok(())
            }

            #[inline]
            fn write(&self, builders: &mut Builders, first: usize) -> Result<()> {
                $( builders.write(first + $i, &self.$i)?; )+
                Ok(())
            }
        }
    };
}

tuple_rows!(1; A 0);
tuple_rows!(2; A 0, B 1);
tuple_rows!(3; A 0, B 1, C 2);
tuple_rows!(4; A 0, B 1, C 2, D 3);
tuple_rows!(5; A 0, B 1, C 2, D 3, E 4);
tuple_rows!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_rows!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_rows!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
