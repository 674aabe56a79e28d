//! Connection options: from a URL or a builder.

use crate::error::{Error, Result};
use crate::hosts::{Endpoint, LoadBalancing};
use crate::tls::TlsOptions;
use chwire_proto::packet::client::Setting;
use chwire_proto::revision::{CLIENT_REVISION, MIN_REVISION};
use chwire_proto::{Compression, Limits};
use std::fmt;
use std::time::Duration;

/// Everything needed to open a connection.
#[derive(Clone)]
pub struct Options {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub database: String,
    pub compression: Compression,
    pub connect_timeout: Duration,
    /// Longest wait for the server's next bytes (`None`: wait forever).
    pub read_timeout: Option<Duration>,
    pub write_timeout: Option<Duration>,
    /// The protocol revision to announce (default [`CLIENT_REVISION`], ClickHouse 26.9's):
    /// a lower one makes a current server talk as it did to older clients (behind a proxy
    /// that only knows an older protocol, say); URL key `client_revision`.
    pub client_revision: u64,
    /// Chunked packet framing (revision >= 54470; URL key `chunked`): `Auto` (the default)
    /// follows a server that insists on it and frames nothing otherwise.
    pub chunked: chwire_proto::chunked::ChunkedMode,
    pub client_name: String,
    pub quota_key: String,
    /// Settings sent with every query (a query's own settings override them).
    pub settings: Vec<(String, String)>,
    /// What the server's answers may make the client accept (block rows and bytes, string
    /// and array lengths, nesting depth, frame size, columns); URL keys of the same names.
    pub limits: Limits,

    // Production connections (TLS, several servers, timeouts; see tls.rs and hosts.rs).
    /// TLS settings; `None` is plain TCP.
    pub tls: Option<TlsOptions>,
    /// More servers besides `host:port` (see [`Options::endpoints`]).
    pub alt_hosts: Vec<Endpoint>,
    /// Which server a new connection tries first.
    pub load_balancing: LoadBalancing,
    /// How long a failed server is skipped at first (doubled per failure in a row, at
    /// most 60 s); afterwards it is probed again.
    pub host_backoff: Duration,
    /// How often a read that failed with a [failover error](crate::Error::is_failover)
    /// before returning any rows is retried (on another server where there is one).
    /// Inserts are never retried.
    pub retries: u32,
    /// Longest time for the TLS and ClickHouse handshakes after the TCP connect.
    pub handshake_timeout: Duration,
    /// Deadline of a whole query, from sending it to its last packet (`None`: none). On
    /// expiry the query is cancelled and its connection drained before the next query.
    pub query_timeout: Option<Duration>,
    /// TCP keepalive: idle time before the first probe (`None`: off).
    pub tcp_keepalive: Option<Duration>,
    /// The native TCP protocol (default) or ClickHouse's HTTP interface (`http://` and
    /// `https://` URLs); everything above the transport is the same.
    pub transport: Transport,
    /// HTTP only: the server-side session (`session_id`) every query of this client runs in,
    /// so that temporary tables and `SET` last across queries (a native connection is a
    /// session by itself).
    pub session_id: Option<String>,
}

/// How queries reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// The native TCP protocol (port 9000, 9440 with TLS).
    #[default]
    Native,
    /// The HTTP interface with `FORMAT Native` bodies (port 8123, 8443 with TLS).
    Http,
}

