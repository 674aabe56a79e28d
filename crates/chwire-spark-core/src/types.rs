//! ClickHouse column types → Spark types, and the SELECT expression that reads each column.
//!
//! A Spark type is given in Spark's JSON type format (`"long"`, `"decimal(20,0)"`,
//! `{"type":"array",...}`), which PySpark (`StructField.fromJson`) and the JVM
//! (`DataType.fromJson`) both read. Types Spark has no equivalent for are converted on the
//! server (UUID and IP addresses become their text), read as JSON text (JSON, Dynamic) or
//! refused with an error naming the column.

use chwire::DataType;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::sql::quote_ident;

/// A column type without a Spark mapping (the message names the column and its type).
#[derive(Debug, Clone, PartialEq)]
pub struct UnsupportedType(pub String);

impl std::fmt::Display for UnsupportedType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A Spark data type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SparkType {
    /// ByteType (8-bit signed).
    Byte,
    /// ShortType (16-bit signed).
    Short,
    /// IntegerType (32-bit signed).
    Integer,
    /// LongType (64-bit signed).
    Long,
    /// FloatType.
    Float,
    /// DoubleType.
    Double,
    /// BooleanType.
    Boolean,
    /// StringType.
    String,
    /// BinaryType.
    Binary,
    /// DateType (days).
    Date,
    /// TimestampType (an instant, in microseconds).
    Timestamp,
    /// DecimalType(precision, scale).
    Decimal(u8, u8),
    /// ArrayType: the element type, and whether elements may be null.
    Array(Box<SparkType>, bool),
    /// Fields: name, type, nullable.
    Struct(Vec<(String, SparkType, bool)>),
    /// Key, value, value nullable.
    Map(Box<SparkType>, Box<SparkType>, bool),
}

impl SparkType {
    /// Spark's JSON form of the type.
    pub fn to_json(&self) -> Value {
        use SparkType as S;
        match self {
            S::Byte => json!("byte"),
            S::Short => json!("short"),
            S::Integer => json!("integer"),
            S::Long => json!("long"),
            S::Float => json!("float"),
            S::Double => json!("double"),
            S::Boolean => json!("boolean"),
            S::String => json!("string"),
            S::Binary => json!("binary"),
            S::Date => json!("date"),
            S::Timestamp => json!("timestamp"),
            S::Decimal(p, s) => json!(format!("decimal({p},{s})")),
            S::Array(t, n) => json!({"type": "array", "elementType": t.to_json(), "containsNull": n}),
            S::Struct(fields) => {
                json!({"type": "struct", "fields": fields.iter().map(|(n, t, nl)| field_json(n, t, *nl)).collect::<Vec<_>>()})
            }
            S::Map(k, v, n) => json!({"type": "map", "keyType": k.to_json(), "valueType": v.to_json(), "valueContainsNull": n}),
        }
    }
}

fn field_json(name: &str, t: &SparkType, nullable: bool) -> Value {
    json!({"name": name, "type": t.to_json(), "nullable": nullable, "metadata": {}})
}

/// One column as Spark reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparkColumn {
    /// The column's name.
    pub name: String,
    /// The ClickHouse type as the server names it.
    pub ch_type: String,
    /// Spark's JSON StructField.
    pub field: Value,
    /// Whether the server converts the column (`toString` of UUID/IP) before Spark sees it.
    pub converted: bool,
    /// The SELECT expression (the quoted name, or the conversion `AS` the quoted name).
    pub select: String,
}

/// (Spark type, nullable, converted on the server).
type Mapped = (SparkType, bool, bool);

fn unsupported<T>(m: impl Into<String>) -> Result<T, UnsupportedType> {
    Err(UnsupportedType(m.into()))
}

fn text_on_server(t: &DataType) -> bool {
    matches!(t, DataType::Uuid | DataType::Ipv4 | DataType::Ipv6)
}

