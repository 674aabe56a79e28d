//! Floats as ClickHouse prints them: shortest round-trip digits in its layout.

use crate::Style;
use std::io::Write;

/// A Float64 as ClickHouse prints it (`nan`/`inf`, or `null` in JSON, when not finite).
pub fn write_float(out: &mut Vec<u8>, v: f64, style: Style) {
    if !v.is_finite() {
        write_non_finite(out, v, style);
    } else {
        write_shortest(out, ryu::Buffer::new().format_finite(v));
    }
}

/// A Float32 as ClickHouse prints it.
pub fn write_float32(out: &mut Vec<u8>, v: f32, style: Style) {
    if !v.is_finite() {
        write_non_finite(out, f64::from(v), style);
    } else {
        write_shortest(out, ryu::Buffer::new().format_finite(v));
    }
}

fn write_non_finite(out: &mut Vec<u8>, v: f64, style: Style) {
    out.extend_from_slice(match (style == Style::Json, v.is_nan(), v > 0.0) {
        (true, _, _) => b"null".as_slice(),
        (false, true, _) => b"nan",
        (false, false, true) => b"inf",
        (false, false, false) => b"-inf",
    });
}

/// Re-render ryu's shortest round-trip digits (ties to even, like ClickHouse's
/// double-conversion) in ClickHouse's layout: positional for exponents -6..21, otherwise
/// `d.ddde±x`, and no `.0` on integers.
fn write_shortest(out: &mut Vec<u8>, text: &str) {
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // value = 0.DIGITS × 10^point
    let mut digits: String = format!("{int}{frac}");
    let mut point = int.len() as i32 + exp;
    let lead = digits.len() - digits.trim_start_matches('0').len();
    digits.drain(..lead);
    point -= lead as i32;
    let digits = digits.trim_end_matches('0');
    if neg {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.push(b'0');
        return;
    }
    let decimal_exp = point - 1; // exponent of the first digit
    if (-6..21).contains(&decimal_exp) {
        if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-point) as usize));
            out.extend_from_slice(digits.as_bytes());
        } else if point as usize >= digits.len() {
            out.extend_from_slice(digits.as_bytes());
            out.extend(std::iter::repeat_n(b'0', point as usize - digits.len()));
        } else {
            out.extend_from_slice(&digits.as_bytes()[..point as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[point as usize..]);
        }
    } else {
        out.push(digits.as_bytes()[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits.as_bytes()[1..]);
        }
        let _ = write!(out, "e{decimal_exp}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_clickhouse() {
        let mut out = Vec::new();
        for v in [1.0, 0.5, -0.0, f64::NAN, f64::NEG_INFINITY, 1e300, 1e-10] {
            write_float(&mut out, v, Style::Tsv);
            out.push(b' ');
        }
        assert_eq!(String::from_utf8(out).unwrap(), "1 0.5 -0 nan -inf 1e300 1e-10 ");
        let mut out = Vec::new();
        for v in [1e21, 123456789012345680000.0, 1e-6, 1.5e-7, 0.1 + 0.2, 1436273600220629.2] {
            write_float(&mut out, v, Style::Tsv);
            out.push(b' ');
        }
        assert_eq!(String::from_utf8(out).unwrap(), "1e21 123456789012345680000 0.000001 1.5e-7 0.30000000000000004 1436273600220629.2 ");
        let mut out = Vec::new();
        write_float32(&mut out, -3333333.2, Style::Tsv);
        assert_eq!(out, b"-3333333.2");
    }
}
