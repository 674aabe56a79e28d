//! `chwire insert TABLE`: rows of any input format (a file or stdin) into a table, block by
//! block in bounded memory. Text is parsed by the table's column types; Arrow and Parquet
//! convert to them; Native blocks are checked against them.

use chwire::proto::packet::client::quote_identifiers;
use chwire::proto::Value;
use chwire::{Client, DataType, Options};
use chwire_formats::{self as formats, Format};
use clap::Args;

/// `chwire insert`'s arguments.
#[derive(Args, Debug)]
pub struct InsertArgs {
    /// The table to insert into: `t`, `db.t`, quoted parts (`"my db"."t"`), or a table
    /// function (`FUNCTION s3(...)`)
    table: String,
    /// Input format (ClickHouse's names, any case): Native (as `FORMAT Native` and
    /// `chwire query --format native` write it), Arrow, ArrowStream, Parquet, CSV,
    /// CSVWithNames, CSVWithNamesAndTypes, TSV, TSVWithNames, TSVWithNamesAndTypes, JSONEachRow
    /// (a types line must agree with the table's types). Columns with names in the input go to
    /// the table's columns of the same names; CSV and TSV fill the table's columns in order
    /// [default: from the --input file's extension (.csv, .tsv, .parquet, .arrow, .arrows,
    /// .jsonl, .native), else Native]
    #[arg(long, short = 'f', value_parser = formats::input_format)]
    format: Option<Format>,
    /// Read from this file instead of stdin
    #[arg(long, short = 'i')]
    input: Option<std::path::PathBuf>,
    /// A ClickHouse setting for the insert (repeatable): --setting max_insert_threads=2.
    /// Format settings apply to the input: output_format_arrow_* (Arrow and Parquet types),
    /// input_format_skip_unknown_fields=1 (JSONEachRow members naming no column are left out)
    #[arg(long = "setting", short = 's', value_name = "NAME=VALUE", value_parser = crate::parse_kv)]
    settings: Vec<(String, String)>,
    /// Skip the first N rows of the input: to continue an insert that stopped at a bad
    /// value, after fixing it (the error says which N)
    #[arg(long, default_value_t = 0, value_name = "N")]
    skip_rows: u64,
    /// Timezone of DateTime text without its own [default: the server's]
    #[arg(long)]
    timezone: Option<String>,
    #[command(flatten)]
    files: crate::file_args::FileArgs,
}

/// Insert the input into the table of the server of `opts`, in blocks of the table's columns.
pub async fn run(opts: Options, args: InsertArgs) -> crate::Result<()> {
    let (format, assumed) = crate::convert::input_format(args.format, args.input.as_deref());
    insert(opts, args, format).await.map_err(|e| if assumed { crate::convert::native_assumed(e, "--format") } else { e })
}

async fn insert(opts: Options, args: InsertArgs, format: Format) -> crate::Result<()> {
    formats::options::refuse_unapplied(&args.settings)?;
    formats::check_timezone(args.timezone.as_deref())?;
    args.files.check_output(None)?;
    let (mut format_settings, settings) = formats::options::split_settings(args.settings);
    // Also the input's (JSONEachRow members naming no column are left out).
    format_settings.extend(settings.iter().filter(|(k, _)| k == "input_format_skip_unknown_fields").cloned());
    let target = target(&args.table)?;
    let limits = opts.limits;
    let mut client = Client::connect(opts).await?;
    let tz = args.timezone.clone().or_else(|| client.server_info().and_then(|i| i.timezone));
    let files = args.files.options(&format_settings, tz.as_deref())?;
    let mut source = formats::source(format, args.input.as_deref(), &files, tz.as_deref(), limits)?;
    let names = source.names()?;
    if format == Format::Native && names.is_none() {
        eprintln!("No blocks in the input: nothing inserted.");
        return Ok(());
    }
    let names = match names {
        // CSVWithNames names a tuple's elements (`t.a`, `t.b`): list the table's columns.
        Some(n) if format.csv() && n.iter().any(|x| x.contains('.')) => Some(csv_columns(&mut client, &target, n).await?),
        n => n,
    };
    let columns = names.map(|n| format!(" ({})", quote_identifiers(n.iter().map(String::as_str)))).unwrap_or_default();
    let mut query = client.query(format!("INSERT INTO {target}{columns} VALUES"));
    for (k, v) in settings {
        query = query.setting(k, v);
    }
    let mut insert = query.insert_blocks().await?;
    source.bind(&formats::columns_of(insert.header()))?;
    source.skip_rows(args.skip_rows)?;
    let started = std::time::Instant::now();
    let mut sent = 0u64;
    loop {
        // Each block is parsed (or converted, or checked against the table's header) whole
        // before anything of it is sent.
        let failed = match source.next_block() {
            Ok(None) => break,
            Ok(Some(block)) => match insert.send(&block).await {
                Ok(()) => {
                    sent += block.rows() as u64;
                    continue;
                }
                Err(e) if matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)) => crate::Error::from(e),
                Err(e) => return Err(e.into()),
            },
            Err(e) => e.into(),
        };
        // Commit the blocks before the bad one, so that `--skip-rows` continues exactly.
        insert.end().await?;
        let next = args.skip_rows + sent;
        let failed = failed.data_message();
        let done = match sent {
            0 => "nothing was inserted".to_string(),
            n => format!("{n} rows were inserted before it"),
        };
        return Err(crate::Error::invalid_input(format!(
            "{failed}\n{done} (nothing of the failing block was sent); after fixing the input, continue with --skip-rows {next}"
        )));
    }
    let summary = insert.end().await?;
    eprintln!("Inserted {} rows into {} in {:.2}s.", summary.rows_sent, args.table, started.elapsed().as_secs_f64());
    if sent == 0 && args.skip_rows > 0 {
        eprintln!("Note: --skip-rows {} left nothing to insert: the input has at most {} rows.", args.skip_rows, args.skip_rows);
    }
    Ok(())
}

