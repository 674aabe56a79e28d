//! Rows of a column picked by index (`take`): how the custom serializations are expanded
//! into ordinary columns. A REPLICATED column is its distinct rows plus one index per row; a
//! SPARSE one its non-default rows, which become a column of every row by taking each row
//! from them or from one default row appended after them.
//!
//! The rows taken may repeat (a replicated row of a 1 MiB string, a million times): every
//! column is measured before anything is allocated for it, against a budget of bytes (the
//! block's limit), so a hostile index stream costs an error, never the memory it describes.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::{ArrayColumn, ColumnData, LcKeys, LowCardinalityColumn, NullableColumn, StringColumn, TupleColumn, VariantColumn};
use crate::error::DecodeError;

/// What the rows taken so far may still cost, in bytes.
pub(crate) struct Budget {
    left: usize,
    limit: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Budget {
        Budget { left: limit, limit }
    }

    fn spend(&mut self, bytes: u64) -> Result<(), DecodeError> {
        match usize::try_from(bytes).ok().and_then(|b| self.left.checked_sub(b)) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(DecodeError::LimitExceeded {
                what: "bytes of an expanded sparse or replicated column",
                size: (self.limit.saturating_sub(self.left) as u64).saturating_add(bytes),
                limit: self.limit as u64,
            }),
        }
    }
}

/// Append one default row to `data` (the row a sparse column's defaults are taken from),
/// its cost measured first: a FixedString's default is as wide as the type says.
pub(crate) fn push_default(data: &mut ColumnData, budget: &mut Budget) -> Result<(), DecodeError> {
    fn cost(d: &ColumnData) -> u64 {
        match d {
            ColumnData::Fixed { width, .. } => *width as u64,
            ColumnData::Tuple(t) => t.elements.iter().map(cost).fold(0u64, u64::saturating_add),
            ColumnData::Nullable(n) => cost(&n.values).saturating_add(1),
            _ => 16,
        }
    }
    budget.spend(cost(data))?;
    data.push_default().map_err(|e| DecodeError::malformed("sparse column", e.to_string()))
}

fn outside(i: u32, len: usize) -> DecodeError {
    DecodeError::malformed("replicated or sparse column", format!("index {i} outside the {len} rows it indexes"))
}

fn take_vec<T: Copy>(v: &[T], idx: &[u32], budget: &mut Budget) -> Result<Vec<T>, DecodeError> {
    budget.spend((idx.len() as u64).saturating_mul(std::mem::size_of::<T>() as u64))?;
    idx.iter().map(|&i| v.get(i as usize).copied().ok_or_else(|| outside(i, v.len()))).collect()
}

/// The rows `idx` of `data`, in that order (an index may repeat).
pub(crate) fn take(data: &ColumnData, idx: &[u32], budget: &mut Budget) -> Result<ColumnData, DecodeError> {
    use ColumnData as D;
    Ok(match data {
        D::UInt8(v) => D::UInt8(take_vec(v, idx, budget)?),
        D::UInt16(v) => D::UInt16(take_vec(v, idx, budget)?),
        D::UInt32(v) => D::UInt32(take_vec(v, idx, budget)?),
        D::UInt64(v) => D::UInt64(take_vec(v, idx, budget)?),
        D::UInt128(v) => D::UInt128(take_vec(v, idx, budget)?),
        D::Int8(v) => D::Int8(take_vec(v, idx, budget)?),
        D::Int16(v) => D::Int16(take_vec(v, idx, budget)?),
        D::Int32(v) => D::Int32(take_vec(v, idx, budget)?),
        D::Int64(v) => D::Int64(take_vec(v, idx, budget)?),
        D::Int128(v) => D::Int128(take_vec(v, idx, budget)?),
        D::Float32(v) => D::Float32(take_vec(v, idx, budget)?),
        D::Float64(v) => D::Float64(take_vec(v, idx, budget)?),
        D::Fixed { width, data } => {
            let width = *width;
            let rows = data.len().checked_div(width).unwrap_or(0);
            budget.spend((idx.len() as u64).saturating_mul(width as u64))?;
            let mut out = Vec::with_capacity(idx.len().saturating_mul(width));
            for &i in idx {
                let start = (i as usize).saturating_mul(width);
                let value = data.get(start..start.saturating_add(width)).filter(|_| (i as usize) < rows).ok_or_else(|| outside(i, rows))?;
                out.extend_from_slice(value);
            }
            D::Fixed { width, data: out }
        }
        D::String(s) => D::String(take_strings(s, idx, budget)?),
        D::AggregateState(s) => D::AggregateState(take_strings(s, idx, budget)?),
        D::Nullable(n) => {
            D::Nullable(Box::new(NullableColumn { nulls: take_vec(&n.nulls, idx, budget)?, values: take(&n.values, idx, budget)? }))
        }
        D::Array(a) => D::Array(Box::new(take_array(a, idx, budget)?)),
        D::Tuple(t) => {
            if let Some(&i) = idx.iter().find(|&&i| i as usize >= t.rows) {
                return Err(outside(i, t.rows));
            }
            let elements = t.elements.iter().map(|e| take(e, idx, budget)).collect::<Result<_, _>>()?;
            D::Tuple(TupleColumn { rows: idx.len(), elements })
        }
        D::LowCardinality(l) => {
            let keys = match &l.keys {
                LcKeys::U8(k) => LcKeys::U8(take_vec(k, idx, budget)?),
                LcKeys::U16(k) => LcKeys::U16(take_vec(k, idx, budget)?),
                LcKeys::U32(k) => LcKeys::U32(take_vec(k, idx, budget)?),
                LcKeys::U64(k) => LcKeys::U64(take_vec(k, idx, budget)?),
            };
            D::LowCardinality(Box::new(LowCardinalityColumn { dictionary: l.dictionary.clone(), keys }))
        }
        D::Variant(v) => D::Variant(Box::new(take_variant(v, idx, budget)?)),
        D::Dynamic(d) if d.shared.is_none() => {
            let mut out = (**d).clone();
            out.values = take_variant(&d.values, idx, budget)?;
            D::Dynamic(Box::new(out))
        }
        D::Dynamic(_) | D::Json(_) => {
            return Err(DecodeError::UnsupportedSerialization(
                crate::column::codec::KIND_REPLICATED,
                format!("{} rows taken by index (JSON, or Dynamic with values beyond max_types)", data.kind_name()),
            ))
        }
    })
}

