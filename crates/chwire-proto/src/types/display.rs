//! Type names printed back in the server's canonical spelling.

use super::*;

/// A single-quoted string with ClickHouse's escapes (as in enum names and timezones): the
/// core's one quoting (`sql::quote_string`).
fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str(&crate::sql::quote_string(s))
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
            Json { typed, args } => {
                f.write_str("JSON(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match a {
                        JsonArg::Path(p) => {
                            write_ident(f, p)?;
                            if let Ok(i) = typed.binary_search_by(|(q, _)| q.as_str().cmp(p)) {
                                if let Some((_, t)) = typed.get(i) {
                                    write!(f, " {t}")?;
                                }
                            }
                        }
                        JsonArg::Param(k, v) => write!(f, "{k}={v}")?,
                        JsonArg::Skip(p) => {
                            f.write_str("SKIP ")?;
                            write_ident(f, p)?;
                        }
                        JsonArg::SkipRegexp(r) => {
                            f.write_str("SKIP REGEXP '")?;
                            for c in r.chars() {
                                match c {
                                    '\'' => f.write_str("\\'")?,
                                    '\\' => f.write_str("\\\\")?,
                                    c => write!(f, "{c}")?,
                                }
                            }
                            f.write_str("'")?;
                        }
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
