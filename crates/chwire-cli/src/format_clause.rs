//! A query's own `FORMAT name` clause, which `chwire query` takes as its output format.
//!
//! Over the native protocol the server ignores the clause (it always sends blocks), and over
//! HTTP it would answer in that format instead of the Native that chwire decodes; as
//! clickhouse-client does, the CLI therefore takes the clause off the statement and writes its
//! output in that format. Strings, quoted identifiers and comments are skipped, so a `FORMAT`
//! inside them is text; the caller takes the clause only when its name is one of ClickHouse's
//! formats (`ORDER BY format DESC` ends in `format DESC` too), and refuses one chwire does not
//! write.

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

/// One significant token: its byte range and whether it is a word (or quoted identifier).
#[derive(Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    word: bool,
}

/// The statement without a trailing `FORMAT name` (and `;`), and the name; `None` when the
/// statement has no such clause or is an INSERT (whose FORMAT names its input).
pub fn split(sql: &str) -> Option<(&str, String)> {
    let tokens = significant_tokens(sql);
    let mut it = tokens.iter().rev().peekable();
    if it.peek().is_some_and(|t| !t.word && sql.get(t.start..t.end) == Some(";")) {
        it.next();
    }
    let name = it.next().filter(|t| t.word)?;
    let keyword = it.next().filter(|t| t.word)?;
    if !sql.get(keyword.start..keyword.end)?.eq_ignore_ascii_case("FORMAT") {
        return None;
    }
    let first = tokens.first()?;
    if sql.get(first.start..first.end)?.eq_ignore_ascii_case("INSERT") {
        return None;
    }
    let name = sql.get(name.start..name.end)?;
    let name = name.strip_prefix(['`', '"']).and_then(|n| n.strip_suffix(['`', '"'])).unwrap_or(name);
    Some((sql.get(..keyword.start)?.trim_end(), name.to_string()))
}

/// Words, quoted identifiers and single punctuation characters, outside strings and comments.
fn significant_tokens(sql: &str) -> Vec<Token> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        match c {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
                continue;
            }
            b'#' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |k| i + 2 + k + 2);
                continue;
            }
            b'\'' | b'`' | b'"' => {
                i += 1;
                while let Some(&d) = b.get(i) {
                    i += 1;
                    if d == b'\\' {
                        i += 1;
                    } else if d == c {
                        break;
                    }
                }
                let end = i.min(b.len());
                // A string literal is no name; quoted identifiers are.
                out.push(Token { start, end, word: c != b'\'' });
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                while b.get(i).is_some_and(|&d| d.is_ascii_alphanumeric() || d == b'_' || d >= 0x80) {
                    i += 1;
                }
                out.push(Token { start, end: i, word: true });
                continue;
            }
            _ => {
                i += 1;
                out.push(Token { start, end: i, word: false });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_clickhouse_format, split};

    #[test]
    fn clickhouse_formats_are_known_in_any_case() {
        assert!(is_clickhouse_format("json") && is_clickhouse_format("Vertical") && is_clickhouse_format("NULL"));
        assert!(!is_clickhouse_format("DESC") && !is_clickhouse_format("format"));
    }

    #[test]
    fn a_trailing_format_clause_is_split_off() {
        assert_eq!(split("SELECT 1 FORMAT JSON"), Some(("SELECT 1", "JSON".into())));
        assert_eq!(split("select 1 format CSVWithNames ;\n"), Some(("select 1", "CSVWithNames".into())));
        assert_eq!(split("SELECT 1 /* c */ FORMAT `Parquet` -- end"), Some(("SELECT 1 /* c */", "Parquet".into())));
        assert_eq!(split("SELECT 'x FORMAT JSON'"), None);
        assert_eq!(split("SELECT 1 -- FORMAT JSON"), None);
        assert_eq!(split("SELECT format FROM t"), None);
        assert_eq!(split("SELECT 1 AS format"), None);
        assert_eq!(split("INSERT INTO t FORMAT CSV"), None);
        assert_eq!(split("SELECT x FROM t WHERE s = 'FORMAT' FORMAT TSV"), Some(("SELECT x FROM t WHERE s = 'FORMAT'", "TSV".into())));
        assert_eq!(split(""), None);
        assert_eq!(split("FORMAT"), None);
    }
}
