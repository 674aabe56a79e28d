//! Spark filters → ClickHouse WHERE conditions.
//!
//! Only filters whose meaning is the same on both sides are pushed: comparisons of integer,
//! string, Enum and Date columns with literals of the column's kind, IN, IS (NOT) NULL, NOT,
//! and LIKE-style prefix/suffix/substring tests on strings. Floats (NaN orders differently),
//! UInt64 (a Decimal in Spark), timestamps (time zones) and converted columns stay with
//! Spark. Where ClickHouse would differ, the condition is written to agree with Spark: an Enum
//! is compared as its text (ClickHouse orders Enums by number and refuses names they do not
//! have), `x IN (...)` is NULL for a NULL x (18.16 says 0, which NOT would turn into 1), and a
//! Date literal is a day number, pushed only inside the range of Date (18.16 wraps others).
//!
//! Each front end turns its own filter objects (PySpark's `pyspark.sql.datasource` filters,
//! the JVM's V2 `Predicate`s) into [`Filter`] (JSON across the bindings).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::sql::{quote_ident, sql_string};
use crate::types::unwrapped;

/// A literal of a filter, by the kind of value Spark holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "v", rename_all = "snake_case")]
pub enum Lit {
    /// An integer (Spark's byte, short, int or long).
    Int(i64),
    /// A string.
    Str(String),
    /// Days since 1970-01-01.
    Date(i64),
    /// Any other value (booleans, floats, timestamps, decimals...): never pushed.
    Other,
}

