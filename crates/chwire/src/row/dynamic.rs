//! Schema-free rows: dynamic [`Value`]s for queries and tables known only at run time.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::impls::bad_storage;
use super::insert::{Batch, InsertLimits};
use super::types::{check_decimal256_precision, push_decimal_raw, Decimal, I256};
use super::ToColumn;
use crate::client::{QueryStream, QuerySummary};
use crate::error::{Error, ErrorKind, Result};
use chwire_proto::column::uuid_to_wire;
use chwire_proto::{Block, ColumnData, DataType, Value};

/// A query's rows as dynamic values, with the names and types of the header.
pub struct DynRowCursor<'c> {
    rows: super::cursor::BlockRows<'c>,
}

/// One row of a result: its values borrow from the cursor's current block.
#[derive(Clone, Copy)]
pub struct DynRow<'a> {
    block: &'a Block,
    row: usize,
}

impl<'a> DynRow<'a> {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.block.num_columns()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The columns' names and types (as in the header).
    pub fn columns(&self) -> impl Iterator<Item = (&'a str, &'a DataType)> {
        self.block.columns().iter().map(|(n, c)| (n.as_str(), c.data_type()))
    }

    /// The value of column `i`.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        self.block.column_at(i).map(|c| c.value(self.row))
    }

    /// The value of the column named `name`.
    pub fn get_by_name(&self, name: &str) -> Option<Value<'a>> {
        self.block.column(name).map(|c| c.value(self.row))
    }

    /// Every value, in column order.
    pub fn values(&self) -> Vec<Value<'a>> {
        self.block.columns().iter().map(|(_, c)| c.value(self.row)).collect()
    }
}

impl std::fmt::Debug for DynRow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for (name, col) in self.block.columns() {
            m.entry(name, &col.value(self.row));
        }
        m.finish()
    }
}

impl<'c> DynRowCursor<'c> {
    pub(crate) fn new(stream: QueryStream<'c>) -> Self {
        DynRowCursor { rows: super::cursor::BlockRows::new(stream) }
    }

    /// The next row, or `None` after the last one.
    pub async fn next(&mut self) -> Result<Option<DynRow<'_>>> {
        Ok(self.rows.next_row(|_, _| Ok(())).await?.map(|(block, row)| DynRow { block, row }))
    }

    /// The result's columns (names and types), once the server has sent them.
    pub fn header(&self) -> Option<&Block> {
        self.rows.stream.header()
    }

    /// The underlying stream (progress, profile info, totals).
    pub fn stream(&self) -> &QueryStream<'c> {
        &self.rows.stream
    }
}

impl std::fmt::Debug for DynRowCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynRowCursor").field("stream", &self.rows.stream).finish()
    }
}

/// Inserts rows of dynamic values into a table whose columns are known only at run time
/// (see [`DynInserter::header`]). Values are converted to each column's type where that is
/// exact (integers into any integer type they fit, strings into String/FixedString/Enum…);
/// anything else is an error naming the column.
pub struct DynInserter<'c> {
    batch: Batch<'c>,
}

impl<'c> DynInserter<'c> {
    pub(crate) fn new(insert: crate::client::Insert<'c>, limits: InsertLimits) -> Result<Self> {
        for (name, col) in insert.header().columns() {
            Value::check_write(&col.data_type().without_low_cardinality())
                .map_err(|why| Error::new(ErrorKind::Row(format!("column `{name}` ({}): {why}", col.data_type()))))?;
        }
        Ok(DynInserter { batch: Batch::new(insert, limits)? })
    }

    /// The table's columns: names and types, in the order rows give their values.
    pub fn header(&self) -> &Block {
        self.batch.header()
    }

