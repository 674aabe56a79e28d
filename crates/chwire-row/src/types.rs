//! Rust types for ClickHouse values that have no standard-library counterpart: 256-bit
//! integers and exact decimals. (The `rust_decimal`, `bigdecimal` features add those
//! crates' decimal types.)

use std::fmt;

use super::impls::bad_storage;
use super::{FromColumn, ToColumn};
use chwire_proto::column::{check_decimal256_precision, decimal256_to_string, decimal_to_string, int256_to_string};
use chwire_proto::{ColumnData, DataType};

macro_rules! wide_int {
    ($name:ident, $doc:literal, $ch:ident, $signed:literal, $small:ty) => {
        #[doc = $doc]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub [u8; 32]);

        impl $name {
            /// From 32 little-endian bytes (ClickHouse's storage).
            pub const fn from_le_bytes(b: [u8; 32]) -> Self {
                $name(b)
            }

            /// The 32 little-endian bytes (ClickHouse's storage).
            pub const fn to_le_bytes(self) -> [u8; 32] {
                self.0
            }
        }

        impl From<$small> for $name {
            fn from(v: $small) -> Self {
                let fill = if $signed && (v as i128) < 0 { 0xff } else { 0 };
                let mut b = [fill; 32];
                b[..16].copy_from_slice(&v.to_le_bytes());
                $name(b)
            }
        }

        impl TryFrom<$name> for $small {
            type Error = String;
            /// The value, if it fits.
            fn try_from(v: $name) -> Result<$small, String> {
                let low = <$small>::from_le_bytes(v.0[..16].try_into().expect("16 bytes"));
                if $name::from(low) == v {
                    Ok(low)
                } else {
                    Err(format!("{v} does not fit {}", stringify!($small)))
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&int256_to_string(&self.0, $signed))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }

        impl<'a> FromColumn<'a> for $name {
            fn check_plain(ty: &DataType) -> Result<(), String> {
                match ty {
                    DataType::$ch => Ok(()),
                    _ => Err(concat!(stringify!($name), " reads ", stringify!($ch)).into()),
                }
            }

            #[inline]
            fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
                fixed32(data, row).map($name)
            }
        }

        impl ToColumn for $name {
            fn check_write(ty: &DataType) -> Result<(), String> {
                <$name as FromColumn<'static>>::check_plain(ty)
            }

            fn write(&self, _: &DataType, col: &mut ColumnData) -> Result<(), String> {
                push_fixed32(col, &self.0)
            }
        }
    };
}

wide_int!(I256, "A ClickHouse `Int256`: 32 little-endian bytes, two's complement.", Int256, true, i128);
wide_int!(U256, "A ClickHouse `UInt256`: 32 little-endian bytes.", UInt256, false, u128);

fn fixed32(data: &ColumnData, row: usize) -> Result<[u8; 32], String> {
    match data {
        ColumnData::Fixed { width: 32, data } => Ok(data[row * 32..row * 32 + 32].try_into().expect("32 bytes")),
        other => Err(bad_storage(other)),
    }
}

fn push_fixed32(col: &mut ColumnData, b: &[u8; 32]) -> Result<(), String> {
    match col {
        ColumnData::Fixed { width: 32, data } => {
            data.extend_from_slice(b);
            Ok(())
        }
        other => Err(bad_storage(other)),
    }
}

/// An exact `Decimal32`/`Decimal64`/`Decimal128` value: `raw / 10^scale`.
///
/// Reading gives the column's scale. Writing rescales to the column's scale when that is
/// exact (more digits: multiplied; fewer: only if the dropped digits are zeros) and checks
/// the column's precision; it never rounds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Decimal {
    /// The digits as an integer: the value times `10^scale`.
    pub raw: i128,
    /// How many of the digits follow the decimal point.
    pub scale: u8,
}

impl Decimal {
    /// `raw / 10^scale`.
    pub const fn new(raw: i128, scale: u8) -> Self {
        Decimal { raw, scale }
    }

