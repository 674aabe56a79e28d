//! Query parameters: `{name:Type}` placeholders bound to Rust values.
//!
//! From protocol revision 54459 the values travel as server-side parameters (the server
//! parses them as the placeholder's type). Older servers (such as the 18.16 rig) get the
//! placeholders replaced on the client by typed SQL literals: `CAST('…' AS Type)`, with every
//! string quoted and escaped, so a value always arrives as data, never as SQL.

use crate::error::{Error, Result};
use chwire_proto::sql::{placeholders, Placeholder};

mod checks;
mod value;
pub use checks::ParamError;
pub use chwire_row::QueryParam;
pub use value::{BoundValue, ParamValue};

/// The type `sql` declares for the placeholder `name` (its first `{name:Type}`), if it
/// declares one chwire can read.
pub(crate) fn placeholder_type(sql: &str, name: &str) -> Option<chwire_proto::DataType> {
    placeholders(sql).unwrap_or_default().into_iter().find(|p| p.name == name).and_then(|p| chwire_proto::DataType::parse(p.ty).ok())
}

/// Replace every `{name:Type}` placeholder outside string literals, quoted identifiers and
/// comments by `CAST(literal AS Type)`. Unknown names are an error; so is an unclosed
/// placeholder.
pub(crate) fn bind_client_side(sql: &str, params: &[(String, String)]) -> Result<String> {
    let mut out = String::with_capacity(sql.len() + 32);
    let mut copied = 0;
    for Placeholder { range, name, ty, after_limit } in placeholders(sql).map_err(|e| Error::invalid(e.0))? {
        let literal = params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| Error::invalid(format!("no value for query parameter {name:?}")))?;
        out.push_str(&sql[copied..range.start]);
        check_integer(name, ty, literal)?;
        if after_limit && !literal.is_empty() && literal.bytes().all(|c| c.is_ascii_digit()) {
            // LIMIT and OFFSET take only number literals (18.16 rejects a CAST there);
            // digits alone cannot carry SQL.
            out.push_str(literal);
        } else {
            out.push_str(&format!("CAST({literal} AS {ty})"));
        }
        copied = range.end;
    }
    out.push_str(&sql[copied.min(sql.len())..]);
    Ok(out)
}

/// An integer parameter must fit its placeholder's type: CAST(300 AS Int8) wraps to 44, and so
/// does ClickHouse 26.9's server-side parameter (`{n:Int8}` with `300` is 44), and a negative
/// number is no unsigned integer. Text that is no plain integer is left to the server.
pub(crate) fn check_integer(name: &str, ty: &str, text: &str) -> Result<()> {
    let unsigned = ty.strip_prefix("Nullable(").unwrap_or(ty).starts_with("UInt");
    if unsigned && text.starts_with('-') && text.get(1..).is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())) {
        return Err(Error::invalid(format!("query parameter {name:?}: {text} is not a {ty}")));
    }
    if let Some((lo, hi)) = int_range(ty.strip_prefix("Nullable(").and_then(|t| t.strip_suffix(')')).unwrap_or(ty)) {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) && text.parse::<i128>().map_or(true, |v| v < lo || v > hi) {
            return Err(Error::invalid(format!("query parameter {name:?}: {text} is outside the range of {ty}")));
        }
    }
    Ok(())
}

/// Check every integer parameter against its placeholder's type (see [`check_integer`]).
pub(crate) fn check_integers(sql: &str, params: &[(String, String)]) -> Result<()> {
    for Placeholder { name, ty, .. } in placeholders(sql).unwrap_or_default() {
        if let Some((_, text)) = params.iter().find(|(n, _)| n == name) {
            check_integer(name, ty, text)?;
        }
    }
    Ok(())
}

