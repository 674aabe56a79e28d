//! ClickHouse types → Arrow fields, in both mappings (see docs/ARROW.md for the tables).

use crate::options::ArrowOptions;
use crate::{Error, Result};
use arrow_schema::{DataType as A, Field, Fields, TimeUnit, UnionFields, UnionMode};
use chwire_proto::types::IntervalKind;
use chwire_proto::DataType;
use std::collections::HashMap;
use std::sync::Arc;

/// The field metadata key holding the ClickHouse type name.
pub const CLICKHOUSE_TYPE_KEY: &str = "clickhouse.type";

/// The Arrow time unit of a sub-second scale (0..=9): the unit itself for 0/3/6/9, else the
/// next finer one (values are multiplied by `multiplier`).
pub(crate) fn unit_of_scale(scale: u8) -> (TimeUnit, i64) {
    match scale {
        0 => (TimeUnit::Second, 1),
        1..=3 => (TimeUnit::Millisecond, 10i64.pow(3 - u32::from(scale))),
        4..=6 => (TimeUnit::Microsecond, 10i64.pow(6 - u32::from(scale))),
        _ => (TimeUnit::Nanosecond, 10i64.pow(9 - u32::from(scale.min(9)))),
    }
}

/// Ticks per second of an Arrow time unit.
pub(crate) fn ticks_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// The Duration unit of an interval kind, for the sub-minute kinds.
pub(crate) fn interval_unit(kind: IntervalKind) -> Option<TimeUnit> {
    match kind {
        IntervalKind::Nanosecond => Some(TimeUnit::Nanosecond),
        IntervalKind::Microsecond => Some(TimeUnit::Microsecond),
        IntervalKind::Millisecond => Some(TimeUnit::Millisecond),
        IntervalKind::Second => Some(TimeUnit::Second),
        _ => None,
    }
}

/// Whether values of `ty` can be NULL in Arrow (Nullable, LowCardinality(Nullable), Nothing).
/// Variants (and Geometry) have NULL rows too: their union members hold them.
pub(crate) fn is_nullable(ty: &DataType) -> bool {
    match ty {
        DataType::Nullable(_) | DataType::Nothing | DataType::Variant(_) | DataType::Geometry => true,
        DataType::LowCardinality(inner) => inner.is_nullable(),
        DataType::SimpleAggregateFunction { ty, .. } => is_nullable(ty),
        _ => false,
    }
}

/// The type of a LowCardinality dictionary's keys in Arrow (fixed, so that every batch of a
/// stream has the schema known from the header).
pub(crate) const DICT_KEY: A = A::Int32;

/// A named Arrow field of ClickHouse type `ty`, with the type name in its metadata.
pub fn field_for(name: &str, ty: &DataType, opts: &ArrowOptions) -> Result<Field> {
    let mut f = inner_field(name, ty, opts)?;
    let mut md = f.metadata().clone();
    md.insert(CLICKHOUSE_TYPE_KEY.to_string(), ty.to_string());
    f.set_metadata(md);
    Ok(f)
}

/// A field of nested values (list items, struct members): no ClickHouse type metadata,
/// except what the type itself needs (extension names).
pub(crate) fn inner_field(name: &str, ty: &DataType, opts: &ArrowOptions) -> Result<Field> {
    let f = Field::new(name, arrow_type(ty, opts)?, is_nullable(ty));
    Ok(match ty.strip_nullable() {
        DataType::Uuid => {
            let mut md = HashMap::from([
                ("ARROW:extension:name".to_string(), "arrow.uuid".to_string()),
                ("ARROW:extension:metadata".to_string(), String::new()),
            ]);
            if !opts.rich_mode() {
                md.insert("PARQUET:logical_type".into(), "UUID".into());
            }
            f.with_metadata(md)
        }
        DataType::Dynamic { .. } | DataType::Json { .. } => f.with_metadata(HashMap::from([
            ("ARROW:extension:name".to_string(), crate::json_text::JSON_EXTENSION.to_string()),
            ("ARROW:extension:metadata".to_string(), String::new()),
        ])),
        _ => f,
    })
}

