//! Parameters whose type is known only when the program runs: what the bindings build from
//! their host's values (Python objects, JavaScript values, Elixir terms), shaped and checked
//! by the placeholder's declared type here, once for every front end.
//!
//! A value is first shaped by its placeholder's type (a list is a Tuple for `Tuple(...)` and
//! an Array for `Array(...)`, a map is JSON text for `JSON`, a whole float is an integer for
//! an integer type, a point in time is wall-clock text in the zone the type reads it in), its
//! integers checked against the type's range, then rendered in the two forms a server reads:
//! the text of a server-side parameter, which the server parses with the type's own text
//! parser (composites in their quoted form at every depth: `[..]`, `(..)`, `{k:v}`, strings
//! quoted, numbers bare), and the SQL literal that older servers get cast to the type
//! (`CAST(literal AS Type)`), where every string is a quoted, escaped literal: data, never SQL.

use super::checks::{
    check_address_text, check_instant, check_range, check_time_text, instant_text, is_integer_text, is_number_text, seconds_range,
    time_text, ParamError,
};
use super::QueryParam;
use chwire_proto::DataType;
use std::borrow::Cow;

/// A parameter value as a host language has it, before its placeholder's type shapes it.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// NULL.
    Null,
    /// A boolean (`1`/`0`, which every integer type and Bool read).
    Bool(bool),
    /// An integer.
    Int(i128),
    /// An exact number as its digits (an integer beyond 128 bits, a decimal): bare where the
    /// type is a number, checked to be one.
    Number(String),
    /// A float.
    Float(f64),
    /// Text, which the server parses as the placeholder's type.
    Str(String),
    /// A point in time, in microseconds since the epoch: written as wall-clock time in the
    /// zone a DateTime placeholder reads it in (its own, else the server's), UTC for others.
    Instant(i64),
    /// A sequence: an Array, or a Tuple where the placeholder's type is one.
    List(Vec<ParamValue>),
    /// A tuple (a host value that is one whatever the type).
    Tuple(Vec<ParamValue>),
    /// Key-value pairs: a Map, or a JSON object where the placeholder is `JSON`.
    Map(Vec<(ParamValue, ParamValue)>),
}

impl ParamValue {
    /// Whether the value is or holds an [`ParamValue::Instant`], whose text can depend on the
    /// server's zone.
    pub fn has_instant(&self) -> bool {
        match self {
            ParamValue::Instant(_) => true,
            ParamValue::List(xs) | ParamValue::Tuple(xs) => xs.iter().any(ParamValue::has_instant),
            ParamValue::Map(kvs) => kvs.iter().any(|(k, v)| k.has_instant() || v.has_instant()),
            _ => false,
        }
    }
}

/// A value shaped and rendered for its placeholder (see [`ParamValue::bind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundValue {
    text: String,
    literal: String,
}

impl QueryParam for BoundValue {
    fn param_text(&self) -> String {
        self.text.clone()
    }
    fn sql_literal(&self) -> String {
        self.literal.clone()
    }
}

/// A value rendered without a type to shape it: the rules of [`ParamValue::bind`] with no
/// placeholder type.
impl QueryParam for ParamValue {
    fn param_text(&self) -> String {
        self.bind(None, None).map_or_else(|_| String::new(), |b| b.text)
    }
    fn sql_literal(&self) -> String {
        self.bind(None, None).map_or_else(|_| String::new(), |b| b.literal)
    }
}

impl ParamValue {
    /// A list of `items`, which one array literal gives one element type: integers among
    /// floats become floats; one that no float holds exactly (beyond 2^53) is an error, never
    /// rounded.
    pub fn list(mut items: Vec<ParamValue>) -> Result<ParamValue, ParamError> {
        if items.iter().any(|p| matches!(p, ParamValue::Float(_))) {
            for p in &mut items {
                if let ParamValue::Int(i) = *p {
                    let f = i as f64;
                    if f as i128 != i {
                        return Err(ParamError::Type(format!(
                            "{i} among floats would be rounded to {f}: a list has one element type (bind ints and floats apart)"
                        )));
                    }
                    *p = ParamValue::Float(f);
                }
            }
        }
        Ok(ParamValue::List(items))
    }