/// The insert's target as SQL: a table reference as every front end reads one (`t`, `db.t`,
/// quoted parts; chwire's `sql::TableRef`), written back quoted; or a table function
/// (`FUNCTION s3(…)`), which is SQL the user writes. Other text is refused before connecting.
fn target(table: &str) -> crate::Result<String> {
    match chwire::sql::TableRef::parse(table) {
        Ok(t) => Ok(t.to_string()),
        Err(_) if chwire::sql::significant(table).next().is_some_and(|t| t.is_keyword("FUNCTION")) => Ok(table.to_string()),
        Err(e) => Err(chwire::Error::from(e).into()),
    }
}

/// The table's columns a CSVWithNames names line names, in order: a Tuple column for the
/// names of its elements (`t.a`, `t.b` or `t.1`, `t.2`, as ClickHouse writes them), other
/// columns (Nested `n.x` included) by their own names.
/// (A target DESCRIBE cannot describe, e.g. `FUNCTION …`, keeps the names as they are.)
async fn csv_columns(client: &mut Client, table: &str, names: Vec<String>) -> crate::Result<Vec<String>> {
    let blocks = match client.query(format!("DESCRIBE TABLE {table}")).fetch_blocks().await {
        Ok(blocks) => blocks,
        Err(e) if e.code().is_some() => return Ok(names),
        Err(e) => return Err(e.into()),
    };
    let mut target = Vec::new();
    for b in blocks {
        let text = |column: &str, row: usize| match b.column(column).map(|c| c.value(row)) {
            Some(Value::String(s)) => String::from_utf8_lossy(s).into_owned(),
            Some(Value::UInt(v)) => v.to_string(),
            _ => String::new(),
        };
        for row in 0..b.rows() {
            // Columns an INSERT cannot name, and subcolumns (describe_include_subcolumns).
            if matches!(text("default_type", row).as_str(), "MATERIALIZED" | "ALIAS") || text("is_subcolumn", row) == "1" {
                continue;
            }
            let ty = DataType::parse(&text("type", row)).map_err(|e| crate::Error::invalid_input(e.to_string()))?;
            target.push((text("name", row), ty));
        }
    }
    let columns = formats::text::reader::columns_of_names(formats::text::TextFormat::CsvWithNames, &names, &target)?;
    Ok(columns.into_iter().map(|c| target[c].0.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::target;

    #[test]
    fn targets_are_table_references_or_table_functions() {
        assert_eq!(target("db.t").unwrap(), "`db`.`t`");
        assert_eq!(target(r#""my db"."t""#).unwrap(), "`my db`.`t`");
        let function = " -- a table function\n FUNCTION null('a UInt8')";
        assert_eq!(target(function).unwrap(), function);
        let e = target("t; DROP TABLE x").unwrap_err().to_string();
        assert!(e.contains("cannot read the table name \"t; DROP TABLE x\""), "{e}");
    }
}
