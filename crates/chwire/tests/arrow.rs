//! Arrow results and inserts (feature `arrow`) against the real server of the rig.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray, UInt32Array};
use arrow_schema::{DataType as A, Field, Schema, TimeUnit};
use chwire::arrow::{ArrowOptions, Mapping};
use chwire::Client;
use common::*;
use std::sync::Arc;

/// Every type ClickHouse 18.16 has, a few rows each, NULLs included.
const ALL_TYPES: &str = "SELECT toUInt8(number) AS u8, toUInt16(number) AS u16, toUInt32(number) AS u32, toUInt64(number) * 1000000007 AS u64, \
    toInt8(-number) AS i8, toInt16(-number) AS i16, toInt32(-number) AS i32, toInt64(number) * -1000000007 AS i64, \
    toFloat32(number / 3) AS f32, toFloat64(number / 7) AS f64, toString(number) AS s, concat('ü', toString(number)) AS su, \
    toFixedString(toString(number), 2) AS fs, toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') AS uuid, \
    toDate('2020-01-01') + number AS d, CAST(toDateTime('2020-01-01 00:00:00', 'Asia/Tokyo') + number AS DateTime('Asia/Tokyo')) AS dt, toDateTime(number) AS dtn, \
    CAST(number % 2 + 1 AS Enum8('a' = 1, 'b' = 2)) AS e8, CAST(number % 2 * 1000 AS Enum16('x' = 0, 'y' = 1000)) AS e16, \
    toDecimal32(number / 4, 2) AS d32, toDecimal64(number / 8, 5) AS d64, toDecimal128(number, 10) AS d128, \
    if(number % 2 = 0, NULL, number) AS n, if(number % 3 = 0, NULL, toString(number)) AS ns, range(number) AS arr, \
    [toString(number), ''] AS arrs, [if(number % 2 = 0, NULL, number)] AS arrn, (number, toString(number)) AS t, \
    toLowCardinality(toString(number % 3)) AS lc, toLowCardinality(toNullable(toString(number % 2))) AS lcn, [[number]] AS aa \
    FROM system.numbers LIMIT 7";

const ALL_TYPES_TABLE: &str = "u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64, i8 Int8, i16 Int16, i32 Int32, i64 Int64, f32 Float32, \
    f64 Float64, s String, su String, fs FixedString(2), uuid UUID, d Date, dt DateTime('Asia/Tokyo'), dtn DateTime, \
    e8 Enum8('a' = 1, 'b' = 2), e16 Enum16('x' = 0, 'y' = 1000), d32 Decimal(9, 2), d64 Decimal(18, 5), d128 Decimal(38, 10), \
    n Nullable(UInt64), ns Nullable(String), arr Array(UInt64), arrs Array(String), arrn Array(Nullable(UInt64)), \
    t Tuple(UInt64, String), lc LowCardinality(String), lcn LowCardinality(Nullable(String)), aa Array(Array(UInt64))";

async fn fresh_table(c: &mut Client, name: &str, columns: &str) {
    c.execute(format!("DROP TABLE IF EXISTS {name}")).await.unwrap();
    c.execute(format!("CREATE TABLE {name} ({columns}) ENGINE = Memory")).await.unwrap();
}

async fn scalar_u64(c: &mut Client, sql: &str) -> u64 {
    let blocks = c.query(sql).fetch_blocks().await.unwrap();
    match blocks[0].column_at(0).unwrap().value(0) {
        chwire::Value::UInt(v) => v,
        other => panic!("{sql}: {other:?}"),
    }
}

async fn count(c: &mut Client, table: &str) -> u64 {
    scalar_u64(c, &format!("SELECT count() FROM {table}")).await
}