impl std::str::FromStr for Transport {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "native" | "tcp" => Ok(Transport::Native),
            "http" => Ok(Transport::Http),
            _ => Err(format!("unknown transport {s:?} (use native or http)")),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            host: "127.0.0.1".into(),
            port: 9000,
            user: "default".into(),
            password: String::new(),
            database: "default".into(),
            compression: Compression::None,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Some(Duration::from_secs(300)),
            write_timeout: Some(Duration::from_secs(300)),
            client_revision: CLIENT_REVISION,
            chunked: chwire_proto::chunked::ChunkedMode::Auto,
            client_name: "chwire".into(),
            quota_key: String::new(),
            settings: Vec::new(),
            limits: Limits::DEFAULT,
            tls: None,
            alt_hosts: Vec::new(),
            load_balancing: LoadBalancing::InOrder,
            host_backoff: Duration::from_secs(1),
            retries: 2,
            handshake_timeout: Duration::from_secs(10),
            query_timeout: None,
            tcp_keepalive: Some(Duration::from_secs(60)),
            transport: Transport::Native,
            session_id: None,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &if self.password.is_empty() { "" } else { "<redacted>" })
            .field("database", &self.database)
            .field("compression", &self.compression)
            .field("connect_timeout", &self.connect_timeout)
            .field("limits", &self.limits)
            .field("read_timeout", &self.read_timeout)
            .field("write_timeout", &self.write_timeout)
            .field("client_revision", &self.client_revision)
            .field("chunked", &self.chunked)
            .field("client_name", &self.client_name)
            .field("settings", &self.settings)
            .field("tls", &self.tls)
            .field("alt_hosts", &self.alt_hosts)
            .field("load_balancing", &self.load_balancing)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("query_timeout", &self.query_timeout)
            .field("transport", &self.transport)
            .field("session_id", &self.session_id)
            .finish()
    }
}

/// Parse `5`, `5s`, `1.5s`, `500ms`, `2m` into a duration (bare numbers are seconds).
pub fn parse_duration(s: &str) -> Result<Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num.parse().map_err(|_| Error::config(format!("invalid duration {s:?}")))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" | "min" => v * 60.0,
        _ => return Err(Error::config(format!("invalid duration unit in {s:?} (use ms, s or m)"))),
    };
    Duration::try_from_secs_f64(secs).map_err(|_| Error::config(format!("invalid duration {s:?}")))
}

