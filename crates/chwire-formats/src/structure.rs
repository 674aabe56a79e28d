//! Column lists as text (`--structure`) and time zones by name.

use chwire_proto::DataType;

/// A time zone given for files (the CLI's `--timezone`) must name a zone chwire knows (IANA
/// names, as ClickHouse's): an unknown one would read and write times as UTC.
pub fn check_timezone(tz: Option<&str>) -> crate::Result<()> {
    match tz {
        Some(name) => {
            jiff::tz::TimeZone::get(name).map(|_| ()).map_err(|e| crate::Error::options(format!("unknown time zone {name:?} ({e})")))
        }
        None => Ok(()),
    }
}

/// `a UInt64, b String` (as clickhouse-local's `--structure`) into columns.
pub fn parse_structure(s: &str) -> crate::Result<Vec<(String, DataType)>> {
    // Split at top-level commas (types nest parentheses and quote enum names).
    let (mut parts, mut depth, mut quote, mut start) = (Vec::new(), 0i32, false, 0);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if quote => i += 1,
            b'\'' => quote = !quote,
            b'(' if !quote => depth += 1,
            b')' if !quote => depth -= 1,
            b',' if !quote && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&s[start..]);
    parts
        .into_iter()
        .map(|p| {
            let p = p.trim();
            let bad = || crate::Error::options(format!("--structure: expected `name Type`, got {p:?}"));
            let (name, ty) = match p.strip_prefix('`') {
                Some(rest) => rest.split_once('`').ok_or_else(bad)?,
                None => p.split_once(char::is_whitespace).ok_or_else(bad)?,
            };
            let name = name.to_string();
            let ty = DataType::parse(ty.trim()).map_err(|e| crate::Error::options(format!("--structure: column {name}: {e}")))?;
            Ok((name, ty))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures_split_at_top_level_commas() {
        let s = parse_structure("a UInt64, `b c` Map(String, Array(Tuple(UInt8, String))), e Enum8('x,y' = 1, 'z' = 2)").unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].0, "b c");
        assert!(parse_structure("a").is_err());
    }
}
