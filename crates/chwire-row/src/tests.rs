//! Rows through blocks, without a server: every field type written by the builders and
//! read back, and the errors for rows that do not fit.

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, Ipv6Addr};

use super::*;
use chwire_derive::Row;
use chwire_proto::{Column, StringColumn, Value};

fn ty(s: &str) -> DataType {
    DataType::parse(s).unwrap()
}

#[derive(Row, Debug, PartialEq, Clone, Default)]
struct Inner {
    #[row(rename = "in.a")]
    a: i32,
    #[row(rename = "in.b")]
    b: Option<String>,
}

#[derive(Row, Debug, PartialEq, Clone)]
struct Wide {
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    u128_: u128,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    i128_: i128,
    f32_: f32,
    f64_: f64,
    flag: bool,
    s: String,
    bytes: Vec<u8>,
    fixed: [u8; 4],
    opt: Option<u64>,
    arr: Vec<Option<String>>,
    nested_arr: Vec<Vec<u16>>,
    map: BTreeMap<String, u64>,
    hmap: HashMap<u8, Vec<i64>>,
    pairs: Vec<(String, Option<i32>)>,
    tup: (u8, String, Option<f64>),
    v4: Ipv4Addr,
    v6: Ipv6Addr,
    big: I256,
    ubig: U256,
    dec: Decimal,
    dec256: Decimal256,
    lc: String,
    lc_opt: Option<String>,
    lc_arr: Vec<String>,
    enm: String,
    enm_val: i8,
    date: u16,
    dt: u32,
    dt64: i64,
    #[row(flatten)]
    inner: Inner,
    #[row(skip)]
    skipped: Vec<String>,
    nested: Vec<(u32, String)>,
    point: (f64, f64),
}

fn wide_columns() -> Vec<(&'static str, DataType)> {
    [
        ("u8_", "UInt8"),
        ("u16_", "UInt16"),
        ("u32_", "UInt32"),
        ("u64_", "UInt64"),
        ("u128_", "UInt128"),
        ("i8_", "Int8"),
        ("i16_", "Int16"),
        ("i32_", "Int32"),
        ("i64_", "Int64"),
        ("i128_", "Int128"),
        ("f32_", "Float32"),
        ("f64_", "Float64"),
        ("flag", "Bool"),
        ("s", "String"),
        ("bytes", "String"),
        ("fixed", "FixedString(4)"),
        ("opt", "Nullable(UInt64)"),
        ("arr", "Array(Nullable(String))"),
        ("nested_arr", "Array(Array(UInt16))"),
        ("map", "Map(String, UInt64)"),
        ("hmap", "Map(UInt8, Array(Int64))"),
        ("pairs", "Map(LowCardinality(String), Nullable(Int32))"),
        ("tup", "Tuple(a UInt8, b String, c Nullable(Float64))"),
        ("v4", "IPv4"),
        ("v6", "IPv6"),
        ("big", "Int256"),
        ("ubig", "UInt256"),
        ("dec", "Decimal(18, 4)"),
        ("dec256", "Decimal(50, 3)"),
        ("lc", "LowCardinality(String)"),
        ("lc_opt", "LowCardinality(Nullable(String))"),
        ("lc_arr", "Array(LowCardinality(String))"),
        ("enm", "Enum8('a' = 1, 'it''s' = -2)"),
        ("enm_val", "Enum8('a' = 1, 'it''s' = -2)"),
        ("date", "Date"),
        ("dt", "DateTime('Europe/Berlin')"),
        ("dt64", "DateTime64(3, 'UTC')"),
        ("in.a", "Int32"),
        ("in.b", "Nullable(String)"),
        ("nested", "Nested(x UInt32, y String)"),
        ("point", "Point"),
    ]
    .into_iter()
    .map(|(n, t)| (n, ty(t)))
    .collect()
}

