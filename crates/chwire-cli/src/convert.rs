//! `chwire convert`: a file from one format to another (`chwire-formats`), block by block in
//! bounded memory.

use chwire::Limits;
use chwire_formats::{self as formats, Format};
use clap::Args;

/// `chwire convert`'s arguments.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input format (ClickHouse's names, any case): Native, Arrow, ArrowStream, Parquet, CSV,
    /// CSVWithNames, CSVWithNamesAndTypes, TSV, TSVWithNames, TSVWithNamesAndTypes, JSONEachRow
    /// [default: from the --input file's extension (.csv, .tsv, .parquet, .arrow, .arrows,
    /// .jsonl, .native), else Native]
    #[arg(long, value_parser = formats::input_format)]
    from: Option<Format>,
    /// Output format: the input formats, Pretty, and Null (read the whole input, write
    /// nothing: a check that it converts, or a timing of the read alone) [default: from the
    /// --output file's extension]
    #[arg(long, value_parser = formats::any_format)]
    to: Option<Format>,
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

/// An input format: the one named, else the one the file's extension names, else Native
/// (`assumed` then: a Native error says so, see [`native_assumed`]).
pub fn input_format(named: Option<Format>, input: Option<&std::path::Path>) -> (Format, bool) {
    match named.or_else(|| input.and_then(Format::from_path)) {
        Some(f) => (f, false),
        None => (Format::Native, true),
    }
}

/// An error of input read as Native because nothing named its format, with how to name it:
/// CSV read as Native fails on its first bytes as a type name, which says nothing of the cause.
pub fn native_assumed(e: crate::Error, flag: &str) -> crate::Error {
    // The reader's error, or `chwire insert`'s report of it (with its `--skip-rows` advice).
    let m = match &e {
        crate::Error::Formats(f) => match f.kind() {
            formats::ErrorKind::InvalidData(m) => m,
            _ => return e,
        },
        crate::Error::Client(c) => match c.kind() {
            chwire::ErrorKind::InvalidInput(m) => m,
            _ => return e,
        },
    };
    match m {
        m if m.starts_with("Native input") => crate::Error::invalid_input(format!(
            "{m}\n(the input was read as Native, the default when {flag} is not given and no file extension names a format; \
             name its format, e.g. {flag} CSVWithNames, Parquet or JSONEachRow)"
        )),
        _ => e,
    }
}

/// Convert the input to the output, block by block; the input and the output being the same
/// file is an error before either is opened.
pub fn run(args: ConvertArgs, limits: Limits) -> crate::Result<()> {
    if let (Some(input), Some(output)) = (&args.input, &args.output) {
        // Writing the output would truncate the input before it is read (and a failure would
        // remove it): refused before either is opened.
        if same_file(input, output) {
            return Err(crate::Error::invalid_input(format!(
                "{} is both the input and the output: write to another file (and rename it afterwards)",
                output.display()
            )));
        }
    }
    formats::check_timezone(args.timezone.as_deref())?;
    let to = match args.to.or_else(|| args.output.as_deref().and_then(Format::from_path)) {
        Some(f) => f,
        None => {
            return Err(crate::Error::invalid_input(match &args.output {
                Some(o) => format!("--to is needed: no format has the extension of {}", o.display()),
                None => "--to is needed (the output format), or an --output file whose extension names one".to_string(),
            }))
        }
    };
    args.files.check_output(Some(to))?;
    if let (Format::Null, Some(output)) = (to, &args.output) {
        return Err(crate::Error::invalid_input(format!(
            "--to Null writes nothing: leave out --output {} (it would be created empty)",
            output.display()
        )));
    }
    let (from, assumed) = input_format(args.from, args.input.as_deref());
    if from == Format::Native && args.structure.is_some() {
        return Err(crate::Error::invalid_input(
            "Native input carries its columns and types: --structure is for text, Arrow and Parquet input",
        ));
    }
    let output = args.output.clone();
    let result = convert(args, from, to, limits).map_err(|e| if assumed { native_assumed(e, "--from") } else { e });
    // A failed conversion leaves no partial file behind (a Parquet file cut short is unreadable);
    // only a regular file is removed, never a device or a pipe.
    if let (Err(_), Some(path)) = (&result, &output) {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(path);
        }
    }
    result
}

fn convert(args: ConvertArgs, from: Format, to: Format, limits: Limits) -> crate::Result<()> {
    let tz = Some(args.timezone.as_deref().unwrap_or("UTC"));
    let files = args.files.options(&args.settings, tz)?;
    let mut source = formats::source(from, args.input.as_deref(), &files, tz, limits)?;
    let structure = args.structure.as_deref().map(formats::parse_structure).transpose()?;
    if let Some(columns) = &structure {
        source.bind(columns)?;
    }
    let mut sink = formats::sink(to, formats::open_output(args.output.as_deref())?, tz, &files)?;
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
                return Err(crate::Error::invalid_input(format!(
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
            None if matches!(to, Format::Arrow | Format::ArrowStream | Format::Parquet) => {
                return Err(crate::Error::invalid_input(format!(
                    "the input has no rows and declares no columns: a {} file needs them (give --structure)",
                    to
                )));
            }
            None => {}
        }
    }
    Ok(sink.finish()?)
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
