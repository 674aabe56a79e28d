//! `rust_decimal::Decimal` ↔ Decimal32/64/128, exactly (see `ext`).

use ::rust_decimal::Decimal;

use crate::impls::bad_storage;
use crate::types::{decimal_raw, push_decimal_raw, Decimal as ChDecimal};
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::column::decimal_to_string;
use chwire_proto::{ColumnData, DataType};

fn check(ty: &DataType) -> Result<(), String> {
    match ty {
        DataType::Decimal { precision, .. } if *precision <= 38 => Ok(()),
        _ => Err("rust_decimal::Decimal reads and writes Decimal(P, S) with P <= 38 (Decimal256: use BigDecimal)".into()),
    }
}

impl<'a> FromColumn<'a> for Decimal {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        check(ty)
    }

    /// Exact, or an error for values beyond rust_decimal's 96 bits and 28 decimals (trailing
    /// zeros beyond 28 decimals are dropped: the value stays the same).
    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let DataType::Decimal { scale, .. } = ty else { return Err(bad_storage(data)) };
        let (mut raw, mut scale) = (decimal_raw(data, row)?, u32::from(*scale));
        while scale > Decimal::MAX_SCALE && raw % 10 == 0 {
            raw /= 10;
            scale -= 1;
        }
        Decimal::try_from_i128_with_scale(raw, scale).map_err(|_| {
            format!(
                "{} does not fit rust_decimal::Decimal (96 bits, at most 28 decimals): read it as chwire::row::Decimal or BigDecimal",
                decimal_to_string(raw, scale as u8)
            )
        })
    }
}

impl ToColumn for Decimal {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check(ty)
    }

    /// At the column's scale when no digit is lost, within its precision; never rounded.
    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        // rust_decimal's scale is at most 28.
        push_decimal_raw(ty, col, ChDecimal::new(self.mantissa(), self.scale() as u8))
    }
}

/// Exact decimal text (quoted for servers without parameters: an unquoted literal would be
/// a Float64).
impl QueryParam for Decimal {
    fn param_text(&self) -> String {
        self.to_string()
    }
    fn sql_literal(&self) -> String {
        format!("'{self}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{block_of, rows_of};
    use std::str::FromStr;

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn exact_round_trips_and_errors() {
        let cols = [("a", ty("Decimal(9, 2)")), ("b", ty("Decimal(18, 6)")), ("c", ty("Decimal(38, 10)")), ("e", ty("Decimal(38, 30)"))];
        let rows = [
            (d("-9999999.99"), d("123456789012.123456"), d("792281625.1426433759354395033"), d("0.1")),
            (d("0.1"), d("-0.000001"), d("-1"), d("-0.0000000000000000000000000001")),
        ];
        let block = block_of::<(Decimal, Decimal, Decimal, Decimal)>(&cols, &rows).unwrap_err();
        // 28 decimals do not fit scale 10.
        assert!(block.to_string().contains("scale 10"), "{block}");
        let rows = [
            (d("-9999999.99"), d("123456789012.123456"), d("7922816251426433759.3543950335"), d("0.1")),
            (d("0.1"), d("-0.000001"), d("-1"), d("-0.0000000000000000000000000001")),
        ];
        let block = block_of::<(Decimal, Decimal, Decimal, Decimal)>(&cols, &rows).unwrap();
        let back = rows_of::<(Decimal, Decimal, Decimal, Decimal)>(&block).unwrap();
        assert_eq!(back, rows);
        assert_eq!(back[0].0.scale(), 2);
        assert_eq!(block.column("e").unwrap().value(0), chwire_proto::Value::Decimal { raw: 10i128.pow(29), scale: 30 });

        let err = |v: &str, t: &str| block_of::<(Decimal,)>(&[("x", ty(t))], &[(d(v),)]).unwrap_err().to_string();
        assert!(err("1.005", "Decimal(9, 2)").contains("scale 2"));
        assert!(err("10000000", "Decimal(9, 2)").contains("more than 9 digits"));
        assert!(err("1", "Decimal(76, 2)").contains("P <= 38"));

        // On read, values beyond 96 bits or 28 decimals are errors.
        let big = block_of::<(ChDecimal,)>(&[("x", ty("Decimal(38, 0)"))], &[(ChDecimal::new(10i128.pow(37), 0),)]).unwrap();
        assert!(rows_of::<(Decimal,)>(&big).unwrap_err().to_string().contains("does not fit rust_decimal"));
        let tiny = block_of::<(ChDecimal,)>(&[("x", ty("Decimal(38, 30)"))], &[(ChDecimal::new(1, 30),)]).unwrap();
        assert!(rows_of::<(Decimal,)>(&tiny).unwrap_err().to_string().contains("does not fit rust_decimal"));
        assert_eq!(d("-1.50").sql_literal(), "'-1.50'");
    }
}
