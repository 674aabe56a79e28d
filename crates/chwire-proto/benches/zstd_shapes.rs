//! The zstd layer (`compress`, `decompress_frame`: CityHash checksum + ZSTD level 1, one frame
//! per MiB) on the data shapes of the zstd report in ../shared/seeds/ (repetitive text,
//! `'x'.repeat(n)`, at 10 KB, 100 KB and 1 MB), each next to a `memcpy` of the same bytes.
//!
//! `cargo bench -p chwire-proto --bench zstd_shapes` (criterion: time and throughput per
//! case); `make bench-zstd` also prints each case's ratio to memcpy from criterion's results.

use chwire_proto::compress::{compress, decompress_frame, Compression};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn zstd_shapes(c: &mut Criterion) {
    for (label, n) in [("10KB", 10_000usize), ("100KB", 100_000), ("1MB", 1_000_000)] {
        let data = "x".repeat(n).into_bytes();
        let mut frame = Vec::new();
        compress(Compression::Zstd(1), &data, &mut frame);
        let mut g = c.benchmark_group("zstd_shapes");
        g.throughput(Throughput::Bytes(n as u64));
        let mut out = Vec::with_capacity(n + 64);
        g.bench_function(BenchmarkId::new("compress", label), |b| {
            b.iter(|| {
                out.clear();
                compress(Compression::Zstd(1), black_box(&data), &mut out);
                black_box(out.len())
            })
        });
        g.bench_function(BenchmarkId::new("decompress", label), |b| {
            b.iter(|| {
                out.clear();
                let used = decompress_frame(black_box(&frame), &mut out).expect("a whole frame");
                black_box((used, out.len()))
            })
        });
        g.bench_function(BenchmarkId::new("memcpy", label), |b| {
            b.iter(|| {
                out.clear();
                out.extend_from_slice(black_box(&data));
                black_box(out.len())
            })
        });
        g.finish();
        println!("zstd_shapes/{label}: {n} bytes -> {} bytes framed (ratio {:.4})", frame.len(), frame.len() as f64 / n as f64);
    }
}

criterion_group!(benches, zstd_shapes);
criterion_main!(benches);
