//! Arrow fields → ClickHouse types: the type in the field's metadata, else the natural one.

use crate::schema::CLICKHOUSE_TYPE_KEY;
use crate::{Error, Result};
use arrow_schema::{DataType as A, Field, IntervalUnit, TimeUnit};
use chwire_proto::types::IntervalKind;
use chwire_proto::DataType;

/// The ClickHouse type of a field: its [`CLICKHOUSE_TYPE_KEY`] metadata when present, else
/// the natural ClickHouse type of its Arrow type (nullable fields → `Nullable(T)` where
/// ClickHouse allows it). See docs/ARROW.md.
pub fn clickhouse_type_for(field: &Field) -> Result<DataType> {
    typed(field, Read::Arrow)
}

/// [`clickhouse_type_for`] for a field read from a Parquet file, as ClickHouse 26.9 infers
/// it from Parquet (at any depth): text of Parquet's JSON logical type (an `arrow.json`
/// extension on the Arrow side) is a `JSON` column (from Arrow files: String), and a timestamp
/// without a zone (Parquet's `isAdjustedToUTC=false`) is a `DateTime64` in UTC, as ClickHouse's
/// `input_format_parquet_local_time_as_utc` (on by default) reads it (from Arrow files: a
/// `DateTime64` without a zone).
pub fn clickhouse_type_for_parquet(field: &Field) -> Result<DataType> {
    typed(field, Read::Parquet)
}

/// Which file format's inference applies where ClickHouse infers Arrow and Parquet differently.
#[derive(Clone, Copy)]
enum Read {
    Arrow,
    Parquet,
}

fn typed(field: &Field, read: Read) -> Result<DataType> {
    if let Some(name) = field.metadata().get(CLICKHOUSE_TYPE_KEY) {
        return DataType::parse(name).map_err(|e| Error::value(format!("bad {CLICKHOUSE_TYPE_KEY} metadata {name:?}: {e}")));
    }
    natural(field, read)
}

fn natural(field: &Field, read: Read) -> Result<DataType> {
    let ty = plain(field, read)?;
    Ok(if field.is_nullable() { nullable(ty) } else { ty })
}

/// `Nullable(ty)` where ClickHouse allows it; composite types stay as they are.
fn nullable(ty: DataType) -> DataType {
    match ty {
        DataType::Array(_) | DataType::Map(..) | DataType::Tuple(_) | DataType::Variant(_) | DataType::Nullable(_) => ty,
        DataType::LowCardinality(inner) => DataType::LowCardinality(Box::new(nullable(*inner))),
        DataType::Nothing => DataType::Nullable(Box::new(DataType::Nothing)),
        t => DataType::Nullable(Box::new(t)),
    }
}

fn scale_of(unit: TimeUnit) -> u8 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

