//! Custom serializations (revision >= 54454, the column's `has_custom` byte): a column may
//! arrive SPARSE (its non-default rows and their positions), REPLICATED (its distinct rows
//! and an index per row, from 54482) or both, and a Tuple's elements each have their own
//! kinds. All of them are expanded into ordinary columns here.
//!
//! What a column's kinds are (ClickHouse's `SerializationInfo`, read by the column's type):
//! one *kind stack* per column (one byte: 0 default, 1 sparse, 2 detached, 3 detached over
//! sparse, 4 replicated, or 5 and a list of the stack's kinds), and for a Tuple, after its
//! own, each element's in order, recursively. No other type nests: an Array's, a Map's or a
//! Nullable's elements share the column's one stack. DETACHED (a column marshalled whole,
//! ColumnBLOB) only travels between servers and is refused.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::super::take::{push_default, take, Budget};
use super::super::{ColumnData, NullableColumn, TupleColumn};
use super::fixed::read_vec;
use super::{decode_body, read_prefix, sub, Prefix};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::types::{DataType, Physical};
use crate::wire::Reader;

/// One layer of a column's serialization (its stack, bottom to top, leaves out DEFAULT).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerializationKind {
    /// SPARSE: the non-default rows and their positions; the rest are the type's default.
    Sparse,
    /// REPLICATED: the distinct rows and one index per row (revision >= 54482).
    Replicated,
    /// DETACHED: a column marshalled whole, between servers only (refused).
    Detached,
}

/// The serialization of a column: its own stack and, for a Tuple, its elements'.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Serialization {
    /// Bottom to top; empty for the default serialization.
    pub kinds: Vec<SerializationKind>,
    /// A Tuple's elements, in order (empty for other types, and when all are default).
    pub elements: Vec<Serialization>,
}

impl Serialization {
    /// Whether nothing differs from the default serialization.
    pub fn is_default(&self) -> bool {
        self.kinds.is_empty() && self.elements.iter().all(Serialization::is_default)
    }
}

pub(crate) const KIND_SPARSE: u8 = 1;
pub(crate) const KIND_DETACHED: u8 = 2;
pub(crate) const KIND_REPLICATED: u8 = 4;
const KIND_COMBINATION: u8 = 5;

/// Reads the `has_custom` byte and, if set, the column's serialization (`column` names it in
/// errors).
pub fn read_serialization(ty: &DataType, r: &mut Reader<'_>, column: &str) -> ReadResult<Serialization> {
    if r.u8()? == 0 {
        return Ok(Serialization::default());
    }
    read_kinds(ty, r, column, 0)
}

fn read_kinds(ty: &DataType, r: &mut Reader<'_>, column: &str, depth: usize) -> ReadResult<Serialization> {
    if depth > r.limits().depth() {
        return Err(
            DecodeError::LimitExceeded { what: "serialization nesting", size: depth as u64, limit: r.limits().depth() as u64 }.into()
        );
    }
    let kinds = read_stack(r, column)?;
    let storage;
    let ty = if ty.physical() == Physical::Alias {
        storage = ty.storage().ok_or_else(|| DecodeError::UnsupportedType(ty.to_string()))?;
        &storage
    } else {
        ty
    };
    let elements = match ty {
        DataType::Tuple(items) => {
            items.iter().map(|(_, t)| read_kinds(t, r, column, depth.saturating_add(1))).collect::<Result<Vec<_>, _>>()?
        }
        _ => Vec::new(),
    };
    Ok(Serialization { kinds, elements })
}

fn read_stack(r: &mut Reader<'_>, column: &str) -> ReadResult<Vec<SerializationKind>> {
    use SerializationKind as K;
    Ok(match r.u8()? {
        0 => Vec::new(),
        KIND_SPARSE => vec![K::Sparse],
        KIND_DETACHED => vec![K::Detached],
        3 => vec![K::Sparse, K::Detached],
        KIND_REPLICATED => vec![K::Replicated],
        KIND_COMBINATION => {
            let n = r.varuint_len("serialization kinds", 16)?;
            let mut kinds = Vec::with_capacity(n);
            for _ in 0..n {
                match r.u8()? {
                    0 => {}
                    1 => kinds.push(K::Sparse),
                    2 => kinds.push(K::Detached),
                    3 => kinds.push(K::Replicated),
                    k => return Err(DecodeError::UnsupportedSerialization(k, format!("{column} (a kind of a combination)")).into()),
                }
            }
            kinds
        }
        k => return Err(DecodeError::UnsupportedSerialization(k, column.to_string()).into()),
    })
}

/// Decode a column of `rows` rows sent with serialization `s` (its prefix, then its data),
/// expanded into an ordinary column.
pub fn decode_serialized(ty: &DataType, rows: usize, s: &Serialization, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    let prefix = read_prefix(ty, r)?;
    let mut budget = Budget::new(r.limits().max_block_bytes);
    body(ty, rows, &prefix, &s.kinds, &s.elements, r, &mut budget)
}

/// A column decoded whole in the sparse serialization (tests and fuzzing).
pub fn decode_sparse(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    decode_serialized(ty, rows, &Serialization { kinds: vec![SerializationKind::Sparse], elements: Vec::new() }, r)
}

