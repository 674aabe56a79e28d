//! Columns: contiguous, Arrow-compatible buffers.
//!
//! * fixed-width values are a `Vec<T>` of the native type (decoding is one bulk copy);
//! * strings are `offsets` (N + 1 cumulative `u64`, starting at 0) plus one byte buffer;
//! * `Nullable` is a byte-per-row null map (1 = NULL, as on the wire) plus the inner column;
//! * `Array` is N + 1 offsets plus the inner column holding every element.
//!
//! A [`Column`] pairs the data with its [`DataType`]; the pairing is checked when a column is
//! built, so encoders can trust it.

mod codec;
mod value;

pub use codec::{decode_column, decode_sparse, encode_column, skip_or_read_custom_kind, SerializationKind};
pub use value::{uuid_from_wire, uuid_to_wire, Value};

use crate::error::EncodeError;
use crate::types::DataType;

#[cfg(target_endian = "big")]
compile_error!("chwire-proto copies little-endian wire data straight into native vectors; big-endian targets are not supported yet");

/// Strings (or any byte sequences): N + 1 offsets into one buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringColumn {
    offsets: Vec<u64>,
    data: Vec<u8>,
}

impl Default for StringColumn {
    fn default() -> Self {
        StringColumn { offsets: vec![0], data: Vec::new() }
    }
}

impl StringColumn {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        StringColumn { offsets, data: Vec::with_capacity(bytes) }
    }

    /// Build from parts, checking that offsets start at 0, never decrease and end at
    /// `data.len()`.
    pub fn try_from_parts(offsets: Vec<u64>, data: Vec<u8>) -> Result<Self, EncodeError> {
        check_offsets(&offsets, data.len()).map_err(EncodeError::Invalid)?;
        Ok(StringColumn { offsets, data })
    }

    #[inline]
    pub fn push(&mut self, v: impl AsRef<[u8]>) {
        self.data.extend_from_slice(v.as_ref());
        self.offsets.push(self.data.len() as u64);
    }

    /// Append one value given in parts (e.g. a prefix and digits), without a temporary.
    #[inline]
    pub fn push_parts(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.data.extend_from_slice(p);
        }
        self.offsets.push(self.data.len() as u64);
    }

    /// Remove every value, keeping the capacity.
    pub fn clear(&mut self) {
        self.offsets.truncate(1);
        self.data.clear();
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of row `i` (no copy). Panics if `i >= len()`, like slice indexing.
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Row `i` as UTF-8 text, if it is valid UTF-8.
    pub fn get_str(&self, i: usize) -> Option<&str> {
        std::str::from_utf8(self.get(i)).ok()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.offsets.windows(2).map(|w| &self.data[w[0] as usize..w[1] as usize])
    }

    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub fn into_parts(self) -> (Vec<u64>, Vec<u8>) {
        (self.offsets, self.data)
    }

    pub(crate) fn parts_mut(&mut self) -> (&mut Vec<u64>, &mut Vec<u8>) {
        (&mut self.offsets, &mut self.data)
    }
}

impl<S: AsRef<[u8]>> FromIterator<S> for StringColumn {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut c = StringColumn::new();
        for s in iter {
            c.push(s);
        }
        c
    }
}

/// Checks an offsets buffer: N + 1 entries, starting at 0, non-decreasing, ending at `len`.
pub(crate) fn check_offsets(offsets: &[u64], len: usize) -> Result<(), String> {
    if offsets.first() != Some(&0) {
        return Err("offsets must start with 0".into());
    }
    if offsets.windows(2).any(|w| w[1] < w[0]) {
        return Err("offsets must not decrease".into());
    }
    if *offsets.last().unwrap() != len as u64 {
        return Err(format!("last offset {} does not match the {} inner values", offsets.last().unwrap(), len));
    }
    Ok(())
}

/// `Nullable(T)`: null map (1 = NULL) plus the inner values (placeholders at NULL rows).
#[derive(Debug, Clone, PartialEq)]
pub struct NullableColumn {
    pub nulls: Vec<u8>,
    pub values: ColumnData,
}