    /// Append one row (one value per column, in header order); sends a block when the
    /// limits are reached. A row that does not fit is an error and is not appended.
    pub async fn write(&mut self, row: &[Value<'_>]) -> Result<()> {
        let header = self.batch.header();
        if row.len() != header.num_columns() {
            return Err(Error::new(ErrorKind::Row(format!(
                "the row has {} values, the table {} columns",
                row.len(),
                header.num_columns()
            ))));
        }
        let full = self.batch.push(|b| {
            for (i, v) in row.iter().enumerate() {
                b.write(i, v)?;
            }
            Ok(())
        })?;
        if full {
            self.batch.flush().await?;
        }
        Ok(())
    }

    /// Send the rows gathered so far as a block now.
    pub async fn flush(&mut self) -> Result<()> {
        self.batch.flush().await
    }

    /// Send the remaining rows and wait for the server to confirm the insert.
    pub async fn end(self) -> Result<QuerySummary> {
        self.batch.end().await
    }
}

impl std::fmt::Debug for DynInserter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynInserter").field("pending_rows", &self.batch.rows()).finish()
    }
}

fn int_range(ty: &DataType) -> Option<(i128, i128)> {
    Some(match ty {
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        DataType::UInt64 => (0, u64::MAX.into()),
        DataType::UInt128 => (0, i128::MAX),
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::Int128 => (i128::MIN, i128::MAX),
        _ => return None,
    })
}

/// Append an integer to an integer column of any width, if it fits.
fn push_int(v: i128, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    let Some((lo, hi)) = int_range(ty) else {
        return match (ty, col) {
            (DataType::Bool, ColumnData::UInt8(c)) if v == 0 || v == 1 => {
                c.push(v as u8);
                Ok(())
            }
            (DataType::Int256 | DataType::UInt256, ColumnData::Fixed { width: 32, data }) => {
                if matches!(ty, DataType::UInt256) && v < 0 {
                    return Err(format!("{v} does not fit {ty}"));
                }
                data.extend_from_slice(&I256::from(v).0);
                Ok(())
            }
            // An integer a float holds exactly (a JS number such as 1 for a Variant(Float64,
            // String), which has no integer type).
            (DataType::Float64, ColumnData::Float64(c)) if v != i128::MAX && (v as f64) as i128 == v => {
                c.push(v as f64);
                Ok(())
            }
            (DataType::Float32, ColumnData::Float32(c)) if v != i128::MAX && (v as f32) as i128 == v => {
                c.push(v as f32);
                Ok(())
            }
            (DataType::Float64 | DataType::Float32, _) => Err(format!("{v} is not exact as {ty}")),
            (ty, _) => Err(format!("an integer does not fit {ty}")),
        };
    };
    if v < lo || v > hi {
        return Err(format!("{v} does not fit {ty}"));
    }
    match col {
        ColumnData::UInt8(c) => c.push(v as u8),
        ColumnData::UInt16(c) => c.push(v as u16),
        ColumnData::UInt32(c) => c.push(v as u32),
        ColumnData::UInt64(c) => c.push(v as u64),
        ColumnData::UInt128(c) => c.push(v as u128),
        ColumnData::Int8(c) => c.push(v as i8),
        ColumnData::Int16(c) => c.push(v as i16),
        ColumnData::Int32(c) => c.push(v as i32),
        ColumnData::Int64(c) => c.push(v as i64),
        ColumnData::Int128(c) => c.push(v),
        other => return Err(bad_storage(other)),
    }
    Ok(())
}

/// Ticks at one precision to ticks at another, if exact.
fn rescale_ticks(ticks: i64, from: u8, to: u8) -> Option<i64> {
    if to >= from {
        ticks.checked_mul(10i64.checked_pow(u32::from(to - from))?)
    } else {
        let f = 10i64.checked_pow(u32::from(from - to))?;
        (ticks % f == 0).then_some(ticks / f)
    }
}

