//! Arrow types that Parquet cannot hold as they are, and their lossless equivalents; and where
//! ClickHouse's own Parquet differs from its Arrow.
//!
//! A timestamp in seconds (DateTime in the rich mapping) has no Parquet logical type:
//! parquet-rs writes it as a bare INT64, which only arrow-rs readers (through the embedded
//! Arrow schema) take back as a time; pyarrow, ClickHouse and DuckDB read a number. It goes to
//! Parquet in milliseconds instead, as ClickHouse 26.9 writes DateTime (`timestamp[ms]` with
//! its zone), at any depth. Reading back to a DateTime column divides exactly.
//!
//! The clickhouse mapping follows ClickHouse's Arrow writer, whose DateTime is `uint32` and
//! Enum its integer; ClickHouse's Parquet writer (26.9) writes DateTime as `timestamp[ms]`
//! (unless `output_format_parquet_datetime_as_uint32`) and Enum as its names (byte arrays), so
//! a clickhouse-mapping Parquet file does the same, at any depth, by each column's
//! `clickhouse.type`.
//!
//! Parquet has no union type: a Variant (a dense union in both mappings) goes to Parquet as a
//! struct with one nullable member per variant type, in the variant's order (named as the
//! union's members, a repeated name with `_` and its position appended), at most one of them
//! set in a row and none in a NULL row; the union's Null member is left out. The column's
//! `clickhouse.type` says Variant, and reading takes such a struct back into the Variant
//! (`from_arrow`). ClickHouse 26.9 cannot write Variant to Parquet at all.

use crate::schema::CLICKHOUSE_TYPE_KEY;
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, MapArray, RecordBatch, StructArray};
use arrow_schema::{DataType as A, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use chwire_proto::DataType;
use std::sync::Arc;

/// What a Parquet file's columns follow besides Parquet's own needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParquetMapping {
    /// ClickHouse's Parquet writer (the clickhouse mapping): DateTime as `timestamp[ms]` and
    /// Enum as its names.
    pub clickhouse: bool,
    /// `output_format_parquet_datetime_as_uint32`: DateTime stays `uint32`.
    pub datetime_as_uint32: bool,
}

/// The schema to write to Parquet, when it differs from `schema`.
pub fn parquet_schema(schema: &Schema, mapping: ParquetMapping) -> Option<SchemaRef> {
    let fields: Vec<Option<Field>> = schema.fields().iter().map(|f| top_field(f, mapping)).collect();
    if fields.iter().all(Option::is_none) {
        return None;
    }
    let fields: Vec<Field> =
        fields.into_iter().zip(schema.fields()).map(|(new, old)| new.unwrap_or_else(|| old.as_ref().clone())).collect();
    Some(Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())))
}

/// `batch` converted to [`parquet_schema`]'s `target` (milliseconds are seconds × 1000: exact;
/// Enum values to their names).
pub fn to_parquet_batch(batch: &RecordBatch, target: &SchemaRef, mapping: ParquetMapping) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .zip(batch.schema().fields())
        .zip(target.fields())
        .map(|((c, field), f)| {
            if c.data_type() == f.data_type() {
                return Ok(c.clone());
            }
            let ch = if mapping.clickhouse { clickhouse_type(field) } else { None };
            let c = match (&ch, ch_type(c.data_type(), ch.as_ref(), ChOnly(!mapping.datetime_as_uint32))) {
                (Some(ch), Some(step)) => ch_array(c, &step, ch)?,
                _ => c.clone(),
            };
            fit(&c, f.data_type())
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let rows = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(target.clone(), columns, &rows)?)
}

/// For each Parquet leaf column of `schema` (the written one, from [`parquet_schema`]), in
/// Parquet's order, whether it holds Enum names: ClickHouse annotates those with Parquet's
/// ENUM logical type, which a writer can add to the file's schema.
pub fn enum_name_leaves(schema: &Schema, mapping: ParquetMapping) -> Vec<bool> {
    let mut out = Vec::new();
    for f in schema.fields() {
        let ch = if mapping.clickhouse { clickhouse_type(f) } else { None };
        leaves(f.data_type(), ch.as_ref(), &mut out);
    }
    out
}

