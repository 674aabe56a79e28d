//! SQL text as ClickHouse reads it: the one rule for the backslash escapes of its quoted
//! strings and identifiers, shared by every place chwire reads names or literals back from SQL
//! (INSERT statements, table names the bindings take from users, text formats' fields).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

/// Calls `push` with each byte of `raw` (the inside of a quoted string or identifier, or an
/// escaped text field) with ClickHouse's backslash escapes resolved: `\t \n \r \0 \b \f \a \v`,
/// `\xHH`, and a backslash before any other character stands for that character (`\\`, `\'`,
/// `` \` ``); a backslash at the very end stands for itself.
pub fn unescape_with(raw: &[u8], mut push: impl FnMut(u8)) {
    let mut rest = raw;
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'\\' {
            push(b);
            continue;
        }
        let Some((&c, tail)) = rest.split_first() else {
            push(b);
            break;
        };
        rest = tail;
        match c {
            b't' => push(b'\t'),
            b'n' => push(b'\n'),
            b'r' => push(b'\r'),
            b'0' => push(0),
            b'b' => push(8),
            b'f' => push(12),
            b'a' => push(7),
            b'v' => push(11),
            // Two hex digits (`from_str_radix` alone would also take a sign: `\x+f`).
            b'x' => match rest
                .get(..2)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => {
                    push(v);
                    rest = rest.get(2..).unwrap_or_default();
                }
                None => push(c),
            },
            c => push(c),
        }
    }
}

/// [`unescape_with`] into a string (bytes that are not UTF-8 become U+FFFD).
pub fn unescape(raw: &str) -> String {
    let mut out = Vec::with_capacity(raw.len());
    unescape_with(raw.as_bytes(), |b| out.push(b));
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_clickhouse_reads_them() {
        assert_eq!(unescape(r"tab\tname"), "tab\tname");
        assert_eq!(unescape(r"a\\b\'c\`d\x41\x4"), "a\\b'c`dAx4");
        assert_eq!(unescape(r"nul\0 end\"), "nul\0 end\\");
        assert_eq!(unescape(r"\q"), "q");
    }
}
