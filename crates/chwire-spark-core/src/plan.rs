//! What a read runs where: the columns, and one (URL, FROM, WHERE) per Spark partition.
//!
//! * a `Distributed` table, or a table with the `cluster` option: one partition per shard,
//!   reading the shard's local table from a multi-host URL of the shard's replicas (chwire
//!   connects to the first that answers; the replica order is rotated per shard to spread the
//!   load); with numPartitions above the number of shards, each shard's table is split further
//!   into ceil(numPartitions / shards) parts, as a plain table is (below);
//! * a plain table with numPartitions > 1: ranges of the first sorting-key column when it is
//!   an integer (the server skips the other ranges by its primary index), else
//!   `cityHash64(sorting key) % n`; first and last ranges are open, so every row is read once;
//! * a query: one partition, or with partitionColumn/lowerBound/upperBound, numPartitions
//!   strides (JDBC's rule: open first and last strides, NULLs in the first; the first is the
//!   complement of the others, `NOT (x >= b)`, so that a Float column's NaNs are read too).

use chwire::proto::column::Value;
use chwire::Client;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::options::SparkOptions;
use crate::sql::{engine_args, quote_ident, split_table, sql_string};
use crate::types::{spark_column, SparkColumn};
use crate::{invalid, Error, Result};

const INT_TYPES: &[&str] = &["UInt8", "UInt16", "UInt32", "UInt64", "Int8", "Int16", "Int32", "Int64"];

/// One Spark partition: where it connects, what it reads, which rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// chwire's URL to connect to (for a shard: its replicas as a multi-host URL).
    pub url: String,
    /// The FROM of the read.
    pub from: String,
    /// The partition's WHERE condition (empty: every row).
    #[serde(rename = "where")]
    pub cond: String,
    /// The shard's number, for a partition of a sharded read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// A read's plan, made on the driver and sent to the executors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The options of the read.
    pub options: SparkOptions,
    /// The connection's current database.
    pub database: String,
    /// The FROM of the read (`` `db`.`t` `` or `(query\n)`).
    pub source: String,
    /// The source table's engine (`MergeTree`, `Distributed`, …; empty for a query).
    pub engine: String,
    /// The columns Spark reads, with their Spark types and SELECT expressions.
    pub columns: Vec<SparkColumn>,
    /// Every column's (name, type) of the source, in its order (a split's key need not be read).
    pub types: Vec<(String, String)>,
    /// One entry per Spark partition.
    pub partitions: Vec<Part>,
    /// The GROUP BY of an aggregation pushed whole (see `aggregate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_by: Option<String>,
    /// The ORDER BY of a top-N Spark pushed (with its limit: each partition reads its own top
    /// N rows, Spark sorts them again and keeps N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// The server's major version (`version()`; 0 when unknown), for the aggregate rules:
    /// Decimal256 from 21, the `-Distinct` combinator (`sum(DISTINCT x)`) from 20.
    #[serde(default)]
    pub server_major: u32,
}

/// One key of a top-N: a column, its direction and where its NULLs go (Spark's SortOrder).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SortKey {
    /// The column.
    pub col: String,
    /// Descending rather than ascending.
    #[serde(default)]
    pub descending: bool,
    /// NULLs before the other values rather than after.
    #[serde(default)]
    pub nulls_first: bool,
}

/// The ORDER BY of Spark's sort `keys` over columns of ClickHouse types `types` (the columns
/// Spark sees as planned), ordered as Spark orders them, or None when any key stays with Spark:
/// numbers, strings (bytes, both sides), Enums as their text, dates, Bools and timestamps; a
/// float's NaN above every number (Spark's order; ClickHouse puts NaN beside the NULLs), so
/// `isNaN(x)` leads; NULLs where Spark's key puts them.
pub fn order_by(keys: &[SortKey], types: &BTreeMap<String, String>) -> Option<String> {
    use crate::types::{class, Class};
    if keys.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for k in keys {
        let q = quote_ident(&k.col);
        let dir = if k.descending { "DESC" } else { "ASC" };
        let nulls = if k.nulls_first { "NULLS FIRST" } else { "NULLS LAST" };
        match class(types.get(&k.col)?)? {
            Class::Float32 | Class::Float64 => {
                out.push(format!("isNaN({q}) {dir} {nulls}"));
                out.push(format!("{q} {dir} {nulls}"));
            }
            Class::Enum => out.push(format!("toString({q}) {dir} {nulls}")),
            _ => out.push(format!("{q} {dir} {nulls}")),
        }
    }
    Some(out.join(", "))
}