fn leaves(t: &A, ch: Option<&DataType>, out: &mut Vec<bool>) {
    let ch = match ch {
        Some(DataType::Nullable(inner) | DataType::LowCardinality(inner)) => return leaves(t, Some(inner), out),
        Some(nested @ DataType::Nested(_)) => return leaves(t, nested.storage().as_ref(), out),
        ch => ch,
    };
    match t {
        A::Dictionary(_, v) => leaves(v, ch, out),
        A::List(f) | A::LargeList(f) | A::FixedSizeList(f, _) | A::ListView(f) | A::LargeListView(f) => {
            let inner = match ch {
                Some(DataType::Array(inner)) => Some(inner.as_ref()),
                _ => None,
            };
            leaves(f.data_type(), inner, out)
        }
        A::Struct(fs) => {
            let items = match ch {
                Some(DataType::Tuple(items)) if items.len() == fs.len() => Some(items),
                _ => None,
            };
            for (i, f) in fs.iter().enumerate() {
                leaves(f.data_type(), items.and_then(|it| it.get(i)).map(|(_, t)| t), out);
            }
        }
        A::Map(entries, _) => {
            let tuple = match ch {
                Some(DataType::Map(k, v)) => Some(DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())])),
                _ => None,
            };
            leaves(entries.data_type(), tuple.as_ref(), out)
        }
        A::Binary | A::LargeBinary | A::BinaryView | A::Utf8 | A::LargeUtf8 | A::Utf8View => {
            out.push(matches!(ch, Some(DataType::Enum8(_) | DataType::Enum16(_))))
        }
        _ => out.push(false),
    }
}

/// Whether the ClickHouse step applies (the mapping's switches, for the types).
#[derive(Clone, Copy)]
struct ChOnly(bool);

fn clickhouse_type(f: &Field) -> Option<DataType> {
    f.metadata().get(CLICKHOUSE_TYPE_KEY).and_then(|t| DataType::parse(t).ok())
}

fn top_field(f: &Field, mapping: ParquetMapping) -> Option<Field> {
    let ch = if mapping.clickhouse { clickhouse_type(f) } else { None };
    let step = ch_type(f.data_type(), ch.as_ref(), ChOnly(!mapping.datetime_as_uint32));
    let t = step.clone().unwrap_or_else(|| f.data_type().clone());
    match (ty(&t), step) {
        (Some(t), _) | (None, Some(t)) => Some(retyped(f, t)),
        (None, None) => None,
    }
}

/// ClickHouse's Parquet types for the clickhouse mapping's `t` of ClickHouse type `ch`:
/// DateTime (`uint32`) as timestamp[s] (made milliseconds by [`ty`]) when `datetime` says
/// so, Enum as binary names; None when nothing changes.
fn ch_type(t: &A, ch: Option<&DataType>, datetime: ChOnly) -> Option<A> {
    let ch = ch?;
    match (t, ch) {
        (_, DataType::Nullable(inner) | DataType::LowCardinality(inner)) => ch_type(t, Some(inner), datetime),
        (A::Dictionary(k, v), _) => ch_type(v, Some(ch), datetime).map(|v| A::Dictionary(k.clone(), Box::new(v))),
        (A::UInt32, DataType::DateTime(tz)) if datetime.0 => {
            Some(A::Timestamp(TimeUnit::Second, Some(tz.clone().unwrap_or_else(|| "UTC".into()).into())))
        }
        (A::Int8 | A::Int16, DataType::Enum8(_) | DataType::Enum16(_)) => Some(A::Binary),
        (A::List(f), DataType::Array(inner)) => ch_field(f, inner, datetime).map(A::List),
        (A::LargeList(f), DataType::Array(inner)) => ch_field(f, inner, datetime).map(A::LargeList),
        (A::List(_) | A::LargeList(_), DataType::Nested(_)) => ch_type(t, ch.storage().as_ref(), datetime),
        (A::Struct(fs), DataType::Tuple(items)) if fs.len() == items.len() => {
            let new: Vec<Option<FieldRef>> = fs.iter().zip(items).map(|(f, (_, t))| ch_field(f, t, datetime)).collect();
            if new.iter().all(Option::is_none) {
                return None;
            }
            Some(A::Struct(new.into_iter().zip(fs.iter()).map(|(n, o)| n.unwrap_or_else(|| o.clone())).collect()))
        }
        (A::Map(entries, sorted), DataType::Map(k, v)) => {
            let tuple = DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            ch_field(entries, &tuple, datetime).map(|e| A::Map(e, *sorted))
        }
        _ => None,
    }
}

