//! Connection options: from a URL, by key (the one table of keys, [`keys`]) or a builder.

pub mod keys;

use crate::error::{Error, Result};
use crate::hosts::{Endpoint, LoadBalancing};
use crate::tls::TlsOptions;
use chwire_proto::chunked::ChunkedMode;
use chwire_proto::packet::client::Setting;
use chwire_proto::revision::{CLIENT_REVISION, MIN_REVISION};
use chwire_proto::{Compression, Limits};
use keys::{count, flag, optional_duration, Classified, Scope};
use std::fmt;
use std::time::Duration;

/// Everything needed to open a connection. Every field has a key of the same name in URLs
/// and in every front end's options (docs/OPTIONS.md, [`keys::KEYS`]).
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// The first server's host (more in `alt_hosts`).
    pub host: String,
    /// The first server's port.
    pub port: u16,
    /// The ClickHouse user.
    pub user: String,
    /// The user's password (`Debug` hides it).
    pub password: String,
    /// The session's current database.
    pub database: String,
    /// Compression of the blocks both ways (over the native protocol the server compresses its
    /// blocks with this method too: `network_compression_method` follows it unless set).
    pub compression: Compression,
    /// Longest TCP connect (`None`: no limit).
    pub connect_timeout: Option<Duration>,
    /// Longest TLS and ClickHouse handshake after the connect (`None`: no limit).
    pub handshake_timeout: Option<Duration>,
    /// Longest time without progress writing to the server (`None`: no limit).
    pub send_timeout: Option<Duration>,
    /// Longest wait for the server's next bytes (`None`: no limit).
    pub receive_timeout: Option<Duration>,
    /// Deadline of a whole query, from sending it to its last packet (`None`: none). On
    /// expiry the query is cancelled and its connection drained before the next query.
    pub query_timeout: Option<Duration>,
    /// TCP keepalive: idle time before the first probe (`None`: off).
    pub tcp_keepalive: Option<Duration>,
    /// The protocol revision to announce (default [`CLIENT_REVISION`], ClickHouse 26.9's):
    /// a lower one makes a current server talk as it did to older clients (behind a proxy
    /// that only knows an older protocol, say).
    pub client_revision: u64,
    /// Chunked packet framing (revision >= 54470): `Auto` (the default) follows a server
    /// that insists on it and frames nothing otherwise.
    pub chunked: ChunkedMode,
    /// The client's name as the server records it.
    pub client_name: String,
    /// The session's quota key.
    pub quota_key: String,
    /// Settings sent with every query (a query's own settings override them).
    pub settings: Vec<(String, String)>,
    /// What the server's answers may make the client accept (block rows and bytes, string
    /// and array lengths, nesting depth, frame size, columns).
    pub limits: Limits,
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
            connect_timeout: Some(Duration::from_secs(10)),
            handshake_timeout: Some(Duration::from_secs(10)),
            send_timeout: Some(Duration::from_secs(300)),
            receive_timeout: Some(Duration::from_secs(300)),
            query_timeout: None,
            tcp_keepalive: Some(Duration::from_secs(60)),
            client_revision: CLIENT_REVISION,
            chunked: ChunkedMode::Auto,
            client_name: "chwire".into(),
            quota_key: String::new(),
            settings: Vec::new(),
            limits: Limits::DEFAULT,
            tls: None,
            alt_hosts: Vec::new(),
            load_balancing: LoadBalancing::InOrder,
            host_backoff: Duration::from_secs(1),
            retries: 2,
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
            .field("handshake_timeout", &self.handshake_timeout)
            .field("send_timeout", &self.send_timeout)
            .field("receive_timeout", &self.receive_timeout)
            .field("query_timeout", &self.query_timeout)
            .field("tcp_keepalive", &self.tcp_keepalive)
            .field("client_revision", &self.client_revision)
            .field("chunked", &self.chunked)
            .field("client_name", &self.client_name)
            .field("quota_key", &self.quota_key)
            .field("settings", &self.settings)
            .field("limits", &self.limits)
            .field("tls", &self.tls)
            .field("alt_hosts", &self.alt_hosts)
            .field("load_balancing", &self.load_balancing)
            .field("host_backoff", &self.host_backoff)
            .field("retries", &self.retries)
            .field("transport", &self.transport)
            .field("session_id", &self.session_id)
            .finish()
    }
}

/// Parse `5`, `5s`, `1.5s`, `500ms`, `2m`, `1h` into a duration (bare numbers are seconds).
pub fn parse_duration(s: &str) -> Result<Duration> {
    duration_of(s).map_err(Error::config)
}

