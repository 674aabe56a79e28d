//! ClickHouse data types: a tree parsed once per column header, and printed back in the
//! server's canonical spelling.

use crate::error::DecodeError;
use std::fmt;

mod display;
mod parse;
mod server;
#[cfg(test)]
mod tests;

pub(crate) use display::quoted;
pub use parse::MAX_TYPE_DEPTH;
pub use server::ServerTypes;

/// A ClickHouse data type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// `UInt8`, stored as `u8`.
    UInt8,
    /// `UInt16`, stored as `u16`.
    UInt16,
    /// `UInt32`, stored as `u32`.
    UInt32,
    /// `UInt64`, stored as `u64`.
    UInt64,
    /// `Int8`, stored as `i8`.
    Int8,
    /// `Int16`, stored as `i16`.
    Int16,
    /// `Int32`, stored as `i32`.
    Int32,
    /// `Int64`, stored as `i64`.
    Int64,
    /// `Float32`, stored as `f32`.
    Float32,
    /// `Float64`, stored as `f64`.
    Float64,
    /// `Bool`: one byte per row, 0 or 1.
    Bool,
    /// `String`: arbitrary bytes, not necessarily UTF-8.
    String,
    /// `FixedString(N)`: exactly N bytes per row, zero-padded.
    FixedString(usize),
    /// `UUID`: 16 bytes per row, in wire order (each half of the canonical bytes as a
    /// little-endian `u64`).
    Uuid,
    /// Days since 1970-01-01 as UInt16.
    Date,
    /// `DateTime` or `DateTime('tz')`.
    DateTime(Option<String>),
    /// `Enum8('a' = 1, ...)`: the names and their Int8 values, in value order.
    Enum8(Vec<(String, i8)>),
    /// `Enum16('a' = 1, ...)`: the names and their Int16 values, in value order.
    Enum16(Vec<(String, i16)>),
    /// `Nullable(T)`: a null map (one byte per row, 1 = NULL) plus the values of T.
    Nullable(Box<DataType>),
    /// `Array(T)`: one end offset per row plus the elements of all rows.
    Array(Box<DataType>),
    /// `UInt128`, stored as `u128`.
    UInt128,
    /// `UInt256`: 32 little-endian bytes per row.
    UInt256,
    /// `Int128`, stored as `i128`.
    Int128,
    /// `Int256`: 32 little-endian bytes per row (two's complement).
    Int256,
    /// The upper 16 bits of a Float32.
    BFloat16,
    /// `Decimal(P, S)`: an integer of value × 10^S, 32/64/128/256 bits by precision.
    Decimal {
        /// Total digits, 1..=76.
        precision: u8,
        /// Digits after the point, 0..=precision.
        scale: u8,
    },
    /// Days since 1970-01-01 as Int32.
    Date32,
    /// Ticks of 10^-precision seconds since the epoch, as Int64.
    DateTime64 {
        /// Digits of sub-second precision, 0..=9 (3 = milliseconds).
        precision: u8,
        /// The timezone of `DateTime64(P, 'tz')`; `None` for the server's or session's.
        tz: Option<String>,
    },
    /// Seconds as Int32 (may be negative or above a day).
    Time,
    /// Ticks of 10^-precision seconds as Int64.
    Time64(u8),
    /// `IPv4`: a UInt32 per row.
    Ipv4,
    /// `IPv6`: 16 bytes per row, network order.
    Ipv6,
    /// Elements, named (`Tuple(a UInt8, b String)`) or not.
    Tuple(Vec<(Option<String>, DataType)>),
    /// Stored as `Array(Tuple(K, V))`.
    Map(Box<DataType>, Box<DataType>),
    /// A dictionary of values of the inner type plus one index per row.
    LowCardinality(Box<DataType>),
    /// `Nested(a T, b U)` with flatten_nested = 0: stored as `Array(Tuple(a T, b U))`.
    Nested(Vec<(String, DataType)>),
    /// Point, MultiPoint, Ring, LineString, MultiLineString, Polygon, MultiPolygon.
    Geo(GeoKind),
    /// Stored as its value type.
    SimpleAggregateFunction {
        /// The aggregate function, e.g. `sum` or `anyLast`.
        function: String,
        /// The value type the column is stored as.
        ty: Box<DataType>,
    },
    /// `IntervalSecond` etc.: Int64 counts of the unit.
    Interval(IntervalKind),
    /// The type of `NULL` and `[]`: one placeholder byte per row.
    Nothing,
    /// `JSON(...)`: typed paths (`typed`, sorted by path, each path once) plus dynamic paths;
    /// `args` keeps the parameters in the server's order, to print the name back as it was
    /// (a typed path there is its name only: holding its type twice made a type nested n
    /// levels deep 2^n nodes, and a 200-byte name took gigabytes).
    Json {
        /// Typed paths and their types, sorted by path.
        typed: Vec<(String, DataType)>,
        /// The type's parameters, in the server's order.
        args: Vec<JsonArg>,
    },
    /// `Dynamic` or `Dynamic(max_types = N)`: each row holds a value of any type.
    Dynamic {
        /// The `max_types` parameter, when given.
        max_types: Option<u32>,
    },
    /// `Variant(T1, ...)`: each row holds a value of one of the types, or NULL. The server
    /// lists the types sorted by name; a row's discriminator is the index in this list.
    Variant(Vec<DataType>),
    /// `AggregateFunction(f, T...)`: one opaque state of `f` per row, kept as bytes.
    AggregateFunction(Box<AggregateFunctionType>),
    /// `QBit(element, dimension)`: vectors of BFloat16/Float32/Float64 stored bit-transposed,
    /// as one `FixedString(ceil(dimension / 8))` bit plane per bit of the element type.
    QBit {
        /// The element type: `BFloat16`, `Float32` or `Float64`.
        element: Box<DataType>,
        /// The number of elements per vector.
        dimension: usize,
    },
    /// `Geometry`: a Variant of the geometry types (see [`GEOMETRY_VARIANTS`]).
    Geometry,
    /// Types that parse but have no column codec yet; decoding them is an
    /// [`DecodeError::UnsupportedType`] naming the type.
    Unsupported(String),
}

