//! ClickHouse's lexer rules (`src/Parsers/Lexer.cpp`), enough to find where statements,
//! literals, identifiers, comments and placeholders begin and end: every scanner of SQL text in
//! chwire reads tokens from here, so that a `FORMAT` or a `{p:T}` inside a string or a comment
//! is text everywhere alike.
//!
//! The lexer is total: any input (not UTF-8 aware beyond keeping tokens on character
//! boundaries) becomes tokens that cover it byte for byte, never a panic. What ClickHouse would
//! refuse (an unclosed quote or comment, a stray byte) is a token of its own kind, so callers
//! decide whether that matters to them.

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Spaces, tabs, line breaks (and Unicode spaces, as ClickHouse skips them).
    Whitespace,
    /// `-- …`, `// …`, `# …`, `#!…` to the end of the line, or `/* … */` (nested).
    Comment,
    /// `'…'` with backslash escapes and doubled quotes, or `x'…'`/`b'…'`, or a heredoc
    /// `$tag$…$tag$`.
    String,
    /// `` `…` `` or `"…"`.
    QuotedIdentifier,
    /// A bare word: letters, digits, `_` and `$` (`1abc` too, as ClickHouse reads it).
    Word,
    /// A number (`1`, `0x1F`, `1.5e-3`, `1_000`): only its extent is found, not its value.
    Number,
    /// One punctuation token (`(`, `,`, `::`, `->`, `!=`, …).
    Punct,
    /// A quote or comment that does not end before the text does.
    Unclosed,
    /// A byte ClickHouse's lexer refuses (a lone `!`, `\` not before `G`, …).
    Error,
}

/// A token: its kind and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// What the token is.
    pub kind: TokenKind,
    /// The token's text, quotes and all.
    pub text: &'a str,
    /// Its byte offset in the statement.
    pub start: usize,
}

impl<'a> Token<'a> {
    /// The byte offset just past the token.
    pub fn end(&self) -> usize {
        self.start.saturating_add(self.text.len())
    }

    /// Whitespace and comments: what separates tokens and means nothing else.
    pub fn is_trivia(&self) -> bool {
        matches!(self.kind, TokenKind::Whitespace | TokenKind::Comment)
    }

    /// A word equal to `keyword`, ignoring ASCII case.
    pub fn is_keyword(&self, keyword: &str) -> bool {
        self.kind == TokenKind::Word && self.text.eq_ignore_ascii_case(keyword)
    }

    /// Punctuation equal to `p`.
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == p
    }

    /// The name an identifier token stands for: a word as written, a quoted identifier
    /// without its quotes and with its escapes resolved. `None` for other tokens.
    pub fn identifier(&self) -> Option<String> {
        match self.kind {
            TokenKind::Word => Some(self.text.to_string()),
            TokenKind::QuotedIdentifier => Some(super::unquote(self.text)),
            _ => None,
        }
    }
}

/// The tokens of `sql`, in order, covering every byte.
pub fn tokens(sql: &str) -> Tokens<'_> {
    Tokens { sql, pos: 0, after_dot: false, after_operand: false }
}

/// The significant tokens of `sql` (no whitespace or comments).
pub fn significant(sql: &str) -> impl Iterator<Item = Token<'_>> {
    tokens(sql).filter(|t| !t.is_trivia())
}

/// The significant tokens of `sql` outside brackets (`(…)`, `[…]`): a statement's own clauses,
/// not what its subqueries, tuples, arrays or function arguments hold. A bracket belongs to the
/// level it opens from, so the `)` that closes a top-level `(` is yielded too; a `)` with no
/// `(` before it stays at the top.
pub fn top_level(sql: &str) -> impl Iterator<Item = Token<'_>> {
    let mut depth = 0usize;
    significant(sql).filter(move |t| {
        if t.is_punct("(") || t.is_punct("[") {
            depth = depth.saturating_add(1);
            depth == 1
        } else if t.is_punct(")") || t.is_punct("]") {
            depth = depth.saturating_sub(1);
            depth == 0
        } else {
            depth == 0
        }
    })
}