    /// Shape this value by its placeholder's type `ty` (where the SQL declares one) and render
    /// it; `server_tz` is the zone the server reads a DateTime without one in. A value that
    /// cannot be one of the type (a fraction for an integer, 300 for an Int8, a tuple of the
    /// wrong length) is an error naming both.
    pub fn bind(&self, ty: Option<&DataType>, server_tz: Option<&str>) -> Result<BoundValue, ParamError> {
        let shaped = self.shape(ty, server_tz, 0)?;
        let text = match &shaped {
            // The server's escaped text form at the top: `\N`, numbers, unquoted escaped text.
            Shaped::List(_) | Shaped::Tuple(_) | Shaped::Map(_) => shaped.quoted(),
            leaf => leaf.top_text(),
        };
        Ok(BoundValue { text, literal: shaped.literal() })
    }

    fn shape(&self, ty: Option<&DataType>, tz: Option<&str>, depth: usize) -> Result<Shaped, ParamError> {
        let type_error = |m: String| Err(ParamError::Type(m));
        if depth > MAX_DEPTH {
            return type_error(format!("a parameter nested deeper than {MAX_DEPTH} levels"));
        }
        let ty = ty.map(plain);
        let ty = ty.as_deref();
        let number = ty.is_some_and(is_number);
        if let (ParamValue::List(_) | ParamValue::Tuple(_) | ParamValue::Map(_), Some(t)) = (self, ty) {
            if is_scalar(t) {
                let what = match self {
                    ParamValue::Map(_) => "a map",
                    _ => "a list",
                };
                return type_error(format!("cannot bind {what} to a {t} parameter"));
            }
        }
        if let (ParamValue::Map(_), Some(t)) = (self, ty) {
            if !matches!(t, DataType::Map(..) | DataType::Json { .. } | DataType::Dynamic { .. } | DataType::Variant(_)) {
                return type_error(format!("cannot bind a map to a {t} parameter"));
            }
        }
        let shaped = match (self, ty) {
            (ParamValue::Null, _) => Shaped::Null,
            (ParamValue::Bool(b), _) => Shaped::Bare(if *b { "1" } else { "0" }.into()),
            (ParamValue::Int(i), Some(t)) if t.is_integer() => {
                check_range(&i.to_string(), t)?;
                Shaped::Bare(i.to_string())
            }
            // An enum by its name: a server takes a number for an enum only outside arrays and
            // tuples.
            (ParamValue::Int(i), Some(t @ (DataType::Enum8(_) | DataType::Enum16(_)))) => {
                let name = match t {
                    DataType::Enum8(items) => items.iter().find(|(_, e)| i128::from(*e) == *i).map(|(n, _)| n),
                    DataType::Enum16(items) => items.iter().find(|(_, e)| i128::from(*e) == *i).map(|(n, _)| n),
                    _ => None,
                };
                Shaped::Str(name.ok_or_else(|| ParamError::Range(format!("{i} is not a value of {t}")))?.clone())
            }
            // A time of day as a count: seconds (Time) or ticks (Time64), written as its text.
            (ParamValue::Int(i), Some(DataType::Time)) => Shaped::Str(time_text(*i, 0)?),
            (ParamValue::Int(i), Some(DataType::Time64(p))) => Shaped::Str(time_text(*i, u32::from(*p))?),
            // An IPv4 address as its number (what ClickHouse stores and `toUInt32` gives): its
            // dotted text, which the server's parser reads (it reads no bare number).
            (ParamValue::Int(i), Some(DataType::Ipv4)) => match u32::try_from(*i) {
                Ok(n) => Shaped::Str(std::net::Ipv4Addr::from(n).to_string()),
                Err(_) => return Err(ParamError::Range(format!("{i} is outside the range of IPv4 (0 to 4294967295)"))),
            },
            // A time as a count of seconds since the epoch, which must lie in the type's range
            // (a server clamps or wraps it).
            (ParamValue::Int(i), Some(t @ (DataType::DateTime(_) | DataType::DateTime64 { .. }))) => {
                if let Some((lo, hi, range)) = seconds_range(t) {
                    if *i < i128::from(lo) || *i > i128::from(hi) {
                        return Err(ParamError::Range(format!("{i} is outside {t} ({range}) as seconds since 1970")));
                    }
                }
                Shaped::Bare(i.to_string())
            }
            (ParamValue::Int(i), _) => Shaped::Bare(i.to_string()),
            (ParamValue::Float(f), Some(t)) if t.is_integer() => {
                if !f.is_finite() || f.fract() != 0.0 {
                    return type_error(format!("{} for a {t} parameter: ClickHouse takes no fraction for an integer", f.param_text()));
                }
                let digits = format!("{f:.0}");
                check_range(&digits, t)?;
                Shaped::Bare(digits)
            }
            (ParamValue::Float(f), Some(DataType::Float32)) if f.is_finite() && f.abs() > f64::from(f32::MAX) => {
                return Err(ParamError::Range(format!("{} is beyond Float32's range", f.param_text())));
            }
            (ParamValue::Float(f), _) => Shaped::Float(*f),
            (ParamValue::Number(n), _) if !is_number_text(n) => return type_error(format!("{n:?} is not a number")),
            (ParamValue::Number(n), Some(t)) if t.is_integer() => {
                check_range(n, t)?;
                Shaped::Number(n.clone())
            }
            (ParamValue::Number(n), _) => Shaped::Number(n.clone()),
            // Text for a number type inside a composite goes bare when it is a number, so that
            // no text can change the structure around it.
            (ParamValue::Str(s), Some(t)) if t.is_integer() && is_integer_text(s) => {
                check_range(s.strip_prefix('+').unwrap_or(s), t)?;
                Shaped::NumberText(s.clone())
            }
            (ParamValue::Str(s), _) if number && is_number_text(s) => Shaped::NumberText(s.clone()),
            // Other text for a number: refused here, as a current server refuses it (18.16's
            // CAST('abc' AS Decimal(9, 2)) is 0, its Nullable(UInt8) NULL). Bool takes words.
            (ParamValue::Str(s), Some(t)) if number && !matches!(t, DataType::Bool) => {
                return type_error(format!("{s:?} is not a number, for a {t} parameter"))
            }
            (ParamValue::Str(s), Some(t @ (DataType::Date | DataType::Date32 | DataType::DateTime(_) | DataType::DateTime64 { .. }))) => {
                check_time_text(s, t)?;
                Shaped::Str(s.clone())
            }
            // Text that is no UUID or address is refused here, as the Arrow conversion refuses
            // it (a server would refuse the query; 18.16's CAST makes some of it zero).
            (ParamValue::Str(s), Some(t @ (DataType::Uuid | DataType::Ipv4 | DataType::Ipv6))) => {
                check_address_text(s, t)?;
                Shaped::Str(s.clone())
            }
            (ParamValue::Str(s), _) => Shaped::Str(s.clone()),
            (ParamValue::Instant(micros), _) => {
                check_instant(*micros, ty)?;
                Shaped::Str(instant_text(*micros, ty, tz))
            }
            (ParamValue::List(items) | ParamValue::Tuple(items), Some(DataType::Tuple(types))) => {
                if items.len() != types.len() {
                    return type_error(format!(
                        "{} values for a {} of {} elements",
                        items.len(),
                        DataType::Tuple(types.clone()),
                        types.len()
                    ));
                }
                Shaped::Tuple(items.iter().zip(types).map(|(x, (_, t))| x.shape(Some(t), tz, depth + 1)).collect::<Result<_, _>>()?)
            }
            (ParamValue::List(items), _) => {
                let inner = match ty {
                    Some(DataType::Array(t)) => Some(&**t),
                    Some(DataType::QBit { element, .. }) => Some(&**element),
                    _ => None,
                };
                Shaped::List(items.iter().map(|x| x.shape(inner, tz, depth + 1)).collect::<Result<_, _>>()?)
            }
            (ParamValue::Tuple(items), _) => Shaped::Tuple(items.iter().map(|x| x.shape(None, tz, depth + 1)).collect::<Result<_, _>>()?),
            (ParamValue::Map(_), Some(DataType::Json { .. })) => {
                let mut out = Vec::new();
                self.json(&mut out, depth)?;
                Shaped::Str(String::from_utf8(out).map_err(|e| ParamError::Type(e.to_string()))?)
            }
            (ParamValue::Map(entries), _) => {
                let (kt, vt) = match ty {
                    Some(DataType::Map(k, v)) => (Some(&**k), Some(&**v)),
                    _ => (None, None),
                };
                Shaped::Map(entries.iter().map(|(k, v)| Ok((k.shape(kt, tz, depth + 1)?, v.shape(vt, tz, depth + 1)?))).collect::<Result<
                    _,
                    ParamError,
                >>(
                )?)
            }
        };
        // Exact numbers of types no bare SQL literal holds keep their type for the literal. So
        // do the elements of a composite of Int64 or floats: a bare literal's type comes from
        // its value, and 18.16 finds no common type for `[1099511627776, -1]` (UInt64, Int8).
        let exact = ty.is_some_and(|t| {
            matches!(t, DataType::Decimal { .. })
                || (t.is_integer() && t.fixed_width().is_some_and(|w| w > 8))
                || (depth > 0 && matches!(t, DataType::Int64 | DataType::Float32 | DataType::Float64))
        });
        let number = matches!(shaped, Shaped::Bare(_) | Shaped::Number(_) | Shaped::NumberText(_) | Shaped::Float(_));
        Ok(match (ty, shaped) {
            (Some(t), shaped) if exact && number => Shaped::Typed(Box::new(shaped), t.to_string()),
            (Some(DataType::DateTime(Some(zone))), text @ Shaped::Str(_)) => {
                Shaped::Zoned { text: Box::new(text), zone: zone.clone(), scale: None }
            }
            (Some(DataType::DateTime64 { precision, tz: Some(zone) }), text @ Shaped::Str(_)) => {
                Shaped::Zoned { text: Box::new(text), zone: zone.clone(), scale: Some(*precision) }
            }
            (_, shaped) => shaped,
        })
    }

