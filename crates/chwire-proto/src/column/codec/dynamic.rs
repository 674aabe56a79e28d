//! Variant rows and Dynamic columns (the structure prefix and the union of values).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::{BinaryValues, ColumnData, DynamicColumn, VariantColumn};
use super::fixed::read_vec;
use super::{decode_body, encode_column_at, read_prefix, write_prefix_of, Prefix, VARIANT_MODE_BASIC};
use crate::error::{DecodeError, ReadResult};
use crate::revision::Revision;
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

pub(super) const DYNAMIC_V1: u64 = 1;
pub(super) const DYNAMIC_V2: u64 = 2;
pub(super) const DYNAMIC_FLATTENED: u64 = 3;
pub(super) const SHARED_VARIANT: &str = "SharedVariant";

pub(super) fn read_type_name(r: &mut Reader<'_>) -> ReadResult<DataType> {
    let name = std::str::from_utf8(r.str_bytes()?).map_err(|_| DecodeError::malformed("Dynamic", "type name is not UTF-8"))?;
    Ok(DataType::parse_limited(name, r.limits())?)
}

pub(super) fn read_dynamic_prefix(r: &mut Reader<'_>) -> ReadResult<Prefix> {
    let version = r.u64_le()?;
    match version {
        DYNAMIC_V1 | DYNAMIC_V2 => {
            let max_types = if version == DYNAMIC_V1 { Some(r.varuint()?) } else { None };
            let n = r.varuint_len("Dynamic types", 1 << 16)?;
            let mut names = Vec::with_capacity(n.saturating_add(1));
            for _ in 0..n {
                let name = std::str::from_utf8(r.str_bytes()?)
                    .map_err(|_| DecodeError::malformed("Dynamic", "type name is not UTF-8"))?
                    .to_string();
                names.push(name);
            }
            // The values are a Variant of these types plus SharedVariant, sorted by name.
            names.push(SHARED_VARIANT.to_string());
            names.sort();
            if names.len() > 255 {
                return Err(DecodeError::malformed("Dynamic", "more than 255 variant types").into());
            }
            let shared = names.iter().position(|n| n == SHARED_VARIANT);
            let types = names
                .iter()
                .map(|n| if n == SHARED_VARIANT { Ok(DataType::String) } else { DataType::parse_limited(n, r.limits()) })
                .collect::<Result<Vec<_>, _>>()?;
            let mode = r.u64_le()?;
            if mode != VARIANT_MODE_BASIC {
                return Err(DecodeError::malformed("Dynamic", format!("variant discriminators mode {mode}")).into());
            }
            let prefixes = types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?;
            Ok(Prefix::Dynamic { version, max_types, types, shared, prefixes })
        }
        DYNAMIC_FLATTENED => {
            let n = r.varuint_len("Dynamic types", 254)?;
            let types = (0..n).map(|_| read_type_name(r)).collect::<Result<Vec<_>, _>>()?;
            let prefixes = types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?;
            Ok(Prefix::Dynamic { version, max_types: None, types, shared: None, prefixes })
        }
        v => Err(DecodeError::malformed("Dynamic", format!("unsupported serialization version {v}")).into()),
    }
}

pub(super) fn read_dynamic_body(rows: usize, prefix: &Prefix, r: &mut Reader<'_>) -> ReadResult<DynamicColumn> {
    let Prefix::Dynamic { version, max_types, types, shared, prefixes } = prefix else {
        return Err(DecodeError::malformed("Dynamic", "missing structure prefix").into());
    };
    let discriminators: Vec<u8> = if *version == DYNAMIC_FLATTENED {
        // Indexes into `types`, `types.len()` meaning NULL, at the smallest fitting width.
        let n = types.len();
        let idx: Vec<u64> = match n.saturating_add(1) {
            0..=0xff => read_vec::<u8>(r, rows)?.into_iter().map(u64::from).collect(),
            0x100..=0xffff => read_vec::<u16>(r, rows)?.into_iter().map(u64::from).collect(),
            _ => read_vec::<u32>(r, rows)?.into_iter().map(u64::from).collect(),
        };
        idx.into_iter()
            .map(|i| match i {
                i if i == n as u64 => Ok(VariantColumn::NULL),
                i if i < n as u64 => Ok(i as u8),
                i => Err(DecodeError::malformed("Dynamic", format!("type index {i} of {n} types"))),
            })
            .collect::<Result<_, _>>()?
    } else {
        read_vec(r, rows)?
    };
    let values = read_variant_rows("Dynamic", types, |i| prefixes.get(i).unwrap_or(&Prefix::None), discriminators, r)?;
    // SharedVariant: values of types beyond max_types, each its binary type + binary value.
    let shared_values = match shared.and_then(|s| values.variants.get(s)) {
        Some(ColumnData::String(encoded)) => BinaryValues::decode_limited(encoded, r.limits())?,
        _ => BinaryValues::default(),
    };
    Ok(DynamicColumn { types: types.clone(), shared: *shared, values, version: *version, max_types: *max_types, shared_values })
}

/// The per-type columns of a Variant (or a Dynamic's values) after its discriminators: each
/// type's column holds the rows that point at it.
pub(super) fn read_variant_rows<'p>(
    what: &'static str,
    types: &[DataType],
    prefix_of: impl Fn(usize) -> &'p Prefix,
    discriminators: Vec<u8>,
    r: &mut Reader<'_>,
) -> ReadResult<VariantColumn> {
    let (offsets, counts) = VariantColumn::layout(&discriminators, types.len()).map_err(|e| DecodeError::malformed(what, e))?;
    let mut variants = Vec::with_capacity(types.len());
    for (i, t) in types.iter().enumerate() {
        // decode_body yields exactly the rows asked for, so the layout holds.
        variants.push(decode_body(t, counts.get(i).copied().unwrap_or(0) as usize, prefix_of(i), r)?);
    }
    Ok(VariantColumn { discriminators, offsets, variants })
}

pub(super) fn write_dynamic_prefix(d: &DynamicColumn, out: &mut Vec<u8>) {
    out.put_u64_le(d.version);
    if d.version == DYNAMIC_FLATTENED {
        out.put_varuint(d.types.len() as u64);
        for t in &d.types {
            out.put_str(t.to_string());
        }
    } else {
        if d.version == DYNAMIC_V1 {
            out.put_varuint(d.max_types.unwrap_or(32));
        }
        let own: Vec<&DataType> = d.types.iter().enumerate().filter(|(i, _)| Some(*i) != d.shared).map(|(_, t)| t).collect();
        out.put_varuint(own.len() as u64);
        for t in own {
            out.put_str(t.to_string());
        }
        out.put_u64_le(VARIANT_MODE_BASIC);
    }
    for (t, c) in d.types.iter().zip(&d.values.variants) {
        write_prefix_of(t, c, out);
    }
}

pub(super) fn write_dynamic_body(d: &DynamicColumn, rev: Revision, out: &mut Vec<u8>) {
    if d.version == DYNAMIC_FLATTENED {
        let n = d.types.len() as u8;
        out.extend(d.values.discriminators.iter().map(|&x| if x == VariantColumn::NULL { n } else { x }));
    } else {
        out.extend_from_slice(&d.values.discriminators);
    }
    d.values.variants.iter().for_each(|c| encode_column_at(c, rev, out));
}