/// `Array(T)`: N + 1 offsets (starting at 0) into `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayColumn {
    pub offsets: Vec<u64>,
    pub values: ColumnData,
}

impl ArrayColumn {
    /// The element range of row `i`.
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.offsets[i] as usize..self.offsets[i + 1] as usize
    }
}

/// The physical storage of a column.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ColumnData {
    /// UInt8, Bool
    UInt8(Vec<u8>),
    /// UInt16, Date
    UInt16(Vec<u16>),
    /// UInt32, DateTime
    UInt32(Vec<u32>),
    UInt64(Vec<u64>),
    /// Int8, Enum8
    Int8(Vec<i8>),
    /// Int16, Enum16
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    /// FixedString(N) and UUID (wire order): `width` bytes per row.
    Fixed {
        width: usize,
        data: Vec<u8>,
    },
    String(StringColumn),
    Nullable(Box<NullableColumn>),
    Array(Box<ArrayColumn>),
}

impl ColumnData {
    pub fn len(&self) -> usize {
        use ColumnData::*;
        match self {
            UInt8(v) => v.len(),
            UInt16(v) => v.len(),
            UInt32(v) => v.len(),
            UInt64(v) => v.len(),
            Int8(v) => v.len(),
            Int16(v) => v.len(),
            Int32(v) => v.len(),
            Int64(v) => v.len(),
            Float32(v) => v.len(),
            Float64(v) => v.len(),
            Fixed { width, data } => data.len() / *width,
            String(s) => s.len(),
            Nullable(n) => n.nulls.len(),
            Array(a) => a.offsets.len() - 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty column with the storage `ty` needs.
    pub fn empty_for(ty: &DataType) -> Result<ColumnData, EncodeError> {
        Self::with_capacity_for(ty, 0)
    }

    /// An empty column with room for `rows` rows (inner columns of arrays get no capacity).
    pub fn with_capacity_for(ty: &DataType, rows: usize) -> Result<ColumnData, EncodeError> {
        use DataType as T;
        Ok(match ty {
            T::UInt8 | T::Bool => ColumnData::UInt8(Vec::with_capacity(rows)),
            T::UInt16 | T::Date => ColumnData::UInt16(Vec::with_capacity(rows)),
            T::UInt32 | T::DateTime(_) => ColumnData::UInt32(Vec::with_capacity(rows)),
            T::UInt64 => ColumnData::UInt64(Vec::with_capacity(rows)),
            T::Int8 | T::Enum8(_) => ColumnData::Int8(Vec::with_capacity(rows)),
            T::Int16 | T::Enum16(_) => ColumnData::Int16(Vec::with_capacity(rows)),
            T::Int32 => ColumnData::Int32(Vec::with_capacity(rows)),
            T::Int64 => ColumnData::Int64(Vec::with_capacity(rows)),
            T::Float32 => ColumnData::Float32(Vec::with_capacity(rows)),
            T::Float64 => ColumnData::Float64(Vec::with_capacity(rows)),
            T::FixedString(n) => ColumnData::Fixed { width: *n, data: Vec::with_capacity(rows * n) },
            T::Uuid => ColumnData::Fixed { width: 16, data: Vec::with_capacity(rows * 16) },
            T::String => ColumnData::String(StringColumn::with_capacity(rows, 0)),
            T::Nullable(inner) => ColumnData::Nullable(Box::new(NullableColumn {
                nulls: Vec::with_capacity(rows),
                values: Self::with_capacity_for(inner, rows)?,
            })),
            T::Array(inner) => {
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                ColumnData::Array(Box::new(ArrayColumn { offsets, values: Self::empty_for(inner)? }))
            }
            T::Unsupported(name) => return Err(EncodeError::Invalid(format!("no column storage for type {name}"))),
        })
    }

    /// Checks that this storage fits `ty` and that nested lengths agree.
    pub fn check(&self, ty: &DataType) -> Result<(), String> {
        use ColumnData as D;
        use DataType as T;
        let ok = match (ty, self) {
            (T::UInt8 | T::Bool, D::UInt8(_))
            | (T::UInt16 | T::Date, D::UInt16(_))
            | (T::UInt32 | T::DateTime(_), D::UInt32(_))
            | (T::UInt64, D::UInt64(_))
            | (T::Int8, D::Int8(_))
            | (T::Int16, D::Int16(_))
            | (T::Int32, D::Int32(_))
            | (T::Int64, D::Int64(_))
            | (T::Float32, D::Float32(_))
            | (T::Float64, D::Float64(_))
            | (T::String, D::String(_)) => true,
            (T::Enum8(items), D::Int8(v)) => {
                if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                    return Err(format!("value {bad} is not an element of {ty}"));
                }
                true
            }
            (T::Enum16(items), D::Int16(v)) => {
                if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                    return Err(format!("value {bad} is not an element of {ty}"));
                }
                true
            }
            (T::FixedString(_) | T::Uuid, D::Fixed { width, data }) => {
                if Some(*width) != ty.fixed_width() {
                    return Err(format!("storage width {width} does not fit type {ty}"));
                }
                if data.len() % *width != 0 {
                    return Err(format!("{} bytes is not a multiple of the width {width}", data.len()));
                }
                true
            }
            (T::Nullable(inner), D::Nullable(n)) => {
                if inner.is_nullable() {
                    return Err("Nullable(Nullable(..)) is not a valid type".into());
                }
                n.values.check(inner)?;
                if n.nulls.len() != n.values.len() {
                    return Err(format!("null map has {} rows but the values have {}", n.nulls.len(), n.values.len()));
                }
                true
            }
            (T::Array(inner), D::Array(a)) => {
                a.values.check(inner)?;
                check_offsets(&a.offsets, a.values.len())?;
                true
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("storage {} does not fit type {ty}", self.kind_name()))
        }
    }