fn plain(field: &Field, read: Read) -> Result<DataType> {
    use DataType as T;
    let ext = field.metadata().get("ARROW:extension:name").map(String::as_str);
    Ok(match field.data_type() {
        A::Null => T::Nothing,
        A::Boolean => T::Bool,
        A::Int8 => T::Int8,
        A::Int16 => T::Int16,
        A::Int32 => T::Int32,
        A::Int64 => T::Int64,
        A::UInt8 => T::UInt8,
        A::UInt16 => T::UInt16,
        A::UInt32 => T::UInt32,
        A::UInt64 => T::UInt64,
        A::Float16 | A::Float32 => T::Float32,
        A::Float64 => T::Float64,
        A::Utf8 | A::LargeUtf8 | A::Utf8View if matches!(read, Read::Parquet) && ext == Some(crate::json_text::JSON_EXTENSION) => {
            T::Json { typed: Vec::new(), args: Vec::new() }
        }
        A::Utf8 | A::LargeUtf8 | A::Utf8View | A::Binary | A::LargeBinary | A::BinaryView => T::String,
        A::FixedSizeBinary(16) if ext == Some("arrow.uuid") => T::Uuid,
        // FixedString(0) is no ClickHouse type (and a negative width no Arrow one).
        A::FixedSizeBinary(n) if *n > 0 => T::FixedString(*n as usize),
        A::Date32 | A::Date64 => T::Date32,
        A::Timestamp(unit, tz) => {
            let tz = match (tz, read) {
                (Some(tz), _) => Some(tz.to_string()),
                (None, Read::Parquet) => Some("UTC".to_string()),
                (None, Read::Arrow) => None,
            };
            T::DateTime64 { precision: scale_of(*unit), tz }
        }
        A::Time32(TimeUnit::Second) => T::Time,
        A::Time32(u) | A::Time64(u) => T::Time64(scale_of(*u)),
        A::Duration(u) => T::Interval(match u {
            TimeUnit::Second => IntervalKind::Second,
            TimeUnit::Millisecond => IntervalKind::Millisecond,
            TimeUnit::Microsecond => IntervalKind::Microsecond,
            TimeUnit::Nanosecond => IntervalKind::Nanosecond,
        }),
        A::Interval(IntervalUnit::YearMonth) => T::Interval(IntervalKind::Month),
        A::Decimal32(p, s) | A::Decimal64(p, s) | A::Decimal128(p, s) | A::Decimal256(p, s) if *s >= 0 && *s as u8 <= *p => {
            T::Decimal { precision: *p, scale: *s as u8 }
        }
        A::List(item) | A::LargeList(item) | A::FixedSizeList(item, _) | A::ListView(item) | A::LargeListView(item) => {
            T::Array(Box::new(natural(item, read)?))
        }
        A::Map(entries, _) => match entries.data_type() {
            A::Struct(kv) if kv.len() == 2 => T::Map(Box::new(plain(&kv[0], read)?), Box::new(natural(&kv[1], read)?)),
            _ => return Err(unsupported(field)),
        },
        // Named by the members, "1", "2", … included, as ClickHouse 26.9 infers a struct
        // (chwire's own files restore unnamed tuples from their `clickhouse.type`).
        A::Struct(fields) => T::Tuple(fields.iter().map(|f| Ok((Some(f.name().clone()), natural(f, read)?))).collect::<Result<Vec<_>>>()?),
        A::Dictionary(_, values) => {
            let inner = plain(&Field::new(field.name(), (**values).clone(), false), read)?;
            let inner = if field.is_nullable() { nullable(inner) } else { inner };
            if low_cardinality_allowed(inner.strip_nullable()) {
                T::LowCardinality(Box::new(inner))
            } else {
                inner
            }
        }
        A::Union(fields, _) => {
            let types = fields
                .iter()
                .filter(|(_, f)| !matches!(f.data_type(), A::Null))
                .map(|(_, f)| plain(f, read))
                .collect::<Result<Vec<_>>>()?;
            T::Variant(types)
        }
        _ => return Err(unsupported(field)),
    })
}

fn low_cardinality_allowed(t: &DataType) -> bool {
    use DataType as T;
    matches!(
        t,
        T::String
            | T::FixedString(_)
            | T::UInt8
            | T::UInt16
            | T::UInt32
            | T::UInt64
            | T::Int8
            | T::Int16
            | T::Int32
            | T::Int64
            | T::Float32
            | T::Float64
            | T::Date
            | T::Date32
            | T::DateTime(_)
    )
}

fn unsupported(field: &Field) -> Error {
    Error::Mismatch {
        column: String::new(),
        arrow: field.data_type().to_string(),
        clickhouse: "?".into(),
        detail: "no ClickHouse type for this Arrow type".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn timestamps_without_a_zone_are_utc_from_parquet_and_zoneless_from_arrow() {
        let naive = A::Timestamp(TimeUnit::Microsecond, None);
        let field = Field::new("t", naive.clone(), false);
        assert_eq!(clickhouse_type_for_parquet(&field).unwrap().to_string(), "DateTime64(6, 'UTC')");
        assert_eq!(clickhouse_type_for(&field).unwrap().to_string(), "DateTime64(6)");
        // At any depth, and a zone of the file's own is kept.
        let list = Field::new("l", A::List(Arc::new(Field::new("item", naive, true))), false);
        assert_eq!(clickhouse_type_for_parquet(&list).unwrap().to_string(), "Array(Nullable(DateTime64(6, 'UTC')))");
        let zoned = Field::new("z", A::Timestamp(TimeUnit::Millisecond, Some("Asia/Tokyo".into())), true);
        assert_eq!(clickhouse_type_for_parquet(&zoned).unwrap().to_string(), "Nullable(DateTime64(3, 'Asia/Tokyo'))");
        // chwire's own files name their types: the metadata wins.
        let own = Field::new("o", A::Timestamp(TimeUnit::Millisecond, None), false)
            .with_metadata([(CLICKHOUSE_TYPE_KEY.to_string(), "DateTime64(3)".to_string())].into());
        assert_eq!(clickhouse_type_for_parquet(&own).unwrap().to_string(), "DateTime64(3)");
    }
}
