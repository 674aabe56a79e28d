//! What a statement is, read by the lexer: its first keyword and kind, an INSERT's target
//! and data, a trailing `FORMAT name`, and the arguments of a function call (an engine's).

use super::{significant, SqlError, TableRef, Token, TokenKind};
use std::ops::Range;

/// The first keyword of a statement (after whitespace, comments and opening parentheses),
/// as written; `None` when it does not start with a word.
pub fn first_keyword(sql: &str) -> Option<&str> {
    significant(sql).find(|t| !t.is_punct("(")).filter(|t| t.kind == TokenKind::Word).map(|t| t.text)
}

/// What a statement does, by its first keyword: what decides how it runs (an INSERT takes
/// data) and whether it may be sent again after a failure (only reads are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StatementKind {
    /// `SELECT`, `WITH`, `SHOW`, `DESCRIBE`/`DESC`, `EXISTS`, `EXPLAIN`: reads that return rows
    /// and change nothing, so they may be sent again.
    Read,
    /// `INSERT` (see [`InsertTarget`] for its data).
    Insert,
    /// Anything else (DDL, `ALTER`, `OPTIMIZE`, `SET`, `SYSTEM`, …): it may have run when its
    /// answer is lost.
    Other,
}

const READS: [&str; 7] = ["SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXISTS", "EXPLAIN"];

impl StatementKind {
    /// The kind of `sql`.
    pub fn of(sql: &str) -> StatementKind {
        match first_keyword(sql) {
            Some(w) if w.eq_ignore_ascii_case("INSERT") => StatementKind::Insert,
            Some(w) if READS.iter().any(|r| w.eq_ignore_ascii_case(r)) => StatementKind::Read,
            _ => StatementKind::Other,
        }
    }

    /// A read: it returns rows and changes nothing.
    pub fn is_read(self) -> bool {
        self == StatementKind::Read
    }
}

/// The settings of a `SETTINGS` clause starting at `tokens[i]` (past the keyword), and the index
/// just past them.
fn settings_clause(sql: &str, tokens: &[Token<'_>], mut i: usize) -> Result<(Vec<(String, String)>, usize), SqlError> {
    let bad = || SqlError(format!("cannot read the SETTINGS of this INSERT statement: {sql:?}"));
    let data = |t: &Token<'_>| t.is_keyword("VALUES") || t.is_keyword("FORMAT") || t.is_keyword("SELECT") || t.is_keyword("WITH");
    let mut out = Vec::new();
    loop {
        let name = tokens.get(i).and_then(Token::identifier).ok_or_else(bad)?;
        if !tokens.get(i + 1).is_some_and(|t| t.is_punct("=")) {
            return Err(bad());
        }
        i += 2;
        let from = i;
        while tokens.get(i).is_some_and(|t| !(t.is_punct(",") || data(t))) {
            i += 1;
        }
        let value = match tokens.get(from..i).unwrap_or_default() {
            [] => return Err(bad()),
            [t] if t.kind == TokenKind::String => super::unquote(t.text),
            [t] => t.text.to_string(),
            [first, .., last] => sql.get(first.start..last.end()).unwrap_or("").to_string(),
        };
        out.push((name, value));
        if !tokens.get(i).is_some_and(|t| t.is_punct(",")) {
            return Ok((out, i));
        }
        i += 1;
    }
}

/// Where an INSERT's rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsertSource {
    /// The statement ends in `VALUES` or `FORMAT name`: the client sends the rows (as blocks).
    Data {
        /// The `FORMAT` it names, if any (`None` for `VALUES`).
        format: Option<String>,
    },
    /// The rows are in the statement itself (`VALUES (1, 'a')`, `FORMAT CSV 1,a`).
    Inline,
    /// `INSERT … SELECT` (or `WITH`, or a parenthesised query): the server makes the rows.
    Select,
}

