//! ClickHouse data types: a tree parsed once per column header, and printed back in the
//! server's canonical spelling.

use crate::error::DecodeError;
use std::fmt;

/// A ClickHouse data type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Bool,
    String,
    FixedString(usize),
    Uuid,
    Date,
    /// `DateTime` or `DateTime('tz')`.
    DateTime(Option<String>),
    Enum8(Vec<(String, i8)>),
    Enum16(Vec<(String, i16)>),
    Nullable(Box<DataType>),
    Array(Box<DataType>),
    UInt128,
    UInt256,
    Int128,
    Int256,
    /// The upper 16 bits of a Float32.
    BFloat16,
    /// `Decimal(P, S)`: an integer of value × 10^S, 32/64/128/256 bits by precision.
    Decimal {
        precision: u8,
        scale: u8,
    },
    /// Days since 1970-01-01 as Int32.
    Date32,
    /// Ticks of 10^-precision seconds since the epoch, as Int64.
    DateTime64 {
        precision: u8,
        tz: Option<String>,
    },
    /// Seconds as Int32 (may be negative or above a day).
    Time,
    /// Ticks of 10^-precision seconds as Int64.
    Time64(u8),
    Ipv4,
    Ipv6,
    /// Elements, named (`Tuple(a UInt8, b String)`) or not.
    Tuple(Vec<(Option<String>, DataType)>),
    /// Stored as `Array(Tuple(K, V))`.
    Map(Box<DataType>, Box<DataType>),
    /// A dictionary of values of the inner type plus one index per row.
    LowCardinality(Box<DataType>),
    /// `Nested(a T, b U)` with flatten_nested = 0: stored as `Array(Tuple(a T, b U))`.
    Nested(Vec<(String, DataType)>),
    /// Point, Ring, LineString, MultiLineString, Polygon, MultiPolygon.
    Geo(GeoKind),
    /// Stored as its value type.
    SimpleAggregateFunction {
        function: String,
        ty: Box<DataType>,
    },
    /// `IntervalSecond` etc.: Int64 counts of the unit.
    Interval(IntervalKind),
    /// The type of `NULL` and `[]`: one placeholder byte per row.
    Nothing,
    /// `Dynamic` or `Dynamic(max_types = N)`: each row holds a value of any type.
    /// `JSON(...)`: typed paths (`typed`, sorted by path) plus dynamic paths; `args` keeps
    /// the parameters in the server's order, to print the name back as it was.
    Json {
        typed: Vec<(String, DataType)>,
        args: Vec<JsonArg>,
    },
    Dynamic {
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
        element: Box<DataType>,
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

/// A parameter of a `JSON(...)` type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonArg {
    /// A typed path: `a.b UInt32`.
    Path(String, DataType),
    /// `max_dynamic_paths=N`, `max_dynamic_types=N`.
    Param(String, String),
}

/// The geometry types and their storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeoKind {
    Point,
    MultiPoint,
    Ring,
    LineString,
    MultiLineString,
    Polygon,
    MultiPolygon,
}

impl GeoKind {
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
    Nanosecond,
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
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
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    /// N bytes per value.
    Fixed(usize),
    String,
    Nullable,
    Array,
    Tuple,
    Map,
    LowCardinality,
    Variant,
    Dynamic,
    Json,
    /// One opaque state per row, framed by the function's own serialization.
    AggregateFunction,
    /// Stored as another (structural) type: see [`DataType::storage`].
    Alias,
    Unsupported,
}

impl DataType {
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
        let mut p = Parser { s: name, pos: 0, depth: 0 };
        let node = p.node()?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(p.err("unexpected trailing characters"));
        }
        node.into_type(name)
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