/// The parts of an `AggregateFunction(...)` type name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AggregateFunctionType {
    /// The state version, when the name carries one (`AggregateFunction(1, sumMap, ...)`).
    pub version: Option<u64>,
    /// The function with its combinators, e.g. `sum`, `uniqExactIf`.
    pub function: String,
    /// The function's parameters as the server prints them (`groupArray(10)` has `["10"]`).
    pub params: Vec<String>,
    /// The argument types.
    pub args: Vec<DataType>,
}

impl fmt::Display for AggregateFunctionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AggregateFunction(")?;
        if let Some(v) = self.version {
            write!(f, "{v}, ")?;
        }
        f.write_str(&self.function)?;
        if !self.params.is_empty() {
            write!(f, "({})", self.params.join(", "))?;
        }
        for a in &self.args {
            write!(f, ", {a}")?;
        }
        f.write_str(")")
    }
}

/// The geometry types of `Geometry`, in the order of its variant discriminators (ClickHouse
/// 26.9 keeps `MultiPoint`, added later, after the six it had before).
pub const GEOMETRY_VARIANTS: [GeoKind; 7] = [
    GeoKind::LineString,
    GeoKind::MultiLineString,
    GeoKind::MultiPolygon,
    GeoKind::Point,
    GeoKind::Polygon,
    GeoKind::Ring,
    GeoKind::MultiPoint,
];

/// Sort a JSON type's typed paths by path (as [`DataType::Json`] keeps them); `Err` with the
/// path when one is given twice. Both the name parser and the binary decoder use it.
pub(crate) fn sort_typed_paths(typed: &mut [(String, DataType)]) -> Result<(), &str> {
    typed.sort_by(|a, b| a.0.cmp(&b.0));
    match typed.iter().zip(typed.iter().skip(1)).find(|((a, _), (b, _))| a == b) {
        Some(((p, _), _)) => Err(p),
        None => Ok(()),
    }
}

