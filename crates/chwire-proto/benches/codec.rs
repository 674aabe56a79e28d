//! Codec micro-benchmarks: build, encode and decode of 1M values per column type, each next
//! to a `memcpy` of the same wire bytes (the physical limit), and LZ4/ZSTD frames of 1 MiB.
//!
//! `cargo bench -p chwire-proto --bench codec` (criterion prints time and throughput).

use chwire_proto::column::{decode_column, encode_column_of, ArrayColumn, LowCardinalityColumn, NullableColumn};
use chwire_proto::compress::{compress, decompress_frame, Compression};
use chwire_proto::wire::Reader;
use chwire_proto::{ColumnData, DataType, StringColumn};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const N: usize = 1_000_000;

fn cases() -> Vec<(&'static str, DataType, ColumnData)> {
    let u64s: Vec<u64> = (0..N as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let strings: StringColumn = (0..N).map(|i| format!("s{:06}", i % 1_000_000)).collect(); // 7 bytes
    let fixed: Vec<u8> = (0..N as u64).flat_map(|i| i.to_le_bytes()).collect();
    let nulls: Vec<u8> = (0..N).map(|i| u8::from(i % 7 == 0)).collect();
    let offsets: Vec<u64> = (0..=N as u64).map(|i| i * 4).collect();
    vec![
        ("UInt64", DataType::UInt64, ColumnData::UInt64(u64s.clone())),
        ("String(7 bytes)", DataType::String, ColumnData::String(strings)),
        ("FixedString(8)", DataType::FixedString(8), ColumnData::Fixed { width: 8, data: fixed }),
        (
            "Nullable(UInt64)",
            DataType::Nullable(Box::new(DataType::UInt64)),
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::UInt64(u64s.clone()) })),
        ),
        ("LowCardinality(String)", DataType::LowCardinality(Box::new(DataType::String)), ColumnData::LowCardinality(Box::new(lc_values()))),
        (
            "Array(UInt64) x4",
            DataType::Array(Box::new(DataType::UInt64)),
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: ColumnData::UInt64((0..4 * N as u64).collect()) })),
        ),
    ]
}

/// 1M values drawn from 1000 distinct 7-byte strings.
fn lc_values() -> LowCardinalityColumn {
    let distinct: Vec<String> = (0..1000).map(|i| format!("k{i:06}")).collect();
    LowCardinalityColumn::from_strings((0..N).map(|i| Some(distinct[(i * 7919) % 1000].as_bytes())), false)
}

fn build(name: &str) -> ColumnData {
    match name {
        "LowCardinality(String)" => ColumnData::LowCardinality(Box::new(lc_values())),
        "UInt64" => ColumnData::UInt64((0..N as u64).collect()),
        "String(7 bytes)" => {
            let mut s = StringColumn::with_capacity(N, N * 7);
            let mut buf = itoa_like::Buf::default();
            for i in 0..N {
                s.push_parts(&[b"s", buf.six_digits(i % 1_000_000)]);
            }
            ColumnData::String(s)
        }
        "FixedString(8)" => {
            let mut data = Vec::with_capacity(N * 8);
            for i in 0..N as u64 {
                data.extend_from_slice(&i.to_le_bytes());
            }
            ColumnData::Fixed { width: 8, data }
        }
        "Nullable(UInt64)" => {
            let mut nulls = Vec::with_capacity(N);
            let mut values = Vec::with_capacity(N);
            for i in 0..N as u64 {
                nulls.push(u8::from(i % 7 == 0));
                values.push(if i % 7 == 0 { 0 } else { i });
            }
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values: ColumnData::UInt64(values) }))
        }
        _ => {
            let mut offsets = Vec::with_capacity(N + 1);
            offsets.push(0);
            let mut values = Vec::with_capacity(4 * N);
            for i in 0..N as u64 {
                values.extend_from_slice(&[i, i + 1, i + 2, i + 3]);
                offsets.push(values.len() as u64);
            }
            ColumnData::Array(Box::new(ArrayColumn { offsets, values: ColumnData::UInt64(values) }))
        }
    }
}

/// Six zero-padded digits without allocation (keeps the String build benchmark honest).
mod itoa_like {
    #[derive(Default)]
    pub struct Buf([u8; 6]);
    impl Buf {
        pub fn six_digits(&mut self, mut v: usize) -> &[u8] {
            for i in (0..6).rev() {
                self.0[i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
            &self.0
        }
    }
}

fn codecs(c: &mut Criterion) {
    for (name, ty, data) in cases() {
        let mut wire = Vec::new();
        encode_column_of(&ty, &data, &mut wire);
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(wire.len() as u64));
        g.sample_size(20);
        g.bench_function("memcpy", |b| {
            let mut dst = vec![0u8; wire.len()];
            b.iter(|| {
                dst.copy_from_slice(black_box(&wire));
                black_box(&dst);
            })
        });
        g.bench_function("decode", |b| b.iter(|| decode_column(&ty, N, &mut Reader::new(black_box(&wire))).unwrap()));
        let mut out = Vec::with_capacity(wire.len());
        g.bench_function("encode", |b| {
            b.iter(|| {
                out.clear();
                encode_column_of(&ty, black_box(&data), &mut out);
                black_box(&out);
            })
        });
        g.bench_function("build", |b| b.iter(|| build(name)));
        g.finish();
    }
}

fn frames(c: &mut Criterion) {
    // 1 MiB of realistic column data: ascending ids and short strings.
    let mut block = Vec::with_capacity(1 << 20);
    let mut i = 0u64;
    while block.len() < (1 << 20) - 32 {
        block.extend_from_slice(&i.to_le_bytes());
        block.push(9);
        block.extend_from_slice(format!("name-{:04}", i % 10_000).as_bytes());
        i += 1;
    }
    let mut g = c.benchmark_group("frame 1MiB");
    g.throughput(Throughput::Bytes(block.len() as u64));
    g.sample_size(20);
    g.bench_function("memcpy", |b| {
        let mut dst = vec![0u8; block.len()];
        b.iter(|| dst.copy_from_slice(black_box(&block)))
    });
    for (label, method) in [("lz4", Compression::Lz4), ("zstd1", Compression::Zstd(1))] {
        let mut framed = Vec::new();
        compress(method, &block, &mut framed);
        let mut out = Vec::with_capacity(framed.len() * 2);
        g.bench_function(format!("{label} compress"), |b| {
            b.iter(|| {
                out.clear();
                compress(method, black_box(&block), &mut out);
            })
        });
        let mut plain = Vec::with_capacity(block.len());
        g.bench_function(format!("{label} decompress"), |b| {
            b.iter(|| {
                plain.clear();
                decompress_frame(black_box(&framed), &mut plain).unwrap();
            })
        });
    }
    g.finish();
}

criterion_group!(benches, codecs, frames);
criterion_main!(benches);
