//! [`FromColumn`] and [`ToColumn`] for the standard library's types.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};
use std::net::{Ipv4Addr, Ipv6Addr};

use super::{read_through_lc, FromColumn, ToColumn};
use chwire_proto::{ColumnData, DataType};

pub(crate) use chwire_proto::column::bad_storage;
use chwire_proto::column::write_bytes;

/// Whether an Enum8/Enum16 type (if `ty` is one) has an element of value `v`.
fn check_enum_value(ty: &DataType, v: i16) -> Result<(), String> {
    let ok = match ty {
        DataType::Enum8(items) => items.iter().any(|(_, x)| i16::from(*x) == v),
        DataType::Enum16(items) => items.iter().any(|(_, x)| *x == v),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{v} is not a value of {ty}"))
    }
}

macro_rules! number {
    ($t:ty, $variant:ident, $desc:literal, [$($pat:pat),+] $(, widen [$($wty:ident),*])?) => {
        number!($t, $variant, $desc, {} {}, [$($pat),+] $(, widen [$($wty),*])?);
    };
    ($t:ty, $variant:ident, $desc:literal, {$($from_extra:item)*} {$($to_extra:item)*}, [$($pat:pat),+] $(, widen [$($wty:ident),*])?) => {
        impl<'a> FromColumn<'a> for $t {
            $($from_extra)*

            fn check_plain(ty: &DataType) -> Result<(), String> {
                if matches!(ty, $($pat)|+) $($(|| matches!(ty, DataType::$wty))*)? {
                    Ok(())
                } else {
                    Err(concat!(stringify!($t), " reads ", $desc).into())
                }
            }

            #[inline]
            fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
                match data {
                    ColumnData::$variant(v) => Ok(v[row]),
                    $($(ColumnData::$wty(v) => Ok(<$t>::from(v[row])),)*)?
                    other => Err(bad_storage(other)),
                }
            }
        }

        impl ToColumn for $t {
            $($to_extra)*

            fn check_write(ty: &DataType) -> Result<(), String> {
                if matches!(ty, $($pat)|+) {
                    Ok(())
                } else {
                    Err(concat!(stringify!($t), " writes ", $desc, " (of its own width)").into())
                }
            }

            #[inline]
            fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
                match col {
                    ColumnData::$variant(v) => {
                        if matches!(ty, DataType::Enum8(_) | DataType::Enum16(_)) {
                            check_enum_value(ty, *self as i16)?;
                        }
                        v.push(*self);
                        Ok(())
                    }
                    other => Err(bad_storage(other)),
                }
            }
        }
    };
}

number!(u8, UInt8, "UInt8 and Bool", {
    fn vec_from_bytes(bytes: &[u8]) -> Option<Vec<u8>> {
        Some(bytes.to_vec())
    }
} {
    fn slice_as_bytes(v: &[u8]) -> Option<&[u8]> {
        Some(v)
    }
}, [DataType::UInt8, DataType::Bool]);
number!(u16, UInt16, "UInt16 (or narrower) and Date (days since 1970-01-01)", [DataType::UInt16, DataType::Date], widen[UInt8]);
number!(u32, UInt32, "UInt32 (or narrower) and DateTime (seconds since the epoch)", [DataType::UInt32, DataType::DateTime(_)], widen [UInt8, UInt16]);
number!(u64, UInt64, "UInt64 (or narrower unsigned integers)", [DataType::UInt64], widen [UInt8, UInt16, UInt32]);
number!(u128, UInt128, "UInt128 (or narrower unsigned integers)", [DataType::UInt128], widen [UInt8, UInt16, UInt32, UInt64]);
number!(i8, Int8, "Int8 and the values of Enum8", [DataType::Int8, DataType::Enum8(_)]);
number!(i16, Int16, "Int16 (or narrower) and the values of Enum16", [DataType::Int16, DataType::Enum16(_)], widen [Int8, UInt8]);
number!(
    i32,
    Int32,
    "Int32 (or narrower), Date32 (days since 1970-01-01) and Time (seconds)",
    [DataType::Int32, DataType::Date32, DataType::Time],
    widen [Int8, Int16, UInt8, UInt16]
);
number!(
    i64,
    Int64,
    "Int64 (or narrower), DateTime64 and Time64 (ticks of their precision) and Interval",
    [DataType::Int64, DataType::DateTime64 { .. }, DataType::Time64(_), DataType::Interval(_)],
    widen [Int8, Int16, Int32, UInt8, UInt16, UInt32]
);
number!(i128, Int128, "Int128 (or narrower integers)", [DataType::Int128], widen [Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64]);
number!(f32, Float32, "Float32", {
    fn check(ty: &DataType) -> Result<(), String> {
        match ty.structural() {
            DataType::BFloat16 => Ok(()),
            DataType::LowCardinality(inner) if !inner.is_nullable() => Self::check_plain(inner.structural()),
            ty => Self::check_plain(ty),
        }
    }

    #[inline]
    fn read(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match (ty, data) {
            // BFloat16 is the upper half of an f32: widening is exact.
            (DataType::BFloat16, ColumnData::UInt16(v)) => Ok(f32::from_bits(u32::from(v[row]) << 16)),
            _ => read_through_lc::<f32>(ty, data, row),
        }
    }
} {}, [DataType::Float32]);
number!(f64, Float64, "Float64 and Float32", [DataType::Float64], widen[Float32]);