/// Put an Enum's elements in value order (as the server prints them) and check them as
/// ClickHouse's `EnumValues` does: at least one element, no name and no value twice (the
/// server refuses such a type: a repeated value would make the rows' names ambiguous, a
/// repeated name the text parser's). `Err` says what is wrong. Both the name parser and the
/// binary decoder use it.
pub(crate) fn check_enum<V: Copy + Ord + fmt::Display>(items: &mut [(String, V)]) -> Result<(), String> {
    if items.is_empty() {
        return Err("an Enum cannot be empty".into());
    }
    items.sort_by_key(|(_, v)| *v);
    if let Some(((a, v), (b, _))) = items.iter().zip(items.iter().skip(1)).find(|((_, x), (_, y))| x == y) {
        return Err(format!("duplicate values in enum: {} = {v} and {} = {v}", quoted(b), quoted(a)));
    }
    let mut names: Vec<(&str, V)> = items.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    names.sort_unstable();
    if let Some(((n, x), (_, y))) = names.iter().zip(names.iter().skip(1)).find(|((a, _), (b, _))| a == b) {
        return Err(format!("duplicate names in enum: {} = {x} and {} = {y}", quoted(n), quoted(n)));
    }
    Ok(())
}

/// A parameter of a `JSON(...)` type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonArg {
    /// A typed path: `a.b UInt32`; its type is the path's in `typed`.
    Path(String),
    /// `max_dynamic_paths=N`, `max_dynamic_types=N`.
    Param(String, String),
    /// `SKIP path`: a path the server leaves out when it parses JSON.
    Skip(String),
    /// `SKIP REGEXP 'pattern'`: paths matching it are left out likewise.
    SkipRegexp(String),
}

/// The geometry types and their storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeoKind {
    /// `Point`: `Tuple(Float64, Float64)`.
    Point,
    /// `MultiPoint`: `Array(Point)`.
    MultiPoint,
    /// `Ring`: `Array(Point)`.
    Ring,
    /// `LineString`: `Array(Point)`.
    LineString,
    /// `MultiLineString`: `Array(LineString)`.
    MultiLineString,
    /// `Polygon`: `Array(Ring)`.
    Polygon,
    /// `MultiPolygon`: `Array(Polygon)`.
    MultiPolygon,
}

impl GeoKind {
    /// The type's name, e.g. `MultiPolygon`.
    pub fn name(self) -> &'static str {
        match self {
            GeoKind::Point => "Point",
            GeoKind::MultiPoint => "MultiPoint",
            GeoKind::Ring => "Ring",
            GeoKind::LineString => "LineString",
            GeoKind::MultiLineString => "MultiLineString",
            GeoKind::Polygon => "Polygon",
            GeoKind::MultiPolygon => "MultiPolygon",
        }
    }

    /// The structural type the values are stored as.
    pub fn storage(self) -> DataType {
        let point = || DataType::Tuple(vec![(None, DataType::Float64), (None, DataType::Float64)]);
        let arr = |t: DataType| DataType::Array(Box::new(t));
        match self {
            GeoKind::Point => point(),
            GeoKind::Ring | GeoKind::LineString | GeoKind::MultiPoint => arr(point()),
            GeoKind::MultiLineString | GeoKind::Polygon => arr(arr(point())),
            GeoKind::MultiPolygon => arr(arr(arr(point()))),
        }
    }
}

/// Interval units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalKind {
    /// `IntervalNanosecond`.
    Nanosecond,
    /// `IntervalMicrosecond`.
    Microsecond,
    /// `IntervalMillisecond`.
    Millisecond,
    /// `IntervalSecond`.
    Second,
    /// `IntervalMinute`.
    Minute,
    /// `IntervalHour`.
    Hour,
    /// `IntervalDay`.
    Day,
    /// `IntervalWeek`.
    Week,
    /// `IntervalMonth`.
    Month,
    /// `IntervalQuarter`.
    Quarter,
    /// `IntervalYear`.
    Year,
}