fn sample(i: u64) -> Wide {
    let mut hmap = HashMap::new();
    hmap.insert(i as u8, vec![-(i as i64), i64::MAX]);
    Wide {
        u8_: i as u8,
        u16_: u16::MAX,
        u32_: i as u32 * 7,
        u64_: u64::MAX - i,
        u128_: u128::MAX - u128::from(i),
        i8_: -(i as i8),
        i16_: i16::MIN,
        i32_: -7,
        i64_: i64::MIN + i as i64,
        i128_: i128::MIN,
        f32_: 1.5,
        f64_: if i % 2 == 0 { f64::NAN } else { -0.0 },
        flag: i % 2 == 1,
        s: format!("row {i} ✓ 'quoted' \\ \n"),
        bytes: vec![0, 255, i as u8],
        fixed: *b"ab\0\0",
        opt: (i % 3 != 0).then_some(i),
        arr: vec![Some("x".into()), None, Some(String::new())],
        nested_arr: vec![vec![], vec![1, 2], vec![3]],
        map: [("k".to_string(), i), ("z".to_string(), 0)].into_iter().collect(),
        hmap,
        pairs: vec![("p".into(), None), ("q".into(), Some(-1))],
        tup: (i as u8, "t".into(), None),
        v4: Ipv4Addr::new(10, 0, 0, i as u8),
        v6: "2001:db8::ff".parse().unwrap(),
        big: I256::from(-(i as i128) - 1),
        ubig: U256::from(u128::MAX),
        dec: Decimal::new(-123_456_789 - i as i128, 4),
        dec256: Decimal256 { raw: I256::from(10i128.pow(30) + i as i128), scale: 3 },
        lc: ["red", "green", ""][i as usize % 3].into(),
        lc_opt: [Some("x".to_string()), None, Some(String::new())][i as usize % 3].clone(),
        lc_arr: vec!["a".into(), "b".into(), "a".into()],
        enm: ["a", "it's"][i as usize % 2].into(),
        enm_val: [1, -2][i as usize % 2],
        date: 19000 + i as u16,
        dt: 1_700_000_000 + i as u32,
        dt64: -1_000 * i as i64,
        inner: Inner { a: i as i32, b: (i % 2 == 0).then(|| format!("b{i}")) },
        skipped: Vec::new(),
        nested: vec![(1, "one".into()), (i as u32, "i".into())],
        point: (i as f64, -1.25),
    }
}

fn same(a: &Wide, b: &Wide) {
    let mut a = a.clone();
    let mut b = b.clone();
    // NaN != NaN: compare the bits.
    assert_eq!(a.f64_.to_bits(), b.f64_.to_bits());
    a.f64_ = 0.0;
    b.f64_ = 0.0;
    assert_eq!(a, b);
}

#[test]
fn every_field_type_round_trips_through_a_block() {
    let rows: Vec<Wide> = (0..7).map(sample).collect();
    let block = block_of(&wide_columns(), &rows).unwrap();
    assert_eq!(block.rows(), 7);
    // LowCardinality columns were dictionary-encoded.
    assert!(matches!(block.column("lc").unwrap().data(), ColumnData::LowCardinality(_)));
    let back: Vec<Wide> = rows_of(&block).unwrap();
    for (a, b) in rows.iter().zip(&back) {
        same(a, b);
    }
    // BFloat16 reads into f32 exactly.
    #[derive(Row)]
    struct B {
        b: f32,
    }
    let bf = Block::new().with("b", Column::new(ty("BFloat16"), ColumnData::UInt16(vec![0x3fc0, 0xc040])).unwrap()).unwrap();
    assert_eq!(rows_of::<B>(&bf).unwrap().iter().map(|r| r.b).collect::<Vec<_>>(), [1.5, -3.0]);
    // AggregateFunction states read as opaque bytes (sumState of UInt64: 8 bytes each).
    #[derive(Row)]
    struct Agg<'a> {
        st: &'a [u8],
        owned: Vec<u8>,
    }
    let states = ColumnData::AggregateState(StringColumn::from_iter([7u64.to_le_bytes(), 9u64.to_le_bytes()]));
    let agg_ty = ty("AggregateFunction(sum, UInt64)");
    let agg = Block::new()
        .with("st", Column::new(agg_ty.clone(), states.clone()).unwrap())
        .unwrap()
        .with("owned", Column::new(agg_ty, states).unwrap())
        .unwrap();
    let plan = plan_for::<Agg<'_>>(&agg).unwrap();
    let r = <Agg<'_> as Row>::read(&agg, &plan, 0, 1).unwrap();
    assert_eq!((r.st, r.owned.as_slice()), (&9u64.to_le_bytes()[..], &9u64.to_le_bytes()[..]));
    // The dynamic view agrees with the typed one.
    let col = block.column("map").unwrap();
    assert_eq!(col.value(1), Value::Map(vec![(Value::String(b"k"), Value::UInt(1)), (Value::String(b"z"), Value::UInt(0))]));
    assert_eq!(block.column("dec").unwrap().value(0), Value::Decimal { raw: -123_456_789, scale: 4 });
    assert_eq!(block.column("enm").unwrap().value(1), Value::Enum("it's", -2));
}