impl<'a> FromColumn<'a> for bool {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Bool | DataType::UInt8 => Ok(()),
            _ => Err("bool reads Bool and UInt8".into()),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match data {
            ColumnData::UInt8(v) => Ok(v[row] != 0),
            other => Err(bad_storage(other)),
        }
    }
}

impl ToColumn for bool {
    fn check_write(ty: &DataType) -> Result<(), String> {
        <bool as FromColumn<'static>>::check_plain(ty)
    }

    #[inline]
    fn write(&self, _: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match col {
            ColumnData::UInt8(v) => {
                v.push(u8::from(*self));
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    }
}

/// The bytes of row `row` of a String or FixedString column.
#[inline]
fn bytes_at(data: &ColumnData, row: usize) -> Result<&[u8], String> {
    match data {
        ColumnData::String(s) => Ok(s.get(row)),
        ColumnData::Fixed { width, data } => Ok(&data[row * width..(row + 1) * width]),
        ColumnData::AggregateState(s) => Ok(s.get(row)),
        other => Err(bad_storage(other)),
    }
}

/// The element name of an enum value.
fn enum_name<'a>(ty: &'a DataType, data: &ColumnData, row: usize) -> Result<&'a str, String> {
    let found = match (ty, data) {
        (DataType::Enum8(items), ColumnData::Int8(v)) => items.iter().find(|(_, x)| *x == v[row]).map(|(n, _)| n.as_str()),
        (DataType::Enum16(items), ColumnData::Int16(v)) => items.iter().find(|(_, x)| *x == v[row]).map(|(n, _)| n.as_str()),
        (_, other) => return Err(bad_storage(other)),
    };
    found.ok_or_else(|| format!("the value is not an element of {ty}"))
}

impl<'a> FromColumn<'a> for &'a str {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::String | DataType::Enum8(_) | DataType::Enum16(_) => Ok(()),
            _ => Err("strings read String and the names of Enum8/Enum16 (FixedString: read &[u8] or [u8; N])".into()),
        }
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match data {
            // StringColumn::str_at has the fast path for short ASCII values.
            ColumnData::String(s) => s.str_at(row).map_err(|e| format!("not UTF-8 ({e}); read it as &[u8] or Vec<u8>")),
            _ => enum_name(ty, data, row),
        }
    }
}

impl<'a> FromColumn<'a> for String {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        <&str>::check_plain(ty)
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        <&str>::read_plain(ty, data, row).map(str::to_owned)
    }
}

impl<'a> FromColumn<'a> for &'a [u8] {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::String | DataType::FixedString(_) | DataType::AggregateFunction(_) => Ok(()),
            _ => Err("byte strings read String, FixedString and AggregateFunction states (opaque)".into()),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        bytes_at(data, row)
    }
}