/// A filter of Spark's, on one column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Filter {
    /// `col = value`.
    Eq {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col > value`.
    Gt {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col >= value`.
    Ge {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col < value`.
    Lt {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col <= value`.
    Le {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col IN (values)`.
    In {
        /// The column.
        col: String,
        /// The literals.
        values: Vec<Lit>,
    },
    /// `col IS NULL`.
    IsNull {
        /// The column.
        col: String,
    },
    /// `col IS NOT NULL`.
    IsNotNull {
        /// The column.
        col: String,
    },
    /// `NOT child`.
    Not {
        /// The negated filter.
        child: Box<Filter>,
    },
    /// `col` starts with `value` (a string).
    StartsWith {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col` ends with `value` (a string).
    EndsWith {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// `col` contains `value` (a string).
    Contains {
        /// The column.
        col: String,
        /// The literal.
        value: Lit,
    },
    /// A filter the front end has no translation for.
    #[serde(other)]
    Other,
}

/// What a column is compared as.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Int,
    Str,
    Enum,
    Date,
}

const INTS: &[&str] = &["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32"];

/// Whether Spark sees a NULL exactly where ClickHouse has one: not for a Dynamic, whose NULL
/// is read as the JSON text `null` (as ClickHouse writes it to Arrow), so `isNull` in
/// ClickHouse would take rows that Spark holds as text.
fn nulls_are_sparks(ch_type: &str) -> bool {
    !unwrapped(ch_type).starts_with("Dynamic")
}

pub(crate) fn kind(ch_type: &str) -> Option<Kind> {
    let t = unwrapped(ch_type);
    if INTS.contains(&t) {
        Some(Kind::Int)
    } else if t == "String" {
        Some(Kind::Str)
    } else if t.starts_with("Enum") {
        // Compared as its text; 18.16 cannot take the text of a Nullable Enum that is NULL.
        (!ch_type.starts_with("Nullable(")).then_some(Kind::Enum)
    } else if t == "Date" {
        Some(Kind::Date)
    } else {
        None
    }
}

fn literal(kind: Kind, v: &Lit) -> Option<String> {
    match (kind, v) {
        (Kind::Int, Lit::Int(i)) => Some(i.to_string()),
        (Kind::Str | Kind::Enum, Lit::Str(s)) => Some(sql_string(s)),
        (Kind::Date, Lit::Date(d)) if (0..=65535).contains(d) => Some(format!("toDate(toUInt16({d}))")),
        _ => None,
    }
}

fn like(v: &str) -> String {
    v.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// The WHERE condition of `f` over columns of ClickHouse types `types` (the columns that
/// Spark sees as planned: same name, planned type, no conversion), or None when it stays
/// with Spark.
pub fn filter_sql(f: &Filter, types: &BTreeMap<String, String>) -> Option<String> {
    use Filter as F;
    let (col, ch_type) = match f {
        F::Not { child } => return filter_sql(child, types).map(|c| format!("NOT ({c})")),
        F::Other => return None,
        F::Eq { col, .. }
        | F::Gt { col, .. }
        | F::Ge { col, .. }
        | F::Lt { col, .. }
        | F::Le { col, .. }
        | F::In { col, .. }
        | F::IsNull { col }
        | F::IsNotNull { col }
        | F::StartsWith { col, .. }
        | F::EndsWith { col, .. }
        | F::Contains { col, .. } => (col, types.get(col)?),
    };
    let mut ident = quote_ident(col);
    match f {
        F::IsNull { .. } => return nulls_are_sparks(ch_type).then(|| format!("isNull({ident})")),
        F::IsNotNull { .. } => return nulls_are_sparks(ch_type).then(|| format!("isNotNull({ident})")),
        _ => {}
    }
    let kind = kind(ch_type)?;
    if kind == Kind::Enum {
        ident = format!("toString({ident})");
    }
    let cmp = |op: &str, v: &Lit| literal(kind, v).map(|l| format!("{ident} {op} {l}"));
    let like_of = |v: &Lit, pattern: &dyn Fn(String) -> String| match (kind, v) {
        (Kind::Str | Kind::Enum, Lit::Str(s)) => Some(format!("{ident} LIKE {}", sql_string(&pattern(like(s))))),
        _ => None,
    };
    match f {
        F::Eq { value, .. } => cmp("=", value),
        F::Gt { value, .. } => cmp(">", value),
        F::Ge { value, .. } => cmp(">=", value),
        F::Lt { value, .. } => cmp("<", value),
        F::Le { value, .. } => cmp("<=", value),
        F::In { values, .. } => {
            let lits: Option<Vec<String>> = values.iter().map(|v| literal(kind, v)).collect();
            let lits = lits.filter(|l| !l.is_empty())?;
            let cond = format!("{ident} IN ({})", lits.join(", "));
            let nullable = ch_type.starts_with("Nullable(") || ch_type.starts_with("LowCardinality(Nullable(");
            Some(if nullable { format!("if(isNull({ident}), NULL, {cond})") } else { cond })
        }
        F::StartsWith { value, .. } => like_of(value, &|s| format!("{s}%")),
        F::EndsWith { value, .. } => like_of(value, &|s| format!("%{s}")),
        F::Contains { value, .. } => like_of(value, &|s| format!("%{s}%")),
        _ => None,
    }
}

/// [`filter_sql`] of a filter given as JSON; a filter that does not parse is not pushed.
pub fn filter_sql_json(filter: &str, types: &BTreeMap<String, String>) -> Option<String> {
    serde_json::from_str::<Filter>(filter).ok().and_then(|f| filter_sql(&f, types))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> BTreeMap<String, String> {
        [
            ("id", "Int32"),
            ("u", "UInt64"),
            ("s", "String"),
            ("e", "Enum8('b' = 1, 'a' = 2)"),
            ("ne", "Nullable(Enum8('a' = 1))"),
            ("d", "Date"),
            ("n", "Nullable(Int16)"),
            ("f", "Float64"),
            ("lcn", "LowCardinality(Nullable(String))"),
            ("dy", "Dynamic(max_types=8)"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
    }

    fn sql(json: &str) -> Option<String> {
        filter_sql_json(json, &types())
    }

    #[test]
    fn comparisons_by_kind() {
        assert_eq!(sql(r#"{"op":"gt","col":"id","value":{"kind":"int","v":2}}"#).unwrap(), "`id` > 2");
        assert_eq!(sql(r#"{"op":"eq","col":"s","value":{"kind":"str","v":"it's"}}"#).unwrap(), "`s` = 'it\\'s'");
        // an Enum by its text, as Spark orders it
        assert_eq!(sql(r#"{"op":"lt","col":"e","value":{"kind":"str","v":"b"}}"#).unwrap(), "toString(`e`) < 'b'");
        assert_eq!(sql(r#"{"op":"lt","col":"ne","value":{"kind":"str","v":"b"}}"#), None);
        // a literal of another kind, floats, UInt64 and unknown columns stay with Spark
        assert_eq!(sql(r#"{"op":"eq","col":"id","value":{"kind":"str","v":"1"}}"#), None);
        assert_eq!(sql(r#"{"op":"eq","col":"f","value":{"kind":"other"}}"#), None);
        assert_eq!(sql(r#"{"op":"eq","col":"u","value":{"kind":"int","v":1}}"#), None);
        assert_eq!(sql(r#"{"op":"eq","col":"zz","value":{"kind":"int","v":1}}"#), None);
        assert_eq!(sql(r#"{"op":"fancy","col":"id"}"#), None);
        assert_eq!(sql(r#"{"op":"is_null","col":"f"}"#).unwrap(), "isNull(`f`)");
    }

    #[test]
    fn wrappers_in_either_order_and_nulls_spark_does_not_see() {
        assert_eq!(sql(r#"{"op":"eq","col":"lcn","value":{"kind":"str","v":"a"}}"#).unwrap(), "`lcn` = 'a'");
        let f = r#"{"op":"in","col":"lcn","values":[{"kind":"str","v":"a"}]}"#;
        assert_eq!(sql(f).unwrap(), "if(isNull(`lcn`), NULL, `lcn` IN ('a'))");
        // A NULL Dynamic reaches Spark as the text `null`: its IS NULL stays with Spark.
        assert_eq!(sql(r#"{"op":"is_null","col":"dy"}"#), None);
        assert_eq!(sql(r#"{"op":"not","child":{"op":"is_not_null","col":"dy"}}"#), None);
        assert_eq!(sql(r#"{"op":"is_not_null","col":"lcn"}"#).unwrap(), "isNotNull(`lcn`)");
    }

    #[test]
    fn dates_only_within_range() {
        assert_eq!(sql(r#"{"op":"ge","col":"d","value":{"kind":"date","v":18262}}"#).unwrap(), "`d` >= toDate(toUInt16(18262))");
        assert_eq!(sql(r#"{"op":"ge","col":"d","value":{"kind":"date","v":-1}}"#), None);
        assert_eq!(sql(r#"{"op":"ge","col":"d","value":{"kind":"date","v":65536}}"#), None);
    }

    #[test]
    fn in_is_null_safe_and_not_nests() {
        let f = r#"{"op":"not","child":{"op":"in","col":"n","values":[{"kind":"int","v":1},{"kind":"int","v":5}]}}"#;
        assert_eq!(sql(f).unwrap(), "NOT (if(isNull(`n`), NULL, `n` IN (1, 5)))");
        assert_eq!(sql(r#"{"op":"in","col":"id","values":[{"kind":"int","v":1}]}"#).unwrap(), "`id` IN (1)");
        assert_eq!(sql(r#"{"op":"in","col":"id","values":[]}"#), None);
        assert_eq!(sql(r#"{"op":"in","col":"id","values":[{"kind":"int","v":1},{"kind":"other"}]}"#), None);
    }

    #[test]
    fn like_escapes_wildcards() {
        assert_eq!(sql(r#"{"op":"starts_with","col":"s","value":{"kind":"str","v":"a%_\\"}}"#).unwrap(), "`s` LIKE 'a\\\\%\\\\_\\\\\\\\%'");
        assert_eq!(sql(r#"{"op":"contains","col":"e","value":{"kind":"str","v":"x"}}"#).unwrap(), "toString(`e`) LIKE '%x%'");
        assert_eq!(sql(r#"{"op":"ends_with","col":"id","value":{"kind":"str","v":"x"}}"#), None);
    }
}