/// The iterator of [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    sql: &'a str,
    pos: usize,
    /// The previous significant token was a `.` (then digits are a tuple index, `x.1.1`).
    after_dot: bool,
    /// The previous significant token ends an operand (a word, identifier, number, `)` or
    /// `]`): a `.` after it is a qualifier or tuple access, never a number's start.
    after_operand: bool,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let rest = self.sql.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let (kind, len) = scan(rest, self.after_dot, self.after_operand, self.pos == 0);
        // Tokens end on character boundaries (every scan stops at an ASCII byte or the end;
        // a stray non-ASCII character is taken whole).
        let len = ceil_char_boundary(rest, len.max(1));
        let text = rest.get(..len).unwrap_or(rest);
        let token = Token { kind, text, start: self.pos };
        self.pos = self.pos.saturating_add(len);
        if !token.is_trivia() {
            self.after_dot = token.is_punct(".");
            self.after_operand = matches!(token.kind, TokenKind::Word | TokenKind::QuotedIdentifier | TokenKind::Number)
                || token.is_punct(")")
                || token.is_punct("]");
        }
        Some(token)
    }
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i = i.saturating_add(1);
    }
    i.min(s.len())
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The kind and byte length of the token at the start of `s` (not empty).
fn scan(s: &str, after_dot: bool, after_operand: bool, at_start: bool) -> (TokenKind, usize) {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let first = at(0).unwrap_or(0);
    let line_end = |from: usize| b.iter().skip(from).position(|&c| c == b'\n').map_or(b.len(), |p| p.saturating_add(from));
    match first {
        b' ' | b'\t' | b'\n' | b'\r' | 0x0c | 0x0b => {
            (TokenKind::Whitespace, b.iter().position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0c | 0x0b)).unwrap_or(b.len()))
        }
        b'0'..=b'9' => number(b, after_dot),
        b'\'' => quoted(b, b'\'', TokenKind::String),
        b'"' => quoted(b, b'"', TokenKind::QuotedIdentifier),
        b'`' => quoted(b, b'`', TokenKind::QuotedIdentifier),
        b'-' if at(1) == Some(b'-') => (TokenKind::Comment, line_end(2)),
        b'-' if at(1) == Some(b'>') => (TokenKind::Punct, 2),
        b'/' if at(1) == Some(b'/') => (TokenKind::Comment, line_end(2)),
        b'/' if at(1) == Some(b'*') => block_comment(b),
        b'#' if matches!(at(1), Some(b' ' | b'!')) => (TokenKind::Comment, line_end(1)),
        b'.' => {
            // A number (`.5`) only where a dot cannot be a qualifier or tuple access.
            let digit_next = at(1).is_some_and(|c| c.is_ascii_digit());
            if !digit_next || (!at_start && after_operand) {
                (TokenKind::Punct, 1)
            } else {
                (TokenKind::Number, fraction_exponent(b, 0, false))
            }
        }
        b'=' => (TokenKind::Punct, if at(1) == Some(b'=') { 2 } else { 1 }),
        b'!' if at(1) == Some(b'=') => (TokenKind::Punct, 2),
        b'<' if matches!(at(1), Some(b'=' | b'>')) => (TokenKind::Punct, 2),
        b'>' if at(1) == Some(b'=') => (TokenKind::Punct, 2),
        b':' if at(1) == Some(b':') => (TokenKind::Punct, 2),
        b'|' if at(1) == Some(b'|') => (TokenKind::Punct, 2),
        b'@' if at(1) == Some(b'@') => (TokenKind::Punct, 2),
        b'\\' if at(1) == Some(b'G') => (TokenKind::Punct, 2),
        b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b';' | b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'?' | b':' | b'|'
        | b'@' => (TokenKind::Punct, 1),
        b'$' => heredoc(s).unwrap_or_else(|| word(b)),
        b'x' | b'X' | b'b' | b'B' if at(1) == Some(b'\'') => hex_or_bin_string(b),
        c if is_word_byte(c) => word(b),
        c if c >= 0x80 => unicode_space(s).map_or((TokenKind::Error, 1), |n| (TokenKind::Whitespace, n)),
        _ => (TokenKind::Error, 1),
    }
}

