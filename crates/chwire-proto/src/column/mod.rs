//! Columns: contiguous, Arrow-compatible buffers.
//!
//! * fixed-width values are a `Vec<T>` of the native type (decoding is one bulk copy);
//! * strings are `offsets` (N + 1 cumulative `u64`, starting at 0) plus one byte buffer;
//! * `Nullable` is a byte-per-row null map (1 = NULL, as on the wire) plus the inner column;
//! * `Array` is N + 1 offsets plus the inner column holding every element.
//!
//! A [`Column`] pairs the data with its [`DataType`]; the pairing is checked when a column is
//! built, so encoders can trust it.

mod aggregate;
mod binary;
mod build;
mod codec;
mod qbit;
mod value;

pub use binary::{decode_type as decode_binary_type, encode_type as encode_binary_type, BinaryValues};
pub use build::{encode_low_cardinality, finish_dynamic};
pub use codec::{
    decode_body, decode_column, decode_sparse, encode_column, encode_column_of, read_prefix, skip_or_read_custom_kind, write_prefix_of,
    Prefix, SerializationKind,
};
pub use value::{decimal256_to_string, decimal_to_string, int256_to_string, uuid_from_wire, uuid_to_wire, Value};

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
    /// FixedString(N), UUID and IPv6 (wire order), (U)Int256 and Decimal256 (little-endian):
    /// `width` bytes per row.
    Fixed {
        width: usize,
        data: Vec<u8>,
    },
    String(StringColumn),
    Nullable(Box<NullableColumn>),
    /// Array, and Map (an array of `Tuple(key, value)`).
    Array(Box<ArrayColumn>),
    UInt128(Vec<u128>),
    /// Int128, Decimal128
    Int128(Vec<i128>),
    /// One column per element, all of `rows` rows.
    Tuple(TupleColumn),
    LowCardinality(Box<LowCardinalityColumn>),
    Variant(Box<VariantColumn>),
    Dynamic(Box<DynamicColumn>),
    Json(Box<JsonColumn>),
    /// `AggregateFunction`: each row's state as opaque bytes (written back to back on the wire).
    AggregateState(StringColumn),
}

/// `JSON`: typed paths (one column each, in the type's sorted order), dynamic paths (a
/// Dynamic column each, sorted by path) and the shared data of paths beyond
/// `max_dynamic_paths` (`Array(Tuple(path String, value String))`, binary-encoded values,
/// decoded in `shared_values`). With the STRING serialization only `text` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonColumn {
    pub version: u64,
    pub rows: usize,
    pub text: Option<StringColumn>,
    pub typed: Vec<ColumnData>,
    pub dynamic: Vec<(String, DynamicColumn)>,
    pub shared: Option<ColumnData>,
    /// Version 0's `max_dynamic_paths` field, as received.
    pub max_dynamic_paths: Option<u64>,
    /// The shared data's values decoded, one per element of `shared` (empty without shared data).
    pub shared_values: BinaryValues,
}

