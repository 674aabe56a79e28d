//! The options of `format("chwire")`, read once (on the driver) by both front ends, by the
//! core's one table of keys (`chwire::options::keys`, docs/OPTIONS.md): Spark's own keys, every
//! connection option, ClickHouse settings; anything else is refused with the closest name
//! (a typo like `numPartition` used to be ignored, the read running with one partition).

use crate::{invalid, Error, Result};
use chwire::options::keys::{classify, Classified, Scope};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Spark's options of one read or write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparkOptions {
    /// `url`: chwire's URL of the server or cluster (required).
    pub url: String,
    /// `table`: the table to read or write (`db.table` or `table`).
    pub table: Option<String>,
    /// `query`: a SELECT to read instead of a table.
    pub query: Option<String>,
    /// `cluster`: read the table on each shard of this cluster.
    pub cluster: Option<String>,
    /// `columns`: the columns to read (comma-separated, each once); all when `None`.
    pub columns: Option<Vec<String>>,
    /// `numPartitions`: how many partitions a read plans (at least 1; default 1).
    pub num_partitions: u32,
    /// `partitionColumn`: the integer column to split a query or a plain table by.
    pub partition_column: Option<String>,
    /// `lowerBound`: with `partitionColumn`, where the strides start (rows below it are read
    /// by the first, which is open).
    pub lower_bound: Option<i64>,
    /// `upperBound`: with `partitionColumn`, where the strides end (rows above it are read by
    /// the last, which is open).
    pub upper_bound: Option<i64>,
    /// `pushFilters`: push Spark's filters into the WHERE (default false).
    pub push_filters: bool,
    /// `uint64=long`: UInt64 read as Spark's long (a value above 2^63 - 1 is an error) instead
    /// of DecimalType(20, 0).
    pub uint64_long: bool,
    /// `blockRows`: rows per inserted block of a write (at least 1; default 1,048,576).
    pub block_rows: u64,
    /// ClickHouse settings sent with every query (`settings` and `setting.NAME`).
    pub settings: BTreeMap<String, String>,
    /// chwire URL options (TLS, timeouts, user, password, database).
    pub connect: BTreeMap<String, String>,
    /// `shardPorts`: the port to reach a shard on, by the native port `system.clusters` gives.
    pub shard_ports: BTreeMap<u16, u16>,
}

fn int<T: std::str::FromStr>(v: &str, name: &str) -> Result<T> {
    v.trim().parse().map_err(|_| Error::Invalid(format!("option {name} must be an integer, not {v:?}")))
}

fn flag(v: &str, name: &str) -> Result<bool> {
    chwire::options::keys::flag(name, v).map_err(|e| Error::Invalid(e.to_string()))
}