/// [`parse_duration`], its error as text.
pub(crate) fn duration_of(s: &str) -> std::result::Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num.parse().map_err(|_| format!("invalid duration {s:?}"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(format!("invalid duration unit in {s:?} (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|_| format!("invalid duration {s:?}"))
}

/// The keys of one set of options (a URL's query, a binding's options): each option or setting
/// once. Two spellings of one option (`user` and `username`) or a repeated key would leave one
/// value unused, and which one differs by front end (the order of a host's map).
#[derive(Default)]
pub(crate) struct Given(Vec<(String, String)>);

/// The keys of `scope` among a binding's `key = value` options, each given once, taken out of
/// `pairs` and handed to `set`; the rest are left in `pairs` (for [`Options`]).
pub(crate) fn take_scope(pairs: &mut Vec<(String, String)>, scope: Scope, mut set: impl FnMut(&str, &str) -> Result<()>) -> Result<()> {
    let mut rest = Vec::with_capacity(pairs.len());
    let mut given = Given::default();
    for (k, v) in pairs.drain(..) {
        if keys::lookup(&k).is_some_and(|o| o.scope == scope) {
            given.once(&k)?;
            set(&k, &v)?;
        } else {
            rest.push((k, v));
        }
    }
    *pairs = rest;
    Ok(())
}

impl Given {
    pub(crate) fn once(&mut self, key: &str) -> Result<()> {
        let canonical = match keys::canonical_name(key) {
            // A list of hosts may come in parts (`?hosts=b&hosts=c`).
            Some("hosts") => return Ok(()),
            Some(name) => name.to_string(),
            None => return Ok(()), // refused by `set` with its own message
        };
        if let Some((first, _)) = self.0.iter().find(|(_, c)| *c == canonical) {
            return Err(Error::config(if first == key {
                format!("option {key:?} is given twice")
            } else {
                format!("options {first:?} and {key:?} are the same option ({canonical:?}): give one")
            }));
        }
        self.0.push((key.to_string(), canonical));
        Ok(())
    }
}

impl Options {
    /// The defaults: `tcp://default@127.0.0.1:9000/default`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse `tcp://user:password@host:port/database?compression=lz4&connect_timeout=5s&...`.
    ///
    /// `http://` and `https://` URLs select the HTTP transport (default ports 8123 and 8443;
    /// `tcp://` defaults to 9000, 9440 with TLS). Several servers: `tcp://user@a:9000,b:9001/db`
    /// (or `?hosts=b:9001,c`). Query keys: every connection option of docs/OPTIONS.md
    /// ([`keys::KEYS`]), ClickHouse settings (sent with every query; a setting newer than
    /// 26.9 as `setting.NAME`); any other key is refused with the closest known name.
    pub fn from_url(url: &str) -> Result<Options> {
        Options::from_url_and(Some(url), std::iter::empty::<(&str, &str)>())
    }

    /// A URL (or the defaults without one) and a binding's own `(key, value)` options, read
    /// together: what every binding and the CLI do. Each key is read by [`Options::set`]'s
    /// rules, the pairs after (and over) the URL's query; the ports last, as in a URL's query:
    /// a host given without a port (in the URL, its `hosts`, a `hosts` pair) gets the default
    /// of the transport and TLS that all the keys choose (`secure` as a pair too), and a
    /// `port` key is the first server's port.
    pub fn from_url_and<K: AsRef<str>, V: AsRef<str>>(url: Option<&str>, pairs: impl IntoIterator<Item = (K, V)>) -> Result<Options> {
        let mut o = Options::default();
        let (mut alt_hosts, mut written_port) = (Vec::new(), None);
        let mut query: Vec<(String, String)> = Vec::new();
        if let Some(url) = url {
            let (url, hosts) = crate::hosts::split_url_hosts(url)?;
            alt_hosts = hosts;
            let parsed = url::Url::parse(&url).map_err(|e| Error::config(format!("invalid URL: {e}")))?;
            match parsed.scheme() {
                "tcp" | "clickhouse" | "chwire" => {}
                "http" => o.transport = Transport::Http,
                "https" => {
                    o.transport = Transport::Http;
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
            // The url crate hides a port equal to its scheme's default (80, 443): written, it is
            // the port all the same (ours are 8123 and 8443).
            written_port = parsed.port().or_else(|| written_port_of(&url));
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
            query = parsed.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        }
        // The ports last: a host without one gets the default of the transport and TLS all the
        // keys chose, wherever they stand (`?hosts=b&secure=true`, `secure` as an option).
        // Each key once in the URL, and once among the pairs (which override the URL's).
        let mut host_lists = Vec::new();
        let (mut in_url, mut in_pairs) = (Given::default(), Given::default());
        let query = query.into_iter().map(|kv| (true, kv));
        let pairs = pairs.into_iter().map(|(k, v)| (false, (k.as_ref().to_string(), v.as_ref().to_string())));
        for (from_url, (k, v)) in query.chain(pairs) {
            if from_url { &mut in_url } else { &mut in_pairs }.once(&k)?;
            match keys::classify(&k)? {
                Classified::Option(key) if key.name == "hosts" => host_lists.push(v),
                Classified::Option(key) if key.name == "port" => written_port = Some(count(&k, &v)?),
                _ => o.set(&k, &v)?,
            }
        }
        let default_port = o.default_port();
        o.port = written_port.unwrap_or(default_port);
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

    /// Set one connection option by its key ([`keys::classify`]: a name of the table, in any
    /// host's spelling, or an alias), or add a ClickHouse setting. A key of another scope (a
    /// pool's or Spark's), or neither an option nor a setting, is an error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let k = match keys::classify(key)? {
            Classified::Setting(name) => {
                self.settings.push((name.to_string(), value.to_string()));
                return Ok(());
            }
            Classified::Option(k) if k.scope == Scope::Connection => k,
            Classified::Option(k) => {
                return Err(Error::config(format!("{key:?} is {}, not a connection option", k.scope.describe())));
            }
        };
        let name = k.name;
        fn tls(o: &mut Options) -> &mut TlsOptions {
            o.tls.get_or_insert_with(TlsOptions::default)
        }
        let text = || value.to_string();
        match name {
            "host" => self.host = text(),
            "port" => self.port = count(name, value)?,
            "user" => self.user = text(),
            "password" => self.password = text(),
            "database" => self.database = text(),
            "transport" => self.transport = value.parse().map_err(Error::config)?,
            "compression" => self.compression = value.parse().map_err(Error::config)?,
            "client_name" => self.client_name = text(),
            "quota_key" => self.quota_key = text(),
            "session_id" => self.session_id = Some(text()).filter(|s| !s.is_empty()),
            "client_revision" => self.client_revision = count(name, value)?,
            "chunked" => self.chunked = value.parse().map_err(Error::config)?,
            "connect_timeout" => self.connect_timeout = optional_duration(name, value)?,
            "handshake_timeout" => self.handshake_timeout = optional_duration(name, value)?,
            "send_timeout" => self.send_timeout = optional_duration(name, value)?,
            "receive_timeout" => self.receive_timeout = optional_duration(name, value)?,
            "query_timeout" => self.query_timeout = optional_duration(name, value)?,
            "tcp_keepalive" => self.tcp_keepalive = optional_duration(name, value)?,
            "secure" => {
                if flag(name, value)? {
                    tls(self);
                } else {
                    self.tls = None;
                }
            }
            "ca_file" => tls(self).ca_file = Some(value.into()),
            "system_roots" => {
                // Trusting the system's roots as well turns TLS on; not trusting them changes nothing.
                if flag(name, value)? {
                    tls(self).system_roots = true;
                } else if let Some(t) = &mut self.tls {
                    t.system_roots = false;
                }
            }
            "cert_file" => tls(self).cert_file = Some(value.into()),
            "key_file" => tls(self).key_file = Some(value.into()),
            "server_name" => tls(self).server_name = Some(text()),
            "hosts" => self.alt_hosts.extend(Endpoint::parse_list(value, self.default_port())?),
            "load_balancing" => self.load_balancing = value.parse().map_err(Error::config)?,
            "host_backoff" => self.host_backoff = keys::duration(name, value)?,
            "retries" => self.retries = count(name, value)?,
            limit if Limits::NAMES.contains(&limit) => self.limits.set(limit, value).map_err(Error::config)?,
            other => return Err(Error::config(format!("option {other:?} has no setter (a chwire bug)"))),
        }
        Ok(())
    }

    /// The server's host.
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = host.into();
        self
    }
    /// The server's port.
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }
    /// The ClickHouse user.
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.user = user.into();
        self
    }
    /// The user's password.
    pub fn password(mut self, password: impl Into<String>) -> Self {
        self.password = password.into();
        self
    }
    /// The session's current database.
    pub fn database(mut self, database: impl Into<String>) -> Self {
        self.database = database.into();
        self
    }
    /// Compression of the blocks both ways (over the native protocol the server compresses its
    /// blocks with this method too: `network_compression_method` follows it unless set).
    pub fn compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }
    /// The native protocol or HTTP.
    pub fn transport(mut self, t: Transport) -> Self {
        self.transport = t;
        self
    }
    /// The client's name as the server records it.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }
    /// The session's quota key.
    pub fn quota_key(mut self, key: impl Into<String>) -> Self {
        self.quota_key = key.into();
        self
    }
    /// HTTP only: the server-side session every query runs in ([`Options::session_id`]).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }
    /// Longest TCP connect (`None`: no limit).
    pub fn connect_timeout(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.connect_timeout = d.into();
        self
    }
    /// Longest TLS and ClickHouse handshake (`None`: no limit).
    pub fn handshake_timeout(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.handshake_timeout = d.into();
        self
    }
    /// Longest time without progress writing to the server (`None`: no limit).
    pub fn send_timeout(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.send_timeout = d.into();
        self
    }
    /// Longest wait for the server's next bytes (`None`: no limit).
    pub fn receive_timeout(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.receive_timeout = d.into();
        self
    }
    /// Deadline of each whole query (`None`: none).
    pub fn query_timeout(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.query_timeout = d.into();
        self
    }
    /// TCP keepalive's idle time (`None`: off).
    pub fn tcp_keepalive(mut self, d: impl Into<Option<Duration>>) -> Self {
        self.tcp_keepalive = d.into();
        self
    }
    /// Decoding limits for the server's answers (default [`Limits::DEFAULT`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// Announce a lower protocol revision than chwire's own ([`Options::client_revision`]).
    pub fn client_revision(mut self, r: u64) -> Self {
        self.client_revision = r;
        self
    }
    /// Chunked packet framing ([`Options::chunked`]).
    pub fn chunked(mut self, mode: ChunkedMode) -> Self {
        self.chunked = mode;
        self
    }
    /// A setting sent with every query.
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
    /// Set the list of servers (the first becomes `host:port`, the rest `alt_hosts`). An
    /// empty list leaves no server: connecting is then a configuration error.
    pub fn hosts(mut self, list: impl IntoIterator<Item = Endpoint>) -> Self {
        let mut it = list.into_iter();
        let (host, port) = it.next().map_or((String::new(), self.port), |e| (e.host, e.port));
        self.host = host;
        self.port = port;
        self.alt_hosts = it.collect();
        self
    }
    /// Which server a new connection tries first.
    pub fn load_balancing(mut self, lb: LoadBalancing) -> Self {
        self.load_balancing = lb;
        self
    }
    /// How long a failed server is skipped at first.
    pub fn host_backoff(mut self, d: Duration) -> Self {
        self.host_backoff = d;
        self
    }
    /// How often a read that failed over before returning rows is sent again.
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n;
        self
    }
    /// Connect over TLS with these settings.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = Some(tls);
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.host.is_empty() {
            return Err(Error::config("no server to connect to (the host is empty)"));
        }
        if let Some(e) = self.endpoints().iter().find(|e| e.port == 0) {
            return Err(Error::config(format!("server {e} has port 0, which no server listens on")));
        }
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

    /// The settings of a query: the client's, then the query's (a later value of a name wins).
    /// Settings that change the bytes chwire reads or writes are refused
    /// ([`keys::refused_setting`]).
    pub(crate) fn settings_list(&self, per_query: &[(String, String)]) -> crate::Result<Vec<Setting>> {
        let mut out: Vec<Setting> = Vec::with_capacity(self.settings.len() + per_query.len());
        for (k, v) in self.settings.iter().chain(per_query) {
            if let Some(why) = keys::refused_setting(k) {
                return Err(crate::Error::invalid(why));
            }
            if let Some(s) = out.iter_mut().find(|s| &s.name == k) {
                s.value = v.clone();
            } else {
                out.push(Setting { name: k.clone(), value: v.clone(), important: true });
            }
        }
        Ok(out)
    }
}