#[derive(Row, Debug, PartialEq)]
struct Borrowed<'a> {
    s: &'a str,
    b: &'a [u8],
    fixed: &'a [u8],
    e: &'a str,
    n: Option<&'a str>,
    lc: &'a str,
    v: Value<'a>,
}

#[test]
fn borrowed_fields_point_into_the_block() {
    let block = Block::new()
        .with("s", Column::from(vec!["hello", "wörld"]))
        .unwrap()
        .with("b", Column::from(vec!["\u{0}x", ""]))
        .unwrap()
        .with("fixed", Column::new(ty("FixedString(2)"), ColumnData::Fixed { width: 2, data: b"ab\0c".to_vec() }).unwrap())
        .unwrap()
        .with("e", Column::new(ty("Enum16('x' = 300, 'y' = -1)"), ColumnData::Int16(vec![300, -1])).unwrap())
        .unwrap()
        .with("n", Column::nullable(Column::from(vec!["a", ""]), &[false, true]).unwrap())
        .unwrap()
        .with("lc", Column::low_cardinality_strings([Some(&b"k"[..]), Some(b"k")], false))
        .unwrap()
        .with("v", Column::from(vec![1u32, 2]))
        .unwrap();
    let plan = plan_for::<Borrowed<'_>>(&block).unwrap();
    let r0 = <Borrowed<'_> as Row>::read(&block, &plan, 0, 0).unwrap();
    assert_eq!(r0, Borrowed { s: "hello", b: b"\0x", fixed: b"ab", e: "x", n: Some("a"), lc: "k", v: Value::UInt(1) });
    let r1 = <Borrowed<'_> as Row>::read(&block, &plan, 0, 1).unwrap();
    assert_eq!((r1.s, r1.fixed, r1.e, r1.n), ("wörld", &b"\0c"[..], "y", None));
    let data = match block.column("s").unwrap().data() {
        ColumnData::String(s) => s.data().as_ptr_range(),
        _ => unreachable!(),
    };
    assert!(data.contains(&r1.s.as_ptr()), "the &str borrows the column's buffer");
}

#[derive(Row, Debug, PartialEq)]
struct Who<'a> {
    r#type: &'a str,
    #[row(rename = "user name")]
    name: Option<&'a str>,
}

#[derive(Row, Debug, PartialEq)]
struct Outer<'a> {
    id: u64,
    #[row(flatten)]
    who: Who<'a>,
}

