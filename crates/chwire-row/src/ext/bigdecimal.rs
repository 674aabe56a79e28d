//! `bigdecimal::BigDecimal` ↔ every Decimal (Decimal32/64/128/256), exactly (see `ext`).

use ::bigdecimal::num_bigint::{BigInt, Sign};
use ::bigdecimal::BigDecimal;

use crate::impls::bad_storage;
use crate::types::decimal_raw;
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::{ColumnData, DataType};

fn check(ty: &DataType) -> Result<(), String> {
    match ty {
        DataType::Decimal { .. } => Ok(()),
        _ => Err("BigDecimal reads and writes Decimal(P, S)".into()),
    }
}

impl<'a> FromColumn<'a> for BigDecimal {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        check(ty)
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let DataType::Decimal { scale, .. } = ty else { return Err(bad_storage(data)) };
        let raw = match data {
            ColumnData::Fixed { width: 32, data } => BigInt::from_signed_bytes_le(&data[row * 32..row * 32 + 32]),
            _ => BigInt::from(decimal_raw(data, row)?),
        };
        Ok(BigDecimal::new(raw, i64::from(*scale)))
    }
}

/// The unscaled integer of `v` at `scale`, if no digit is lost and it has at most
/// `precision` digits.
fn raw_at(v: &BigDecimal, precision: u8, scale: u8) -> Result<BigInt, String> {
    let (int, exp) = v.normalized().as_bigint_and_exponent();
    if int.sign() == Sign::NoSign {
        return Ok(int);
    }
    let scale = i64::from(scale);
    if exp > scale {
        return Err(format!("{} cannot be represented exactly with scale {scale}", plain(v)));
    }
    let too_many = || format!("{} has more than {precision} digits at scale {scale}", plain(v));
    // (exp can be near i64::MIN: "1e9223372036854775807" parses to that.)
    let shift = scale.checked_sub(exp).ok_or_else(too_many)?;
    if shift > i64::from(precision) {
        return Err(too_many());
    }
    let raw = int * BigInt::from(10u8).pow(shift as u32);
    if raw.magnitude() >= BigInt::from(10u8).pow(u32::from(precision)).magnitude() {
        return Err(too_many());
    }
    Ok(raw)
}

impl ToColumn for BigDecimal {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check(ty)
    }

    /// At the column's scale when no digit is lost, within its precision; never rounded.
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let DataType::Decimal { precision, scale } = ty else { return Err(bad_storage(col)) };
        let raw = raw_at(self, *precision, *scale)?;
        // Within the precision, the value fits the storage.
        let narrow = || i128::try_from(&raw).map_err(|_| format!("{} does not fit {ty}", plain(self)));
        match col {
            ColumnData::Int32(v) => v.push(narrow()? as i32),
            ColumnData::Int64(v) => v.push(narrow()? as i64),
            ColumnData::Int128(v) => v.push(narrow()?),
            ColumnData::Fixed { width: 32, data } => {
                let mut b = raw.to_signed_bytes_le();
                if b.len() > 32 {
                    return Err(format!("{} does not fit {ty}", plain(self)));
                }
                let fill = if raw.sign() == Sign::Minus { 0xff } else { 0 };
                b.resize(32, fill);
                data.extend_from_slice(&b);
            }
            other => return Err(bad_storage(other)),
        }
        Ok(())
    }
}

/// Decimal text without an exponent.
fn plain(v: &BigDecimal) -> String {
    let (int, exp) = v.as_bigint_and_exponent();
    let digits = int.magnitude().to_string();
    let sign = if int.sign() == Sign::Minus { "-" } else { "" };
    if exp.unsigned_abs() > 100 {
        // (Error messages only: never spell out a huge exponent.)
        return format!("{sign}{digits}e{}", exp.checked_neg().map_or_else(|| "9223372036854775808".to_string(), |e| e.to_string()));
    }
    if exp <= 0 {
        let zeros = if digits == "0" { 0 } else { exp.unsigned_abs() as usize };
        return format!("{sign}{digits}{}", "0".repeat(zeros));
    }
    let exp = exp as usize;
    let padded = if digits.len() <= exp { format!("{}{digits}", "0".repeat(exp + 1 - digits.len())) } else { digits };
    let (whole, frac) = padded.split_at(padded.len() - exp);
    format!("{sign}{whole}.{frac}")
}

/// Exact decimal text without an exponent (quoted for servers without parameters: an
/// unquoted literal would be a Float64).
impl QueryParam for BigDecimal {
    fn param_text(&self) -> String {
        plain(self)
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", plain(self))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn huge_exponents_are_errors_not_aborts() {
        use std::str::FromStr;
        let cols = [("d", DataType::parse("Decimal(18, 4)").unwrap())];
        for text in ["1e-100000000000", "1e100000000000", "1e9223372036854775807", "-1e-9223372036854775807"] {
            let v = BigDecimal::from_str(text).unwrap();
            #[derive(crate::row::Row)]
            struct R {
                d: BigDecimal,
            }
            let e = crate::row::block_of(&cols, &[R { d: v }]).unwrap_err();
            assert!(e.to_string().len() < 300, "{e}");
        }
    }

    use super::*;
    use crate::row::{block_of, rows_of};
    use std::str::FromStr;

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    fn d(s: &str) -> BigDecimal {
        BigDecimal::from_str(s).unwrap()
    }

    #[test]
    fn every_decimal_width_round_trips_exactly() {
        let cols = [("a", ty("Decimal(9, 2)")), ("b", ty("Decimal(18, 0)")), ("c", ty("Decimal(38, 38)")), ("e", ty("Decimal(76, 20)"))];
        let max76 = format!("{}.{}", "9".repeat(56), "9".repeat(20));
        let rows = vec![
            (d("-9999999.99"), d("1e17"), d("0.00000000000000000000000000000000000001"), d(&max76)),
            (d("0.1"), d("-123"), d("-0.99999999999999999999999999999999999999"), d(&format!("-{max76}"))),
            (d("0"), d("0"), d("0"), d("-0.00000000000000000001")),
        ];
        let block = block_of::<(BigDecimal, BigDecimal, BigDecimal, BigDecimal)>(&cols, &rows).unwrap();
        let back = rows_of::<(BigDecimal, BigDecimal, BigDecimal, BigDecimal)>(&block).unwrap();
        assert_eq!(back, rows);
        assert_eq!(block.column("b").unwrap().value(0), chwire_proto::Value::Decimal { raw: 10i128.pow(17), scale: 0 });
        assert_eq!(plain(&back[0].3), max76);
        assert_eq!(plain(&back[2].3), "-0.00000000000000000001");
        assert_eq!(plain(&d("1.5e3")), "1500");
        assert_eq!(d("-0.0012").sql_literal(), "'-0.0012'");

        let err = |v: &str, t: &str| block_of::<(BigDecimal,)>(&[("x", ty(t))], &[(d(v),)]).unwrap_err().to_string();
        assert!(err("1.005", "Decimal(9, 2)").contains("scale 2"));
        assert!(err("10000000", "Decimal(9, 2)").contains("more than 9 digits"));
        assert!(err(&format!("1{}", "0".repeat(56)), "Decimal(76, 20)").contains("more than 76 digits"));
        assert!(err("1e-300", "Decimal(76, 20)").contains("scale 20"));
        assert!(err("1e300", "Decimal(76, 20)").contains("more than 76 digits"));
    }
}
