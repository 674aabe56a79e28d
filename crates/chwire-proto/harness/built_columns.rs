//! Writes a Native file of columns built from scratch with chwire's builders, for the oracle
//! suite: ClickHouse (chdb) must read them back to the values chwire means.
//!
//! `cargo run --release -p chwire-proto --example built_columns -- OUT.native`

use chwire_proto::column::{Column, ColumnData, StringColumn};
use chwire_proto::{native, Block, DataType};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: built_columns OUT.native")?;
    let strings = |v: &[&str]| Column::from(v.iter().copied().collect::<StringColumn>());
    let block = Block::new()
        .with("id", Column::from(vec![1u64, 2, 3]))?
        .with("i128", Column::from(vec![i128::MIN, 0, i128::MAX]))?
        .with(
            "dec",
            Column::with_type_name("Decimal(38, 4)", ColumnData::Int128(vec![-12345, 0, 10_000_000_000_000_000_000_000_000_000]))?,
        )?
        .with("d64", Column::with_type_name("DateTime64(3, 'UTC')", ColumnData::Int64(vec![0, 1_600_000_000_123, -1]))?)?
        .with("ip", Column::with_type_name("IPv4", ColumnData::UInt32(vec![0x7f000001, 0, u32::MAX]))?)?
        .with("n", Column::nullable(Column::from(vec![7i32, 0, -7]), &[false, true, false])?)?
        .with("arr", Column::array(&[2, 0, 1], strings(&["a", "b'", "ü"]))?)?
        .with("arrn", Column::array(&[1, 2, 0], Column::nullable(Column::from(vec![1.5f64, 0.0, -2.25]), &[false, true, false])?)?)?
        .with("m", Column::map(&[1, 0, 2], strings(&["k", "x", "y"]), Column::from(vec![10u8, 20, 30]))?)?
        .with("t", Column::tuple(vec![(Some("a".into()), Column::from(vec![1u16, 2, 3])), (Some("b".into()), strings(&["p", "", "q"]))])?)?
        .with("lc", Column::low_cardinality_strings([Some(&b"red"[..]), Some(b"blue"), Some(b"red")], false))?
        .with("lcn", Column::low_cardinality_strings([None, Some(&b"x"[..]), Some(b"")], true))?
        .with("aalc", Column::array(&[2, 1, 0], Column::low_cardinality_strings([Some(&b"u"[..]), Some(b"v"), Some(b"u")], false))?)?;
    assert_eq!(block.column("t").unwrap().data_type(), &DataType::parse("Tuple(a UInt16, b String)")?);
    let mut bytes = Vec::new();
    native::encode_block(&block, &mut bytes);
    std::fs::write(&out, bytes)?;
    eprintln!("wrote {} rows x {} columns to {out}", block.rows(), block.num_columns());
    Ok(())
}