/// The port written after a one-host URL's host (`h:443`, `[::1]:80`), if any.
fn written_port_of(url: &str) -> Option<u16> {
    if !url.contains("://") {
        return None;
    }
    let host = &url[crate::hosts::host_list_span(url)];
    let (_, port) = host.rsplit_once(':')?;
    if host.starts_with('[') && !host[..host.len() - port.len() - 1].ends_with(']') {
        return None;
    }
    port.parse().ok()
}

/// `url` with its servers replaced by `hosts`, everything else kept as written (user,
/// password, database, every other option): the URL of one shard's replicas, or of one server,
/// to hand to another process. The URL's `host`, `port` and `hosts` keys are dropped (they
/// would change or add servers). The result reads back ([`Options::from_url`]) with `hosts` as
/// its servers.
pub fn url_with_hosts(url: &str, hosts: &[Endpoint]) -> Result<String> {
    if hosts.is_empty() {
        return Err(Error::config("a URL needs at least one host"));
    }
    Options::from_url(url)?; // the same URL rules as a connection's
    let span = crate::hosts::host_list_span(url);
    let list: Vec<String> = hosts.iter().map(Endpoint::to_string).collect();
    let mut out = format!("{}{}", &url[..span.start], list.join(","));
    let rest = &url[span.end..];
    let (before_fragment, fragment) = rest.split_once('#').map_or((rest, None), |(a, f)| (a, Some(f)));
    match before_fragment.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            let kept: Vec<&str> = query
                .split('&')
                .filter(|pair| {
                    let key = pair.split('=').next().unwrap_or("");
                    let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
                    !matches!(keys::classify(&key), Ok(Classified::Option(k)) if keys::SERVER_KEYS.contains(&k.name))
                })
                .collect();
            if !kept.is_empty() {
                out.push('?');
                out.push_str(&kept.join("&"));
            }
        }
        None => out.push_str(before_fragment),
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    Ok(out)
}

