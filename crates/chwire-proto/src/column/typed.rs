//! [`Column`]: a type paired with its data, checked to agree.

use super::*;

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

    /// The column's type.
    pub fn data_type(&self) -> &DataType {
        &self.ty
    }

    /// The column's storage.
    pub fn data(&self) -> &ColumnData {
        &self.data
    }

    /// The type and the storage, by value.
    pub fn into_parts(self) -> (DataType, ColumnData) {
        (self.ty, self.data)
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no rows.
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
    slice_accessor!(as_u128, UInt128, u128);
    slice_accessor!(as_i128, Int128, i128);

    /// The storage as strings, if it is `String`.
    pub fn as_strings(&self) -> Option<&StringColumn> {
        match &self.data {
            ColumnData::String(s) => Some(s),
            _ => None,
        }
    }

    /// The storage as `Nullable`, if it is.
    pub fn as_nullable(&self) -> Option<&NullableColumn> {
        match &self.data {
            ColumnData::Nullable(n) => Some(n),
            _ => None,
        }
    }

    /// The storage as an array, if it is `Array` (Array and Map types).
    pub fn as_array(&self) -> Option<&ArrayColumn> {
        match &self.data {
            ColumnData::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Builders of composite columns from typed parts.
impl Column {
    /// `Nullable(T)` from a column of T (placeholder values at NULL rows) and a NULL flag per row.
    pub fn nullable(values: Column, nulls: &[bool]) -> Result<Column, EncodeError> {
        let (ty, data) = values.into_parts();
        Column::new(
            DataType::Nullable(Box::new(ty)),
            ColumnData::Nullable(Box::new(NullableColumn { nulls: nulls.iter().map(|&n| u8::from(n)).collect(), values: data })),
        )
    }

    /// `Array(T)`: row `i` holds the next `lengths[i]` values of `values`.
    pub fn array(lengths: &[usize], values: Column) -> Result<Column, EncodeError> {
        let (ty, data) = values.into_parts();
        Column::new(
            DataType::Array(Box::new(ty)),
            ColumnData::Array(Box::new(ArrayColumn { offsets: offsets_from_lengths(lengths), values: data })),
        )
    }

    /// `Map(K, V)`: row `i` holds the next `lengths[i]` key/value pairs.
    pub fn map(lengths: &[usize], keys: Column, values: Column) -> Result<Column, EncodeError> {
        let (kt, kd) = keys.into_parts();
        let (vt, vd) = values.into_parts();
        let rows = kd.len();
        Column::new(
            DataType::Map(Box::new(kt), Box::new(vt)),
            ColumnData::Array(Box::new(ArrayColumn {
                offsets: offsets_from_lengths(lengths),
                values: ColumnData::Tuple(TupleColumn { rows, elements: vec![kd, vd] }),
            })),
        )
    }

    /// `Tuple(...)` from element columns of equal length (named when every name is given).
    pub fn tuple(elements: Vec<(Option<String>, Column)>) -> Result<Column, EncodeError> {
        let rows = elements.first().map_or(0, |(_, c)| c.len());
        let (types, data): (Vec<_>, Vec<_>) = elements
            .into_iter()
            .map(|(n, c)| {
                let (t, d) = c.into_parts();
                ((n, t), d)
            })
            .unzip();
        Column::new(DataType::Tuple(types), ColumnData::Tuple(TupleColumn { rows, elements: data }))
    }

    /// `LowCardinality(String)`, or `LowCardinality(Nullable(String))` when `nullable`
    /// (`None` is NULL), deduplicated into a dictionary.
    pub fn low_cardinality_strings<'a>(values: impl IntoIterator<Item = Option<&'a [u8]>>, nullable: bool) -> Column {
        let inner = if nullable { DataType::Nullable(Box::new(DataType::String)) } else { DataType::String };
        Column {
            ty: DataType::LowCardinality(Box::new(inner)),
            data: ColumnData::LowCardinality(Box::new(LowCardinalityColumn::from_strings(values, nullable))),
        }
    }
}

fn offsets_from_lengths(lengths: &[usize]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for &l in lengths {
        total += l as u64;
        offsets.push(total);
    }
    offsets
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
from_vec!(u128, UInt128, UInt128);
from_vec!(i128, Int128, Int128);

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
