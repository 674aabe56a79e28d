//! JSON columns: typed paths, dynamic paths (Dynamic columns) and the shared data.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::{BinaryValues, ColumnData, JsonColumn};
use super::dynamic::{read_dynamic_body, read_dynamic_prefix, write_dynamic_body, write_dynamic_prefix};
use super::strings::read_strings;
use super::{decode_body, encode_column_at, read_prefix, write_prefix_of, Prefix};
use crate::error::{DecodeError, ReadResult};
use crate::revision::Revision;
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

pub(super) const JSON_V1: u64 = 0;
pub(super) const JSON_STRING: u64 = 1;
pub(super) const JSON_V2: u64 = 2;
pub(super) const JSON_FLATTENED: u64 = 3;

pub(super) fn read_json_prefix(typed: &[(String, DataType)], r: &mut Reader<'_>) -> ReadResult<Prefix> {
    let version = r.u64_le()?;
    let max_paths = match version {
        JSON_V1 => Some(r.varuint()?),
        JSON_V2 | JSON_FLATTENED => None,
        JSON_STRING => return Ok(Prefix::Json { version, max_paths: None, paths: Vec::new(), typed: Vec::new(), dynamic: Vec::new() }),
        v => return Err(DecodeError::malformed("JSON", format!("unsupported serialization version {v}")).into()),
    };
    let n = r.varuint_len("JSON dynamic paths", 1 << 20)?;
    let mut paths = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        paths.push(std::str::from_utf8(r.str_bytes()?).map_err(|_| DecodeError::malformed("JSON", "path is not UTF-8"))?.to_string());
    }
    let typed = typed.iter().map(|(_, t)| read_prefix(t, r)).collect::<Result<Vec<_>, _>>()?;
    let dynamic = (0..n).map(|_| read_dynamic_prefix(r)).collect::<Result<Vec<_>, _>>()?;
    Ok(Prefix::Json { version, max_paths, paths, typed, dynamic })
}

pub(super) fn read_json_body(
    typed_types: &[(String, DataType)],
    rows: usize,
    prefix: &Prefix,
    r: &mut Reader<'_>,
) -> ReadResult<JsonColumn> {
    let Prefix::Json { version, max_paths, paths, typed, dynamic } = prefix else {
        return Err(DecodeError::malformed("JSON", "missing structure prefix").into());
    };
    if *version == JSON_STRING {
        return Ok(JsonColumn {
            version: *version,
            rows,
            text: Some(r.with_revision(Revision(0), |r| read_strings(r, rows))?),
            typed: Vec::new(),
            dynamic: Vec::new(),
            shared: None,
            max_dynamic_paths: None,
            shared_values: BinaryValues::default(),
        });
    }
    let mut typed_cols = Vec::with_capacity(typed_types.len());
    for ((_, t), p) in typed_types.iter().zip(typed) {
        typed_cols.push(decode_body(t, rows, p, r)?);
    }
    let mut dynamic_cols = Vec::with_capacity(paths.len());
    for (path, p) in paths.iter().zip(dynamic) {
        dynamic_cols.push((path.clone(), read_dynamic_body(rows, p, r)?));
    }
    let shared = if *version == JSON_FLATTENED {
        None
    } else {
        let shared_ty = DataType::Array(Box::new(DataType::Tuple(vec![(None, DataType::String), (None, DataType::String)])));
        // The shared data keeps its length-prefixed paths and values at every revision
        // (ClickHouse 26.9 at 54492 writes them so; its dynamic paths' Strings are offsets).
        Some(r.with_revision(Revision(0), |r| decode_body(&shared_ty, rows, &Prefix::None, r))?)
    };
    let mut json = JsonColumn {
        version: *version,
        rows,
        text: None,
        typed: typed_cols,
        dynamic: dynamic_cols,
        shared,
        max_dynamic_paths: *max_paths,
        shared_values: BinaryValues::default(),
    };
    // Paths beyond max_dynamic_paths: each value its binary type + binary value.
    if let Some(ColumnData::Array(a)) = &json.shared {
        if let ColumnData::Tuple(t) = &a.values {
            if let [ColumnData::String(paths), ColumnData::String(values)] = t.elements.as_slice() {
                if paths.iter().any(|p| std::str::from_utf8(p).is_err()) {
                    return Err(DecodeError::malformed("JSON", "a shared data path is not UTF-8").into());
                }
                json.shared_values = BinaryValues::decode_limited(values, r.limits())?;
            }
        }
    }
    Ok(json)
}

pub(super) fn write_json_prefix(typed_types: &[(String, DataType)], j: &JsonColumn, out: &mut Vec<u8>) {
    out.put_u64_le(j.version);
    if j.version == JSON_STRING {
        return;
    }
    if j.version == JSON_V1 {
        out.put_varuint(j.max_dynamic_paths.unwrap_or(1024));
    }
    out.put_varuint(j.dynamic.len() as u64);
    for (p, _) in &j.dynamic {
        out.put_str(p);
    }
    for ((_, t), c) in typed_types.iter().zip(&j.typed) {
        write_prefix_of(t, c, out);
    }
    for (_, d) in &j.dynamic {
        write_dynamic_prefix(d, out);
    }
}

pub(super) fn write_json_body(j: &JsonColumn, rev: Revision, out: &mut Vec<u8>) {
    if let Some(text) = &j.text {
        // The string serialization writes its texts length-prefixed whatever the revision.
        encode_column_at(&ColumnData::String(text.clone()), Revision(0), out);
        return;
    }
    j.typed.iter().for_each(|c| encode_column_at(c, rev, out));
    j.dynamic.iter().for_each(|(_, d)| write_dynamic_body(d, rev, out));
    if let Some(shared) = &j.shared {
        // Length-prefixed at every revision, as the server writes and reads it.
        encode_column_at(shared, Revision(0), out);
    }
}
