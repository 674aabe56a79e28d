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

/// `a UInt64, b String` (as clickhouse-local's `--structure`) into columns, read by the core's
/// SQL lexer: split at top-level commas (types nest parentheses and quote enum names), each
/// column's name a word or a quoted identifier (`` `b c` ``, `"d"`), its type the rest.
pub fn parse_structure(s: &str) -> crate::Result<Vec<(String, DataType)>> {
    use chwire_proto::sql::{significant, top_level};
    let (mut parts, mut start) = (Vec::new(), 0usize);
    for comma in top_level(s).filter(|t| t.is_punct(",")) {
        parts.push(s.get(start..comma.start).unwrap_or(""));
        start = comma.end();
    }
    parts.push(s.get(start..).unwrap_or(""));
    parts
        .into_iter()
        .map(|p| {
            let p = p.trim();
            let bad = || crate::Error::options(format!("--structure: expected `name Type`, got {p:?}"));
            let first = significant(p).next().ok_or_else(bad)?;
            let name = first.identifier().filter(|n| !n.is_empty()).ok_or_else(bad)?;
            let ty = p.get(first.end()..).unwrap_or("").trim();
            if ty.is_empty() {
                return Err(bad());
            }
            let ty = DataType::parse(ty).map_err(|e| crate::Error::options(format!("--structure: column {name}: {e}")))?;
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
        // Quoted names as ClickHouse reads them: escapes, double quotes, a comma inside.
        assert!(parse_structure("a UInt8, 'x' UInt8").is_err()); // a string is no name
        let s = parse_structure("`a``b` UInt8, \"c,d\" String").unwrap();
        assert_eq!((s[0].0.as_str(), s[1].0.as_str()), ("a`b", "c,d"));
        assert!(parse_structure("a UInt8,").is_err());
    }
}