/// An INSERT statement taken apart: `INSERT INTO [TABLE] t [(a, b)] [SETTINGS …] VALUES|FORMAT …`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InsertTarget {
    /// The table.
    pub table: TableRef,
    /// The column list, unquoted, if the statement has one.
    pub columns: Option<Vec<String>>,
    /// The statement's `SETTINGS name = value, …` clause (before its data): each name and
    /// value, a quoted value unquoted (`'x'` → `x`), another as written (`1`, `0.5`).
    pub settings: Vec<(String, String)>,
    /// Where the rows come from.
    pub source: InsertSource,
    /// The byte offset in the statement where its rows begin: just past `VALUES`; past
    /// `FORMAT name`, the blanks after it and one line end (ClickHouse's rule: a TSV row may
    /// start with a tab); where the query starts (`INSERT … SELECT`); else the statement's
    /// end. `sql[rows_at..]` is the inline data when [`InsertSource::Inline`].
    pub rows_at: usize,
}

impl InsertTarget {
    /// Read an INSERT statement; `Ok(None)` for any other statement. An INSERT whose table
    /// cannot be read (`INSERT INTO FUNCTION …`, a malformed column list) is an error.
    pub fn parse(sql: &str) -> Result<Option<InsertTarget>, SqlError> {
        if StatementKind::of(sql) != StatementKind::Insert {
            return Ok(None);
        }
        let bad = || SqlError(format!("cannot read the table of this INSERT statement: {sql:?}"));
        let tokens: Vec<Token<'_>> = significant(sql).collect();
        let mut i = tokens.iter().position(|t| t.is_keyword("INSERT")).ok_or_else(bad)? + 1;
        let at = |i: usize| tokens.get(i);
        if !at(i).is_some_and(|t| t.is_keyword("INTO")) {
            return Err(bad());
        }
        i += 1;
        if at(i).is_some_and(|t| t.is_keyword("TABLE")) {
            i += 1;
        }
        let name = |t: Option<&Token<'_>>| t.and_then(Token::identifier).filter(|n| !n.is_empty());
        let first = name(at(i)).ok_or_else(bad)?;
        if first.eq_ignore_ascii_case("FUNCTION") && at(i).is_some_and(|t| t.kind == TokenKind::Word) {
            return Err(bad());
        }
        let table = if at(i + 1).is_some_and(|t| t.is_punct(".")) {
            let t = TableRef::qualified(first, name(at(i + 2)).ok_or_else(bad)?);
            i += 3;
            t
        } else {
            i += 1;
            TableRef::new(first)
        };
        let mut columns = None;
        if at(i).is_some_and(|t| t.is_punct("(")) && !at(i + 1).is_some_and(|t| t.is_keyword("SELECT") || t.is_keyword("WITH")) {
            let mut names = Vec::new();
            i += 1;
            loop {
                // A Nested column's subcolumn is written `n.x`.
                let mut column = name(at(i)).ok_or_else(bad)?;
                i += 1;
                while at(i).is_some_and(|t| t.is_punct(".")) {
                    column.push('.');
                    column.push_str(&name(at(i + 1)).ok_or_else(bad)?);
                    i += 2;
                }
                names.push(column);
                match at(i) {
                    Some(t) if t.is_punct(",") => i += 1,
                    Some(t) if t.is_punct(")") => {
                        i += 1;
                        break;
                    }
                    _ => return Err(bad()),
                }
            }
            columns = Some(names);
        }
        let mut settings = Vec::new();
        if at(i).is_some_and(|t| t.is_keyword("SETTINGS")) {
            // `SETTINGS a = 1, b = 'x'` up to the keyword that starts the data.
            (settings, i) = settings_clause(sql, &tokens, i + 1)?;
        }
        let rest = |from: usize| tokens.get(from..).unwrap_or_default().iter().filter(|t| !t.is_punct(";")).count();
        let mut rows_at = sql.len();
        let source = match at(i) {
            None => InsertSource::Data { format: None },
            Some(t) if t.is_keyword("SELECT") || t.is_keyword("WITH") || t.is_punct("(") => {
                rows_at = t.start;
                InsertSource::Select
            }
            Some(t) if t.is_keyword("VALUES") => {
                rows_at = t.end();
                if rest(i + 1) == 0 {
                    InsertSource::Data { format: None }
                } else {
                    InsertSource::Inline
                }
            }
            Some(t) if t.is_keyword("FORMAT") => {
                let format = name(at(i + 1)).ok_or_else(bad)?;
                // The data follows the format's name on the same statement (after one space or line).
                let after_name = at(i + 1).map_or(sql.len(), Token::end);
                // As ClickHouse's parser: past blanks, then one line end (`\r`, `\n` or both).
                let rest = sql.get(after_name..).unwrap_or("").trim_start_matches([' ', '\t', '\x0c']);
                let rest = rest.strip_prefix('\r').unwrap_or(rest);
                let rest = rest.strip_prefix('\n').unwrap_or(rest);
                rows_at = sql.len() - rest.len();
                let data = rest.trim();
                if data.is_empty() || data == ";" {
                    InsertSource::Data { format: Some(format) }
                } else {
                    InsertSource::Inline
                }
            }
            Some(_) => return Err(bad()),
        };
        Ok(Some(InsertTarget { table, columns, settings, source, rows_at }))
    }