impl SparkOptions {
    /// Parse Spark's options (keys in any case, with or without `_`: `numPartitions`).
    pub fn parse<K: AsRef<str>, V: AsRef<str>>(options: impl IntoIterator<Item = (K, V)>) -> Result<SparkOptions> {
        let mut url = None;
        let (mut table, mut query, mut cluster, mut columns, mut partition_column) = (None, None, None, None, None);
        let (mut lower_bound, mut upper_bound, mut shard_ports) = (None, None, BTreeMap::new());
        let (mut num_partitions, mut push_filters, mut uint64_long) = (1u32, false, false);
        let mut insert = chwire::InsertOptions::default();
        let mut settings = BTreeMap::new();
        let mut connect = BTreeMap::new();
        for (k, v) in options {
            let (k, v) = (k.as_ref(), v.as_ref());
            let key = match classify(k).map_err(|e| Error::Invalid(format!("option {k}: {e}")))? {
                Classified::Setting(name) => {
                    settings.insert(name.to_string(), v.to_string());
                    continue;
                }
                Classified::Option(key) => key,
            };
            let text = || Some(v.trim().to_string()).filter(|v| !v.is_empty());
            match (key.scope, key.name) {
                (Scope::Connection, name) => {
                    connect.insert(name.to_string(), v.to_string());
                }
                // The core's insert options (`blockRows`).
                (Scope::Insert, _) => insert.set(k, v).map_err(|e| Error::Invalid(format!("option {k}: {e}")))?,
                (Scope::Spark, "url") => url = text(),
                (Scope::Spark, "table") => table = text(),
                // A query's own FORMAT clause is taken off, as every front end takes it off
                // (chwire decodes the result itself; a subquery could not hold it).
                (Scope::Spark, "query") => query = text().map(|q| chwire::sql::without_format_clause(&q).to_string()),
                (Scope::Spark, "cluster") => cluster = text(),
                (Scope::Spark, "columns") => columns = parse_columns(v)?,
                (Scope::Spark, "num_partitions") => {
                    let n: i64 = int(v, "numPartitions")?;
                    if n < 1 {
                        return invalid("numPartitions must be at least 1");
                    }
                    num_partitions = u32::try_from(n).map_err(|_| Error::Invalid("numPartitions is too large".into()))?;
                }
                (Scope::Spark, "partition_column") => partition_column = text(),
                (Scope::Spark, "lower_bound") => lower_bound = Some(int(v, "lowerBound")?),
                (Scope::Spark, "upper_bound") => upper_bound = Some(int(v, "upperBound")?),
                (Scope::Spark, "push_filters") => push_filters = flag(v, "pushFilters")?,
                (Scope::Spark, "uint64") => {
                    uint64_long = match v.trim().to_lowercase().as_str() {
                        "decimal" => false,
                        "long" => true,
                        _ => return invalid("option uint64 is 'decimal' (DecimalType(20, 0), the default) or 'long'"),
                    }
                }
                (Scope::Spark, "settings") => settings.extend(parse_settings(Some(v))?),
                (Scope::Spark, "shard_ports") => shard_ports = parse_port_map(Some(v))?,
                (scope, _) => return invalid(format!("option {k} is {}, which the chwire data source does not take", scope.describe())),
            }
        }
        let Some(url) = url else {
            return invalid("the chwire data source needs option 'url' (tcp://user@host:9000/db)");
        };
        // As Spark's JDBC source: strides over an empty range would read one partition.
        if let (Some(lo), Some(hi)) = (lower_bound, upper_bound) {
            if lo > hi {
                return invalid(format!("lowerBound ({lo}) is larger than upperBound ({hi})"));
            }
        }
        let mut parsed = SparkOptions {
            url,
            table,
            query,
            cluster,
            columns,
            num_partitions,
            partition_column,
            lower_bound,
            upper_bound,
            push_filters,
            uint64_long,
            block_rows: insert.block_rows as u64,
            settings,
            connect,
            shard_ports,
        };
        // The URL and connection options as chwire reads them: a URL it cannot read is an error
        // here, before a write or the catalog rewrites its host list (which would turn it into
        // another URL).
        let servers = parsed.chwire_options(None).map_err(|e| Error::Invalid(format!("option url {:?}: {e}", parsed.url)))?.endpoints();
        // Servers given as options (`host`, `port`, `hosts`) go into the URL, which then names
        // every server: a shard's or one server's URL, made from it, names its own only.
        use chwire::options::keys::SERVER_KEYS;
        if SERVER_KEYS.iter().any(|k| parsed.connect.contains_key(*k)) {
            parsed.url = chwire::options::url_with_hosts(&parsed.url, &servers)?;
            parsed.connect.retain(|k, _| !SERVER_KEYS.contains(&k.as_str()));
        }
        Ok(parsed)
    }

    /// Whether connections use TLS (the URL's scheme or keys, or an option), as the core reads
    /// the URL and options.
    pub fn secure(&self) -> bool {
        self.chwire_options(None).is_ok_and(|o| o.tls.is_some())
    }

    /// The port of a host the URL gives without one, as the core chooses it: 8123 for an
    /// `http://` URL, 8443 for `https://`, 9440 native over TLS, else 9000.
    pub fn default_port(&self) -> u16 {
        self.chwire_options(None).map_or(9000, |o| o.default_port())
    }

