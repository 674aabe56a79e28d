//! The header of an empty result over HTTP.
//!
//! Over the native protocol a query's result starts with a header block (its columns, no
//! rows), so an empty result still has a schema. `FORMAT Native` over HTTP writes nothing at
//! all for an empty result (18.16 as 26.9), which would leave the caller with no columns:
//! `query_arrow` of `... WHERE 0` an empty schema, an insert's `SELECT * FROM t LIMIT 0`
//! no columns to insert into. So when a `SELECT`/`WITH` query's body ends without a block,
//! chwire asks the server for the result's columns (`DESCRIBE TABLE (<query>)`, on the side
//! connection that zones.rs uses) and hands out that header block before the end of the
//! stream, as the native protocol does. A query that cannot be described keeps no header.

use chwire_proto::{Block, Column, ColumnData, DataType};

/// Whether `sql` is a query whose result has columns: its first keyword, as the core's lexer
/// reads it (after whitespace, comments and opening parentheses), is `SELECT` or `WITH`.
pub(crate) fn returns_rows(sql: &str) -> bool {
    chwire_proto::sql::first_keyword(sql).is_some_and(|w| w.eq_ignore_ascii_case("SELECT") || w.eq_ignore_ascii_case("WITH"))
}

/// A block of no rows with the described columns (`None` if a type is not one chwire knows).
pub(crate) fn header_block(columns: &[(String, String)]) -> Option<Block> {
    let mut b = Block::new();
    for (name, ty) in columns {
        let ty = DataType::parse(ty).ok()?;
        let data = ColumnData::empty_for(&ty).ok()?;
        b.push(name.clone(), Column::new(ty, data).ok()?).ok()?;
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_with_rows_are_told_from_statements() {
        for sql in
            ["SELECT 1", "  select 1", "(SELECT 1) UNION ALL (SELECT 2)", "WITH 1 AS x SELECT x", "-- c\nSELECT 1", "/* c */ SELECT 1"]
        {
            assert!(returns_rows(sql), "{sql}");
        }
        for sql in
            ["INSERT INTO t SELECT 1", "CREATE TABLE t (x UInt8) ENGINE = Memory", "SHOW TABLES", "-- SELECT", "/* SELECT", "SELECTED", ""]
        {
            assert!(!returns_rows(sql), "{sql}");
        }
    }

    #[test]
    fn a_header_block_has_the_columns_and_no_rows() {
        let b = header_block(&[("n".into(), "UInt64".into()), ("t".into(), "DateTime('Asia/Tokyo')".into())]).unwrap();
        assert_eq!(b.rows(), 0);
        let names: Vec<_> = b.columns().iter().map(|(n, c)| (n.as_str(), c.data_type().to_string())).collect();
        assert_eq!(names, vec![("n", "UInt64".to_string()), ("t", "DateTime('Asia/Tokyo')".to_string())]);
        assert!(header_block(&[("x".into(), "NoSuchType".into())]).is_none());
    }
}
