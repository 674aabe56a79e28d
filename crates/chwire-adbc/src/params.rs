//! Bound parameters: rows of Arrow data given to `{name:Type}` placeholders, by name (the
//! fields name the placeholders) or by position (field i is the i-th placeholder of the SQL).
//!
//! A column of an Arrow type that is a host value of every binding (booleans, integers,
//! floats, text, lists of them) is bound by the core's rule, as Python, Node and Elixir bind
//! theirs (`ParamValue::bind`: integer text for an integer, a date's text for a Date, ranges
//! checked with the same messages, the rest left to the server). Columns of the other Arrow
//! types (decimals, timestamps, dates, binary, structs, maps, …) carry a type of their own:
//! they are converted to the placeholder's declared type with chwire-arrow's parameter
//! conversion (`params_to_block`: the lossless one of inserts, doubles rounded for Float32),
//! and each value is rendered as ClickHouse's text formats print it (chwire-text): the escaped
//! TSV text for server-side parameters, the quoted literal for servers that have none (18.16),
//! where chwire binds `CAST(literal AS Type)`.

use crate::error::{from_arrow, invalid_arg, invalid_data};
use adbc_core::error::Result;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{Field, Schema};
use chwire::{DataType, ParamValue, QueryParam, Value};
use chwire_text::{write_value, Style, TimeZone};
use std::sync::Arc;

/// One value: its parameter text and its SQL literal.
#[derive(Debug, Clone)]
pub struct TextParam {
    text: String,
    literal: String,
}

impl QueryParam for TextParam {
    fn param_text(&self) -> String {
        self.text.clone()
    }
    fn sql_literal(&self) -> String {
        self.literal.clone()
    }
}

pub type ParamSet = Vec<(String, TextParam)>;

/// The value as ClickHouse text in `style` (DateTime values without a zone in `tz`). String
/// values are bytes: any that are not UTF-8 become `\xHH` escapes, which ClickHouse reads back
/// as those bytes in quoted literals and in escaped parameter text alike (they only occur
/// inside strings, which both forms escape).
fn render(v: &Value<'_>, style: Style, tz: &TimeZone) -> String {
    let mut out = Vec::new();
    write_value(&mut out, v, style, tz);
    text_with_escapes(out)
}

fn text_with_escapes(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let bytes = e.into_bytes();
            let mut s = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                s.push_str(chunk.valid());
                for b in chunk.invalid() {
                    s.push_str(&format!("\\x{b:02X}"));
                }
            }
            s
        }
    }
}

