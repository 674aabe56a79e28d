//! JSONEachRow values, by the target column's type, through serde_json.
//!
//! A String in ClickHouse is bytes, and ClickHouse reads JSON strings that are not UTF-8 as
//! they are (`{"s":"a\xFFb"}` gives the 3 bytes 61 FF 62; checked with chdb 26.9). serde_json
//! reads only UTF-8, so a line that is not UTF-8 is read as the UTF-8 line in which each byte
//! that is not part of a UTF-8 character is written `\uDC80`–`\uDCFF` (Python's
//! "surrogateescape"), and those escapes are read back as the bytes. serde_json steps over them
//! when it splits a line into members and arrays, and only jsontext.rs decodes strings of such a
//! line. A line that has surrogate escapes of its own and invalid bytes is refused, so no escape
//! of the input is ever taken for a byte. Object keys (column names, Map keys) and values of
//! JSON columns must still be UTF-8: those are refused with an error naming the row.

use super::jsontext::{object, string, MARK};
use crate::text::parse::{self, Ctx};
use chwire_proto::{DataType, Value};
use serde_json::value::RawValue;

/// A value of `ty` from a JSON value's text.
pub(super) fn value<'b>(ty: &DataType, raw: &'b RawValue, marked: bool, cx: &Ctx<'b>) -> Result<Value<'b>, String> {
    use DataType as T;
    let text = raw.get();
    let plain = match ty {
        T::LowCardinality(t) => t,
        t => t,
    };
    if text == "null" {
        return match plain {
            T::Nullable(_) | T::Variant(_) | T::Dynamic { .. } | T::Geometry => Ok(Value::Null),
            _ => parse::default_value(ty),
        };
    }
    match plain {
        T::Nullable(inner) => value(inner, raw, marked, cx),
        // The server would read a mark as the escape it looks like.
        T::Json { .. } if marked && text.contains(MARK) => Err("a JSON object that is not UTF-8".into()),
        T::Json { .. } => Ok(Value::JsonText(text.as_bytes())),
        T::Array(inner) => {
            let items: Vec<&'b RawValue> = serde_json::from_str(text).map_err(|e| format!("not a JSON array: {e}"))?;
            Ok(Value::Array(items.into_iter().map(|v| value(inner, v, marked, cx)).collect::<Result<_, _>>()?))
        }
        T::Tuple(items) => {
            if text.starts_with('{') {
                let obj: Vec<(&'b str, &'b RawValue)> = object(text, cx)?;
                let values = items
                    .iter()
                    .map(|(name, t)| {
                        let v = obj.iter().find(|(k, _)| Some(*k) == name.as_deref()).ok_or_else(|| format!("no element {name:?}"))?;
                        value(t, v.1, marked, cx).map(|v| (None, v))
                    })
                    .collect::<Result<_, _>>()?;
                return Ok(Value::Tuple(values));
            }
            let arr: Vec<&'b RawValue> = serde_json::from_str(text).map_err(|e| format!("not a JSON array: {e}"))?;
            if arr.len() != items.len() {
                return Err(format!("{} tuple elements, the type has {}", arr.len(), items.len()));
            }
            Ok(Value::Tuple(
                arr.into_iter().zip(items).map(|(v, (_, t))| value(t, v, marked, cx).map(|v| (None, v))).collect::<Result<_, _>>()?,
            ))
        }
        T::Map(k, v) => {
            let obj = object(text, cx)?;
            let pairs = obj
                .into_iter()
                .map(|(key, val)| Ok((parse::scalar(k, key.as_bytes(), cx)?, value(v, val, marked, cx)?)))
                .collect::<Result<_, String>>()?;
            Ok(Value::Map(pairs))
        }
        T::Nested(_) | T::Geo(_) | T::Geometry => value(&ty.storage().ok_or_else(|| format!("no storage type for {ty}"))?, raw, marked, cx),
        // A vector: a JSON array of its elements.
        T::QBit { element, .. } => match value(&T::Array(element.clone()), raw, marked, cx)? {
            Value::Array(items) => Ok(Value::QBit(items)),
            v => Ok(v),
        },
        // Each value's type inferred as the server infers it (infer.rs).
        T::Dynamic { .. } => super::infer::dynamic_value(raw, marked, cx),
        // The first of the variant's types the JSON value reads as, strings first for a JSON
        // string and last for any other token (as the server takes `1` as UInt64, `"1"` as
        // String, in a Variant(String, UInt64)).
        T::Variant(types) => {
            let is_string = |t: &&DataType| matches!(t, T::String | T::LowCardinality(_));
            let (strings, others): (Vec<&DataType>, Vec<&DataType>) = types.iter().partition(is_string);
            let order: Vec<&DataType> = if text.starts_with('"') {
                strings.into_iter().chain(others).collect()
            } else {
                others.into_iter().chain(strings).collect()
            };
            order.into_iter().find_map(|t| value(t, raw, marked, cx).ok()).ok_or_else(|| "fits none of the variant's types".to_string())
        }
        scalar_ty => {
            if text.starts_with('"') {
                let s = string(text, marked, cx)?;
                parse::scalar(scalar_ty, s, cx)
            } else {
                match text {
                    "true" if matches!(scalar_ty, T::Bool) => Ok(Value::Bool(true)),
                    "false" if matches!(scalar_ty, T::Bool) => Ok(Value::Bool(false)),
                    _ => parse::scalar(scalar_ty, text.as_bytes(), cx),
                }
            }
        }
    }
}