impl<'a, const N: usize> FromColumn<'a> for [u8; N] {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::FixedString(n) if *n == N => Ok(()),
            _ => Err(format!("[u8; {N}] reads FixedString({N})")),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        bytes_at(data, row)?.try_into().map_err(|_| format!("the value is not {N} bytes long"))
    }
}

fn check_write_text(ty: &DataType) -> Result<(), String> {
    match ty {
        DataType::String | DataType::FixedString(_) | DataType::Enum8(_) | DataType::Enum16(_) => Ok(()),
        _ => Err("strings write String, FixedString and Enum (by name)".into()),
    }
}

impl ToColumn for str {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check_write_text(ty)
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        write_bytes(self.as_bytes(), ty, col)
    }
}

impl ToColumn for String {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check_write_text(ty)
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        write_bytes(self.as_bytes(), ty, col)
    }
}

impl<const N: usize> ToColumn for [u8; N] {
    fn check_write(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::FixedString(n) if *n >= N => Ok(()),
            DataType::String => Ok(()),
            _ => Err(format!("[u8; {N}] writes FixedString(n) with n >= {N} and String")),
        }
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        write_bytes(self, ty, col)
    }
}

impl<'a, T: FromColumn<'a>> FromColumn<'a> for Option<T> {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Nullable(inner) => T::check(inner),
            DataType::LowCardinality(inner) => match &**inner {
                DataType::Nullable(x) => T::check_plain(x.structural()),
                x => T::check_plain(x.structural()),
            },
            other => T::check(other),
        }
    }

    #[inline]
    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match (ty, data) {
            (DataType::Nullable(inner), ColumnData::Nullable(n)) => {
                if n.nulls[row] != 0 {
                    Ok(None)
                } else {
                    T::read(inner, &n.values, row).map(Some)
                }
            }
            (DataType::LowCardinality(inner), ColumnData::LowCardinality(lc)) => {
                let k = lc.keys.get(row);
                if inner.is_nullable() && k == 0 {
                    Ok(None)
                } else {
                    T::read_plain(inner.strip_nullable().structural(), &lc.dictionary, k).map(Some)
                }
            }
            _ => T::read(ty, data, row).map(Some),
        }
    }
}

impl<T: ToColumn> ToColumn for Option<T> {
    fn check_write(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Nullable(inner) => T::check_write(inner),
            // Non-Nullable columns take Some values; None is an error at write time.
            other => T::check_write(other),
        }
    }

    #[inline]
    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match (ty, col) {
            (DataType::Nullable(inner), ColumnData::Nullable(n)) => {
                match self {
                    Some(v) => {
                        v.write(inner, &mut n.values)?;
                        n.nulls.push(0);
                    }
                    None => {
                        n.values.push_default().map_err(|e| e.to_string())?;
                        n.nulls.push(1);
                    }
                }
                Ok(())
            }
            (ty, col) => match self {
                Some(v) => v.write(ty, col),
                // ClickHouse has no NULL Array or Map: the core's rule (the empty one) for rows.
                None => chwire_proto::column::write_value(&chwire_proto::Value::Null, ty, col),
            },
        }
    }
}

impl<'a, T: FromColumn<'a>> FromColumn<'a> for Vec<T> {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Array(inner) => T::check(inner),
            DataType::Map(k, v) => T::check_map_entry(k, v),
            DataType::Nested(fields) => T::check_fields(fields),
            DataType::String | DataType::FixedString(_) | DataType::AggregateFunction(_) if T::vec_from_bytes(b"").is_some() => Ok(()),
            _ => Err("Vec<T> reads Array(T), Map(K, V) as Vec<(K, V)> and Nested as Vec of tuples; Vec<u8> also String".into()),
        }
    }

    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match (ty, data) {
            (DataType::Array(inner), ColumnData::Array(a)) => a.range(row).map(|i| T::read(inner, &a.values, i)).collect(),
            (DataType::Map(k, v), ColumnData::Array(a)) => match &a.values {
                ColumnData::Tuple(t) => a.range(row).map(|i| T::read_map_entry(k, v, &t.elements[0], &t.elements[1], i)).collect(),
                other => Err(bad_storage(other)),
            },
            (DataType::Nested(fields), ColumnData::Array(a)) => match &a.values {
                ColumnData::Tuple(t) => a.range(row).map(|i| T::read_fields(fields, &t.elements, i)).collect(),
                other => Err(bad_storage(other)),
            },
            (_, data) => T::vec_from_bytes(bytes_at(data, row)?).ok_or_else(|| bad_storage(data)),
        }
    }
}

