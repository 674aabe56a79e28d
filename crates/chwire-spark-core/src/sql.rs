//! URL pieces (a URL's host list) and the core's SQL rules under the names this crate uses:
//! quoting, table names and an engine's arguments all come from `chwire::sql`.

use crate::Result;

pub use chwire::sql::{quote_identifier as quote_ident, quote_string as sql_string};

/// `db.t`, `` `db`.`t` `` or `t` → (db or None, t): the core's [`chwire::sql::TableRef`].
pub fn split_table(name: &str) -> Result<(Option<String>, String)> {
    let t = chwire::sql::TableRef::parse(name).map_err(|e| crate::Error::Invalid(e.to_string()))?;
    Ok((t.database, t.table))
}

/// Arguments of `Distributed(cluster, db, table[, key])`, unquoted.
pub fn engine_args(engine_full: &str) -> Vec<String> {
    chwire::sql::split_arguments(engine_full)
}

/// A URL's parts around its host list: (`scheme://userinfo@`, hosts, `/path?query#frag`).
fn url_parts(url: &str) -> (String, &str, &str) {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (netloc, tail) = rest.split_at(end);
    match netloc.rfind('@') {
        Some(at) => (format!("{scheme}{}", &netloc[..=at]), &netloc[at + 1..], tail),
        None => (scheme.to_string(), netloc, tail),
    }
}

/// `url` with its host list replaced by `hosts` (user, password, database and options kept),
/// e.g. one shard's replicas: `tcp://u@a:9000,b:9000/db`.
pub fn url_with_hosts(url: &str, hosts: &[(String, u16)]) -> String {
    let (head, _, tail) = url_parts(url);
    let list: Vec<String> = hosts.iter().map(|(h, p)| if h.contains(':') { format!("[{h}]:{p}") } else { format!("{h}:{p}") }).collect();
    format!("{head}{}{tail}", list.join(","))
}

/// The hosts of `url`'s host list as (host, port or None).
pub fn url_hosts(url: &str) -> Vec<(String, Option<u16>)> {
    let (_, hosts, _) = url_parts(url);
    hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(|h| {
            if let Some(rest) = h.strip_prefix('[') {
                let (host, after) = rest.split_once(']').unwrap_or((rest, ""));
                (host.to_string(), after.strip_prefix(':').and_then(|p| p.parse().ok()))
            } else if h.matches(':').count() == 1 {
                let (host, port) = h.split_once(':').unwrap_or((h, ""));
                (host.to_string(), port.parse().ok())
            } else {
                (h.to_string(), None)
            }
        })
        .collect()
}

/// `url` with only its first host (a table created by one statement must be used by the next
/// on the same server).
pub fn url_first_host(url: &str) -> String {
    let (head, hosts, tail) = url_parts(url);
    format!("{head}{}{tail}", hosts.split(',').next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote_ident("a`b\\c"), "`a\\`b\\\\c`");
        assert_eq!(sql_string("it's \\"), "'it\\'s \\\\'");
    }

    #[test]
    fn table_names() {
        assert_eq!(split_table("db.t").unwrap(), (Some("db".into()), "t".into()));
        assert_eq!(split_table(" t ").unwrap(), (None, "t".into()));
        assert_eq!(split_table("`my db`.`a\\`b`").unwrap(), (Some("my db".into()), "a`b".into()));
        assert!(split_table("db.t.x").is_err());
        assert!(split_table("1").is_err());
        assert!(split_table("").is_err());
    }

    #[test]
    fn distributed_args() {
        assert_eq!(
            engine_args("Distributed(chwire_cluster, 'default', 'shard_local', rand())"),
            vec!["chwire_cluster", "default", "shard_local", "rand()"]
        );
        assert_eq!(engine_args("Distributed(c, '', t)"), vec!["c", "", "t"]);
    }

    #[test]
    fn urls() {
        let u = "tcp://u:p@a:1,b:2/db?secure=1";
        assert_eq!(url_with_hosts(u, &[("x".into(), 9), ("::1".into(), 8)]), "tcp://u:p@x:9,[::1]:8/db?secure=1");
        assert_eq!(url_first_host(u), "tcp://u:p@a:1/db?secure=1");
        assert_eq!(url_hosts(u), vec![("a".into(), Some(1)), ("b".into(), Some(2))]);
        assert_eq!(url_hosts("tcp://h/db"), vec![("h".into(), None)]);
        assert_eq!(url_first_host("tcp://h"), "tcp://h");
    }
}