const INTERVALS: [(IntervalKind, &str); 11] = [
    (IntervalKind::Nanosecond, "Nanosecond"),
    (IntervalKind::Microsecond, "Microsecond"),
    (IntervalKind::Millisecond, "Millisecond"),
    (IntervalKind::Second, "Second"),
    (IntervalKind::Minute, "Minute"),
    (IntervalKind::Hour, "Hour"),
    (IntervalKind::Day, "Day"),
    (IntervalKind::Week, "Week"),
    (IntervalKind::Month, "Month"),
    (IntervalKind::Quarter, "Quarter"),
    (IntervalKind::Year, "Year"),
];

impl IntervalKind {
    /// The unit's name as in the type name (`Second` for `IntervalSecond`).
    pub fn name(self) -> &'static str {
        INTERVALS.iter().find(|(k, _)| *k == self).map(|(_, n)| *n).unwrap_or("Second")
    }

    /// ClickHouse's number for the unit (its `IntervalKind::Kind`, used in binary type encoding).
    pub fn code(self) -> u8 {
        INTERVALS.iter().position(|(k, _)| *k == self).unwrap_or(3) as u8
    }

    /// The unit of ClickHouse's number `code`.
    pub fn from_code(code: u8) -> Option<IntervalKind> {
        INTERVALS.get(usize::from(code)).map(|(k, _)| *k)
    }
}

/// The physical layout a type is stored in (aliases resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Physical {
    /// `u8` per value.
    U8,
    /// `u16` per value.
    U16,
    /// `u32` per value.
    U32,
    /// `u64` per value.
    U64,
    /// `u128` per value.
    U128,
    /// `i8` per value.
    I8,
    /// `i16` per value.
    I16,
    /// `i32` per value.
    I32,
    /// `i64` per value.
    I64,
    /// `i128` per value.
    I128,
    /// `f32` per value.
    F32,
    /// `f64` per value.
    F64,
    /// N bytes per value.
    Fixed(usize),
    /// Offsets plus one byte buffer.
    String,
    /// A null map plus the inner column.
    Nullable,
    /// Offsets plus the element column.
    Array,
    /// One column per element.
    Tuple,
    /// An array of key-value tuples.
    Map,
    /// A dictionary column plus one key per row.
    LowCardinality,
    /// A discriminator and an offset per row plus one column per type.
    Variant,
    /// A union of the types the column itself lists.
    Dynamic,
    /// Typed paths, dynamic paths and shared data.
    Json,
    /// One opaque state per row, framed by the function's own serialization.
    AggregateFunction,
    /// Stored as another (structural) type: see [`DataType::storage`].
    Alias,
    /// No column codec: see [`DataType::Unsupported`].
    Unsupported,
}

impl DataType {
    /// Whether this is one of the integer types, (U)Int8 to (U)Int256 (not wrapped in
    /// Nullable or LowCardinality).
    pub fn is_integer(&self) -> bool {
        use DataType as T;
        matches!(
            self,
            T::UInt8
                | T::UInt16
                | T::UInt32
                | T::UInt64
                | T::UInt128
                | T::UInt256
                | T::Int8
                | T::Int16
                | T::Int32
                | T::Int64
                | T::Int128
                | T::Int256
        )
    }