/// One URL per server of `opts` (read from `url` and maybe a front end's options, so each
/// server has the port they give it), in order: [`url_with_hosts`] of each.
pub fn single_host_urls(url: &str, opts: &Options) -> Result<Vec<String>> {
    opts.endpoints().iter().map(|e| url_with_hosts(url, std::slice::from_ref(e))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One URL per server of `url` as read alone.
    fn single_host_urls(url: &str) -> Result<Vec<String>> {
        super::single_host_urls(url, &Options::from_url(url)?)
    }

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
        assert_eq!(o.connect_timeout, Some(Duration::from_millis(500)));
        assert_eq!(o.receive_timeout, None);
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
    fn url_keys_follow_the_one_table() {
        let e = Options::from_url("tcp://h?compresion=lz4").unwrap_err().to_string();
        assert!(e.contains("did you mean compression?"), "{e}");
        assert!(Options::from_url("tcp://h?system_roots=junk").is_err());
        assert!(Options::from_url("tcp://h?max_size=3").unwrap_err().to_string().contains("a pool option"));
        let o = Options::from_url("tcp://h?setting.brand_new=1&max_threads=2&read_timeout=5s&connect_timeout=0").unwrap();
        assert_eq!(o.settings, [("brand_new".to_string(), "1".to_string()), ("max_threads".to_string(), "2".to_string())]);
        assert_eq!((o.receive_timeout, o.connect_timeout), (Some(Duration::from_secs(5)), None));
        let o = Options::from_url_and(Some("tcp://h"), [("Port", "1"), ("numRetries", "x")].iter().take(1).copied()).unwrap();
        // One key once: a second spelling or a repeat is refused, whichever comes first.
        let e = Options::from_url_and(None, [("user", "a"), ("username", "b")]).unwrap_err().to_string();
        assert!(e.contains("\"user\" and \"username\" are the same option"), "{e}");
        assert!(Options::from_url("tcp://h?max_threads=1&max_threads=2").unwrap_err().to_string().contains("given twice"));
        assert!(Options::from_url("tcp://h?receive_timeout=1s&read_timeout=2s").is_err());
        // The URL's own user is overridden by an option, as before.
        assert_eq!(Options::from_url_and(Some("tcp://u@h"), [("user", "v")]).unwrap().user, "v");
        assert_eq!(o.port, 1);
        assert!(Options::new().hosts(Vec::new()).validate().is_err());
    }

    #[test]
    fn urls_with_other_hosts() {
        let u = "tcp://u:p%40@a:1,b:2/db?secure=1&hosts=c:3&Hosts=d#f";
        let one = url_with_hosts(u, &[Endpoint::new("x", 9), Endpoint::new("::1", 8)]).unwrap();
        assert_eq!(one, "tcp://u:p%40@x:9,[::1]:8/db?secure=1#f");
        let o = Options::from_url(&one).unwrap();
        assert_eq!((o.user.as_str(), o.password.as_str(), o.database.as_str()), ("u", "p@", "db"));
        assert_eq!(o.endpoints(), [Endpoint::new("x", 9), Endpoint::new("::1", 8)]);
        assert_eq!(
            single_host_urls(u).unwrap(),
            [
                "tcp://u:p%40@a:1/db?secure=1#f",
                "tcp://u:p%40@b:2/db?secure=1#f",
                "tcp://u:p%40@c:3/db?secure=1#f",
                "tcp://u:p%40@d:9440/db?secure=1#f"
            ]
        );
        assert_eq!(single_host_urls("http://h").unwrap(), ["http://h:8123"]);
        // `host` and `port` keys change the first server: not part of another URL.
        assert_eq!(single_host_urls("tcp://a:9000,b:9000/db?port=9001").unwrap(), ["tcp://a:9001/db", "tcp://b:9000/db"]);
        assert_eq!(single_host_urls("tcp://a/db?host=x").unwrap(), ["tcp://x:9000/db"]);
        // A `port` key is the port; `secure` given after the URL re-defaults a port not written.
        assert_eq!(Options::from_url("tcp://a/db?port=9001").unwrap().port, 9001);
        let o = Options::from_url_and(Some("tcp://a,b:1/db?hosts=c"), [("secure", "true")]).unwrap();
        assert_eq!(o.endpoints(), [Endpoint::new("a", 9440), Endpoint::new("b", 1), Endpoint::new("c", 9440)]);
        assert_eq!(Options::from_url_and(None, [("secure", "1")]).unwrap().port, 9440);
        assert_eq!(Options::from_url_and(None, [("transport", "http")]).unwrap().port, 8123);
        assert_eq!(Options::from_url_and(Some("tcp://h"), [("transport", "http"), ("secure", "1")]).unwrap().port, 8443);
        assert!(Options::from_url("tcp://h?port=0").unwrap().validate().is_err());
        // A binding's bound of collected results is not a connection's; ClickHouse's setting of
        // a like name is a setting.
        let e = Options::from_url("tcp://h?max_collected_rows=5").unwrap_err().to_string();
        assert!(e.contains("an option of collected results, not a connection option"), "{e}");
        let o = Options::from_url("tcp://h?max_result_rows=5").unwrap();
        assert_eq!(o.settings, [("max_result_rows".to_string(), "5".to_string())]);
        // A pair over a key of the URL: the pair's value.
        assert_eq!(Options::from_url_and(Some("tcp://h?port=1"), [("port", "2")]).unwrap().port, 2);
        assert_eq!(Options::from_url_and(Some("tcp://a:9000"), [("secure", "1")]).unwrap().port, 9000);
        // A written port that is the scheme's own default (the url crate hides it) is kept.
        assert_eq!(Options::from_url("https://a:443/db").unwrap().port, 443);
        assert_eq!(Options::from_url("http://[::1]:80").unwrap().port, 80);
        assert_eq!(single_host_urls("https://a:8443,b:443/db").unwrap(), ["https://a:8443/db", "https://b:443/db"]);
        for url in ["tcp://a:9000,b:9000/db?port=9001&hosts=c", "https://u@a,b:443/db?secure=1", "tcp://[::1],h/x?host=z"] {
            let want = Options::from_url(url).unwrap().endpoints();
            let got: Vec<Endpoint> =
                single_host_urls(url).unwrap().iter().flat_map(|u| Options::from_url(u).unwrap().endpoints()).collect();
            assert_eq!(got, want, "{url}");
        }
        assert_eq!(url_with_hosts("tcp://h/db?hosts=b", &[Endpoint::new("h", 1)]).unwrap(), "tcp://h:1/db");
        assert!(url_with_hosts("tcp://h", &[]).is_err());
        assert!(single_host_urls("tcp://h?bogus_option_name=1").is_err());
    }

    #[test]
    fn defaults_are_what_the_table_says() {
        let mut o = Options::new();
        let mut p = crate::PoolOptions::new();
        for k in keys::KEYS.iter().filter(|k| !k.default.is_empty()) {
            match k.scope {
                Scope::Connection => o.set(k.name, k.default).unwrap(),
                Scope::Pool => p.set(k.name, k.default).unwrap(),
                _ => {}
            }
        }
        assert_eq!(format!("{o:?}"), format!("{:?}", Options::new()));
        assert_eq!(p, crate::PoolOptions::new());
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
        let s = o.settings_list(&[("a".into(), "9".into())]).unwrap();
        assert_eq!(s.iter().map(|s| (s.name.as_str(), s.value.as_str())).collect::<Vec<_>>(), vec![("a", "9"), ("b", "2")]);
    }
}
