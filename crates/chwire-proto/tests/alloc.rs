//! No per-value heap allocation on the read and write paths of fixed-width and String
//! columns: a counting global allocator shows the number of allocations does not grow
//! with the number of rows.

use chwire_proto::column::{decode_column, encode_column};
use chwire_proto::wire::Reader;
use chwire_proto::{ColumnData, DataType, StringColumn};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCS.load(Ordering::Relaxed);
    f();
    ALLOCS.load(Ordering::Relaxed) - before
}

fn wire_of(data: &ColumnData) -> Vec<u8> {
    let mut w = Vec::new();
    encode_column(data, &mut w);
    w
}

#[test]
fn decode_and_encode_allocate_per_column_not_per_value() {
    for rows in [1_000usize, 1_000_000] {
        let strings: StringColumn = (0..rows).map(|i| format!("v{i}")).collect();
        let cases = [
            (DataType::UInt64, ColumnData::UInt64((0..rows as u64).collect())),
            (DataType::Float64, ColumnData::Float64((0..rows).map(|i| i as f64).collect())),
            (DataType::FixedString(8), ColumnData::Fixed { width: 8, data: vec![7; rows * 8] }),
            (DataType::String, ColumnData::String(strings)),
        ];
        for (ty, data) in cases {
            let wire = wire_of(&data);
            let mut decoded = None;
            let n = allocations(|| decoded = Some(decode_column(&ty, rows, &mut Reader::new(&wire)).unwrap()));
            // Strings grow one data buffer by doubling: O(log n) reallocations, never O(n).
            assert!(n <= 2 + 2 * 64usize.min((rows as f64).log2() as usize), "{ty}: {n} allocations decoding {rows} rows");
            assert_eq!(decoded.unwrap(), data);
            let mut out = Vec::with_capacity(wire.len());
            let n = allocations(|| encode_column(&data, &mut out));
            assert_eq!(n, 0, "{ty}: encoding into a buffer with capacity allocated");
            assert_eq!(out, wire);
        }
    }
}