impl JsonColumn {
    /// The shared data's paths (the first element of `shared`'s tuples), if any.
    pub fn shared_paths(&self) -> Option<(&[u64], &StringColumn)> {
        match &self.shared {
            Some(ColumnData::Array(a)) => match &a.values {
                ColumnData::Tuple(t) => match t.elements.first() {
                    Some(ColumnData::String(paths)) => Some((&a.offsets, paths)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// Checks that the decoded shared values match the shared data.
    fn check_shared(&self) -> Result<(), String> {
        let n = self.shared_paths().map_or(0, |(_, p)| p.len());
        if self.shared_values.len() != n {
            return Err(format!("{} decoded shared values for {n} shared paths", self.shared_values.len()));
        }
        if let Some((_, paths)) = self.shared_paths() {
            if paths.iter().any(|p| std::str::from_utf8(p).is_err()) {
                return Err("a JSON shared data path is not UTF-8".into());
            }
        }
        Ok(())
    }
}

/// `Dynamic`: the types this block holds (from the column's prefix) and the rows as a
/// variant of them. `shared` is the position of ClickHouse's `SharedVariant` (values of
/// types beyond `max_types`, kept binary-encoded as strings), when the block has one; its
/// values decoded are `shared_values`.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicColumn {
    pub types: Vec<DataType>,
    pub shared: Option<usize>,
    pub values: VariantColumn,
    /// The serialization version it arrived in (re-encoded the same way).
    pub version: u64,
    /// Version 1's `max_dynamic_types` field, as received.
    pub max_types: Option<u64>,
    /// The SharedVariant's values decoded, one per row of its column (empty without one).
    pub shared_values: BinaryValues,
}

impl DynamicColumn {
    /// Checks the columns against the types, and the decoded shared values against the
    /// SharedVariant's column.
    fn check(&self) -> Result<(), String> {
        self.values.check_types(&self.types)?;
        let n = match self.shared {
            Some(s) => match self.values.variants.get(s) {
                Some(ColumnData::String(c)) => c.len(),
                _ => return Err("SharedVariant must be a String column".into()),
            },
            None => 0,
        };
        if self.shared_values.len() != n {
            return Err(format!("{} decoded shared values for {n} SharedVariant rows", self.shared_values.len()));
        }
        Ok(())
    }
}

/// `Variant(T...)` in the layout of an Arrow dense union: per row a discriminator (the
/// index of its type, [`VariantColumn::NULL`] for NULL) and its position in that type's column.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantColumn {
    pub discriminators: Vec<u8>,
    pub offsets: Vec<u32>,
    pub variants: Vec<ColumnData>,
}

impl VariantColumn {
    pub const NULL: u8 = 255;

    /// Build from discriminators and the per-type columns, computing the offsets; checks
    /// that every type's column has as many rows as discriminators point at it.
    pub fn try_new(discriminators: Vec<u8>, variants: Vec<ColumnData>) -> Result<VariantColumn, String> {
        let offsets = Self::offsets_of(&discriminators, &variants)?;
        Ok(VariantColumn { discriminators, offsets, variants })
    }

    /// Each row's position in its type's column, and the number of rows of each type;
    /// checks that every discriminator names one of `n_types` types (or NULL).
    pub(crate) fn layout(discriminators: &[u8], n_types: usize) -> Result<(Vec<u32>, Vec<u32>), String> {
        let mut counts = vec![0u32; n_types];
        let mut offsets = Vec::with_capacity(discriminators.len());
        for &d in discriminators {
            if d == Self::NULL {
                offsets.push(0);
                continue;
            }
            let c = counts.get_mut(d as usize).ok_or_else(|| format!("discriminator {d} for a variant of {n_types} types"))?;
            offsets.push(*c);
            *c += 1;
        }
        Ok((offsets, counts))
    }

    /// [`VariantColumn::layout`], plus a check that each type's column has its rows.
    fn offsets_of(discriminators: &[u8], variants: &[ColumnData]) -> Result<Vec<u32>, String> {
        let (offsets, counts) = Self::layout(discriminators, variants.len())?;
        for (i, (c, v)) in counts.iter().zip(variants).enumerate() {
            if *c as usize != v.len() {
                return Err(format!("variant {i} has {} rows, the discriminators point at {c}", v.len()));
            }
        }
        Ok(offsets)
    }

    /// Checks the columns against `types` and that the offsets are the ones the
    /// discriminators imply.
    pub(crate) fn check_types(&self, types: &[DataType]) -> Result<(), String> {
        if types.len() != self.variants.len() {
            return Err(format!("{} variant columns for {} types", self.variants.len(), types.len()));
        }
        for (t, c) in types.iter().zip(&self.variants) {
            c.check(t)?;
        }
        if Self::offsets_of(&self.discriminators, &self.variants)? != self.offsets {
            return Err("variant offsets do not follow the discriminators".into());
        }
        Ok(())
    }
}

/// A tuple's element columns (a tuple without elements still has rows).
#[derive(Debug, Clone, PartialEq)]
pub struct TupleColumn {
    pub rows: usize,
    pub elements: Vec<ColumnData>,
}

/// Indexes into a LowCardinality dictionary, at the width the writer chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LcKeys {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl LcKeys {
    pub fn len(&self) -> usize {
        match self {
            LcKeys::U8(v) => v.len(),
            LcKeys::U16(v) => v.len(),
            LcKeys::U32(v) => v.len(),
            LcKeys::U64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dictionary index of row `i`.
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        match self {
            LcKeys::U8(v) => v[i] as usize,
            LcKeys::U16(v) => v[i] as usize,
            LcKeys::U32(v) => v[i] as usize,
            LcKeys::U64(v) => v[i] as usize,
        }
    }

    pub(crate) fn max(&self) -> Option<u64> {
        match self {
            LcKeys::U8(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U16(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U32(v) => v.iter().max().map(|&x| x.into()),
            LcKeys::U64(v) => v.iter().max().copied(),
        }
    }
}

/// `LowCardinality(T)`: a dictionary of distinct values (of `T` without `Nullable`; for
/// `LowCardinality(Nullable(T))` entry 0 stands for NULL) and one index per row — the shape
/// of an Arrow dictionary array.
#[derive(Debug, Clone, PartialEq)]
pub struct LowCardinalityColumn {
    pub dictionary: ColumnData,
    pub keys: LcKeys,
}

impl LowCardinalityColumn {
    /// Build `LowCardinality(String)` (or `LowCardinality(Nullable(String))` with `nullable`,
    /// where `None` is NULL) from values, deduplicating them into the dictionary. Entry 0 is
    /// the default value (for Nullable: NULL, then the default), as ClickHouse lays it out;
    /// keys take the narrowest width the dictionary allows.
    pub fn from_strings<'a, I>(values: I, nullable: bool) -> LowCardinalityColumn
    where
        I: IntoIterator<Item = Option<&'a [u8]>>,
    {
        let mut plain = StringColumn::new();
        let mut nulls = Vec::new();
        for v in values {
            nulls.push(u8::from(v.is_none()));
            plain.push(v.unwrap_or_default());
        }
        let data = if nullable {
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::String(plain) }))
        } else {
            ColumnData::String(plain)
        };
        LowCardinalityColumn::from_plain(data, nullable).expect("String dictionaries are supported")
    }
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
            UInt128(v) => v.len(),
            Int128(v) => v.len(),
            Tuple(t) => t.rows,
            LowCardinality(l) => l.keys.len(),
            Variant(v) => v.discriminators.len(),
            Dynamic(d) => d.values.discriminators.len(),
            Json(j) => j.rows,
            AggregateState(s) => s.len(),
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
        use crate::types::Physical as P;
        Ok(match ty.physical() {
            P::U8 => ColumnData::UInt8(Vec::with_capacity(rows)),
            P::U16 => ColumnData::UInt16(Vec::with_capacity(rows)),
            P::U32 => ColumnData::UInt32(Vec::with_capacity(rows)),
            P::U64 => ColumnData::UInt64(Vec::with_capacity(rows)),
            P::U128 => ColumnData::UInt128(Vec::with_capacity(rows)),
            P::I8 => ColumnData::Int8(Vec::with_capacity(rows)),
            P::I16 => ColumnData::Int16(Vec::with_capacity(rows)),
            P::I32 => ColumnData::Int32(Vec::with_capacity(rows)),
            P::I64 => ColumnData::Int64(Vec::with_capacity(rows)),
            P::I128 => ColumnData::Int128(Vec::with_capacity(rows)),
            P::F32 => ColumnData::Float32(Vec::with_capacity(rows)),
            P::F64 => ColumnData::Float64(Vec::with_capacity(rows)),
            P::Fixed(n) => ColumnData::Fixed { width: n, data: Vec::with_capacity(rows * n) },
            P::String => ColumnData::String(StringColumn::with_capacity(rows, 0)),
            P::Nullable => {
                let DataType::Nullable(inner) = ty else { unreachable!() };
                ColumnData::Nullable(Box::new(NullableColumn {
                    nulls: Vec::with_capacity(rows),
                    values: Self::with_capacity_for(inner, rows)?,
                }))
            }
            P::Array | P::Map => {
                let values = match ty {
                    DataType::Array(inner) => Self::empty_for(inner)?,
                    DataType::Map(k, v) => {
                        ColumnData::Tuple(TupleColumn { rows: 0, elements: vec![Self::empty_for(k)?, Self::empty_for(v)?] })
                    }
                    _ => unreachable!(),
                };
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
            }
            P::Tuple => {
                let DataType::Tuple(items) = ty else { unreachable!() };
                ColumnData::Tuple(TupleColumn {
                    rows: 0,
                    elements: items.iter().map(|(_, t)| Self::with_capacity_for(t, rows)).collect::<Result<_, _>>()?,
                })
            }
            P::LowCardinality => {
                let DataType::LowCardinality(inner) = ty else { unreachable!() };
                ColumnData::LowCardinality(Box::new(LowCardinalityColumn {
                    dictionary: Self::empty_for(inner.strip_nullable())?,
                    keys: LcKeys::U8(Vec::with_capacity(rows)),
                }))
            }
            P::Variant => {
                let DataType::Variant(types) = ty else { unreachable!() };
                ColumnData::Variant(Box::new(VariantColumn {
                    discriminators: Vec::with_capacity(rows),
                    offsets: Vec::with_capacity(rows),
                    variants: types.iter().map(Self::empty_for).collect::<Result<_, _>>()?,
                }))
            }
            P::Dynamic => ColumnData::Dynamic(Box::new(DynamicColumn {
                types: Vec::new(),
                shared: None,
                values: VariantColumn { discriminators: Vec::with_capacity(rows), offsets: Vec::with_capacity(rows), variants: Vec::new() },
                version: 2,
                max_types: None,
                shared_values: BinaryValues::default(),
            })),
            P::Json => {
                let DataType::Json { typed, .. } = ty else { unreachable!() };
                ColumnData::Json(Box::new(JsonColumn {
                    version: 2,
                    rows: 0,
                    text: None,
                    typed: typed.iter().map(|(_, t)| Self::with_capacity_for(t, rows)).collect::<Result<_, _>>()?,
                    dynamic: Vec::new(),
                    shared: None,
                    max_dynamic_paths: None,
                    shared_values: BinaryValues::default(),
                }))
            }
            P::AggregateFunction => ColumnData::AggregateState(StringColumn::with_capacity(rows, 0)),
            P::Alias => Self::with_capacity_for(&ty.storage().expect("alias types have storage"), rows)?,
            P::Unsupported => return Err(EncodeError::Invalid(format!("no column storage for type {ty}"))),
        })
    }

    /// Checks that this storage fits `ty` and that nested lengths agree.
    pub fn check(&self, ty: &DataType) -> Result<(), String> {
        use crate::types::Physical as P;
        use ColumnData as D;
        let ok = match (ty.physical(), self) {
            (P::U8, D::UInt8(_))
            | (P::U16, D::UInt16(_))
            | (P::U32, D::UInt32(_))
            | (P::U64, D::UInt64(_))
            | (P::U128, D::UInt128(_))
            | (P::I8, D::Int8(_))
            | (P::I16, D::Int16(_))
            | (P::I32, D::Int32(_))
            | (P::I64, D::Int64(_))
            | (P::I128, D::Int128(_))
            | (P::F32, D::Float32(_))
            | (P::F64, D::Float64(_))
            | (P::String, D::String(_)) => true,
            (P::Fixed(n), D::Fixed { width, data }) => {
                if *width != n {
                    return Err(format!("storage width {width} does not fit type {ty}"));
                }
                if data.len() % n != 0 {
                    return Err(format!("{} bytes is not a multiple of the width {width}", data.len()));
                }
                true
            }
            (P::Nullable, D::Nullable(n)) => {
                let DataType::Nullable(inner) = ty else { unreachable!() };
                if inner.is_nullable() {
                    return Err("Nullable(Nullable(..)) is not a valid type".into());
                }
                n.values.check(inner)?;
                if n.nulls.len() != n.values.len() {
                    return Err(format!("null map has {} rows but the values have {}", n.nulls.len(), n.values.len()));
                }
                true
            }
            (P::Array, D::Array(a)) => {
                let DataType::Array(inner) = ty else { unreachable!() };
                a.values.check(inner)?;
                check_offsets(&a.offsets, a.values.len())?;
                true
            }
            (P::Map, D::Array(a)) => {
                let DataType::Map(k, v) = ty else { unreachable!() };
                a.values.check(&DataType::Tuple(vec![(None, (**k).clone()), (None, (**v).clone())]))?;
                check_offsets(&a.offsets, a.values.len())?;
                true
            }
            (P::Tuple, D::Tuple(t)) => {
                let DataType::Tuple(items) = ty else { unreachable!() };
                if items.len() != t.elements.len() {
                    return Err(format!("{} tuple elements for type {ty}", t.elements.len()));
                }
                for ((_, ity), e) in items.iter().zip(&t.elements) {
                    e.check(ity)?;
                    if e.len() != t.rows {
                        return Err(format!("tuple element has {} rows, the tuple {}", e.len(), t.rows));
                    }
                }
                true
            }
            (P::LowCardinality, D::LowCardinality(l)) => {
                let DataType::LowCardinality(inner) = ty else { unreachable!() };
                l.dictionary.check(inner.strip_nullable())?;
                if let Some(max) = l.keys.max() {
                    if max >= l.dictionary.len() as u64 {
                        return Err(format!("index {max} is outside the dictionary of {} values", l.dictionary.len()));
                    }
                }
                true
            }
            (P::Variant, D::Variant(v)) => {
                let DataType::Variant(types) = ty else { unreachable!() };
                v.check_types(types)?;
                true
            }
            (P::Dynamic, D::Dynamic(d)) => {
                d.check()?;
                true
            }
            (P::AggregateFunction, D::AggregateState(s)) => {
                let DataType::AggregateFunction(f) = ty else { unreachable!() };
                aggregate::check_states(f, s)?;
                true
            }
            (P::Json, D::Json(j)) => {
                let DataType::Json { typed, .. } = ty else { unreachable!() };
                if j.text.is_none() {
                    if typed.len() != j.typed.len() {
                        return Err(format!("{} typed path columns for type {ty}", j.typed.len()));
                    }
                    for ((_, t), c) in typed.iter().zip(&j.typed) {
                        c.check(t)?;
                        if c.len() != j.rows {
                            return Err("a JSON typed path has the wrong number of rows".into());
                        }
                    }
                    for (_, d) in &j.dynamic {
                        d.check()?;
                        if d.values.discriminators.len() != j.rows {
                            return Err("a JSON dynamic path has the wrong number of rows".into());
                        }
                    }
                    j.check_shared()?;
                }
                true
            }
            (P::Alias, _) => return self.check(&ty.storage().expect("alias types have storage")),
            _ => false,
        };
        if let (DataType::Enum8(items), D::Int8(v)) = (ty, self) {
            if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                return Err(format!("value {bad} is not an element of {ty}"));
            }
        }
        if let (DataType::Enum16(items), D::Int16(v)) = (ty, self) {
            if let Some(bad) = v.iter().find(|x| !items.iter().any(|(_, e)| e == *x)) {
                return Err(format!("value {bad} is not an element of {ty}"));
            }
        }
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
            UInt128(_) => "UInt128",
            Int128(_) => "Int128",
            Tuple(_) => "Tuple",
            LowCardinality(_) => "LowCardinality",
            Variant(_) => "Variant",
            Dynamic(_) => "Dynamic",
            Json(_) => "JSON",
            AggregateState(_) => "AggregateFunction",
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
    slice_accessor!(as_u128, UInt128, u128);
    slice_accessor!(as_i128, Int128, i128);

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
    fn low_cardinality_from_strings() {
        let lc = LowCardinalityColumn::from_strings([Some(&b"a"[..]), None, Some(b"b"), Some(b"a"), Some(b"")], true);
        let col =
            Column::new(DataType::parse("LowCardinality(Nullable(String))").unwrap(), ColumnData::LowCardinality(Box::new(lc))).unwrap();
        let got: Vec<Value<'_>> = (0..5).map(|i| col.value(i)).collect();
        assert_eq!(got, [Value::String(b"a"), Value::Null, Value::String(b"b"), Value::String(b"a"), Value::String(b"")]);
        let many = LowCardinalityColumn::from_strings(
            (0..1000).map(|i| i.to_string()).collect::<Vec<_>>().iter().map(|s| Some(s.as_bytes())),
            false,
        );
        assert!(matches!(many.keys, LcKeys::U16(_)));
        assert_eq!(many.dictionary.len(), 1001);
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