    fn kind_name(&self) -> &'static str {
        use ColumnData::*;
        match self {
            UInt8(_) => "UInt8",
            UInt16(_) => "UInt16",
            UInt32(_) => "UInt32",
            UInt64(_) => "UInt64",
            Int8(_) => "Int8",
            Int16(_) => "Int16",
            Int32(_) => "Int32",
            Int64(_) => "Int64",
            Float32(_) => "Float32",
            Float64(_) => "Float64",
            Fixed { .. } => "Fixed",
            String(_) => "String",
            Nullable(_) => "Nullable",
            Array(_) => "Array",
        }
    }
}

/// A column: its type and its data, known to agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    ty: DataType,
    data: ColumnData,
}

macro_rules! slice_accessor {
    ($name:ident, $variant:ident, $t:ty) => {
        #[doc = concat!("The values as `&[", stringify!($t), "]`, if the storage is `", stringify!($variant), "`.")]
        pub fn $name(&self) -> Option<&[$t]> {
            match &self.data {
                ColumnData::$variant(v) => Some(v),
                _ => None,
            }
        }
    };
}

impl Column {
    /// Pair `data` with `ty`, checking that they fit together.
    pub fn new(ty: DataType, data: ColumnData) -> Result<Column, EncodeError> {
        data.check(&ty).map_err(EncodeError::Invalid)?;
        Ok(Column { ty, data })
    }

    /// Like [`Column::new`], parsing the type name first.
    pub fn with_type_name(type_name: &str, data: ColumnData) -> Result<Column, EncodeError> {
        let ty = DataType::parse(type_name).map_err(|e| EncodeError::Invalid(e.to_string()))?;
        Column::new(ty, data)
    }

    /// For decoders, which build data from the type and need no check.
    pub(crate) fn from_trusted(ty: DataType, data: ColumnData) -> Column {
        Column { ty, data }
    }

    pub fn data_type(&self) -> &DataType {
        &self.ty
    }

    pub fn data(&self) -> &ColumnData {
        &self.data
    }