    /// An insert of rows the client sends into `table` (its `columns`, or all of them):
    /// displayed as `INSERT INTO `db`.`t` (`a`, `b`) VALUES`, every name quoted.
    pub fn values(table: impl Into<TableRef>, columns: Option<Vec<String>>) -> InsertTarget {
        let mut target =
            InsertTarget { table: table.into(), columns, settings: Vec::new(), source: InsertSource::Data { format: None }, rows_at: 0 };
        target.rows_at = target.to_string().len();
        target
    }

    /// Whether the client sends the rows (the statement ends in `VALUES` or `FORMAT name`).
    pub fn takes_data(&self) -> bool {
        matches!(self.source, InsertSource::Data { .. })
    }
}

/// The statement, every name quoted; rows given inline or by a query are not kept, so only
/// an insert that takes data (`VALUES`, `FORMAT name`) displays as a whole statement.
impl std::fmt::Display for InsertTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "INSERT INTO {}", self.table)?;
        if let Some(cols) = &self.columns {
            write!(f, " ({})", super::quote_identifiers(cols))?;
        }
        match &self.source {
            InsertSource::Data { format: Some(name) } => write!(f, " FORMAT {}", super::quote_identifier(name)),
            _ => f.write_str(" VALUES"),
        }
    }
}

/// A statement's own `FORMAT name`, at its end (before an optional `;`) or before its final
/// `SETTINGS` clause, both of which ClickHouse accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatClause {
    /// The format's name, unquoted.
    pub name: String,
    /// Where the clause starts: the statement without it is `sql[..start]` + `sql[end..]`.
    pub start: usize,
    /// Where the clause ends (just past the name).
    pub end: usize,
    /// Whether `name` is one of ClickHouse's formats (any case): `ORDER BY format DESC` ends
    /// in `format DESC` too.
    pub known: bool,
}

/// The trailing `FORMAT name` of a statement other than an INSERT (whose FORMAT names its
/// input), as a client that decodes Native itself must take it off.
pub fn format_clause(sql: &str) -> Option<FormatClause> {
    if StatementKind::of(sql) == StatementKind::Insert {
        return None;
    }
    let tokens: Vec<Token<'_>> = super::top_level(sql).collect();
    let mut end = tokens.len();
    if end > 0 && tokens.get(end - 1).is_some_and(|t| t.is_punct(";")) {
        end -= 1;
    }
    // Before a final SETTINGS clause (`… FORMAT JSON SETTINGS max_threads = 1`).
    if let Some(i) = (2..end).find(|&i| tokens[i].is_keyword("SETTINGS") && tokens[i - 2].is_keyword("FORMAT")) {
        end = i;
    }
    let name = tokens.get(end.checked_sub(1)?).filter(|t| t.identifier().is_some())?;
    let keyword = tokens.get(end.checked_sub(2)?).filter(|t| t.is_keyword("FORMAT"))?;
    let clause_end = name.end();
    let name = name.identifier()?;
    let known = is_clickhouse_format(&name);
    Some(FormatClause { name, start: keyword.start, end: clause_end, known })
}

/// The statement a client that decodes the result itself sends: `sql` without its own
/// trailing `FORMAT name` when `name` is a ClickHouse format (the native protocol ignores the
/// clause, HTTP would answer in that format, a subquery could not hold it); else `sql`.
pub fn without_format_clause(sql: &str) -> std::borrow::Cow<'_, str> {
    match format_clause(sql) {
        Some(c) if c.known => match sql.get(c.end..).map(str::trim_start) {
            Some(rest) if !rest.is_empty() && rest != ";" => format!("{} {rest}", sql[..c.start].trim_end()).into(),
            _ => sql[..c.start].trim_end().into(),
        },
        _ => sql.into(),
    }
}

