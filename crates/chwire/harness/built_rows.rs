//! Writes a Native file of columns built from rows — `#[derive(Row)]` structs and dynamic
//! values, including the types the 18.16 rig lacks — for the oracle suite: ClickHouse
//! (chdb) must read them back to the values chwire means.
//!
//! `cargo run --release -p chwire --example built_rows -- OUT.native`

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use chwire::row::{block_from_values, block_of, Decimal, Decimal256, I256, U256};
use chwire::{DataType, Row, Value};

#[derive(Row)]
struct Modern<'a> {
    id: u64,
    m: BTreeMap<String, Vec<i32>>,
    big: i128,
    ubig: u128,
    i256: I256,
    u256: U256,
    v4: Ipv4Addr,
    v6: Ipv6Addr,
    flag: bool,
    d256: Decimal256,
    d128: Decimal,
    lc_num: Option<u32>,
    name: &'a str,
    t64: i64,
    pairs: Vec<(String, Option<u8>)>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: built_rows OUT.native")?;
    let ty = |s: &str| DataType::parse(s).expect("a valid type name");
    let names: Vec<String> = (0..4).map(|i| format!("n{i} 'q' \\ ü")).collect();
    let rows: Vec<Modern<'_>> = (0..4u64)
        .map(|i| Modern {
            id: i,
            m: (0..i).map(|k| (format!("k{k}"), vec![k as i32, -1])).collect(),
            big: i128::MIN + i as i128,
            ubig: u128::MAX - u128::from(i),
            i256: I256::from(-(i as i128) * 1_000_000_000_000),
            u256: U256::from(u128::MAX),
            v4: Ipv4Addr::new(192, 168, 0, i as u8),
            v6: Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, i as u16),
            flag: i % 2 == 0,
            d256: Decimal256 { raw: I256::from(10i128.pow(37) * if i % 2 == 0 { 1 } else { -1 }), scale: 20 },
            d128: Decimal::new(-123_456 + i as i128, 3),
            lc_num: (i != 2).then_some(i as u32 * 1000),
            name: &names[i as usize],
            t64: 1_700_000_000_123_456 + i as i64,
            pairs: vec![("a".into(), Some(i as u8)), ("b".into(), None)],
        })
        .collect();
    let cols = [
        ("id", ty("UInt64")),
        ("m", ty("Map(String, Array(Int32))")),
        ("big", ty("Int128")),
        ("ubig", ty("UInt128")),
        ("i256", ty("Int256")),
        ("u256", ty("UInt256")),
        ("v4", ty("IPv4")),
        ("v6", ty("IPv6")),
        ("flag", ty("Bool")),
        ("d256", ty("Decimal(60, 20)")),
        ("d128", ty("Decimal(20, 3)")),
        ("lc_num", ty("LowCardinality(Nullable(UInt32))")),
        ("name", ty("LowCardinality(String)")),
        ("t64", ty("DateTime64(6, 'Asia/Tokyo')")),
        ("pairs", ty("Map(LowCardinality(String), Nullable(UInt8))")),
    ];
    let typed = block_of(&cols, &rows)?;

    let dyn_cols = [("v", ty("Variant(Array(UInt8), String, UInt64)")), ("d", ty("Dynamic")), ("j", ty("JSON"))];
    let dyn_rows: Vec<Vec<Value<'_>>> = vec![
        vec![Value::UInt(5), Value::UInt(5), Value::JsonText(br#"{"a":1,"s":"x"}"#)],
        vec![Value::String(b"x"), Value::String(b"it's"), Value::String(br#"{"b":{"c":[1,2]}}"#)],
        vec![Value::Array(vec![Value::UInt(1), Value::UInt(255)]), Value::Null, Value::JsonText(b"{}")],
        vec![Value::Null, Value::Array(vec![Value::Float64(1.5), Value::Null]), Value::JsonText(br#"{"a":-2}"#)],
    ];
    let dynamic = block_from_values(&dyn_cols, dyn_rows.iter().map(Vec::as_slice))?;

    let mut bytes = Vec::new();
    chwire::proto::native::encode_block(&typed, &mut bytes);
    let mut second = Vec::new();
    chwire::proto::native::encode_block(&dynamic, &mut second);
    std::fs::write(&out, bytes)?;
    let dyn_out = out.replace(".native", "-dynamic.native");
    std::fs::write(&dyn_out, second)?;
    eprintln!("wrote {} typed rows to {out} and {} dynamic rows to {dyn_out}", typed.rows(), dynamic.rows());
    Ok(())
}