    /// The same value at another scale, if that is exact and fits an i128.
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        if scale >= self.scale {
            let f = 10i128.checked_pow(u32::from(scale - self.scale))?;
            Some(Decimal { raw: self.raw.checked_mul(f)?, scale })
        } else {
            let f = 10i128.checked_pow(u32::from(self.scale - scale))?;
            (self.raw % f == 0).then_some(Decimal { raw: self.raw / f, scale })
        }
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&decimal_to_string(self.raw, self.scale))
    }
}

/// The raw value of row `row` of a Decimal32/64/128 column.
pub(crate) fn decimal_raw(data: &ColumnData, row: usize) -> Result<i128, String> {
    match data {
        ColumnData::Int32(v) => Ok(v[row].into()),
        ColumnData::Int64(v) => Ok(v[row].into()),
        ColumnData::Int128(v) => Ok(v[row]),
        other => Err(bad_storage(other)),
    }
}

/// Append the raw value of a decimal at the column's scale, checking its precision.
pub(crate) fn push_decimal_raw(ty: &DataType, col: &mut ColumnData, d: Decimal) -> Result<(), String> {
    chwire_proto::column::push_decimal(ty, col, d.raw, d.scale)
}

fn check_decimal(ty: &DataType, max_precision: u8, what: &str) -> Result<(), String> {
    match ty {
        DataType::Decimal { precision, .. } if *precision <= max_precision => Ok(()),
        _ => Err(format!("{what} reads Decimal(P, S) with P <= {max_precision}")),
    }
}

impl<'a> FromColumn<'a> for Decimal {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        check_decimal(ty, 38, "Decimal")
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let DataType::Decimal { scale, .. } = ty else { return Err(bad_storage(data)) };
        Ok(Decimal { raw: decimal_raw(data, row)?, scale: *scale })
    }
}

impl ToColumn for Decimal {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check_decimal(ty, 38, "Decimal")
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        push_decimal_raw(ty, col, *self)
    }
}

/// An exact `Decimal256` value: `raw / 10^scale`. Written only at the column's own scale.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Decimal256 {
    /// The digits as an integer: the value times `10^scale`.
    pub raw: I256,
    /// How many of the digits follow the decimal point.
    pub scale: u8,
}

impl fmt::Display for Decimal256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&decimal256_to_string(&self.raw.0, self.scale))
    }
}

impl<'a> FromColumn<'a> for Decimal256 {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Decimal { .. } => Ok(()),
            _ => Err("Decimal256 reads Decimal(P, S)".into()),
        }
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let DataType::Decimal { scale, .. } = ty else { return Err(bad_storage(data)) };
        match data {
            ColumnData::Fixed { .. } => Ok(Decimal256 { raw: I256(fixed32(data, row)?), scale: *scale }),
            _ => Ok(Decimal256 { raw: I256::from(decimal_raw(data, row)?), scale: *scale }),
        }
    }
}

impl ToColumn for Decimal256 {
    fn check_write(ty: &DataType) -> Result<(), String> {
        <Decimal256 as FromColumn<'static>>::check_plain(ty)
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        let DataType::Decimal { scale, .. } = ty else { return Err(bad_storage(col)) };
        if *scale != self.scale {
            return Err(format!("{self} has scale {}, the column {ty}", self.scale));
        }
        match col {
            ColumnData::Fixed { .. } => {
                check_decimal256_precision(&self.raw.0, ty)?;
                push_fixed32(col, &self.raw.0)
            }
            _ => {
                let raw = i128::try_from(self.raw)?;
                push_decimal_raw(ty, col, Decimal { raw, scale: self.scale })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_ints_round_trip_small_values() {
        assert_eq!(I256::from(-5i128).to_string(), "-5");
        assert_eq!(i128::try_from(I256::from(i128::MIN)).unwrap(), i128::MIN);
        assert_eq!(U256::from(u128::MAX).to_string(), u128::MAX.to_string());
        let mut big = [0u8; 32];
        big[31] = 1;
        assert!(u128::try_from(U256(big)).is_err());
    }

    #[test]
    fn decimal_rescale_is_exact() {
        let d = Decimal::new(12345, 2);
        assert_eq!(d.rescale(4), Some(Decimal::new(1234500, 4)));
        assert_eq!(d.rescale(1), None);
        assert_eq!(Decimal::new(12300, 2).rescale(0), Some(Decimal::new(123, 0)));
        assert_eq!(d.to_string(), "123.45");
    }
}