impl<'a> FromColumn<'a> for Box<str> {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        <&str>::check_plain(ty)
    }

    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        <&str>::read_plain(ty, data, row).map(Box::from)
    }
}

/// Append the elements of an array value.
fn write_array<T: ToColumn>(items: &[T], ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
    match (ty, col) {
        (DataType::Array(inner), ColumnData::Array(a)) => {
            for x in items {
                x.write(inner, &mut a.values)?;
            }
            a.offsets.push(a.values.len() as u64);
            Ok(())
        }
        (DataType::Map(k, v), ColumnData::Array(a)) => {
            let ColumnData::Tuple(t) = &mut a.values else { return Err(bad_storage(&a.values)) };
            for x in items {
                x.write_map_entry(k, v, &mut t.elements)?;
                t.rows += 1;
            }
            a.offsets.push(t.rows as u64);
            Ok(())
        }
        (DataType::Nested(fields), ColumnData::Array(a)) => {
            let ColumnData::Tuple(t) = &mut a.values else { return Err(bad_storage(&a.values)) };
            for x in items {
                x.write_fields(fields, &mut t.elements)?;
                t.rows += 1;
            }
            a.offsets.push(t.rows as u64);
            Ok(())
        }
        (ty, col) => match T::slice_as_bytes(items) {
            Some(b) => write_bytes(b, ty, col),
            None => Err(bad_storage(col)),
        },
    }
}

fn check_write_array<T: ToColumn>(ty: &DataType) -> Result<(), String> {
    match ty {
        DataType::Array(inner) => T::check_write(inner),
        DataType::Map(k, v) => T::check_write_map_entry(k, v),
        DataType::Nested(fields) => T::check_write_fields(fields),
        DataType::String | DataType::FixedString(_) if T::slice_as_bytes(&[]).is_some() => Ok(()),
        _ => Err("sequences write Array(T), Map(K, V) (of pairs) and Nested (of tuples); bytes also String".into()),
    }
}

impl<T: ToColumn> ToColumn for [T] {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check_write_array::<T>(ty)
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        write_array(self, ty, col)
    }
}

impl<T: ToColumn> ToColumn for Vec<T> {
    fn check_write(ty: &DataType) -> Result<(), String> {
        check_write_array::<T>(ty)
    }

    fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
        write_array(self, ty, col)
    }
}

/// Append one map value: its entries, then the row's end offset.
pub(crate) fn write_map<'x, K, V>(
    entries: impl IntoIterator<Item = (&'x K, &'x V)>,
    ty: &DataType,
    col: &mut ColumnData,
) -> Result<(), String>
where
    K: ToColumn + ?Sized + 'x,
    V: ToColumn + ?Sized + 'x,
{
    let (DataType::Map(kt, vt), ColumnData::Array(a)) = (ty, &mut *col) else { return Err(bad_storage(col)) };
    let ColumnData::Tuple(t) = &mut a.values else { return Err(bad_storage(&a.values)) };
    let [kc, vc] = &mut t.elements[..] else { return Err("a map's storage has two columns".into()) };
    for (k, v) in entries {
        k.write(kt, kc)?;
        v.write(vt, vc)?;
        t.rows += 1;
    }
    a.offsets.push(t.rows as u64);
    Ok(())
}

