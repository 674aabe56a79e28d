//! chwire-arrow's `unsafe`: String columns become utf8 arrays through `new_unchecked` after
//! chwire's own UTF-8 check (`to_arrow.rs`: the whole buffer, then that every value starts on a
//! character boundary). These are the cases that check decides — ASCII, multi-byte characters,
//! a character split across two values, invalid bytes in the middle and at the end — in both
//! mappings (utf8 and large_utf8), with and without NULLs. What passes must be a valid Arrow
//! array holding the same text; what does not must be an error naming the row. An ordinary
//! test, and `make miri` runs it under Miri (docs/FUZZING.md).

use arrow_array::{Array, LargeStringArray, StringArray};
use chwire_arrow::{block_to_batch, schema_of_block, ArrowOptions, Mapping};
use chwire_proto::column::NullableColumn;
use chwire_proto::{Block, Column, ColumnData, DataType, StringColumn};

fn block(values: &[&[u8]], nullable: bool) -> Block {
    let mut s = StringColumn::new();
    for v in values {
        s.push(v);
    }
    let (ty, data) = if nullable {
        // Every other row NULL; a NULL row keeps its bytes (they are checked like the others).
        let nulls = (0..values.len()).map(|i| u8::from(i % 2 == 1)).collect();
        let data = ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::String(s) }));
        (DataType::Nullable(Box::new(DataType::String)), data)
    } else {
        (DataType::String, ColumnData::String(s))
    };
    Block::new().with("s", Column::new(ty, data).unwrap()).unwrap()
}

fn texts(array: &dyn Array) -> Vec<Option<String>> {
    if let Some(a) = array.as_any().downcast_ref::<StringArray>() {
        return a.iter().map(|v| v.map(str::to_string)).collect();
    }
    let a = array.as_any().downcast_ref::<LargeStringArray>().expect("a utf8 or large_utf8 array");
    a.iter().map(|v| v.map(str::to_string)).collect()
}

#[test]
fn utf8_arrays_hold_exactly_the_checked_strings() {
    let split: &[&[u8]] = &[&[0xC3], &[0xA9]]; // "é" across two values: valid as one buffer
    let cases: &[&[&[u8]]] = &[
        &[],
        &[b""],
        &[b"a", b"", b"bc", b"0123456789abcdef0123"],
        &["é".as_bytes(), "日本".as_bytes(), b"x", "😀".as_bytes(), b""],
        split,
        &[b"ok", &[0xFF, 0x41], b"ok"],
        &[b"ab", &[0xE6, 0x97]],
        &[&[0xE6, 0x97, 0xA5], &[0x80]],
    ];
    for values in cases {
        let first_bad = values.iter().position(|v| std::str::from_utf8(v).is_err());
        for mapping in [Mapping::Rich, Mapping::ClickHouse] {
            for nullable in [false, true] {
                let opts = ArrowOptions { mapping, ..Default::default() };
                let b = block(values, nullable);
                let schema = schema_of_block(&b, &opts).unwrap();
                match (block_to_batch(b, &schema, &opts), first_bad) {
                    (Ok(batch), None) => {
                        let array = batch.column(0);
                        array.to_data().validate_full().unwrap();
                        let want: Vec<Option<String>> = values
                            .iter()
                            .enumerate()
                            .map(|(i, v)| (!(nullable && i % 2 == 1)).then(|| String::from_utf8(v.to_vec()).unwrap()))
                            .collect();
                        assert_eq!(texts(array.as_ref()), want, "{mapping:?}, nullable {nullable}");
                    }
                    (Err(e), Some(row)) => {
                        let e = e.to_string();
                        assert!(e.contains(&format!("row {row}: the value is not valid UTF-8")), "{mapping:?}, nullable {nullable}: {e}");
                    }
                    (Ok(_), Some(row)) => panic!("{values:?}: row {row} is not UTF-8, yet it became a utf8 array"),
                    (Err(e), None) => panic!("{values:?}: valid UTF-8 refused: {e}"),
                }
            }
        }
    }
}
