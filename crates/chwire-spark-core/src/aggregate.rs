//! Aggregates Spark may leave to ClickHouse: COUNT(*), COUNT(col), SUM of integer columns and
//! MIN/MAX of integer, string, Enum (as its text, as Spark orders it) and Date columns, grouped
//! by columns of those kinds — the aggregates whose results are exactly Spark's. Floats (the
//! order of additions changes a sum; NaN), AVG (a double division of Spark's own), DISTINCT and
//! expressions stay with Spark.
//!
//! A SUM is computed as Decimal(38, 0) (ClickHouse's sum of Int64 would wrap around silently);
//! a sum beyond a long is then an error, as Spark's (ANSI) own SUM's.
//!
//! Without GROUP BY, Spark's SUM/MIN/MAX of no rows are NULL where ClickHouse gives the type's
//! default: they are written `if(count() = 0, NULL, ...)`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::filters::{kind, Kind};
use crate::plan::{Part, Plan};
use crate::sql::quote_ident;
use crate::types::SparkColumn;

/// One aggregate function of Spark's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fn", rename_all = "snake_case")]
pub enum Agg {
    CountStar,
    Count {
        col: String,
    },
    Sum {
        col: String,
    },
    Min {
        col: String,
    },
    Max {
        col: String,
    },
    #[serde(other)]
    Other,
}

/// The SELECT list and GROUP BY of an aggregation pushed whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pushed {
    pub select: Vec<String>,
    pub group_by: Vec<String>,
}

fn group_key(col: &str, types: &BTreeMap<String, String>) -> Option<String> {
    let q = quote_ident(col);
    match kind(types.get(col)?)? {
        Kind::Enum => Some(format!("toString({q})")),
        _ => Some(q),
    }
}

/// The aggregation of Spark's `groups` and `aggs` over columns of ClickHouse types `types` (the
/// columns Spark sees as planned), or None when any part of it stays with Spark.
pub fn aggregate_sql(groups: &[String], aggs: &[Agg], types: &BTreeMap<String, String>) -> Option<Pushed> {
    let group_by = groups.iter().map(|g| group_key(g, types)).collect::<Option<Vec<_>>>()?;
    let grouped = !group_by.is_empty();
    let empty_is_null = |e: String| if grouped { e } else { format!("if(count() = 0, NULL, {e})") };
    let mut select = group_by.clone();
    for a in aggs {
        let e = match a {
            Agg::CountStar => "count()".to_string(),
            Agg::Count { col } => {
                types.get(col)?;
                format!("count({})", quote_ident(col))
            }
            Agg::Sum { col } => match kind(types.get(col)?)? {
                // Summed as Decimal(38, 0), which no 64-bit sum overflows: ClickHouse's
                // sum(Int64) wraps around where Spark's fails (ANSI) — the sum then reaches
                // Spark's long through the checked conversion, a sum out of its range an error.
                Kind::Int => empty_is_null(format!("sum(toDecimal128({}, 0))", quote_ident(col))),
                _ => return None,
            },
            Agg::Min { col } | Agg::Max { col } => {
                let f = if matches!(a, Agg::Min { .. }) { "min" } else { "max" };
                let arg = match kind(types.get(col)?)? {
                    Kind::Enum => format!("toString({})", quote_ident(col)),
                    _ => quote_ident(col),
                };
                empty_is_null(format!("{f}({arg})"))
            }
            Agg::Other => return None,
        };
        select.push(e);
    }
    Some(Pushed { select, group_by })
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
            .map(|(i, e)| SparkColumn {
                name: format!("_chwire_agg_{i}"),
                ch_type: String::new(),
                field: serde_json::Value::Null,
                converted: true,
                select: format!("{e} AS {}", quote_ident(&format!("_chwire_agg_{i}"))),
            })
            .collect();
        Plan {
            columns,
            partitions: vec![Part { url: self.options.url.clone(), from, cond: String::new(), shard: None }],
            group_by: Some(pushed.group_by.join(", ")).filter(|g| !g.is_empty()),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> BTreeMap<String, String> {
        [("k", "Int32"), ("s", "String"), ("e", "Enum8('b' = 1, 'a' = 2)"), ("f", "Float64"), ("n", "Nullable(Int16)")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn exact_aggregates_only() {
        let aggs: Vec<Agg> = serde_json::from_str(
            r#"[{"fn":"count_star"},{"fn":"sum","col":"n"},{"fn":"min","col":"e"},{"fn":"max","col":"s"},{"fn":"count","col":"f"}]"#,
        )
        .unwrap();
        let p = aggregate_sql(&["e".into(), "k".into()], &aggs, &types()).unwrap();
        assert_eq!(p.group_by, ["toString(`e`)", "`k`"]);
        assert_eq!(p.select[2..], ["count()", "sum(toDecimal128(`n`, 0))", "min(toString(`e`))", "max(`s`)", "count(`f`)"]);
        let whole = aggregate_sql(&[], &aggs[1..2], &types()).unwrap();
        assert_eq!(whole.select, ["if(count() = 0, NULL, sum(toDecimal128(`n`, 0)))"]);
        assert_eq!(aggregate_sql(&[], &[Agg::Sum { col: "f".into() }], &types()), None);
        assert_eq!(aggregate_sql(&["f".into()], &[Agg::CountStar], &types()), None);
        assert_eq!(aggregate_sql(&[], &[Agg::Other], &types()), None);
        assert_eq!(serde_json::from_str::<Agg>(r#"{"fn":"avg","col":"k"}"#).unwrap(), Agg::Other);
    }
}