/// The top-level, comma-separated arguments of the first parenthesised list in `text` (an
/// engine's `Distributed(cluster, 'db', t, rand())`), each as written and trimmed, with string
/// literals and quoted identifiers unquoted.
pub fn split_arguments(text: &str) -> Vec<String> {
    let Some(open) = significant(text).find(|t| t.is_punct("(")) else { return Vec::new() };
    let mut args = Vec::new();
    let mut current: Range<usize> = open.end()..0;
    let push = |args: &mut Vec<String>, r: Range<usize>| {
        let raw = text.get(r).unwrap_or("").trim();
        let arg = match super::significant(raw).collect::<Vec<_>>().as_slice() {
            [t] if matches!(t.kind, TokenKind::String | TokenKind::QuotedIdentifier) && t.text.len() == raw.len() => super::unquote(raw),
            _ => raw.to_string(),
        };
        args.push(arg);
    };
    // The `)` that closes it is the first one at the level it opens from.
    let from_open = text.get(open.start..).unwrap_or("");
    let Some(close) = super::top_level(from_open).find(|t| t.is_punct(")")) else { return Vec::new() };
    let inside = text.get(open.end()..open.start + close.start).unwrap_or("");
    for comma in super::top_level(inside).filter(|t| t.is_punct(",")) {
        current.end = open.end() + comma.start;
        push(&mut args, current.clone());
        current = current.end + 1..0;
    }
    current.end = open.start + close.start;
    push(&mut args, current);
    args
}

/// Whether `name` is one of ClickHouse's own formats (any case), chwire writing it or not.
pub fn is_clickhouse_format(name: &str) -> bool {
    CLICKHOUSE_FORMATS.iter().any(|f| f.eq_ignore_ascii_case(name))
}

