//! For the oracle suite (tests/oracle/arrow.py): reads a Native file (as chdb writes it),
//! writes its blocks as Arrow IPC streams in both mappings, reads those streams back and
//! converts them to Native again.
//!
//! `arrow_oracle IN.native OUTDIR TIMEZONE MAPPING` (MAPPING `rich` or `clickhouse`) writes
//! OUTDIR/MAPPING.arrows and OUTDIR/MAPPING.native. Exit code 3 (message "unsupported: ...") when a type has
//! no Arrow mapping, 1 on any other error.

use chwire_arrow::{batch_to_block_inferred, block_to_batch, schema_of_block, ArrowOptions, Error};
use chwire_proto::native;
use std::path::Path;

fn run(input: &Path, out: &Path, tz: &str, mode: &str) -> Result<(), Box<dyn std::error::Error>> {
    let blocks = native::decode_all(&std::fs::read(input)?)?;
    let Some(first) = blocks.first() else { return Err("no blocks".into()) };
    let mut opts = if mode == "rich" { ArrowOptions::rich() } else { ArrowOptions::clickhouse() };
    opts.default_timezone = Some(tz.to_string());
    {
        let schema = schema_of_block(first, &opts)?;
        let mut bytes = Vec::new();
        {
            let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &schema)?;
            for b in &blocks {
                w.write(&block_to_batch(b.clone(), &schema, &opts)?)?;
            }
            w.finish()?;
        }
        std::fs::write(out.join(format!("{mode}.arrows")), &bytes)?;
        let mut native_out = Vec::new();
        for batch in arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)? {
            native::encode_block(&batch_to_block_inferred(&batch?)?, &mut native_out);
        }
        std::fs::write(out.join(format!("{mode}.native")), native_out)?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || !["rich", "clickhouse"].contains(&args[4].as_str()) {
        eprintln!("usage: arrow_oracle IN.native OUTDIR TIMEZONE rich|clickhouse");
        std::process::exit(2);
    }
    if let Err(e) = run(Path::new(&args[1]), Path::new(&args[2]), &args[3], &args[4]) {
        let unsupported =
            matches!(e.downcast_ref::<Error>(), Some(Error::UnsupportedType(_))) || e.to_string().contains("has no Arrow mapping");
        eprintln!("{}{e}", if unsupported { "unsupported: " } else { "error: " });
        std::process::exit(if unsupported { 3 } else { 1 });
    }
}
