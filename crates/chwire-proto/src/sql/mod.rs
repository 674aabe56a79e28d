//! SQL text as ClickHouse reads it, the one place chwire scans or writes SQL: a lexer with
//! ClickHouse's rules ([`tokens`]), quoting ([`quote_identifier`], [`quote_string`]), table
//! references ([`TableRef`]), what a statement is ([`StatementKind`], [`InsertTarget`], a
//! trailing [`format_clause`]), `{name:Type}` placeholders ([`placeholders`]) and the
//! backslash escapes of quoted text ([`unescape`]).
//!
//! Every front end (the client, the CLI, Python, ADBC, Elixir, Node and both Spark sources)
//! reads statements and table names through here, so a `FORMAT` or `{p:T}` inside a string
//! or a comment is text for all of them, and a table name is refused or accepted alike.

mod escape;
mod lexer;
mod placeholders;
mod statement;
mod table;

pub use escape::{unescape, unescape_with};
pub use lexer::{significant, tokens, top_level, Token, TokenKind, Tokens};
pub use placeholders::{placeholder_types, placeholders, Placeholder};
pub use statement::{
    first_keyword, format_clause, is_clickhouse_format, split_arguments, without_format_clause, FormatClause, InsertSource, InsertTarget,
    StatementKind,
};
pub use table::TableRef;

/// SQL text chwire cannot read (a table reference, an INSERT's target, a placeholder).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SqlError(pub String);

/// `name` as a backquoted identifier, escaped as ClickHouse reads one: any name (spaces,
/// quotes, newlines, NUL) comes back as itself.
pub fn quote_identifier(name: &str) -> String {
    quote(name, '`')
}

/// `value` as a single-quoted string literal, escaped as ClickHouse reads one.
pub fn quote_string(value: &str) -> String {
    quote(value, '\'')
}

/// Names as a comma-separated list of backquoted identifiers (an INSERT's column list).
pub fn quote_identifiers<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    names.into_iter().map(|n| quote_identifier(n.as_ref())).collect::<Vec<_>>().join(", ")
}

fn quote(v: &str, q: char) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push(q);
    escape_into(&mut out, v, Some(q));
    out.push(q);
    out
}

/// `text` appended to `out` with ClickHouse's backslash escapes (`\\`, `\n`, `\r`, `\t`, `\0`,
/// `\b`, `\f`, and `quote` when given): the inside of a quoted literal or name, or a query
/// parameter's text (no quote). ClickHouse's readers turn each escape back into its character.
pub fn escape_into(out: &mut String, text: &str, quote: Option<char>) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if Some(c) == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
}

/// The text a quoted token (`'…'`, `` `…` ``, `"…"`) stands for: quotes removed, a doubled
/// quote and ClickHouse's backslash escapes resolved. Other text comes back as it is.
pub fn unquote(token: &str) -> String {
    let Some(q) = token.chars().next().filter(|c| matches!(c, '\'' | '`' | '"')) else { return token.to_string() };
    let inner = token.strip_prefix(q).and_then(|t| t.strip_suffix(q)).unwrap_or_else(|| token.strip_prefix(q).unwrap_or(token));
    // A doubled quote becomes an escaped one; escapes are kept as they are for `unescape`.
    let mut raw = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            raw.push(c);
            if let Some(n) = chars.next() {
                raw.push(n);
            }
        } else if c == q && chars.peek() == Some(&q) {
            chars.next();
            raw.push('\\');
            raw.push(q);
        } else {
            raw.push(c);
        }
    }
    unescape(&raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_through_the_lexer() {
        for name in ["plain", "a`b", "a'b", "back\\slash", "line\nbreak", "nul\0", "é 名", "", "\"dq\""] {
            let q = quote_identifier(name);
            let t: Vec<Token<'_>> = tokens(&q).collect();
            assert_eq!(t.len(), 1, "{q}");
            assert_eq!(t[0].kind, TokenKind::QuotedIdentifier);
            assert_eq!(t[0].identifier().as_deref(), Some(name));
            let s = quote_string(name);
            assert_eq!(tokens(&s).next().map(|t| t.kind), Some(TokenKind::String));
            assert_eq!(unquote(&s), name);
        }
        assert_eq!(quote_identifier("a`b\\c"), "`a\\`b\\\\c`");
        assert_eq!(quote_string("it's \\"), "'it\\'s \\\\'");
        assert_eq!(unquote("'it''s'"), "it's");
        assert_eq!(unquote("\"a\"\"b\""), "a\"b");
    }
}