/// Rows of a metadata query as text (NULL is None). Only for queries of names, types and
/// numbers the server has already turned into text or integers.
pub async fn text_rows(client: &mut Client, sql: &str) -> Result<Vec<Vec<Option<String>>>> {
    let mut cursor = client.query(sql).fetch_dynamic().await?;
    let mut out = Vec::new();
    while let Some(row) = cursor.next().await? {
        out.push(row.values().into_iter().map(text).collect());
    }
    Ok(out)
}

fn text(v: Value<'_>) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(b) | Value::FixedString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::Enum(name, _) => Some(name.to_string()),
        other => Some(format!("{other:?}")),
    }
}

/// The (name, type) of each column of a query's result.
async fn query_columns(client: &mut Client, sql: &str) -> Result<Vec<(String, String)>> {
    let mut cursor = client.query(sql).fetch_dynamic().await?;
    while cursor.next().await?.is_some() {}
    let header = cursor.header().ok_or_else(|| Error::Invalid("the server sent no columns for the query".into()))?;
    Ok(header.columns().iter().map(|(n, c)| (n.clone(), c.data_type().to_string())).collect())
}

async fn one_text(client: &mut Client, sql: &str) -> Result<String> {
    let rows = text_rows(client, sql).await?;
    Ok(rows.into_iter().next().and_then(|r| r.into_iter().next()).flatten().unwrap_or_default())
}

impl Plan {
    /// Plan a read of `opts` with `client` (connected to the options' URL). `wanted`: the
    /// columns to read (Spark's pruned schema, possibly none), else the `columns` option's,
    /// else all.
    pub async fn make(client: &mut Client, opts: &SparkOptions, wanted: Option<&[String]>) -> Result<Plan> {
        let about = text_rows(client, "SELECT currentDatabase(), version()").await?;
        let field = |i: usize| about.first().and_then(|r| r.get(i).cloned().flatten()).unwrap_or_default();
        let database = field(0);
        let major: u32 = field(1).split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
        let (source, engine, engine_full, sorting_key, described, db_name) = match (&opts.table, &opts.query) {
            (Some(_), Some(_)) => return invalid("give the chwire data source either 'table' or 'query', not both"),
            (Some(table), None) => {
                let (db, name) = split_table(table)?;
                let db = db.unwrap_or_else(|| database.clone());
                let source = format!("{}.{}", quote_ident(&db), quote_ident(&name));
                let info = text_rows(
                    client,
                    &format!(
                        "SELECT engine, engine_full, sorting_key FROM system.tables WHERE database = {} AND name = {}",
                        sql_string(&db),
                        sql_string(&name)
                    ),
                )
                .await?;
                let Some(row) = info.into_iter().next() else {
                    return invalid(format!("table {db}.{name} does not exist"));
                };
                let mut row = row.into_iter().map(Option::unwrap_or_default);
                let (engine, full, key) = (row.next().unwrap_or_default(), row.next().unwrap_or_default(), row.next().unwrap_or_default());
                // DESCRIBE: name, type, default_type, ...; MATERIALIZED and ALIAS columns are
                // not in SELECT *, so they are left out here too.
                let described: Vec<(String, String)> = text_rows(client, &format!("DESCRIBE TABLE {source}"))
                    .await?
                    .into_iter()
                    .filter_map(|r| {
                        let mut r = r.into_iter().map(Option::unwrap_or_default);
                        let (n, t, kind) = (r.next()?, r.next()?, r.next().unwrap_or_default());
                        (kind != "MATERIALIZED" && kind != "ALIAS").then_some((n, t))
                    })
                    .collect();
                (source, engine, full, key, described, Some((db, name)))
            }
            (None, Some(query)) => {
                // A trailing `;` or `-- comment` stays inside the parentheses.
                let source = format!("({}\n)", query.trim().trim_end_matches(';').trim_end());
                let described = query_columns(client, &format!("SELECT * FROM {source} LIMIT 0")).await?;
                (source, String::new(), String::new(), String::new(), described, None)
            }
            (None, None) => return invalid("the chwire data source needs option 'table' or 'query'"),
        };
        let mut cols = described.clone();
        // `wanted` may be empty: a read of no columns (Spark's count()), rows only.
        if let Some(w) = wanted.or(opts.columns.as_deref()) {
            cols = select(&described, w, opts.table.as_deref().unwrap_or("the query"))?;
        }
        // Every column Spark has no type for is named, not only the first.
        let (mut columns, mut refused) = (Vec::with_capacity(cols.len()), Vec::new());
        for (n, t) in &cols {
            match spark_column(n, t, opts.uint64_long) {
                Ok(c) => columns.push(c),
                Err(e) => refused.push(e),
            }
        }
        if !refused.is_empty() {
            return Err(Error::Unsupported(crate::types::refusal_of_columns(&refused)));
        }
        let mut plan = Plan {
            options: opts.clone(),
            database,
            source,
            engine,
            columns,
            types: described,
            partitions: vec![],
            group_by: None,
            order_by: None,
            server_major: major,
        };
        plan.partitions = plan.plan_partitions(client, &engine_full, &sorting_key, db_name).await?;
        Ok(plan)
    }