    /// The port to reach a shard's replica on, from the native port `system.clusters` gives:
    /// `shardPorts` maps it; else the default 9000 is the default port of this connection.
    pub fn shard_port(&self, port: u16) -> u16 {
        match self.shard_ports.get(&port) {
            Some(p) => *p,
            None if port == 9000 => self.default_port(),
            None => port,
        }
    }

    /// chwire's connection options for `url` (the options' URL when None), with the
    /// connection options and settings of these options. Arrow output settings
    /// (`output_format_arrow_*`) are taken by the core's rule (`ArrowOptions::take_settings`:
    /// an unknown one or a bad value is refused) and not sent; they shape the batches chwire
    /// builds, which are then cast to Spark's types, so they change no value Spark sees.
    pub fn chwire_options(&self, url: Option<&str>) -> Result<chwire::Options> {
        let mut o = chwire::Options::from_url_and(Some(url.unwrap_or(&self.url)), &self.connect)?;
        o.settings.extend(self.settings.iter().map(|(k, v)| (k.clone(), v.clone())));
        chwire_arrow::ArrowOptions::rich().take_settings(&mut o.settings).map_err(|e| Error::Invalid(e.to_string()))?;
        Ok(o)
    }

    /// One URL per server of `url` (the options' URL when None) with these options, each
    /// with the port they give it (`secure` as an option too).
    pub fn single_host_urls(&self, url: Option<&str>) -> Result<Vec<String>> {
        let url = url.unwrap_or(&self.url);
        Ok(chwire::options::single_host_urls(url, &self.chwire_options(Some(url))?)?)
    }

    /// A connection to `url` (the options' URL when None).
    pub async fn connect(&self, url: Option<&str>) -> Result<chwire::Client> {
        Ok(chwire::Client::connect(self.chwire_options(url)?).await?)
    }

    /// The options as JSON, as they cross the bindings ([`SparkOptions::from_json`] reads them).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("options serialize")
    }

    /// Options from [`SparkOptions::to_json`]'s JSON; anything else is an [`Error::Invalid`].
    pub fn from_json(text: &str) -> Result<SparkOptions> {
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("bad options JSON: {e}")))
    }
}

/// `columns`: names, comma-separated, each once (`None` when empty).
fn parse_columns(text: &str) -> Result<Option<Vec<String>>> {
    let cols: Vec<String> = text.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect();
    let mut twice: Vec<&str> = cols.iter().filter(|c| cols.iter().filter(|d| d == c).count() > 1).map(String::as_str).collect();
    twice.sort_unstable();
    twice.dedup();
    if !twice.is_empty() {
        return invalid(format!("option columns names {} more than once", twice.join(", ")));
    }
    Ok(Some(cols).filter(|c| !c.is_empty()))
}