fn map(t: &DataType, u64_long: bool) -> Result<Mapped, UnsupportedType> {
    use DataType as D;
    use SparkType as S;
    let plain = |s: SparkType| Ok((s, false, false));
    match t {
        D::Int8 => plain(S::Byte),
        D::Int16 | D::UInt8 => plain(S::Short),
        D::Int32 | D::UInt16 => plain(S::Integer),
        D::Int64 | D::UInt32 => plain(S::Long),
        // Spark has no unsigned 64-bit integer: DecimalType(20, 0) holds every value; with
        // uint64=long a value above 2^63 - 1 is an error of the checked cast when read.
        D::UInt64 => plain(if u64_long { S::Long } else { S::Decimal(20, 0) }),
        D::Float32 => plain(S::Float),
        D::Float64 => plain(S::Double),
        D::Bool => plain(S::Boolean),
        D::String | D::Enum8(_) | D::Enum16(_) => plain(S::String),
        D::FixedString(_) => plain(S::Binary),
        D::Date | D::Date32 => plain(S::Date),
        // Spark keeps microseconds: finer DateTime64 values are refused by the checked cast.
        D::DateTime(_) | D::DateTime64 { .. } => plain(S::Timestamp),
        D::Decimal { precision, scale } => {
            if *precision > 38 {
                return unsupported(format!("Decimal({precision}, {scale}) is wider than Spark's DecimalType (38 digits)"));
            }
            plain(S::Decimal(*precision, *scale))
        }
        D::Uuid | D::Ipv4 | D::Ipv6 => Ok((S::String, false, true)),
        // chwire's Arrow mapping writes both as JSON text, as ClickHouse 26.9 does; a Dynamic
        // value may be NULL.
        D::Json { .. } => plain(S::String),
        D::Dynamic { .. } => Ok((S::String, true, false)),
        D::Nullable(inner) => {
            let (t, _, conv) = map(inner, u64_long)?;
            Ok((t, true, conv))
        }
        D::LowCardinality(inner) => map(inner, u64_long),
        D::Array(inner) => {
            let (t, nullable, conv) = map(inner, u64_long)?;
            Ok((S::Array(Box::new(t), nullable), false, conv))
        }
        D::Tuple(elems) => {
            let mut fields = Vec::with_capacity(elems.len());
            for (i, (label, inner)) in elems.iter().enumerate() {
                let (t, nullable, conv) = map(inner, u64_long)?;
                if conv {
                    return unsupported("a Tuple element of type UUID/IPv4/IPv6 (read it with a query and toString)");
                }
                fields.push((label.clone().unwrap_or_else(|| (i + 1).to_string()), t, nullable));
            }
            plain(S::Struct(fields))
        }
        D::Map(k, v) => {
            let (kt, _, kconv) = map(k, u64_long)?;
            let (vt, vnull, vconv) = map(v, u64_long)?;
            if kconv || vconv {
                return unsupported("a Map of UUID/IPv4/IPv6 (read it with a query and toString)");
            }
            plain(S::Map(Box::new(kt), Box::new(vt), vnull))
        }
        other => {
            let name = other.to_string();
            let head = name.split('(').next().unwrap_or(&name).to_string();
            unsupported(format!("no Spark type for ClickHouse {head}"))
        }
    }
}

/// The SQL expression reading `reference` of type `t` as Spark can hold it.
fn expr(t: &DataType, reference: &str) -> String {
    match t {
        t if text_on_server(t) => format!("toString({reference})"),
        DataType::Nullable(inner) | DataType::LowCardinality(inner) => expr(inner, reference),
        DataType::Array(inner) => format!("arrayMap(x -> {}, {reference})", expr(inner, "x")),
        _ => reference.to_string(),
    }
}

/// What every refusal of a column Spark has no type for ends with.
pub(crate) const UNSUPPORTED_HINT: &str = "; leave it out with the 'columns' option or convert it in a 'query'";

/// The refusal of several columns Spark has no type for: each column's reason, the hint once.
pub(crate) fn refusal_of_columns(refused: &[UnsupportedType]) -> String {
    if refused.len() == 1 {
        return refused[0].0.clone();
    }
    let reasons: Vec<&str> = refused.iter().map(|r| r.0.strip_suffix(UNSUPPORTED_HINT).unwrap_or(&r.0)).collect();
    format!("{}; leave them out with the 'columns' option or convert each in a 'query'", reasons.join("\n"))
}

/// The Spark column of a ClickHouse column `name` of type `ch_type`.
pub fn spark_column(name: &str, ch_type: &str, u64_long: bool) -> Result<SparkColumn, UnsupportedType> {
    let refused =
        |e: String| UnsupportedType(format!("column '{name}' of type {ch_type} cannot be read into Spark: {e}{UNSUPPORTED_HINT}"));
    let t = DataType::parse(ch_type).map_err(|e| refused(e.to_string()))?;
    let (st, nullable, converted) = map(&t, u64_long).map_err(|e| refused(e.0))?;
    let ident = quote_ident(name);
    let select = if converted { format!("{} AS {ident}", expr(&t, &ident)) } else { ident };
    Ok(SparkColumn { name: name.to_string(), ch_type: ch_type.to_string(), field: field_json(name, &st, nullable), converted, select })
}

/// What a column is, for the aggregate and sort rules (aggregate.rs, plan.rs `order_by`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Class {
    /// Int8..Int64, UInt8..UInt32: Spark's byte, short, integer, long.
    Int,
    /// UInt64: Spark's decimal(20,0), or long with `uint64=long`.
    U64,
    Float32,
    Float64,
    /// Decimal(P, S).
    Dec(u8, u8),
    Str,
    /// An Enum that is not Nullable (18.16 cannot take the text of a NULL Enum).
    Enum,
    Date,
    Bool,
    /// DateTime, DateTime64 of at most microseconds.
    Time,
}

/// `ch_type` without its `Nullable(...)` and `LowCardinality(...)` wrappers.
pub(crate) fn unwrapped(ch_type: &str) -> &str {
    let mut t = ch_type.trim();
    while let Some(inner) = t.strip_prefix("Nullable(").or_else(|| t.strip_prefix("LowCardinality(")) {
        t = inner.strip_suffix(')').unwrap_or(inner);
    }
    t
}