macro_rules! push_to {
    ($col:expr, $variant:ident, $v:expr) => {
        match $col {
            ColumnData::$variant(c) => {
                c.push($v);
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    };
}

/// Dynamic values write into a column of any type they represent exactly.
impl ToColumn for Value<'_> {
    fn check_write(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Unsupported(_) => Err(format!("inserting rows into {ty} columns is not supported")),
            _ => Ok(()),
        }
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        use DataType as T;
        match (self, ty) {
            (v, T::Variant(types)) => write_variant(v, types, col),
            (v, T::Geometry) => v.write(&T::Geometry.storage().ok_or("no storage type for Geometry")?, col),
            (v, T::Dynamic { .. }) => write_dynamic(v, col),
            (Value::JsonText(text) | Value::String(text), T::Json { .. }) => write_json_text(text, col),
            (Value::Null, T::Nullable(_)) => {
                let ColumnData::Nullable(n) = col else { return Err(bad_storage(col)) };
                n.values.push_default().map_err(|e| e.to_string())?;
                n.nulls.push(1);
                Ok(())
            }
            (Value::Null, _) => Err(format!("NULL does not fit the non-Nullable type {ty}")),
            (v, T::Nullable(inner)) => {
                let ColumnData::Nullable(n) = col else { return Err(bad_storage(col)) };
                v.write(inner, &mut n.values)?;
                n.nulls.push(0);
                Ok(())
            }
            (Value::UInt(v), _) => push_int(i128::from(*v), ty, col),
            (Value::Int(v), _) => push_int(i128::from(*v), ty, col),
            (Value::Int128(v), _) => push_int(*v, ty, col),
            (Value::UInt128(v), T::UInt128) => push_to!(col, UInt128, *v),
            (Value::UInt128(v), _) => push_int(i128::try_from(*v).map_err(|_| format!("{v} does not fit {ty}"))?, ty, col),
            (Value::Bool(b), T::Bool | T::UInt8) => push_to!(col, UInt8, u8::from(*b)),
            (Value::Float32(v), T::Float32) => push_to!(col, Float32, *v),
            (Value::Float32(v), T::Float64) => push_to!(col, Float64, f64::from(*v)),
            (Value::Float64(v), T::Float64) => push_to!(col, Float64, *v),
            (Value::Float64(v), T::Float32) => {
                let f = *v as f32;
                if f64::from(f) != *v && !v.is_nan() {
                    return Err(format!("{v} is not exact as Float32"));
                }
                push_to!(col, Float32, f)
            }
            (Value::BFloat16(v), T::BFloat16) => push_to!(col, UInt16, *v),
            (Value::String(b) | Value::FixedString(b), T::String | T::FixedString(_) | T::Enum8(_) | T::Enum16(_)) => b.write(ty, col),
            (Value::Enum(name, _), T::String | T::FixedString(_) | T::Enum8(_) | T::Enum16(_)) => name.write(ty, col),
            (Value::Uuid(u), T::Uuid) => match col {
                ColumnData::Fixed { width: 16, data } => {
                    data.extend_from_slice(&uuid_to_wire(u));
                    Ok(())
                }
                other => Err(bad_storage(other)),
            },
            (Value::Date(d), T::Date) => push_to!(col, UInt16, *d),
            (Value::Date(d), T::Date32) => push_to!(col, Int32, i32::from(*d)),
            (Value::Date32(d), T::Date32) => push_to!(col, Int32, *d),
            (Value::Date32(d), T::Date) => push_to!(col, UInt16, u16::try_from(*d).map_err(|_| format!("day {d} does not fit Date"))?),
            (Value::DateTime(s, _), T::DateTime(_)) => push_to!(col, UInt32, *s),
            (Value::DateTime(s, _), T::DateTime64 { precision, .. }) => {
                push_to!(col, Int64, rescale_ticks(i64::from(*s), 0, *precision).ok_or("out of range")?)
            }
            (Value::DateTime64 { ticks, precision, .. }, T::DateTime64 { precision: to, .. }) => {
                push_to!(col, Int64, rescale_ticks(*ticks, *precision, *to).ok_or_else(|| format!("not exact at precision {to}"))?)
            }
            (Value::Time(s), T::Time) => push_to!(col, Int32, *s),
            (Value::Time64 { ticks, precision }, T::Time64(to)) => {
                push_to!(col, Int64, rescale_ticks(*ticks, *precision, *to).ok_or_else(|| format!("not exact at precision {to}"))?)
            }
            (Value::Ipv4(a), T::Ipv4) => Ipv4Addr::write(a, ty, col),
            (Value::Ipv6(a), T::Ipv6) => Ipv6Addr::write(a, ty, col),
            (Value::Int256(b) | Value::UInt256(b), T::Int256 | T::UInt256) => match col {
                ColumnData::Fixed { width: 32, data } if b.len() == 32 => {
                    // The same bits mean another number when the signedness differs and the
                    // top bit is set.
                    let signed_in = matches!(self, Value::Int256(_));
                    if signed_in != matches!(ty, T::Int256) && b[31] & 0x80 != 0 {
                        return Err(format!("{} does not fit {ty}", value_kind(self)));
                    }
                    data.extend_from_slice(b);
                    Ok(())
                }
                other => Err(bad_storage(other)),
            },
            (Value::Decimal { raw, scale }, T::Decimal { precision, .. }) if *precision <= 38 => {
                push_decimal_raw(ty, col, Decimal::new(*raw, *scale))
            }
            (Value::Decimal { raw, scale }, T::Decimal { scale: to, .. }) => {
                let d = Decimal::new(*raw, *scale).rescale(*to).ok_or_else(|| format!("not exact at scale {to}"))?;
                let raw = I256::from(d.raw);
                check_decimal256_precision(&raw.0, ty)?;
                match col {
                    ColumnData::Fixed { width: 32, data } => {
                        data.extend_from_slice(&raw.0);
                        Ok(())
                    }
                    other => Err(bad_storage(other)),
                }
            }
            (Value::Decimal256 { raw, scale }, T::Decimal { scale: to, .. }) if scale == to => match col {
                ColumnData::Fixed { width: 32, data } if raw.len() == 32 => {
                    check_decimal256_precision(raw, ty)?;
                    data.extend_from_slice(raw);
                    Ok(())
                }
                other => Err(bad_storage(other)),
            },
            (Value::Interval(n, kind), T::Interval(k)) if kind == k => push_to!(col, Int64, *n),
            (Value::Nothing, T::Nothing) => push_to!(col, UInt8, 0),
            // A state's bytes as they are (ColumnData::check checks them as states of f).
            (Value::AggregateState(b), T::AggregateFunction(_)) => match col {
                ColumnData::AggregateState(s) => {
                    s.push(b);
                    Ok(())
                }
                other => Err(bad_storage(other)),
            },
            // A vector: each element converted to the element type, then bit-transposed.
            (Value::QBit(items) | Value::Array(items), T::QBit { element, dimension }) => {
                let mut one = ColumnData::empty_for(element).map_err(|e| e.to_string())?;
                for v in items {
                    v.write(element, &mut one)?;
                }
                let bits: Vec<u64> = match &one {
                    ColumnData::UInt16(v) => v.iter().map(|&b| u64::from(b)).collect(),
                    ColumnData::Float32(v) => v.iter().map(|f| u64::from(f.to_bits())).collect(),
                    ColumnData::Float64(v) => v.iter().map(|f| f.to_bits()).collect(),
                    other => return Err(bad_storage(other)),
                };
                chwire_proto::column::push_qbit(element, *dimension, col, &bits)
            }
            (Value::Array(items), T::Array(_) | T::Nested(_)) => items.write(ty, col),
            (Value::Map(pairs), T::Map(..)) => super::impls::write_map(pairs.iter().map(|(k, v)| (k, v)), ty, col),
            (Value::Tuple(items), T::Tuple(types)) if items.len() == types.len() => {
                let ColumnData::Tuple(t) = col else { return Err(bad_storage(col)) };
                for ((_, v), ((_, ity), c)) in items.iter().zip(types.iter().zip(&mut t.elements)) {
                    v.write(ity, c)?;
                }
                t.rows += 1;
                Ok(())
            }
            (v, ty) => Err(format!("{} does not fit {ty}", value_kind(v))),
        }
    }

    fn write_fields(&self, fields: &[(String, DataType)], elements: &mut [ColumnData]) -> Result<(), String> {
        let Value::Tuple(items) = self else { return Err(format!("{} is not a tuple of Nested fields", value_kind(self))) };
        if items.len() != fields.len() {
            return Err(format!("a tuple of {} for {} Nested fields", items.len(), fields.len()));
        }
        for ((_, v), ((_, fty), c)) in items.iter().zip(fields.iter().zip(elements)) {
            v.write(fty, c)?;
        }
        Ok(())
    }

    fn check_write_fields(_: &[(String, DataType)]) -> Result<(), String> {
        Ok(())
    }
}

