//! The one table of option names: every key any front end takes (URLs, [`Options`](super::Options),
//! the pool, the Arrow mapping, the bindings' options, Spark's options), its kind, default
//! and doc, and the rule that sorts a key given by a user into an option, a ClickHouse
//! setting, or a mistake refused with the closest known name.
//!
//! Front ends spell keys in their host's style (`num_partitions`, `numPartitions`,
//! `numpartitions`): a key is looked up with case and `_` ignored. ClickHouse settings keep
//! their exact names.

use crate::error::{Error, Result};

/// What an option's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// Free text.
    Text,
    /// Text that is never shown (a password).
    Secret,
    /// A whole number (of the range the option says).
    Count,
    /// `true`/`false` (also `1`/`0`, `yes`/`no`).
    Flag,
    /// A duration: `500ms`, `5s`, `1.5m`, `1h`, a bare number of seconds; `0` or `none` for no limit
    /// where the option allows it.
    Duration,
    /// One of the words listed.
    Choice(&'static [&'static str]),
    /// A comma-separated list.
    List,
}

/// Who reads an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// A connection's options ([`Options`](super::Options)): URLs and every front end.
    Connection,
    /// The pool's ([`PoolOptions`](crate::PoolOptions)).
    Pool,
    /// How results become Arrow (the bindings' `arrow_mapping`).
    Arrow,
    /// Bounds of a result a binding collects whole.
    Result,
    /// Inserts through a binding.
    Insert,
    /// Spark's data sources (the PySpark source and the JVM connector).
    Spark,
}

impl Scope {
    /// `a pool option`, …: what a key of this scope is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::Connection => "a connection option",
            Scope::Pool => "a pool option",
            Scope::Arrow => "an Arrow option",
            Scope::Result => "an option of collected results",
            Scope::Insert => "an insert option",
            Scope::Spark => "a Spark option",
        }
    }
}

/// One option.
#[derive(Debug, PartialEq, Eq)]
pub struct OptionKey {
    /// Its name (snake_case: the URL key).
    pub name: &'static str,
    /// Other names it is known by (older chwire names, other clients' names).
    pub aliases: &'static [&'static str],
    /// Its value's kind.
    pub kind: Kind,
    /// Its default, as text (`""` where there is none).
    pub default: &'static str,
    /// Who reads it.
    pub scope: Scope,
    /// What it does.
    pub doc: &'static str,
}

const fn key(name: &'static str, kind: Kind, default: &'static str, scope: Scope, doc: &'static str) -> OptionKey {
    OptionKey { name, aliases: &[], kind, default, scope, doc }
}

const fn alias(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    default: &'static str,
    scope: Scope,
    doc: &'static str,
) -> OptionKey {
    OptionKey { name, aliases, kind, default, scope, doc }
}

use Kind::*;
use Scope::*;