    /// The value as JSON text (a JSON placeholder's object).
    fn json(&self, out: &mut Vec<u8>, depth: usize) -> Result<(), ParamError> {
        if depth > MAX_DEPTH {
            return Err(ParamError::Type(format!("a parameter nested deeper than {MAX_DEPTH} levels")));
        }
        match self {
            ParamValue::Null => out.extend_from_slice(b"null"),
            ParamValue::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            ParamValue::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
            ParamValue::Number(n) if is_number_text(n) => out.extend_from_slice(n.as_bytes()),
            ParamValue::Float(f) if f.is_finite() => out.extend_from_slice(format!("{f:?}").as_bytes()),
            ParamValue::Float(f) => return Err(ParamError::Type(format!("{f} has no JSON form"))),
            ParamValue::Number(s) | ParamValue::Str(s) => chwire_text::write_json_string(out, s.as_bytes()),
            ParamValue::Instant(micros) => chwire_text::write_json_string(out, instant_text(*micros, None, None).as_bytes()),
            ParamValue::List(items) | ParamValue::Tuple(items) => {
                out.push(b'[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    x.json(out, depth + 1)?;
                }
                out.push(b']');
            }
            ParamValue::Map(entries) => {
                out.push(b'{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let key = match k {
                        ParamValue::Str(s) | ParamValue::Number(s) => s.clone(),
                        ParamValue::Int(i) => i.to_string(),
                        other => return Err(ParamError::Type(format!("a JSON object's key must be text, not {other:?}"))),
                    };
                    chwire_text::write_json_string(out, key.as_bytes());
                    out.push(b':');
                    v.json(out, depth + 1)?;
                }
                out.push(b'}');
            }
        }
        Ok(())
    }
}