/// A single-quoted string with ClickHouse's escapes (as in enum names and timezones).
fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("'")?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            '\0' => f.write_str("\\0")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("'")
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DataType::*;
        match self {
            UInt8 => f.write_str("UInt8"),
            UInt16 => f.write_str("UInt16"),
            UInt32 => f.write_str("UInt32"),
            UInt64 => f.write_str("UInt64"),
            Int8 => f.write_str("Int8"),
            Int16 => f.write_str("Int16"),
            Int32 => f.write_str("Int32"),
            Int64 => f.write_str("Int64"),
            Float32 => f.write_str("Float32"),
            Float64 => f.write_str("Float64"),
            Bool => f.write_str("Bool"),
            String => f.write_str("String"),
            FixedString(n) => write!(f, "FixedString({n})"),
            Uuid => f.write_str("UUID"),
            Date => f.write_str("Date"),
            DateTime(None) => f.write_str("DateTime"),
            DateTime(Some(tz)) => {
                f.write_str("DateTime(")?;
                write_quoted(f, tz)?;
                f.write_str(")")
            }
            Enum8(items) => write_enum(f, "Enum8", items.iter().map(|(n, v)| (n, i64::from(*v)))),
            Enum16(items) => write_enum(f, "Enum16", items.iter().map(|(n, v)| (n, i64::from(*v)))),
            Nullable(t) => write!(f, "Nullable({t})"),
            Array(t) => write!(f, "Array({t})"),
            UInt128 => f.write_str("UInt128"),
            UInt256 => f.write_str("UInt256"),
            Int128 => f.write_str("Int128"),
            Int256 => f.write_str("Int256"),
            BFloat16 => f.write_str("BFloat16"),
            Decimal { precision, scale } => write!(f, "Decimal({precision}, {scale})"),
            Date32 => f.write_str("Date32"),
            DateTime64 { precision, tz: None } => write!(f, "DateTime64({precision})"),
            DateTime64 { precision, tz: Some(tz) } => {
                write!(f, "DateTime64({precision}, ")?;
                write_quoted(f, tz)?;
                f.write_str(")")
            }
            Time => f.write_str("Time"),
            Time64(p) => write!(f, "Time64({p})"),
            Ipv4 => f.write_str("IPv4"),
            Ipv6 => f.write_str("IPv6"),
            Tuple(items) => {
                f.write_str("Tuple(")?;
                for (i, (name, t)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if let Some(n) = name {
                        write_ident(f, n)?;
                        f.write_str(" ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Map(k, v) => write!(f, "Map({k}, {v})"),
            LowCardinality(t) => write!(f, "LowCardinality({t})"),
            Nested(fields) => {
                f.write_str("Nested(")?;
                for (i, (n, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_ident(f, n)?;
                    write!(f, " {t}")?;
                }
                f.write_str(")")
            }
            Geo(g) => f.write_str(g.name()),
            SimpleAggregateFunction { function, ty } => write!(f, "SimpleAggregateFunction({function}, {ty})"),
            Interval(k) => write!(f, "Interval{}", k.name()),
            Nothing => f.write_str("Nothing"),
            Json { args, .. } if args.is_empty() => f.write_str("JSON"),
            Json { args, .. } => {
                f.write_str("JSON(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match a {
                        JsonArg::Path(p, t) => {
                            write_ident(f, p)?;
                            write!(f, " {t}")?;
                        }
                        JsonArg::Param(k, v) => write!(f, "{k}={v}")?,
                    }
                }
                f.write_str(")")
            }
            Dynamic { max_types: None } => f.write_str("Dynamic"),
            Dynamic { max_types: Some(n) } => write!(f, "Dynamic(max_types={n})"),
            Variant(types) => {
                f.write_str("Variant(")?;
                for (i, t) in types.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            AggregateFunction(a) => write!(f, "{a}"),
            QBit { element, dimension } => write!(f, "QBit({element}, {dimension})"),
            Geometry => f.write_str("Geometry"),
            Unsupported(s) => f.write_str(s),
        }
    }
}

/// A tuple element or nested field name, backquoted when it is not a plain identifier.
fn write_ident(f: &mut fmt::Formatter<'_>, n: &str) -> fmt::Result {
    let plain = !n.is_empty() && n.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') && !n.as_bytes()[0].is_ascii_digit();
    if plain {
        return f.write_str(n);
    }
    f.write_str("`")?;
    for c in n.chars() {
        match c {
            '`' => f.write_str("\\`")?,
            '\\' => f.write_str("\\\\")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("`")
}

fn write_enum<'a>(f: &mut fmt::Formatter<'_>, kw: &str, items: impl Iterator<Item = (&'a String, i64)>) -> fmt::Result {
    write!(f, "{kw}(")?;
    for (i, (n, v)) in items.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_quoted(f, n)?;
        write!(f, " = {v}")?;
    }
    f.write_str(")")
}

/// A generic parse tree: `Name(arg, arg, ...)` where an argument is a nested node, a
/// number, a quoted string, `'name' = value` (enums), or `name Type` (named tuple elements).
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Type {
        name: String,
        args: Vec<Node>,
    },
    Str(String),
    Num(String),
    EnumItem(String, String),
    /// `name = value` parameters such as `Dynamic(max_types = 10)`.
    Param(String, String),
    Named(String, Box<Node>),
}

/// Deepest nesting of type parameters accepted (ClickHouse's own types stay far below).
pub const MAX_TYPE_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, detail: &str) -> DecodeError {
        DecodeError::InvalidTypeName { name: self.s.to_string(), detail: format!("{detail} at byte {}", self.pos) }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        if self.peek() == Some(b'`') {
            return self.quoted(b'`').ok();
        }
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.s[start..self.pos].to_string())
    }

    fn quoted(&mut self, q: u8) -> Result<String, DecodeError> {
        // opening quote
        self.pos += 1;
        let mut out = Vec::new();
        let b = self.s.as_bytes();
        loop {
            let Some(&c) = b.get(self.pos) else { return Err(self.err("unterminated quoted string")) };
            self.pos += 1;
            if c == b'\\' {
                let Some(&e) = b.get(self.pos) else { return Err(self.err("unterminated escape")) };
                self.pos += 1;
                out.push(match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'0' => 0,
                    b'b' => 8,
                    b'f' => 12,
                    other => other,
                });
            } else if c == q {
                if b.get(self.pos) == Some(&q) {
                    // doubled quote
                    out.push(q);
                    self.pos += 1;
                } else {
                    break;
                }
            } else {
                out.push(c);
            }
        }
        String::from_utf8(out).map_err(|_| self.err("quoted string is not UTF-8"))
    }

    fn number(&mut self) -> String {
        let start = self.pos;
        if self.peek() == Some(b'-') || self.peek() == Some(b'+') {
            self.pos += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'E') {
            self.pos += 1;
        }
        self.s[start..self.pos].to_string()
    }

    fn node(&mut self) -> Result<Node, DecodeError> {
        self.depth += 1;
        if self.depth > MAX_TYPE_DEPTH {
            return Err(self.err(&format!("types nested deeper than {MAX_TYPE_DEPTH} levels")));
        }
        let node = self.node_inner();
        self.depth -= 1;
        node
    }

    fn node_inner(&mut self) -> Result<Node, DecodeError> {
        self.skip_ws();
        match self.peek() {
            Some(b'\'') => {
                let s = self.quoted(b'\'')?;
                self.skip_ws();
                if self.peek() == Some(b'=') {
                    self.pos += 1;
                    self.skip_ws();
                    let v = self.number();
                    if v.is_empty() {
                        return Err(self.err("expected a number after '='"));
                    }
                    return Ok(Node::EnumItem(s, v));
                }
                Ok(Node::Str(s))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => Ok(Node::Num(self.number())),
            Some(_) => {
                let name = self.ident().ok_or_else(|| self.err("expected a type name"))?;
                self.skip_ws();
                match self.peek() {
                    Some(b'(') => {
                        self.pos += 1;
                        let mut args = Vec::new();
                        self.skip_ws();
                        if self.peek() == Some(b')') {
                            self.pos += 1;
                            return Ok(Node::Type { name, args });
                        }
                        loop {
                            args.push(self.node()?);
                            self.skip_ws();
                            match self.peek() {
                                Some(b',') => self.pos += 1,
                                Some(b')') => {
                                    self.pos += 1;
                                    break;
                                }
                                _ => return Err(self.err("expected ',' or ')'")),
                            }
                        }
                        Ok(Node::Type { name, args })
                    }
                    // `name Type` inside a tuple / nested
                    Some(c) if c.is_ascii_alphabetic() || c == b'`' => Ok(Node::Named(name, Box::new(self.node()?))),
                    Some(b'=') => {
                        self.pos += 1;
                        self.skip_ws();
                        let v = self.number();
                        if v.is_empty() {
                            return Err(self.err("expected a number after '='"));
                        }
                        Ok(Node::Param(name, v))
                    }
                    _ => Ok(Node::Type { name, args: Vec::new() }),
                }
            }
            None => Err(self.err("unexpected end of type name")),
        }
    }
}

