//! Building columns row by row: undoing a partly appended row, and dictionary-encoding
//! columns built in their plain form into `LowCardinality` storage.
//!
//! Row builders (chwire's inserter, dynamic rows) append to the *plain* form of a type
//! ([`DataType::without_low_cardinality`]) and call [`encode_low_cardinality`] once per
//! block, so appending stays a push onto a vector and deduplication happens in one pass.
#![allow(clippy::expect_used, reason = "builders of the caller's own values: their expectations are checked invariants, never input")]

use std::collections::HashMap;

use super::{ArrayColumn, ColumnData, LcKeys, LowCardinalityColumn, NullableColumn, TupleColumn};
use crate::error::EncodeError;
use crate::types::DataType;

impl DataType {
    /// This type with every `LowCardinality(T)` inside it replaced by `T`: the form row
    /// builders append to before [`encode_low_cardinality`].
    /// Aliases are replaced by their structural types on the way (what builders hold).
    pub fn without_low_cardinality(&self) -> DataType {
        match self.structural() {
            DataType::LowCardinality(inner) => inner.without_low_cardinality(),
            DataType::Nested(fields) => DataType::Nested(fields.iter().map(|(n, t)| (n.clone(), t.without_low_cardinality())).collect()),
            DataType::Nullable(inner) => DataType::Nullable(Box::new(inner.without_low_cardinality())),
            DataType::Array(inner) => DataType::Array(Box::new(inner.without_low_cardinality())),
            DataType::Map(k, v) => DataType::Map(Box::new(k.without_low_cardinality()), Box::new(v.without_low_cardinality())),
            DataType::Tuple(items) => DataType::Tuple(items.iter().map(|(n, t)| (n.clone(), t.without_low_cardinality())).collect()),
            DataType::Variant(types) => DataType::Variant(types.iter().map(DataType::without_low_cardinality).collect()),
            other => other.clone(),
        }
    }

    /// The structural type an alias is stored and read as (the tuples and arrays of the
    /// geometry types, the argument type of `SimpleAggregateFunction`); other types as they are.
    #[inline]
    pub fn structural(&self) -> &DataType {
        match self {
            DataType::Geo(_) | DataType::SimpleAggregateFunction { .. } => self.structural_of_alias(),
            other => other,
        }
    }

    #[cold]
    fn structural_of_alias(&self) -> &DataType {
        match self {
            DataType::Geo(g) => super::value::geo_storage(*g),
            DataType::SimpleAggregateFunction { ty, .. } => ty.structural(),
            other => other,
        }
    }

    /// Whether `LowCardinality` occurs anywhere in this type.
    pub fn has_low_cardinality(&self) -> bool {
        self.contains(&|t| matches!(t, DataType::LowCardinality(_)))
    }

    /// Whether `pred` holds for this type or any type inside it (element, key, value,
    /// member and variant types; aliases as their structural types).
    pub fn contains(&self, pred: &dyn Fn(&DataType) -> bool) -> bool {
        let ty = self.structural();
        pred(ty)
            || match ty {
                DataType::Nullable(t) | DataType::Array(t) | DataType::LowCardinality(t) => t.contains(pred),
                DataType::Map(k, v) => k.contains(pred) || v.contains(pred),
                DataType::Tuple(items) => items.iter().any(|(_, t)| t.contains(pred)),
                DataType::Nested(fields) => fields.iter().any(|(_, t)| t.contains(pred)),
                DataType::Variant(types) => types.iter().any(|t| t.contains(pred)),
                _ => false,
            }
    }
}