fn word(b: &[u8]) -> (TokenKind, usize) {
    (TokenKind::Word, b.iter().position(|&c| !is_word_byte(c)).unwrap_or(b.len()).max(1))
}

/// A quoted run: backslash escapes, a doubled quote stands for itself.
fn quoted(b: &[u8], q: u8, kind: TokenKind) -> (TokenKind, usize) {
    let mut i = 1usize;
    loop {
        match b.get(i) {
            None => return (TokenKind::Unclosed, b.len()),
            Some(b'\\') => {
                if i.saturating_add(1) >= b.len() {
                    return (TokenKind::Unclosed, b.len());
                }
                i = i.saturating_add(2);
            }
            Some(&c) if c == q => {
                if b.get(i.saturating_add(1)) == Some(&q) {
                    i = i.saturating_add(2);
                } else {
                    return (kind, i.saturating_add(1));
                }
            }
            Some(_) => i = i.saturating_add(1),
        }
    }
}

/// `/* … */`, nested as the SQL standard has it.
fn block_comment(b: &[u8]) -> (TokenKind, usize) {
    let mut depth = 1usize;
    let mut i = 2usize;
    while i.saturating_add(1) < b.len() {
        match (b.get(i), b.get(i.saturating_add(1))) {
            (Some(b'/'), Some(b'*')) => {
                depth = depth.saturating_add(1);
                i = i.saturating_add(2);
            }
            (Some(b'*'), Some(b'/')) => {
                depth = depth.saturating_sub(1);
                i = i.saturating_add(2);
                if depth == 0 {
                    return (TokenKind::Comment, i);
                }
            }
            _ => i = i.saturating_add(1),
        }
    }
    (TokenKind::Unclosed, b.len())
}

/// `x'…'` (hex digits) or `b'…'` (binary digits).
fn hex_or_bin_string(b: &[u8]) -> (TokenKind, usize) {
    let hex = matches!(b.first(), Some(b'x' | b'X'));
    let digits = b.iter().skip(2).take_while(|c| if hex { c.is_ascii_hexdigit() } else { matches!(c, b'0' | b'1') }).count();
    let close = digits.saturating_add(2);
    if b.get(close) == Some(&b'\'') {
        (TokenKind::String, close.saturating_add(1))
    } else {
        (TokenKind::Unclosed, b.len())
    }
}

/// `$tag$ … $tag$` (the tag may be empty); `None` when it does not close, then `$` starts a word.
fn heredoc(s: &str) -> Option<(TokenKind, usize)> {
    let tag_end = s.get(1..)?.find('$')?.checked_add(2)?;
    let tag = s.get(..tag_end)?;
    let body = s.get(tag_end..)?;
    let close = body.find(tag)?;
    Some((TokenKind::String, tag_end.checked_add(close)?.checked_add(tag.len())?))
}

/// A number: digits with `_` separators, `0x`/`0b` prefixes, a fraction and an exponent; then
/// word characters make it a word (`1abc`), as ClickHouse's lexer has it. After a `.` only
/// digits (a tuple index).
fn number(b: &[u8], after_dot: bool) -> (TokenKind, usize) {
    if after_dot {
        return (TokenKind::Number, digits(b, 0, false));
    }
    let prefixed =
        matches!((b.first(), b.get(1)), (Some(b'0'), Some(b'x' | b'X' | b'b' | b'B'))) && b.get(2).is_some_and(|c| c.is_ascii_hexdigit());
    let hex = prefixed && matches!(b.get(1), Some(b'x' | b'X'));
    let i = fraction_exponent(b, digits(b, if prefixed { 2 } else { 0 }, hex), hex);
    if b.get(i).is_some_and(|&c| is_word_byte(c)) {
        let end = b.iter().skip(i).position(|&c| !is_word_byte(c)).map_or(b.len(), |p| p.saturating_add(i));
        let all_word = b.get(..end).is_some_and(|w| w.iter().all(|&c| is_word_byte(c)));
        return (if all_word { TokenKind::Word } else { TokenKind::Error }, end);
    }
    (TokenKind::Number, i.max(1))
}