    pub fn into_parts(self) -> (DataType, ColumnData) {
        (self.ty, self.data)
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i` as a dynamic [`Value`]. Panics if `i >= len()`.
    pub fn value(&self, i: usize) -> Value<'_> {
        Value::at(&self.ty, &self.data, i)
    }

    slice_accessor!(as_u8, UInt8, u8);
    slice_accessor!(as_u16, UInt16, u16);
    slice_accessor!(as_u32, UInt32, u32);
    slice_accessor!(as_u64, UInt64, u64);
    slice_accessor!(as_i8, Int8, i8);
    slice_accessor!(as_i16, Int16, i16);
    slice_accessor!(as_i32, Int32, i32);
    slice_accessor!(as_i64, Int64, i64);
    slice_accessor!(as_f32, Float32, f32);
    slice_accessor!(as_f64, Float64, f64);

    pub fn as_strings(&self) -> Option<&StringColumn> {
        match &self.data {
            ColumnData::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_nullable(&self) -> Option<&NullableColumn> {
        match &self.data {
            ColumnData::Nullable(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&ArrayColumn> {
        match &self.data {
            ColumnData::Array(a) => Some(a),
            _ => None,
        }
    }
}

macro_rules! from_vec {
    ($t:ty, $variant:ident, $dt:ident) => {
        impl From<Vec<$t>> for Column {
            fn from(v: Vec<$t>) -> Column {
                Column { ty: DataType::$dt, data: ColumnData::$variant(v) }
            }
        }
    };
}
from_vec!(u8, UInt8, UInt8);
from_vec!(u16, UInt16, UInt16);
from_vec!(u32, UInt32, UInt32);
from_vec!(u64, UInt64, UInt64);
from_vec!(i8, Int8, Int8);
from_vec!(i16, Int16, Int16);
from_vec!(i32, Int32, Int32);
from_vec!(i64, Int64, Int64);
from_vec!(f32, Float32, Float32);
from_vec!(f64, Float64, Float64);

impl From<StringColumn> for Column {
    fn from(s: StringColumn) -> Column {
        Column { ty: DataType::String, data: ColumnData::String(s) }
    }
}

impl From<Vec<String>> for Column {
    fn from(v: Vec<String>) -> Column {
        StringColumn::from_iter(v).into()
    }
}

impl From<Vec<&str>> for Column {
    fn from(v: Vec<&str>) -> Column {
        StringColumn::from_iter(v).into()
    }
}

impl From<Vec<bool>> for Column {
    fn from(v: Vec<bool>) -> Column {
        Column { ty: DataType::Bool, data: ColumnData::UInt8(v.into_iter().map(u8::from).collect()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_column_parts() {
        let c: StringColumn = ["ab", "c", ""].into_iter().collect();
        assert_eq!(c.offsets(), &[0, 2, 3, 3]);
        assert_eq!(c.get(0), b"ab");
        assert_eq!(c.get(2), b"");
        assert!(StringColumn::try_from_parts(vec![0, 3, 2], b"abc".to_vec()).is_err());
        assert!(StringColumn::try_from_parts(vec![1, 3], b"abc".to_vec()).is_err());
        assert!(StringColumn::try_from_parts(vec![0, 4], b"abc".to_vec()).is_err());
    }

    #[test]
    fn checks_type_fit() {
        assert!(Column::new(DataType::UInt32, ColumnData::UInt64(vec![1])).is_err());
        assert!(Column::new(DataType::DateTime(None), ColumnData::UInt32(vec![1])).is_ok());
        assert!(Column::new(DataType::Enum8(vec![("a".into(), 1)]), ColumnData::Int8(vec![1, 2])).is_err());
        let bad_nullable = ColumnData::Nullable(Box::new(NullableColumn { nulls: vec![0, 1], values: ColumnData::UInt8(vec![1]) }));
        assert!(Column::new(DataType::Nullable(Box::new(DataType::UInt8)), bad_nullable).is_err());
        assert!(Column::new(DataType::FixedString(3), ColumnData::Fixed { width: 3, data: vec![0; 7] }).is_err());
        assert!(Column::new(DataType::FixedString(3), ColumnData::Fixed { width: 2, data: vec![0; 6] }).is_err());
        assert!(Column::new(DataType::Uuid, ColumnData::Fixed { width: 16, data: vec![0; 32] }).is_ok());
    }
}