fn take_strings(s: &StringColumn, idx: &[u32], budget: &mut Budget) -> Result<StringColumn, DecodeError> {
    let mut bytes = 0u64;
    for &i in idx {
        let (Some(&a), Some(&b)) = (s.offsets.get(i as usize), s.offsets.get((i as usize).saturating_add(1))) else {
            return Err(outside(i, s.len()));
        };
        bytes = bytes.saturating_add(b.saturating_sub(a));
    }
    budget.spend(bytes.saturating_add((idx.len() as u64).saturating_mul(8)))?;
    let mut out = StringColumn::with_capacity(idx.len(), bytes as usize);
    for &i in idx {
        out.push(s.get(i as usize));
    }
    Ok(out)
}

fn take_array(a: &ArrayColumn, idx: &[u32], budget: &mut Budget) -> Result<ArrayColumn, DecodeError> {
    let rows = a.offsets.len().saturating_sub(1);
    let mut elements = Vec::new();
    let mut offsets = Vec::with_capacity(idx.len().saturating_add(1));
    offsets.push(0u64);
    let mut total = 0u64;
    for &i in idx {
        let (Some(&start), Some(&end)) = (a.offsets.get(i as usize), a.offsets.get((i as usize).saturating_add(1))) else {
            return Err(outside(i, rows));
        };
        // The elements' indexes themselves cost 4 bytes each: measured before they are made.
        budget.spend(end.saturating_sub(start).saturating_mul(4))?;
        let (start, end) = (u32::try_from(start), u32::try_from(end));
        let (Ok(start), Ok(end)) = (start, end) else {
            return Err(DecodeError::malformed("replicated or sparse column", "more than 2^32 array elements"));
        };
        elements.extend(start..end);
        total = total.saturating_add(u64::from(end.saturating_sub(start)));
        offsets.push(total);
    }
    Ok(ArrayColumn { offsets, values: take(&a.values, &elements, budget)? })
}

fn take_variant(v: &VariantColumn, idx: &[u32], budget: &mut Budget) -> Result<VariantColumn, DecodeError> {
    let discriminators = take_vec(&v.discriminators, idx, budget)?;
    let mut picked: Vec<Vec<u32>> = vec![Vec::new(); v.variants.len()];
    let mut offsets = Vec::with_capacity(idx.len());
    for &i in idx {
        let (Some(&d), Some(&o)) = (v.discriminators.get(i as usize), v.offsets.get(i as usize)) else {
            return Err(outside(i, v.discriminators.len()));
        };
        match picked.get_mut(d as usize) {
            Some(p) => {
                offsets.push(p.len() as u32);
                p.push(o);
            }
            None => offsets.push(0), // NULL
        }
    }
    let variants = v.variants.iter().zip(&picked).map(|(c, p)| take(c, p, budget)).collect::<Result<_, _>>()?;
    Ok(VariantColumn { discriminators, offsets, variants })
}