macro_rules! map_impls {
    ([$($g:tt)*] $map:ty, $($kb:tt)+) => {
        impl<'a, K, V, $($g)*> FromColumn<'a> for $map
        where
            K: FromColumn<'a> + $($kb)+,
            V: FromColumn<'a>,
        {
            fn check_plain(ty: &DataType) -> Result<(), String> {
                match ty {
                    DataType::Map(k, v) => {
                        K::check(k).map_err(|e| format!("key: {e}"))?;
                        V::check(v).map_err(|e| format!("value: {e}"))
                    }
                    _ => Err("maps read Map(K, V)".into()),
                }
            }

            fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
                let (DataType::Map(k, v), ColumnData::Array(a)) = (ty, data) else { return Err(bad_storage(data)) };
                let ColumnData::Tuple(t) = &a.values else { return Err(bad_storage(&a.values)) };
                a.range(row).map(|i| Ok((K::read(k, &t.elements[0], i)?, V::read(v, &t.elements[1], i)?))).collect()
            }
        }

        impl<K: ToColumn, V: ToColumn, $($g)*> ToColumn for $map {
            fn check_write(ty: &DataType) -> Result<(), String> {
                match ty {
                    DataType::Map(k, v) => {
                        K::check_write(k).map_err(|e| format!("key: {e}"))?;
                        V::check_write(v).map_err(|e| format!("value: {e}"))
                    }
                    _ => Err("maps write Map(K, V)".into()),
                }
            }

            fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
                write_map(self, ty, col)
            }
        }
    };
}

map_impls!([S: BuildHasher + Default] HashMap<K, V, S>, Eq + Hash);
map_impls!([] BTreeMap<K, V>, Ord);

macro_rules! tuple_impls {
    ($n:literal; $($T:ident $i:tt),+) => {
        impl<'a, $($T: FromColumn<'a>),+> FromColumn<'a> for ($($T,)+) {
            fn check_plain(ty: &DataType) -> Result<(), String> {
                match ty {
                    DataType::Tuple(items) if items.len() == $n => {
                        $( $T::check(&items[$i].1).map_err(|e| format!("element {}: {e}", $i + 1))?; )+
                        Ok(())
                    }
                    _ => Err(concat!("a tuple of ", $n, " reads Tuple of ", $n, " elements").into()),
                }
            }

            #[inline]
            fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
                match (ty, data) {
                    (DataType::Tuple(items), ColumnData::Tuple(t)) => Ok(($( $T::read(&items[$i].1, &t.elements[$i], row)?, )+)),
                    (_, other) => Err(bad_storage(other)),
                }
            }

            fn check_map_entry(k: &DataType, v: &DataType) -> Result<(), String> {
                let types = [k, v];
                if $n != 2 {
                    return Err("map entries read as pairs (K, V)".into());
                }
                $( $T::check(types.get($i).copied().unwrap_or(k))?; )+
                Ok(())
            }

            fn read_map_entry(k: &'a DataType, v: &'a DataType, kd: &'a ColumnData, vd: &'a ColumnData, i: usize) -> Result<Self, String> {
                let types = [k, v];
                let data = [kd, vd];
                Ok(($( $T::read(types.get($i).copied().unwrap_or(k), data.get($i).copied().unwrap_or(kd), i)?, )+))
            }

            fn check_fields(fields: &[(String, DataType)]) -> Result<(), String> {
                if fields.len() != $n {
                    return Err(format!("{} Nested fields for a tuple of {}", fields.len(), $n));
                }
                $( $T::check(&fields[$i].1).map_err(|e| format!("field {}: {e}", fields[$i].0))?; )+
                Ok(())
            }

            fn read_fields(fields: &'a [(String, DataType)], elements: &'a [ColumnData], i: usize) -> Result<Self, String> {
                Ok(($( $T::read(&fields[$i].1, &elements[$i], i)?, )+))
            }
        }

        impl<$($T: ToColumn),+> ToColumn for ($($T,)+) {
            fn check_write(ty: &DataType) -> Result<(), String> {
                match ty {
                    DataType::Tuple(items) if items.len() == $n => {
                        $( $T::check_write(&items[$i].1).map_err(|e| format!("element {}: {e}", $i + 1))?; )+
                        Ok(())
                    }
                    _ => Err(concat!("a tuple of ", $n, " writes Tuple of ", $n, " elements").into()),
                }
            }

            fn write(&self, ty: &DataType, col: &mut ColumnData) -> Result<(), String> {
                let (DataType::Tuple(items), ColumnData::Tuple(t)) = (ty, &mut *col) else { return Err(bad_storage(col)) };
                $( self.$i.write(&items[$i].1, &mut t.elements[$i])?; )+
                t.rows += 1;
                Ok(())
            }

            fn check_write_map_entry(k: &DataType, v: &DataType) -> Result<(), String> {
                let types = [k, v];
                if $n != 2 {
                    return Err("map entries write as pairs (K, V)".into());
                }
                $( $T::check_write(types.get($i).copied().unwrap_or(k))?; )+
                Ok(())
            }

            fn write_map_entry(&self, k: &DataType, v: &DataType, elements: &mut [ColumnData]) -> Result<(), String> {
                let types = [k, v];
                $( self.$i.write(types.get($i).copied().unwrap_or(k), elements.get_mut($i).ok_or("a map has two columns")?)?; )+
                Ok(())
            }

            fn check_write_fields(fields: &[(String, DataType)]) -> Result<(), String> {
                if fields.len() != $n {
                    return Err(format!("{} Nested fields for a tuple of {}", fields.len(), $n));
                }
                $( $T::check_write(&fields[$i].1).map_err(|e| format!("field {}: {e}", fields[$i].0))?; )+
                Ok(())
            }

            fn write_fields(&self, fields: &[(String, DataType)], elements: &mut [ColumnData]) -> Result<(), String> {
                $( self.$i.write(&fields[$i].1, &mut elements[$i])?; )+
                Ok(())
            }
        }
    };
}

