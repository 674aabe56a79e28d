//! The decoders' `unsafe` code (bulk copies into fixed-width vectors and offsets, the
//! 16-byte string copies) on the inputs that reach its edges: short and long values, values
//! ending at the last byte of the input, every fixed width, truncated inputs. An ordinary
//! test, and what `make miri` runs under Miri (undefined behaviour, out-of-bounds reads). Also
//! `StringColumn::str_at`, whose ASCII fast path skips `from_utf8`.

use chwire_proto::column::{decode_column, encode_column_of};
use chwire_proto::wire::Reader;
use chwire_proto::{Column, DataType, Value};

fn round_trip(ty: &str, rows: usize, bytes: &[u8]) -> Vec<u8> {
    let ty = DataType::parse(ty).unwrap();
    let mut r = Reader::new(bytes);
    let data = decode_column(&ty, rows, &mut r).unwrap();
    assert!(r.is_empty());
    let mut out = Vec::new();
    encode_column_of(&ty, &data, &mut out);
    assert_eq!(out, bytes, "{ty}");
    for cut in 0..bytes.len() {
        assert!(decode_column(&ty, rows, &mut Reader::new(&bytes[..cut])).is_err(), "{ty} cut at {cut}");
    }
    let col = Column::new(ty, data).unwrap();
    (0..rows).for_each(|i| drop(format!("{:?}", col.value(i))));
    out
}

#[test]
fn fixed_widths_copy_whole_values() {
    for (ty, width) in [("UInt8", 1), ("Int16", 2), ("UInt32", 4), ("Float64", 8), ("Int128", 16), ("UInt256", 32), ("FixedString(3)", 3)] {
        for rows in [0, 1, 7] {
            let bytes: Vec<u8> = (0..rows * width).map(|i| (i * 37 % 251) as u8).collect();
            round_trip(ty, rows, &bytes);
        }
    }
}

#[test]
fn strings_short_long_and_at_the_end_of_the_input() {
    let values: Vec<Vec<u8>> =
        vec![vec![], b"a".to_vec(), vec![b'x'; 15], vec![b'y'; 16], vec![b'z'; 17], vec![b'w'; 200], b"end".to_vec()];
    let mut bytes = Vec::new();
    for v in &values {
        bytes.push(v.len() as u8 | if v.len() > 127 { 0x80 } else { 0 });
        if v.len() > 127 {
            bytes.push((v.len() >> 7) as u8);
        }
        bytes.extend_from_slice(v);
    }
    round_trip("String", values.len(), &bytes);
    let ty = DataType::parse("String").unwrap();
    let col = Column::new(ty.clone(), decode_column(&ty, values.len(), &mut Reader::new(&bytes)).unwrap()).unwrap();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(col.value(i), Value::String(v));
    }
    // Arrays: offsets copied in bulk.
    let mut arr = Vec::new();
    for end in [2u64, 2, 5] {
        arr.extend_from_slice(&end.to_le_bytes());
    }
    arr.extend_from_slice(&[1, 2, 3, 4, 5]);
    round_trip("Array(UInt8)", 3, &arr);
}

#[test]
fn strings_as_text_ascii_fast_path_and_the_rest() {
    let mut s = chwire_proto::StringColumn::new();
    let values: [&[u8]; 7] = [b"", b"ascii", "é".as_bytes(), &[0xC3], &[0x80, b'a'], "日本😀".as_bytes(), &[b'a'; 40]];
    for v in values {
        s.push(v);
    }
    for (i, v) in values.iter().enumerate() {
        assert_eq!(s.str_at(i).ok(), std::str::from_utf8(v).ok(), "row {i}");
        assert_eq!(s.get_str(i), std::str::from_utf8(v).ok(), "row {i}");
    }
}