/// Every option chwire knows, in the order docs/OPTIONS.md lists them.
pub static KEYS: &[OptionKey] = &[
    // The server and the user.
    key("host", Text, "127.0.0.1", Connection, "The server's host name or address (a URL's host)."),
    key("port", Count, "9000", Connection, "The server's port. A host given without one gets 9000 native, 9440 native over TLS, 8123 HTTP or 8443 HTTPS, by the transport and TLS that the URL and the front end's options choose together."),
    alias("user", &["username"], Text, "default", Connection, "The ClickHouse user."),
    key("password", Secret, "", Connection, "The user's password (never printed)."),
    key("database", Text, "default", Connection, "The current database of the session."),
    key("transport", Choice(&["native", "http"]), "native", Connection, "The native TCP protocol or ClickHouse's HTTP interface (`http://` and `https://` URLs choose HTTP)."),
    key("compression", Choice(&["none", "lz4", "zstd", "zstd:LEVEL"]), "none", Connection, "Compression of the blocks both ways (natively also the server's: its network_compression_method follows unless set)."),
    key("client_name", Text, "chwire", Connection, "The client's name as `system.processes` shows it."),
    key("quota_key", Text, "", Connection, "The quota key of the session."),
    key("session_id", Text, "", Connection, "HTTP only: the server-side session every query runs in (temporary tables and SET last across queries)."),
    key("client_revision", Count, "54492", Connection, "The protocol revision to announce (down to 54032); a lower one makes a current server talk as it does to older clients."),
    key("chunked", Choice(&["auto", "true", "false"]), "auto", Connection, "Chunked packet framing (revision 54470): `auto` follows a server that insists on it."),
    // Timeouts.
    key("connect_timeout", Duration, "10s", Connection, "Longest TCP connect (`0`: no limit)."),
    key("handshake_timeout", Duration, "10s", Connection, "Longest TLS and ClickHouse handshake after the connect (`0`: no limit)."),
    alias("send_timeout", &["write_timeout"], Duration, "300s", Connection, "Longest time without progress writing to the server (`0`: no limit); the connection is closed."),
    alias("receive_timeout", &["read_timeout"], Duration, "300s", Connection, "Longest wait for the server's next bytes (`0`: no limit); the connection is closed."),
    key("query_timeout", Duration, "0", Connection, "Deadline of a whole query (`0`: none); on expiry the query is cancelled."),
    key("tcp_keepalive", Duration, "60s", Connection, "Idle time before TCP keepalive probes (`0`: off)."),
    // TLS.
    key("secure", Flag, "false", Connection, "TLS (on by default for `https://`; any of the file keys turns it on)."),
    key("ca_file", Text, "", Connection, "PEM file of the certificate authorities to trust (else the system's roots)."),
    key("system_roots", Flag, "false", Connection, "Also trust the system's roots when `ca_file` is given."),
    alias("cert_file", &["cert"], Text, "", Connection, "PEM file of the client certificate for mutual TLS."),
    alias("key_file", &["key"], Text, "", Connection, "PEM file of the client certificate's private key."),
    alias("server_name", &["tls_server_name"], Text, "", Connection, "The name to verify the server's certificate against and send as SNI (default: the host)."),
    // Several servers.
    alias("hosts", &["alt_hosts"], List, "", Connection, "More servers (`host[:port]`, comma-separated) besides the URL's."),
    key("load_balancing", Choice(&["in_order", "round_robin", "random"]), "in_order", Connection, "Which server a new connection tries first."),
    key("host_backoff", Duration, "1s", Connection, "How long a failed server is skipped at first (doubled per failure in a row, at most 60 s)."),
    key("retries", Count, "2", Connection, "How often a read that failed over before returning rows is sent again (inserts never are)."),
    // Limits on what the server's answers may make the client accept.
    key("max_block_rows", Count, "134217728", Connection, "Most rows of one block received."),
    key("max_block_bytes", Count, "2147483648", Connection, "Most bytes of one block received (after decompression)."),
    key("max_string_len", Count, "1073741824", Connection, "Longest string received."),
    key("max_array_len", Count, "1073741824", Connection, "Longest array received."),
    key("max_depth", Count, "64", Connection, "Deepest nesting of types and values received."),
    key("max_frame_size", Count, "1073741824", Connection, "Largest compressed frame received."),
    key("max_columns", Count, "65536", Connection, "Most columns of one block received."),
    // The pool.
    alias("max_size", &["pool_size"], Count, "10", Pool, "Most connections of a pool open at once."),
    key("min_idle", Count, "0", Pool, "Connections a pool keeps open even when idle."),
    alias("acquire_timeout", &["checkout_timeout"], Duration, "30s", Pool, "Longest wait for a free connection of the pool (`0`: forever)."),
    key("idle_timeout", Duration, "600s", Pool, "An idle connection beyond `min_idle` is closed after this long (`0`: never)."),
    key("max_lifetime", Duration, "3600s", Pool, "A connection is closed after this long in service (`0`: never)."),
    key("health_check_after", Duration, "30s", Pool, "A connection idle longer than this is pinged before it is handed out (`0`: always; `none`: never)."),
    // Results and inserts of the bindings.
    key("arrow_mapping", Choice(&["rich", "clickhouse"]), "rich", Arrow, "The Arrow types of results: natural ones (`rich`) or exactly what ClickHouse's ArrowStream writes (`clickhouse`); docs/ARROW.md."),
    key("max_collected_rows", Count, "0", Result, "Most rows of a result collected whole (a binding's table, rows or columns call; `0`: no bound): beyond it the query is cancelled and the call fails (streams are not bounded). Not ClickHouse's `max_result_rows` setting, which the server applies."),
    key("max_collected_bytes", Count, "0", Result, "Most bytes of a result collected whole (`0`: no bound), as chwire's decoded column data counts them (fixed-width values at their width, strings their bytes plus 8 per value, arrays 8 per offset plus their elements). Not ClickHouse's `max_result_bytes` setting."),
    key("block_rows", Count, "1048576", Insert, "Rows per block an insert sends (at least 1): Arrow batches are gathered and cut into blocks of exactly this many rows, the last one smaller. Data an insert refuses ends it with the blocks before committed (the error says how many rows)."),
    // Spark.
    key("url", Text, "", Spark, "The connection URL (any chwire URL; every connection option above may also be given as an option)."),
    alias("table", &["dbtable"], Text, "", Spark, "The table to read or write (`t`, `db.t`, quoted parts)."),
    key("query", Text, "", Spark, "A query to read instead of a table."),
    key("cluster", Text, "", Spark, "The cluster whose shards a `query` or a non-Distributed table is read from."),
    key("columns", List, "", Spark, "The columns to read (default: all but MATERIALIZED and ALIAS ones)."),
    key("num_partitions", Count, "1", Spark, "Spark partitions per shard when `partition_column` splits it."),
    key("partition_column", Text, "", Spark, "A numeric or date column to split each shard by (with `lower_bound`/`upper_bound`, else its min and max)."),
    key("lower_bound", Count, "", Spark, "The lower bound of `partition_column`'s split."),
    key("upper_bound", Count, "", Spark, "The upper bound of `partition_column`'s split."),
    key("push_filters", Flag, "false", Spark, "Let the PySpark source push Spark's filters into the query (the JVM connector always does)."),
    key("uint64", Choice(&["decimal", "long"]), "decimal", Spark, "UInt64 as DecimalType(20, 0) (exact) or as LongType (wraps above 2^63)."),
    key("settings", List, "", Spark, "ClickHouse settings for every query (`name=value,…`); also one each as `setting.NAME`."),
    key("shard_ports", List, "", Spark, "`internal:external` port pairs for shard addresses seen from the cluster's inside (`9000:19000,…`)."),
];