fn decimal(t: &str) -> Option<(u8, u8)> {
    let args = |s: &str| -> Option<Vec<u8>> { s.strip_suffix(')')?.split(',').map(|a| a.trim().parse().ok()).collect() };
    if let Some(rest) = t.strip_prefix("Decimal(") {
        let a = args(rest)?;
        return (a.len() == 2 && a[0] <= 76 && a[1] <= a[0]).then(|| (a[0], a[1]));
    }
    for (prefix, p) in [("Decimal32(", 9), ("Decimal64(", 18), ("Decimal128(", 38), ("Decimal256(", 76)] {
        if let Some(rest) = t.strip_prefix(prefix) {
            let a = args(rest)?;
            return (a.len() == 1 && a[0] <= p).then(|| (p, a[0]));
        }
    }
    None
}

pub(crate) fn class(ch_type: &str) -> Option<Class> {
    let t = unwrapped(ch_type);
    Some(match t {
        "Int8" | "Int16" | "Int32" | "Int64" | "UInt8" | "UInt16" | "UInt32" => Class::Int,
        "UInt64" => Class::U64,
        "Float32" => Class::Float32,
        "Float64" => Class::Float64,
        "String" => Class::Str,
        "Date" | "Date32" => Class::Date,
        "Bool" => Class::Bool,
        _ if t.starts_with("Enum") => {
            if ch_type.starts_with("Nullable(") {
                return None;
            }
            Class::Enum
        }
        _ if t == "DateTime" || t.starts_with("DateTime(") => Class::Time,
        _ if t.starts_with("DateTime64(") => {
            let p: u8 = t["DateTime64(".len()..].split([',', ')']).next()?.trim().parse().ok()?;
            if p > 6 {
                return None;
            }
            Class::Time
        }
        _ => {
            let (p, s) = decimal(t)?;
            if p > 38 {
                return None;
            }
            Class::Dec(p, s)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_refused_columns_give_the_hint_once() {
        let refused: Vec<UnsupportedType> =
            [("a", "Time"), ("b", "QBit(Float32, 8)")].iter().map(|(n, t)| spark_column(n, t, false).unwrap_err()).collect();
        let m = refusal_of_columns(&refused);
        assert!(m.contains("column 'a' of type Time") && m.contains("column 'b' of type QBit(Float32, 8)"), "{m}");
        assert_eq!(m.matches("leave").count(), 1, "{m}");
        assert!(m.ends_with("leave them out with the 'columns' option or convert each in a 'query'"), "{m}");
        assert_eq!(refusal_of_columns(&refused[..1]), refused[0].0);
    }

    fn ty(t: &str) -> Value {
        spark_column("c", t, false).unwrap().field["type"].clone()
    }

    #[test]
    fn scalars() {
        for (ch, spark) in [
            ("Int8", "byte"),
            ("UInt8", "short"),
            ("UInt16", "integer"),
            ("UInt32", "long"),
            ("Int64", "long"),
            ("UInt64", "decimal(20,0)"),
            ("Float32", "float"),
            ("String", "string"),
            ("Enum8('a' = 1)", "string"),
            ("FixedString(3)", "binary"),
            ("Date", "date"),
            ("DateTime('UTC')", "timestamp"),
            ("DateTime64(9)", "timestamp"),
            ("Decimal(38, 4)", "decimal(38,4)"),
            ("Decimal32(2)", "decimal(9,2)"),
            ("UUID", "string"),
        ] {
            assert_eq!(ty(ch), json!(spark), "{ch}");
        }
        assert_eq!(spark_column("c", "UInt64", true).unwrap().field["type"], json!("long"));
    }

    #[test]
    fn nesting_and_nulls() {
        let c = spark_column("c", "LowCardinality(Nullable(String))", false).unwrap();
        assert_eq!((c.field["nullable"].clone(), c.converted), (json!(true), false));
        assert_eq!(ty("Array(Nullable(Int32))"), json!({"type": "array", "elementType": "integer", "containsNull": true}));
        let t = ty("Tuple(a Int8, String)");
        assert_eq!(t["fields"][0]["name"], json!("a"));
        assert_eq!(t["fields"][1]["name"], json!("2"));
        assert_eq!(ty("Map(String, Nullable(UInt64))")["valueContainsNull"], json!(true));
    }

    #[test]
    fn conversions_on_the_server() {
        let c = spark_column("u`x", "Array(Nullable(IPv6))", false).unwrap();
        assert!(c.converted);
        assert_eq!(c.select, "arrayMap(x -> toString(x), `u\\`x`) AS `u\\`x`");
        assert_eq!(spark_column("d", "Date", false).unwrap().select, "`d`");
    }

    #[test]
    fn refusals_name_the_column() {
        for t in ["Int128", "UInt256", "Decimal(76, 10)", "Variant(String, UInt64)", "Nothing", "Tuple(UUID, String)"] {
            let e = spark_column("c", t, false).unwrap_err().0;
            assert!(e.starts_with("column 'c' of type"), "{e}");
        }
    }
}
