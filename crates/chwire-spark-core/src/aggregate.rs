//! Aggregates Spark may leave to ClickHouse, written to give Spark's own results:
//!
//! * COUNT(*), COUNT(col), COUNT(DISTINCT col);
//! * SUM and SUM(DISTINCT) (ClickHouse 20 and later) of every numeric type: integers and UInt64 (Spark's long or
//!   DecimalType(20, 0)) as Decimal(38, 0), which no 64-bit sum overflows (ClickHouse's sum of
//!   Int64 wraps around silently); Decimal(P, S) as Decimal(38, S) up to 18 digits and as
//!   Decimal(76, S) beyond, where the server has Decimal256 (not 18.16: such a sum stays with
//!   Spark there); floats in Float64, as Spark sums them (in another order: a float sum is as
//!   exact as Spark's own, which also depends on the partitions). The result reaches Spark's
//!   type (long, DecimalType(P + 10, S), double) through the checked conversion: a sum out of
//!   its range is an error, as Spark's (ANSI) own SUM's;
//! * AVG of integers and floats (`avg(toFloat64(col))`: Spark sums an integer average in
//!   double too). The AVG of a decimal (and of a UInt64) is not pushed whole: Spark
//!   then rewrites it into SUM and COUNT, pushes those, and divides itself with its own rounding
//!   (`supportCompletePushDown` false, see the JVM connector);
//! * MIN/MAX of numbers, strings, Enums (as their text, as Spark orders them), Dates, Bools and
//!   timestamps; a float's NaN is larger than any number, as in Spark (MAX is NaN when there is
//!   one, MIN only when all are);
//! * grouped by columns of those kinds other than floats.
//!
//! Without GROUP BY, Spark's SUM/AVG/MIN/MAX of no rows are NULL where ClickHouse gives the
//! type's default (or NaN): they are written `if(count() = 0, NULL, ...)`.
//!
//! With `uint64=long` a UInt64 above 2^63 - 1 is an error when read: a pushed SUM or MAX of it
//! fails the same way (the result does not fit a long), a MIN is written to fail too, and AVG
//! stays with Spark.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

use crate::plan::{Part, Plan};
use crate::sql::quote_ident;
use crate::types::{class, Class, SparkColumn};

/// One aggregate function of Spark's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fn", rename_all = "snake_case")]
pub enum Agg {
    /// `COUNT(*)`.
    CountStar,
    /// `COUNT(col)`, or `COUNT(DISTINCT col)`.
    Count {
        /// The column.
        col: String,
        /// `DISTINCT`.
        #[serde(default)]
        distinct: bool,
    },
    /// `SUM(col)`, or `SUM(DISTINCT col)`.
    Sum {
        /// The column.
        col: String,
        /// `DISTINCT`.
        #[serde(default)]
        distinct: bool,
    },
    /// `AVG(col)` (never pushed with `DISTINCT`).
    Avg {
        /// The column.
        col: String,
        /// `DISTINCT`.
        #[serde(default)]
        distinct: bool,
    },
    /// `MIN(col)`.
    Min {
        /// The column.
        col: String,
    },
    /// `MAX(col)`.
    Max {
        /// The column.
        col: String,
    },
    /// Any other function: the aggregation stays with Spark.
    #[serde(other)]
    Other,
}

/// The SELECT list and GROUP BY of an aggregation pushed whole, with each output column's
/// Spark type (Spark's JSON type format) and ClickHouse type (for a top-N over it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pushed {
    /// The output columns: the grouping keys, then one expression per aggregate.
    pub select: Vec<String>,
    /// The GROUP BY keys (empty without grouping).
    pub group_by: Vec<String>,
    /// Each output column's Spark type, in Spark's JSON type format.
    #[serde(default)]
    pub spark_types: Vec<Value>,
    /// Each output column's ClickHouse type.
    #[serde(default)]
    pub ch_types: Vec<String>,
}

