//! Dynamic and JSON columns as JSON text, as ClickHouse 26.9 writes them to Arrow (a utf8
//! array with the canonical `arrow.json` extension; each row is the value as JSONEachRow
//! prints it, `null` for a NULL Dynamic row), and back.
//!
//! Back into a JSON column the text is kept as it is (the column's STRING serialization:
//! ClickHouse parses it on insert) after checking that each row is a JSON object. Back into a
//! Dynamic column each row's type is inferred from its JSON text: integers as Int64 (UInt64,
//! Int128, UInt128 beyond Int64's range; wider ones as String of their digits), other
//! numbers as Float64 (`-0` included; beyond its range as String), `true`/`false` as Bool, strings as String,
//! `null` as NULL, and arrays and objects typed by the core's rule for a host language's lists
//! and maps (`chwire_proto::column::type_of`, the rule Node's and Elixir's values follow):
//! `[1, 2]` an `Array(Int64)`, `[1, "a"]` an `Array(Dynamic)`, `{"a": 1}` a `Map(String, Int64)`.
//! Their members keep their order (an object's duplicate keys too) and each number reads as a
//! top-level one does, exactly. An array or object that rule gives no type (an empty object),
//! or nested deeper than 64 levels, is a String of its JSON text.
//! Types beyond the column's `max_types` go to its shared variant (arrays and objects there
//! as the String of their text). (ClickHouse 26.9 itself reads every value back as a String of
//! its JSON text.)

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use crate::mismatch;
use crate::options::ArrowOptions;
use crate::{Error, Result};
use arrow_array::Array;
use chwire_proto::column::{encode_binary_type, finish_dynamic, BinaryValues, DynamicColumn, VariantColumn};
use chwire_proto::wire::WriteExt;
use chwire_proto::{Column, ColumnData, DataType, StringColumn};
use chwire_text::{write_value, Style, TimeZone};

/// The extension name of JSON text arrays.
pub(crate) const JSON_EXTENSION: &str = "arrow.json";

/// Renders each row of a Dynamic or JSON column as JSON text.
pub(crate) fn to_json_text(ty: &DataType, data: ColumnData, opts: &ArrowOptions) -> Result<StringColumn> {
    let column = Column::new(ty.clone(), data).map_err(|e| Error::value(e.to_string()))?;
    let tz = TimeZone::get(opts.timezone_or_default(&None)).unwrap_or(TimeZone::UTC);
    let mut text = StringColumn::with_capacity(column.len(), column.len().saturating_mul(8));
    let mut buf = Vec::new();
    for row in 0..column.len() {
        buf.clear();
        write_value(&mut buf, &column.value(row), Style::Json, &tz);
        if std::str::from_utf8(&buf).is_err() {
            // ClickHouse writes such bytes as they are; an Arrow utf8 array cannot hold them.
            return Err(Error::value_at(row, "the value's JSON text is not valid UTF-8 (a String inside it is not)"));
        }
        // A JSON column in its STRING serialization (or one inside a Dynamic or an Array)
        // carries text as it arrived: an `arrow.json` array holds only JSON.
        let valid = match ty {
            DataType::Json { .. } => check_object(&buf),
            _ => serde_json::from_slice::<serde::de::IgnoredAny>(&buf).map(drop).map_err(|e| format!("not JSON: {e}")),
        };
        valid.map_err(|e| Error::value_at(row, format!("the column's text is not JSON text: {e}")))?;
        text.push(&buf);
    }
    Ok(text)
}

/// A JSON column from JSON text (one object per row), sent in the STRING serialization.
pub(crate) fn json_from_text(array: &dyn Array, ty: &DataType, text: StringColumn) -> Result<ColumnData> {
    for (row, value) in text.iter().enumerate() {
        check_object(value).map_err(|e| mismatch(array, ty, format!("row {row}: {e}")))?;
    }
    let mut data = ColumnData::empty_for(ty).map_err(|e| Error::value(e.to_string()))?;
    let ColumnData::Json(j) = &mut data else { return Err(mismatch(array, ty, "not a JSON type")) };
    j.version = 1;
    j.rows = text.len();
    j.text = Some(text);
    Ok(data)
}

