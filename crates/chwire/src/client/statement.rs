//! Reading statement text without a parser: its first word (what decides how it runs and
//! whether it may be sent again) and table references given by users (read, to be quoted again).

/// The statement's first word (after whitespace, comments and opening parentheses), as it is
/// written: what decides how a statement runs (an INSERT takes data, a SELECT returns rows).
pub fn first_word(sql: &str) -> &str {
    let mut s = sql.trim_start();
    loop {
        if let Some(rest) = s.strip_prefix("--") {
            s = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(rest) = s.strip_prefix("/*") {
            s = rest.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else if let Some(rest) = s.strip_prefix('(') {
            s = rest.trim_start();
        } else {
            break;
        }
    }
    let end = s.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(s.len());
    &s[..end]
}

/// A table reference as a user wrote it, `t`, `db.t` or backquoted parts (`` `my db`.`a.b` ``,
/// backslash escapes inside), read into its database (if named) and table, unquoted: to be
/// quoted again with [`quote_identifier`](chwire_proto::packet::client::quote_identifier),
/// never pasted into SQL. Anything else (`t; DROP TABLE x`, quotes, a third part, an empty
/// name) is an [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) error.
pub fn split_table(name: &str) -> Result<(Option<String>, String), crate::Error> {
    let bad = || Err(crate::Error::invalid(format!("cannot read the table name {name:?} (use table, db.table or `quoted`.`parts`)")));
    let Some((a, rest)) = ident(name.trim()) else { return bad() };
    if rest.is_empty() {
        return Ok((None, a));
    }
    let Some(rest) = rest.strip_prefix('.') else { return bad() };
    match ident(rest) {
        Some((b, "")) => Ok((Some(a), b)),
        _ => bad(),
    }
}

/// One identifier at the start of `s` (backquoted with backslash escapes, or a plain word),
/// not empty: its unquoted text and the rest of `s`.
fn ident(s: &str) -> Option<(String, &str)> {
    if let Some(body) = s.strip_prefix('`') {
        // Up to the closing backquote, then the escapes resolved by ClickHouse's rule.
        let mut chars = body.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next()?;
                }
                '`' => {
                    let out = chwire_proto::sql::unescape(&body[..i]);
                    return (!out.is_empty()).then_some((out, &body[i + 1..]));
                }
                _ => {}
            }
        }
        return None;
    }
    let first = s.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(s.len());
    Some((s[..end].to_string(), &s[end..]))
}

/// Whether the statement is an INSERT.
pub(crate) fn starts_with_insert(sql: &str) -> bool {
    first_word(sql).eq_ignore_ascii_case("insert")
}

/// Whether the statement only reads (SELECT, WITH, SHOW, DESCRIBE, EXISTS, EXPLAIN): only
/// such a statement is sent again once it reached a server. A CREATE ... AS SELECT, an ALTER
/// or an OPTIMIZE may have run (or still be running) when its answer is lost.
pub(crate) fn is_read(sql: &str) -> bool {
    let w = first_word(sql);
    ["select", "with", "show", "describe", "desc", "exists", "explain"].iter().any(|k| w.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names() {
        assert_eq!(split_table("db.t").unwrap(), (Some("db".into()), "t".into()));
        assert_eq!(split_table(" t ").unwrap(), (None, "t".into()));
        assert_eq!(split_table("_t$1").unwrap(), (None, "_t$1".into()));
        assert_eq!(split_table("`my db`.`a\\`b`").unwrap(), (Some("my db".into()), "a`b".into()));
        assert_eq!(split_table("`a.b`").unwrap(), (None, "a.b".into()));
        for bad in
            ["", " ", "db.t.x", "1t", "t; DROP TABLE x", "t --", "`t", "t`", "`a`b`", "'t'", "\"t\"", "``", "db.", ".t", "db.``", "t x"]
        {
            let e = split_table(bad).unwrap_err();
            assert!(matches!(e.kind(), crate::ErrorKind::InvalidInput(_)), "{bad:?}: {e}");
        }
    }

    #[test]
    fn detects_inserts() {
        assert!(starts_with_insert("  -- c\n/* x */ insert into t values (1)"));
        assert!(!starts_with_insert("SELECT 'insert'"));
        assert!(!starts_with_insert("inserted"));
    }

    #[test]
    fn only_reads_are_sent_again() {
        for read in ["SELECT 1", " -- c\n(select 1) UNION ALL (SELECT 2)", "WITH 1 AS x SELECT x", "show tables", "DESC t", "EXISTS t"] {
            assert!(is_read(read), "{read}");
        }
        for write in
            ["CREATE TABLE t AS SELECT 1", "INSERT INTO t SELECT 1", "OPTIMIZE TABLE t", "ALTER TABLE t DELETE WHERE 1", "selected"]
        {
            assert!(!is_read(write), "{write}");
        }
    }
}
