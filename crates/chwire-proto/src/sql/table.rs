//! A table reference: what users name a table by (`t`, `db.t`, quoted parts), read by
//! ClickHouse's lexer and written back quoted, never pasted into SQL.

use super::{quote_identifier, significant, SqlError, Token};
use std::fmt;
use std::str::FromStr;

/// A table, with its database when one is named. `Display` writes it quoted
/// (`` `db`.`t` ``), ready for SQL; [`TableRef::parse`] reads what a user wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableRef {
    /// The database, if named (else the connection's current one).
    pub database: Option<String>,
    /// The table's name, unquoted.
    pub table: String,
}

impl TableRef {
    /// A table of the current database.
    pub fn new(table: impl Into<String>) -> TableRef {
        TableRef { database: None, table: table.into() }
    }

    /// A table of `database`.
    pub fn qualified(database: impl Into<String>, table: impl Into<String>) -> TableRef {
        TableRef { database: Some(database.into()), table: table.into() }
    }

    /// Read a table reference as written in SQL: one or two identifiers separated by a dot,
    /// each a bare word or quoted (`` `…` `` or `"…"`, with ClickHouse's escapes), spaces and
    /// comments around them allowed. Anything else (`t; DROP TABLE x`, a string literal, a
    /// third part, an empty name) is an error.
    pub fn parse(text: &str) -> Result<TableRef, SqlError> {
        let bad = || SqlError(format!("cannot read the table name {text:?} (use table, db.table or `quoted`.`parts`)"));
        let tokens: Vec<Token<'_>> = significant(text).collect();
        let name = |t: Option<&Token<'_>>| t.and_then(Token::identifier).filter(|n| !n.is_empty());
        match tokens.as_slice() {
            [t] => Ok(TableRef::new(name(Some(t)).ok_or_else(bad)?)),
            [d, dot, t] if dot.is_punct(".") => Ok(TableRef::qualified(name(Some(d)).ok_or_else(bad)?, name(Some(t)).ok_or_else(bad)?)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for TableRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(db) = &self.database {
            f.write_str(&quote_identifier(db))?;
            f.write_str(".")?;
        }
        f.write_str(&quote_identifier(&self.table))
    }
}

impl FromStr for TableRef {
    type Err = SqlError;
    fn from_str(s: &str) -> Result<TableRef, SqlError> {
        TableRef::parse(s)
    }
}

impl TryFrom<&str> for TableRef {
    type Error = SqlError;
    fn try_from(s: &str) -> Result<TableRef, SqlError> {
        TableRef::parse(s)
    }
}

impl TryFrom<String> for TableRef {
    type Error = SqlError;
    fn try_from(s: String) -> Result<TableRef, SqlError> {
        TableRef::parse(&s)
    }
}

impl TryFrom<&String> for TableRef {
    type Error = SqlError;
    fn try_from(s: &String) -> Result<TableRef, SqlError> {
        TableRef::parse(s)
    }
}

impl From<&TableRef> for TableRef {
    fn from(t: &TableRef) -> TableRef {
        t.clone()
    }
}

impl<D: Into<String>, T: Into<String>> From<(D, T)> for TableRef {
    fn from((d, t): (D, T)) -> TableRef {
        TableRef::qualified(d, t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_clickhouse_reads() {
        let t = |s: &str| TableRef::parse(s).unwrap();
        assert_eq!(t("db.t"), TableRef::qualified("db", "t"));
        assert_eq!(t(" t "), TableRef::new("t"));
        assert_eq!(t("_t$1"), TableRef::new("_t$1"));
        assert_eq!(t("1t"), TableRef::new("1t"));
        assert_eq!(t("`my db`.`a\\`b`"), TableRef::qualified("my db", "a`b"));
        assert_eq!(t("\"my db\" . \"t\"\"x\""), TableRef::qualified("my db", "t\"x"));
        assert_eq!(t("`a.b`"), TableRef::new("a.b"));
        assert_eq!(t("db /* c */ . t -- c"), TableRef::qualified("db", "t"));
        for bad in ["", " ", "db.t.x", "1", "t; DROP TABLE x", "`t", "t`", "`a`b`", "'t'", "``", "db.", ".t", "db.``", "t x", "t(1)"] {
            assert!(TableRef::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn displays_quoted_and_reads_back() {
        for t in [TableRef::new("t"), TableRef::qualified("my db", "a`b.c"), TableRef::qualified("d\\", "\n")] {
            let text = t.to_string();
            assert_eq!(TableRef::parse(&text).unwrap(), t, "{text}");
        }
        assert_eq!(TableRef::qualified("db", "t").to_string(), "`db`.`t`");
    }
}
