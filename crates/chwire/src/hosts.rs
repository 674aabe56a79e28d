//! Several servers: the endpoint list, the load-balancing strategies, each host's health
//! (skipped for a back-off period after a failure, probed again afterwards) and which
//! errors mean "try another server".

use crate::error::{Error, ErrorKind, Result};
use chwire_proto::error_codes::code;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One server address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// A host name or IP address.
    pub host: String,
    /// The port (the native or HTTP one, as the transport is).
    pub port: u16,
}

impl Endpoint {
    /// `host:port`.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        Endpoint { host: host.into(), port }
    }

    /// Parse `host`, `host:port`, `[v6]` or `[v6]:port` (the port defaults to `default_port`).
    pub fn parse(s: &str, default_port: u16) -> Result<Endpoint> {
        let s = s.trim();
        let bad = || Error::config(format!("invalid host {s:?} (use host, host:port or [ipv6]:port)"));
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (h, after) = rest.split_once(']').ok_or_else(bad)?;
            match after.strip_prefix(':') {
                Some(p) => (h, Some(p)),
                None if after.is_empty() => (h, None),
                None => return Err(bad()),
            }
        } else if s.matches(':').count() == 1 {
            let (h, p) = s.split_once(':').expect("one colon");
            (h, Some(p))
        } else {
            (s, None) // a host name, or a bare IPv6 address
        };
        if host.is_empty() {
            return Err(bad());
        }
        let port = match port {
            Some(p) => p.parse().map_err(|_| bad())?,
            None => default_port,
        };
        Ok(Endpoint { host: host.to_string(), port })
    }

    /// Parse a comma-separated list of hosts.
    pub fn parse_list(s: &str, default_port: u16) -> Result<Vec<Endpoint>> {
        s.split(',').filter(|p| !p.trim().is_empty()).map(|p| Endpoint::parse(p, default_port)).collect()
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Where a URL's host list is (`a:1,b:2,c` in `scheme://user@a:1,b:2,c/db?...`): between the
/// authority's last `@` (or `://`, or the start) and the path, query or fragment.
pub(crate) fn host_list_span(url: &str) -> std::ops::Range<usize> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..].find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    let host_start = url[start..end].rfind('@').map_or(start, |i| start + i + 1);
    host_start..end
}

/// Split `scheme://user@a:1,b:2,c/db?...` into the URL with its first host only and the
/// other hosts (as written), since URL parsers take one host.
pub(crate) fn split_url_hosts(url: &str) -> Result<(String, Vec<String>)> {
    if !url.contains("://") {
        return Ok((url.to_string(), Vec::new()));
    }
    let span = host_list_span(url);
    let hosts = &url[span.clone()];
    if !hosts.contains(',') {
        return Ok((url.to_string(), Vec::new()));
    }
    let mut parts = hosts.split(',');
    let first = parts.next().unwrap_or_default();
    let rest: Vec<String> = parts.map(|p| p.trim().to_string()).collect();
    if first.is_empty() || rest.iter().any(|p| p.is_empty()) {
        return Err(Error::config(format!("empty host in the list {hosts:?}")));
    }
    let single = format!("{}{}{}", &url[..span.start], first, &url[span.end..]);
    Ok((single, rest))
}

/// Which server a new connection goes to first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadBalancing {
    /// The first healthy server of the list (the others are fallbacks).
    #[default]
    InOrder,
    /// Each new connection starts at the next server of the list.
    RoundRobin,
    /// Each new connection starts at a random server.
    Random,
}

impl FromStr for LoadBalancing {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "in_order" | "first" | "first_or_random" => Ok(LoadBalancing::InOrder),
            "round_robin" => Ok(LoadBalancing::RoundRobin),
            "random" => Ok(LoadBalancing::Random),
            _ => Err(format!("unknown load balancing {s:?} (use in_order, round_robin or random)")),
        }
    }
}

/// Server error codes after which the same query may succeed on another server (or on the
/// same one later): the server or its network is in trouble, not the query.
pub const FAILOVER_CODES: &[i32] = &[
    code::TOO_MANY_SIMULTANEOUS_QUERIES,
    code::NO_FREE_CONNECTION,
    code::SOCKET_TIMEOUT,
    code::NETWORK_ERROR,
    code::ABORTED,            // the server is shutting down
    code::TABLE_IS_READ_ONLY, // a replica lost its ZooKeeper session
    code::ALL_CONNECTION_TRIES_FAILED,
    code::TOO_FEW_LIVE_REPLICAS,
    code::CANNOT_SCHEDULE_TASK, // thread pool exhausted
    code::KEEPER_EXCEPTION,
];

