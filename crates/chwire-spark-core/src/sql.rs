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
}