/// The formats ClickHouse reads or writes (its `FormatFactory` registrations), for telling a
/// FORMAT clause from a column that happens to be named `format`.
const CLICKHOUSE_FORMATS: &[&str] = &[
    "TabSeparated",
    "TSV",
    "TabSeparatedRaw",
    "TSVRaw",
    "Raw",
    "TabSeparatedWithNames",
    "TSVWithNames",
    "TabSeparatedRawWithNames",
    "TSVRawWithNames",
    "RawWithNames",
    "TabSeparatedWithNamesAndTypes",
    "TSVWithNamesAndTypes",
    "TabSeparatedRawWithNamesAndTypes",
    "TSVRawWithNamesAndTypes",
    "RawWithNamesAndTypes",
    "Template",
    "TemplateIgnoreSpaces",
    "CSV",
    "CSVWithNames",
    "CSVWithNamesAndTypes",
    "CustomSeparated",
    "CustomSeparatedWithNames",
    "CustomSeparatedWithNamesAndTypes",
    "CustomSeparatedIgnoreSpaces",
    "Values",
    "JSON",
    "JSONStrings",
    "JSONColumns",
    "JSONColumnsWithMetadata",
    "JSONCompact",
    "JSONCompactStrings",
    "JSONCompactColumns",
    "JSONEachRow",
    "JSONLines",
    "NDJSON",
    "PrettyJSONEachRow",
    "PrettyJSONLines",
    "PrettyNDJSON",
    "JSONStringsEachRow",
    "JSONCompactEachRow",
    "JSONCompactEachRowWithNames",
    "JSONCompactEachRowWithNamesAndTypes",
    "JSONCompactStringsEachRow",
    "JSONCompactStringsEachRowWithNames",
    "JSONCompactStringsEachRowWithNamesAndTypes",
    "JSONEachRowWithProgress",
    "JSONStringsEachRowWithProgress",
    "JSONObjectEachRow",
    "JSONAsString",
    "JSONAsObject",
    "BSONEachRow",
    "TSKV",
    "Pretty",
    "PrettyNoEscapes",
    "PrettyMonoBlock",
    "PrettyNoEscapesMonoBlock",
    "PrettyCompact",
    "PrettyCompactNoEscapes",
    "PrettyCompactMonoBlock",
    "PrettyCompactNoEscapesMonoBlock",
    "PrettySpace",
    "PrettySpaceNoEscapes",
    "PrettySpaceMonoBlock",
    "PrettySpaceNoEscapesMonoBlock",
    "Prometheus",
    "Protobuf",
    "ProtobufSingle",
    "ProtobufList",
    "Avro",
    "AvroConfluent",
    "Parquet",
    "ParquetMetadata",
    "Arrow",
    "ArrowStream",
    "ORC",
    "One",
    "Npy",
    "RowBinary",
    "RowBinaryWithNames",
    "RowBinaryWithNamesAndTypes",
    "RowBinaryWithDefaults",
    "Native",
    "Null",
    "XML",
    "CapnProto",
    "LineAsString",
    "LineAsStringWithNames",
    "LineAsStringWithNamesAndTypes",
    "Regexp",
    "RawBLOB",
    "MsgPack",
    "MySQLWire",
    "MySQLDump",
    "PostgreSQLWire",
    "SQLInsert",
    "Vertical",
    "VerticalRaw",
    "Markdown",
    "Form",
    "Hash",
    "DWARF",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_first_keyword() {
        for read in [
            "SELECT 1",
            " -- c\n(select 1) UNION ALL (SELECT 2)",
            "WITH 1 AS x SELECT x",
            "show tables",
            "DESC t",
            "EXISTS t",
            "/* x */ EXPLAIN SELECT 1",
        ] {
            assert_eq!(StatementKind::of(read), StatementKind::Read, "{read}");
        }
        for other in
            ["CREATE TABLE t AS SELECT 1", "OPTIMIZE TABLE t", "ALTER TABLE t DELETE WHERE 1", "selected", "", "'SELECT'", "-- SELECT"]
        {
            assert_eq!(StatementKind::of(other), StatementKind::Other, "{other}");
        }
        assert_eq!(StatementKind::of("  -- c\n/* x */ insert into t values (1)"), StatementKind::Insert);
        assert_eq!(first_keyword("((SELECT 1))"), Some("SELECT"));
    }

    #[test]
    fn inserts_taken_apart() {
        let p = |s: &str| InsertTarget::parse(s).unwrap().unwrap();
        let t = p("INSERT INTO db.`my t` (a, `b c`) VALUES");
        assert_eq!(
            (t.table, t.columns, t.source),
            (TableRef::qualified("db", "my t"), Some(vec!["a".into(), "b c".into()]), InsertSource::Data { format: None })
        );
        // Escapes inside quotes as ClickHouse reads them (found live: `tab\tname` was "tabtname").
        let t = p("INSERT INTO t (`tab\\tname`, `a``b`, `c\\`d`, \"d\") VALUES");
        assert_eq!(t.columns.unwrap(), ["tab\tname", "a`b", "c`d", "d"]);
        assert_eq!(p(" -- c\n INSERT INTO TABLE `my t` FORMAT Native").table, TableRef::new("my t"));
        assert_eq!(p("insert into table t format Native;").source, InsertSource::Data { format: Some("Native".into()) });
        assert_eq!(p("INSERT INTO t VALUES (1, 'a')").source, InsertSource::Inline);
        assert_eq!(p("INSERT INTO t FORMAT CSV\n1,a").source, InsertSource::Inline);
        assert_eq!(p("INSERT INTO t SELECT 1").source, InsertSource::Select);
        assert_eq!(p("INSERT INTO t (SELECT 1)").source, InsertSource::Select);
        assert_eq!(p("INSERT INTO t (a) WITH 1 AS x SELECT x").source, InsertSource::Select);
        assert_eq!(p("INSERT INTO t SETTINGS async_insert = 1 VALUES").source, InsertSource::Data { format: None });
        assert_eq!(p("INSERT INTO t").source, InsertSource::Data { format: None });
        // A Nested column's subcolumns.
        assert_eq!(p("INSERT INTO t (n.x, `n`.`y z`, a) VALUES").columns.unwrap(), ["n.x", "n.y z", "a"]);
        // The settings clause.
        let sql = "INSERT INTO t (a) SETTINGS insert_deduplication_token = 'x''y', async_insert=1, f = -0.5 VALUES (1)";
        assert_eq!(
            p(sql).settings,
            [("insert_deduplication_token".into(), "x'y".into()), ("async_insert".into(), "1".into()), ("f".into(), "-0.5".into())]
        );
        assert_eq!(p("INSERT INTO settings (settings) VALUES").settings, []);
        assert!(InsertTarget::parse("INSERT INTO t SETTINGS VALUES").is_err());
        // Where the rows the statement holds begin.
        let rows = |s: &'static str| &s[p(s).rows_at..];
        assert_eq!(rows("INSERT INTO values (values) SETTINGS x = 'values' VALUES (1), (2)"), " (1), (2)");
        assert_eq!(rows("INSERT INTO t VALUES"), "");
        assert_eq!(rows("INSERT INTO t FORMAT CSV\n1,a\n"), "1,a\n");
        assert_eq!(rows("INSERT INTO t FORMAT TSV \r\n\tx\n"), "\tx\n");
        assert_eq!(rows("INSERT INTO t FORMAT TSV\n\nb"), "\nb");
        assert_eq!(rows("INSERT INTO t FORMAT TSV\t1\t2"), "1\t2");
        assert_eq!(rows("INSERT INTO t (a) SELECT 1"), "SELECT 1");
        assert!(InsertTarget::parse("SELECT 1").unwrap().is_none());
        let built = InsertTarget::values(TableRef::qualified("d b", "t"), Some(vec!["a`".into()]));
        assert_eq!(built.to_string(), "INSERT INTO `d b`.`t` (`a\\``) VALUES");
        assert_eq!(p(&built.to_string()), built);
        for bad in ["INSERT t VALUES", "INSERT INTO FUNCTION remote('h', db.t) VALUES", "INSERT INTO t (a VALUES", "INSERT INTO t garbage"]
        {
            assert!(InsertTarget::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_statement_without_its_format_clause() {
        assert_eq!(without_format_clause("SELECT 1 FORMAT JSONEachRow;"), "SELECT 1");
        assert_eq!(without_format_clause("SELECT x AS format FROM t ORDER BY format"), "SELECT x AS format FROM t ORDER BY format");
        assert_eq!(without_format_clause("INSERT INTO t FORMAT CSV"), "INSERT INTO t FORMAT CSV");
        assert_eq!(without_format_clause("SELECT 1 FORMAT JSON SETTINGS max_threads = 1;"), "SELECT 1 SETTINGS max_threads = 1;");
        // A SETTINGS inside a subquery is no clause of the statement.
        assert_eq!(
            without_format_clause("SELECT * FROM (SELECT 1 SETTINGS max_threads = 1) FORMAT JSON"),
            "SELECT * FROM (SELECT 1 SETTINGS max_threads = 1)"
        );
    }

    #[test]
    fn a_trailing_format_clause() {
        let f = |s: &str| format_clause(s).map(|c| (s[..c.start].trim_end().to_string(), c.name, c.known));
        assert_eq!(f("SELECT 1 FORMAT JSON"), Some(("SELECT 1".into(), "JSON".into(), true)));
        assert_eq!(f("select 1 format CSVWithNames ;\n"), Some(("select 1".into(), "CSVWithNames".into(), true)));
        assert_eq!(f("SELECT 1 /* c */ FORMAT `Parquet` -- end"), Some(("SELECT 1 /* c */".into(), "Parquet".into(), true)));
        assert_eq!(f("SELECT x FROM t ORDER BY format DESC").map(|c| c.2), Some(false));
        assert_eq!(f("SELECT 'x FORMAT JSON'"), None);
        assert_eq!(f("SELECT 1 -- FORMAT JSON"), None);
        assert_eq!(f("SELECT format FROM t"), None);
        assert_eq!(f("INSERT INTO t FORMAT CSV"), None);
        assert_eq!(f("SELECT 1 FORMAT Nope"), Some(("SELECT 1".into(), "Nope".into(), false)));
        assert_eq!(f(""), None);
        assert_eq!(f("FORMAT"), None);
        assert!(is_clickhouse_format("json") && is_clickhouse_format("NULL") && !is_clickhouse_format("DESC"));
    }

    #[test]
    fn arguments_of_a_call() {
        assert_eq!(
            split_arguments("Distributed(chwire_cluster, 'default', 'shard_local', rand())"),
            ["chwire_cluster", "default", "shard_local", "rand()"]
        );
        assert_eq!(split_arguments("Distributed(c, '', `t,x`, cityHash64(a, 'b)'))"), ["c", "", "t,x", "cityHash64(a, 'b)')"]);
        assert!(split_arguments("MergeTree").is_empty());
        assert!(split_arguments("f(a, b").is_empty());
    }
}