/// The one name of an option or setting given as `key`, whatever its spelling
/// (`numPartitions`, `num_partitions`, an alias, `setting.NAME`); `None` for a key that is
/// neither.
pub fn canonical_name(key: &str) -> Option<&str> {
    match classify(key).ok()? {
        Classified::Option(k) => Some(k.name),
        Classified::Setting(name) => Some(name),
    }
}

/// Whether `key` (any spelling of a name or alias) is an option whose value is a duration:
/// what a binding reads a number given for one by (Elixir's and Node's milliseconds).
pub fn takes_duration(key: &str) -> bool {
    lookup(key).is_some_and(|k| k.kind == Kind::Duration)
}

/// The options that name servers (`host`, `port`, `hosts`): a URL made for other servers
/// ([`url_with_hosts`](super::url_with_hosts)) leaves them out.
pub const SERVER_KEYS: [&str; 3] = ["host", "port", "hosts"];

/// The names of ClickHouse 26.9's settings (`system.settings`).
const SETTINGS: &str = include_str!("clickhouse-settings.txt");

/// Whether `name` is a ClickHouse setting: one of 26.9's, or a custom one (`custom_…`).
pub fn is_clickhouse_setting(name: &str) -> bool {
    name.starts_with("custom_") || SETTINGS.lines().any(|l| l == name)
}

/// ClickHouse settings that change the bytes chwire reads or writes (the Native format's
/// encoding, the HTTP answer's format or compression): chwire sets what its transports need, a
/// user's value would make answers unreadable ("malformed BlockInfo") or inserts garbage.
/// `compress` and `decompress` are the HTTP interface's parameters for ClickHouse's own frames
/// in the answer and the request (settings by the way they are sent).
pub const TRANSPORT_SETTINGS: [&str; 9] = [
    "default_format",
    "compression",
    "enable_http_compression",
    "http_zlib_compression_level",
    "compress",
    "decompress",
    "output_format_native_encode_types_in_binary_format",
    "input_format_native_decode_types_in_binary_format",
    "output_format_native_use_flattened_dynamic_and_json_serialization",
];

/// Why setting `name` may not be sent by a user (None: it may): see [`TRANSPORT_SETTINGS`].
pub fn refused_setting(name: &str) -> Option<String> {
    TRANSPORT_SETTINGS.contains(&name).then(|| {
        format!(
            "setting {name:?} changes the format of what chwire reads and writes, which chwire sets itself; \
             it cannot be sent (for compression between chwire and the server use the option `compression`)"
        )
    })
}

/// `numPartitions`, `num_partitions` and `NUMPARTITIONS` alike.
fn normalized(key: &str) -> String {
    key.chars().filter(|&c| c != '_').map(|c| c.to_ascii_lowercase()).collect()
}

/// The option named `key` (by its name or an alias, case and `_` ignored).
pub fn lookup(key: &str) -> Option<&'static OptionKey> {
    let n = normalized(key);
    KEYS.iter().find(|k| normalized(k.name) == n || k.aliases.iter().any(|a| normalized(a) == n))
}