#[tokio::test]
async fn query_arrow_every_type_and_insert_it_back() {
    let mut c = client().await;
    for mapping in [Mapping::Rich, Mapping::ClickHouse] {
        let opts = ArrowOptions { mapping, ..ArrowOptions::default() };
        let table = format!("arrow_all_{}", if mapping == Mapping::Rich { "rich" } else { "ch" });
        let mut stream = c.query(ALL_TYPES).fetch_arrow(opts.clone()).await.unwrap();
        let schema = stream.schema();
        assert_eq!(schema.fields().len(), 31);
        assert_eq!(schema.field_with_name("s").unwrap().metadata()["clickhouse.type"], "String");
        let mut batches = Vec::new();
        while let Some(b) = stream.next_batch().await.unwrap() {
            assert_eq!(b.schema(), schema);
            batches.push(b);
        }
        drop(stream);
        let total: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(total, 7);
        let b = &batches[0];
        let col = |n: &str| b.column(schema.index_of(n).unwrap()).clone();
        if mapping == Mapping::Rich {
            assert_eq!(schema.field_with_name("dt").unwrap().data_type(), &A::Timestamp(TimeUnit::Second, Some("Asia/Tokyo".into())));
            assert_eq!(col("dt").as_primitive::<TimestampSecondType>().value(0), 1577804400);
            assert!(matches!(schema.field_with_name("e8").unwrap().data_type(), A::Dictionary(..)));
            assert!(matches!(schema.field_with_name("lc").unwrap().data_type(), A::Dictionary(..)));
            assert_eq!(schema.field_with_name("arr").unwrap().data_type().to_string(), "LargeList(non-null UInt64)");
            assert_eq!(col("su").as_string::<i64>().value(1), "ü1");
            assert_eq!(col("d").as_primitive::<Date32Type>().value(0), 18262);
        } else {
            assert_eq!(schema.field_with_name("dt").unwrap().data_type(), &A::UInt32);
            assert_eq!(schema.field_with_name("e8").unwrap().data_type(), &A::Int8);
            assert_eq!(schema.field_with_name("lc").unwrap().data_type(), &A::Utf8);
            assert_eq!(col("su").as_string::<i32>().value(1), "ü1");
        }
        assert_eq!(col("n").null_count(), 4);
        let uuid = col("uuid");
        assert_eq!(
            uuid.as_fixed_size_binary().value(0),
            [0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0]
        );
        assert_eq!(col("d128").as_primitive::<Decimal128Type>().value(3), 30_000_000_000);

        // Back into a table of the same types: the same rows.
        fresh_table(&mut c, &table, ALL_TYPES_TABLE).await;
        let summary = c.insert_arrow(&table, batches).await.unwrap();
        assert_eq!(summary.rows_sent, 7);
        let want = c.query(format!("SELECT * FROM ({ALL_TYPES}) ORDER BY u8")).fetch_blocks().await.unwrap();
        let got = c.query(format!("SELECT * FROM {table} ORDER BY u8")).fetch_blocks().await.unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            for ((n, gc), (_, wc)) in g.columns().iter().zip(w.columns()) {
                let same = (0..wc.len()).all(|i| gc.value(i) == wc.value(i));
                assert!(same, "{mapping:?}: column {n} differs: {:?} vs {:?}", gc.data(), wc.data());
            }
        }
        c.execute(format!("DROP TABLE {table}")).await.unwrap();
    }
}