fn body(
    ty: &DataType,
    rows: usize,
    prefix: &Prefix,
    kinds: &[SerializationKind],
    elements: &[Serialization],
    r: &mut Reader<'_>,
    budget: &mut Budget,
) -> ReadResult<ColumnData> {
    let Some((top, rest)) = kinds.split_last() else {
        if elements.iter().all(Serialization::is_default) {
            return decode_body(ty, rows, prefix, r);
        }
        let items = match ty {
            DataType::Tuple(items) => items.clone(),
            t => match t.storage() {
                Some(DataType::Tuple(items)) => items,
                _ => return Err(DecodeError::malformed("serialization", format!("element kinds for a {ty} column")).into()),
            },
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, ((_, t), s)) in items.iter().zip(elements).enumerate() {
            out.push(body(t, rows, sub(prefix, i), &s.kinds, &s.elements, r, budget)?);
        }
        return Ok(ColumnData::Tuple(TupleColumn { rows, elements: out }));
    };
    match top {
        SerializationKind::Sparse => sparse(ty, rows, prefix, rest, elements, r, budget),
        SerializationKind::Replicated => replicated(ty, rows, prefix, rest, elements, r, budget),
        SerializationKind::Detached => Err(DecodeError::UnsupportedSerialization(
            KIND_DETACHED,
            format!("a {ty} column marshalled whole (DETACHED), which servers send only to each other"),
        )
        .into()),
    }
}

pub(super) const END_OF_GRANULE_FLAG: u64 = 1 << 62;

/// Sparse: the offsets stream (defaults before each non-default value, then the trailing
/// default count flagged with END_OF_GRANULE), then the non-default values. The default of a
/// Nullable is NULL: its values come without a null map.
fn sparse(
    ty: &DataType,
    rows: usize,
    prefix: &Prefix,
    rest: &[SerializationKind],
    elements: &[Serialization],
    r: &mut Reader<'_>,
    budget: &mut Budget,
) -> ReadResult<ColumnData> {
    let positions = sparse_positions(rows, r)?;
    let n = positions.len();
    // Row -> index into the values, or `n`: the default row appended after them.
    let mut idx = vec![n as u32; rows];
    for (i, &p) in positions.iter().enumerate() {
        if let Some(slot) = idx.get_mut(p as usize) {
            *slot = i as u32; // i < n <= rows, which fits u32 (checked by sparse_positions)
        }
    }
    if let DataType::Nullable(inner) = ty {
        let mut values = body(inner, n, sub(prefix, 0), rest, elements, r, budget)?;
        push_default(&mut values, budget)?;
        let nulls = idx.iter().map(|&i| u8::from(i as usize == n)).collect();
        let values = take(&values, &idx, budget)?;
        return Ok(ColumnData::Nullable(Box::new(NullableColumn { nulls, values })));
    }
    let mut values = body(ty, n, prefix, rest, elements, r, budget)?;
    push_default(&mut values, budget)?;
    Ok(take(&values, &idx, budget)?)
}

fn sparse_positions(rows: usize, r: &mut Reader<'_>) -> ReadResult<Vec<u32>> {
    if u32::try_from(rows).is_err() {
        return Err(DecodeError::malformed("sparse column", format!("{rows} rows")).into());
    }
    let mut positions = Vec::new();
    let mut pos: u64 = 0;
    loop {
        let v = r.varuint()?;
        let count = v & !END_OF_GRANULE_FLAG;
        pos = pos
            .checked_add(count)
            .filter(|&p| p <= rows as u64)
            .ok_or_else(|| DecodeError::malformed("sparse offsets", format!("offsets exceed the block's {rows} rows")))?;
        if v & END_OF_GRANULE_FLAG != 0 {
            break;
        }
        if pos >= rows as u64 {
            return Err(DecodeError::malformed("sparse offsets", format!("non-default value at row {pos} of {rows}")).into());
        }
        positions.push(pos as u32);
        pos = pos.saturating_add(1); // pos < rows
    }
    if pos != rows as u64 {
        return Err(DecodeError::malformed("sparse offsets", format!("offsets cover {pos} rows, the block has {rows}")).into());
    }
    Ok(positions)
}

/// Replicated: the row count, the index width (1, 2, 4 or 8 bytes), one index per row, the
/// count of distinct rows, then those rows.
fn replicated(
    ty: &DataType,
    rows: usize,
    prefix: &Prefix,
    rest: &[SerializationKind],
    elements: &[Serialization],
    r: &mut Reader<'_>,
    budget: &mut Budget,
) -> ReadResult<ColumnData> {
    let declared = r.varuint()?;
    if declared != rows as u64 {
        return Err(DecodeError::malformed("replicated column", format!("{declared} indexes for a block of {rows} rows")).into());
    }
    let idx: Vec<u32> = match r.u8()? {
        1 => read_vec::<u8>(r, rows)?.into_iter().map(u32::from).collect(),
        2 => read_vec::<u16>(r, rows)?.into_iter().map(u32::from).collect(),
        4 => read_vec::<u32>(r, rows)?,
        8 => read_vec::<u64>(r, rows)?
            .into_iter()
            .map(|i| u32::try_from(i).map_err(|_| DecodeError::malformed("replicated column", format!("index {i}"))))
            .collect::<Result<_, _>>()?,
        w => return Err(DecodeError::malformed("replicated column", format!("index width {w}")).into()),
    };
    let n = r.varuint_len("replicated distinct rows", r.limits().max_block_rows)?;
    let values = body(ty, n, prefix, rest, elements, r, budget)?;
    if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
        return Err(ReadError::Invalid(DecodeError::malformed("replicated column", format!("index {bad} outside its {n} distinct rows"))));
    }
    Ok(take(&values, &idx, budget)?)
}