fn ch_field(f: &FieldRef, ch: &DataType, datetime: ChOnly) -> Option<FieldRef> {
    ch_type(f.data_type(), Some(ch), datetime).map(|t| Arc::new(f.as_ref().clone().with_data_type(t)))
}

/// `array` (of ClickHouse type `ch`) as `target` from [`ch_type`].
fn ch_array(array: &ArrayRef, target: &A, ch: &DataType) -> Result<ArrayRef> {
    if array.data_type() == target {
        return Ok(array.clone());
    }
    let mismatch = || Error::UnsupportedType(format!("{ch} as {} for Parquet", array.data_type()));
    Ok(match (target, ch) {
        (_, DataType::Nullable(inner) | DataType::LowCardinality(inner)) => ch_array(array, target, inner)?,
        (A::Dictionary(_, v), _) => {
            let d = array.as_any_dictionary();
            d.with_values(ch_array(d.values(), v, ch)?)
        }
        (A::Timestamp(..), DataType::DateTime(_)) => arrow_cast::cast(array, target)?,
        (A::Binary, DataType::Enum8(items)) => {
            enum_names(array, &items.iter().map(|(n, v)| (n.as_str(), i16::from(*v))).collect::<Vec<_>>())?
        }
        (A::Binary, DataType::Enum16(items)) => enum_names(array, &items.iter().map(|(n, v)| (n.as_str(), *v)).collect::<Vec<_>>())?,
        (A::List(f), DataType::Array(inner)) => ch_list::<i32>(array, f, inner)?,
        (A::LargeList(f), DataType::Array(inner)) => ch_list::<i64>(array, f, inner)?,
        (A::List(_) | A::LargeList(_), DataType::Nested(_)) => ch_array(array, target, &ch.storage().ok_or_else(mismatch)?)?,
        (A::Struct(fs), DataType::Tuple(items)) => {
            let s = array.as_struct();
            let columns = s
                .columns()
                .iter()
                .zip(fs.iter())
                .zip(items)
                .map(|((c, f), (_, t))| ch_array(c, f.data_type(), t))
                .collect::<Result<Vec<_>>>()?;
            Arc::new(StructArray::try_new(fs.clone(), columns, s.nulls().cloned())?)
        }
        (A::Map(entries, sorted), DataType::Map(k, v)) => {
            let m = array.as_map();
            let tuple = DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]);
            let e: ArrayRef = Arc::new(m.entries().clone());
            let e = ch_array(&e, entries.data_type(), &tuple)?;
            Arc::new(MapArray::try_new(entries.clone(), m.offsets().clone(), e.as_struct().clone(), m.nulls().cloned(), *sorted)?)
        }
        _ => return Err(mismatch()),
    })
}

/// A list (offsets of `O`) with its values as `item`'s type from [`ch_type`].
fn ch_list<O: arrow_array::OffsetSizeTrait>(array: &ArrayRef, item: &FieldRef, inner: &DataType) -> Result<ArrayRef> {
    let l = array.as_list::<O>();
    let values = ch_array(l.values(), item.data_type(), inner)?;
    Ok(Arc::new(arrow_array::GenericListArray::<O>::try_new(item.clone(), l.offsets().clone(), values, l.nulls().cloned())?))
}

/// Enum values (int8/int16) as their names; a value without a name is an error.
fn enum_names(array: &ArrayRef, items: &[(&str, i16)]) -> Result<ArrayRef> {
    let value = |i: usize| -> Option<i16> {
        match array.data_type() {
            A::Int8 => Some(i16::from(array.as_primitive::<arrow_array::types::Int8Type>().value(i))),
            A::Int16 => Some(array.as_primitive::<arrow_array::types::Int16Type>().value(i)),
            _ => None,
        }
    };
    let names = (0..array.len())
        .map(|i| {
            if array.is_null(i) {
                return Ok(None);
            }
            let v = value(i).ok_or_else(|| Error::UnsupportedType(format!("Enum as {}", array.data_type())))?;
            match items.iter().find(|(_, x)| *x == v) {
                Some((n, _)) => Ok(Some(n.as_bytes())),
                None => Err(Error::UnsupportedType(format!("Enum value {v} has no name"))),
            }
        })
        .collect::<Result<Vec<Option<&[u8]>>>>()?;
    Ok(Arc::new(BinaryArray::from(names)))
}

fn field(f: &Field) -> Option<Field> {
    ty(f.data_type()).map(|t| retyped(f, t))
}

