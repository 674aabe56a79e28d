//! A dynamic view of one value, for schema-free code and text output.

use super::ColumnData;
use crate::types::DataType;

/// One value of a column, borrowed from it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// NULL.
    Null,
    /// UInt8, UInt16, UInt32, UInt64.
    UInt(u64),
    /// Int8, Int16, Int32, Int64.
    Int(i64),
    /// Float32.
    Float32(f32),
    /// Float64.
    Float64(f64),
    /// Bool.
    Bool(bool),
    /// String bytes (not necessarily UTF-8).
    String(&'a [u8]),
    /// FixedString bytes, zero padding included.
    FixedString(&'a [u8]),
    /// Canonical (RFC 4122 order) UUID bytes.
    Uuid([u8; 16]),
    /// Days since 1970-01-01.
    Date(u16),
    /// Seconds since the epoch, and the column's timezone if it names one.
    DateTime(u32, Option<&'a str>),
    /// Enum element name and value.
    Enum(&'a str, i16),
    /// The elements of an array.
    Array(Vec<Value<'a>>),
    /// UInt128.
    UInt128(u128),
    /// Int128.
    Int128(i128),
    /// 32 little-endian bytes.
    UInt256(&'a [u8]),
    /// 32 little-endian bytes, two's complement.
    Int256(&'a [u8]),
    /// Upper 16 bits of an f32.
    BFloat16(u16),
    /// The unscaled integer and the scale: the value is `raw / 10^scale`.
    Decimal {
        /// The unscaled integer.
        raw: i128,
        /// Digits after the point.
        scale: u8,
    },
    /// Decimal256: 32 little-endian bytes and the scale.
    Decimal256 {
        /// The unscaled integer, 32 little-endian bytes (two's complement).
        raw: &'a [u8],
        /// Digits after the point.
        scale: u8,
    },
    /// Days since 1970-01-01 (may be negative).
    Date32(i32),
    /// Ticks of 10^-precision seconds since the epoch, and the column's timezone.
    DateTime64 {
        /// Ticks since the epoch.
        ticks: i64,
        /// Digits of sub-second precision, 0..=9.
        precision: u8,
        /// The column's timezone, if the type names one.
        tz: Option<&'a str>,
    },
    /// Seconds.
    Time(i32),
    /// Ticks of 10^-precision seconds (may be negative or above a day).
    Time64 {
        /// The ticks.
        ticks: i64,
        /// Digits of sub-second precision, 0..=9.
        precision: u8,
    },
    /// IPv4.
    Ipv4(std::net::Ipv4Addr),
    /// IPv6.
    Ipv6(std::net::Ipv6Addr),
    /// A tuple's elements, with their names when the type names them.
    Tuple(Vec<(Option<&'a str>, Value<'a>)>),
    /// A map's (key, value) entries, in the column's order.
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// A count of the unit.
    Interval(i64, crate::types::IntervalKind),
    /// A `Nothing` placeholder.
    Nothing,
    /// A JSON object as (path, value) pairs sorted by path (paths are dot-separated; NULL
    /// dynamic paths are left out).
    Json(Vec<(&'a str, Value<'a>)>),
    /// A JSON object sent as text (the STRING serialization).
    JsonText(&'a [u8]),
    /// An `AggregateFunction` state: the function's opaque serialization.
    AggregateState(&'a [u8]),
    /// A `QBit` vector: its elements (`BFloat16`, `Float32` or `Float64` values).
    QBit(Vec<Value<'a>>),
}

/// A double as a ClickHouse Float32: rounded to the nearest, as the server converts one; a
/// finite value beyond Float32's range (it would round to infinity) is an error, not an
/// infinity. NaN and the infinities stay what they are. Every front end that takes doubles for
/// Float32 places (Elixir inserts, query parameters, the Spark sources) narrows with this.
pub fn f32_of(f: f64) -> Result<f32, String> {
    let g = f as f32;
    if g.is_infinite() && f.is_finite() {
        Err(format!("{f:e} is beyond Float32's range"))
    } else {
        Ok(g)
    }
}

/// UUID wire order (two little-endian u64 halves) to canonical bytes.
pub fn uuid_from_wire(w: &[u8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for i in 0..8 {
        out[i] = w[7 - i];
        out[8 + i] = w[15 - i];
    }
    out
}

/// Canonical UUID bytes to wire order (the transformation is its own inverse).
pub fn uuid_to_wire(c: &[u8; 16]) -> [u8; 16] {
    uuid_from_wire(c)
}

impl<'a> Value<'a> {
    /// Row `i` of `data`, a column of type `ty` (the two must fit, as in a [`super::Column`];
    /// panics otherwise or if `i` is out of range).
    pub fn at(ty: &'a DataType, data: &'a ColumnData, i: usize) -> Value<'a> {
        use ColumnData as D;
        use DataType as T;
        match (ty, data) {
            (T::Bool, D::UInt8(v)) => Value::Bool(v[i] != 0),
            (T::Nothing, D::UInt8(_)) => Value::Nothing,
            (_, D::UInt8(v)) => Value::UInt(v[i].into()),
            (T::Date, D::UInt16(v)) => Value::Date(v[i]),
            (T::BFloat16, D::UInt16(v)) => Value::BFloat16(v[i]),
            (_, D::UInt16(v)) => Value::UInt(v[i].into()),
            (T::DateTime(tz), D::UInt32(v)) => Value::DateTime(v[i], tz.as_deref()),
            (T::Ipv4, D::UInt32(v)) => Value::Ipv4(std::net::Ipv4Addr::from(v[i])),
            (_, D::UInt32(v)) => Value::UInt(v[i].into()),
            (_, D::UInt64(v)) => Value::UInt(v[i]),
            (_, D::UInt128(v)) => Value::UInt128(v[i]),
            (T::Enum8(items), D::Int8(v)) => {
                Value::Enum(items.iter().find(|(_, e)| *e == v[i]).map_or("", |(n, _)| n.as_str()), v[i].into())
            }
            (_, D::Int8(v)) => Value::Int(v[i].into()),
            (T::Enum16(items), D::Int16(v)) => Value::Enum(items.iter().find(|(_, e)| *e == v[i]).map_or("", |(n, _)| n.as_str()), v[i]),
            (_, D::Int16(v)) => Value::Int(v[i].into()),
            (T::Decimal { scale, .. }, D::Int32(v)) => Value::Decimal { raw: v[i].into(), scale: *scale },
            (T::Date32, D::Int32(v)) => Value::Date32(v[i]),
            (T::Time, D::Int32(v)) => Value::Time(v[i]),
            (_, D::Int32(v)) => Value::Int(v[i].into()),
            (T::Decimal { scale, .. }, D::Int64(v)) => Value::Decimal { raw: v[i].into(), scale: *scale },
            (T::DateTime64 { precision, tz }, D::Int64(v)) => Value::DateTime64 { ticks: v[i], precision: *precision, tz: tz.as_deref() },
            (T::Time64(p), D::Int64(v)) => Value::Time64 { ticks: v[i], precision: *p },
            (T::Interval(k), D::Int64(v)) => Value::Interval(v[i], *k),
            (_, D::Int64(v)) => Value::Int(v[i]),
            (T::Decimal { scale, .. }, D::Int128(v)) => Value::Decimal { raw: v[i], scale: *scale },
            (_, D::Int128(v)) => Value::Int128(v[i]),
            (_, D::Float32(v)) => Value::Float32(v[i]),
            (_, D::Float64(v)) => Value::Float64(v[i]),
            (T::Uuid, D::Fixed { data, .. }) => Value::Uuid(uuid_from_wire(&data[i * 16..i * 16 + 16])),
            (T::Ipv6, D::Fixed { data, .. }) => {
                let mut octets = [0u8; 16];
                octets.copy_from_slice(&data[i * 16..i * 16 + 16]);
                Value::Ipv6(std::net::Ipv6Addr::from(octets))
            }
            (T::Int256, D::Fixed { data, .. }) => Value::Int256(&data[i * 32..i * 32 + 32]),
            (T::UInt256, D::Fixed { data, .. }) => Value::UInt256(&data[i * 32..i * 32 + 32]),
            (T::Decimal { scale, .. }, D::Fixed { data, .. }) => Value::Decimal256 { raw: &data[i * 32..i * 32 + 32], scale: *scale },
            (_, D::Fixed { width, data }) => Value::FixedString(&data[i * width..(i + 1) * width]),
            (_, D::String(s)) => Value::String(s.get(i)),
            (T::Nullable(inner), D::Nullable(n)) => {
                if n.nulls[i] != 0 {
                    Value::Null
                } else {
                    Value::at(inner, &n.values, i)
                }
            }
            (T::Array(inner), D::Array(a)) => Value::Array(a.range(i).map(|j| Value::at(inner, &a.values, j)).collect()),
            (T::Map(k, v), D::Array(a)) => match &a.values {
                D::Tuple(t) => Value::Map(a.range(i).map(|j| (Value::at(k, &t.elements[0], j), Value::at(v, &t.elements[1], j))).collect()),
                _ => unreachable!("map storage is an array of tuples"),
            },
            (T::Tuple(items), D::Tuple(t)) => {
                Value::Tuple(items.iter().zip(&t.elements).map(|((name, ity), e)| (name.as_deref(), Value::at(ity, e, i))).collect())
            }
            (T::LowCardinality(inner), D::LowCardinality(l)) => {
                let k = l.keys.get(i);
                if inner.is_nullable() && k == 0 {
                    Value::Null
                } else {
                    Value::at(inner.strip_nullable(), &l.dictionary, k)
                }
            }
            (T::Nested(fields), D::Array(a)) => match &a.values {
                D::Tuple(t) => Value::Array(
                    a.range(i)
                        .map(|j| {
                            Value::Tuple(
                                fields.iter().zip(&t.elements).map(|((n, fty), e)| (Some(n.as_str()), Value::at(fty, e, j))).collect(),
                            )
                        })
                        .collect(),
                ),
                _ => unreachable!("nested storage is an array of tuples"),
            },
            (T::Variant(types), D::Variant(v)) => match v.discriminators[i] {
                super::VariantColumn::NULL => Value::Null,
                d => Value::at(&types[d as usize], &v.variants[d as usize], v.offsets[i] as usize),
            },
            (T::Dynamic { .. }, D::Dynamic(d)) => match d.values.discriminators[i] {
                super::VariantColumn::NULL => Value::Null,
                k if Some(k as usize) == d.shared => d.shared_values.value(d.values.offsets[i] as usize),
                k => Value::at(&d.types[k as usize], &d.values.variants[k as usize], d.values.offsets[i] as usize),
            },
            (T::Json { typed, .. }, D::Json(j)) => match &j.text {
                Some(t) => Value::JsonText(t.get(i)),
                None => {
                    let mut fields: Vec<(&str, Value<'a>)> =
                        typed.iter().zip(&j.typed).map(|((p, t), c)| (p.as_str(), Value::at(t, c, i))).collect();
                    for (p, d) in &j.dynamic {
                        match d.values.discriminators[i] {
                            super::VariantColumn::NULL => {}
                            k if Some(k as usize) == d.shared => {
                                fields.push((p.as_str(), d.shared_values.value(d.values.offsets[i] as usize)))
                            }
                            k => fields.push((
                                p.as_str(),
                                Value::at(&d.types[k as usize], &d.values.variants[k as usize], d.values.offsets[i] as usize),
                            )),
                        }
                    }
                    // Paths beyond max_dynamic_paths: the row's range of the shared data.
                    if let Some((offsets, paths)) = j.shared_paths() {
                        for k in offsets[i] as usize..offsets[i + 1] as usize {
                            match j.shared_values.value(k) {
                                Value::Null => {}
                                v => fields.push((std::str::from_utf8(paths.get(k)).unwrap_or_default(), v)),
                            }
                        }
                    }
                    fields.sort_by(|a, b| a.0.cmp(b.0));
                    Value::Json(fields)
                }
            },
            (T::Geo(g), d) => Value::at(geo_storage(*g), d, i),
            (T::Geometry, d) => Value::at(geometry_storage(), d, i),
            (T::QBit { element, dimension }, D::Tuple(t)) => Value::QBit(
                super::qbit::row(&t.elements, *dimension, i)
                    .into_iter()
                    .map(|b| match **element {
                        T::BFloat16 => Value::BFloat16(b as u16),
                        T::Float32 => Value::Float32(f32::from_bits(b as u32)),
                        _ => Value::Float64(f64::from_bits(b)),
                    })
                    .collect(),
            ),
            (T::AggregateFunction(_), D::AggregateState(s)) => Value::AggregateState(s.get(i)),
            (T::SimpleAggregateFunction { ty, .. }, d) => Value::at(ty, d, i),
            // Column construction guarantees type and storage agree.
            _ => unreachable!("column storage does not match its type {ty}"),
        }
    }
}

/// The storage of `Geometry` (a Variant of the geometry types), built once.
fn geometry_storage() -> &'static DataType {
    static TYPE: std::sync::OnceLock<DataType> = std::sync::OnceLock::new();
    #[allow(clippy::expect_used, reason = "Geometry's storage is a constant Variant")]
    TYPE.get_or_init(|| DataType::Geometry.storage().expect("Geometry has storage"))
}

/// The storage types of the geometry types, built once.
pub(super) fn geo_storage(g: crate::types::GeoKind) -> &'static DataType {
    use crate::types::GeoKind as G;
    use std::sync::OnceLock;
    static TYPES: OnceLock<[DataType; 7]> = OnceLock::new();
    let all = TYPES
        .get_or_init(|| [G::Point, G::Ring, G::LineString, G::MultiLineString, G::Polygon, G::MultiPolygon, G::MultiPoint].map(G::storage));
    &all[match g {
        G::MultiPoint => 6,
        G::Point => 0,
        G::Ring => 1,
        G::LineString => 2,
        G::MultiLineString => 3,
        G::Polygon => 4,
        G::MultiPolygon => 5,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_wire_order() {
        // 61f0c404-5cb3-11e7-907b-a6006ad3dba0 as ClickHouse writes it.
        let canonical: [u8; 16] = [0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0];
        let wire = uuid_to_wire(&canonical);
        assert_eq!(wire, [0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61, 0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90]);
        assert_eq!(uuid_from_wire(&wire), canonical);
    }
}

/// Decimal text of an unscaled integer: `raw / 10^scale`, without trailing zeros after the
/// point (ClickHouse's default text form).
pub fn decimal_to_string(raw: i128, scale: u8) -> String {
    let digits = raw.unsigned_abs().to_string();
    place_point(raw < 0, &digits, scale)
}

fn place_point(negative: bool, digits: &str, scale: u8) -> String {
    let scale = scale as usize;
    let mut s = String::with_capacity(digits.len() + scale + 3);
    if negative {
        s.push('-');
    }
    if scale == 0 {
        s.push_str(digits);
        return s;
    }
    let padded = if digits.len() <= scale { format!("{}{digits}", "0".repeat(scale + 1 - digits.len())) } else { digits.to_string() };
    let (int, frac) = padded.split_at(padded.len() - scale);
    s.push_str(int);
    let frac = frac.trim_end_matches('0');
    if !frac.is_empty() {
        s.push('.');
        s.push_str(frac);
    }
    s
}

/// Decimal digits of a 256-bit little-endian integer (two's complement when `signed`).
pub fn int256_to_string(le: &[u8], signed: bool) -> String {
    let (neg, mag) = int256_magnitude(le, signed);
    let mut out = Vec::new();
    let mut limbs = mag;
    if limbs.iter().all(|&l| l == 0) {
        return "0".into();
    }
    while limbs.iter().any(|&l| l != 0) {
        // Divide the 256-bit magnitude by 10^19 and keep the remainder's digits.
        let mut rem: u128 = 0;
        for l in limbs.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*l);
            *l = (cur / 10_000_000_000_000_000_000) as u64;
            rem = cur % 10_000_000_000_000_000_000;
        }
        let chunk = rem.to_string();
        if limbs.iter().any(|&l| l != 0) {
            out.push(format!("{chunk:0>19}"));
        } else {
            out.push(chunk);
        }
    }
    out.reverse();
    let s = out.concat();
    if neg {
        format!("-{s}")
    } else {
        s
    }
}

/// `raw / 10^scale` for a 256-bit decimal.
pub fn decimal256_to_string(le: &[u8], scale: u8) -> String {
    let s = int256_to_string(le, true);
    match s.strip_prefix('-') {
        Some(d) => place_point(true, d, scale),
        None => place_point(false, &s, scale),
    }
}

fn int256_magnitude(le: &[u8], signed: bool) -> (bool, [u64; 4]) {
    let mut limbs = [0u64; 4];
    for (i, l) in limbs.iter_mut().enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(&le[i * 8..i * 8 + 8]);
        *l = u64::from_le_bytes(b);
    }
    let neg = signed && limbs[3] >> 63 == 1;
    if neg {
        // Two's complement negation.
        let mut carry = 1u128;
        for l in limbs.iter_mut() {
            let v = u128::from(!*l) + carry;
            *l = v as u64;
            carry = v >> 64;
        }
    }
    (neg, limbs)
}

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(decimal_to_string(12345, 2), "123.45");
        assert_eq!(decimal_to_string(-5, 3), "-0.005");
        assert_eq!(decimal_to_string(1500, 2), "15");
        assert_eq!(decimal_to_string(0, 4), "0");
        assert_eq!(decimal_to_string(i128::MIN, 0), i128::MIN.to_string());
    }

    #[test]
    fn int256() {
        let mut max = [0xffu8; 32];
        assert_eq!(int256_to_string(&max, false), "115792089237316195423570985008687907853269984665640564039457584007913129639935");
        assert_eq!(int256_to_string(&max, true), "-1");
        max[31] = 0x7f;
        assert_eq!(int256_to_string(&max, true), "57896044618658097711785492504343953926634992332820282019728792003956564819967");
        let mut min = [0u8; 32];
        min[31] = 0x80;
        assert_eq!(int256_to_string(&min, true), "-57896044618658097711785492504343953926634992332820282019728792003956564819968");
        let mut v = [0u8; 32];
        v[..16].copy_from_slice(&12345u128.to_le_bytes());
        assert_eq!(decimal256_to_string(&v, 4), "1.2345");
        assert_eq!(int256_to_string(&[0u8; 32], true), "0");
    }
}

#[cfg(test)]
mod f32_tests {
    use super::f32_of;

    #[test]
    fn doubles_round_to_float32_or_are_refused_beyond_its_range() {
        let max = f64::from(f32::MAX);
        // Just above Float32's largest value still rounds down to it, as the server rounds.
        assert_eq!(f32_of(max * (1.0 + f64::powi(2.0, -26))).unwrap(), f32::MAX);
        assert_eq!(f32_of(-0.1).unwrap(), -0.1f32);
        assert!(f32_of(f64::NAN).unwrap().is_nan());
        assert_eq!(f32_of(f64::NEG_INFINITY).unwrap(), f32::NEG_INFINITY);
        assert_eq!(f32_of(f64::MAX).unwrap_err(), "1.7976931348623157e308 is beyond Float32's range");
        assert!(f32_of(-max * 2.0).is_err());
    }
}