/// Past the digits (hex digits) and `_` separators from `from`.
fn digits(b: &[u8], from: usize, hex: bool) -> usize {
    b.iter()
        .skip(from)
        .take_while(|&&c| if hex { c.is_ascii_hexdigit() || c == b'_' } else { c.is_ascii_digit() || c == b'_' })
        .count()
        .saturating_add(from)
}

/// Past an optional `.digits` at `i` and an optional exponent (`e`/`p` for hex, a sign,
/// decimal digits).
fn fraction_exponent(b: &[u8], mut i: usize, hex: bool) -> usize {
    if b.get(i) == Some(&b'.') {
        i = digits(b, i.saturating_add(1), hex);
    }
    let exp = if hex { [b'p', b'P'] } else { [b'e', b'E'] };
    if b.get(i).is_some_and(|c| exp.contains(c)) {
        let mut j = i.saturating_add(1);
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j = j.saturating_add(1);
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(b, j, false);
        }
    }
    i
}

/// The length of a run of Unicode whitespace at the start of `s`, if any.
fn unicode_space(s: &str) -> Option<usize> {
    let n: usize = s.chars().take_while(|c| c.is_whitespace()).map(char::len_utf8).sum();
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(TokenKind, &str)> {
        tokens(sql).map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn top_level_skips_what_brackets_hold() {
        let texts = |sql| top_level(sql).map(|t| t.text).collect::<Vec<_>>();
        assert_eq!(texts("f(a, (b), [c, d]) , 'x(' -- )\n, g"), vec!["f", "(", ")", ",", "'x('", ",", "g"]);
        assert_eq!(texts("a ) b ( c"), vec!["a", ")", "b", "("]);
        assert_eq!(texts("[1, 2] settings"), vec!["[", "]", "settings"]);
    }

    #[test]
    fn tokens_cover_the_text() {
        for sql in [
            "SELECT 'a''b\\'c', `x``y`, \"z\" -- c\n/* a /* nested */ b */ # c\n#!shebang\n1.5e-3 0x1F 1_000 x'4142' $$he$$ $t$a$t$",
            "'unclosed",
            "/* unclosed",
            "é SELECT\u{a0}1 ! \\ ",
            "t.1.1",
        ] {
            let joined: String = tokens(sql).map(|t| t.text).collect();
            assert_eq!(joined, sql);
        }
    }

    #[test]
    fn kinds_as_clickhouse_reads_them() {
        use TokenKind::*;
        assert_eq!(
            kinds("a.1.1 `q`.\"r\" 'it''s' 1abc 1.5"),
            vec![
                (Word, "a"),
                (Punct, "."),
                (Number, "1"),
                (Punct, "."),
                (Number, "1"),
                (Whitespace, " "),
                (QuotedIdentifier, "`q`"),
                (Punct, "."),
                (QuotedIdentifier, "\"r\""),
                (Whitespace, " "),
                (String, "'it''s'"),
                (Whitespace, " "),
                (Word, "1abc"),
                (Whitespace, " "),
                (Number, "1.5"),
            ]
        );
        assert_eq!(kinds("#hash")[0], (Error, "#"));
        assert_eq!(kinds("# c\nx")[0], (Comment, "# c"));
        assert_eq!(kinds("/* a /* b */ c */x")[0], (Comment, "/* a /* b */ c */"));
        assert_eq!(kinds("'a\\'")[0].0, Unclosed);
        assert_eq!(kinds("$a$ x $a$!")[0], (String, "$a$ x $a$"));
        assert_eq!(kinds("$x")[0], (Word, "$x"));
        assert_eq!(kinds(".5")[0], (Number, ".5"));
        assert_eq!(kinds("{p:UInt8}").iter().map(|t| t.1).collect::<Vec<_>>(), ["{", "p", ":", "UInt8", "}"]);
        assert_eq!(kinds("a::Int8->b")[1], (Punct, "::"));
        assert_eq!(kinds("\u{a0}")[0].0, Whitespace);
        assert_eq!(kinds("é")[0], (Error, "é"));
    }

    #[test]
    fn identifiers_are_unquoted() {
        let ids: Vec<String> = significant("`a\\`b` \"c\"\"d\" e 'f'").filter_map(|t| t.identifier()).collect();
        assert_eq!(ids, ["a`b", "c\"d", "e"]);
    }
}
