//! `serde_json::Value` ↔ JSON columns (read) and String columns (parsed on read, serialized
//! on write).
//!
//! A JSON column's row becomes an object: its dot-separated paths are nested back into
//! objects (`a.b` → `{"a": {"b": ..}}`), NULL paths are left out as ClickHouse does. Values
//! map as ClickHouse prints them in JSON: numbers (64-bit integers and floats), booleans,
//! arrays, objects (nested JSON, named tuples, maps); integers wider than 64 bits, decimals,
//! UUIDs, IP addresses, dates and times (in UTC) as strings.

use ::serde_json::{Map, Number, Value as Json};

use super::temporal as tm;
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::column::{decimal256_to_string, decimal_to_string, int256_to_string};
use chwire_proto::{ColumnData, DataType, Value};

impl<'a> FromColumn<'a> for Json {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Json { .. } | DataType::String => Ok(()),
            _ => Err("serde_json::Value reads JSON and String (parsed) and writes String".into()),
        }
    }

    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match (ty, data) {
            (DataType::String, ColumnData::String(s)) => parse(s.get(row)),
            _ => to_json(Value::at(ty, data, row)),
        }
    }
}

fn parse(text: &[u8]) -> Result<Json, String> {
    ::serde_json::from_slice(text).map_err(|e| format!("not JSON ({e}): {:?}", String::from_utf8_lossy(&text[..text.len().min(80)])))
}

fn text(b: &[u8]) -> Result<Json, String> {
    std::str::from_utf8(b).map(|s| Json::String(s.to_owned())).map_err(|e| format!("a string that is not UTF-8 ({e})"))
}

fn float(v: f64) -> Result<Json, String> {
    Number::from_f64(v).map(Json::Number).ok_or_else(|| format!("{v} has no JSON form"))
}

/// A dynamic value as JSON.
fn to_json(v: Value<'_>) -> Result<Json, String> {
    Ok(match v {
        Value::Null | Value::Nothing => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::UInt(n) => n.into(),
        Value::Int(n) => n.into(),
        Value::UInt128(n) => u64::try_from(n).map_or_else(|_| Json::String(n.to_string()), Json::from),
        Value::Int128(n) => i64::try_from(n).map_or_else(|_| Json::String(n.to_string()), Json::from),
        Value::UInt256(b) => Json::String(int256_to_string(b, false)),
        Value::Int256(b) => Json::String(int256_to_string(b, true)),
        Value::Float32(f) => float(f64::from(f))?,
        Value::Float64(f) => float(f)?,
        Value::BFloat16(b) => float(f64::from(f32::from_bits(u32::from(b) << 16)))?,
        Value::Decimal { raw, scale } => Json::String(decimal_to_string(raw, scale)),
        Value::Decimal256 { raw, scale } => Json::String(decimal256_to_string(raw, scale)),
        Value::String(b) | Value::FixedString(b) => text(b)?,
        Value::Enum(name, _) => Json::String(name.to_owned()),
        Value::Uuid(u) => Json::String(uuid_text(&u)),
        Value::Ipv4(a) => Json::String(a.to_string()),
        Value::Ipv6(a) => Json::String(a.to_string()),
        Value::Date(d) => Json::String(tm::date_text(d.into())),
        Value::Date32(d) => Json::String(tm::date_text(d.into())),
        Value::DateTime(s, _) => Json::String(tm::datetime_text(s.into(), 0, 0)),
        Value::DateTime64 { ticks, precision, .. } => {
            let p = u32::from(precision.min(9));
            let per_sec = 10i64.pow(p);
            let nanos = (ticks.rem_euclid(per_sec) * 10i64.pow(9 - p)) as u32;
            Json::String(tm::datetime_text(ticks.div_euclid(per_sec), nanos, p))
        }
        Value::Time(s) => Json::String(tm::time_text(i128::from(s) * 1_000_000_000)),
        Value::Time64 { ticks, precision } => Json::String(tm::time_text(i128::from(ticks) * 10i128.pow(9 - u32::from(precision.min(9))))),
        Value::Array(items) => Json::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Tuple(items) if !items.is_empty() && items.iter().all(|(n, _)| n.is_some()) => {
            let mut m = Map::new();
            for (name, v) in items {
                m.insert(name.unwrap_or_default().to_owned(), to_json(v)?);
            }
            Json::Object(m)
        }
        Value::Tuple(items) => Json::Array(items.into_iter().map(|(_, v)| to_json(v)).collect::<Result<_, _>>()?),
        Value::Map(pairs) => {
            let mut m = Map::new();
            for (k, v) in pairs {
                let key = match to_json(k)? {
                    Json::String(s) => s,
                    other => other.to_string(),
                };
                m.insert(key, to_json(v)?);
            }
            Json::Object(m)
        }
        Value::Json(paths) => {
            let mut root = Map::new();
            for (path, v) in paths {
                let v = to_json(v)?;
                if !v.is_null() {
                    insert_path(&mut root, path, v)?;
                }
            }
            Json::Object(root)
        }
        Value::JsonText(t) => parse(t)?,
        other => return Err(format!("{other:?} has no JSON form")),
    })
}