impl Options {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse `tcp://user:password@host:port/database?compression=lz4&connect_timeout=5s&...`.
    ///
    /// `http://` and `https://` URLs select the HTTP transport (default ports 8123 and 8443;
    /// `tcp://` defaults to 9000, 9440 with TLS). Key `session_id` (HTTP) runs the queries in a server session.
    ///
    /// Known query keys: `compression` (none, lz4, zstd, zstd:LEVEL), `connect_timeout`,
    /// `read_timeout`, `write_timeout` (`0` disables), `client_revision`, `chunked`, `client_name`,
    /// `quota_key`. Any other key is sent as a ClickHouse setting with every query.
    ///
    /// Several servers: `tcp://user@a:9000,b:9001/db` (or `?hosts=b:9001,c`). TLS:
    /// `secure=true`, `ca_file`, `cert_file`, `key_file`, `server_name`, `system_roots`
    /// (any of the file keys turns TLS on). Timeouts: `send_timeout`, `receive_timeout`
    /// (= write/read), `handshake_timeout`, `query_timeout`, `tcp_keepalive`. Servers:
    /// `load_balancing` (in_order, round_robin, random), `host_backoff`, `retries`.
    pub fn from_url(url: &str) -> Result<Options> {
        let (url, alt_hosts) = crate::hosts::split_url_hosts(url)?;
        let parsed = url::Url::parse(&url).map_err(|e| Error::config(format!("invalid URL: {e}")))?;
        let mut o = Options::default();
        match parsed.scheme() {
            "tcp" | "clickhouse" | "chwire" => {}
            "http" => {
                o.transport = Transport::Http;
                o.port = 8123;
            }
            "https" => {
                o.transport = Transport::Http;
                o.port = 8443;
                o.tls = Some(TlsOptions::default());
            }
            s => return Err(Error::config(format!("unsupported URL scheme {s:?} (use tcp://, http:// or https://)"))),
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|c| c.into_owned())
                .map_err(|_| Error::config("URL part is not UTF-8"))
        };
        if let Some(h) = parsed.host_str() {
            o.host = h.trim_start_matches('[').trim_end_matches(']').to_string();
        }
        if let Some(p) = parsed.port() {
            o.port = p;
        }
        if !parsed.username().is_empty() {
            o.user = decode(parsed.username())?;
        }
        if let Some(p) = parsed.password() {
            o.password = decode(p)?;
        }
        let db = parsed.path().trim_start_matches('/');
        if !db.is_empty() {
            o.database = decode(db)?;
        }
        // The host lists last: a host without a port gets the default of the transport and TLS
        // the keys chose, wherever they stand in the query (`?hosts=b&secure=true`).
        let mut host_lists = Vec::new();
        for (k, v) in parsed.query_pairs() {
            if k == "hosts" || k == "alt_hosts" {
                host_lists.push(v.into_owned());
            } else {
                o.set(&k, &v)?;
            }
        }
        let default_port = o.default_port();
        if parsed.port().is_none() {
            o.port = default_port;
        }
        for h in alt_hosts {
            o.alt_hosts.push(Endpoint::parse(&h, default_port)?);
        }
        for v in host_lists {
            o.alt_hosts.extend(Endpoint::parse_list(&v, default_port)?);
        }
        Ok(o)
    }

    /// The port a host without one gets: 9000 (native), 9440 (native over TLS, as
    /// `clickhouse-client --secure`), 8123 (HTTP) or 8443 (HTTPS).
    pub fn default_port(&self) -> u16 {
        match (self.transport, self.tls.is_some()) {
            (Transport::Native, false) => 9000,
            (Transport::Native, true) => 9440,
            (Transport::Http, false) => 8123,
            (Transport::Http, true) => 8443,
        }
    }

    /// Set one option by its URL key (unknown keys become settings).
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let timeout = |v: &str| -> Result<Option<Duration>> {
            let d = parse_duration(v)?;
            Ok((!d.is_zero()).then_some(d))
        };
        match key {
            "compression" => self.compression = value.parse().map_err(Error::config)?,
            "connect_timeout" => self.connect_timeout = parse_duration(value)?,
            "read_timeout" => self.read_timeout = timeout(value)?,
            "write_timeout" | "send_timeout" => self.write_timeout = timeout(value)?,
            "receive_timeout" => self.read_timeout = timeout(value)?,
            "handshake_timeout" => self.handshake_timeout = parse_duration(value)?,
            "query_timeout" => self.query_timeout = timeout(value)?,
            "tcp_keepalive" => self.tcp_keepalive = timeout(value)?,
            "secure" => match value {
                "true" | "1" | "yes" => drop(self.tls.get_or_insert_with(TlsOptions::default)),
                "false" | "0" | "no" => self.tls = None,
                _ => return Err(Error::config(format!("invalid secure={value:?} (use true or false)"))),
            },
            "ca_file" => self.tls.get_or_insert_with(TlsOptions::default).ca_file = Some(value.into()),
            "cert_file" | "cert" => self.tls.get_or_insert_with(TlsOptions::default).cert_file = Some(value.into()),
            "key_file" | "key" => self.tls.get_or_insert_with(TlsOptions::default).key_file = Some(value.into()),
            "server_name" | "tls_server_name" => self.tls.get_or_insert_with(TlsOptions::default).server_name = Some(value.into()),
            "system_roots" => self.tls.get_or_insert_with(TlsOptions::default).system_roots = matches!(value, "true" | "1" | "yes"),
            "hosts" | "alt_hosts" => self.alt_hosts.extend(Endpoint::parse_list(value, self.default_port())?),
            "load_balancing" => self.load_balancing = value.parse().map_err(Error::config)?,
            "host_backoff" => self.host_backoff = parse_duration(value)?,
            "retries" => self.retries = value.parse().map_err(|_| Error::config(format!("invalid retries {value:?}")))?,
            "client_revision" => {
                let r: u64 = value.parse().map_err(|_| Error::config(format!("invalid client_revision {value:?}")))?;
                self.client_revision = r;
            }
            "chunked" => self.chunked = value.parse().map_err(Error::config)?,
            "client_name" => self.client_name = value.to_string(),
            "transport" => self.transport = value.parse().map_err(Error::config)?,
            "session_id" => self.session_id = Some(value.to_string()),
            "quota_key" => self.quota_key = value.to_string(),
            "database" => self.database = value.to_string(),
            "user" => self.user = value.to_string(),
            "password" => self.password = value.to_string(),
            k if Limits::NAMES.contains(&k) => self.limits.set(k, value).map_err(Error::config)?,
            _ => self.settings.push((key.to_string(), value.to_string())),
        }
        Ok(())
    }

    /// Decoding limits for the server's answers (default [`Limits::DEFAULT`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = host.into();
        self
    }
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.user = user.into();
        self
    }
    pub fn password(mut self, password: impl Into<String>) -> Self {
        self.password = password.into();
        self
    }
    pub fn database(mut self, database: impl Into<String>) -> Self {
        self.database = database.into();
        self
    }
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }
    pub fn connect_timeout(mut self, d: Duration) -> Self {
        self.connect_timeout = d;
        self
    }
    pub fn read_timeout(mut self, d: Option<Duration>) -> Self {
        self.read_timeout = d;
        self
    }
    pub fn write_timeout(mut self, d: Option<Duration>) -> Self {
        self.write_timeout = d;
        self
    }
    /// Announce a lower protocol revision than chwire's own ([`Options::client_revision`]).
    pub fn client_revision(mut self, r: u64) -> Self {
        self.client_revision = r;
        self
    }
    /// Chunked packet framing ([`Options::chunked`]).
    pub fn chunked(mut self, mode: chwire_proto::chunked::ChunkedMode) -> Self {
        self.chunked = mode;
        self
    }
    pub fn setting(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.settings.push((name.into(), value.into()));
        self
    }

    /// Every server: `host:port`, then `alt_hosts`.
    pub fn endpoints(&self) -> Vec<Endpoint> {
        let mut v = Vec::with_capacity(1 + self.alt_hosts.len());
        v.push(Endpoint::new(self.host.clone(), self.port));
        v.extend(self.alt_hosts.iter().cloned());
        v
    }
    /// Set the list of servers (the first becomes `host:port`, the rest `alt_hosts`).
    /// Panics on an empty list.
    pub fn hosts(mut self, list: impl IntoIterator<Item = Endpoint>) -> Self {
        let mut it = list.into_iter();
        let first = it.next().expect("at least one server");
        self.host = first.host;
        self.port = first.port;
        self.alt_hosts = it.collect();
        self
    }
    pub fn load_balancing(mut self, lb: LoadBalancing) -> Self {
        self.load_balancing = lb;
        self
    }
    pub fn host_backoff(mut self, d: Duration) -> Self {
        self.host_backoff = d;
        self
    }
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n;
        self
    }
    /// Connect over TLS with these settings.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = Some(tls);
        self
    }
    pub fn handshake_timeout(mut self, d: Duration) -> Self {
        self.handshake_timeout = d;
        self
    }
    /// Same as [`Options::write_timeout`] (clickhouse-client's name).
    pub fn send_timeout(self, d: Option<Duration>) -> Self {
        self.write_timeout(d)
    }
    /// Same as [`Options::read_timeout`] (clickhouse-client's name).
    pub fn receive_timeout(self, d: Option<Duration>) -> Self {
        self.read_timeout(d)
    }
    pub fn query_timeout(mut self, d: Option<Duration>) -> Self {
        self.query_timeout = d;
        self
    }
    pub fn tcp_keepalive(mut self, d: Option<Duration>) -> Self {
        self.tcp_keepalive = d;
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.user.is_empty() {
            return Err(Error::config("user must not be empty (ClickHouse's default user is `default`)"));
        }
        if !(MIN_REVISION..=CLIENT_REVISION).contains(&self.client_revision) {
            return Err(Error::config(format!(
                "client_revision {} is outside what chwire implements ({MIN_REVISION}..={CLIENT_REVISION})",
                self.client_revision
            )));
        }
        Ok(())
    }

    pub(crate) fn settings_list(&self, per_query: &[(String, String)]) -> Vec<Setting> {
        let mut out: Vec<Setting> = Vec::with_capacity(self.settings.len() + per_query.len());
        for (k, v) in self.settings.iter().chain(per_query) {
            if let Some(s) = out.iter_mut().find(|s| &s.name == k) {
                s.value = v.clone();
            } else {
                out.push(Setting { name: k.clone(), value: v.clone(), important: true });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_with_everything() {
        let o = Options::from_url(
            "tcp://us%40er:p%3Ass@db.example:19000/mydb?compression=zstd:3&connect_timeout=500ms&read_timeout=0&max_threads=2",
        )
        .unwrap();
        assert_eq!(o.host, "db.example");
        assert_eq!(o.port, 19000);
        assert_eq!(o.user, "us@er");
        assert_eq!(o.password, "p:ss");
        assert_eq!(o.database, "mydb");
        assert_eq!(o.compression, Compression::Zstd(3));
        assert_eq!(o.connect_timeout, Duration::from_millis(500));
        assert_eq!(o.read_timeout, None);
        assert_eq!(o.settings, vec![("max_threads".to_string(), "2".to_string())]);
    }

    #[test]
    fn url_defaults_and_errors() {
        let o = Options::from_url("tcp://localhost").unwrap();
        assert_eq!((o.port, o.user.as_str(), o.database.as_str()), (9000, "default", "default"));
        assert!(Options::from_url("ftp://localhost").is_err());
        let o = Options::from_url("http://localhost?session_id=s1").unwrap();
        assert_eq!((o.transport, o.port, o.tls.is_some(), o.session_id.as_deref()), (Transport::Http, 8123, false, Some("s1")));
        let o = Options::from_url("https://a,b:8444").unwrap();
        assert_eq!((o.transport, o.port, o.tls.is_some()), (Transport::Http, 8443, true));
        assert_eq!(o.endpoints()[1].port, 8444);
        let o = Options::from_url("http://a?hosts=b").unwrap();
        assert_eq!(o.endpoints()[1].port, 8123);
        assert_eq!(Options::from_url("tcp://a?transport=http").unwrap().transport, Transport::Http);
        assert!(Options::from_url("tcp://h?compression=gzip").is_err());
        assert!(Options::from_url("tcp://h?connect_timeout=soon").is_err());
        assert!(Options::from_url("tcp://[::1]:9000").unwrap().host == "::1");
        // A host without a port gets the default of the transport and TLS the keys chose.
        let tls = Options::from_url("tcp://a,b:9441/db?hosts=c&secure=true").unwrap();
        let ports: Vec<u16> = tls.alt_hosts.iter().map(|e| e.port).collect();
        assert_eq!((tls.port, ports), (9440, vec![9441, 9440]));
        assert_eq!(Options::from_url("tcp://a:9000/db?secure=1").unwrap().port, 9000);
        assert_eq!(Options::from_url("tcp://a/db?transport=http").unwrap().port, 8123);
    }

    #[test]
    fn debug_hides_the_password() {
        let o = Options::from_url("tcp://u:hunter2@h").unwrap();
        let d = format!("{o:?}");
        assert!(!d.contains("hunter2"), "{d}");
        assert!(d.contains("<redacted>"));
    }

    #[test]
    fn per_query_settings_override() {
        let o = Options::new().setting("a", "1").setting("b", "2");
        let s = o.settings_list(&[("a".into(), "9".into())]);
        assert_eq!(s.iter().map(|s| (s.name.as_str(), s.value.as_str())).collect::<Vec<_>>(), vec![("a", "9"), ("b", "2")]);
    }
}
