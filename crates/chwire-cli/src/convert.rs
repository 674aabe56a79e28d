//! `chwire convert`: a file from one format to another (`chwire-formats`), block by block in
//! bounded memory.

use chwire::Limits;
use chwire_formats::{self as formats, Format};
use clap::Args;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input format (ClickHouse's names, any case): Native, Arrow, ArrowStream, Parquet, CSV,
    /// CSVWithNames, CSVWithNamesAndTypes, TSV, TSVWithNames, TSVWithNamesAndTypes, JSONEachRow
    #[arg(long, value_parser = formats::input_format, default_value = "Native")]
    from: Format,
    /// Output format: the input formats, Pretty, and Null (read the whole input, write
    /// nothing: a check that it converts, or a timing of the read alone)
    #[arg(long, value_parser = formats::any_format)]
    to: Format,
    /// Read from this file instead of stdin
    #[arg(long, short = 'i')]
    input: Option<std::path::PathBuf>,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Timezone for DateTime columns without their own (default UTC)
    #[arg(long)]
    timezone: Option<String>,
    /// The columns of text input: `name Type, ...` (as clickhouse-local's --structure; the
    /// `...WithNamesAndTypes` formats declare their own, which must then agree);
    /// Arrow and Parquet input may convert to them too
    #[arg(long, short = 'S')]
    structure: Option<String>,
    /// A format setting (repeatable), e.g. output_format_parquet_compression_method=lz4
    #[arg(long = "setting", short = 's', value_name = "NAME=VALUE", value_parser = crate::parse_kv)]
    settings: Vec<(String, String)>,
    #[command(flatten)]
    files: crate::file_args::FileArgs,
}

pub fn run(args: ConvertArgs, limits: Limits) -> chwire::Result<()> {
    if let (Some(input), Some(output)) = (&args.input, &args.output) {
        // Writing the output would truncate the input before it is read (and a failure would
        // remove it): refused before either is opened.
        if same_file(input, output) {
            return Err(chwire::Error::invalid_input(format!(
                "{} is both the input and the output: write to another file (and rename it afterwards)",
                output.display()
            )));
        }
    }
    formats::check_timezone(args.timezone.as_deref())?;
    args.files.check_output(Some(args.to))?;
    if let (Format::Null, Some(output)) = (args.to, &args.output) {
        return Err(chwire::Error::invalid_input(format!(
            "--to Null writes nothing: leave out --output {} (it would be created empty)",
            output.display()
        )));
    }
    if args.from == Format::Native && args.structure.is_some() {
        return Err(chwire::Error::invalid_input(
            "Native input carries its columns and types: --structure is for text, Arrow and Parquet input",
        ));
    }
    let output = args.output.clone();
    let result = convert(args, limits);
    // A failed conversion leaves no partial file behind (a Parquet file cut short is unreadable);
    // only a regular file is removed, never a device or a pipe.
    if let (Err(_), Some(path)) = (&result, &output) {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(path);
        }
    }
    result
}

fn convert(args: ConvertArgs, limits: Limits) -> chwire::Result<()> {
    let tz = Some(args.timezone.as_deref().unwrap_or("UTC"));
    let files = args.files.options(&args.settings, tz)?;
    let mut source = formats::source(args.from, args.input.as_deref(), &files, tz, limits)?;
    let structure = args.structure.as_deref().map(formats::parse_structure).transpose()?;
    if let Some(columns) = &structure {
        source.bind(columns)?;
    }
    let mut sink = formats::sink(args.to, formats::open_output(args.output.as_deref())?, tz, &files)?;
    let mut columns: Option<Vec<(String, chwire::DataType)>> = None;
    let mut blocks = 0u64;
    while let Some(block) = source.next_block()? {
        blocks = blocks.saturating_add(1);
        let these = formats::columns_of(&block);
        match &columns {
            None => {
                sink.begin(&these)?;
                columns = Some(these);
            }
            // Native input (e.g. files concatenated) may change its columns between blocks;
            // every output takes the first block's.
            Some(first) if *first != these => {
                let show = |c: &[(String, chwire::DataType)]| c.iter().map(|(n, t)| format!("{n} {t}")).collect::<Vec<_>>().join(", ");
                return Err(chwire::Error::invalid_input(format!(
                    "block {blocks} of the input has the columns ({}), the first block ({})",
                    show(&these),
                    show(first)
                )));
            }
            Some(_) => {}
        }
        sink.write(block)?;
    }
    let begun = columns.is_some();
    // No rows: the file still gets the columns the input declared (a Parquet or Arrow schema,
    // a header, --structure), so that it reads back as an empty table rather than as nothing.
    if !begun {
        match structure.or_else(|| source.columns()) {
            Some(columns) => sink.begin(&columns)?,
            None if matches!(args.to, Format::Arrow | Format::ArrowStream | Format::Parquet) => {
                return Err(chwire::Error::invalid_input(format!(
                    "the input has no rows and declares no columns: a {} file needs them (give --structure)",
                    args.to
                )));
            }
            None => {}
        }
    }
    sink.finish()
}

/// Whether two paths name the same file (an existing output that is the input, also through
/// a link).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