/// `f` as type `t`; a variant's struct is never NULL itself (its members are), so its field is
/// required, as readers take a nullable group for a nullable tuple.
fn retyped(f: &Field, t: A) -> Field {
    let required = matches!(f.data_type(), A::Union(..));
    let f = f.clone().with_data_type(t);
    if required {
        f.with_nullable(false)
    } else {
        f
    }
}

/// The struct members of a union (a Variant) in Parquet: one nullable member per member but
/// the Null one, names made unique.
fn union_members(fs: &arrow_schema::UnionFields) -> Fields {
    let kept: Vec<&FieldRef> = fs.iter().map(|(_, f)| f).filter(|f| f.data_type() != &A::Null).collect();
    kept.iter()
        .enumerate()
        .map(|(i, f)| {
            let repeated = kept.iter().filter(|g| g.name() == f.name()).count() > 1;
            let name = if repeated { format!("{}_{}", f.name(), i + 1) } else { f.name().clone() };
            let t = ty(f.data_type()).unwrap_or_else(|| f.data_type().clone());
            Field::new(name, t, true).with_metadata(f.metadata().clone())
        })
        .collect()
}

/// `array` as `target`, a type from [`ty`]: unions become structs of their members, the rest
/// casts (at any depth).
fn fit(array: &ArrayRef, target: &A) -> Result<ArrayRef> {
    use arrow_array::{FixedSizeListArray, GenericListArray};
    if array.data_type() == target {
        return Ok(array.clone());
    }
    Ok(match (array.data_type(), target) {
        (A::Union(..), A::Struct(fs)) => union_struct(array, fs)?,
        (A::List(_), A::List(f)) => {
            let l = array.as_list::<i32>();
            Arc::new(GenericListArray::<i32>::try_new(f.clone(), l.offsets().clone(), fit(l.values(), f.data_type())?, l.nulls().cloned())?)
        }
        (A::LargeList(_), A::LargeList(f)) => {
            let l = array.as_list::<i64>();
            Arc::new(GenericListArray::<i64>::try_new(f.clone(), l.offsets().clone(), fit(l.values(), f.data_type())?, l.nulls().cloned())?)
        }
        (A::FixedSizeList(..), A::FixedSizeList(f, n)) => {
            let l = array.as_fixed_size_list();
            Arc::new(FixedSizeListArray::try_new(f.clone(), *n, fit(l.values(), f.data_type())?, l.nulls().cloned())?)
        }
        (A::Struct(_), A::Struct(fs)) => {
            let s = array.as_struct();
            let columns = s.columns().iter().zip(fs.iter()).map(|(c, f)| fit(c, f.data_type())).collect::<Result<Vec<_>>>()?;
            Arc::new(StructArray::try_new_with_length(fs.clone(), columns, s.nulls().cloned(), s.len())?)
        }
        (A::Map(..), A::Map(entries, sorted)) => {
            let m = array.as_map();
            let e: ArrayRef = Arc::new(m.entries().clone());
            let e = fit(&e, entries.data_type())?;
            Arc::new(MapArray::try_new(entries.clone(), m.offsets().clone(), e.as_struct().clone(), m.nulls().cloned(), *sorted)?)
        }
        (A::Dictionary(..), A::Dictionary(_, v)) => {
            let d = array.as_any_dictionary();
            d.with_values(fit(d.values(), v)?)
        }
        _ => arrow_cast::cast(array, target)?,
    })
}