/// The Arrow type of ClickHouse type `ty` under `opts`.
pub fn arrow_type(ty: &DataType, opts: &ArrowOptions) -> Result<A> {
    use DataType as T;
    let rich = opts.rich_mode();
    Ok(match ty {
        T::UInt8 => A::UInt8,
        T::UInt16 => A::UInt16,
        T::UInt32 => A::UInt32,
        T::UInt64 => A::UInt64,
        T::Int8 => A::Int8,
        T::Int16 => A::Int16,
        T::Int32 => A::Int32,
        T::Int64 => A::Int64,
        T::Float32 => A::Float32,
        T::Float64 => A::Float64,
        T::BFloat16 if rich => A::Float32,
        T::BFloat16 => A::Binary,
        T::Bool => A::Boolean,
        T::String => string_type(opts),
        T::FixedString(n) if opts.fixed_string_as_fixed_byte_array => A::FixedSizeBinary(fixed_width(*n)?),
        T::FixedString(_) => binary_type(opts),
        T::Uuid | T::Ipv6 => A::FixedSizeBinary(16),
        T::Int128 | T::UInt128 => A::FixedSizeBinary(16),
        T::Int256 | T::UInt256 => A::FixedSizeBinary(32),
        T::Ipv4 => A::UInt32,
        T::Date | T::Date32 => A::Date32,
        T::DateTime(tz) if rich => A::Timestamp(TimeUnit::Second, Some(opts.timezone_or_default(tz).into())),
        T::DateTime(_) => A::UInt32,
        T::DateTime64 { precision, tz } => A::Timestamp(unit_of_scale(*precision).0, Some(opts.timezone_or_default(tz).into())),
        T::Enum8(_) if rich => A::Dictionary(Box::new(A::Int8), Box::new(A::Utf8)),
        T::Enum16(_) if rich => A::Dictionary(Box::new(A::Int16), Box::new(A::Utf8)),
        T::Enum8(_) => A::Int8,
        T::Enum16(_) => A::Int16,
        T::Decimal { precision, scale } if *precision <= 38 => A::Decimal128(*precision, *scale as i8),
        T::Decimal { precision, scale } => A::Decimal256(*precision, *scale as i8),
        T::Time if rich => A::Duration(TimeUnit::Second),
        T::Time => A::Time32(TimeUnit::Second),
        T::Time64(p) if rich => A::Duration(unit_of_scale(*p).0),
        T::Time64(p) => match unit_of_scale(*p).0 {
            u @ (TimeUnit::Second | TimeUnit::Millisecond) => A::Time32(u),
            u => A::Time64(u),
        },
        T::Interval(kind) => match interval_unit(*kind) {
            Some(u) => A::Duration(u),
            None => A::Int64,
        },
        T::Nullable(inner) => arrow_type(inner, opts)?,
        T::Nothing => A::Null,
        T::Array(inner) => {
            let item = Arc::new(inner_field("item", inner, opts)?);
            if rich {
                A::LargeList(item)
            } else {
                A::List(item)
            }
        }
        T::Map(k, v) => {
            // Arrow map keys cannot be null.
            let key = match **k {
                // Map(Nothing, _) (the type of `map()`): Arrow keys cannot be null, and
                // readers refuse a non-nullable Null type; its keys (there are none) as UInt8.
                DataType::Nothing => Field::new("key", A::UInt8, false),
                _ => inner_field("key", k, opts)?.with_nullable(false),
            };
            let value = inner_field("value", v, opts)?;
            A::Map(Arc::new(Field::new("entries", A::Struct(Fields::from(vec![key, value])), false)), false)
        }
        T::Tuple(items) => A::Struct(tuple_fields(items, opts)?),
        T::LowCardinality(inner) => {
            let values = arrow_type(inner.strip_nullable(), opts)?;
            if rich || opts.low_cardinality_as_dictionary {
                A::Dictionary(Box::new(DICT_KEY), Box::new(values))
            } else {
                values
            }
        }
        T::Variant(types) => A::Union(variant_fields(types, opts)?, UnionMode::Dense),
        T::AggregateFunction(_) => binary_type(opts),
        T::Nested(_) | T::Geo(_) | T::SimpleAggregateFunction { .. } | T::QBit { .. } | T::Geometry => {
            arrow_type(&ty.storage().ok_or_else(|| Error::UnsupportedType(ty.to_string()))?, opts)?
        }
        // JSON text (extension `arrow.json`, set by `inner_field`), as ClickHouse writes them.
        T::Dynamic { .. } | T::Json { .. } if rich || opts.use_64_bit_indexes_for_string => A::LargeUtf8,
        T::Dynamic { .. } | T::Json { .. } => A::Utf8,
        _ => return Err(Error::UnsupportedType(ty.to_string())),
    })
}

fn fixed_width(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::UnsupportedType(format!("FixedString({n})")))
}

fn string_type(opts: &ArrowOptions) -> A {
    match (opts.string_as_string, opts.rich_mode() || opts.use_64_bit_indexes_for_string) {
        (true, true) => A::LargeUtf8,
        (true, false) => A::Utf8,
        (false, _) => binary_type(opts),
    }
}

fn binary_type(opts: &ArrowOptions) -> A {
    if opts.rich_mode() || opts.use_64_bit_indexes_for_string {
        A::LargeBinary
    } else {
        A::Binary
    }
}

/// Struct members of a tuple: its element names, or "1", "2", … as ClickHouse names them.
pub(crate) fn tuple_fields(items: &[(Option<String>, DataType)], opts: &ArrowOptions) -> Result<Fields> {
    items
        .iter()
        .enumerate()
        .map(|(i, (name, t))| inner_field(name.as_deref().unwrap_or(&(i + 1).to_string()), t, opts))
        .collect::<Result<Vec<_>>>()
        .map(Fields::from)
}

/// Union members of a variant: one per type (type id = discriminator), then a Null member
/// named "NULL" for the NULL rows (as ClickHouse 26.9 writes it). The rich mapping names
/// members by their full type name, the ClickHouse mapping by the type's family name.
pub(crate) fn variant_fields(types: &[DataType], opts: &ArrowOptions) -> Result<UnionFields> {
    let mut fields = Vec::with_capacity(types.len() + 1);
    for t in types {
        let name = if opts.rich_mode() {
            t.to_string()
        } else {
            // ClickHouse names members by the family of the type they are stored as.
            let stored = t.storage().unwrap_or_else(|| t.clone()).to_string();
            stored.split('(').next().unwrap_or(&stored).to_string()
        };
        fields.push(inner_field(&name, t, opts)?);
    }
    fields.push(Field::new("NULL", A::Null, true));
    let ids = (0..fields.len()).map(|i| i as i8);
    UnionFields::try_new(ids, fields).map_err(|e| Error::UnsupportedType(format!("Variant of {} types: {e}", types.len())))
}
