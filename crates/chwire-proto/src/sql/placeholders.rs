//! `{name:Type}` query parameters, found by the lexer: braces inside strings, quoted
//! identifiers and comments are text, and `{'k': 1}` (a map literal) is no placeholder.

use super::{tokens, SqlError, Token, TokenKind};
use std::ops::Range;

/// One `{name:Type}` placeholder of a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder<'a> {
    /// Its byte range in the statement, braces included.
    pub range: Range<usize>,
    /// The parameter's name.
    pub name: &'a str,
    /// The declared type, as written (trimmed).
    pub ty: &'a str,
    /// It stands where `LIMIT` and `OFFSET` take their counts (after `LIMIT`, `OFFSET` or
    /// `LIMIT n,`), which take only number literals on old servers.
    pub after_limit: bool,
}

/// Every placeholder of `sql`, in order. A `{name:` that does not close is an error.
pub fn placeholders(sql: &str) -> Result<Vec<Placeholder<'_>>, SqlError> {
    let all: Vec<Token<'_>> = tokens(sql).collect();
    let significant: Vec<usize> = (0..all.len()).filter(|&i| all.get(i).is_some_and(|t| !t.is_trivia())).collect();
    let tok = |k: usize| significant.get(k).and_then(|&i| all.get(i));
    let mut out: Vec<Placeholder<'_>> = Vec::new();
    // The significant index of the last placeholder's `}`.
    let mut last_close = None;
    let mut k = 0usize;
    while let Some(t) = tok(k) {
        let is_start = t.is_punct("{")
            && tok(k + 1).is_some_and(|n| n.kind == TokenKind::Word && n.text.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
            && tok(k + 2).is_some_and(|c| c.is_punct(":"));
        if !is_start {
            k += 1;
            continue;
        }
        let name = tok(k + 1).map_or("", |n| n.text);
        let type_start = tok(k + 2).map_or(0, Token::end);
        // The type runs to the `}` outside its parentheses and quotes.
        let mut depth = 0usize;
        let mut j = k + 3;
        let close = loop {
            let Some(c) = tok(j) else {
                return Err(SqlError(format!("unclosed query parameter {{{name}: at byte {}", t.start)));
            };
            if c.is_punct("(") {
                depth += 1;
            } else if c.is_punct(")") {
                depth = depth.saturating_sub(1);
            } else if c.is_punct("}") && depth == 0 {
                break c;
            } else if c.kind == TokenKind::Unclosed {
                return Err(SqlError(format!("unclosed query parameter {{{name}: at byte {}", t.start)));
            }
            j += 1;
        };
        let ty = sql.get(type_start..close.start).unwrap_or("").trim();
        let before = |n: usize| k.checked_sub(n).and_then(tok);
        // `LIMIT n, {count}`: n a number, or a placeholder itself after LIMIT.
        let after_count = before(2).is_some_and(|n| n.kind == TokenKind::Number) && before(3).is_some_and(|w| w.is_keyword("LIMIT"))
            || (last_close.is_some_and(|c| c + 2 == k) && out.last().is_some_and(|p| p.after_limit));
        let after_limit = before(1).is_some_and(|w| w.is_keyword("LIMIT") || w.is_keyword("OFFSET"))
            || (before(1).is_some_and(|c| c.is_punct(",")) && after_count);
        out.push(Placeholder { range: t.start..close.end(), name, ty, after_limit });
        last_close = Some(j);
        k = j + 1;
    }
    Ok(out)
}

/// The declared type of each placeholder of `sql` (the first one of a name given twice), for
/// bindings that build a value by its type. SQL with an unclosed placeholder has none.
pub fn placeholder_types(sql: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for p in placeholders(sql).unwrap_or_default() {
        if !out.iter().any(|(n, _)| n == p.name) {
            out.push((p.name.to_string(), p.ty.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_outside_quotes_and_comments() {
        let sql = "SELECT {t: Tuple(UInt8, String)}, '{s:String}' -- {c:UInt8}\n, {a:Array(Tuple(Int8, Int8))}, {t:UInt8} /* {d:Date} */ `{x:Int8}`";
        assert_eq!(
            placeholder_types(sql),
            [("t".to_string(), "Tuple(UInt8, String)".to_string()), ("a".to_string(), "Array(Tuple(Int8, Int8))".to_string())]
        );
        assert!(placeholders("SELECT {t:UInt8").is_err());
        assert!(placeholders("SELECT {t:DateTime('UTC'").is_err());
        assert_eq!(placeholders("SELECT {}, {'k': 1}, {1:2}").unwrap(), vec![]);
        let p = placeholders("SELECT {tz: DateTime('Asia/Kolkata')}").unwrap();
        assert_eq!(
            (p[0].name, p[0].ty, &"SELECT {tz: DateTime('Asia/Kolkata')}"[p[0].range.clone()]),
            ("tz", "DateTime('Asia/Kolkata')", "{tz: DateTime('Asia/Kolkata')}")
        );
        // A `}` inside the type's quotes does not end it.
        assert_eq!(placeholders("SELECT {e:Enum8('}' = 1)}").unwrap()[0].ty, "Enum8('}' = 1)");
    }

    #[test]
    fn limit_counts_are_marked() {
        let after: Vec<bool> = placeholders("SELECT {a:UInt8} LIMIT {n:UInt8} OFFSET {o:UInt8}; SELECT 1 limit {o:UInt8}, {n:UInt8}")
            .unwrap()
            .iter()
            .map(|p| p.after_limit)
            .collect();
        assert_eq!(after, [false, true, true, true, true]);
    }
}