/// Turn `data`, built for `ty.without_low_cardinality()`, into the storage of `ty`: every
/// `LowCardinality` part (also inside Array, Map, Tuple) is dictionary-encoded.
pub fn encode_low_cardinality(ty: &DataType, data: ColumnData) -> Result<ColumnData, EncodeError> {
    if !ty.has_low_cardinality() {
        return Ok(data);
    }
    Ok(match (ty.structural(), data) {
        (DataType::Nested(fields), data) => {
            let storage = DataType::Array(Box::new(DataType::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect())));
            encode_low_cardinality(&storage, data)?
        }
        (DataType::LowCardinality(inner), data) => {
            ColumnData::LowCardinality(Box::new(LowCardinalityColumn::from_plain(data, inner.is_nullable())?))
        }
        (DataType::Array(inner), ColumnData::Array(a)) => {
            let ArrayColumn { offsets, values } = *a;
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: encode_low_cardinality(inner, values)? }))
        }
        (DataType::Map(k, v), ColumnData::Array(a)) => {
            let ArrayColumn { offsets, values } = *a;
            let tuple = DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: encode_low_cardinality(&tuple, values)? }))
        }
        (DataType::Tuple(items), ColumnData::Tuple(t)) => {
            let TupleColumn { rows, elements } = t;
            let elements = items.iter().zip(elements).map(|((_, ity), e)| encode_low_cardinality(ity, e)).collect::<Result<Vec<_>, _>>()?;
            ColumnData::Tuple(TupleColumn { rows, elements })
        }
        (DataType::Variant(types), ColumnData::Variant(v)) => {
            let super::VariantColumn { discriminators, offsets, variants } = *v;
            let variants = types.iter().zip(variants).map(|(t, c)| encode_low_cardinality(t, c)).collect::<Result<Vec<_>, _>>()?;
            ColumnData::Variant(Box::new(super::VariantColumn { discriminators, offsets, variants }))
        }
        (DataType::Nullable(inner), ColumnData::Nullable(n)) => {
            let NullableColumn { nulls, values } = *n;
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values: encode_low_cardinality(inner, values)? }))
        }
        (ty, data) => return Err(EncodeError::Invalid(format!("storage {} does not fit type {ty}", data.kind_name()))),
    })
}

/// Put the Dynamic columns a row builder filled (types in first-seen order, no
/// `SharedVariant`) into the layout the wire needs: the types plus `SharedVariant`, sorted
/// by name, discriminators renumbered. Also inside Array, Map, Tuple, Nullable and Variant.
pub fn finish_dynamic(data: &mut ColumnData) {
    match data {
        ColumnData::Dynamic(d) => {
            if d.shared.is_none() && d.version != 3 {
                d.types.push(DataType::String);
                d.values.variants.push(ColumnData::String(super::StringColumn::new()));
                d.shared = Some(d.types.len() - 1);
            }
            let name = |i: usize, t: &DataType| if Some(i) == d.shared { "SharedVariant".to_string() } else { t.to_string() };
            let mut order: Vec<usize> = (0..d.types.len()).collect();
            let names: Vec<String> = d.types.iter().enumerate().map(|(i, t)| name(i, t)).collect();
            order.sort_by(|&a, &b| names[a].cmp(&names[b]));
            if order.iter().enumerate().any(|(new, &old)| new != old) {
                let mut new_of_old = vec![0u8; order.len()];
                for (new, &old) in order.iter().enumerate() {
                    new_of_old[old] = new as u8;
                }
                for x in &mut d.values.discriminators {
                    if *x != super::VariantColumn::NULL {
                        *x = new_of_old[*x as usize];
                    }
                }
                let mut types: Vec<Option<DataType>> = std::mem::take(&mut d.types).into_iter().map(Some).collect();
                let mut cols: Vec<Option<ColumnData>> = std::mem::take(&mut d.values.variants).into_iter().map(Some).collect();
                for &old in &order {
                    d.types.push(types[old].take().expect("each type once"));
                    d.values.variants.push(cols[old].take().expect("each column once"));
                }
                d.shared = d.shared.map(|s| new_of_old[s] as usize);
            }
            for c in &mut d.values.variants {
                finish_dynamic(c);
            }
        }
        ColumnData::Array(a) => finish_dynamic(&mut a.values),
        ColumnData::Nullable(n) => finish_dynamic(&mut n.values),
        ColumnData::Tuple(t) => t.elements.iter_mut().for_each(finish_dynamic),
        ColumnData::Variant(v) => v.variants.iter_mut().for_each(finish_dynamic),
        _ => {}
    }
}

