//! Reading Elixir terms that both directions of input need: integers of any width up to 256
//! bits, proper lists, and the bound on nesting. `params` (terms → query parameters) and
//! `columns` (terms → insert blocks) build on these; this module uses neither.

use rustler::{Term, TermType};

/// Deepest nesting of lists, tuples and maps taken from Elixir where the data, not a column
/// type, decides the depth (the NIF's stack is a scheduler's).
pub const MAX_DEPTH: u32 = 128;

/// Run `f`, a step of a conversion that recurses as deep as the data (or its type) is nested,
/// on a fresh stack segment (1 MiB, on the heap) when less than 64 KiB of the thread's stack
/// is left: a dirty CPU scheduler's stack is 320 KiB by default and a level of these
/// conversions takes a few KiB (`MAX_DEPTH` levels did not fit it once the optimizer merged
/// their frames).
#[inline]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// A list's elements; an improper list is an error (rustler's list decoder panics at its end).
pub fn decode_list<'a, D: rustler::Decoder<'a>>(t: Term<'a>) -> rustler::NifResult<Vec<D>> {
    t.list_length()?;
    t.decode()
}

/// An integer term of up to 128 bits.
pub fn int_of(t: Term<'_>) -> Option<i128> {
    if let Ok(v) = t.decode::<i64>() {
        return Some(v.into());
    }
    if let Ok(v) = t.decode::<u64>() {
        return Some(v.into());
    }
    let (neg, mag) = big_of(t)?;
    if mag[16..].iter().any(|&b| b != 0) {
        return None;
    }
    let m = u128::from_le_bytes(mag[..16].try_into().ok()?);
    if neg {
        if m > i128::MAX as u128 + 1 {
            return None;
        }
        Some((m as i128).wrapping_neg())
    } else {
        i128::try_from(m).ok()
    }
}

pub fn u128_of(t: Term<'_>) -> Option<u128> {
    if let Ok(v) = t.decode::<u64>() {
        return Some(v.into());
    }
    let (neg, mag) = big_of(t)?;
    if neg || mag[16..].iter().any(|&b| b != 0) {
        return None;
    }
    Some(u128::from_le_bytes(mag[..16].try_into().ok()?))
}

/// An integer's sign and 256-bit little-endian magnitude (None beyond 256 bits).
pub fn big_of(t: Term<'_>) -> Option<(bool, [u8; 32])> {
    if !t.is_integer() {
        return None;
    }
    let mut mag = [0u8; 32];
    if let Ok(v) = t.decode::<i64>() {
        mag[..8].copy_from_slice(&v.unsigned_abs().to_le_bytes());
        return Some((v < 0, mag));
    }
    if let Ok(v) = t.decode::<u64>() {
        mag[..8].copy_from_slice(&v.to_le_bytes());
        return Some((false, mag));
    }
    let etf = t.to_binary();
    let b = etf.as_slice();
    // [131, SMALL_BIG_EXT (110), n, sign, n bytes]
    if b.len() < 4 || b[0] != 131 || b[1] != 110 {
        return None;
    }
    let n = b[2] as usize;
    if n > 32 || b.len() < 4 + n {
        return None;
    }
    mag[..n].copy_from_slice(&b[4..4 + n]);
    Some((b[3] != 0, mag))
}

/// A 256-bit two's complement (signed) or plain (unsigned) little-endian value, if it fits.
pub fn int256_bytes(t: Term<'_>, signed: bool) -> Option<[u8; 32]> {
    let (neg, mut mag) = big_of(t)?;
    if !signed {
        return (!neg).then_some(mag);
    }
    let top = mag[31] & 0x80 != 0;
    if !neg {
        return (!top).then_some(mag);
    }
    // Negative: at most 2^255 in magnitude.
    if top && (mag[31] != 0x80 || mag[..31].iter().any(|&b| b != 0)) {
        return None;
    }
    let mut carry = true;
    for b in &mut mag {
        *b = !*b;
        if carry {
            let (r, c) = b.overflowing_add(1);
            *b = r;
            carry = c;
        }
    }
    Some(mag)
}

/// The decimal text of an integer term of up to 256 bits (None beyond).
pub fn int_text(t: Term<'_>) -> Option<String> {
    if let Some(v) = int_of(t) {
        return Some(v.to_string());
    }
    let (neg, mag) = big_of(t)?;
    // Little-endian 32-bit limbs, divided by 10^9 until nothing is left.
    let mut limbs: Vec<u32> = mag.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut parts = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u64;
        for l in limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*l);
            *l = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        parts.push(rem);
    }
    let mut s = String::from(if neg { "-" } else { "" });
    let mut it = parts.iter().rev();
    s.push_str(&it.next().map_or_else(|| "0".to_string(), u64::to_string));
    for p in it {
        s.push_str(&format!("{p:09}"));
    }
    Some(s)
}

pub(crate) fn float_of(t: Term<'_>) -> Option<f64> {
    if let Ok(f) = t.decode::<f64>() {
        return Some(f);
    }
    int_of(t).map(|i| i as f64)
}

/// A short description of a term for errors (its kind, and the value when short).
pub(crate) fn describe(t: Term<'_>) -> String {
    let kind = match t.get_type() {
        TermType::Atom => return format!(":{}", t.atom_to_string().unwrap_or_default()),
        TermType::Binary => "a binary",
        TermType::Integer => return format!("the integer {}", int_of(t).map_or_else(|| "(beyond 128 bits)".into(), |i| i.to_string())),
        TermType::Float => return format!("the float {}", t.decode::<f64>().unwrap_or_default()),
        TermType::List => "a list",
        TermType::Map => "a map",
        TermType::Tuple => "a tuple",
        _ => "a term",
    };
    kind.into()
}