#[tokio::test]
async fn one_batch_per_block_with_the_schema_first() {
    let mut c = client().await;
    let mut stream = c
        .query("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 100000")
        .setting("max_block_size", "10000")
        .fetch_arrow(ArrowOptions::rich())
        .await
        .unwrap();
    assert_eq!(stream.schema().field(1).data_type(), &A::LargeUtf8);
    let (mut batches, mut rows, mut sum) = (0, 0, 0u64);
    while let Some(b) = stream.next_batch().await.unwrap() {
        assert!(b.num_rows() <= 10000);
        batches += 1;
        rows += b.num_rows();
        sum += b.column(0).as_primitive::<UInt64Type>().values().iter().sum::<u64>();
    }
    assert!(batches >= 10, "{batches} batches");
    assert_eq!(rows, 100000);
    assert_eq!(sum, 99999 * 100000 / 2);
    drop(stream);
    // The connection is ready for the next query.
    assert_eq!(scalar_u64(&mut c, "SELECT 2").await, 2);
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let schema = Schema::new(columns.iter().map(|(n, a)| Field::new(*n, a.data_type().clone(), true)).collect::<Vec<_>>());
    RecordBatch::try_new(Arc::new(schema), columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

#[tokio::test]
async fn insert_arrow_casts_losslessly() {
    let mut c = client().await;
    fresh_table(&mut c, "arrow_casts", "a Int64, s String, t DateTime('UTC'), d Date, n Nullable(UInt32)").await;
    let b = batch(vec![
        ("a", Arc::new(Int32Array::from(vec![-1, 2])) as ArrayRef),
        ("s", Arc::new(StringArray::from(vec!["x", "yz"]))),
        ("t", Arc::new(TimestampMillisecondArray::from(vec![1_000, 1_600_000_000_000]).with_timezone("UTC"))),
        ("d", Arc::new(arrow_array::Date32Array::from(vec![1, 18262]))),
        ("n", Arc::new(UInt32Array::from(vec![Some(5), None]))),
    ]);
    c.insert_arrow("arrow_casts", [b]).await.unwrap();
    let rows =
        c.query("SELECT toString(a), s, toString(t), toString(d), toString(n) FROM arrow_casts ORDER BY a").fetch_blocks().await.unwrap();
    let text: Vec<String> = (0..2)
        .map(|r| {
            (0..5)
                .map(|i| match rows[0].column_at(i).unwrap().value(r) {
                    chwire::Value::String(s) => String::from_utf8(s.to_vec()).unwrap(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(text, ["-1 x 1970-01-01 00:00:01 1970-01-02 5", "2 yz 2020-09-13 12:26:40 2020-01-01 Null"]);
    c.execute("DROP TABLE arrow_casts").await.unwrap();
}

#[tokio::test]
async fn refused_batches_name_the_column_and_insert_nothing() {
    let mut c = client().await;
    fresh_table(&mut c, "arrow_refused", "id UInt32, s String, t DateTime").await;
    let ok = || -> Vec<(&'static str, ArrayRef)> {
        vec![
            ("id", Arc::new(UInt32Array::from(vec![1, 2])) as ArrayRef),
            ("s", Arc::new(StringArray::from(vec!["a", "b"]))),
            ("t", Arc::new(UInt32Array::from(vec![0, 1]))),
        ]
    };
    type Case = (Vec<(&'static str, ArrayRef)>, &'static [&'static str]);
    let cases: Vec<Case> = vec![
        // A string where the table has a number.
        (
            {
                let mut v = ok();
                v[0].1 = Arc::new(StringArray::from(vec!["1", "2"]));
                v
            },
            &["id", "Utf8", "UInt32"],
        ),
        // An integer that does not fit.
        (
            {
                let mut v = ok();
                v[0].1 = Arc::new(Int64Array::from(vec![1, 1 << 40]));
                v
            },
            &["id", "Int64", "UInt32"],
        ),
        // NULLs into a non-Nullable column.
        (
            {
                let mut v = ok();
                v[1].1 = Arc::new(StringArray::from(vec![Some("a"), None]));
                v
            },
            &["s", "NULL", "String"],
        ),
        // A timestamp with sub-second digits into DateTime.
        (
            {
                let mut v = ok();
                v[2].1 = Arc::new(TimestampMillisecondArray::from(vec![1, 2]));
                v
            },
            &["t", "Timestamp", "DateTime"],
        ),
        // A column the table does not have.
        (
            {
                let mut v = ok();
                v[1].0 = "nope";
                v
            },
            &["nope"],
        ),
    ];
    for (columns, words) in cases {
        let err = c.insert_arrow("arrow_refused", [batch(columns)]).await.unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err.kind(), chwire::ErrorKind::InvalidInput(_) | chwire::ErrorKind::Server(_)), "{msg}");
        for w in words {
            assert!(msg.contains(w), "{msg:?} should mention {w}");
        }
        assert_eq!(count(&mut c, "arrow_refused").await, 0, "after {msg}");
    }
    // A second batch that does not fit: the first was sent and committed, the error says so
    // (the core's rule, every front end's).
    let err = c
        .insert_arrow(
            "arrow_refused",
            [
                batch(ok()),
                batch({
                    let mut v = ok();
                    v[0].1 = Arc::new(StringArray::from(vec!["x", "y"]));
                    v
                }),
            ],
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the 2 rows before it were inserted"), "{err}");
    assert_eq!(err.rows_inserted(), Some(2));
    assert_eq!(count(&mut c, "arrow_refused").await, 2);
    c.execute("DROP TABLE arrow_refused").await.unwrap();
}

#[tokio::test]
async fn insert_arrow_reader_and_a_refused_block_mid_stream() {
    let mut c = client().await;
    fresh_table(&mut c, "arrow_reader", "n UInt64, s String").await;
    let batches: Vec<RecordBatch> = c
        .query("SELECT number AS n, toString(number) AS s FROM system.numbers LIMIT 30000")
        .setting("max_block_size", "10000")
        .fetch_arrow(ArrowOptions::clickhouse())
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(batches.len(), 3);
    let schema = batches[0].schema();
    let reader = arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let summary = c.insert_arrow_reader("arrow_reader", reader).await.unwrap();
    assert_eq!(summary.rows_sent, 30000);
    assert_eq!(scalar_u64(&mut c, "SELECT sum(n) + sum(length(s)) FROM arrow_reader").await, 449985000 + 138890);
    c.execute("DROP TABLE arrow_reader").await.unwrap();

    // A String value that is not UTF-8 (rich mapping: utf8): the batch is refused with the
    // column and row, the query is abandoned, the connection stays usable.
    let mut stream = c.query_arrow("SELECT number AS n, if(number = 5, unhex('FF'), 'x') AS s FROM system.numbers LIMIT 10").await.unwrap();
    let err = stream.next_batch().await.unwrap_err();
    assert!(err.to_string().contains("column s") && err.to_string().contains("row 5"), "{err}");
    drop(stream);
    let mut binary = ArrowOptions::rich();
    binary.set("output_format_arrow_string_as_string", "0").unwrap();
    let b = c.query("SELECT unhex('FF') AS s").fetch_arrow(binary).await.unwrap().collect().await.unwrap();
    assert_eq!(b[0].column(0).as_binary::<i64>().value(0), [0xFF]);
}

/// A batch's row count is not bounded by its buffers: a Null column of 2^50 rows has none. It
/// is cut into blocks as it is sent, never listed up front (that asked for 40 GB and aborted
/// the process); here the first block is refused, and nothing was inserted.
#[tokio::test]
async fn a_huge_batch_without_buffers_is_cut_as_it_goes() {
    let mut c = client().await;
    fresh_table(&mut c, "arrow_huge_nulls", "n Int32").await;
    let nulls: ArrayRef = Arc::new(arrow_array::NullArray::new(1 << 50));
    let batch = RecordBatch::try_new(Arc::new(Schema::new(vec![Field::new("n", A::Null, true)])), vec![nulls]).unwrap();
    let err = c.insert_arrow("arrow_huge_nulls", vec![batch]).await.unwrap_err();
    assert!(err.to_string().contains("NULL does not fit"), "{err}");
    assert_eq!(scalar_u64(&mut c, "SELECT count() FROM arrow_huge_nulls").await, 0);
    c.execute("DROP TABLE arrow_huge_nulls").await.unwrap();
}