/// The range of an integer type of up to 64 bits, by its name.
fn int_range(ty: &str) -> Option<(i128, i128)> {
    Some(match ty.trim() {
        "Int8" => (i8::MIN.into(), i8::MAX.into()),
        "Int16" => (i16::MIN.into(), i16::MAX.into()),
        "Int32" => (i32::MIN.into(), i32::MAX.into()),
        "Int64" => (i64::MIN.into(), i64::MAX.into()),
        "UInt8" => (0, u8::MAX.into()),
        "UInt16" => (0, u16::MAX.into()),
        "UInt32" => (0, u32::MAX.into()),
        "UInt64" => (0, u64::MAX.into()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_counts_bind_as_plain_numbers() {
        let p = |n: &str, v: &str| (n.to_string(), v.to_string());
        let params = [p("n", "5"), p("o", "2"), p("s", "'x'")];
        assert_eq!(bind_client_side("SELECT 1 LIMIT {n:UInt64}", &params).unwrap(), "SELECT 1 LIMIT 5");
        assert_eq!(bind_client_side("SELECT 1 limit {o:UInt8}, {n:UInt8}", &params).unwrap(), "SELECT 1 limit 2, 5");
        assert_eq!(bind_client_side("SELECT 1 LIMIT 3 OFFSET {o:UInt8}", &params).unwrap(), "SELECT 1 LIMIT 3 OFFSET 2");
        assert_eq!(bind_client_side("SELECT {n:UInt64}", &params).unwrap(), "SELECT CAST(5 AS UInt64)");
        // A negative number for an unsigned type is refused (CAST would wrap it).
        let negative = [p("n", "-1")];
        assert!(bind_client_side("SELECT {n:UInt64}", &negative).unwrap_err().to_string().contains("-1 is not a UInt64"));
        assert!(bind_client_side("SELECT {n:Nullable(UInt8)}", &negative).is_err());
        assert_eq!(bind_client_side("SELECT {n:Int64}", &negative).unwrap(), "SELECT CAST(-1 AS Int64)");
        // Out of the type's range: an error, not a CAST that wraps.
        let p = |v: &str| vec![("n".to_string(), v.to_string())];
        assert!(bind_client_side("SELECT {n:Int8}", &p("300")).is_err());
        assert!(bind_client_side("SELECT {n:Nullable(Int8)}", &p("-129")).is_err());
        assert!(bind_client_side("SELECT {n:UInt64}", &p("18446744073709551616")).is_err());
        assert!(bind_client_side("SELECT {n:UInt32}", &p("99999999999999999999999999999999999999999")).is_err());
        assert_eq!(bind_client_side("SELECT {n:Int8}", &p("-128")).unwrap(), "SELECT CAST(-128 AS Int8)");
        assert_eq!(
            bind_client_side("SELECT {n:UInt64}", &p("18446744073709551615")).unwrap(),
            "SELECT CAST(18446744073709551615 AS UInt64)"
        );
        assert_eq!(bind_client_side("SELECT {n:Int8}", &p("NULL")).unwrap(), "SELECT CAST(NULL AS Int8)");
        assert_eq!(bind_client_side("SELECT 1 LIMIT {s:String}", &params).unwrap(), "SELECT 1 LIMIT CAST('x' AS String)");
    }

    #[test]
    fn literals_and_texts() {
        assert_eq!("it's \\ a\n".sql_literal(), "'it\\'s \\\\ a\\n'");
        assert_eq!("it's \\ a\n".param_text(), "it's \\\\ a\\n");
        assert_eq!(Some(5u8).sql_literal(), "5");
        assert_eq!(vec![1i32, -2].param_text(), "[1,-2]");
        assert_eq!(None::<u8>.sql_literal(), "NULL");
        assert_eq!(vec!["a'", "b"].sql_literal(), "['a\\'','b']");
        assert_eq!(1.5f64.sql_literal(), "1.5");
        assert_eq!(f64::NEG_INFINITY.param_text(), "-inf");
        assert_eq!(5e-324f64.sql_literal(), "reinterpretAsFloat64(unhex('0100000000000000'))");
        assert_eq!((-1e-45f32).sql_literal(), "reinterpretAsFloat32(unhex('01000080'))");
        assert_eq!(5e-324f64.param_text(), "5e-324", "newer servers parse it");
    }

    #[test]
    fn binds_outside_literals_and_comments() {
        let params = vec![("id".to_string(), "42".to_string()), ("s".to_string(), "'x'".to_string())];
        let sql = "SELECT {id:UInt64}, '{id:UInt64}', `{s:String}` -- {s:String}\n, {s: String} /* {id:UInt8} */";
        assert_eq!(
            bind_client_side(sql, &params).unwrap(),
            "SELECT CAST(42 AS UInt64), '{id:UInt64}', `{s:String}` -- {s:String}\n, CAST('x' AS String) /* {id:UInt8} */"
        );
        assert!(bind_client_side("SELECT {nope:UInt8}", &params).is_err());
        assert!(bind_client_side("SELECT {id:UInt8", &params).is_err());
        // Braces that are not placeholders stay.
        assert_eq!(bind_client_side("SELECT {}", &params).unwrap(), "SELECT {}");
    }
}