    async fn plan_partitions(
        &self,
        client: &mut Client,
        engine_full: &str,
        sorting_key: &str,
        table: Option<(String, String)>,
    ) -> Result<Vec<Part>> {
        let opts = &self.options;
        let whole = |cond: String| Part { url: opts.url.clone(), from: self.source.clone(), cond, shard: None };
        if let Some((db, name)) = table.clone().filter(|_| self.engine == "Distributed" || opts.cluster.is_some()) {
            if opts.partition_column.is_some() {
                return invalid(
                    "partitionColumn splits a plain table or a query: a Distributed table or the cluster option is \
                     read one partition per shard (numPartitions above the number of shards splits each shard by \
                     its sorting key)",
                );
            }
            let (cluster, rdb, rtable) = if self.engine == "Distributed" {
                let args = engine_args(engine_full);
                if args.len() < 3 {
                    return invalid(format!("cannot read the Distributed engine of {}: {engine_full}", self.source));
                }
                let rdb = if args[1].is_empty() { db.clone() } else { args[1].clone() };
                (args[0].clone(), rdb, args[2].clone())
            } else {
                (opts.cluster.clone().unwrap_or_default(), db.clone(), name.clone())
            };
            let local = format!("{}.{}", quote_ident(&rdb), quote_ident(&rtable));
            let shards = self.shards(client, &cluster, &local).await?;
            let per = (opts.num_partitions as usize).div_ceil(shards.len());
            if per == 1 {
                return Ok(shards);
            }
            // The local table's sorting key (the same on every shard), ranged over the values
            // of all shards (through the Distributed table, or the cluster table function).
            let key = one_text(
                client,
                &format!("SELECT sorting_key FROM system.tables WHERE database = {} AND name = {}", sql_string(&rdb), sql_string(&rtable)),
            )
            .await?;
            let every =
                if self.engine == "Distributed" { self.source.clone() } else { format!("cluster({}, {local})", sql_string(&cluster)) };
            let conds = self.split(client, &key, &every, per).await?;
            return Ok(shards.into_iter().flat_map(|s| conds.iter().map(move |c| Part { cond: c.clone(), ..s.clone() })).collect());
        }
        let n = opts.num_partitions as usize;
        if let Some(col) = &opts.partition_column {
            let (Some(lo), Some(hi)) = (opts.lower_bound, opts.upper_bound) else {
                return invalid("partitionColumn needs lowerBound and upperBound");
            };
            return Ok(strides(&quote_ident(col), lo as i128, hi as i128, n, true).into_iter().map(whole).collect());
        }
        if n == 1 || table.is_none() {
            return Ok(vec![whole(String::new())]);
        }
        Ok(self.split(client, sorting_key, &self.source, n).await?.into_iter().map(whole).collect())
    }