/// What a key given by a user is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified<'a> {
    /// A chwire option.
    Option(&'static OptionKey),
    /// A ClickHouse setting, sent to the server: one of 26.9's, a `custom_…` one, or any name
    /// written as `setting.NAME`.
    Setting(&'a str),
}

/// The option `key` names (any spelling), which must be of `scope`: a key of another scope,
/// a ClickHouse setting or no key at all is an error saying so (what `PoolOptions::set`,
/// `ResultLimits::set` and `InsertOptions::set` take their keys by).
pub fn of_scope(key: &str, scope: Scope) -> Result<&'static OptionKey> {
    match classify(key)? {
        Classified::Option(k) if k.scope == scope => Ok(k),
        Classified::Option(k) => Err(Error::config(format!("{key:?} is {}, not {}", k.scope.describe(), scope.describe()))),
        Classified::Setting(_) => Err(Error::config(format!("{key:?} is a ClickHouse setting, not {}", scope.describe()))),
    }
}

/// The rule every front end applies to a key: a chwire option, else a ClickHouse setting, else
/// an error naming the closest option or setting (`numPartition` → "did you mean
/// num_partitions?"). A setting newer than 26.9 goes as `setting.NAME`.
pub fn classify(key: &str) -> Result<Classified<'_>> {
    if let Some(name) = key.strip_prefix("setting.") {
        return if name.is_empty() {
            Err(Error::config("`setting.` needs a setting's name after it"))
        } else {
            Ok(Classified::Setting(name))
        };
    }
    if let Some(k) = lookup(key) {
        return Ok(Classified::Option(k));
    }
    if is_clickhouse_setting(key) {
        return Ok(Classified::Setting(key));
    }
    Err(Error::config(unknown(key)))
}

/// The message for a key that is neither an option nor a setting.
fn unknown(key: &str) -> String {
    let hint = match closest(key) {
        Some(c) => format!("did you mean {c}? "),
        None => String::new(),
    };
    format!(
        "unknown option {key:?}: {hint}(chwire's options are listed in docs/OPTIONS.md; a ClickHouse setting that chwire does not \
         know goes as setting.NAME)"
    )
}

/// The known option or setting closest to `key`, if one is close enough to be a typo.
pub fn closest(key: &str) -> Option<&'static str> {
    let n = normalized(key);
    let options = KEYS.iter().flat_map(|k| std::iter::once(k.name).chain(k.aliases.iter().copied()));
    let settings = SETTINGS.lines().filter(|l| !l.starts_with('#'));
    let (best, distance) = options
        .chain(settings)
        .map(|name| (name, strsim::damerau_levenshtein(&n, &normalized(name))))
        .min_by_key(|&(name, d)| (d, name.len()))?;
    // A third of the key's length, at least one edit and at most three.
    (distance <= (n.len() / 3).clamp(1, 3)).then_some(best)
}

/// A flag's value.
pub fn flag(key: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(Error::config(format!("invalid {key}={value:?} (use true or false)"))),
    }
}

/// A count's value.
pub fn count<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value.trim().parse().map_err(|_| Error::config(format!("invalid {key}={value:?} (a whole number)")))
}

/// A duration that may be switched off: `0` or `none` is `None`. An error names `key`.
pub fn optional_duration(key: &str, value: &str) -> Result<Option<std::time::Duration>> {
    if value.trim().eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let d = duration(key, value)?;
    Ok((!d.is_zero()).then_some(d))
}

/// A duration's value (`500ms`, `5s`, `1.5m`, `1h`, a bare number of seconds). An error names `key`.
pub fn duration(key: &str, value: &str) -> Result<std::time::Duration> {
    super::duration_of(value).map_err(|m| Error::config(format!("{key}: {m}")))
}