/// Deepest nesting of a parameter value.
const MAX_DEPTH: usize = 64;

/// A value shaped by its type, ready to render.
enum Shaped {
    Null,
    /// Digits or `1`/`0`: the same in every form.
    Bare(String),
    Float(f64),
    /// An exact number (digits with a sign, fraction or exponent).
    Number(String),
    /// Text for a number type that is a number.
    NumberText(String),
    Str(String),
    /// A number of a type whose values no bare SQL literal holds exactly (decimals, integers
    /// beyond 64 bits), with that type: its literal is `CAST('text' AS Type)`, element by
    /// element, so that an array of them has that element type (18.16 cannot cast an
    /// `Array(Nullable(String))` holding NULLs to `Array(Nullable(Decimal(9, 2)))`, and
    /// `['1.25',3]` has no common type).
    Typed(Box<Shaped>, String),
    /// Wall-clock text of a `DateTime`/`DateTime64` type with a zone: its literal reads the
    /// text in that zone (`toDateTime('…', 'Asia/Kolkata')`; older servers' CAST reads it in the
    /// server's zone instead, a different instant). The scale for DateTime64.
    Zoned {
        text: Box<Shaped>,
        zone: String,
        scale: Option<u8>,
    },
    List(Vec<Shaped>),
    Tuple(Vec<Shaped>),
    Map(Vec<(Shaped, Shaped)>),
}

impl Shaped {
    /// A leaf as a server-side parameter's whole text.
    fn top_text(&self) -> String {
        match self {
            Shaped::Null => None::<i64>.param_text(),
            Shaped::Bare(d) | Shaped::Number(d) => d.clone(),
            Shaped::Float(f) => f.param_text(),
            Shaped::NumberText(s) | Shaped::Str(s) => s.param_text(),
            Shaped::Typed(x, _) | Shaped::Zoned { text: x, .. } => x.top_text(),
            composite => composite.quoted(),
        }
    }

