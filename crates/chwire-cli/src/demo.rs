//! `chwire demo`: the main job end to end — create a table, insert generated rows through
//! chwire with a progress bar, run an aggregate query, print the result.

use crate::progress::{Bar, When};
use chwire::{Block, Client, Column, ColumnData, Options, Progress, StringColumn};
use chwire_formats::text::{TextFormat, Writer};
use clap::Args;
use std::time::Instant;

/// `chwire demo`'s arguments.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Rows to generate and insert
    #[arg(long, default_value_t = 5_000_000)]
    rows: u64,
    /// Rows per inserted block
    #[arg(long, default_value_t = 100_000)]
    block_rows: u64,
    /// Table to (re)create
    #[arg(long, default_value = "chwire_demo_events")]
    table: String,
}

fn make_block(start: u64, n: u64) -> chwire::Result<Block> {
    let ids: Vec<u64> = (start..start + n).collect();
    let ts: Vec<u32> = (start..start + n).map(|i| 1_600_000_000 + (i % 86_400) as u32 * 7).collect();
    let kinds: Vec<i8> = (start..start + n).map(|i| ((i * 2_654_435_761) % 4) as i8 + 1).collect();
    let mut users = StringColumn::with_capacity(n as usize, n as usize * 10);
    for i in start..start + n {
        users.push(format!("user-{}", (i * 7919) % 10_007));
    }
    let amount: Vec<f64> = (start..start + n).map(|i| ((i * 37) % 10_000) as f64 / 100.0).collect();
    let kind_type = "Enum8('click' = 1, 'view' = 2, 'purchase' = 3, 'signup' = 4)";
    Ok(Block::new()
        .with("id", Column::from(ids))?
        .with("ts", Column::with_type_name("DateTime", ColumnData::UInt32(ts))?)?
        .with("kind", Column::with_type_name(kind_type, ColumnData::Int8(kinds))?)?
        .with("user", Column::from(users))?
        .with("amount", Column::from(amount))?)
}

/// Recreate the demo table, insert the generated rows with a progress bar, run the aggregate
/// and print its result.
pub async fn run(opts: Options, args: DemoArgs) -> chwire::Result<()> {
    let mut client = Client::connect(opts).await?;
    let info = client.server_info().expect("connected");
    eprintln!(
        "Connected to {} {}.{}.{} (revision {}, negotiated {}).",
        info.name, info.version.0, info.version.1, info.version.2, info.revision, info.negotiated_revision
    );
    let t = &args.table;
    client.execute(format!("DROP TABLE IF EXISTS {t}")).await?;
    client
        .execute(format!(
            "CREATE TABLE {t} (id UInt64, ts DateTime, kind Enum8('click' = 1, 'view' = 2, 'purchase' = 3, 'signup' = 4), user String, amount Float64) ENGINE = MergeTree ORDER BY id"
        ))
        .await?;
    eprintln!("Inserting {} rows into {t} in blocks of {}...", args.rows, args.block_rows);
    let started = Instant::now();
    let bar = Bar::new(When::Auto);
    let mut ins = client.insert_blocks(t.as_str(), Some(&["id", "ts", "kind", "user", "amount"])).await?;
    let mut sent = 0u64;
    let mut shown = Progress::default();
    while sent < args.rows {
        let n = args.block_rows.max(1).min(args.rows - sent);
        let block = make_block(sent, n)?;
        ins.send(&block).await?;
        sent += n;
        shown.written_rows = sent;
        shown.read_rows = sent;
        bar.update(&shown);
    }
    let summary = ins.end().await?;
    bar.finish(true);
    let secs = started.elapsed().as_secs_f64();
    eprintln!("Inserted {} rows in {secs:.2}s ({:.1} M rows/s).", summary.rows_sent, summary.rows_sent as f64 / secs / 1e6);

    let sql = format!("SELECT kind, count() AS events, uniqExact(user) AS users, round(sum(amount), 2) AS revenue, min(ts) AS first, max(ts) AS last FROM {t} GROUP BY kind ORDER BY kind");
    eprintln!("{sql}");
    let mut writer = Writer::new(TextFormat::Pretty, info.timezone.as_deref());
    let mut stream = client.query(sql).stream().await?;
    let mut out = std::io::stdout().lock();
    while let Some(b) = stream.next_block().await? {
        writer.write_block(&b, &mut out)?;
    }
    Ok(())
}
