//! 256-bit integers and Decimal256 from JavaScript: bigint words and decimal text as the 32
//! little-endian two's-complement bytes ClickHouse stores (`None` or the reason when they do
//! not fit).

/// Decimal text as the 32 little-endian two's-complement bytes of its value at `scale` (a
/// Decimal256's storage); digits beyond the scale must be zeros.
pub fn decimal256_text(s: &str, scale: u8) -> Result<[u8; 32], String> {
    let bad = || format!("{s:?} is not a decimal number");
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    if (int.is_empty() && frac.is_empty()) || !int.bytes().all(|c| c.is_ascii_digit()) || !frac.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let scale = scale as usize;
    if frac.len() > scale && frac.as_bytes()[scale..].iter().any(|&c| c != b'0') {
        return Err(format!("{s} cannot be represented exactly with scale {scale}"));
    }
    let digits = int.bytes().chain(frac.bytes().take(scale)).chain(std::iter::repeat_n(b'0', scale.saturating_sub(frac.len())));
    let mut w = [0u64; 4];
    for d in digits {
        // w = w * 10 + d, refusing an overflow of 255 bits.
        let mut carry = (d - b'0') as u128;
        for x in &mut w {
            let v = (*x as u128) * 10 + carry;
            *x = v as u64;
            carry = v >> 64;
        }
        if carry != 0 || w[3] >> 63 != 0 {
            return Err(format!("{s} has too many digits for Decimal256"));
        }
    }
    wide(neg, &w, true).ok_or_else(bad)
}

/// A bigint's sign and magnitude words as 32 little-endian two's-complement bytes, `None`
/// outside the type's range.
pub fn wide(neg: bool, words: &[u64], signed: bool) -> Option<[u8; 32]> {
    if words.iter().skip(4).any(|&w| w != 0) || (neg && !signed) {
        return None;
    }
    let mut w = [0u64; 4];
    for (d, s) in w.iter_mut().zip(words) {
        *d = *s;
    }
    if signed {
        let top = w[3] >> 63 != 0;
        // |v| ≤ 2^255 - 1, or exactly 2^255 when negative.
        if top && !(neg && w[3] == 1 << 63 && w[..3].iter().all(|&x| x == 0)) {
            return None;
        }
    }
    if neg {
        let mut carry = true;
        for x in &mut w {
            let (y, c) = (!*x).overflowing_add(carry as u64);
            *x = y;
            carry = c;
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in w.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&x.to_le_bytes());
    }
    Some(out)
}