/// Append `v` to the first type of a Variant it fits (NULL: no type).
fn write_variant(v: &Value<'_>, types: &[DataType], col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Variant(vc) = col else { return Err(bad_storage(col)) };
    if *v == Value::Null {
        vc.discriminators.push(chwire_proto::column::VariantColumn::NULL);
        vc.offsets.push(0);
        return Ok(());
    }
    // The variant of the value's own type first, then the first one it converts to exactly.
    let own = type_of(v).and_then(|t| types.iter().position(|x| *x == t));
    for i in own.into_iter().chain((0..types.len()).filter(|&i| Some(i) != own)) {
        let t = &types[i];
        let c = &mut vc.variants[i];
        let before = c.len();
        if v.write(&t.without_low_cardinality(), c).is_ok() {
            vc.discriminators.push(i as u8);
            vc.offsets.push(before as u32);
            return Ok(());
        }
        c.truncate(before).map_err(|e| e.to_string())?;
    }
    Err(format!("{} fits none of the variant's types", value_kind(v)))
}

/// Append `v` to a Dynamic column under the type it has (see [`type_of`]); the column's
/// types are put in wire order when the block is finished.
fn write_dynamic(v: &Value<'_>, col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Dynamic(d) = col else { return Err(bad_storage(col)) };
    if *v == Value::Null {
        d.values.discriminators.push(chwire_proto::column::VariantColumn::NULL);
        d.values.offsets.push(0);
        return Ok(());
    }
    let t = type_of(v).ok_or_else(|| format!("{} has no type of its own for a Dynamic column", value_kind(v)))?;
    // (The SharedVariant slot, String-typed, is not the String type.)
    let i = match d.types.iter().enumerate().position(|(i, x)| *x == t && Some(i) != d.shared) {
        Some(i) => i,
        None => {
            if d.types.len() >= 250 {
                return Err("more than 250 types in one Dynamic column".into());
            }
            d.values.variants.push(ColumnData::empty_for(&t).map_err(|e| e.to_string())?);
            d.types.push(t);
            d.types.len() - 1
        }
    };
    let c = &mut d.values.variants[i];
    let before = c.len();
    if let Err(e) = v.write(&d.types[i], c) {
        c.truncate(before).map_err(|e| e.to_string())?;
        return Err(e);
    }
    d.values.discriminators.push(i as u8);
    d.values.offsets.push(before as u32);
    Ok(())
}