impl Node {
    fn into_type(self, full: &str) -> Result<DataType, DecodeError> {
        let bad = |detail: &str| DecodeError::InvalidTypeName { name: full.to_string(), detail: detail.to_string() };
        let Node::Type { name, args } = self else {
            return Err(bad("expected a type"));
        };
        let no_args = |t: DataType| if args.is_empty() { Ok(t) } else { Err(bad(&format!("{name} takes no parameters"))) };
        let one_type = |args: Vec<Node>| -> Result<DataType, DecodeError> {
            let mut it = args.into_iter();
            match (it.next(), it.next()) {
                (Some(n), None) => n.into_type(full),
                _ => Err(bad(&format!("{name} takes exactly one type parameter"))),
            }
        };
        use DataType as T;
        Ok(match name.as_str() {
            "UInt8" => no_args(T::UInt8)?,
            "UInt16" => no_args(T::UInt16)?,
            "UInt32" => no_args(T::UInt32)?,
            "UInt64" => no_args(T::UInt64)?,
            "Int8" => no_args(T::Int8)?,
            "Int16" => no_args(T::Int16)?,
            "Int32" => no_args(T::Int32)?,
            "Int64" => no_args(T::Int64)?,
            "Float32" => no_args(T::Float32)?,
            "Float64" => no_args(T::Float64)?,
            "Bool" | "Boolean" => no_args(T::Bool)?,
            "String" => no_args(T::String)?,
            "UUID" => no_args(T::Uuid)?,
            "Date" => no_args(T::Date)?,
            "FixedString" => match args.as_slice() {
                [Node::Num(n)] => {
                    T::FixedString(n.parse().ok().filter(|&n| n > 0).ok_or_else(|| bad("FixedString size must be a positive integer"))?)
                }
                _ => return Err(bad("FixedString takes one size parameter")),
            },
            "DateTime" => match args.as_slice() {
                [] => T::DateTime(None),
                [Node::Str(tz)] => T::DateTime(Some(tz.clone())),
                _ => return Err(bad("DateTime takes an optional timezone string")),
            },
            "Enum8" | "Enum16" => {
                let mut items8 = Vec::new();
                let mut items16 = Vec::new();
                for a in args {
                    let Node::EnumItem(n, v) = a else { return Err(bad("enum elements must be 'name' = value")) };
                    let v: i64 = v.parse().map_err(|_| bad("enum value is not an integer"))?;
                    if name == "Enum8" {
                        items8.push((n, i8::try_from(v).map_err(|_| bad("Enum8 value out of range"))?));
                    } else {
                        items16.push((n, i16::try_from(v).map_err(|_| bad("Enum16 value out of range"))?));
                    }
                }
                // The server prints elements ordered by value; so does chwire.
                items8.sort_by_key(|(_, v)| *v);
                items16.sort_by_key(|(_, v)| *v);
                if name == "Enum8" {
                    T::Enum8(items8)
                } else {
                    T::Enum16(items16)
                }
            }
            "Nullable" => T::Nullable(Box::new(one_type(args)?)),
            "Array" => T::Array(Box::new(one_type(args)?)),
            "LowCardinality" => T::LowCardinality(Box::new(one_type(args)?)),
            "UInt128" => no_args(T::UInt128)?,
            "UInt256" => no_args(T::UInt256)?,
            "Int128" => no_args(T::Int128)?,
            "Int256" => no_args(T::Int256)?,
            "BFloat16" => no_args(T::BFloat16)?,
            "Date32" => no_args(T::Date32)?,
            "Time" => no_args(T::Time)?,
            "IPv4" => no_args(T::Ipv4)?,
            "IPv6" => no_args(T::Ipv6)?,
            "Nothing" => no_args(T::Nothing)?,
            "JSON" => {
                let mut typed = Vec::new();
                let mut jargs = Vec::new();
                for a in args {
                    match a {
                        Node::Named(path, t) if path != "SKIP" => {
                            let t = t.into_type(full)?;
                            typed.push((path.clone(), t.clone()));
                            jargs.push(JsonArg::Path(path, t));
                        }
                        Node::Param(k, v) if k == "max_dynamic_paths" || k == "max_dynamic_types" => jargs.push(JsonArg::Param(k, v)),
                        _ => return Ok(T::Unsupported(full.to_string())),
                    }
                }
                typed.sort_by(|a, b| a.0.cmp(&b.0));
                T::Json { typed, args: jargs }
            }
            "Dynamic" => match args.as_slice() {
                [] => T::Dynamic { max_types: None },
                [Node::Param(k, v)] if k == "max_types" => {
                    T::Dynamic { max_types: Some(v.parse().map_err(|_| bad("max_types must be an integer"))?) }
                }
                _ => return Err(bad("Dynamic takes only max_types")),
            },
            "Variant" => {
                let types = args.into_iter().map(|a| a.into_type(full)).collect::<Result<Vec<_>, _>>()?;
                if types.is_empty() || types.len() > 255 {
                    return Err(bad("Variant takes 1 to 255 types"));
                }
                T::Variant(types)
            }
            "AggregateFunction" => aggregate_function(args, full)?,
            "QBit" => match args.as_slice() {
                [Node::Type { name: e, args: eargs }, Node::Num(n)] if eargs.is_empty() => {
                    let element = match e.as_str() {
                        "BFloat16" => T::BFloat16,
                        "Float32" => T::Float32,
                        "Float64" => T::Float64,
                        _ => return Err(bad("QBit elements are BFloat16, Float32 or Float64")),
                    };
                    let dimension = n
                        .parse()
                        .ok()
                        .filter(|&d: &usize| d > 0 && d <= 1 << 24)
                        .ok_or_else(|| bad("QBit dimension must be 1..=16777216"))?;
                    T::QBit { element: Box::new(element), dimension }
                }
                _ => return Err(bad("QBit takes an element type and a dimension")),
            },
            "Geometry" => no_args(T::Geometry)?,
            "Point" => no_args(T::Geo(GeoKind::Point))?,
            "MultiPoint" => no_args(T::Geo(GeoKind::MultiPoint))?,
            "Ring" => no_args(T::Geo(GeoKind::Ring))?,
            "LineString" => no_args(T::Geo(GeoKind::LineString))?,
            "MultiLineString" => no_args(T::Geo(GeoKind::MultiLineString))?,
            "Polygon" => no_args(T::Geo(GeoKind::Polygon))?,
            "MultiPolygon" => no_args(T::Geo(GeoKind::MultiPolygon))?,
            "Decimal" | "Decimal32" | "Decimal64" | "Decimal128" | "Decimal256" => {
                let nums: Vec<u32> = args
                    .iter()
                    .map(|a| {
                        if let Node::Num(n) = a {
                            n.parse().map_err(|_| bad("decimal parameters must be integers"))
                        } else {
                            Err(bad("decimal parameters must be integers"))
                        }
                    })
                    .collect::<Result<_, _>>()?;
                let (precision, scale) = match (name.as_str(), nums.as_slice()) {
                    ("Decimal", [p, s]) => (*p, *s),
                    ("Decimal", [p]) => (*p, 0),
                    ("Decimal32", [s]) => (9, *s),
                    ("Decimal64", [s]) => (18, *s),
                    ("Decimal128", [s]) => (38, *s),
                    ("Decimal256", [s]) => (76, *s),
                    _ => return Err(bad("wrong number of decimal parameters")),
                };
                if !(1..=76).contains(&precision) || scale > precision {
                    return Err(bad("decimal precision must be 1..=76 and the scale at most the precision"));
                }
                T::Decimal { precision: precision as u8, scale: scale as u8 }
            }
            "DateTime64" => {
                let (p, tz) = match args.as_slice() {
                    [Node::Num(p)] => (p, None),
                    [Node::Num(p), Node::Str(tz)] => (p, Some(tz.clone())),
                    _ => return Err(bad("DateTime64 takes a precision and an optional timezone")),
                };
                let precision: u8 = p.parse().ok().filter(|p| *p <= 9).ok_or_else(|| bad("DateTime64 precision must be 0..=9"))?;
                T::DateTime64 { precision, tz }
            }
            "Time64" => match args.as_slice() {
                [Node::Num(p)] => T::Time64(p.parse().ok().filter(|p: &u8| *p <= 9).ok_or_else(|| bad("Time64 precision must be 0..=9"))?),
                _ => return Err(bad("Time64 takes a precision")),
            },
            "Tuple" => {
                let mut items = Vec::with_capacity(args.len());
                for a in args {
                    items.push(match a {
                        Node::Named(n, t) => (Some(n), t.into_type(full)?),
                        t => (None, t.into_type(full)?),
                    });
                }
                T::Tuple(items)
            }
            "Nested" => {
                let mut fields = Vec::with_capacity(args.len());
                for a in args {
                    let Node::Named(n, t) = a else { return Err(bad("Nested fields must be `name Type`")) };
                    fields.push((n, t.into_type(full)?));
                }
                T::Nested(fields)
            }
            "Map" => {
                let mut it = args.into_iter();
                match (it.next(), it.next(), it.next()) {
                    (Some(k), Some(v), None) => T::Map(Box::new(k.into_type(full)?), Box::new(v.into_type(full)?)),
                    _ => return Err(bad("Map takes a key and a value type")),
                }
            }
            "SimpleAggregateFunction" => {
                let mut it = args.into_iter();
                match (it.next(), it.next(), it.next()) {
                    (Some(Node::Type { name: function, args: fargs }), Some(t), None) if fargs.is_empty() => {
                        T::SimpleAggregateFunction { function, ty: Box::new(t.into_type(full)?) }
                    }
                    _ => T::Unsupported(full.to_string()),
                }
            }
            n if n.starts_with("Interval") => match INTERVALS.iter().find(|(_, k)| n == format!("Interval{k}")) {
                Some((k, _)) => no_args(T::Interval(*k))?,
                None => T::Unsupported(full.to_string()),
            },
            _ => T::Unsupported(full.to_string()),
        })
    }
}

