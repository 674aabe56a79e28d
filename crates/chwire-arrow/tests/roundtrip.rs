//! Every type of the fixture (one Native block per query, written by ClickHouse 26.9 —
//! tests/oracle/arrow_fixture.py) through both mappings, an Arrow IPC stream and back must
//! give the identical block.

use arrow_array::RecordBatch;
use chwire_arrow::{batch_to_block, batch_to_block_inferred, block_to_batch, schema_of_block, ArrowOptions};
use chwire_proto::{native, Block, DataType};

fn fixture() -> Vec<Block> {
    native::decode_all(include_bytes!("fixtures/types.native")).expect("fixture decodes")
}

fn option_sets() -> Vec<(&'static str, ArrowOptions)> {
    let mut lc = ArrowOptions::clickhouse();
    lc.set("output_format_arrow_low_cardinality_as_dictionary", "1").unwrap();
    let mut binary = ArrowOptions::clickhouse();
    binary.set("output_format_arrow_string_as_string", "0").unwrap();
    binary.set("output_format_arrow_fixed_string_as_fixed_byte_array", "0").unwrap();
    let mut rich_binary = ArrowOptions::rich();
    rich_binary.set("string_as_string", "0").unwrap();
    vec![
        ("rich", ArrowOptions::rich()),
        ("clickhouse", ArrowOptions::clickhouse()),
        ("clickhouse+dict", lc),
        ("clickhouse+binary", binary),
        ("rich+binary", rich_binary),
    ]
}

fn ipc_round_trip(batch: &RecordBatch) -> RecordBatch {
    let mut buf = Vec::new();
    {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut buf, &batch.schema()).unwrap();
        w.write(batch).unwrap();
        w.finish().unwrap();
    }
    let mut r = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(buf), None).unwrap();
    let back = r.next().expect("one batch").unwrap();
    assert!(r.next().is_none());
    back
}

fn native_bytes(block: &Block) -> Vec<u8> {
    let mut out = Vec::new();
    native::encode_block(block, &mut out);
    out
}

#[test]
fn every_type_round_trips_in_every_mapping() {
    let blocks = fixture();
    assert!(blocks.len() >= 20);
    let mut failures = Vec::new();
    for (mode, opts) in option_sets() {
        for block in &blocks {
            let header: Vec<(String, DataType)> = block.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
            let names = header.iter().map(|(n, t)| format!("{n} {t}")).collect::<Vec<_>>().join(", ");
            let schema = match schema_of_block(block, &opts) {
                Ok(s) => s,
                Err(e) => {
                    failures.push(format!("{mode}: schema of [{names}]: {e}"));
                    continue;
                }
            };
            let batch = match block_to_batch(block.clone(), &schema, &opts) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{mode}: block_to_batch [{names}]: {e}"));
                    continue;
                }
            };
            assert_eq!(batch.num_rows(), block.rows());
            let read = ipc_round_trip(&batch);
            for (how, back) in [("inferred", batch_to_block_inferred(&read)), ("target", batch_to_block(&read, &header))] {
                match back {
                    Ok(back) if native_bytes(&back) == native_bytes(block) => {}
                    Ok(back) => {
                        for ((n, c), (_, b)) in block.columns().iter().zip(back.columns()) {
                            if c != b {
                                failures.push(format!(
                                    "{mode}/{how}: column {n} {} differs:\n  was {:?}\n  got {:?}",
                                    c.data_type(),
                                    c.data(),
                                    b.data()
                                ));
                            }
                        }
                    }
                    Err(e) => failures.push(format!("{mode}/{how}: batch_to_block [{names}]: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn nullable_dictionaries_carry_their_nulls_on_the_keys() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int8Type};
    use arrow_array::Array;
    use chwire_proto::{Column, ColumnData};

    // LowCardinality(Nullable(String)) with NULL, "" and "x": as ClickHouse 26.9 writes it, the
    // dictionary holds neither the NULL entry nor a null (pandas refuses null or repeated
    // categories), the keys are null where the value is.
    let lc = Column::low_cardinality_strings([None, Some(&b""[..]), Some(b"x"), None], true);
    // Nullable(Enum8('a' = 1)) holding 18.16's placeholder 0 under its NULL, which is no item.
    let nullable_enum = chwire_proto::column::NullableColumn { nulls: vec![1, 0], values: ColumnData::Int8(vec![0, 1]) };
    let e = Column::new(DataType::parse("Nullable(Enum8('a' = 1))").unwrap(), ColumnData::Nullable(Box::new(nullable_enum))).unwrap();
    for (block, opts) in [
        (Block::new().with("lc", lc.clone()).unwrap(), ArrowOptions::rich()),
        (Block::new().with("lc", lc).unwrap(), {
            let mut o = ArrowOptions::clickhouse();
            o.set("output_format_arrow_low_cardinality_as_dictionary", "1").unwrap();
            o
        }),
    ] {
        let schema = schema_of_block(&block, &opts).unwrap();
        let batch = block_to_batch(block.clone(), &schema, &opts).unwrap();
        let dict = batch.column(0).as_dictionary::<Int32Type>();
        assert_eq!(dict.values().null_count(), 0);
        let plain = arrow_cast::cast(batch.column(0), &arrow_schema::DataType::Utf8).unwrap();
        let strings: Vec<Option<&str>> = plain.as_string::<i32>().into_iter().collect();
        assert_eq!(strings, [None, Some(""), Some("x"), None]);
        let header: Vec<(String, DataType)> = block.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
        assert_eq!(native_bytes(&batch_to_block(&batch, &header).unwrap()), native_bytes(&block));
    }
    let block = Block::new().with("e", e).unwrap();
    let opts = ArrowOptions::rich();
    let batch = block_to_batch(block.clone(), &schema_of_block(&block, &opts).unwrap(), &opts).unwrap();
    let dict = batch.column(0).as_dictionary::<Int8Type>();
    assert_eq!(dict.len(), 2);
    let plain = arrow_cast::cast(batch.column(0), &arrow_schema::DataType::Utf8).unwrap();
    let names: Vec<Option<&str>> = plain.as_string::<i32>().into_iter().collect();
    assert_eq!(names, [None, Some("a")]);
}