/// Rows of a column seen as byte strings (the identity used for deduplication).
enum RowBytes<'a> {
    Fixed(usize, &'a [u8]),
    Strings(&'a super::StringColumn),
}

impl<'a> RowBytes<'a> {
    fn of(data: &'a ColumnData) -> Option<RowBytes<'a>> {
        use ColumnData as D;
        let fixed = |w: usize, b: &'a [u8]| Some(RowBytes::Fixed(w, b));
        match data {
            D::UInt8(v) => fixed(1, v),
            D::Int8(v) => fixed(1, bytemuck::cast_slice(v)),
            D::UInt16(v) => fixed(2, bytemuck::cast_slice(v)),
            D::Int16(v) => fixed(2, bytemuck::cast_slice(v)),
            D::UInt32(v) => fixed(4, bytemuck::cast_slice(v)),
            D::Int32(v) => fixed(4, bytemuck::cast_slice(v)),
            D::Float32(v) => fixed(4, bytemuck::cast_slice(v)),
            D::UInt64(v) => fixed(8, bytemuck::cast_slice(v)),
            D::Int64(v) => fixed(8, bytemuck::cast_slice(v)),
            D::Float64(v) => fixed(8, bytemuck::cast_slice(v)),
            D::UInt128(v) => fixed(16, bytemuck::cast_slice(v)),
            D::Int128(v) => fixed(16, bytemuck::cast_slice(v)),
            D::Fixed { width, data } => fixed(*width, data),
            D::String(s) => Some(RowBytes::Strings(s)),
            _ => None,
        }
    }

    #[inline]
    fn get(&self, i: usize) -> &'a [u8] {
        match self {
            RowBytes::Fixed(w, b) => &b[i * w..(i + 1) * w],
            RowBytes::Strings(s) => s.get(i),
        }
    }
}

impl LowCardinalityColumn {
    /// Dictionary-encode a plain column: `data` holds the values of `T` (for
    /// `LowCardinality(Nullable(T))`, with `nullable`, a `Nullable(T)` column). Entry 0 of
    /// the dictionary is the default value (with `nullable`: NULL, then the default), as
    /// ClickHouse lays it out; keys take the narrowest width the dictionary allows.
    /// Works for numbers, dates, FixedString and String.
    pub fn from_plain(data: ColumnData, nullable: bool) -> Result<LowCardinalityColumn, EncodeError> {
        let (nulls, values) = match (nullable, data) {
            (true, ColumnData::Nullable(n)) => {
                let NullableColumn { nulls, values } = *n;
                (Some(nulls), values)
            }
            (true, other) => {
                return Err(EncodeError::Invalid(format!("LowCardinality(Nullable): expected Nullable storage, got {}", other.kind_name())))
            }
            (false, other) => (None, other),
        };
        let rows = RowBytes::of(&values)
            .ok_or_else(|| EncodeError::Invalid(format!("LowCardinality of {} storage is not supported", values.kind_name())))?;
        let mut dict = ColumnData::with_capacity_like(&values);
        let zero: Vec<u8>;
        let default: &[u8] = match rows {
            RowBytes::Fixed(w, _) => {
                zero = vec![0u8; w];
                &zero
            }
            RowBytes::Strings(_) => b"",
        };
        dict.push_bytes(default);
        if nullable {
            dict.push_bytes(default);
        }
        let first = dict.len() as u64;
        let mut index: HashMap<&[u8], u64> = HashMap::new();
        let n = values.len();
        let mut keys: Vec<u64> = Vec::with_capacity(n);
        for i in 0..n {
            if nulls.as_ref().is_some_and(|m| m[i] != 0) {
                keys.push(0);
                continue;
            }
            let b = rows.get(i);
            let k = if b == default {
                first - 1
            } else {
                *index.entry(b).or_insert_with(|| {
                    dict.push_bytes(b);
                    dict.len() as u64 - 1
                })
            };
            keys.push(k);
        }
        let d = dict.len();
        let keys = if d <= 1 << 8 {
            LcKeys::U8(keys.into_iter().map(|k| k as u8).collect())
        } else if d <= 1 << 16 {
            LcKeys::U16(keys.into_iter().map(|k| k as u16).collect())
        } else if d <= 1 << 32 {
            LcKeys::U32(keys.into_iter().map(|k| k as u32).collect())
        } else {
            LcKeys::U64(keys)
        };
        Ok(LowCardinalityColumn { dictionary: dict, keys })
    }
}

impl ColumnData {
    /// An empty column of the same storage kind (fixed-width, FixedString or String).
    fn with_capacity_like(src: &ColumnData) -> ColumnData {
        use ColumnData as D;
        match src {
            D::UInt8(_) => D::UInt8(Vec::new()),
            D::Int8(_) => D::Int8(Vec::new()),
            D::UInt16(_) => D::UInt16(Vec::new()),
            D::Int16(_) => D::Int16(Vec::new()),
            D::UInt32(_) => D::UInt32(Vec::new()),
            D::Int32(_) => D::Int32(Vec::new()),
            D::Float32(_) => D::Float32(Vec::new()),
            D::UInt64(_) => D::UInt64(Vec::new()),
            D::Int64(_) => D::Int64(Vec::new()),
            D::Float64(_) => D::Float64(Vec::new()),
            D::UInt128(_) => D::UInt128(Vec::new()),
            D::Int128(_) => D::Int128(Vec::new()),
            D::Fixed { width, .. } => D::Fixed { width: *width, data: Vec::new() },
            _ => D::String(super::StringColumn::new()),
        }
    }

    /// Append one value given as its little-endian bytes (the width of the storage).
    fn push_bytes(&mut self, b: &[u8]) {
        use ColumnData as D;
        fn le<const N: usize>(b: &[u8]) -> [u8; N] {
            b.try_into().expect("row bytes have the storage width")
        }
        match self {
            D::UInt8(v) => v.push(b[0]),
            D::Int8(v) => v.push(b[0] as i8),
            D::UInt16(v) => v.push(u16::from_le_bytes(le(b))),
            D::Int16(v) => v.push(i16::from_le_bytes(le(b))),
            D::UInt32(v) => v.push(u32::from_le_bytes(le(b))),
            D::Int32(v) => v.push(i32::from_le_bytes(le(b))),
            D::Float32(v) => v.push(f32::from_le_bytes(le(b))),
            D::UInt64(v) => v.push(u64::from_le_bytes(le(b))),
            D::Int64(v) => v.push(i64::from_le_bytes(le(b))),
            D::Float64(v) => v.push(f64::from_le_bytes(le(b))),
            D::UInt128(v) => v.push(u128::from_le_bytes(le(b))),
            D::Int128(v) => v.push(i128::from_le_bytes(le(b))),
            D::Fixed { data, .. } => data.extend_from_slice(b),
            D::String(s) => s.push(b),
            _ => unreachable!("push_bytes is only used on the kinds RowBytes::of accepts"),
        }
    }

    /// Append one default row (zero, empty string, empty array, a tuple of defaults, NULL):
    /// the placeholder under a NULL of a `Nullable` column. Variant, Dynamic and JSON
    /// columns are not row-built and give an error.
    pub fn push_default(&mut self) -> Result<(), EncodeError> {
        use ColumnData as D;
        match self {
            D::UInt8(v) => v.push(0),
            D::Int8(v) => v.push(0),
            D::UInt16(v) => v.push(0),
            D::Int16(v) => v.push(0),
            D::UInt32(v) => v.push(0),
            D::Int32(v) => v.push(0),
            D::Float32(v) => v.push(0.0),
            D::UInt64(v) => v.push(0),
            D::Int64(v) => v.push(0),
            D::Float64(v) => v.push(0.0),
            D::UInt128(v) => v.push(0),
            D::Int128(v) => v.push(0),
            D::Fixed { width, data } => data.resize(data.len() + *width, 0),
            D::String(s) => s.push(b""),
            D::Nullable(n) => {
                n.nulls.push(1);
                n.values.push_default()?;
            }
            D::Array(a) => {
                let last = *a.offsets.last().expect("offsets start with 0");
                a.offsets.push(last);
            }
            D::Tuple(t) => {
                for e in &mut t.elements {
                    e.push_default()?;
                }
                t.rows += 1;
            }
            D::Variant(v) => {
                v.discriminators.push(super::VariantColumn::NULL);
                v.offsets.push(0);
            }
            D::Dynamic(d) => {
                d.values.discriminators.push(super::VariantColumn::NULL);
                d.values.offsets.push(0);
            }
            other => return Err(EncodeError::Invalid(format!("cannot append a default row to a {} column", other.kind_name()))),
        }
        Ok(())
    }

    /// Keep the first `rows` complete rows (or all of them, if there are fewer) and drop
    /// everything after them, also values of a row that was only partly appended (an array
    /// element, a tuple element, a variant's value): how a row builder undoes a row it could
    /// not finish. Variant, Dynamic and JSON-as-text columns included; other JSON columns
    /// are not row-built and give an error.
    pub fn truncate(&mut self, rows: usize) -> Result<(), EncodeError> {
        use ColumnData as D;
        match self {
            D::UInt8(v) => v.truncate(rows),
            D::Int8(v) => v.truncate(rows),
            D::UInt16(v) => v.truncate(rows),
            D::Int16(v) => v.truncate(rows),
            D::UInt32(v) => v.truncate(rows),
            D::Int32(v) => v.truncate(rows),
            D::Float32(v) => v.truncate(rows),
            D::UInt64(v) => v.truncate(rows),
            D::Int64(v) => v.truncate(rows),
            D::Float64(v) => v.truncate(rows),
            D::UInt128(v) => v.truncate(rows),
            D::Int128(v) => v.truncate(rows),
            D::Fixed { width, data } => {
                let keep = (data.len() / *width).min(rows);
                data.truncate(keep * *width);
            }
            D::String(s) => s.truncate(rows),
            D::Nullable(n) => {
                n.nulls.truncate(rows);
                n.values.truncate(n.nulls.len())?;
            }
            D::Array(a) => {
                a.offsets.truncate(rows + 1);
                let end = *a.offsets.last().expect("offsets start with 0") as usize;
                a.values.truncate(end)?;
            }
            D::Tuple(t) => {
                t.rows = t.rows.min(rows);
                for e in &mut t.elements {
                    e.truncate(t.rows)?;
                }
            }
            D::LowCardinality(l) => match &mut l.keys {
                LcKeys::U8(k) => k.truncate(rows),
                LcKeys::U16(k) => k.truncate(rows),
                LcKeys::U32(k) => k.truncate(rows),
                LcKeys::U64(k) => k.truncate(rows),
            },
            D::Variant(v) => truncate_variant(v, rows)?,
            D::Dynamic(d) => truncate_variant(&mut d.values, rows)?,
            D::Json(j) if j.text.is_some() => {
                let text = j.text.as_mut().expect("checked");
                text.truncate(rows);
                j.rows = text.len();
            }
            other => {
                if other.len() > rows {
                    return Err(EncodeError::Invalid(format!("cannot truncate a {} column", other.kind_name())));
                }
            }
        }
        Ok(())
    }
}

/// Keep the first `rows` rows of a variant: each type's column keeps the rows the remaining
/// discriminators point at.
fn truncate_variant(v: &mut super::VariantColumn, rows: usize) -> Result<(), EncodeError> {
    v.discriminators.truncate(rows);
    v.offsets.truncate(rows);
    let mut counts = vec![0usize; v.variants.len()];
    for &d in &v.discriminators {
        if let Some(c) = counts.get_mut(d as usize) {
            *c += 1;
        }
    }
    for (c, n) in v.variants.iter_mut().zip(counts) {
        c.truncate(n)?;
    }
    Ok(())
}

impl super::StringColumn {
    /// Keep the first `rows` strings.
    pub fn truncate(&mut self, rows: usize) {
        self.offsets.truncate(rows + 1);
        let end = *self.offsets.last().expect("offsets start with 0") as usize;
        self.data.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::{Column, Value};

    #[test]
    fn plain_to_low_cardinality() {
        let ty = DataType::parse("Array(LowCardinality(Nullable(UInt32)))").unwrap();
        let plain = ty.without_low_cardinality();
        assert_eq!(plain.to_string(), "Array(Nullable(UInt32))");
        let mut data = ColumnData::empty_for(&plain).unwrap();
        let ColumnData::Array(a) = &mut data else { panic!() };
        let ColumnData::Nullable(n) = &mut a.values else { panic!() };
        let ColumnData::UInt32(v) = &mut n.values else { panic!() };
        v.extend([7, 0, 7, 9]);
        n.nulls.extend([0, 1, 0, 0]);
        a.offsets.extend([3, 4]);
        let lc = encode_low_cardinality(&ty, data).unwrap();
        let col = Column::new(ty, lc).unwrap();
        match col.value(0) {
            Value::Array(items) => assert_eq!(items, [Value::UInt(7), Value::Null, Value::UInt(7)]),
            v => panic!("{v:?}"),
        }
        match col.value(1) {
            Value::Array(items) => assert_eq!(items, [Value::UInt(9)]),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn built_dynamic_columns_get_the_wire_layout() {
        use crate::column::{DynamicColumn, VariantColumn};
        // Rows: "a" (String), 7 (UInt64), NULL, 8 — types in first-seen order.
        let mut data = ColumnData::Dynamic(Box::new(DynamicColumn {
            types: vec![DataType::String, DataType::UInt64],
            shared: None,
            values: VariantColumn::try_new(
                vec![0, 1, VariantColumn::NULL, 1],
                vec![ColumnData::String(["a"].into_iter().collect()), ColumnData::UInt64(vec![7, 8])],
            )
            .unwrap(),
            version: 2,
            max_types: None,
            shared_values: Default::default(),
        }));
        finish_dynamic(&mut data);
        let ColumnData::Dynamic(d) = &data else { panic!() };
        // Sorted: SharedVariant, String, UInt64.
        assert_eq!(d.types, [DataType::String, DataType::String, DataType::UInt64]);
        assert_eq!(d.shared, Some(0));
        assert_eq!(d.values.discriminators, [1, 2, VariantColumn::NULL, 2]);
        let col = Column::new(DataType::parse("Dynamic").unwrap(), data.clone()).unwrap();
        assert_eq!(col.value(0), Value::String(b"a"));
        assert_eq!(col.value(3), Value::UInt(8));
        assert_eq!(col.value(2), Value::Null);
    }

    #[test]
    fn truncates_nested_rows() {
        let ty = DataType::parse("Tuple(Array(String), Nullable(Int8))").unwrap();
        let mut data = ColumnData::empty_for(&ty).unwrap();
        {
            let ColumnData::Tuple(t) = &mut data else { panic!() };
            let ColumnData::Array(a) = &mut t.elements[0] else { panic!() };
            let ColumnData::String(s) = &mut a.values else { panic!() };
            s.push("a");
            s.push("bc");
            s.push("d");
            a.offsets.extend([2, 3]);
            let ColumnData::Nullable(n) = &mut t.elements[1] else { panic!() };
            n.nulls.extend([0, 1]);
            let ColumnData::Int8(v) = &mut n.values else { panic!() };
            v.extend([1, 0]);
            t.rows = 2;
        }
        data.truncate(1).unwrap();
        let col = Column::new(ty, data).unwrap();
        assert_eq!(col.len(), 1);
        assert_eq!(
            col.value(0),
            Value::Tuple(vec![(None, Value::Array(vec![Value::String(b"a"), Value::String(b"bc")])), (None, Value::Int(1))])
        );
    }
}
