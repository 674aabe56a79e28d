//! Type names parsed into [`DataType`]: a generic parse tree first, then the type.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::*;

/// A generic parse tree: `Name(arg, arg, ...)` where an argument is a nested node, a
/// number, a quoted string, `'name' = value` (enums), or `name Type` (named tuple elements).
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Type {
        name: String,
        args: Vec<Node>,
        /// Where the type is spelled in the whole name (an unsupported type keeps its text).
        span: (usize, usize),
    },
    Str(String),
    Num(String),
    EnumItem(String, String),
    /// `name = value` parameters such as `Dynamic(max_types = 10)`.
    Param(String, String),
    Named(String, Box<Node>),
    /// `SKIP REGEXP 'pattern'` of a JSON type.
    SkipRegexp(String),
}

/// Deepest nesting of type parameters accepted by default (ClickHouse's own types stay far
/// below; see [`Limits::max_depth`](crate::Limits::max_depth)).
pub const MAX_TYPE_DEPTH: usize = crate::Limits::DEFAULT.max_depth;

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    depth: usize,
    max_depth: usize,
}

impl Parser<'_> {
    fn err(&self, detail: &str) -> DecodeError {
        DecodeError::InvalidTypeName { name: self.s.to_string(), detail: format!("{detail} at byte {}", self.pos) }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.bump();
        }
    }

    /// Past one byte (the parser's position never passes the name's end by more than one).
    fn bump(&mut self) {
        self.pos = self.pos.saturating_add(1);
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
            self.bump();
        }
        (self.pos > start).then(|| self.s.get(start..self.pos).unwrap_or_default().to_string())
    }

    fn quoted(&mut self, q: u8) -> Result<String, DecodeError> {
        // opening quote
        self.bump();
        let mut out = Vec::new();
        let b = self.s.as_bytes();
        loop {
            let Some(&c) = b.get(self.pos) else { return Err(self.err("unterminated quoted string")) };
            self.bump();
            if c == b'\\' {
                let Some(&e) = b.get(self.pos) else { return Err(self.err("unterminated escape")) };
                self.bump();
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
                    self.bump();
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
            self.bump();
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'E') {
            self.bump();
        }
        self.s.get(start..self.pos).unwrap_or_default().to_string()
    }

    /// After `SKIP`: `REGEXP 'pattern'` (its pattern), or nothing consumed.
    fn skip_regexp(&mut self) -> Result<Option<String>, DecodeError> {
        let start = self.pos;
        if self.ident().as_deref() == Some("REGEXP") {
            self.skip_ws();
            if self.peek() == Some(b'\'') {
                return self.quoted(b'\'').map(Some);
            }
        }
        self.pos = start;
        Ok(None)
    }

    fn node(&mut self) -> Result<Node, DecodeError> {
        self.depth = self.depth.saturating_add(1);
        if self.depth > self.max_depth {
            return Err(self.err(&format!("types nested deeper than {} levels", self.max_depth)));
        }
        let node = self.node_inner();
        self.depth = self.depth.saturating_sub(1);
        node
    }

    fn node_inner(&mut self) -> Result<Node, DecodeError> {
        self.skip_ws();
        match self.peek() {
            Some(b'\'') => {
                let s = self.quoted(b'\'')?;
                self.skip_ws();
                if self.peek() == Some(b'=') {
                    self.bump();
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
                let start = self.pos;
                let name = self.ident().ok_or_else(|| self.err("expected a type name"))?;
                let ident_end = self.pos;
                self.skip_ws();
                match self.peek() {
                    Some(b'(') => {
                        self.bump();
                        let mut args = Vec::new();
                        self.skip_ws();
                        if self.peek() == Some(b')') {
                            self.bump();
                            return Ok(Node::Type { name, args, span: (start, self.pos) });
                        }
                        loop {
                            args.push(self.node()?);
                            self.skip_ws();
                            match self.peek() {
                                Some(b',') => self.bump(),
                                Some(b')') => {
                                    self.bump();
                                    break;
                                }
                                _ => return Err(self.err("expected ',' or ')'")),
                            }
                        }
                        Ok(Node::Type { name, args, span: (start, self.pos) })
                    }
                    // `name Type` inside a tuple / nested; `SKIP path` and `SKIP REGEXP '…'` of JSON
                    Some(c) if c.is_ascii_alphabetic() || c == b'`' => {
                        if name == "SKIP" {
                            if let Some(pattern) = self.skip_regexp()? {
                                return Ok(Node::SkipRegexp(pattern));
                            }
                        }
                        Ok(Node::Named(name, Box::new(self.node()?)))
                    }
                    Some(b'=') => {
                        self.bump();
                        self.skip_ws();
                        let v = self.number();
                        if v.is_empty() {
                            return Err(self.err("expected a number after '='"));
                        }
                        Ok(Node::Param(name, v))
                    }
                    _ => Ok(Node::Type { name, args: Vec::new(), span: (start, ident_end) }),
                }
            }
            None => Err(self.err("unexpected end of type name")),
        }
    }
}

impl Node {
    fn into_type(self, full: &str) -> Result<DataType, DecodeError> {
        let bad = |detail: &str| DecodeError::InvalidTypeName { name: full.to_string(), detail: detail.to_string() };
        let Node::Type { name, args, span } = self else {
            return Err(bad("expected a type"));
        };
        let own_text = || full.get(span.0..span.1).unwrap_or(full).to_string();
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
                // Ordered by value, as the server prints them; refused where the server refuses.
                if name == "Enum8" {
                    check_enum(&mut items8).map_err(|e| bad(&e))?;
                    T::Enum8(items8)
                } else {
                    check_enum(&mut items16).map_err(|e| bad(&e))?;
                    T::Enum16(items16)
                }
            }
            "Nullable" => {
                let inner = one_type(args)?;
                // ClickHouse refuses it too ("cannot be inside Nullable type"); a column of it
                // would not fit its type.
                if inner.is_nullable() {
                    return Err(bad("Nullable(Nullable(..)) is not a valid type"));
                }
                T::Nullable(Box::new(inner))
            }
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
                            typed.push((path.clone(), t.into_type(full)?));
                            jargs.push(JsonArg::Path(path));
                        }
                        Node::Param(k, v) if k == "max_dynamic_paths" || k == "max_dynamic_types" => jargs.push(JsonArg::Param(k, v)),
                        // Paths to skip only matter when the server parses JSON: kept to be
                        // printed back (the column's data is the same).
                        Node::Named(_, path) => match *path {
                            Node::Type { name, args, .. } if args.is_empty() => jargs.push(JsonArg::Skip(name)),
                            _ => return Ok(T::Unsupported(own_text())),
                        },
                        Node::SkipRegexp(pattern) => jargs.push(JsonArg::SkipRegexp(pattern)),
                        _ => return Ok(T::Unsupported(own_text())),
                    }
                }
                sort_typed_paths(&mut typed).map_err(|p| bad(&format!("the typed path {p} twice")))?;
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
                let mut types = args.into_iter().map(|a| a.into_type(full)).collect::<Result<Vec<_>, _>>()?;
                // As the server makes it (DataTypeVariant): its types sorted by name, each once,
                // whatever order a name written by hand (a `{p:Variant(UInt64, String)}`
                // placeholder) lists them in; a row's discriminator is the index in this order.
                types.sort_by_cached_key(|t| t.to_string());
                types.dedup();
                if types.is_empty() || types.len() > 255 {
                    return Err(bad("Variant takes 1 to 255 types"));
                }
                T::Variant(types)
            }
            "AggregateFunction" => aggregate_function(args, full)?,
            "QBit" => match args.as_slice() {
                [Node::Type { name: e, args: eargs, .. }, Node::Num(n)] if eargs.is_empty() => {
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
                    (Some(Node::Type { name: function, args: fargs, .. }), Some(t), None)
                        if fargs.is_empty() && is_function_name(&function) =>
                    {
                        T::SimpleAggregateFunction { function, ty: Box::new(t.into_type(full)?) }
                    }
                    _ => T::Unsupported(own_text()),
                }
            }
            n if n.starts_with("Interval") => match INTERVALS.iter().find(|(_, k)| n == format!("Interval{k}")) {
                Some((k, _)) => no_args(T::Interval(*k))?,
                None => T::Unsupported(own_text()),
            },
            _ => T::Unsupported(own_text()),
        })
    }
}

/// An aggregate function's name as the parser reads it without quotes: an identifier, which
/// does not start with a digit (`AggregateFunction(3)` is a version number).
fn is_function_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
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
        // A name is printed as it is, so it must read back without quotes: an empty one
        // (`` `` ``) or one like `` `:` `` would not (both found by fuzzing).
        Some(Node::Type { name, args, .. }) if is_function_name(&name) => {
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

/// Parse a whole type name.
pub(super) fn parse(name: &str, max_depth: usize) -> Result<DataType, DecodeError> {
    let mut p = Parser { s: name, pos: 0, depth: 0, max_depth };
    let node = p.node()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.err("unexpected trailing characters"));
    }
    node.into_type(name)
}
