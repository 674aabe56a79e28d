//! Stream a large result and checksum it: `cargo run --release -p chwire --example scan -- [URL] [ROWS]`.
//! Prints rows, wrapping sum and rows/s — a quick look at the read path's speed.

use std::time::Instant;

#[tokio::main(flavor = "current_thread")]
async fn main() -> chwire::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "tcp://default@127.0.0.1:19000/default".into());
    let rows: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000_000);
    let mut client = chwire::Client::connect_url(&url).await?;
    let start = Instant::now();
    let mut stream = client.query(format!("SELECT number FROM system.numbers LIMIT {rows}")).stream().await?;
    let (mut n, mut sum) = (0u64, 0u64);
    while let Some(block) = stream.next_block().await? {
        let col = block.column_at(0).and_then(|c| c.as_u64()).expect("UInt64 column");
        n += col.len() as u64;
        sum = col.iter().fold(sum, |a, &x| a.wrapping_add(x));
    }
    let secs = start.elapsed().as_secs_f64();
    println!("rows={n} sum={sum} wall_s={secs:.3} rows_per_s={:.0}", n as f64 / secs);
    Ok(())
}