    /// n conditions that together take every row of a table with sorting key `key` once:
    /// ranges of its first column when that is an integer (the bounds from `source`), else
    /// `cityHash64(key) % n`.
    async fn split(&self, client: &mut Client, key: &str, source: &str, n: usize) -> Result<Vec<String>> {
        let key = key.trim();
        let first = key.split(',').next().unwrap_or("").trim();
        let plain = first.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && first.chars().all(|c| c.is_alphanumeric() || c == '_');
        let ty = self.types.iter().find(|(name, _)| name == first).map(|(_, t)| t.as_str());
        if plain && ty.is_some_and(|t| INT_TYPES.contains(&t)) {
            let q = quote_ident(first);
            let rows = text_rows(client, &format!("SELECT toString(min({q})), toString(max({q})) FROM {source}")).await?;
            let bound = |i: usize| rows.first().and_then(|r| r.get(i).cloned().flatten()).and_then(|s| s.parse::<i128>().ok());
            if let (Some(lo), Some(hi)) = (bound(0), bound(1)) {
                return Ok(strides(&q, lo, hi + 1, n, false));
            }
        }
        let hashed = if !key.is_empty() && key != "tuple()" {
            key.to_string()
        } else {
            self.types.iter().map(|(c, t)| hashable(c, t)).collect::<Vec<_>>().join(", ")
        };
        Ok((0..n).map(|i| format!("cityHash64({hashed}) % {n} = {i}")).collect())
    }

    async fn shards(&self, client: &mut Client, cluster: &str, table: &str) -> Result<Vec<Part>> {
        let rows = text_rows(
            client,
            &format!(
                "SELECT shard_num, replica_num, host_name, port FROM system.clusters WHERE cluster = {} \
                 ORDER BY shard_num, replica_num",
                sql_string(cluster)
            ),
        )
        .await?;
        if rows.is_empty() {
            return invalid(format!("cluster {cluster:?} is not in system.clusters of {}", self.options.url));
        }
        let mut shards: BTreeMap<u64, Vec<chwire::Endpoint>> = BTreeMap::new();
        for r in rows {
            let field = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
            let shard: u64 = field(0).parse().unwrap_or(0);
            let port: u16 = field(3).parse().unwrap_or(9000);
            shards.entry(shard).or_default().push(chwire::Endpoint::new(field(2), self.options.shard_port(port)));
        }
        shards
            .into_iter()
            .enumerate()
            .map(|(i, (shard, replicas))| {
                let k = i % replicas.len();
                let order: Vec<chwire::Endpoint> = replicas[k..].iter().chain(&replicas[..k]).cloned().collect();
                Ok(Part {
                    url: chwire::options::url_with_hosts(&self.options.url, &order)?,
                    from: table.to_string(),
                    cond: String::new(),
                    shard: Some(shard.to_string()),
                })
            })
            .collect()
    }

    /// The SELECT of partition `part` with the pushed conditions `wheres`.
    pub fn sql(&self, part: &Part, wheres: &[String]) -> String {
        let select = if self.columns.is_empty() {
            "1".to_string()
        } else {
            self.columns.iter().map(|c| c.select.as_str()).collect::<Vec<_>>().join(", ")
        };
        let conds: Vec<String> = std::iter::once(&part.cond).chain(wheres).filter(|c| !c.is_empty()).map(|c| format!("({c})")).collect();
        let wh = if conds.is_empty() { String::new() } else { format!(" WHERE {}", conds.join(" AND ")) };
        let group = self.group_by.as_ref().map(|g| format!(" GROUP BY {g}")).unwrap_or_default();
        let order = self.order_by.as_ref().map(|o| format!(" ORDER BY {o}")).unwrap_or_default();
        format!("SELECT {select} FROM {}{wh}{group}{order}", part.from)
    }