#[test]
fn borrowed_flattened_structs_and_raw_identifiers() {
    let block = Block::new()
        .with("user name", Column::nullable(Column::from(vec!["ann", ""]), &[false, true]).unwrap())
        .unwrap()
        .with("id", Column::from(vec![1u64, 2]))
        .unwrap()
        .with("type", Column::from(vec!["admin", "guest"]))
        .unwrap();
    let plan = plan_for::<Outer<'_>>(&block).unwrap();
    assert_eq!(plan, [1, 2, 0]);
    let r = <Outer<'_> as Row>::read(&block, &plan, 0, 0).unwrap();
    assert_eq!(r, Outer { id: 1, who: Who { r#type: "admin", name: Some("ann") } });
    let mut names = Vec::new();
    <Outer<'_> as Row>::column_names(&mut names);
    assert_eq!(names, ["id", "type", "user name"]);
    // And back: a block in the struct's column order.
    let cols = [("id", ty("UInt64")), ("type", ty("String")), ("user name", ty("Nullable(String)"))];
    let rows = [r, Outer { id: 2, who: Who { r#type: "guest", name: None } }];
    let built = block_of(&cols, &rows).unwrap();
    assert_eq!(built.column("user name").unwrap().value(1), Value::Null);
    assert_eq!(built.column("type").unwrap().value(0), Value::String(b"admin"));
}

#[derive(Row, Debug)]
#[allow(dead_code)]
struct NeedsId {
    id: u64,
    name: String,
}

#[derive(Row, Debug)]
#[allow(dead_code)]
struct NotOptional {
    name: String,
}

fn row_err(e: crate::Error) -> String {
    match e {
        crate::Error::Row(m) => m,
        other => panic!("expected a row error, got {other:?}"),
    }
}

#[test]
fn mismatches_name_the_column_and_both_types() {
    let block = Block::new().with("id", Column::from(vec![1i32])).unwrap().with("name", Column::from(vec!["a"])).unwrap();
    let m = row_err(plan_for::<NeedsId>(&block).unwrap_err());
    assert!(m.contains("`id`") && m.contains("Int32") && m.contains("u64") && m.contains("NeedsId"), "{m}");
    // Narrower unsigned integers widen losslessly.
    let block = Block::new().with("id", Column::from(vec![7u32])).unwrap().with("name", Column::from(vec!["a"])).unwrap();
    assert_eq!(rows_of::<NeedsId>(&block).unwrap()[0].id, 7);

    let block = Block::new().with("name", Column::from(vec!["a"])).unwrap();
    let m = row_err(plan_for::<NeedsId>(&block).unwrap_err());
    assert!(m.contains("`id`") && m.contains("not in the result") && m.contains("name"), "{m}");

    let block = Block::new().with("name", Column::nullable(Column::from(vec!["a"]), &[true]).unwrap()).unwrap();
    let m = row_err(plan_for::<NotOptional>(&block).unwrap_err());
    assert!(m.contains("Nullable(String)") && m.contains("String"), "{m}");
    let lc = Block::new().with("name", Column::low_cardinality_strings([None], true)).unwrap();
    assert!(plan_for::<NotOptional>(&lc).is_err());

    // Invalid UTF-8 into a &str is an error at that row, not a panic.
    let bad = Block::new().with("name", Column::from(StringColumn::from_iter([&b"\xff"[..]]))).unwrap();
    let m = row_err(rows_of::<NotOptional>(&bad).unwrap_err());
    assert!(m.contains("UTF-8") && m.contains("row 0"), "{m}");
}

#[test]
fn writes_check_values_and_undo_partial_rows() {
    #[derive(Row)]
    struct W<'a> {
        a: u8,
        b: &'a str,
        c: Option<u8>,
    }
    let cols = [("a", ty("UInt8")), ("b", ty("FixedString(2)")), ("c", ty("UInt8"))];
    let ok = [W { a: 1, b: "xy", c: Some(1) }];
    let block = block_of(&cols, &ok).unwrap();
    assert_eq!(block.column("b").unwrap().value(0), Value::FixedString(b"xy"));
    for bad in [W { a: 1, b: "xyz", c: Some(1) }, W { a: 1, b: "x", c: None }] {
        let m = row_err(block_of(&cols, [&ok[0], &bad]).unwrap_err());
        assert!(m.contains("FixedString(2)") || m.contains("NULL"), "{m}");
    }
    // A None Array or Map is the empty one (ClickHouse has neither as Nullable): the core's rule.
    #[derive(Row)]
    struct L {
        l: Option<Vec<i32>>,
        m: Option<Vec<(String, u8)>>,
    }
    let lcols = [("l", ty("Array(Int32)")), ("m", ty("Map(String, UInt8)"))];
    let block = block_of(&lcols, &[L { l: None, m: None }, L { l: Some(vec![1]), m: None }]).unwrap();
    assert_eq!(block.column("l").unwrap().value(0), Value::Array(vec![]));
    assert_eq!(block.column("m").unwrap().value(1), Value::Map(vec![]));
    // The builders undo a partly written row.
    let mut b = Builders::new(cols.iter().map(|(n, t)| (n.to_string(), t.clone()))).unwrap();
    ok[0].write(&mut b, 0).unwrap();
    assert!(W { a: 2, b: "abc", c: Some(1) }.write(&mut b, 0).is_err());
    for c in &mut b.cols {
        c.truncate(1).unwrap();
    }
    let block = b.take_block().unwrap();
    assert_eq!(block.rows(), 1);

    // Enum values and names are checked against the type.
    #[derive(Row)]
    struct E {
        e: i8,
    }
    let m = row_err(block_of(&[("e", ty("Enum8('a' = 1)"))], &[E { e: 2 }]).unwrap_err());
    assert!(m.contains("not a value"), "{m}");
    // Decimals rescale only when exact and respect the precision.
    #[derive(Row)]
    struct D {
        d: Decimal,
    }
    let dcol = [("d", ty("Decimal(5, 2)"))];
    assert_eq!(
        block_of(&dcol, &[D { d: Decimal::new(15, 1) }]).unwrap().column("d").unwrap().value(0),
        Value::Decimal { raw: 150, scale: 2 }
    );
    assert!(block_of(&dcol, &[D { d: Decimal::new(1234, 3) }]).is_err());
    assert!(block_of(&dcol, &[D { d: Decimal::new(100_000, 2) }]).is_err());
    // A type that cannot be written is refused before any row.
    let m = row_err(block_of(&[("d", ty("String"))], &[D { d: Decimal::new(1, 0) }]).unwrap_err());
    assert!(m.contains("`d`") && m.contains("Decimal"), "{m}");
}

#[test]
fn dynamic_values_build_blocks() {
    let cols =
        [("id", ty("UInt16")), ("tags", ty("Array(LowCardinality(String))")), ("n", ty("Nullable(Int64)")), ("e", ty("Enum8('a' = 1)"))];
    let rows: Vec<Vec<Value<'_>>> = vec![
        vec![Value::UInt(7), Value::Array(vec![Value::String(b"x")]), Value::Null, Value::String(b"a")],
        vec![Value::Int(8), Value::Array(vec![]), Value::Int(-3), Value::Enum("a", 1)],
    ];
    let block = block_from_values(&cols, rows.iter().map(Vec::as_slice)).unwrap();
    assert_eq!(block.column("id").unwrap().value(1), Value::UInt(8));
    assert_eq!(block.column("n").unwrap().value(1), Value::Int(-3));
    assert_eq!(block.column("tags").unwrap().value(0), Value::Array(vec![Value::String(b"x")]));
    // Variant, Dynamic and JSON (as text) from dynamic values.
    let cols2 = [("v", ty("Variant(Array(UInt8), String, UInt64)")), ("d", ty("Dynamic")), ("j", ty("JSON"))];
    let rows2: Vec<Vec<Value<'_>>> = vec![
        vec![Value::UInt(5), Value::UInt(5), Value::JsonText(br#"{"a":1}"#)],
        vec![Value::String(b"x"), Value::String(b"x"), Value::String(br#"{"b":{"c":"d"}}"#)],
        vec![Value::Array(vec![Value::UInt(1)]), Value::Null, Value::JsonText(b"{}")],
        vec![Value::Null, Value::Array(vec![Value::Float64(1.5), Value::Null]), Value::JsonText(b"{}")],
    ];
    let block = block_from_values(&cols2, rows2.iter().map(Vec::as_slice)).unwrap();
    let v = block.column("v").unwrap();
    assert_eq!(
        (0..4).map(|i| v.value(i)).collect::<Vec<_>>(),
        [Value::UInt(5), Value::String(b"x"), Value::Array(vec![Value::UInt(1)]), Value::Null]
    );
    let d = block.column("d").unwrap();
    assert_eq!(
        (0..4).map(|i| d.value(i)).collect::<Vec<_>>(),
        [Value::UInt(5), Value::String(b"x"), Value::Null, Value::Array(vec![Value::Float64(1.5), Value::Null])]
    );
    let ColumnData::Dynamic(dc) = d.data() else { panic!() };
    let names: Vec<String> =
        dc.types.iter().enumerate().map(|(i, t)| if Some(i) == dc.shared { "SharedVariant".into() } else { t.to_string() }).collect();
    assert_eq!(names, ["Array(Nullable(Float64))", "SharedVariant", "String", "UInt64"], "sorted by name, as on the wire");
    assert_eq!(block.column("j").unwrap().value(1), Value::JsonText(br#"{"b":{"c":"d"}}"#));
    let bad = [Value::Float64(1.0), Value::Null, Value::JsonText(b"{}")];
    let m = row_err(block_from_values(&cols2, [&bad[..]]).unwrap_err());
    assert!(m.contains("fits none") && m.contains("`v`"), "{m}");

    let too_big = [Value::UInt(70_000), Value::Array(vec![]), Value::Null, Value::String(b"a")];
    let m = row_err(block_from_values(&cols, [&too_big[..]]).unwrap_err());
    assert!(m.contains("70000") && m.contains("`id`"), "{m}");
}

/// A failed row leaves nothing behind, also inside arrays, tuples, maps and variants.
#[test]
fn a_refused_row_leaves_no_partial_values() {
    #[derive(Row)]
    struct R {
        tags: Vec<String>,
        opt: Vec<Option<u8>>,
        t: (u8, String),
        m: Vec<(String, u8)>,
    }
    let cols = [
        ("tags", ty("Array(Enum8('a' = 1, 'b' = 2))")),
        ("opt", ty("Array(UInt8)")),
        ("t", ty("Tuple(UInt8, Enum8('x' = 1))")),
        ("m", ty("Map(String, UInt8)")),
    ];
    let mut b = Builders::new(cols.iter().map(|(n, t)| (n.to_string(), t.clone()))).unwrap();
    let row = |tags: &[&str], opt: Vec<Option<u8>>, t: &str, m: &[(&str, u8)]| R {
        tags: tags.iter().map(|s| s.to_string()).collect(),
        opt,
        t: (7, t.to_string()),
        m: m.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    };
    b.append(|b| row(&["a"], vec![Some(1)], "x", &[("k", 1)]).write(b, 0)).unwrap();
    for bad in [row(&["b", "nope"], vec![], "x", &[]), row(&["b"], vec![Some(1), None], "x", &[]), row(&["b"], vec![Some(1)], "y", &[])] {
        assert!(b.append(|b| bad.write(b, 0)).is_err());
    }
    b.append(|b| row(&["a"], vec![Some(5)], "x", &[("q", 9)]).write(b, 0)).unwrap();
    let block = b.take_block().unwrap();
    assert_eq!(block.rows(), 2);
    assert_eq!(block.column("tags").unwrap().value(1), Value::Array(vec![Value::Enum("a", 1)]));
    assert_eq!(block.column("opt").unwrap().value(1), Value::Array(vec![Value::UInt(5)]));
    assert_eq!(block.column("m").unwrap().value(1), Value::Map(vec![(Value::String(b"q"), Value::UInt(9))]));
}

#[test]
fn values_convert_exactly_or_not_at_all() {
    let f32_col = [("f", ty("Float32"))];
    assert!(block_from_values(&f32_col, [&[Value::Float64(0.5)][..]]).is_ok());
    assert!(block_from_values(&f32_col, [&[Value::Float64(0.1)][..]]).is_err());
    assert!(block_from_values(&f32_col, [&[Value::Float64(1e300)][..]]).is_err());
    let minus_one = [0xffu8; 32];
    assert!(block_from_values(&[("u", ty("UInt256"))], [&[Value::Int256(&minus_one)][..]]).is_err());
    assert!(block_from_values(&[("i", ty("Int256"))], [&[Value::Int256(&minus_one)][..]]).is_ok());
    // A Variant takes the value's own type first.
    let v = block_from_values(&[("v", ty("Variant(Bool, UInt64)"))], [&[Value::UInt(1)][..]]).unwrap();
    assert_eq!(v.column("v").unwrap().value(0), Value::UInt(1));
    // An integer goes into a float that holds it exactly (a Variant without an integer type
    // takes it as its float), never rounded.
    let v = block_from_values(&[("v", ty("Array(Variant(Float64, String))"))], [&[Value::Array(vec![Value::Int(1)])][..]]).unwrap();
    assert_eq!(v.column("v").unwrap().value(0), Value::Array(vec![Value::Float64(1.0)]));
    assert!(block_from_values(&[("f", ty("Float64"))], [&[Value::Int((1 << 53) + 1)][..]]).is_err());
    assert!(block_from_values(&[("f", ty("Float32"))], [&[Value::Int(1 << 24)][..]]).is_ok());
    assert!(block_from_values(&[("f", ty("Float32"))], [&[Value::Int((1 << 24) + 1)][..]]).is_err());
    assert!(block_from_values(&[("f", ty("Float64"))], [&[Value::Int128(i128::MAX)][..]]).is_err());
    // Decimal256 precision.
    #[derive(Row)]
    struct D {
        d: Decimal256,
    }
    let mut big = [0u8; 32];
    big[20] = 1; // 2^160, 49 digits
    assert!(block_of(&[("d", ty("Decimal(40, 0)"))], &[D { d: Decimal256 { raw: I256(big), scale: 0 } }]).is_err());
    assert!(block_of(&[("d", ty("Decimal(60, 0)"))], &[D { d: Decimal256 { raw: I256(big), scale: 0 } }]).is_ok());
}

#[test]
fn dynamic_builders_survive_reuse_after_a_block() {
    let dty = ty("Dynamic");
    let mut col = ColumnData::empty_for(&dty).unwrap();
    Value::String(b"a").write(&dty, &mut col).unwrap();
    chwire_proto::column::finish_dynamic(&mut col);
    Column::new(dty.clone(), col.clone()).unwrap();
    // The inserter keeps the builder (SharedVariant included) for the next block.
    col.truncate(0).unwrap();
    Value::String(b"b").write(&dty, &mut col).unwrap();
    Value::UInt(3).write(&dty, &mut col).unwrap();
    chwire_proto::column::finish_dynamic(&mut col);
    let c = Column::new(dty, col).unwrap();
    assert_eq!((c.value(0), c.value(1)), (Value::String(b"b"), Value::UInt(3)));
}

#[test]
fn low_cardinality_inside_aliases_and_nested_is_encoded() {
    let cols =
        [("s", ty("SimpleAggregateFunction(anyLast, LowCardinality(String))")), ("n", ty("Nested(a LowCardinality(String), b UInt8)"))];
    let rows: Vec<Vec<Value<'_>>> =
        vec![vec![Value::String(b"x"), Value::Array(vec![Value::Tuple(vec![(None, Value::String(b"p")), (None, Value::UInt(1))])])]];
    let block = block_from_values(&cols, rows.iter().map(Vec::as_slice)).unwrap();
    assert_eq!(block.column("s").unwrap().value(0), Value::String(b"x"));
}

#[test]
fn low_cardinality_members_of_a_variant() {
    let cols = [("v", ty("Variant(LowCardinality(String), UInt64)")), ("w", ty("Variant(Array(LowCardinality(String)), FixedString(3))"))];
    let rows: Vec<Vec<Value<'_>>> =
        vec![vec![Value::String(b"abc"), Value::Array(vec![Value::String(b"x")])], vec![Value::UInt(7), Value::String(b"abc")]];
    let block = block_from_values(&cols, rows.iter().map(Vec::as_slice)).unwrap();
    let v = block.column("v").unwrap();
    assert_eq!((v.value(0), v.value(1)), (Value::String(b"abc"), Value::UInt(7)));
    let w = block.column("w").unwrap();
    assert_eq!((w.value(0), w.value(1)), (Value::Array(vec![Value::String(b"x")]), Value::FixedString(b"abc")));
}

#[test]
fn tuples_do_not_flatten() {
    #[derive(Row)]
    #[allow(dead_code)]
    struct First {
        #[row(flatten)]
        t: (u64,),
        b: u64,
    }
    let header = Block::new().with("a", Column::from(vec![1u64])).unwrap().with("b", Column::from(vec![2u64])).unwrap();
    assert!(row_err(plan_for::<First>(&header).unwrap_err()).contains("flatten"));

    #[derive(Row)]
    #[allow(dead_code)]
    struct S {
        b: u64,
        #[row(flatten)]
        t: (u64,),
    }
    let block = Block::new().with("a", Column::from(vec![1u64])).unwrap().with("b", Column::from(vec![2u64])).unwrap();
    let m = row_err(plan_for::<S>(&block).unwrap_err());
    assert!(m.contains("flatten"), "{m}");
}
