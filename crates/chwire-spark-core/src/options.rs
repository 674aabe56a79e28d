//! The options of `format("chwire")`, read once (on the driver) by both front ends.

use crate::{invalid, Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Options passed on to chwire's connection as URL options (TLS and timeouts): Spark's key
/// (lower case) and chwire's name.
const CONNECT: &[(&str, &str)] = &[
    ("secure", "secure"),
    ("ca_file", "ca_file"),
    ("cafile", "ca_file"),
    ("cert_file", "cert_file"),
    ("key_file", "key_file"),
    ("server_name", "server_name"),
    ("compression", "compression"),
    ("connect_timeout", "connect_timeout"),
    ("read_timeout", "read_timeout"),
    ("write_timeout", "write_timeout"),
    ("query_timeout", "query_timeout"),
    ("retries", "retries"),
    ("load_balancing", "load_balancing"),
    ("user", "user"),
    ("password", "password"),
    ("database", "database"),
];

/// Spark's options of one read or write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SparkOptions {
    pub url: String,
    pub table: Option<String>,
    pub query: Option<String>,
    pub cluster: Option<String>,
    pub columns: Option<Vec<String>>,
    pub num_partitions: u32,
    pub partition_column: Option<String>,
    pub lower_bound: Option<i64>,
    pub upper_bound: Option<i64>,
    pub push_filters: bool,
    pub uint64_long: bool,
    pub block_rows: u64,
    /// ClickHouse settings sent with every query (`settings` and `setting.NAME`).
    pub settings: BTreeMap<String, String>,
    /// chwire URL options (TLS, timeouts, user, password, database).
    pub connect: BTreeMap<String, String>,
    pub shard_ports: BTreeMap<u16, u16>,
}

fn int<T: std::str::FromStr>(opts: &BTreeMap<String, String>, key: &str, name: &str) -> Result<Option<T>> {
    match opts.get(key) {
        None => Ok(None),
        Some(v) => v.trim().parse().map(Some).map_err(|_| Error::Invalid(format!("option {name} must be an integer, not {v:?}"))),
    }
}

fn truthy(v: &str) -> bool {
    matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "yes")
}

impl SparkOptions {
    /// Parse Spark's options (keys case-insensitive).
    pub fn parse<K: AsRef<str>, V: AsRef<str>>(options: impl IntoIterator<Item = (K, V)>) -> Result<SparkOptions> {
        let opts: BTreeMap<String, String> =
            options.into_iter().map(|(k, v)| (k.as_ref().to_lowercase(), v.as_ref().to_string())).collect();
        let get = |k: &str| opts.get(k).filter(|v| !v.is_empty()).cloned();
        let Some(url) = get("url") else {
            return invalid("the chwire data source needs option 'url' (tcp://user@host:9000/db)");
        };
        let columns = match get("columns") {
            None => None,
            Some(text) => {
                let cols: Vec<String> = text.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect();
                let mut twice: Vec<&str> = cols.iter().filter(|c| cols.iter().filter(|d| d == c).count() > 1).map(String::as_str).collect();
                twice.sort_unstable();
                twice.dedup();
                if !twice.is_empty() {
                    return invalid(format!("option columns names {} more than once", twice.join(", ")));
                }
                Some(cols).filter(|c| !c.is_empty())
            }
        };
        let num_partitions: i64 = int(&opts, "numpartitions", "numPartitions")?.unwrap_or(1);
        if num_partitions < 1 {
            return invalid("numPartitions must be at least 1");
        }
        let num_partitions = u32::try_from(num_partitions).map_err(|_| Error::Invalid("numPartitions is too large".into()))?;
        let uint64_long = match opts.get("uint64").map(|s| s.to_lowercase()).as_deref() {
            None | Some("decimal") => false,
            Some("long") => true,
            Some(_) => return invalid("option uint64 is 'decimal' (DecimalType(20, 0), the default) or 'long'"),
        };
        let block_rows: i64 = int(&opts, "blockrows", "blockRows")?.unwrap_or(1 << 20);
        if block_rows < 1 {
            return invalid("blockRows must be at least 1");
        }
        let mut settings = parse_settings(opts.get("settings").map(String::as_str))?;
        for (k, v) in &opts {
            if let Some(name) = k.strip_prefix("setting.") {
                settings.insert(name.to_string(), v.clone());
            }
        }
        let connect = CONNECT.iter().filter_map(|(k, name)| opts.get(*k).map(|v| (name.to_string(), v.clone()))).collect();
        let parsed = SparkOptions {
            url,
            table: get("table").or_else(|| get("dbtable")),
            query: get("query"),
            cluster: get("cluster"),
            columns,
            num_partitions,
            partition_column: get("partitioncolumn"),
            lower_bound: int(&opts, "lowerbound", "lowerBound")?,
            upper_bound: int(&opts, "upperbound", "upperBound")?,
            push_filters: opts.get("pushfilters").is_some_and(|v| truthy(v)),
            uint64_long,
            block_rows: block_rows as u64,
            settings,
            connect,
            shard_ports: parse_port_map(opts.get("shardports").map(String::as_str))?,
        };
        // The URL and connection options as chwire reads them: a URL it cannot read is an error
        // here, before a write or the catalog rewrites its host list (which would turn it into
        // another URL).
        parsed.chwire_options(None).map_err(|e| Error::Invalid(format!("option url {:?}: {e}", parsed.url)))?;
        Ok(parsed)
    }

    /// Whether connections use TLS (an option, or the URL's `secure`, `ca_file` or `cert_file`).
    pub fn secure(&self) -> bool {
        let mut flags: BTreeMap<String, String> = BTreeMap::new();
        if let Some((_, query)) = self.url.split_once('?') {
            for pair in query.split('#').next().unwrap_or("").split('&') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                flags.insert(k.to_lowercase(), v.to_string());
            }
        }
        flags.extend(self.connect.clone());
        flags.get("secure").is_some_and(|v| truthy(v))
            || ["ca_file", "cafile", "cert_file"].iter().any(|k| flags.get(*k).is_some_and(|v| !v.is_empty()))
    }

    /// The port of a host the URL gives without one: for an `http://` URL 8123 and for an
    /// `https://` one 8443 (as chwire connects for a read), else ClickHouse's default native
    /// port, 9440 over TLS, else 9000.
    pub fn default_port(&self) -> u16 {
        let scheme = self.url.split_once("://").map(|(s, _)| s.to_ascii_lowercase()).unwrap_or_default();
        match scheme.as_str() {
            "http" => 8123,
            "https" => 8443,
            _ if self.secure() => 9440,
            _ => 9000,
        }
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
    /// (`output_format_arrow_*`) shape batches on the client and are not sent.
    pub fn chwire_options(&self, url: Option<&str>) -> Result<chwire::Options> {
        let mut o = chwire::Options::from_url(url.unwrap_or(&self.url))?;
        for (k, v) in &self.connect {
            o.set(k, v)?;
        }
        o.settings.retain(|(k, _)| !k.starts_with("output_format_arrow_"));
        for (k, v) in &self.settings {
            if !k.starts_with("output_format_arrow_") {
                o.settings.push((k.clone(), v.clone()));
            }
        }
        Ok(o)
    }

    /// A connection to `url` (the options' URL when None).
    pub async fn connect(&self, url: Option<&str>) -> Result<chwire::Client> {
        Ok(chwire::Client::connect(self.chwire_options(url)?).await?)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("options serialize")
    }

    pub fn from_json(text: &str) -> Result<SparkOptions> {
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("bad options JSON: {e}")))
    }
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
}
