//! What block_to_batch copies and what it moves: a counting global allocator measures the
//! bytes allocated converting a large block. In the rich mapping, fixed-width values and
//! String offsets/bytes move into Arrow buffers (the same memory: the pointers are
//! compared), so only O(columns) bytes are allocated besides the validity bitmaps (one bit
//! per row, from the null map's byte per row). Back, `batch_into_block` moves the buffers of a
//! batch that owns them alone (and `batch_to_block`, which borrows the batch, copies them).

use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use chwire_arrow::{batch_into_block, batch_to_block, block_to_batch, schema_of_block, ArrowOptions};
use chwire_proto::column::NullableColumn;
use chwire_proto::{Block, Column, ColumnData, DataType, StringColumn};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        BYTES.fetch_add(l.size(), Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        BYTES.fetch_add(n, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = BYTES.load(Ordering::Relaxed);
    let out = f();
    (out, BYTES.load(Ordering::Relaxed) - before)
}

const ROWS: usize = 1_000_000;

/// The counter is global: the tests of this file run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn block(nullable: bool) -> Block {
    let strings: StringColumn = (0..ROWS).map(|i| format!("value-{i}")).collect();
    let mut b =
        Block::new().with("n", Column::from((0..ROWS as u64).collect::<Vec<_>>())).unwrap().with("s", Column::from(strings)).unwrap();
    if nullable {
        let data = ColumnData::Nullable(Box::new(NullableColumn {
            nulls: (0..ROWS).map(|i| u8::from(i % 3 == 0)).collect(),
            values: ColumnData::UInt64(vec![7; ROWS]),
        }));
        b.push("x", Column::new(DataType::parse("Nullable(UInt64)").unwrap(), data).unwrap()).unwrap();
    }
    b
}

#[test]
fn rich_mapping_moves_values_and_string_buffers() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = block(false);
    let values_ptr = b.column("n").unwrap().as_u64().unwrap().as_ptr() as usize;
    let strings = b.column("s").unwrap().as_strings().unwrap();
    let (offsets_ptr, data_ptr) = (strings.offsets().as_ptr() as usize, strings.data().as_ptr() as usize);
    let opts = ArrowOptions::rich();
    let schema = schema_of_block(&b, &opts).unwrap();
    let (batch, bytes) = allocated(|| block_to_batch(b, &schema, &opts).unwrap());
    // 1M rows of UInt64 (8 MB) and String (~20 MB): a few hundred bytes of Arrow metadata.
    assert!(bytes < 4096, "{bytes} bytes allocated");
    assert_eq!(batch.column(0).as_primitive::<UInt64Type>().values().as_ptr() as usize, values_ptr);
    let s = batch.column(1).as_string::<i64>();
    assert_eq!(s.value_offsets().as_ptr() as usize, offsets_ptr);
    assert_eq!(s.values().as_ptr() as usize, data_ptr);
    assert_eq!(s.value(123_456), "value-123456");
    eprintln!("rich, UInt64 + String, {ROWS} rows: {bytes} bytes allocated");
}

#[test]
fn nullable_columns_allocate_only_the_validity_bitmap() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = block(true);
    let opts = ArrowOptions::rich();
    let schema = schema_of_block(&b, &opts).unwrap();
    let (batch, bytes) = allocated(|| block_to_batch(b, &schema, &opts).unwrap());
    let bitmap = ROWS.div_ceil(8).next_multiple_of(64);
    assert!(bytes < bitmap + 4096, "{bytes} bytes allocated, the bitmap is {bitmap}");
    assert_eq!(batch.column(2).null_count(), ROWS.div_ceil(3));
    eprintln!("rich, + Nullable(UInt64), {ROWS} rows: {bytes} bytes allocated (bitmap {bitmap})");
}

#[test]
fn clickhouse_mapping_copies_string_offsets_to_32_bits() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = block(false);
    let opts = ArrowOptions::clickhouse();
    let schema = schema_of_block(&b, &opts).unwrap();
    let (_, bytes) = allocated(|| block_to_batch(b, &schema, &opts).unwrap());
    // utf8 has i32 offsets: 4 bytes per row are copied; the values and bytes still move.
    let offsets = 4 * (ROWS + 1);
    assert!(bytes >= offsets && bytes < offsets + 4096, "{bytes} bytes allocated, offsets {offsets}");
    eprintln!("clickhouse, UInt64 + String, {ROWS} rows: {bytes} bytes allocated (i32 offsets {offsets})");
}

#[test]
fn a_batch_that_owns_its_buffers_moves_them_back_into_a_block() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = block(false);
    let expected = b.clone();
    let values_ptr = b.column("n").unwrap().as_u64().unwrap().as_ptr() as usize;
    let strings = b.column("s").unwrap().as_strings().unwrap();
    let (offsets_ptr, data_ptr) = (strings.offsets().as_ptr() as usize, strings.data().as_ptr() as usize);
    let opts = ArrowOptions::rich();
    let schema = schema_of_block(&b, &opts).unwrap();
    let batch = block_to_batch(b, &schema, &opts).unwrap();
    let target = vec![("n".to_string(), DataType::UInt64), ("s".to_string(), DataType::String)];
    let (copied, copied_bytes) = allocated(|| batch_to_block(&batch, &target).unwrap());
    assert_eq!(copied, expected);
    assert!(copied_bytes > 8 * ROWS, "a borrowed batch is copied: {copied_bytes} bytes");
    let (back, bytes) = allocated(|| batch_into_block(batch, &target).unwrap());
    assert!(bytes < 4096, "{bytes} bytes allocated");
    assert_eq!(back.column("n").unwrap().as_u64().unwrap().as_ptr() as usize, values_ptr);
    let s = back.column("s").unwrap().as_strings().unwrap();
    assert_eq!((s.offsets().as_ptr() as usize, s.data().as_ptr() as usize), (offsets_ptr, data_ptr));
    assert_eq!(back, expected);
    eprintln!("back to a block, UInt64 + String, {ROWS} rows: {bytes} bytes allocated (borrowed: {copied_bytes})");
}