    /// [`Plan::sql`] with a LIMIT (a limit Spark pushed: each partition reads at most that
    /// many rows, Spark keeps its own limit over them).
    pub fn sql_limited(&self, part: &Part, wheres: &[String], limit: Option<u64>) -> String {
        let sql = self.sql(part, wheres);
        match limit {
            Some(n) => format!("{sql} LIMIT {n}"),
            None => sql,
        }
    }

    /// Settings of each partition's query: a partition is one Spark task on one core, so a
    /// table is read with `max_threads = 1` unless the options set it (100M rows from three
    /// shards on two cores: the servers' CPU 5.2-5.3 -> 4.5-4.6 s, docs/SPARK.md). A query
    /// keeps the server's threads: its own work (an aggregation, a join) may need them.
    pub fn read_settings(&self) -> Vec<(String, String)> {
        if self.options.table.is_some() && !self.options.settings.contains_key("max_threads") {
            vec![("max_threads".into(), "1".into())]
        } else {
            Vec::new()
        }
    }

    /// This plan with the ORDER BY of a top-N (see [`order_by`]; its limit is the scan's), or
    /// None when Spark keeps the sort. `types`: the columns Spark sees as planned.
    pub fn with_order(&self, keys: &[SortKey], types: &BTreeMap<String, String>) -> Option<Plan> {
        Some(Plan { order_by: Some(order_by(keys, types)?), ..self.clone() })
    }

    /// The columns Spark sees with their ClickHouse types, for filter pushdown: those read as
    /// they are (no conversion on the server).
    pub fn pushable(&self) -> BTreeMap<String, String> {
        self.columns.iter().filter(|c| !c.converted).map(|c| (c.name.clone(), c.ch_type.clone())).collect()
    }

    /// The plan as JSON, as it crosses the bindings ([`Plan::from_json`] reads it).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plan serializes")
    }

    /// A plan from [`Plan::to_json`]'s JSON; anything else is an [`Error::Invalid`].
    pub fn from_json(text: &str) -> Result<Plan> {
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("bad plan JSON: {e}")))
    }
}

/// The (name, type) of each wanted column, in the wanted order: by its exact name, else by a
/// name that matches it alone ignoring case (Spark resolves names so by default).
pub fn select(cols: &[(String, String)], wanted: &[String], source: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::with_capacity(wanted.len());
    let mut missing = Vec::new();
    for w in wanted {
        if let Some(c) = cols.iter().find(|(n, _)| n == w) {
            out.push(c.clone());
            continue;
        }
        let folded: Vec<&(String, String)> = cols.iter().filter(|(n, _)| n.to_lowercase() == w.to_lowercase()).collect();
        match folded.as_slice() {
            [one] => out.push((*one).clone()),
            _ => missing.push(format!("'{w}'")),
        }
    }
    if !missing.is_empty() {
        let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
        return invalid(format!("columns [{}] are not in {source} (its columns: {})", missing.join(", "), names.join(", ")));
    }
    Ok(out)
}

/// Column `name` as an argument of cityHash64 that is never NULL: in 18.16 the hash of a NULL
/// is NULL, and `NULL % n = i` would take that row into no partition. LowCardinality columns
/// are hashed as their plain type (18.16 cannot hash them).
pub fn hashable(name: &str, ch_type: &str) -> String {
    let mut reference = quote_ident(name);
    let mut t = ch_type;
    if let Some(inner) = t.strip_prefix("LowCardinality(").and_then(|s| s.strip_suffix(')')) {
        t = inner;
        reference = format!("CAST({reference} AS {t})");
    }
    if t.starts_with("Nullable(") {
        format!("ifNull(cityHash64({reference}), 0)")
    } else {
        reference
    }
}