impl Error {
    /// Whether this error says "try another server": the connection failed or broke
    /// (network error, closed, timed out) or the server reported one of
    /// [`FAILOVER_CODES`]. Errors of the query itself (syntax, unknown table, bad data),
    /// of authentication, TLS verification or the configuration are not.
    pub fn is_failover(&self) -> bool {
        match self.kind() {
            // A query's own deadline is not the server's fault.
            ErrorKind::Timeout(what) => *what != crate::Timeout::Query,
            ErrorKind::Io(_) | ErrorKind::Closed => true,
            ErrorKind::Server(e) => FAILOVER_CODES.contains(&e.code),
            _ => false,
        }
    }
}

struct Health {
    failures: u32,
    down_until: Option<Instant>,
}

/// The servers of a client or pool and what is known about their health (shared by every
/// connection of a [`crate::Pool`]).
pub(crate) struct Hosts {
    endpoints: Vec<Endpoint>,
    strategy: LoadBalancing,
    backoff: Duration,
    next: AtomicUsize,
    health: Mutex<Vec<Health>>,
}

/// The longest time a failed server is skipped.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

impl Hosts {
    pub(crate) fn new(endpoints: Vec<Endpoint>, strategy: LoadBalancing, backoff: Duration) -> Hosts {
        let health = endpoints.iter().map(|_| Health { failures: 0, down_until: None }).collect();
        Hosts { endpoints, strategy, backoff, next: AtomicUsize::new(0), health: Mutex::new(health) }
    }

    pub(crate) fn endpoint(&self, i: usize) -> &Endpoint {
        &self.endpoints[i]
    }

    pub(crate) fn len(&self) -> usize {
        self.endpoints.len()
    }

    /// The order in which to try the servers for a new connection: the healthy ones in the
    /// strategy's order, then those in back-off, soonest back first (a last resort, and the
    /// probe that finds a server back).
    pub(crate) fn order(&self) -> Vec<usize> {
        let n = self.endpoints.len();
        let start = match self.strategy {
            LoadBalancing::InOrder => 0,
            LoadBalancing::RoundRobin => self.next.fetch_add(1, Ordering::Relaxed) % n,
            LoadBalancing::Random => fastrand::usize(..n),
        };
        let now = Instant::now();
        let health = self.health.lock().expect("hosts lock");
        let mut healthy = Vec::with_capacity(n);
        let mut down = Vec::new();
        for k in 0..n {
            let i = (start + k) % n;
            match health[i].down_until {
                Some(t) if t > now => down.push((t, i)),
                _ => healthy.push(i),
            }
        }
        down.sort();
        healthy.extend(down.into_iter().map(|(_, i)| i));
        healthy
    }

    /// Skip server `i` for a while (doubling with each failure in a row, at most a minute).
    pub(crate) fn mark_down(&self, i: usize, why: &Error) {
        let mut health = self.health.lock().expect("hosts lock");
        let h = &mut health[i];
        h.failures = h.failures.saturating_add(1);
        let wait = self.backoff.saturating_mul(1 << (h.failures - 1).min(16)).min(MAX_BACKOFF);
        h.down_until = Some(Instant::now() + wait);
        tracing::warn!(host = %self.endpoints[i], error = %why, backoff = ?wait, "server marked down");
    }