    /// Inside a composite parameter's text: the type's quoted text form.
    fn quoted(&self) -> String {
        match self {
            Shaped::Null => "NULL".into(),
            Shaped::Bare(d) | Shaped::Number(d) | Shaped::NumberText(d) => d.clone(),
            // nan, inf and subnormals as text (a subnormal's SQL literal is a function call).
            Shaped::Float(f) => f.param_text(),
            Shaped::Str(s) => s.sql_literal(),
            Shaped::Typed(x, _) | Shaped::Zoned { text: x, .. } => x.quoted(),
            Shaped::List(items) => format!("[{}]", join(items.iter().map(Shaped::quoted))),
            Shaped::Tuple(items) => format!("({})", join(items.iter().map(Shaped::quoted))),
            Shaped::Map(entries) => format!("{{{}}}", join(entries.iter().map(|(k, v)| format!("{}:{}", k.quoted(), v.quoted())))),
        }
    }

    /// As an SQL literal, which client-side binding casts to the placeholder's type. Text is
    /// always quoted there: a decimal as a bare number would be a Float64 to the SQL parser,
    /// and quoted text is what CAST parses exactly as the declared type.
    fn literal(&self) -> String {
        match self {
            Shaped::Null => "NULL".into(),
            // An integer beyond 64 bits is a Float64 literal to ClickHouse's SQL parser.
            Shaped::Bare(d) if d.parse::<i64>().is_ok() || d.parse::<u64>().is_ok() => d.clone(),
            Shaped::Bare(d) | Shaped::Number(d) => format!("'{d}'"),
            Shaped::Float(f) => f.sql_literal(),
            Shaped::NumberText(s) | Shaped::Str(s) => s.sql_literal(),
            // A float keeps its own literal (nan, inf; a subnormal one as its bits: 18.16 reads
            // `'5e-324'` as 0), typed by the CAST.
            Shaped::Typed(x, ty) if matches!(**x, Shaped::Float(_)) && ty.starts_with("Float") => format!("CAST({} AS {ty})", x.literal()),
            Shaped::Typed(x, ty) => format!("CAST({} AS {ty})", x.quoted().sql_literal()),
            Shaped::Zoned { text, zone, scale: None } => format!("toDateTime({}, {})", text.literal(), zone.sql_literal()),
            Shaped::Zoned { text, zone, scale: Some(p) } => format!("toDateTime64({}, {p}, {})", text.literal(), zone.sql_literal()),
            Shaped::List(items) => format!("[{}]", join(items.iter().map(Shaped::literal))),
            // `tuple(x)`: `(x)` is x itself in SQL.
            Shaped::Tuple(items) => format!("tuple({})", join(items.iter().map(Shaped::literal))),
            Shaped::Map(entries) => format!("map({})", join(entries.iter().map(|(k, v)| format!("{},{}", k.literal(), v.literal())))),
        }
    }
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(",")
}

/// The type without the wrappers that do not change a value's text, and alias types (Nested,
/// the geo types, SimpleAggregateFunction) as the types they are stored as.
fn plain(ty: &DataType) -> Cow<'_, DataType> {
    match ty {
        DataType::Nullable(t) | DataType::LowCardinality(t) => plain(t),
        DataType::Nested(_) | DataType::Geo(_) | DataType::SimpleAggregateFunction { .. } => match ty.storage() {
            Some(t) => Cow::Owned(plain(&t).into_owned()),
            None => Cow::Borrowed(ty),
        },
        t => Cow::Borrowed(t),
    }
}

/// Whether values of `ty` are numbers in ClickHouse's text forms.
fn is_number(ty: &DataType) -> bool {
    ty.is_integer() || matches!(ty, DataType::Float32 | DataType::Float64 | DataType::BFloat16 | DataType::Decimal { .. } | DataType::Bool)
}