/// `settings` as JSON (`{"max_threads": 4}`) or `name=value,name=value`.
fn parse_settings(text: Option<&str>) -> Result<BTreeMap<String, String>> {
    let text = text.unwrap_or("").trim();
    let mut out = BTreeMap::new();
    if text.is_empty() {
        return Ok(out);
    }
    if text.starts_with('{') {
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| Error::Invalid(format!("option settings is not a JSON object: {e}")))?;
        for (k, v) in map {
            let v = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Bool(true) => "True".into(),
                serde_json::Value::Bool(false) => "False".into(),
                other => other.to_string(),
            };
            out.insert(k, v);
        }
        return Ok(out);
    }
    for item in text.split(',') {
        if item.trim().is_empty() {
            continue;
        }
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// `shardPorts`: `from:to` pairs, comma-separated (e.g. `9000:9440`).
fn parse_port_map(text: Option<&str>) -> Result<BTreeMap<u16, u16>> {
    let mut out = BTreeMap::new();
    for item in text.unwrap_or("").split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let pair = item.split_once(':').and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        match pair {
            Some((a, b)) => out.insert(a, b),
            None => return invalid(format!("shardPorts takes from:to port pairs, e.g. 9000:9440, not {item:?}")),
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<SparkOptions> {
        SparkOptions::parse(pairs.iter().copied())
    }

    #[test]
    fn a_lower_bound_above_the_upper_bound_is_refused() {
        let opts = |lo: &str, hi: &str| {
            SparkOptions::parse([("url", "tcp://h:9000"), ("partitionColumn", "id"), ("lowerBound", lo), ("upperBound", hi)])
        };
        let e = opts("10", "1").err().unwrap().to_string();
        assert!(e.contains("lowerBound (10) is larger than upperBound (1)"), "{e}");
        assert!(opts("1", "1").is_ok() && opts("-5", "10").is_ok());
    }

    #[test]
    fn keys_ignore_case_and_defaults() {
        let o = parse(&[("URL", "tcp://h/db"), ("dbTable", "db.t"), ("NumPartitions", " 4 ")]).unwrap();
        assert_eq!((o.url.as_str(), o.table.as_deref(), o.num_partitions), ("tcp://h/db", Some("db.t"), 4));
        assert_eq!((o.block_rows, o.uint64_long, o.push_filters), (1 << 20, false, false));
        assert_eq!(o.default_port(), 9000);
    }

    #[test]
    fn bad_values_name_the_option() {
        assert!(parse(&[]).unwrap_err().to_string().contains("'url'"));
        let e = parse(&[("url", "tcp://h"), ("numPartitions", "x")]).unwrap_err().to_string();
        assert!(e.contains("numPartitions must be an integer"), "{e}");
        assert!(parse(&[("url", "tcp://h"), ("numPartitions", "0")]).is_err());
        assert!(parse(&[("url", "tcp://h"), ("uint64", "int")]).is_err());
        let e = parse(&[("url", "tcp://h"), ("columns", "a, b,a")]).unwrap_err().to_string();
        assert_eq!(e, "option columns names a more than once");
        assert!(parse(&[("url", "tcp://h"), ("shardPorts", "9000")]).is_err());
        // A URL chwire cannot read is refused as it is (a host list rewritten from it would be
        // another URL: `http//x` became `http:9000//x`, host 9000 = 0.0.35.40).
        let e = parse(&[("url", "http//nonsense")]).unwrap_err().to_string();
        assert!(e.contains("option url \"http//nonsense\"") && e.contains("invalid URL"), "{e}");
        assert!(parse(&[("url", "tcp://h"), ("connect_timeout", "soon")]).is_err());
    }

    #[test]
    fn arrow_settings_follow_the_cores_rule() {
        // Taken, not sent (from the options and from the URL alike).
        let o = parse(&[
            ("url", "tcp://h/db?output_format_arrow_string_as_string=0"),
            ("output_format_arrow_low_cardinality_as_dictionary", "1"),
        ]);
        assert!(o.unwrap().chwire_options(None).unwrap().settings.is_empty());
        // An unknown one or a bad value is refused (they used to be dropped unread).
        let e = parse(&[("url", "tcp://h"), ("output_format_arrow_string_as_strin", "1")]).unwrap_err().to_string();
        assert!(e.contains("output_format_arrow_string_as_strin"), "{e}");
        assert!(parse(&[("url", "tcp://h"), ("output_format_arrow_string_as_string", "maybe")]).is_err());
    }

    #[test]
    fn keys_follow_the_one_table() {
        // A typo is refused naming the option (it used to be ignored: one partition).
        let e = parse(&[("url", "tcp://h"), ("numPartition", "4")]).unwrap_err().to_string();
        assert!(e.contains("did you mean num_partitions?"), "{e}");
        // Any connection option, by the core's names and aliases; a ClickHouse setting as is.
        let o = parse(&[("url", "tcp://h"), ("receiveTimeout", "5s"), ("max_threads", "2"), ("max_size", "3")]);
        assert!(o.unwrap_err().to_string().contains("a pool option"));
        let o = parse(&[("url", "tcp://h"), ("receiveTimeout", "5s"), ("max_threads", "2"), ("query_timeout", "1s")]).unwrap();
        let c = o.chwire_options(None).unwrap();
        assert_eq!(c.receive_timeout, Some(std::time::Duration::from_secs(5)));
        assert_eq!(c.settings, [("max_threads".to_string(), "2".to_string())]);
        // TLS and the default port as the core reads the URL (https://, percent-encoding).
        assert_eq!(parse(&[("url", "https://h/db")]).unwrap().default_port(), 8443);
        assert!(parse(&[("url", "tcp://h/db?secure=true")]).unwrap().secure());
        assert!(!parse(&[("url", "tcp://h/db?secure=false")]).unwrap().secure());
    }

    #[test]
    fn the_urls_client_revision_and_chunked_reach_the_connection() {
        let o = parse(&[("url", "tcp://h/db?client_revision=54465&chunked=true")]).unwrap();
        let c = o.chwire_options(None).unwrap();
        assert_eq!((c.client_revision, c.chunked), (54465, chwire::proto::chunked::ChunkedMode::On));
    }

    #[test]
    fn a_host_without_port_gets_the_schemes_default() {
        assert_eq!(parse(&[("url", "http://u@h/db")]).unwrap().default_port(), 8123);
        assert_eq!(parse(&[("url", "HTTPS://h/db")]).unwrap().default_port(), 8443);
        assert_eq!(parse(&[("url", "tcp://h/db?secure=1")]).unwrap().default_port(), 9440);
        assert_eq!(parse(&[("url", "clickhouse://h/db")]).unwrap().default_port(), 9000);
    }

    #[test]
    fn settings_tls_and_ports() {
        let o = parse(&[
            ("url", "tcp://h/db?secure=1"),
            ("settings", "{\"max_threads\": 4, \"x\": \"y\"}"),
            ("setting.max_block_size", "10"),
            ("shardPorts", "19611:19631, 9000:1"),
            ("user", "u"),
        ])
        .unwrap();
        assert_eq!(o.settings.get("max_threads").map(String::as_str), Some("4"));
        assert_eq!(o.settings.get("max_block_size").map(String::as_str), Some("10"));
        assert!(o.secure());
        assert_eq!((o.shard_port(19611), o.shard_port(9000), o.shard_port(5)), (19631, 1, 5));
        let o2 = parse(&[("url", "tcp://h"), ("ca_file", "/x"), ("settings", "a=1, b = 2")]).unwrap();
        assert_eq!((o2.default_port(), o2.shard_port(9000)), (9440, 9440));
        assert_eq!(o2.settings.len(), 2);
        assert_eq!(SparkOptions::from_json(&o.to_json()).unwrap(), o);
        assert_eq!(o.chwire_options(None).unwrap().user, "u");
    }

    #[test]
    fn servers_given_as_options_go_into_the_url() {
        let o = parse(&[("url", "tcp://u@a/db?compression=lz4"), ("hosts", "b:9001"), ("secure", "true")]).unwrap();
        assert_eq!(o.url, "tcp://u@a:9440,b:9001/db?compression=lz4");
        assert!(!o.connect.contains_key("hosts") && o.secure());
        // A URL made from it for one server names that server only.
        let one = chwire::options::url_with_hosts(&o.url, &[chwire::Endpoint::new("b", 9001)]).unwrap();
        assert_eq!(o.chwire_options(Some(&one)).unwrap().endpoints(), [chwire::Endpoint::new("b", 9001)]);
        let p = parse(&[("url", "tcp://a/db"), ("port", "9001")]).unwrap();
        assert_eq!((p.url.as_str(), p.connect.len()), ("tcp://a:9001/db", 0));
        assert_eq!(parse(&[("url", "tcp://a/db")]).unwrap().url, "tcp://a/db");
    }
}