/// n conditions on `col` that cover every value once: [.., b1), [b1, b2), ..., [b(n-1), ..).
pub fn strides(col: &str, lo: i128, hi: i128, n: usize, nulls_first: bool) -> Vec<String> {
    let n = (n as i128).min((hi - lo).max(1)).max(1);
    let bounds: Vec<i128> = (1..n).map(|i| lo + (hi - lo) * i / n).collect();
    (0..n as usize)
        .map(|i| {
            let mut conds = Vec::new();
            if i > 0 {
                conds.push(format!("{col} >= {}", bounds[i - 1]));
            }
            if i + 1 < n as usize {
                conds.push(format!("{col} < {}", bounds[i]));
            }
            let cond = if conds.is_empty() { "1".to_string() } else { conds.join(" AND ") };
            if nulls_first && i == 0 && !conds.is_empty() {
                // The complement of the other strides: NOT (x >= b) also takes a NaN of a
                // Float column (false against every bound), which `x < b` would leave out.
                format!("NOT ({col} >= {}) OR {col} IS NULL", bounds[0])
            } else {
                cond
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_cover_every_value_once() {
        assert_eq!(strides("`x`", 0, 10, 3, false), vec!["`x` < 3", "`x` >= 3 AND `x` < 6", "`x` >= 6"]);
        assert_eq!(strides("`x`", 0, 10, 2, true), vec!["NOT (`x` >= 5) OR `x` IS NULL", "`x` >= 5"]);
        // more partitions than values: one per value
        assert_eq!(strides("`x`", 5, 7, 8, false).len(), 2);
        assert_eq!(strides("`x`", 5, 5, 3, true), vec!["1"]);
        // Python's floor division for negative spans
        assert_eq!(strides("`x`", -7, 0, 2, false), vec!["`x` < -4", "`x` >= -4"]);
    }

    #[test]
    fn top_n_orders_as_spark_orders() {
        let types: BTreeMap<String, String> = [("k", "Int32"), ("f", "Nullable(Float64)"), ("e", "Enum8('b' = 1, 'a' = 2)"), ("u", "UUID")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let key = |col: &str, descending, nulls_first| SortKey { col: col.into(), descending, nulls_first };
        assert_eq!(
            order_by(&[key("k", false, true), key("f", true, false), key("e", false, true)], &types).unwrap(),
            "`k` ASC NULLS FIRST, isNaN(`f`) DESC NULLS LAST, `f` DESC NULLS LAST, toString(`e`) ASC NULLS FIRST"
        );
        assert_eq!(order_by(&[key("u", false, true)], &types), None);
        assert_eq!(order_by(&[key("zz", false, true)], &types), None);
        assert_eq!(order_by(&[], &types), None);
    }

    #[test]
    fn hashing_never_drops_nulls() {
        assert_eq!(hashable("a", "Nullable(Int8)"), "ifNull(cityHash64(`a`), 0)");
        assert_eq!(hashable("a", "LowCardinality(Nullable(String))"), "ifNull(cityHash64(CAST(`a` AS Nullable(String))), 0)");
        assert_eq!(hashable("a", "LowCardinality(String)"), "CAST(`a` AS String)");
        assert_eq!(hashable("a", "UInt8"), "`a`");
    }

    #[test]
    fn columns_by_name_then_case() {
        let cols: Vec<(String, String)> =
            [("a", "Int8"), ("B", "String"), ("c", "Date"), ("C", "Date")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        let got = select(&cols, &["b".into(), "a".into(), "C".into()], "t").unwrap();
        assert_eq!(got.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), ["B", "a", "C"]);
        let e = select(&cols, &["zz".into(), "c".into(), "CC".into()], "t").unwrap_err().to_string();
        assert_eq!(e, "columns ['zz', 'CC'] are not in t (its columns: a, B, c, C)");
        let e2 = select(&cols[..3], &["Cc".into()], "t").unwrap_err().to_string();
        assert!(e2.starts_with("columns ['Cc']"));
    }
}
