//! `chwire bench W1..W6, W8`: the workloads of bench/PEERS.md, run with chwire.

use chwire::{Block, Client, Column, ColumnData, Options, StringColumn};
use clap::Args;
use std::time::Instant;

/// `chwire bench`'s arguments.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Workload: W1 scan, W2 scan-mixed, W3 select-3, W4 select-10, W5 insert, W6 connect, W8 strings
    #[arg(value_parser = ["W1", "W2", "W3", "W4", "W5", "W6", "W8"])]
    workload: String,
    /// Table for W5 (`ENGINE = Null`; created when missing)
    #[arg(long, default_value = "chwire_bench_w5")]
    table: String,
}

fn fold_u64(sum: u64, col: &[u64]) -> u64 {
    col.iter().fold(sum, |a, &x| a.wrapping_add(x))
}

async fn repeated_selects(client: &mut Client, columns: usize, limit: u64) -> chwire::Result<(u64, u64)> {
    let sql = format!("SELECT {} FROM system.numbers LIMIT {limit}", vec!["number"; columns].join(", "));
    let (mut rows, mut check) = (0u64, 0u64);
    for _ in 0..2000 {
        let mut s = client.query(sql.as_str()).stream().await?;
        while let Some(b) = s.next_block().await? {
            rows += b.rows() as u64;
            for (_, c) in b.columns() {
                check = fold_u64(check, c.as_u64().expect("UInt64"));
            }
        }
    }
    Ok((rows, check))
}

/// Generates W5's rows into reusable buffers and sends them.
async fn insert_rows(client: &mut Client, table: &str) -> chwire::Result<(u64, u64)> {
    const TOTAL: u64 = 10_000_000;
    const BLOCK: u64 = 100_000;
    let mut ins = client.insert_blocks(table, Some(&["id", "name", "value", "ts"])).await?;
    let (mut ids, mut values, mut ts) =
        (Vec::with_capacity(BLOCK as usize), Vec::with_capacity(BLOCK as usize), Vec::with_capacity(BLOCK as usize));
    let mut names = StringColumn::with_capacity(BLOCK as usize, BLOCK as usize * 12);
    let mut itoa = itoa::Buffer::new();
    let mut check = 0u64;
    let mut start = 0;
    while start < TOTAL {
        for i in start..(start + BLOCK).min(TOTAL) {
            ids.push(i);
            values.push(i as f64 * 0.5);
            ts.push(1_600_000_000 + (i % 86_400) as u32);
            let digits = itoa.format(i).as_bytes();
            names.push_parts(&[b"name-", digits]);
            check = check.wrapping_add(i);
        }
        let block = Block::new()
            .with("id", Column::from(ids))?
            .with("name", Column::from(names))?
            .with("value", Column::from(values))?
            .with("ts", Column::with_type_name("DateTime", ColumnData::UInt32(ts))?)?;
        ins.send(&block).await?;
        // Take the buffers back for the next block: no allocation after the first one.
        let mut cols = block.into_columns().into_iter().map(|(_, c)| c.into_parts().1);
        let (Some(ColumnData::UInt64(a)), Some(ColumnData::String(b)), Some(ColumnData::Float64(c)), Some(ColumnData::UInt32(d))) =
            (cols.next(), cols.next(), cols.next(), cols.next())
        else {
            unreachable!("the block was built with these columns")
        };
        (ids, names, values, ts) = (a, b, c, d);
        ids.clear();
        names.clear();
        values.clear();
        ts.clear();
        start += BLOCK;
    }
    ins.end().await?;
    Ok((TOTAL, check))
}

/// Run one workload against the server of `opts` and print its `RESULT` line (wall time,
/// rows, a checksum of the values) on stdout.
pub async fn run(opts: Options, args: BenchArgs) -> chwire::Result<()> {
    let compression = if opts.compression.is_enabled() { "lz4" } else { "none" };
    let (wall, rows, check) = match args.workload.as_str() {
        "W1" | "W2" => {
            let sql = if args.workload == "W1" {
                "SELECT number FROM system.numbers LIMIT 100000000"
            } else {
                "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000"
            };
            let mut client = Client::connect(opts).await?;
            let start = Instant::now();
            let mut s = client.query(sql).stream().await?;
            let (mut rows, mut check, mut touched) = (0u64, 0u64, 0u64);
            while let Some(b) = s.next_block().await? {
                rows += b.rows() as u64;
                check = fold_u64(check, b.column_at(0).and_then(|c| c.as_u64()).expect("UInt64"));
                if let Some(strings) = b.column("s").and_then(|c| c.as_strings()) {
                    check = check.wrapping_add(strings.data().len() as u64);
                    let f = b.column("f").and_then(|c| c.as_f64()).expect("Float64");
                    let t = b.column("t").and_then(|c| c.as_u32()).expect("DateTime");
                    touched = touched.wrapping_add(f.len() as u64 + t.len() as u64);
                }
            }
            std::hint::black_box(touched);
            (start.elapsed(), rows, check)
        }
        "W8" => {
            // 10M strings of 1-200 bytes (at revision 54492 a sizes stream, then the bytes).
            // (substring of a 200-byte literal: 18.16 has no `repeat`)
            let sql = format!("SELECT substring('{}', 1, number % 200 + 1) AS s FROM system.numbers LIMIT 10000000", "x".repeat(200));
            let mut client = Client::connect(opts).await?;
            let start = Instant::now();
            let mut s = client.query(sql.as_str()).stream().await?;
            let (mut rows, mut check) = (0u64, 0u64);
            while let Some(b) = s.next_block().await? {
                rows += b.rows() as u64;
                let strings = b.column_at(0).and_then(|c| c.as_strings()).expect("String");
                check = check.wrapping_add(strings.data().len() as u64);
            }
            (start.elapsed(), rows, check)
        }
        "W3" | "W4" => {
            let (columns, limit) = if args.workload == "W3" { (3, 1000) } else { (10, 100) };
            // As bench/PEERS.md says (and the peers do): connect first, then start the clock.
            let mut client = Client::connect(opts).await?;
            let start = Instant::now();
            let (rows, check) = repeated_selects(&mut client, columns, limit).await?;
            (start.elapsed(), rows, check)
        }
        "W5" => {
            let mut client = Client::connect(opts).await?;
            client
                .execute(format!(
                    "CREATE TABLE IF NOT EXISTS {} (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null",
                    args.table
                ))
                .await?;
            let start = Instant::now();
            let (rows, check) = insert_rows(&mut client, &args.table).await?;
            (start.elapsed(), rows, check)
        }
        _ => {
            let start = Instant::now();
            let mut check = 0u64;
            for _ in 0..200 {
                let mut c = Client::connect(opts.clone()).await?;
                let b = c.query("SELECT 1").fetch_blocks().await?;
                check += u64::from(b[0].column_at(0).and_then(|c| c.as_u8()).expect("UInt8")[0]);
            }
            (start.elapsed(), 200, check)
        }
    };
    println!(
        "RESULT client=chwire workload={} compression={compression} wall_s={:.6} rows={rows} check={check}",
        args.workload,
        wall.as_secs_f64()
    );
    Ok(())
}
