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
        // What every frame cost before the contexts were kept per thread: the same steps as
        // `compress`/`decompress_frame` (zeroed output, checksum) with a new ZSTD context per
        // call (`zstd::bulk`).
        let payload = &frame[25..];
        g.bench_function(BenchmarkId::new("compress_new_context", label), |b| {
            b.iter(|| {
                out.clear();
                out.resize(25 + zstd::zstd_safe::compress_bound(n), 0);
                let m = zstd::bulk::compress_to_buffer(black_box(&data), &mut out[25..], 1).expect("sized by compress_bound");
                out.truncate(25 + m);
                black_box(chwire_proto::compress::checksum(&out[16..]))
            })
        });
        g.bench_function(BenchmarkId::new("decompress_new_context", label), |b| {
            b.iter(|| {
                let sum = chwire_proto::compress::checksum(black_box(&frame[16..]));
                out.clear();
                out.resize(n, 0);
                black_box((sum, zstd::bulk::decompress_to_buffer(black_box(payload), &mut out).expect("a whole frame")))
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
