//! `chwire insert TABLE`: Native-format blocks from a file or stdin into a table, block by
//! block in bounded memory.

use crate::convert::{InputFormat, NativeBlocks};
use chwire::proto::packet::client::quote_identifiers;
use chwire::{Client, Options};
use clap::Args;

#[derive(Args, Debug)]
pub struct InsertArgs {
    /// The table to insert into: `t`, `db.t` (as SQL)
    table: String,
    /// Input format: Native blocks, as `FORMAT Native` and `chwire query --format native`
    /// write them; the columns go to the table's columns of the same names
    #[arg(long, value_enum, default_value = "native")]
    format: InputFormat,
    /// Read from this file instead of stdin
    #[arg(long, short = 'i')]
    input: Option<std::path::PathBuf>,
    /// A ClickHouse setting for the insert (repeatable): --setting max_insert_threads=2
    #[arg(long = "setting", short = 's', value_name = "NAME=VALUE", value_parser = crate::parse_kv)]
    settings: Vec<(String, String)>,
}

pub async fn run(opts: Options, args: InsertArgs) -> chwire::Result<()> {
    let InputFormat::Native = args.format;
    let mut blocks = NativeBlocks::open(args.input.as_deref(), opts.limits)?;
    let Some(first) = blocks.next_block()? else {
        eprintln!("No blocks in the input: nothing inserted.");
        return Ok(());
    };
    let columns = quote_identifiers(first.names());
    let mut client = Client::connect(opts).await?;
    let mut query = client.query(format!("INSERT INTO {} ({columns}) VALUES", args.table));
    for (k, v) in args.settings {
        query = query.setting(k, v);
    }
    let mut insert = query.insert().await?;
    let started = std::time::Instant::now();
    // Each block is checked against the table's header before it is sent: a column whose
    // type differs is an error, and the insert is abandoned (nothing of it is committed).
    insert.send(&first).await?;
    while let Some(block) = blocks.next_block()? {
        insert.send(&block).await?;
    }
    let summary = insert.end().await?;
    eprintln!("Inserted {} rows into {} in {:.2}s.", summary.rows_sent, args.table, started.elapsed().as_secs_f64());
    Ok(())
}