/// One input column: its ClickHouse type and the Spark type it is read as.
struct Col<'a> {
    q: String,
    ch_type: &'a str,
    class: Class,
    spark: Value,
}

/// What the server can do, and how UInt64 is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Caps {
    /// Decimal256 (ClickHouse 21 and later; not 18.16).
    pub decimal256: bool,
    /// `sum(DISTINCT x)`, the `-Distinct` combinator (ClickHouse 20 and later).
    pub sum_distinct: bool,
    /// `uint64=long`: a UInt64 is Spark's long, a value above 2^63 - 1 an error.
    pub uint64_long: bool,
}

const LONG_MAX: &str = "9223372036854775807";

fn column<'a>(name: &str, columns: &[SparkColumn], pushable: &'a BTreeMap<String, String>) -> Option<Col<'a>> {
    let ch_type = pushable.get(name)?;
    let c = columns.iter().find(|c| c.name == name)?;
    Some(Col { q: quote_ident(name), ch_type: ch_type.as_str(), class: class(ch_type)?, spark: c.field.get("type")?.clone() })
}

/// The aggregation of Spark's `groups` and `aggs` over `columns` (the source's columns as
/// planned), of which only those in `pushable` (name → ClickHouse type: read as planned, no
/// conversion on the server) may be used; None when any part of it stays with Spark.
pub fn aggregate_sql(
    groups: &[String],
    aggs: &[Agg],
    columns: &[SparkColumn],
    pushable: &BTreeMap<String, String>,
    caps: Caps,
) -> Option<Pushed> {
    let col = |name: &str| column(name, columns, pushable);
    let grouped = !groups.is_empty();
    let (mut select, mut group_by, mut spark_types, mut ch_types) = (vec![], vec![], vec![], vec![]);
    for g in groups {
        let c = col(g)?;
        let (key, ch) = match c.class {
            Class::Float32 | Class::Float64 => return None,
            Class::Enum => (format!("toString({})", c.q), "String".to_string()),
            _ => (c.q.clone(), c.ch_type.to_string()),
        };
        select.push(key.clone());
        group_by.push(key);
        spark_types.push(c.spark);
        ch_types.push(ch);
    }
    let empty_is_null = |e: String| if grouped { e } else { format!("if(count() = 0, NULL, {e})") };
    for a in aggs {
        let (e, spark, ch) = match a {
            Agg::CountStar => ("count()".to_string(), json!("long"), "UInt64".to_string()),
            Agg::Count { col: name, distinct: false } => {
                pushable.get(name)?;
                (format!("count({})", quote_ident(name)), json!("long"), "UInt64".into())
            }
            Agg::Count { col: name, distinct: true } => {
                // uniqExact, not count(DISTINCT): that one follows the count_distinct_implementation
                // setting. 18.16 gives NULL for no value (ifNull: Spark's 0).
                let c = col(name)?;
                (format!("ifNull(uniqExact({}), 0)", distinct_arg(&c)), json!("long"), "UInt64".into())
            }
            Agg::Sum { col: name, distinct } => {
                let c = col(name)?;
                let (arg, spark, ch) = sum_arg(&c, caps)?;
                if *distinct && !caps.sum_distinct {
                    return None;
                }
                let arg = if *distinct { format!("DISTINCT {arg}") } else { arg };
                (empty_is_null(format!("sum({arg})")), spark, ch)
            }
            Agg::Avg { col: name, distinct: false } => {
                let c = col(name)?;
                // A decimal's (and a UInt64's, a decimal or a long that may fail) stays.
                if !matches!(c.class, Class::Int | Class::Float32 | Class::Float64) {
                    return None;
                }
                let e = format!("if(count({q}) = 0, NULL, avg(toFloat64({q})))", q = c.q);
                (e, json!("double"), "Float64".into())
            }
            Agg::Avg { distinct: true, .. } => return None,
            Agg::Min { col: name } | Agg::Max { col: name } => {
                let c = col(name)?;
                let max = matches!(a, Agg::Max { .. });
                let e = min_max(&c, max, caps)?;
                let ch = if c.class == Class::Enum { "String".to_string() } else { c.ch_type.to_string() };
                (empty_is_null(e), c.spark, ch)
            }
            Agg::Other => return None,
        };
        select.push(e);
        spark_types.push(spark);
        ch_types.push(ch);
    }
    Some(Pushed { select, group_by, spark_types, ch_types })
}