/// A Dynamic column from JSON text, each row's type inferred (see the module docs). Types
/// beyond the column's `max_types` (in first-seen order) go to its shared variant,
/// binary-encoded, as ClickHouse keeps them.
pub(crate) fn dynamic_from_text(array: &dyn Array, ty: &DataType, text: &StringColumn) -> Result<ColumnData> {
    let max_types = match ty {
        DataType::Dynamic { max_types } => max_types.map_or(32, |m| m as usize),
        _ => return Err(mismatch(array, ty, "not a Dynamic type")),
    };
    let scalars = text
        .iter()
        .enumerate()
        .map(|(row, value)| {
            if array.is_null(row) { Ok(Scalar::Null) } else { Scalar::parse(value) }
                .map_err(|e| mismatch(array, ty, format!("row {row}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut types: Vec<DataType> = Vec::new();
    let mut variants: Vec<ColumnData> = Vec::new();
    let (mut discriminators, mut offsets) = (Vec::with_capacity(scalars.len()), Vec::with_capacity(scalars.len()));
    let mut shared = StringColumn::new();
    let mut encoded = Vec::new();
    for v in &scalars {
        let Some(vt) = v.data_type() else {
            discriminators.push(VariantColumn::NULL);
            offsets.push(0);
            continue;
        };
        let i = match types.iter().position(|t| *t == vt) {
            Some(i) => Some(i),
            None if types.len() < max_types => {
                variants.push(ColumnData::empty_for(&vt).map_err(|e| Error::value(e.to_string()))?);
                types.push(vt.clone());
                Some(types.len().saturating_sub(1))
            }
            None => None,
        };
        let (i, column) = match i.and_then(|i| Some((i, variants.get_mut(i)?))) {
            Some(found) => found,
            None => {
                encoded.clear();
                // An array or object beyond max_types goes as the String of its text (chwire
                // has no binary encoder of composite values).
                let shared_type = if matches!(v, Scalar::Composite(..)) { DataType::String } else { vt.clone() };
                encode_binary_type(&shared_type, &mut encoded);
                v.encode(&mut encoded);
                shared.push(&encoded);
                // The shared variant's index is fixed after the loop: mark it for now.
                discriminators.push(u8::MAX - 1);
                offsets.push(u32::try_from(shared.len().saturating_sub(1)).map_err(|_| Error::value("more than 2^32 Dynamic values"))?);
                continue;
            }
        };
        offsets.push(u32::try_from(column.len()).map_err(|_| Error::value("more than 2^32 Dynamic values"))?);
        discriminators.push(i as u8);
        v.push_to(column)?;
    }
    let shared_values = BinaryValues::decode(&shared).map_err(|e| Error::value(e.to_string()))?;
    let shared_at = types.len();
    for d in &mut discriminators {
        if *d == u8::MAX - 1 {
            *d = shared_at as u8;
        }
    }
    types.push(DataType::String);
    variants.push(ColumnData::String(shared));
    let mut data = ColumnData::Dynamic(Box::new(DynamicColumn {
        types,
        shared: Some(shared_at),
        values: VariantColumn { discriminators, offsets, variants },
        version: 2,
        max_types: None,
        shared_values,
    }));
    finish_dynamic(&mut data);
    Ok(data)
}

fn check_object(text: &[u8]) -> std::result::Result<(), String> {
    serde_json::from_slice::<serde::de::IgnoredAny>(text).map_err(|e| format!("not JSON: {e}"))?;
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(()),
        _ => Err("a JSON column's value must be a JSON object".into()),
    }
}

/// One JSON value as a Dynamic value.
enum Scalar {
    /// An array or an object, of the type the core gives it, with its text.
    Composite(Box<Tree>, DataType, String),
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Int128(i128),
    UInt128(u128),
    Float(f64),
    /// A string's content, or an array's or object's JSON text.
    Str(String),
}

impl Scalar {
    fn parse(text: &[u8]) -> std::result::Result<Scalar, String> {
        let s = std::str::from_utf8(text).map_err(|_| "not UTF-8".to_string())?.trim_matches(|c: char| c.is_ascii_whitespace());
        Ok(match s {
            "null" => Scalar::Null,
            "true" => Scalar::Bool(true),
            "false" => Scalar::Bool(false),
            _ if s.starts_with('"') => Scalar::Str(serde_json::from_str(s).map_err(|e| format!("not a JSON string: {e}"))?),
            _ if s.starts_with(['[', '{']) => {
                serde_json::from_str::<serde::de::IgnoredAny>(s).map_err(|e| format!("not JSON: {e}"))?;
                match tree(s, 0).and_then(|t| Some((chwire_proto::column::type_of(&t.value())?, t))) {
                    Some((ty, t)) => Scalar::Composite(Box::new(t), ty, s.to_string()),
                    // Nested deeper than MAX_DEPTH, or no type by the rule (`{}`): the text.
                    None => Scalar::Str(s.to_string()),
                }
            }
            _ => {
                // A JSON number: serde_json checks the grammar (no `+1`, `007`, `.5`, ...).
                serde_json::from_str::<serde::de::IgnoredAny>(s).map_err(|e| format!("not a JSON value: {e}"))?;
                if s.contains(['.', 'e', 'E']) {
                    match s.parse::<f64>() {
                        Ok(f) if f.is_finite() => Scalar::Float(f),
                        // Beyond Float64's range: the number's text, exactly.
                        _ => Scalar::Str(s.to_string()),
                    }
                } else if s.starts_with('-') && s.trim_start_matches(['-', '0']).is_empty() {
                    Scalar::Float(-0.0)
                } else if let Ok(i) = s.parse::<i64>() {
                    Scalar::Int(i)
                } else if let Ok(u) = s.parse::<u64>() {
                    Scalar::UInt(u)
                } else if let Ok(i) = s.parse::<i128>() {
                    Scalar::Int128(i)
                } else if let Ok(u) = s.parse::<u128>() {
                    Scalar::UInt128(u)
                } else {
                    // Beyond 128 bits: the digits, exactly (not rounded to a Float64).
                    Scalar::Str(s.to_string())
                }
            }
        })
    }

    fn data_type(&self) -> Option<DataType> {
        Some(match self {
            Scalar::Null => return None,
            Scalar::Composite(_, t, _) => t.clone(),
            Scalar::Bool(_) => DataType::Bool,
            Scalar::Int(_) => DataType::Int64,
            Scalar::UInt(_) => DataType::UInt64,
            Scalar::Int128(_) => DataType::Int128,
            Scalar::UInt128(_) => DataType::UInt128,
            Scalar::Float(_) => DataType::Float64,
            Scalar::Str(_) => DataType::String,
        })
    }

    /// The value's binary encoding (after its type's), as in a shared variant.
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Scalar::Null => {}
            Scalar::Bool(b) => out.put_u8(u8::from(*b)),
            Scalar::Int(i) => out.put_u64_le(*i as u64),
            Scalar::UInt(u) => out.put_u64_le(*u),
            Scalar::Int128(i) => out.extend_from_slice(&i.to_le_bytes()),
            Scalar::UInt128(u) => out.extend_from_slice(&u.to_le_bytes()),
            Scalar::Float(f) => out.put_u64_le(f.to_bits()),
            Scalar::Str(s) | Scalar::Composite(_, _, s) => out.put_str(s),
        }
    }

    fn push_to(&self, column: &mut ColumnData) -> Result<()> {
        match (self, column) {
            (Scalar::Bool(b), ColumnData::UInt8(c)) => c.push(u8::from(*b)),
            (Scalar::Int(i), ColumnData::Int64(c)) => c.push(*i),
            (Scalar::UInt(u), ColumnData::UInt64(c)) => c.push(*u),
            (Scalar::Int128(i), ColumnData::Int128(c)) => c.push(*i),
            (Scalar::UInt128(u), ColumnData::UInt128(c)) => c.push(*u),
            (Scalar::Float(f), ColumnData::Float64(c)) => c.push(*f),
            (Scalar::Str(s), ColumnData::String(c)) => c.push(s),
            (Scalar::Composite(tree, t, _), column) => chwire_proto::column::write_value(&tree.value(), t, column).map_err(Error::value)?,
            _ => return Err(Error::value("inconsistent Dynamic variant")),
        }
        Ok(())
    }
}

/// How deep arrays and objects inside a Dynamic value are typed; deeper ones are the String
/// of their text.
const MAX_DEPTH: usize = 64;

/// A JSON array or object, its members in their order (an object's duplicate keys kept, as a
/// Map keeps them), each leaf read exactly as a top-level value is (`Scalar::parse`).
enum Tree {
    Leaf(Scalar),
    Array(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

/// `text` (checked to be JSON) as a tree; `None` beyond [`MAX_DEPTH`].
fn tree(text: &str, depth: usize) -> Option<Tree> {
    if depth > MAX_DEPTH {
        return None;
    }
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    Some(match t.as_bytes().first() {
        Some(b'[') => {
            let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(t).ok()?;
            Tree::Array(items.iter().map(|r| tree(r.get(), depth.saturating_add(1))).collect::<Option<_>>()?)
        }
        Some(b'{') => {
            let members = json_members(t).ok()?;
            Tree::Object(members.into_iter().map(|(k, r)| Some((k, tree(r.get(), depth.saturating_add(1))?))).collect::<Option<_>>()?)
        }
        _ => Tree::Leaf(Scalar::parse(t.as_bytes()).ok()?),
    })
}

impl Tree {
    /// The host value it stands for: leaves as Dynamic's scalars, arrays Arrays, objects Maps
    /// with String keys.
    fn value(&self) -> chwire_proto::Value<'_> {
        use chwire_proto::Value as V;
        match self {
            Tree::Leaf(s) => match s {
                Scalar::Null => V::Null,
                Scalar::Bool(b) => V::Bool(*b),
                Scalar::Int(i) => V::Int(*i),
                Scalar::UInt(u) => V::UInt(*u),
                Scalar::Int128(i) => V::Int128(*i),
                Scalar::UInt128(u) => V::UInt128(*u),
                Scalar::Float(f) => V::Float64(*f),
                Scalar::Str(s) | Scalar::Composite(_, _, s) => V::String(s.as_bytes()),
            },
            Tree::Array(items) => V::Array(items.iter().map(Tree::value).collect()),
            Tree::Object(members) => V::Map(members.iter().map(|(k, v)| (V::String(k.as_bytes()), v.value())).collect()),
        }
    }
}

/// A JSON object's members in their order, duplicate keys kept (serde_json's own map would
/// sort them and keep the last), each value as its raw text: how chwire reads JSON objects as
/// Maps and Tuples (also chwire-formats' JSON input).
pub fn json_members(text: &str) -> serde_json::Result<Vec<(String, &serde_json::value::RawValue)>> {
    serde_json::from_str::<Members<'_>>(text).map(|Members(m)| m)
}

/// An object's members in their order, duplicates kept, values as their raw text.
/// An object's members in their order, duplicates kept, values as their raw text.
struct Members<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> std::result::Result<Members<'a>, M::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de serde_json::value::RawValue>()? {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}