/// A union (a Variant) as the struct of [`union_members`]: member k holds the rows of the
/// union's k-th member, NULL elsewhere.
fn union_struct(array: &ArrayRef, fs: &Fields) -> Result<ArrayRef> {
    let A::Union(ufs, _) = array.data_type() else { return Err(Error::UnsupportedType(format!("{} as a struct", array.data_type()))) };
    let u = array.as_union();
    let ids: Vec<i8> = ufs.iter().filter(|(_, f)| f.data_type() != &A::Null).map(|(id, _)| id).collect();
    if ids.len() != fs.len() {
        return Err(Error::UnsupportedType(format!("a union of {} members as a struct of {}", ids.len(), fs.len())));
    }
    // One pass over the rows: each member's rows (its child's offsets), NULL where another is.
    let mut rows: Vec<Vec<Option<u32>>> = vec![Vec::with_capacity(u.len()); ids.len()];
    for i in 0..u.len() {
        let id = u.type_id(i);
        let offset = u32::try_from(u.value_offset(i)).map_err(|_| Error::value("a union offset beyond u32"))?;
        for (k, member) in rows.iter_mut().enumerate() {
            member.push((ids.get(k) == Some(&id)).then_some(offset));
        }
    }
    let columns = ids
        .iter()
        .zip(fs.iter())
        .zip(rows)
        .map(|((&id, f), rows)| {
            let child = fit(u.child(id), f.data_type())?;
            Ok(arrow_select::take::take(child.as_ref(), &arrow_array::UInt32Array::from(rows), None)?)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(StructArray::try_new_with_length(fs.clone(), columns, None, u.len())?))
}

fn fields(fs: &Fields) -> Option<Fields> {
    let new: Vec<Option<Field>> = fs.iter().map(|f| field(f)).collect();
    if new.iter().all(Option::is_none) {
        return None;
    }
    Some(new.into_iter().zip(fs.iter()).map(|(n, o)| n.unwrap_or_else(|| o.as_ref().clone())).collect())
}

/// `t` with timestamps in seconds as milliseconds, dictionaries of fixed-size binary as
/// their values and unions as structs; None when it has none of them.
fn ty(t: &A) -> Option<A> {
    match t {
        A::Timestamp(TimeUnit::Second, tz) => Some(A::Timestamp(TimeUnit::Millisecond, tz.clone())),
        A::List(f) => field(f).map(|f| A::List(Arc::new(f))),
        A::LargeList(f) => field(f).map(|f| A::LargeList(Arc::new(f))),
        A::FixedSizeList(f, n) => field(f).map(|f| A::FixedSizeList(Arc::new(f), *n)),
        A::Struct(fs) => fields(fs).map(A::Struct),
        A::Map(f, sorted) => field(f).map(|f| A::Map(Arc::new(f), *sorted)),
        // parquet-rs writes the dictionary page of a dictionary of fixed-size binary as byte
        // arrays (length-prefixed) in a FIXED_LEN_BYTE_ARRAY column, which pyarrow refuses
        // and ClickHouse and DuckDB misread: the values go as they are, as ClickHouse writes
        // LowCardinality(FixedString) (parquet-rs still dictionary-encodes them, correctly).
        A::Dictionary(_, v) if matches!(**v, A::FixedSizeBinary(_)) => Some((**v).clone()),
        A::Dictionary(k, v) => ty(v).map(|v| A::Dictionary(k.clone(), Box::new(v))),
        A::Union(fs, _) => Some(A::Struct(union_members(fs))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::TimestampMillisecondType;
    use arrow_array::{Array, ListArray, TimestampSecondArray};

    #[test]
    fn seconds_become_milliseconds_at_any_depth() {
        let ts = TimestampSecondArray::from(vec![1_577_836_800, -1]).with_timezone("UTC");
        let list = ListArray::new(
            Arc::new(Field::new_list_field(ts.data_type().clone(), true)),
            arrow_buffer::OffsetBuffer::from_lengths([1, 1]),
            Arc::new(ts.clone()),
            None,
        );
        let schema = Arc::new(Schema::new(vec![
            Field::new("t", ts.data_type().clone(), false),
            Field::new("l", list.data_type().clone(), false),
            Field::new("n", A::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(ts), Arc::new(list), Arc::new(arrow_array::Int32Array::from(vec![1, 2])) as ArrayRef],
        )
        .unwrap();
        let target = parquet_schema(&schema, ParquetMapping::default()).expect("changed");
        let out = to_parquet_batch(&batch, &target, ParquetMapping::default()).unwrap();
        let t = out.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(t.values(), &[1_577_836_800_000, -1000]);
        assert_eq!(t.timezone(), Some("UTC"));
        let inner = out.column(1).as_list::<i32>().values().as_primitive::<TimestampMillisecondType>().values().to_vec();
        assert_eq!(inner, [1_577_836_800_000, -1000]);
        assert!(parquet_schema(&Schema::new(vec![Field::new("n", A::Int32, false)]), ParquetMapping::default()).is_none());
    }

    /// The clickhouse mapping's DateTime (uint32) and Enum (its integer) as ClickHouse's
    /// Parquet writer has them, at any depth; `datetime_as_uint32` keeps DateTime.
    #[test]
    fn clickhouse_parquet_has_timestamps_and_enum_names() {
        use crate::{block_to_batch, schema_of_block, ArrowOptions};
        use arrow_array::types::{TimestampMillisecondType, UInt32Type};
        use chwire_proto::column::{ArrayColumn, NullableColumn, TupleColumn};
        use chwire_proto::{Block, Column, ColumnData as D};
        let ty = |t: &str| DataType::parse(t).unwrap();
        let block = Block::new()
            .with("t", Column::new(ty("DateTime('UTC')"), chwire_proto::ColumnData::UInt32(vec![1, 2])).unwrap())
            .unwrap()
            .with(
                "a",
                Column::new(
                    ty("Array(Tuple(Enum8('a' = 1, 'b' = -2), Nullable(DateTime)))"),
                    D::Array(Box::new(ArrayColumn {
                        offsets: vec![0, 1, 1],
                        values: D::Tuple(TupleColumn {
                            rows: 1,
                            elements: vec![
                                D::Int8(vec![-2]),
                                D::Nullable(Box::new(NullableColumn { nulls: vec![0], values: D::UInt32(vec![3]) })),
                            ],
                        }),
                    })),
                )
                .unwrap(),
            )
            .unwrap();
        let opts = ArrowOptions::clickhouse();
        let schema = schema_of_block(&block, &opts).unwrap();
        let batch = block_to_batch(block, &schema, &opts).unwrap();
        let ch = ParquetMapping { clickhouse: true, datetime_as_uint32: false };
        let target = parquet_schema(&schema, ch).expect("changed");
        let out = to_parquet_batch(&batch, &target, ch).unwrap();
        assert_eq!(out.column(0).as_primitive::<TimestampMillisecondType>().values(), &[1000, 2000]);
        let tuple = out.column(1).as_list::<i32>().values().as_struct().clone();
        assert_eq!(tuple.column(0).as_binary::<i32>().value(0), b"b");
        assert_eq!(tuple.column(1).as_primitive::<TimestampMillisecondType>().value(0), 3000);
        // DateTime kept as uint32 on request; the rich mapping is left alone.
        let keep = ParquetMapping { clickhouse: true, datetime_as_uint32: true };
        let target = parquet_schema(&schema, keep).expect("the Enum still changes");
        let out = to_parquet_batch(&batch, &target, keep).unwrap();
        assert_eq!(out.column(0).as_primitive::<UInt32Type>().values(), &[1, 2]);
        assert_eq!(out.column(1).as_list::<i32>().values().as_struct().column(0).data_type(), &A::Binary);
        assert!(parquet_schema(&schema, ParquetMapping::default()).is_none(), "not asked for: the Arrow types as they are");
        // The leaves: t, then the tuple's Enum names and its DateTime.
        let written = parquet_schema(&schema, ch).unwrap();
        assert_eq!(enum_name_leaves(&written, ch), [false, true, false]);
        assert_eq!(enum_name_leaves(&written, ParquetMapping::default()), [false, false, false]);
    }

    /// parquet-rs writes a dictionary of fixed-size binary as a byte-array dictionary page in
    /// a FIXED_LEN_BYTE_ARRAY column (pyarrow refuses it): LowCardinality(FixedString) goes
    /// as its values, in both mappings, at any depth.
    #[test]
    fn dictionaries_of_fixed_size_binary_go_as_their_values() {
        use crate::{block_to_batch, schema_of_block, ArrowOptions};
        use chwire_proto::column::{ArrayColumn, LowCardinalityColumn};
        use chwire_proto::{Block, Column, ColumnData as D};
        let lc = LowCardinalityColumn::from_plain(D::Fixed { width: 2, data: b"abab".to_vec() }, false).unwrap();
        let column = D::Array(Box::new(ArrayColumn { offsets: vec![0, 2], values: D::LowCardinality(Box::new(lc)) }));
        let ty = DataType::parse("Array(LowCardinality(FixedString(2)))").unwrap();
        let block = Block::new().with("s", Column::new(ty, column).unwrap()).unwrap();
        for opts in [ArrowOptions::rich(), ArrowOptions::clickhouse()] {
            let schema = schema_of_block(&block, &opts).unwrap();
            let batch = block_to_batch(block.clone(), &schema, &opts).unwrap();
            assert_eq!(format!("{:?}", schema.field(0).data_type()).contains("Dictionary"), opts.rich_mode(), "{opts:?}");
            // The clickhouse mapping has no dictionaries here (nothing to change).
            let target = parquet_schema(&schema, ParquetMapping::default()).unwrap_or_else(|| schema.clone());
            let out = to_parquet_batch(&batch, &target, ParquetMapping::default()).unwrap();
            let values = match out.column(0).data_type() {
                A::LargeList(_) => out.column(0).as_list::<i64>().values().clone(),
                _ => out.column(0).as_list::<i32>().values().clone(),
            };
            assert_eq!(values.data_type(), &A::FixedSizeBinary(2), "{opts:?}");
            assert_eq!(values.as_fixed_size_binary().value(1), b"ab");
        }
    }

    /// A Variant goes to Parquet as a struct of one nullable member per type (at any depth),
    /// and reads back into the Variant by its `clickhouse.type`; two members set in a row
    /// are an error, not a guess.
    #[test]
    fn variants_go_as_structs_of_their_members_and_come_back() {
        use crate::{batch_to_block_inferred, block_to_batch, schema_of_block, ArrowOptions};
        use chwire_proto::column::{ArrayColumn, StringColumn, VariantColumn};
        use chwire_proto::{Block, Column, ColumnData as D};
        // Its types in the server's order (sorted by name).
        let ty = DataType::parse("Variant(Array(UInt64), String, UInt64)").unwrap();
        // Rows: 1, 'a', [1, 2], NULL, [].
        let variant = |n| {
            let rows = [2u8, 1, 0, VariantColumn::NULL, 0];
            let strings: StringColumn = ["a"].into_iter().collect();
            let arrays = D::Array(Box::new(ArrayColumn { offsets: vec![0, 2, 2], values: D::UInt64(vec![1, 2]) }));
            let v = VariantColumn::try_new(rows[..n].to_vec(), vec![arrays, D::String(strings), D::UInt64(vec![1])]).unwrap();
            D::Variant(Box::new(v))
        };
        let arr = DataType::Array(Box::new(ty.clone()));
        let nested = D::Array(Box::new(ArrayColumn { offsets: vec![0, 5, 5, 5, 5, 5], values: variant(5) }));
        let block = Block::new()
            .with("v", Column::new(ty.clone(), variant(5)).unwrap())
            .unwrap()
            .with("a", Column::new(arr.clone(), nested).unwrap())
            .unwrap();
        for opts in [ArrowOptions::rich(), ArrowOptions::clickhouse()] {
            let schema = schema_of_block(&block, &opts).unwrap();
            let batch = block_to_batch(block.clone(), &schema, &opts).unwrap();
            let target = parquet_schema(&schema, ParquetMapping::default()).expect("changed");
            let out = to_parquet_batch(&batch, &target, ParquetMapping::default()).unwrap();
            let v = out.column(0).as_struct();
            assert_eq!(v.num_columns(), 3, "no Null member");
            assert!(v.nulls().is_none() && !target.field(0).is_nullable());
            let set: Vec<Vec<bool>> = (0..5).map(|i| v.columns().iter().map(|c| c.is_valid(i)).collect()).collect();
            assert_eq!(
                set,
                [[false, false, true], [false, true, false], [true, false, false], [false, false, false], [true, false, false]]
            );
            assert!(matches!(out.column(1).data_type(), A::List(f) | A::LargeList(f) if matches!(f.data_type(), A::Struct(_))));
            let back = batch_to_block_inferred(&out).unwrap();
            for name in ["v", "a"] {
                let (got, orig) = (back.column(name).unwrap(), block.column(name).unwrap());
                assert_eq!(got.data_type(), orig.data_type());
                let rows = |c: &Column| (0..5).map(|i| format!("{:?}", c.value(i))).collect::<Vec<_>>();
                assert_eq!(rows(got), rows(orig), "{opts:?}");
            }
            // Two members set in one row: a typed error.
            let mut columns = v.columns().to_vec();
            columns[1] = arrow_select::take::take(columns[1].as_ref(), &arrow_array::UInt32Array::from(vec![1, 1, 1, 1, 1]), None).unwrap();
            let both = StructArray::try_new(v.fields().clone(), columns, None).unwrap();
            let b = RecordBatch::try_new(Arc::new(Schema::new(vec![target.field(0).clone()])), vec![Arc::new(both)]).unwrap();
            let err = batch_to_block_inferred(&b).unwrap_err().to_string();
            assert!(err.contains("more than one variant member"), "{err}");
        }
    }
}
