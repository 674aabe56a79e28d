//! Blocks and columns built by hand through the public API: what does not fit is an error or
//! an empty column, never a panic or a wrong row count.

use chwire_proto::column::{ArrayColumn, ColumnData};
use chwire_proto::{Block, Column, DataType};

#[test]
fn a_block_without_columns_keeps_its_row_count() {
    let mut b = Block::without_columns(3);
    assert!(b.push("a", Column::from(vec![1u64, 2, 3, 4, 5])).is_err());
    b.push("a", Column::from(vec![1u64, 2, 3])).unwrap();
    assert_eq!(b.rows(), 3);
    // A block of no rows and no columns takes its first column's rows.
    let mut b = Block::new();
    b.push("a", Column::from(vec![1u8, 2])).unwrap();
    assert_eq!(b.rows(), 2);
}

#[test]
fn malformed_column_data_has_no_rows_rather_than_a_panic() {
    assert_eq!(ColumnData::Fixed { width: 0, data: vec![1, 2, 3] }.len(), 0);
    let no_offsets = ColumnData::Array(Box::new(ArrayColumn { offsets: Vec::new(), values: ColumnData::UInt8(Vec::new()) }));
    assert_eq!(no_offsets.len(), 0);
}

#[test]
fn a_capacity_hint_beyond_any_block_reserves_no_more_than_one() {
    for ty in ["FixedString(1000000)", "UInt64", "Array(String)", "Nullable(UInt256)"] {
        let t = DataType::parse(ty).unwrap();
        let c = ColumnData::with_capacity_for(&t, usize::MAX).unwrap();
        assert_eq!(c.len(), 0, "{ty}");
    }
}