/// The ClickHouse type a dynamic value has on its own (integers as 64-bit, decimals at
/// the widest precision of their storage); `None` for values without one (NULL, JSON).
pub(crate) fn type_of(v: &Value<'_>) -> Option<DataType> {
    use DataType as T;
    Some(match v {
        Value::UInt(_) => T::UInt64,
        Value::Int(_) => T::Int64,
        Value::Float32(_) => T::Float32,
        Value::Float64(_) => T::Float64,
        Value::Bool(_) => T::Bool,
        Value::String(_) | Value::Enum(..) => T::String,
        Value::FixedString(b) => T::FixedString(b.len()),
        Value::Uuid(_) => T::Uuid,
        Value::Date(_) => T::Date,
        Value::Date32(_) => T::Date32,
        Value::DateTime(_, tz) => T::DateTime(tz.map(str::to_string)),
        Value::DateTime64 { precision, tz, .. } => T::DateTime64 { precision: *precision, tz: tz.map(str::to_string) },
        Value::Time(_) => T::Time,
        Value::Time64 { precision, .. } => T::Time64(*precision),
        Value::UInt128(_) => T::UInt128,
        Value::Int128(_) => T::Int128,
        Value::UInt256(_) => T::UInt256,
        Value::Int256(_) => T::Int256,
        Value::BFloat16(_) => T::BFloat16,
        Value::Decimal { scale, .. } => T::Decimal { precision: 38, scale: *scale },
        Value::Decimal256 { scale, .. } => T::Decimal { precision: 76, scale: *scale },
        Value::Ipv4(_) => T::Ipv4,
        Value::Ipv6(_) => T::Ipv6,
        Value::Interval(_, kind) => T::Interval(*kind),
        // The elements' one type; elements of different types make an Array(Dynamic), each
        // element a Dynamic value of its own type (as the server infers `[1, 'a']`).
        Value::Array(items) => {
            let mut types = items.iter().filter(|x| **x != Value::Null).map(type_of);
            let inner = match types.next() {
                None => T::Nothing,
                Some(first) => {
                    let first = first?;
                    let mut same = true;
                    for t in types {
                        same &= t? == first;
                    }
                    if !same {
                        return Some(T::Array(Box::new(T::Dynamic { max_types: None })));
                    }
                    first
                }
            };
            let nullable = items.contains(&Value::Null) && !matches!(inner, T::Array(_) | T::Tuple(_) | T::Map(..));
            T::Array(Box::new(if nullable { T::Nullable(Box::new(inner)) } else { inner }))
        }
        Value::Map(pairs) => {
            let (k, v) = pairs.first()?;
            T::Map(Box::new(type_of(k)?), Box::new(type_of(v)?))
        }
        Value::Tuple(items) => T::Tuple(items.iter().map(|(n, x)| Some((n.map(str::to_string), type_of(x)?))).collect::<Option<_>>()?),
        _ => return None,
    })
}