/// `AggregateFunction([version, ]function[(params)], args...)`.
fn aggregate_function(args: Vec<Node>, full: &str) -> Result<DataType, DecodeError> {
    let bad = |detail: &str| DecodeError::InvalidTypeName { name: full.to_string(), detail: detail.to_string() };
    let mut it = args.into_iter().peekable();
    let version = match it.peek() {
        Some(Node::Num(v)) => {
            let v = v.parse().map_err(|_| bad("AggregateFunction version must be an integer"))?;
            it.next();
            Some(v)
        }
        _ => None,
    };
    let (function, params) = match it.next() {
        Some(Node::Type { name, args }) => {
            let params = args
                .into_iter()
                .map(|p| match p {
                    Node::Num(n) => Ok(n),
                    Node::Str(s) => Ok(quoted(&s)),
                    _ => Err(bad("aggregate function parameters must be literals")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            (name, params)
        }
        _ => return Err(bad("AggregateFunction needs a function name")),
    };
    let args = it.map(|a| a.into_type(full)).collect::<Result<Vec<_>, _>>()?;
    Ok(DataType::AggregateFunction(Box::new(AggregateFunctionType { version, function, params, args })))
}

/// `s` as a single-quoted literal, as in type names.
pub(crate) fn quoted(s: &str) -> String {
    struct Q<'a>(&'a str);
    impl fmt::Display for Q<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_quoted(f, self.0)
        }
    }
    Q(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for s in [
            "UInt8",
            "Nullable(String)",
            "Array(Array(Nullable(Int64)))",
            "FixedString(16)",
            "DateTime",
            "DateTime('Europe/Moscow')",
            "Enum8('b\\'c' = -2, 'a' = 1)",
            "Enum16('x' = 1000)",
            "UUID",
            "Date",
        ] {
            let t = DataType::parse(s).unwrap();
            assert_eq!(t.to_string(), s, "round trip of {s}");
        }
    }

    #[test]
    fn enum_escapes() {
        let t = DataType::parse(r"Enum8('it\'s' = 1, 'back\\slash' = 2, 'q''q' = 3)").unwrap();
        assert_eq!(t, DataType::Enum8(vec![("it's".into(), 1), ("back\\slash".into(), 2), ("q'q".into(), 3)]));
    }

    #[test]
    fn malformed_names_are_errors() {
        for s in [
            "",
            "Array(",
            "Array(UInt8",
            "Nullable()",
            "FixedString(x)",
            "FixedString(0)",
            "Enum8('a' = 300)",
            "UInt8)",
            "DateTime(1, 2)",
            "Array(UInt8, UInt8)",
        ] {
            assert!(DataType::parse(s).is_err(), "{s:?} should not parse");
        }
    }

    #[test]
    fn nesting_is_limited() {
        let ok = format!("{}UInt8{}", "Array(".repeat(MAX_TYPE_DEPTH - 1), ")".repeat(MAX_TYPE_DEPTH - 1));
        assert!(DataType::parse(&ok).is_ok());
        let deep = format!("{}UInt8{}", "Array(".repeat(100_000), ")".repeat(100_000));
        assert!(matches!(DataType::parse(&deep), Err(DecodeError::InvalidTypeName { .. })));
    }

    #[test]
    fn unknown_names_parse_as_unsupported() {
        assert_eq!(DataType::parse("Object('json')").unwrap(), DataType::Unsupported("Object('json')".into()));
    }

    #[test]
    fn modern_types_round_trip() {
        for s in [
            "Map(String, Tuple(a UInt8, b Decimal(10, 2)))",
            "Tuple(UInt8, String)",
            "Tuple(`a b` UInt8, c Array(Nullable(String)))",
            "LowCardinality(Nullable(String))",
            "Array(LowCardinality(FixedString(3)))",
            "Decimal(76, 10)",
            "DateTime64(3)",
            "DateTime64(9, 'UTC')",
            "Time64(6)",
            "Int256",
            "UInt128",
            "BFloat16",
            "IPv4",
            "IPv6",
            "Date32",
            "Nested(a UInt8, b String)",
            "MultiPolygon",
            "SimpleAggregateFunction(sum, UInt64)",
            "IntervalSecond",
            "Nullable(Nothing)",
            "Variant(Array(UInt8), String, UInt64)",
            "Dynamic",
            "Dynamic(max_types=10)",
            "JSON",
            "JSON(a UInt32, `b.c` String)",
            "JSON(max_dynamic_paths=10, a Array(String))",
            "AggregateFunction(sum, UInt64)",
            "AggregateFunction(count)",
            "AggregateFunction(groupArray(10), Nullable(String))",
            "AggregateFunction(1, sumMap, Array(UInt8), Array(UInt64))",
            "AggregateFunction(sequenceMatch('(?1)(?2)'), DateTime, UInt8, UInt8)",
            "AggregateFunction(quantiles(0.5, 0.9), Float64)",
            "QBit(Float32, 3)",
            "QBit(BFloat16, 1000)",
            "Geometry",
            "Array(Geometry)",
        ] {
            let t = DataType::parse(s).unwrap();
            assert!(!matches!(t, DataType::Unsupported(_)), "{s} parsed as unsupported");
            assert_eq!(t.to_string(), s);
        }
        assert_eq!(DataType::parse("Decimal32(4)").unwrap(), DataType::Decimal { precision: 9, scale: 4 });
        assert_eq!(DataType::parse("Decimal256(4)").unwrap().physical(), Physical::Fixed(32));
        assert!(DataType::parse("Decimal(5, 6)").is_err());
        assert!(DataType::parse("DateTime64(10)").is_err());
    }
}