/// Types whose values are never a list or a map.
fn is_scalar(ty: &DataType) -> bool {
    is_number(ty)
        || matches!(
            ty,
            DataType::String
                | DataType::FixedString(_)
                | DataType::Uuid
                | DataType::Date
                | DataType::Date32
                | DataType::DateTime(_)
                | DataType::DateTime64 { .. }
                | DataType::Time
                | DataType::Time64(_)
                | DataType::Enum8(_)
                | DataType::Enum16(_)
                | DataType::Ipv4
                | DataType::Ipv6
                | DataType::Interval(_)
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ParamValue as P;

    fn bind(v: &P, ty: &str) -> Result<(String, String), String> {
        let t = DataType::parse(ty).unwrap();
        v.bind(Some(&t), Some("Asia/Kolkata")).map(|b| (b.text, b.literal)).map_err(|e| e.to_string())
    }

    #[test]
    fn composites_render_in_the_quoted_form_at_every_depth() {
        let v = P::List(vec![P::List(vec![P::Int(1), P::Str("a'".into())])]);
        assert_eq!(bind(&v, "Array(Tuple(UInt8, String))").unwrap(), ("[(1,'a\\'')]".into(), "[tuple(1,'a\\'')]".into()));
        let m = P::Tuple(vec![P::Map(vec![(P::Str("k".into()), P::Int(2))])]);
        assert_eq!(bind(&m, "Tuple(Map(String, UInt8))").unwrap().0, "({'k':2})");
        let d = P::List(vec![P::Str("1.5".into()), P::Null]);
        assert_eq!(bind(&d, "Array(Nullable(Decimal(9, 2)))").unwrap().0, "[1.5,NULL]");
        // Without a type, a nested tuple is still the quoted form, never tuple(..).
        assert_eq!(P::List(vec![P::Tuple(vec![P::Int(1)])]).param_text(), "[(1)]");
    }

    #[test]
    fn text_that_is_no_uuid_or_address_is_refused() {
        for (v, ty) in [("not-a-uuid", "UUID"), ("1.2.3", "IPv4"), ("1.2.3.4.5", "IPv6"), ("x", "Array(Nullable(UUID))")] {
            let v = if ty.starts_with("Array") { P::List(vec![P::Str(v.into())]) } else { P::Str(v.into()) };
            assert!(bind(&v, ty).unwrap_err().contains("is not the text of a"), "{ty}");
        }
        assert!(bind(&P::Str("61f0c404-5cb3-11e7-907b-a6006ad3dba0".into()), "UUID").is_ok());
        assert!(bind(&P::Str("1.2.3.4".into()), "IPv6").is_ok());
        assert!(bind(&P::Str("::1".into()), "IPv6").is_ok());
        // Leading zeros, as ClickHouse's parser reads them.
        assert!(bind(&P::Str("010.0.0.1".into()), "IPv4").is_ok());
        assert!(bind(&P::Str("::ffff:01.2.3.4".into()), "IPv6").is_ok());
        assert!(bind(&P::Str("256.0.0.1".into()), "IPv4").is_err());
        assert!(bind(&P::Str("1.2.3.4.5".into()), "IPv4").is_err());
    }

    #[test]
    fn times_as_seconds_and_calendar_dates_are_checked() {
        assert!(bind(&P::Int(-1), "DateTime").unwrap_err().contains("is outside DateTime"));
        assert!(bind(&P::Int(5_000_000_000), "DateTime('UTC')").is_err());
        assert_eq!(bind(&P::Int(1_700_000_000), "DateTime64(3)").unwrap().0, "1700000000");
        assert!(bind(&P::Str("2024-02-30".into()), "Date").unwrap_err().contains("no date of the calendar"));
        assert!(bind(&P::Str("2023-02-29 00:00:00".into()), "DateTime").is_err());
        assert!(bind(&P::Str("2024-02-29 23:59:59".into()), "DateTime").is_ok());
    }

    #[test]
    fn an_ipv4_address_as_its_number_is_its_dotted_text() {
        assert_eq!(bind(&P::Int(16909060), "IPv4").unwrap(), ("1.2.3.4".into(), "'1.2.3.4'".into()));
        assert_eq!(bind(&P::List(vec![P::Int(0)]), "Array(IPv4)").unwrap().0, "['0.0.0.0']");
        assert!(bind(&P::Int(1 << 32), "IPv4").unwrap_err().contains("outside the range of IPv4"));
    }

    #[test]
    fn integers_fit_their_type() {
        assert!(bind(&P::Int(300), "Int8").unwrap_err().contains("outside the range of Int8"));
        assert!(bind(&P::Int(-1), "Nullable(UInt64)").is_err());
        assert!(bind(&P::Float(1.5), "Int32").unwrap_err().contains("no fraction"));
        assert_eq!(bind(&P::Float(2.0), "Int32").unwrap().0, "2");
        assert_eq!(bind(&P::Int(-128), "Int8").unwrap().0, "-128");
        assert_eq!(bind(&P::Int(i128::MAX), "UInt128").unwrap().0, i128::MAX.to_string());
        let u256 = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(bind(&P::Number(u256.into()), "UInt256").unwrap(), (u256.to_string(), format!("CAST('{u256}' AS UInt256)")));
        assert!(bind(&P::Number(format!("{u256}0")), "UInt256").is_err());
        let i256_min = "-57896044618658097711785492504343953926634992332820282019728792003956564819968";
        assert!(bind(&P::Number(i256_min.into()), "Int256").is_ok());
        assert!(bind(&P::Number(i256_min.replace("968", "969")), "Int256").is_err());
        assert!(bind(&P::Number("1; DROP".into()), "Int256").is_err());
        assert_eq!(bind(&P::Int(1 << 70), "Int128").unwrap().1, format!("CAST('{}' AS Int128)", 1i128 << 70));
    }

    #[test]
    fn literals_older_servers_read_as_the_value() {
        // Text for a number is a number or refused (18.16 cast 'abc' to 0).
        assert!(bind(&P::Str("abc".into()), "Decimal(9, 2)").unwrap_err().contains("not a number"));
        assert!(bind(&P::Str("abc".into()), "Nullable(UInt8)").unwrap_err().contains("not a number"));
        assert_eq!(bind(&P::Str("true".into()), "Bool").unwrap().0, "true");
        // Integer text is checked against the type's range as integers are.
        assert!(matches!(P::Str("9223372036854775808".into()).bind(Some(&DataType::Int64), None), Err(ParamError::Range(_))));
        assert_eq!(bind(&P::Str("-9223372036854775808".into()), "Int64").unwrap().0, "-9223372036854775808");
        assert_eq!(bind(&P::Str("+7".into()), "UInt8").unwrap().0, "+7");
        assert_eq!(bind(&P::Str("-1.5e3".into()), "Float64").unwrap().0, "-1.5e3");
        // A zoned DateTime's text is read in its zone (18.16's CAST reads the server's).
        assert_eq!(
            bind(&P::Str("2024-01-01 17:30:00".into()), "Nullable(DateTime('Asia/Kolkata'))").unwrap().1,
            "toDateTime('2024-01-01 17:30:00', 'Asia/Kolkata')"
        );
        let at = P::List(vec![P::Instant(1_704_110_400_000_000), P::Null]);
        assert_eq!(bind(&at, "Array(Nullable(DateTime64(3, 'UTC')))").unwrap().1, "[toDateTime64('2024-01-01 12:00:00', 3, 'UTC'),NULL]");
        assert_eq!(bind(&P::Str("2024-01-01 17:30:00".into()), "DateTime").unwrap().1, "'2024-01-01 17:30:00'");
        // Elements of Int64 and float composites are typed: 18.16 has no common type for
        // a UInt64 literal and a negative one.
        let mixed = P::List(vec![P::Int(1 << 40), P::Int(-1)]);
        assert_eq!(
            bind(&mixed, "Array(Int64)").unwrap(),
            ("[1099511627776,-1]".into(), "[CAST('1099511627776' AS Int64),CAST('-1' AS Int64)]".into())
        );
        assert_eq!(bind(&mixed, "Array(Float64)").unwrap().1, "[CAST('1099511627776' AS Float64),CAST('-1' AS Float64)]");
        let floats = P::List(vec![P::Float(1.5), P::Float(5e-324)]);
        assert_eq!(
            bind(&floats, "Array(Float64)").unwrap().1,
            format!("[CAST(1.5 AS Float64),CAST({} AS Float64)]", 5e-324f64.sql_literal())
        );
        assert!(bind(&P::Float(1e39), "Float32").unwrap_err().contains("beyond Float32's range"));
        assert!(bind(&P::Float(f64::INFINITY), "Float32").is_ok());
        // Dates and times outside their types (a server clamps or wraps them).
        assert!(bind(&P::Str("2200-01-01".into()), "Date").unwrap_err().contains("outside Date"));
        // Wall-clock text for DateTime/DateTime64, read in the type's zone (a current server
        // clamps it, 18.16 wraps it).
        assert!(bind(&P::Str("2200-01-01 00:00:00".into()), "DateTime('UTC')").unwrap_err().contains("outside DateTime('UTC')"));
        assert!(bind(&P::Str("2106-02-07 06:28:16".into()), "DateTime('UTC')").is_err());
        assert!(bind(&P::Str("2106-02-07 06:28:15".into()), "DateTime('UTC')").is_ok());
        assert!(bind(&P::Str("1970-01-01 03:00:00".into()), "DateTime('Asia/Kolkata')").is_err());
        assert!(bind(&P::Str("1970-01-01 06:00:00".into()), "DateTime('Asia/Kolkata')").is_ok());
        assert!(bind(&P::Str("1899-12-31 23:59:59.5".into()), "DateTime64(3, 'UTC')").is_err());
        assert!(bind(&P::Str("2299-12-31 23:59:59.999".into()), "DateTime64(3, 'UTC')").is_ok());
        // Without a zone in the type (the session's, which settings may change): only what no
        // zone's offset brings into range.
        assert!(bind(&P::Str("1970-01-01 03:00:00".into()), "DateTime").is_ok());
        assert!(bind(&P::Str("1969-12-30 00:00:00".into()), "DateTime").is_err());
        assert!(bind(&P::Str("not a time".into()), "DateTime").is_ok());
        // A Unix timestamp's digits are the server's to read, not a basic-format date.
        assert!(bind(&P::Str("19691231".into()), "DateTime").is_ok());
        // DateTime64(9) ends where nanoseconds leave an Int64.
        assert!(bind(&P::Str("2262-04-11 23:47:16".into()), "DateTime64(9, 'UTC')").is_ok());
        assert!(bind(&P::Str("2262-04-11 23:47:17".into()), "DateTime64(9, 'UTC')").unwrap_err().contains("2262-04-11 23:47:16"));
        assert!(bind(&P::Str("2270-01-01 00:00:00".into()), "DateTime64(6, 'UTC')").is_ok());
        assert_eq!(bind(&P::Str("2149-06-06".into()), "Date").unwrap().0, "2149-06-06");
        assert_eq!(bind(&P::Str("2200-01-01".into()), "Date32").unwrap().0, "2200-01-01");
        assert!(bind(&P::Str("1899-12-31".into()), "Nullable(Date32)").unwrap_err().contains("outside"));
        assert!(bind(&P::Instant(-1_000_000), "DateTime").unwrap_err().contains("outside DateTime"));
        assert!(bind(&P::Instant(-1_000_000), "DateTime64(3)").is_ok());
        assert!(bind(&P::Instant(11_000_000_000_000_000), "DateTime64(6, 'UTC')").unwrap_err().contains("outside"));
        // At the top a number stays bare (LIMIT takes only digits on 18.16).
        assert_eq!(bind(&P::Int(5), "Int64").unwrap().1, "5");
    }

    #[test]
    fn tuples_json_and_instants_by_type() {
        assert!(bind(&P::List(vec![P::Int(1)]), "Tuple(UInt8, String)").unwrap_err().contains("1 values for a Tuple"));
        let obj = P::Map(vec![(P::Str("a".into()), P::List(vec![P::Int(1), P::Null]))]);
        assert_eq!(bind(&obj, "JSON").unwrap().0, "{\"a\":[1,null]}");
        let at = P::Instant(1_700_000_000_123_000);
        assert_eq!(bind(&at, "DateTime64(3)").unwrap().0, "2023-11-15 03:43:20.123");
        assert_eq!(bind(&at, "DateTime64(3, 'UTC')").unwrap().0, "2023-11-14 22:13:20.123");
        assert_eq!(bind(&at, "String").unwrap().0, "2023-11-14 22:13:20.123");
        assert!(bind(&obj, "String").unwrap_err().contains("cannot bind a map to a String parameter"));
        assert!(bind(&P::List(vec![]), "UInt8").unwrap_err().contains("cannot bind a list to a UInt8"));
        let e = P::Int(300).bind(Some(&DataType::Int8), None).unwrap_err();
        assert!(matches!(e, ParamError::Range(_)), "{e:?}");
        assert_eq!(bind(&P::Int(2), "Enum8('a' = 1, 'b' = 2)").unwrap().0, "b");
        // Numbers no bare SQL literal holds exactly are cast one by one in a literal, so that
        // their array has their type (with NULLs too, which 18.16 needs).
        let mixed = P::List(vec![P::Number("1.25".into()), P::Int(3), P::Float(0.5), P::Null]);
        let b = bind(&mixed, "Array(Nullable(Decimal(9, 2)))").unwrap();
        assert_eq!(b.0, "[1.25,3,0.5,NULL]");
        assert_eq!(b.1, "[CAST('1.25' AS Decimal(9, 2)),CAST('3' AS Decimal(9, 2)),CAST('0.5' AS Decimal(9, 2)),NULL]");
        let wide = P::List(vec![P::Number("340282366920938463463374607431768211455".into()), P::Int(1)]);
        assert_eq!(
            bind(&wide, "Array(UInt128)").unwrap().1,
            "[CAST('340282366920938463463374607431768211455' AS UInt128),CAST('1' AS UInt128)]"
        );
        assert_eq!(bind(&P::List(vec![P::Int(1), P::Int(2)]), "Array(UInt8)").unwrap().1, "[1,2]");
        assert!(bind(&P::Int(3), "Enum8('a' = 1)").is_err());
        assert_eq!(bind(&P::Int(-3723), "Time").unwrap().0, "-01:02:03");
        assert_eq!(bind(&P::Int(3_723_050), "Time64(3)").unwrap().0, "01:02:03.050");
        assert_eq!(bind(&P::List(vec![P::Float(1.5), P::Int(2)]), "QBit(Float32, 2)").unwrap().0, "[1.5,2]");
    }
}