tuple_impls!(1; A 0);
tuple_impls!(2; A 0, B 1);
tuple_impls!(3; A 0, B 1, C 2);
tuple_impls!(4; A 0, B 1, C 2, D 3);
tuple_impls!(5; A 0, B 1, C 2, D 3, E 4);
tuple_impls!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_impls!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_impls!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_impls!(9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_impls!(10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);

impl<'a> FromColumn<'a> for Ipv4Addr {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Ipv4 => Ok(()),
            _ => Err("Ipv4Addr reads IPv4".into()),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match data {
            ColumnData::UInt32(v) => Ok(Ipv4Addr::from(v[row])),
            other => Err(bad_storage(other)),
        }
    }
}

impl ToColumn for Ipv4Addr {
    fn check_write(ty: &DataType) -> Result<(), String> {
        <Ipv4Addr as FromColumn<'static>>::check_plain(ty)
    }

    fn write(&self, _: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match col {
            ColumnData::UInt32(v) => {
                v.push(u32::from(*self));
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    }
}

impl<'a> FromColumn<'a> for Ipv6Addr {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Ipv6 => Ok(()),
            _ => Err("Ipv6Addr reads IPv6".into()),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        let b: [u8; 16] = bytes_at(data, row)?.try_into().map_err(|_| bad_storage(data))?;
        Ok(Ipv6Addr::from(b))
    }
}

impl ToColumn for Ipv6Addr {
    fn check_write(ty: &DataType) -> Result<(), String> {
        <Ipv6Addr as FromColumn<'static>>::check_plain(ty)
    }

    fn write(&self, _: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match col {
            ColumnData::Fixed { width: 16, data } => {
                data.extend_from_slice(&self.octets());
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    }
}

/// Any column, as a dynamic [`chwire_proto::Value`] borrowed from the block.
impl<'a> FromColumn<'a> for chwire_proto::Value<'a> {
    fn check_plain(_: &DataType) -> Result<(), String> {
        Ok(())
    }

    fn read_plain(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        Ok(chwire_proto::Value::at(ty, data, row))
    }

    fn check(_: &DataType) -> Result<(), String> {
        Ok(())
    }

    fn read(ty: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        Ok(chwire_proto::Value::at(ty, data, row))
    }
}