/// The table as docs/OPTIONS.md lists it (a test keeps the file equal to it).
pub fn markdown() -> String {
    let mut out = String::from(
        "# Options\n\nEvery key chwire takes: a connection's in URLs (`?key=value`), and each in the front ends' \
         options (the Rust `Options`/`PoolOptions`/`ResultLimits` setters, Python's `connect(**options)`, ADBC's \
         `chwire.<key>`, Elixir's keyword options, Node's `connect(url, options)` and Spark's `.option(key, \
         value)`) where the front end has the feature. A front end spells a key in its host's style \
         (`num_partitions`, `numPartitions`): case and `_` are ignored. A duration given as text is read as \
         below everywhere; one given as a number is seconds in Python, milliseconds in Elixir and Node (as \
         each host's own timeouts are).\n\n\
         A key that is no option is a ClickHouse setting, sent with every query, when ClickHouse 26.9 has it \
         (or it starts with `custom_`); a setting chwire does not know goes as `setting.NAME`. Anything else is \
         refused with the closest known name (`numPartition`: \"did you mean num_partitions?\"). Each key is \
         given once in a URL or a set of options (two spellings of one option, such as `user` and `username`, \
         are refused). Settings that change the bytes chwire reads or writes are refused by name \
         (chwire's own option `compression` sets the transport's compression): {TRANSPORT}.\n\n\
         This file is generated from `crates/chwire/src/options/keys.rs` (`CHWIRE_BLESS=1 cargo test -p chwire \
         --lib options` rewrites it).\n",
    )
    .replace("{TRANSPORT}", &TRANSPORT_SETTINGS.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "));
    let mut scope = None;
    for k in KEYS {
        if scope != Some(k.scope) {
            scope = Some(k.scope);
            let title = match k.scope {
                Scope::Connection => "Connection (URLs and every front end)",
                Scope::Pool => "Pool",
                Scope::Arrow => "Arrow results (the bindings)",
                Scope::Result => "Results collected whole (the bindings)",
                Scope::Insert => "Inserts (the bindings)",
                Scope::Spark => "Spark (both data sources)",
            };
            out.push_str(&format!("\n## {title}\n\n| key | also | value | default | what it does |\n|---|---|---|---|---|\n"));
        }
        let kind = match k.kind {
            Text | Secret => "text".to_string(),
            Count => "number".to_string(),
            Flag => "true/false".to_string(),
            Duration => "duration".to_string(),
            Choice(words) => words.join(", "),
            List => "list".to_string(),
        };
        let also = k.aliases.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
        let default = if k.default.is_empty() { String::new() } else { format!("`{}`", k.default) };
        out.push_str(&format!("| `{}` | {also} | {kind} | {default} | {} |\n", k.name, k.doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_list_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/OPTIONS.md");
        let want = markdown();
        if std::env::var_os("CHWIRE_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(have == want, "docs/OPTIONS.md differs from the options table: run CHWIRE_BLESS=1 cargo test -p chwire --lib options");
    }

    #[test]
    fn keys_are_found_in_any_host_style() {
        for k in ["num_partitions", "numPartitions", "NUMPARTITIONS"] {
            assert_eq!(lookup(k).map(|k| k.name), Some("num_partitions"));
        }
        assert_eq!(lookup("read_timeout").map(|k| k.name), Some("receive_timeout"));
        assert_eq!(lookup("checkoutTimeout").map(|k| k.name), Some("acquire_timeout"));
        assert_eq!(lookup("nope"), None);
    }

    #[test]
    fn names_are_unique() {
        let mut all: Vec<String> =
            KEYS.iter().flat_map(|k| std::iter::once(k.name).chain(k.aliases.iter().copied())).map(normalized).collect();
        all.sort();
        let before = all.len();
        all.dedup();
        assert_eq!(before, all.len(), "two options share a name");
    }

    #[test]
    fn keys_are_options_settings_or_typos() {
        assert!(matches!(classify("compression").unwrap(), Classified::Option(k) if k.name == "compression"));
        assert_eq!(classify("max_threads").unwrap(), Classified::Setting("max_threads"));
        assert_eq!(classify("custom_x").unwrap(), Classified::Setting("custom_x"));
        assert_eq!(classify("setting.brand_new_setting").unwrap(), Classified::Setting("brand_new_setting"));
        let e = classify("compresion").unwrap_err().to_string();
        assert!(e.contains("did you mean compression?"), "{e}");
        let e = classify("numPartition").unwrap_err().to_string();
        assert!(e.contains("did you mean num_partitions?"), "{e}");
        let e = classify("max_thread").unwrap_err().to_string();
        assert!(e.contains("did you mean max_threads?"), "{e}");
        let e = classify("zzzzzzzzzzzzzz").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
        assert!(classify("setting.").is_err());
    }

    #[test]
    fn values() {
        assert!(flag("secure", "junk").is_err());
        assert!(flag("secure", "YES").unwrap());
        assert_eq!(optional_duration("k", "0").unwrap(), None);
        assert_eq!(optional_duration("k", "none").unwrap(), None);
        assert_eq!(optional_duration("k", "1.5s").unwrap(), Some(std::time::Duration::from_millis(1500)));
        assert!(count::<u32>("retries", "-1").is_err());
        assert!(takes_duration("connectTimeout") && takes_duration("checkout_timeout") && !takes_duration("max_size"));
    }
}