/// The value as an SQL literal, for servers without server-side parameters (chwire binds
/// `CAST(literal AS Type)`). A bare number with a fraction or beyond 64 bits is a Float64 to
/// ClickHouse's parser (`CAST(-12.3456 AS Decimal(18, 4))` is -12.3455 on 18.16): decimals and
/// wide integers go as quoted text, which CAST parses exactly as the declared type; floats as
/// chwire's own float literals (a subnormal one is no literal 18.16 reads). Inside an array or
/// tuple a decimal is typed by its own function (`toDecimal128('1.5', 1)`): 18.16 cannot cast
/// `['1.5', NULL]` to `Array(Nullable(Decimal(9, 2)))` ("Attempt to read after eof").
///
/// A `DateTime`/`DateTime64` of a type with a zone is read in that zone
/// (`toDateTime('…', 'zone')`: 18.16's CAST reads text in the server's zone, another instant),
/// and the elements of an `Int64` or float composite are typed (`toInt64('-1')`): 18.16 finds
/// no common type for a UInt64 literal and a negative one. The core's `ParamValue` literals
/// follow the same rules.
fn literal(v: &Value<'_>, ty: &DataType, tz: &TimeZone, nested: bool) -> String {
    let plain = match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => t.as_ref(),
        t => t,
    };
    match (v, plain) {
        (Value::Null, _) => return "NULL".into(),
        (_, DataType::DateTime(Some(zone))) => return format!("toDateTime('{}', {})", render(v, Style::Tsv, tz), zone.sql_literal()),
        (_, DataType::DateTime64 { precision, tz: Some(zone) }) => {
            return format!("toDateTime64('{}', {precision}, {})", render(v, Style::Tsv, tz), zone.sql_literal())
        }
        (Value::Int(_), DataType::Int64) if nested => return format!("toInt64('{}')", render(v, Style::Tsv, tz)),
        (Value::Float32(x), _) if nested => return format!("toFloat32({})", x.sql_literal()),
        (Value::Float64(x), _) if nested => return format!("toFloat64({})", x.sql_literal()),
        (Value::Array(items), DataType::Array(t)) => {
            return format!("[{}]", items.iter().map(|i| literal(i, t, tz, true)).collect::<Vec<_>>().join(", "))
        }
        (Value::Tuple(items), DataType::Tuple(types)) if types.len() == items.len() => {
            return format!(
                "tuple({})",
                items.iter().zip(types).map(|((_, i), (_, t))| literal(i, t, tz, true)).collect::<Vec<_>>().join(", ")
            )
        }
        _ => {}
    }
    match v {
        Value::Decimal { scale, .. } if nested => format!("toDecimal128('{}', {scale})", render(v, Style::Tsv, tz)),
        Value::Decimal256 { scale, .. } if nested => format!("toDecimal256('{}', {scale})", render(v, Style::Tsv, tz)),
        Value::Decimal { .. } | Value::Decimal256 { .. } | Value::UInt128(_) | Value::Int128(_) | Value::UInt256(_) | Value::Int256(_) => {
            format!("'{}'", render(v, Style::Tsv, tz))
        }
        Value::Float32(x) => x.sql_literal(),
        Value::Float64(x) => x.sql_literal(),
        Value::Array(items) => {
            format!("[{}]", items.iter().map(|i| literal(i, &DataType::Nothing, tz, true)).collect::<Vec<_>>().join(", "))
        }
        // tuple(...) is a tuple whatever the number of elements ((x) is x).
        Value::Tuple(items) => {
            format!("tuple({})", items.iter().map(|(_, i)| literal(i, &DataType::Nothing, tz, true)).collect::<Vec<_>>().join(", "))
        }
        _ => render(v, Style::Quoted, tz),
    }
}

/// The SQL's placeholders, in order of first appearance, with their declared types.
pub fn placeholders(sql: &str) -> Vec<(String, String)> {
    chwire::sql::placeholder_types(sql)
}