    pub(crate) fn mark_up(&self, i: usize) {
        let mut health = self.health.lock().expect("hosts lock");
        if health[i].failures > 0 {
            tracing::info!(host = %self.endpoints[i], "server is back");
        }
        health[i] = Health { failures: 0, down_until: None };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_parse() {
        assert_eq!(Endpoint::parse("a", 9000).unwrap(), Endpoint::new("a", 9000));
        assert_eq!(Endpoint::parse("a:1", 9000).unwrap(), Endpoint::new("a", 1));
        assert_eq!(Endpoint::parse("[::1]:5", 9000).unwrap(), Endpoint::new("::1", 5));
        assert_eq!(Endpoint::parse("[::1]", 9000).unwrap(), Endpoint::new("::1", 9000));
        assert_eq!(Endpoint::parse("::1", 9000).unwrap(), Endpoint::new("::1", 9000));
        assert!(Endpoint::parse("a:x", 9000).is_err());
        assert!(Endpoint::parse(":5", 9000).is_err());
        assert!(Endpoint::parse("[::1]x", 9000).is_err());
        let l = Endpoint::parse_list("a:1, b ,c:3", 7).unwrap();
        assert_eq!(l, vec![Endpoint::new("a", 1), Endpoint::new("b", 7), Endpoint::new("c", 3)]);
        assert_eq!(Endpoint::new("::1", 5).to_string(), "[::1]:5");
    }

    #[test]
    fn url_host_lists() {
        let (u, rest) = split_url_hosts("tcp://u:p@a:1,b:2,[::1]:3/db?x=1").unwrap();
        assert_eq!(u, "tcp://u:p@a:1/db?x=1");
        assert_eq!(rest, vec!["b:2", "[::1]:3"]);
        let (u, rest) = split_url_hosts("tcp://a,b").unwrap();
        assert_eq!((u.as_str(), rest), ("tcp://a", vec!["b".to_string()]));
        assert!(split_url_hosts("tcp://a,,b/db").is_err());
        assert_eq!(split_url_hosts("tcp://a:1/db?hosts=b,c").unwrap().1, Vec::<String>::new());
    }

    #[test]
    fn options_from_urls() {
        use crate::Options;
        let o = Options::from_url(
            "tcp://u:p@a:9001,b,[::1]:9003/db?load_balancing=round_robin&host_backoff=2s&retries=5&secure=true\
             &ca_file=/ca.pem&cert_file=/c.pem&key_file=/k.pem&server_name=ch.example&handshake_timeout=3s&tcp_keepalive=0",
        )
        .unwrap();
        assert_eq!(o.endpoints(), vec![Endpoint::new("a", 9001), Endpoint::new("b", 9440), Endpoint::new("::1", 9003)]);
        assert_eq!((o.user.as_str(), o.database.as_str()), ("u", "db"));
        assert_eq!((o.load_balancing, o.host_backoff, o.retries), (LoadBalancing::RoundRobin, Duration::from_secs(2), 5));
        let tls = o.tls.as_ref().unwrap();
        assert_eq!(tls.ca_file.as_deref(), Some(std::path::Path::new("/ca.pem")));
        assert_eq!((tls.cert_file.is_some(), tls.key_file.is_some()), (true, true));
        assert_eq!(tls.server_name.as_deref(), Some("ch.example"));
        assert_eq!((o.handshake_timeout, o.tcp_keepalive), (Some(Duration::from_secs(3)), None));
        assert!(o.settings.is_empty(), "{:?}", o.settings);
        assert!(Options::from_url("tcp://a?secure=maybe").is_err());
        assert!(Options::from_url("tcp://a?load_balancing=nearest").is_err());
        assert!(Options::from_url("tcp://a:1,b:x/db").is_err());
        assert!(Options::from_url("tcp://a?secure=true&secure=false").unwrap_err().to_string().contains("given twice"));
        assert_eq!(Options::from_url("tcp://a?hosts=b&hosts=c:2").unwrap().endpoints().len(), 3);
        let o = Options::from_url("tcp://a/db?hosts=b:2,c:3").unwrap();
        assert_eq!(o.endpoints().len(), 3);
        let o = Options::new().hosts(vec![Endpoint::new("x", 1), Endpoint::new("y", 2)]);
        assert_eq!((o.host.as_str(), o.port, o.alt_hosts.len()), ("x", 1, 1));
    }

    #[test]
    fn strategies_and_backoff() {
        let eps = vec![Endpoint::new("a", 1), Endpoint::new("b", 2), Endpoint::new("c", 3)];
        let h = Hosts::new(eps.clone(), LoadBalancing::InOrder, Duration::from_secs(5));
        assert_eq!(h.order(), vec![0, 1, 2]);
        h.mark_down(0, &Error::new(ErrorKind::Closed));
        assert_eq!(h.order(), vec![1, 2, 0], "a server in back-off is tried last");
        h.mark_down(2, &Error::new(ErrorKind::Closed));
        h.mark_down(2, &Error::new(ErrorKind::Closed));
        assert_eq!(h.order(), vec![1, 0, 2], "the one back soonest first");
        h.mark_up(0);
        assert_eq!(h.order(), vec![0, 1, 2]);

        let rr = Hosts::new(eps.clone(), LoadBalancing::RoundRobin, Duration::from_secs(1));
        let firsts: Vec<usize> = (0..6).map(|_| rr.order()[0]).collect();
        assert_eq!(firsts, vec![0, 1, 2, 0, 1, 2]);

        let rnd = Hosts::new(eps, LoadBalancing::Random, Duration::from_secs(1));
        let mut seen = [false; 3];
        for _ in 0..200 {
            let o = rnd.order();
            assert_eq!(o.len(), 3);
            seen[o[0]] = true;
        }
        assert_eq!(seen, [true; 3]);
    }

    #[test]
    fn failover_errors() {
        assert!(Error::new(ErrorKind::Closed).is_failover());
        assert!(Error::timed_out(crate::Timeout::Connect).is_failover());
        assert!(!Error::config("x").is_failover());
        assert!(!Error::new(ErrorKind::Tls("x".into())).is_failover());
        assert_eq!("round-robin".parse::<LoadBalancing>().unwrap(), LoadBalancing::RoundRobin);
        assert!("nearest".parse::<LoadBalancing>().is_err());
    }
}