/// Put `v` at the dot-separated `path` of `root`, creating the objects on the way.
fn insert_path(root: &mut Map<String, Json>, path: &str, v: Json) -> Result<(), String> {
    let mut obj = root;
    let mut parts = path.split('.').peekable();
    while let Some(key) = parts.next() {
        if parts.peek().is_none() {
            return match obj.get_mut(key) {
                // An object already holds deeper paths: merge (`a` as {..} and `a.b`).
                Some(Json::Object(existing)) => match v {
                    Json::Object(m) => {
                        existing.extend(m);
                        Ok(())
                    }
                    _ => Err(format!("path {path:?} is both a value and an object")),
                },
                Some(_) => Err(format!("path {path:?} appears twice")),
                None => {
                    obj.insert(key.to_owned(), v);
                    Ok(())
                }
            };
        }
        let next = obj.entry(key.to_owned()).or_insert_with(|| Json::Object(Map::new()));
        obj = match next {
            Json::Object(m) => m,
            _ => return Err(format!("path {path:?} is both a value and an object")),
        };
    }
    Ok(())
}

fn uuid_text(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// Serialized (compact) into String columns.
impl ToColumn for Json {
    fn check_write(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::String | DataType::Json { .. } => Ok(()),
            _ => Err("serde_json::Value writes String and JSON (serialized; JSON columns are sent as text)".into()),
        }
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match ty {
            DataType::Json { .. } => chwire_proto::column::write_json_text(self.to_string().as_bytes(), col),
            _ => self.to_string().as_str().write(ty, col),
        }
    }
}

/// The serialized value, as a string parameter (for `{j:String}` or `{j:JSON}`).
impl QueryParam for Json {
    fn param_text(&self) -> String {
        self.to_string().param_text()
    }
    fn sql_literal(&self) -> String {
        self.to_string().sql_literal()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{block_of, rows_of};
    use ::serde_json::json;

    #[test]
    fn objects_write_into_json_columns_as_text() {
        #[derive(crate::row::Row)]
        struct J {
            j: Json,
        }
        let cols = [("j", DataType::parse("JSON").unwrap())];
        let rows = [J { j: json!({"a": 1, "b": {"c": "d"}}) }, J { j: json!({}) }];
        let block = block_of(&cols, &rows).unwrap();
        assert_eq!(block.column("j").unwrap().value(0), chwire_proto::Value::JsonText(br#"{"a":1,"b":{"c":"d"}}"#));
        let back: Vec<J> = rows_of(&block).unwrap();
        assert_eq!(back[0].j, rows[0].j);
        assert_eq!(back[1].j, json!({}));
    }

    #[test]
    fn strings_parse_and_serialize() {
        let v = json!({"a": {"b": [1, 2.5, null, "x\"y\\"]}, "t": true, "n": -7});
        let block = block_of::<(Json, Option<Json>)>(
            &[("s", DataType::String), ("o", DataType::parse("Nullable(String)").unwrap())],
            &[(v.clone(), None), (json!("just a string"), Some(json!([])))],
        )
        .unwrap();
        let back = rows_of::<(Json, Option<Json>)>(&block).unwrap();
        assert_eq!(back, [(v.clone(), None), (json!("just a string"), Some(json!([])))]);
        assert_eq!(block.column("s").unwrap().value(0), Value::String(v.to_string().as_bytes()));
        let bad = block_of::<(String,)>(&[("s", DataType::String)], &[("{nope".to_string(),)]).unwrap();
        assert!(rows_of::<(Json,)>(&bad).unwrap_err().to_string().contains("not JSON"));
        assert_eq!(json!({"k": "it's"}).sql_literal(), r#"'{"k":"it\'s"}'"#);
    }

    #[test]
    fn dynamic_values_map_to_json() {
        let paths = vec![
            ("a.b", Value::UInt(1)),
            ("a.c", Value::Array(vec![Value::Int(-1), Value::Null])),
            ("d", Value::Date(18_262)),
            ("e", Value::Float64(1.5)),
            ("g", Value::Bool(true)),
            ("h", Value::Null),
            ("big", Value::UInt128(u128::MAX)),
            ("dec", Value::Decimal { raw: -12_345, scale: 2 }),
            ("t", Value::DateTime64 { ticks: -1, precision: 3, tz: None }),
            ("x.y.z", Value::Json(vec![("w", Value::String(b"deep"))])),
        ];
        let j = to_json(Value::Json(paths)).unwrap();
        assert_eq!(
            j,
            json!({"a": {"b": 1, "c": [-1, null]}, "d": "2020-01-01", "e": 1.5, "g": true,
                   "big": u128::MAX.to_string(), "dec": "-123.45", "t": "1969-12-31 23:59:59.999",
                   "x": {"y": {"z": {"w": "deep"}}}})
        );
        assert!(to_json(Value::Json(vec![("a", Value::UInt(1)), ("a.b", Value::UInt(2))])).is_err());
        assert_eq!(to_json(Value::Uuid([0xab; 16])).unwrap(), json!("abababab-abab-abab-abab-abababababab"));
        // The STRING serialization of JSON columns arrives as text.
        assert_eq!(to_json(Value::JsonText(br#"{"a":{"b":[1,"x"]}}"#)).unwrap(), json!({"a": {"b": [1, "x"]}}));
        assert!(to_json(Value::JsonText(b"{")).unwrap_err().contains("not JSON"));
        // Named tuples are objects, maps objects with their keys as text, unnamed tuples arrays.
        let t = Value::Tuple(vec![(Some("x"), Value::Int(-1)), (Some("y"), Value::Ipv4([10, 0, 0, 1].into()))]);
        assert_eq!(to_json(t).unwrap(), json!({"x": -1, "y": "10.0.0.1"}));
        let m = Value::Map(vec![(Value::UInt(7), Value::Time(-3723)), (Value::String(b"k"), Value::Bool(false))]);
        assert_eq!(to_json(m).unwrap(), json!({"7": "-01:02:03", "k": false}));
        assert_eq!(to_json(Value::Tuple(vec![(None, Value::Nothing), (None, Value::Float32(0.5))])).unwrap(), json!([null, 0.5]));
    }
}
