//! What every format's reader and writer implements ([`Source`], [`Sink`]), and where they read
//! from and write to.

use chwire_proto::{Block, DataType};

/// Where blocks come from: one reader per input format.
pub trait Source {
    /// The column names the input itself declares (Native and Arrow headers, the names line
    /// of `...WithNames`), or `None` when its values follow the target's columns in order.
    fn names(&mut self) -> crate::Result<Option<Vec<String>>>;
    /// The columns blocks must have (an INSERT's header; `convert --structure`). Text
    /// formats need it to parse; Arrow inputs convert to it (without it, to the types the
    /// file itself carries); Native blocks are checked against it by the insert.
    fn bind(&mut self, target: &[(String, DataType)]) -> crate::Result<()>;
    /// Skip the first `rows` data rows of the input (without parsing text ones).
    fn skip_rows(&mut self, rows: u64) -> crate::Result<()>;
    /// The next block, or `None` at the end of the input.
    fn next_block(&mut self) -> crate::Result<Option<Block>>;
    /// The columns of the blocks, when the input declares them even without rows (an Arrow
    /// or Parquet schema, a `...WithNamesAndTypes` header, the bound target): an empty input
    /// still converts to an empty file of those columns.
    fn columns(&self) -> Option<Vec<(String, DataType)>> {
        None
    }
}

/// How many rows (and how many bytes of text) a block read from text holds at most.
#[derive(Debug, Clone, Copy)]
pub struct BlockLimits {
    /// Rows per block at most (text input; also the batch size of Parquet reads). Default
    /// 65,536.
    pub rows: usize,
    /// Bytes of text per block, about (a block ends at the first row boundary past it). Default
    /// 16 MiB.
    pub bytes: usize,
}

impl Default for BlockLimits {
    fn default() -> Self {
        BlockLimits { rows: 65_536, bytes: 16 << 20 }
    }
}

/// Names and types of a block's columns.
pub fn columns_of(block: &Block) -> Vec<(String, DataType)> {
    block.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect()
}

/// Where blocks go: one writer per output format. `begin` gets the header (names and types,
/// no rows) before the first block; `finish` completes the file (footers, flush).
pub trait Sink {
    /// Start the output with the columns (names and types) of the blocks to come: header lines,
    /// schemas. Called once, before any block, also when no block follows.
    fn begin(&mut self, header: &[(String, DataType)]) -> crate::Result<()>;
    /// Write one block (its columns are those given to `begin`).
    fn write(&mut self, block: Block) -> crate::Result<()>;
    /// Push what is buffered to the output (for terminals; files flush at `finish`).
    fn flush(&mut self) -> crate::Result<()>;
    /// Complete the output (footers, flush); the sink is gone afterwards.
    fn finish(self: Box<Self>) -> crate::Result<()>;
}

/// Where a [`Source`] reads from.
pub enum Input {
    /// A file at this path.
    File(std::path::PathBuf),
    /// The process's standard input.
    Stdin,
    /// Bytes already in memory (the fuzz targets read through this).
    Bytes(bytes::Bytes),
}

/// Whether an error is a write to a closed pipe (the reader went away, e.g. `| head`).
pub fn is_broken_pipe(e: &crate::Error) -> bool {
    matches!(e.kind(), crate::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// The output: a file or stdout.
pub type Output = Box<dyn std::io::Write + Send>;

/// Open `input` as a byte stream.
pub fn open_input(input: Input) -> crate::Result<Box<dyn std::io::Read>> {
    Ok(match input {
        Input::File(p) => Box::new(open_file(&p)?),
        Input::Stdin => Box::new(std::io::stdin().lock()),
        Input::Bytes(b) => Box::new(std::io::Cursor::new(b)),
    })
}

/// A file the user named to read: one that cannot be opened (missing, a directory, not
/// readable) is bad input (exit code 2), named in the error.
pub fn open_file(p: &std::path::Path) -> crate::Result<std::fs::File> {
    let f = std::fs::File::open(p).map_err(|e| crate::Error::file(p, e))?;
    if f.metadata().map_err(|e| crate::Error::file(p, e))?.is_dir() {
        return Err(crate::Error::new(crate::ErrorKind::File(format!("{}: is a directory", p.display()))));
    }
    Ok(f)
}

/// Create `path` for writing, or stdout.
pub fn open_output(path: Option<&std::path::Path>) -> crate::Result<Output> {
    Ok(match path {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| crate::Error::file(p, e))?),
        None => Box::new(std::io::stdout()),
    })
}
