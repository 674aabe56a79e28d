//! QBit and BFloat16 values from Elixir for inserts: floats cut to BFloat16 as ClickHouse cuts
//! them, vectors transposed into QBit's bit planes.

use crate::terms::{decode_list, describe, float_of};
use bumpalo::Bump;
use chwire::{DataType, Value};
use rustler::Term;

/// A float as BFloat16's bits: the top half of its Float32, cut as ClickHouse cuts it
/// (`toBFloat16(1.005859375)` is 1).
pub(crate) fn bfloat16(f: f64) -> Result<u16, String> {
    Ok((chwire::proto::column::f32_of(f)?.to_bits() >> 16) as u16)
}

/// A float, an integer, or the atoms of NaN and the infinities.
fn number_of(t: Term<'_>) -> Option<f64> {
    match t.atom_to_string().ok().as_deref() {
        Some("nan") => Some(f64::NAN),
        Some("infinity") => Some(f64::INFINITY),
        Some("neg_infinity") => Some(f64::NEG_INFINITY),
        _ => float_of(t),
    }
}

/// A vector (a list of `dimension` numbers) as `QBit(element, dimension)` stores it: one
/// `FixedString(ceil(dimension / 8))` bit plane per bit of the element, the most significant
/// first; element `i` is bit `i % 8` of a plane's byte `bytes - 1 - i / 8`. Written to the
/// column's storage type (`write_type`).
pub(crate) fn qbit<'a: 'x, 'x>(t: Term<'a>, element: &DataType, dimension: usize, bump: &'x Bump) -> Result<Value<'x>, String> {
    let items: Vec<Term<'a>> = decode_list(t).map_err(|_| format!("{} does not fit QBit (use a list of numbers)", describe(t)))?;
    if items.len() != dimension {
        return Err(format!("a vector of {} numbers for a QBit of dimension {dimension}", items.len()));
    }
    let bits: Vec<u64> = items
        .iter()
        .map(|x| {
            let f = number_of(*x).ok_or_else(|| format!("{} is no number for a QBit", describe(*x)))?;
            Ok(match element {
                DataType::BFloat16 => u64::from(bfloat16(f)?),
                DataType::Float32 => u64::from(chwire::proto::column::f32_of(f)?.to_bits()),
                _ => f.to_bits(),
            })
        })
        .collect::<Result<_, String>>()?;
    let width = match element {
        DataType::BFloat16 => 16,
        DataType::Float32 => 32,
        _ => 64,
    };
    let bytes = dimension.div_ceil(8);
    let planes = (0..width)
        .map(|p| {
            let plane = bump.alloc_slice_fill_copy(bytes, 0u8);
            let shift = width - 1 - p;
            for (i, v) in bits.iter().enumerate() {
                if v >> shift & 1 != 0 {
                    plane[bytes - 1 - i / 8] |= 1 << (i % 8);
                }
            }
            (None, Value::FixedString(&*plane))
        })
        .collect();
    Ok(Value::Tuple(planes))
}

/// The type values are written to: QBit (anywhere in `ty`) as its storage, the tuple of bit
/// planes `qbit` builds; other types as they are.
pub(crate) fn write_type(ty: &DataType) -> DataType {
    use DataType as D;
    if !ty.contains(&|t| matches!(t, D::QBit { .. })) {
        return ty.clone();
    }
    match ty {
        D::QBit { .. } => ty.storage().unwrap_or_else(|| ty.clone()),
        D::Nullable(t) => D::Nullable(Box::new(write_type(t))),
        D::Array(t) => D::Array(Box::new(write_type(t))),
        D::Map(k, v) => D::Map(Box::new(write_type(k)), Box::new(write_type(v))),
        D::Tuple(items) => D::Tuple(items.iter().map(|(n, t)| (n.clone(), write_type(t))).collect()),
        other => other.clone(),
    }
}