/// A column as counted DISTINCT: a float's NaNs as one value and -0.0 as 0.0, as Spark
/// normalizes them (`x + 0` turns -0.0 into 0.0). A NaN becomes the pair (1, 0): a hash set
/// keyed by a NaN itself (18.16's uniqExact) counts every NaN apart, as NaN ≠ NaN.
fn distinct_arg(c: &Col<'_>) -> String {
    match c.class {
        Class::Float32 | Class::Float64 => format!("isNaN({q}), if(isNaN({q}), 0, {q} + 0)", q = c.q),
        _ => c.q.clone(),
    }
}

/// SUM's argument, Spark's result type and ClickHouse's.
fn sum_arg(c: &Col<'_>, caps: Caps) -> Option<(String, Value, String)> {
    let q = &c.q;
    Some(match c.class {
        Class::Int => (format!("toDecimal128({q}, 0)"), json!("long"), "Decimal(38, 0)".into()),
        // decimal(20,0) + 10 digits, or a long with uint64=long (a sum above it is an error).
        Class::U64 => {
            let spark = if caps.uint64_long { json!("long") } else { json!("decimal(30,0)") };
            (format!("toDecimal128({q}, 0)"), spark, "Decimal(38, 0)".into())
        }
        Class::Float32 | Class::Float64 => (format!("toFloat64({q})"), json!("double"), "Float64".into()),
        Class::Dec(p, s) => {
            let spark = json!(format!("decimal({},{s})", (p + 10).min(38)));
            // Up to 18 digits, Decimal128 holds the sum of more rows than any table has; wider
            // ones are summed in Decimal256 where the server has it.
            if p <= 18 {
                (format!("toDecimal128({q}, {s})"), spark, format!("Decimal(38, {s})"))
            } else if caps.decimal256 {
                (format!("toDecimal256({q}, {s})"), spark, format!("Decimal(76, {s})"))
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

fn min_max(c: &Col<'_>, max: bool, caps: Caps) -> Option<String> {
    let f = if max { "max" } else { "min" };
    let q = &c.q;
    Some(match c.class {
        Class::Enum => format!("{f}(toString({q}))"),
        Class::Float32 | Class::Float64 => {
            // Spark orders NaN above every number: MAX is NaN when any value is; MIN only when
            // every (non-NULL) value is. ClickHouse's min/max of NaNs depend on the order.
            let nan = if c.class == Class::Float32 { "toFloat32(nan)" } else { "nan" };
            let numbers = format!("{f}If({q}, NOT isNaN({q}))");
            if max {
                format!("if(countIf(isNaN({q})) > 0, {nan}, {numbers})")
            } else {
                format!("if(countIf(isNaN({q})) > 0 AND countIf(NOT isNaN({q})) = 0, {nan}, {numbers})")
            }
        }
        // A UInt64 above a long is an error when Spark reads it: the MIN of such a column
        // gives that value (MAX does anyway), which then fails the conversion to a long.
        Class::U64 if caps.uint64_long && !max => format!("if(max({q}) > {LONG_MAX}, max({q}), min({q}))"),
        _ => format!("{f}({q})"),
    })
}

impl Plan {
    /// The plan of an aggregation pushed whole: one partition over the whole source (a
    /// Distributed table aggregates its shards; the `cluster` option reads `cluster()`).
    pub fn aggregated(&self, pushed: &Pushed) -> Plan {
        let from = match (&self.options.cluster, &self.options.table) {
            (Some(c), Some(_)) if self.engine != "Distributed" => {
                format!("cluster({}, {})", crate::sql::sql_string(c), self.source)
            }
            _ => self.source.clone(),
        };
        let columns = pushed
            .select
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let name = format!("_chwire_agg_{i}");
                let field = match pushed.spark_types.get(i) {
                    Some(t) => json!({"name": name, "type": t, "nullable": true, "metadata": {}}),
                    None => Value::Null,
                };
                SparkColumn {
                    select: format!("{e} AS {}", quote_ident(&name)),
                    name,
                    ch_type: pushed.ch_types.get(i).cloned().unwrap_or_default(),
                    field,
                    converted: true,
                }
            })
            .collect();
        Plan {
            columns,
            partitions: vec![Part { url: self.options.url.clone(), from, cond: String::new(), shard: None }],
            group_by: Some(pushed.group_by.join(", ")).filter(|g| !g.is_empty()),
            order_by: None,
            ..self.clone()
        }
    }

    /// The capabilities the aggregate rules need, from this plan.
    pub fn caps(&self) -> Caps {
        Caps { decimal256: self.server_major >= 21, sum_distinct: self.server_major >= 20, uint64_long: self.options.uint64_long }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::spark_column;

    fn columns() -> (Vec<SparkColumn>, BTreeMap<String, String>) {
        let defs = [
            ("k", "Int32"),
            ("s", "String"),
            ("e", "Enum8('b' = 1, 'a' = 2)"),
            ("f", "Float64"),
            ("f4", "Nullable(Float32)"),
            ("n", "Nullable(Int16)"),
            ("u", "UInt64"),
            ("d", "Decimal(18, 4)"),
            ("w", "Decimal(38, 2)"),
            ("t", "DateTime64(3, 'UTC')"),
            ("ns", "DateTime64(9)"),
        ];
        let cols = defs.iter().map(|(n, t)| spark_column(n, t, false).unwrap()).collect();
        (cols, defs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect())
    }

    fn sql(groups: &[&str], aggs: &str, caps: Caps) -> Option<Pushed> {
        let (cols, types) = columns();
        let aggs: Vec<Agg> = serde_json::from_str(aggs).unwrap();
        aggregate_sql(&groups.iter().map(|g| g.to_string()).collect::<Vec<_>>(), &aggs, &cols, &types, caps)
    }

    #[test]
    fn exact_aggregates_of_every_numeric_type() {
        let p = sql(
            &["e", "k"],
            r#"[{"fn":"count_star"},{"fn":"sum","col":"n"},{"fn":"min","col":"e"},{"fn":"max","col":"s"},{"fn":"count","col":"f"},
               {"fn":"sum","col":"u"},{"fn":"sum","col":"d"},{"fn":"sum","col":"f4"},{"fn":"avg","col":"k"}]"#,
            Caps::default(),
        )
        .unwrap();
        assert_eq!(p.group_by, ["toString(`e`)", "`k`"]);
        assert_eq!(
            p.select[2..],
            [
                "count()",
                "sum(toDecimal128(`n`, 0))",
                "min(toString(`e`))",
                "max(`s`)",
                "count(`f`)",
                "sum(toDecimal128(`u`, 0))",
                "sum(toDecimal128(`d`, 4))",
                "sum(toFloat64(`f4`))",
                "if(count(`k`) = 0, NULL, avg(toFloat64(`k`)))"
            ]
        );
        let types: Vec<String> = p.spark_types.iter().map(|t| t.as_str().unwrap().to_string()).collect();
        assert_eq!(
            types,
            ["string", "integer", "long", "long", "string", "string", "long", "decimal(30,0)", "decimal(28,4)", "double", "double"]
        );
        assert_eq!(p.ch_types[..3], ["String", "Int32", "UInt64"]);
        let whole = sql(&[], r#"[{"fn":"sum","col":"n"}]"#, Caps::default()).unwrap();
        assert_eq!(whole.select, ["if(count() = 0, NULL, sum(toDecimal128(`n`, 0)))"]);
    }

    #[test]
    fn wide_decimals_need_decimal256() {
        let agg = r#"[{"fn":"sum","col":"w"}]"#;
        assert_eq!(sql(&[], agg, Caps::default()), None);
        let p = sql(&["k"], agg, Caps { decimal256: true, ..Caps::default() }).unwrap();
        assert_eq!(p.select[1], "sum(toDecimal256(`w`, 2))");
        assert_eq!(p.spark_types[1], json!("decimal(38,2)"));
    }

    #[test]
    fn distinct_counts_and_sums() {
        let aggs =
            r#"[{"fn":"count","col":"s","distinct":true},{"fn":"count","col":"f","distinct":true},{"fn":"sum","col":"k","distinct":true}]"#;
        assert_eq!(sql(&[], aggs, Caps::default()), None); // 18.16 has no sum(DISTINCT x)
        let p = sql(&[], aggs, Caps { sum_distinct: true, ..Caps::default() }).unwrap();
        assert_eq!(
            p.select,
            [
                "ifNull(uniqExact(`s`), 0)",
                "ifNull(uniqExact(isNaN(`f`), if(isNaN(`f`), 0, `f` + 0)), 0)",
                "if(count() = 0, NULL, sum(DISTINCT toDecimal128(`k`, 0)))"
            ]
        );
        assert_eq!(sql(&[], r#"[{"fn":"avg","col":"k","distinct":true}]"#, Caps::default()), None);
    }

    #[test]
    fn floats_order_nan_last_and_are_no_keys() {
        let p = sql(&["k"], r#"[{"fn":"max","col":"f"},{"fn":"min","col":"f4"}]"#, Caps::default()).unwrap();
        assert_eq!(p.select[1], "if(countIf(isNaN(`f`)) > 0, nan, maxIf(`f`, NOT isNaN(`f`)))");
        assert_eq!(
            p.select[2],
            "if(countIf(isNaN(`f4`)) > 0 AND countIf(NOT isNaN(`f4`)) = 0, toFloat32(nan), minIf(`f4`, NOT isNaN(`f4`)))"
        );
        assert_eq!(sql(&["f"], r#"[{"fn":"count_star"}]"#, Caps::default()), None);
    }

    #[test]
    fn what_stays_with_spark() {
        // a decimal's AVG (Spark divides with its own rounding), sub-microsecond timestamps,
        // unknown functions, unknown columns
        assert_eq!(sql(&[], r#"[{"fn":"avg","col":"d"}]"#, Caps::default()), None);
        assert_eq!(sql(&[], r#"[{"fn":"avg","col":"u"}]"#, Caps::default()), None);
        assert_eq!(sql(&[], r#"[{"fn":"min","col":"ns"}]"#, Caps::default()), None);
        assert!(sql(&[], r#"[{"fn":"min","col":"t"}]"#, Caps::default()).is_some());
        assert_eq!(sql(&[], r#"[{"fn":"var_pop","col":"k"}]"#, Caps::default()), None);
        assert_eq!(sql(&[], r#"[{"fn":"sum","col":"zz"}]"#, Caps::default()), None);
        assert_eq!(serde_json::from_str::<Agg>(r#"{"fn":"corr","col":"k"}"#).unwrap(), Agg::Other);
    }

    #[test]
    fn uint64_as_long_fails_where_spark_would() {
        let long = Caps { uint64_long: true, ..Caps::default() };
        let p = sql(&[], r#"[{"fn":"min","col":"u"},{"fn":"avg","col":"k"}]"#, long).unwrap();
        assert_eq!(p.select[0], "if(count() = 0, NULL, if(max(`u`) > 9223372036854775807, max(`u`), min(`u`)))");
        assert_eq!(sql(&[], r#"[{"fn":"avg","col":"u"}]"#, long), None);
        assert_eq!(sql(&[], r#"[{"fn":"sum","col":"u"}]"#, long).unwrap().spark_types, [json!("long")]);
    }
}