/// Append JSON text to a JSON column, which a row builder sends in the STRING
/// serialization (ClickHouse parses the text on insert).
pub(crate) fn write_json_text(text: &[u8], col: &mut ColumnData) -> Result<(), String> {
    let ColumnData::Json(j) = col else { return Err(bad_storage(col)) };
    if j.text.is_none() {
        if j.rows > 0 {
            return Err("this JSON column is not built from text".into());
        }
        j.version = 1;
        j.text = Some(chwire_proto::StringColumn::new());
    }
    j.text.as_mut().expect("text serialization").push(text);
    j.rows += 1;
    Ok(())
}

/// A short name of a value's kind, for errors.
fn value_kind(v: &Value<'_>) -> String {
    let s = format!("{v:?}");
    let end = s.find(['(', ' ', '{']).unwrap_or(s.len());
    format!("a {} value", &s[..end])
}

/// Build a block from dynamic rows for the given columns (names and types): the
/// schema-free counterpart of the column builders, for [`crate::Insert::send`].
pub fn block_from_values<'v>(columns: &[(&str, DataType)], rows: impl IntoIterator<Item = &'v [Value<'v>]>) -> Result<Block> {
    let mut b = super::Builders::new(columns.iter().map(|(n, t)| (n.to_string(), t.clone())))?;
    for (r, row) in rows.into_iter().enumerate() {
        if row.len() != columns.len() {
            return Err(Error::new(ErrorKind::Row(format!("row {r} has {} values for {} columns", row.len(), columns.len()))));
        }
        b.append(|b| {
            for (i, v) in row.iter().enumerate() {
                b.write(i, v).map_err(|e| Error::new(ErrorKind::Row(format!("row {r}: {e}"))))?;
            }
            Ok(())
        })?;
    }
    b.take_block()
}