/// One parameter set per row of `batch`.
/// DateTime values without a zone of their own are written in `tz`, the server's timezone,
/// in which the server reads them back.
pub fn bind_rows(sql: &str, batch: &RecordBatch, by_name: Option<bool>, tz: &TimeZone) -> Result<Vec<ParamSet>> {
    let ph = placeholders(sql);
    let fields = batch.schema().fields().clone();
    let names_match = fields.iter().all(|f| ph.iter().any(|(n, _)| n == f.name()));
    let by_name = by_name.unwrap_or(names_match && !fields.is_empty());
    // (placeholder, its type, the column bound to it)
    let mut bound: Vec<(String, DataType, usize)> = Vec::new();
    if by_name {
        for (i, f) in fields.iter().enumerate() {
            let Some((n, t)) = ph.iter().find(|(n, _)| n == f.name()) else {
                let names: Vec<&str> = ph.iter().map(|(n, _)| n.as_str()).collect();
                return Err(invalid_arg(format!("parameter {:?} names no placeholder of the query (it has {names:?})", f.name())));
            };
            bound.push((n.clone(), parse(n, t)?, i));
        }
    } else {
        if fields.len() != ph.len() {
            return Err(invalid_arg(format!(
                "{} parameters bound by position for {} placeholders ({{name:Type}}) in the query",
                fields.len(),
                ph.len()
            )));
        }
        for (i, (n, t)) in ph.iter().enumerate() {
            bound.push((n.clone(), parse(n, t)?, i));
        }
    }
    if let Some((n, _, _)) = ph.iter().find(|(n, _)| !bound.iter().any(|(b, _, _)| b == n)).map(|(n, t)| (n, t, 0)) {
        return Err(invalid_arg(format!("no value bound for the query's placeholder {n:?}")));
    }
    let zone = tz.iana_name();
    // (placeholder, the column's values bound by the core's rule, or None: converted below)
    let mut by_rule: Vec<Option<Vec<TextParam>>> = Vec::with_capacity(bound.len());
    for (name, ty, i) in &bound {
        let array = batch.column(*i).as_ref();
        // JSON text (`arrow.json`, how Arrow carries JSON and Dynamic values) is converted as
        // the JSON it holds, not bound as a string.
        if !is_host_value(array.data_type()) || fields[*i].extension_type_name().is_some() {
            by_rule.push(None);
            continue;
        }
        let values = (0..batch.num_rows())
            .map(|r| {
                let v = host_value(array, r).ok_or_else(|| invalid_arg(format!("query parameter {name:?}: no host value")))?;
                let b = v.bind(Some(ty), zone).map_err(|e| invalid_data(format!("query parameter {name:?}: {e}")))?;
                Ok(TextParam { text: b.param_text(), literal: b.sql_literal() })
            })
            .collect::<Result<Vec<_>>>()?;
        by_rule.push(Some(values));
    }
    // The other columns renamed to their placeholders, converted to the declared types.
    let converted: Vec<usize> = (0..bound.len()).filter(|k| by_rule[*k].is_none()).collect();
    let renamed =
        Schema::new(converted.iter().map(|k| Field::new(&bound[*k].0, fields[bound[*k].2].data_type().clone(), true)).collect::<Vec<_>>());
    let columns = converted.iter().map(|k| batch.column(bound[*k].2).clone()).collect();
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let renamed = RecordBatch::try_new_with_options(Arc::new(renamed), columns, &options)?;
    let target: Vec<(String, DataType)> = converted.iter().map(|k| (bound[*k].0.clone(), bound[*k].1.clone())).collect();
    let block = chwire_arrow::params_to_block(&renamed, &target).map_err(from_arrow)?;
    let mut rows = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        let mut set = Vec::with_capacity(bound.len());
        let mut next_converted = block.columns().iter();
        for ((name, _, _), rule) in bound.iter().zip(&by_rule) {
            let param = match rule {
                Some(values) => values[r].clone(),
                None => {
                    let (_, col) = next_converted.next().ok_or_else(|| invalid_arg("a converted parameter is missing"))?;
                    let v = col.value(r);
                    let composite = matches!(v, Value::Array(_) | Value::Tuple(_) | Value::Map(_));
                    let text = render(&v, if composite { Style::Quoted } else { Style::Tsv }, tz);
                    TextParam { text, literal: literal(&v, col.data_type(), tz, false) }
                }
            };
            set.push((name.clone(), param));
        }
        rows.push(set);
    }
    Ok(rows)
}

/// Whether every value of an Arrow type is a host value (see [`host_value`]).
fn is_host_value(t: &arrow_schema::DataType) -> bool {
    use arrow_schema::DataType as A;
    match t {
        A::Null | A::Boolean | A::Int8 | A::Int16 | A::Int32 | A::Int64 | A::UInt8 | A::UInt16 | A::UInt32 | A::UInt64 => true,
        A::Float32 | A::Float64 | A::Utf8 | A::LargeUtf8 | A::Utf8View => true,
        // (Elements that are JSON text, `arrow.json`, are converted as the JSON they hold.)
        A::List(f) | A::LargeList(f) => f.extension_type_name().is_none() && is_host_value(f.data_type()),
        _ => false,
    }
}

/// Row `row` of `array` as the host value it stands for (a number, text, a list of them),
/// which the core binds to a placeholder by the rule every front end shares; `None` for Arrow
/// types that are no host value.
fn host_value(array: &dyn Array, row: usize) -> Option<ParamValue> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::DataType as A;
    if array.is_null(row) || array.data_type() == &A::Null {
        return Some(ParamValue::Null);
    }
    Some(match array.data_type() {
        A::Boolean => ParamValue::Bool(array.as_boolean().value(row)),
        A::Int8 => ParamValue::Int(array.as_primitive::<Int8Type>().value(row).into()),
        A::Int16 => ParamValue::Int(array.as_primitive::<Int16Type>().value(row).into()),
        A::Int32 => ParamValue::Int(array.as_primitive::<Int32Type>().value(row).into()),
        A::Int64 => ParamValue::Int(array.as_primitive::<Int64Type>().value(row).into()),
        A::UInt8 => ParamValue::Int(array.as_primitive::<UInt8Type>().value(row).into()),
        A::UInt16 => ParamValue::Int(array.as_primitive::<UInt16Type>().value(row).into()),
        A::UInt32 => ParamValue::Int(array.as_primitive::<UInt32Type>().value(row).into()),
        A::UInt64 => ParamValue::Int(array.as_primitive::<UInt64Type>().value(row).into()),
        A::Float32 => ParamValue::Float(array.as_primitive::<Float32Type>().value(row).into()),
        A::Float64 => ParamValue::Float(array.as_primitive::<Float64Type>().value(row)),
        A::Utf8 => ParamValue::Str(array.as_string::<i32>().value(row).to_string()),
        A::LargeUtf8 => ParamValue::Str(array.as_string::<i64>().value(row).to_string()),
        A::Utf8View => ParamValue::Str(array.as_string_view().value(row).to_string()),
        A::List(_) => list(array.as_list::<i32>().value(row).as_ref())?,
        A::LargeList(_) => list(array.as_list::<i64>().value(row).as_ref())?,
        _ => return None,
    })
}