    /// The physical layout of this type.
    pub fn physical(&self) -> Physical {
        use DataType as T;
        use Physical as P;
        match self {
            T::UInt8 | T::Bool | T::Nothing => P::U8,
            T::UInt16 | T::Date | T::BFloat16 => P::U16,
            T::UInt32 | T::DateTime(_) | T::Ipv4 => P::U32,
            T::UInt64 => P::U64,
            T::UInt128 => P::U128,
            T::Int8 | T::Enum8(_) => P::I8,
            T::Int16 | T::Enum16(_) => P::I16,
            T::Int32 | T::Date32 | T::Time => P::I32,
            T::Int64 | T::DateTime64 { .. } | T::Time64(_) | T::Interval(_) => P::I64,
            T::Int128 => P::I128,
            T::Float32 => P::F32,
            T::Float64 => P::F64,
            T::Decimal { precision, .. } => match precision {
                0..=9 => P::I32,
                10..=18 => P::I64,
                19..=38 => P::I128,
                _ => P::Fixed(32),
            },
            T::Int256 | T::UInt256 => P::Fixed(32),
            T::Uuid | T::Ipv6 => P::Fixed(16),
            T::FixedString(n) => P::Fixed(*n),
            T::String => P::String,
            T::Nullable(_) => P::Nullable,
            T::Array(_) => P::Array,
            T::Tuple(_) => P::Tuple,
            T::Map(..) => P::Map,
            T::LowCardinality(_) => P::LowCardinality,
            T::Nested(_) | T::Geo(_) | T::SimpleAggregateFunction { .. } | T::QBit { .. } | T::Geometry => P::Alias,
            T::AggregateFunction(_) => P::AggregateFunction,
            T::Variant(_) => P::Variant,
            T::Dynamic { .. } => P::Dynamic,
            T::Json { .. } => P::Json,
            T::Unsupported(_) => P::Unsupported,
        }
    }

    /// For alias types, the structural type they are stored as.
    pub fn storage(&self) -> Option<DataType> {
        match self {
            DataType::Nested(fields) => {
                Some(DataType::Array(Box::new(DataType::Tuple(fields.iter().map(|(n, t)| (Some(n.clone()), t.clone())).collect()))))
            }
            DataType::Geo(g) => Some(g.storage()),
            DataType::SimpleAggregateFunction { ty, .. } => Some((**ty).clone()),
            DataType::QBit { element, dimension } => {
                let plane = DataType::FixedString(dimension.div_ceil(8));
                Some(DataType::Tuple(vec![(None, plane); qbit_bits(element)]))
            }
            DataType::Geometry => Some(DataType::Variant(GEOMETRY_VARIANTS.iter().map(|g| DataType::Geo(*g)).collect())),
            _ => None,
        }
    }

    /// Parse a type name as the server prints it.
    pub fn parse(name: &str) -> Result<DataType, DecodeError> {
        parse::parse(name, MAX_TYPE_DEPTH)
    }

    /// [`DataType::parse`] with the nesting depth of `limits` ([`Limits::depth`](crate::Limits::depth)).
    pub fn parse_limited(name: &str, limits: &crate::Limits) -> Result<DataType, DecodeError> {
        parse::parse(name, limits.depth())
    }

    /// Width in bytes of one value for fixed-width types.
    pub fn fixed_width(&self) -> Option<usize> {
        use Physical as P;
        Some(match self.physical() {
            P::U8 | P::I8 => 1,
            P::U16 | P::I16 => 2,
            P::U32 | P::I32 | P::F32 => 4,
            P::U64 | P::I64 | P::F64 => 8,
            P::U128 | P::I128 => 16,
            P::Fixed(n) => n,
            _ => return None,
        })
    }

    /// Whether this is `Nullable(T)` (not looking inside LowCardinality).
    pub fn is_nullable(&self) -> bool {
        matches!(self, DataType::Nullable(_))
    }

    /// The type without a `Nullable` wrapper.
    pub fn strip_nullable(&self) -> &DataType {
        match self {
            DataType::Nullable(t) => t,
            t => t,
        }
    }
}

/// Bits per element of a QBit's element type (BFloat16, Float32, Float64).
pub(crate) fn qbit_bits(element: &DataType) -> usize {
    match element {
        DataType::BFloat16 => 16,
        DataType::Float32 => 32,
        _ => 64,
    }
}
