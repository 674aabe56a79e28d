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
    /// Types that parse but have no column codec yet; decoding them is an
    /// [`DecodeError::UnsupportedType`] naming the type.
    Unsupported(String),
}

impl DataType {
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
        use DataType::*;
        Some(match self {
            UInt8 | Int8 | Bool | Enum8(_) => 1,
            UInt16 | Int16 | Date | Enum16(_) => 2,
            UInt32 | Int32 | Float32 | DateTime(_) => 4,
            UInt64 | Int64 | Float64 => 8,
            Uuid => 16,
            FixedString(n) => *n,
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

fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("'")?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
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
            Unsupported(s) => f.write_str(s),
        }
    }
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
    Type { name: String, args: Vec<Node> },
    Str(String),
    Num(String),
    EnumItem(String, String),
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
            _ => T::Unsupported(full.to_string()),
        })
    }
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
        assert_eq!(
            DataType::parse("Map(String, Tuple(a UInt8, b Decimal(10, 2)))").unwrap(),
            DataType::Unsupported("Map(String, Tuple(a UInt8, b Decimal(10, 2)))".into())
        );
    }
}