fn list(items: &dyn Array) -> Option<ParamValue> {
    (0..items.len()).map(|i| host_value(items, i)).collect::<Option<Vec<_>>>().map(ParamValue::List)
}

fn parse(name: &str, ty: &str) -> Result<DataType> {
    DataType::parse(ty).map_err(|e| invalid_arg(format!("placeholder {name:?}: cannot read its type {ty:?}: {e}")))
}

/// The parameter schema of `sql`: one field per placeholder, of its declared type's Arrow
/// type (rich mapping), or null when chwire cannot read the type.
pub fn parameter_schema(sql: &str, opts: &chwire_arrow::ArrowOptions) -> Schema {
    let fields: Vec<Field> = placeholders(sql)
        .into_iter()
        .map(|(n, t)| match DataType::parse(&t).ok().and_then(|ty| chwire_arrow::field_for(&n, &ty, opts).ok()) {
            Some(f) => f,
            None => Field::new(n, arrow_schema::DataType::Null, true),
        })
        .collect();
    Schema::new(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, ArrayRef, BinaryArray, Decimal128Array, Float64Array, TimestampSecondArray};

    fn one(sql: &str, col: ArrayRef, tz: &TimeZone) -> TextParam {
        let batch = RecordBatch::try_from_iter([("p", col)]).unwrap();
        bind_rows(sql, &batch, None, tz).unwrap().remove(0).remove(0).1
    }

    #[test]
    fn decimals_are_quoted_literals_not_floats() {
        let d: ArrayRef = Arc::new(Decimal128Array::from(vec![-123456i128]).with_precision_and_scale(6, 4).unwrap());
        let p = one("SELECT {p:Decimal(18, 4)}", d, &TimeZone::UTC);
        assert_eq!(p.sql_literal(), "'-12.3456'");
        assert_eq!(p.param_text(), "-12.3456");
    }

    #[test]
    fn decimals_inside_composites_are_typed_literals() {
        let items = Decimal128Array::from(vec![Some(150i128), None]).with_precision_and_scale(9, 2).unwrap();
        let list = arrow_array::ListArray::new(
            Arc::new(Field::new("item", items.data_type().clone(), true)),
            arrow_buffer::OffsetBuffer::from_lengths([2]),
            Arc::new(items),
            None,
        );
        let p = one("SELECT {p:Array(Nullable(Decimal(9, 2)))}", Arc::new(list), &TimeZone::UTC);
        assert_eq!(p.sql_literal(), "[toDecimal128('1.5', 2), NULL]");
        assert_eq!(p.param_text(), "[1.5,NULL]");
    }

    #[test]
    fn int64_elements_are_typed_literals_by_the_cores_rule() {
        let items = arrow_array::Int64Array::from(vec![1i64 << 40, -1]);
        let list = arrow_array::ListArray::new(
            Arc::new(Field::new("item", arrow_schema::DataType::Int64, true)),
            arrow_buffer::OffsetBuffer::from_lengths([2]),
            Arc::new(items),
            None,
        );
        let p = one("SELECT {p:Array(Int64)}", Arc::new(list), &TimeZone::UTC);
        // 18.16 finds no common type for a UInt64 literal and a negative one: each is typed.
        assert_eq!(p.sql_literal(), "[CAST('1099511627776' AS Int64),CAST('-1' AS Int64)]");
        assert_eq!(p.param_text(), "[1099511627776,-1]");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_escaped() {
        let b: ArrayRef = Arc::new(BinaryArray::from(vec![b"a\xff'\0".as_slice()]));
        let p = one("SELECT {p:String}", b, &TimeZone::UTC);
        assert_eq!(p.sql_literal(), "'a\\xFF\\'\\0'");
        assert_eq!(p.param_text(), "a\\xFF\\'\\0");
    }

    #[test]
    fn floats_use_chwires_literals() {
        let p = one("SELECT {p:Float64}", Arc::new(Float64Array::from(vec![5e-324])), &TimeZone::UTC);
        assert!(p.sql_literal().starts_with("reinterpretAsFloat64(unhex("), "{}", p.sql_literal());
    }

    #[test]
    fn datetimes_without_a_zone_are_written_in_the_servers() {
        let t: ArrayRef = Arc::new(TimestampSecondArray::from(vec![0i64]));
        let tokyo = TimeZone::get("Asia/Tokyo").unwrap();
        assert_eq!(one("SELECT {p:DateTime}", t.clone(), &tokyo).sql_literal(), "'1970-01-01 09:00:00'");
        // A zoned type's text is read in its zone (18.16's CAST would read the server's).
        assert_eq!(one("SELECT {p:DateTime('UTC')}", t.clone(), &tokyo).sql_literal(), "toDateTime('1970-01-01 00:00:00', 'UTC')");
        assert_eq!(one("SELECT {p:DateTime}", t, &TimeZone::UTC).param_text(), "1970-01-01 00:00:00");
    }

    #[test]
    fn host_values_are_bound_by_the_cores_rule() {
        let batch = |col: ArrayRef| RecordBatch::try_from_iter([("p", col)]).unwrap();
        let err = |sql: &str, col: ArrayRef| bind_rows(sql, &batch(col), None, &TimeZone::UTC).unwrap_err();
        let ints: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![1, 300]));
        let e = err("SELECT {p:UInt8}", ints);
        assert!(e.message.contains("query parameter \"p\": 300 is outside the range of UInt8"), "{}", e.message);
        assert_eq!(e.status, adbc_core::error::Status::InvalidData);
        let text: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["abc"]));
        assert!(err("SELECT {p:Int32}", text).message.contains("\"abc\" is not a number"));
        // Text for a number or a date is taken as every other front end takes it.
        let text: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["42"]));
        assert_eq!(one("SELECT {p:UInt8}", text, &TimeZone::UTC).param_text(), "42");
        let day: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["2024-02-29"]));
        assert_eq!(one("SELECT {p:Date}", day, &TimeZone::UTC).sql_literal(), "'2024-02-29'");
        // A null column of no type binds NULL.
        let nulls: ArrayRef = Arc::new(arrow_array::NullArray::new(1));
        assert_eq!(one("SELECT {p:Nullable(UInt8)}", nulls, &TimeZone::UTC).sql_literal(), "NULL");
        // Arrow types that are no host value keep the conversion's rule.
        let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![b"x".as_slice()]));
        assert!(err("SELECT {p:UInt8}", bytes).message.contains("does not convert to ClickHouse type UInt8"));
    }

    #[test]
    fn rule_and_conversion_columns_keep_the_placeholders_order() {
        let batch = RecordBatch::try_from_iter([
            ("a", Arc::new(TimestampSecondArray::from(vec![0i64])) as ArrayRef),
            ("b", Arc::new(arrow_array::Int64Array::from(vec![7])) as ArrayRef),
            ("c", Arc::new(BinaryArray::from(vec![b"bytes".as_slice()])) as ArrayRef),
        ])
        .unwrap();
        let want = |set: Vec<(String, TextParam)>| set.iter().map(|(n, p)| format!("{n}={}", p.param_text())).collect::<Vec<_>>();
        let by_name = bind_rows("SELECT {c:String}, {b:UInt8}, {a:DateTime}", &batch, None, &TimeZone::UTC).unwrap().remove(0);
        assert_eq!(want(by_name), ["a=1970-01-01 00:00:00", "b=7", "c=bytes"]);
        // By position: field i is the i-th placeholder, converted columns among rule ones.
        let by_position = bind_rows("SELECT {x:DateTime}, {y:UInt8}, {z:String}", &batch, Some(false), &TimeZone::UTC).unwrap().remove(0);
        assert_eq!(want(by_position), ["x=1970-01-01 00:00:00", "y=7", "z=bytes"]);
    }
}
