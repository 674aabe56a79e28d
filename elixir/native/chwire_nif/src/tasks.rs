//! The tasks behind each operation (see `ops`).

use crate::error::NifError;
use crate::ops::{Handle, Item, Tx};
use chwire::{Block, Client, Event, Options, QuerySpec, Shared};
use rustler::ResourceArc;

/// Bounds of a result collected whole (`max_result_rows:`, `max_result_bytes:`; `None`: no bound).
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub max_rows: Option<u64>,
    pub max_bytes: Option<u64>,
}

/// What a result collected whole holds so far, against its `Limits`.
struct Tally {
    limits: Limits,
    rows: u64,
    bytes: u64,
    /// What the bytes are, for the message.
    what: &'static str,
}

impl Tally {
    fn new(limits: Limits, what: &'static str) -> Tally {
        Tally { limits, rows: 0, bytes: 0, what }
    }

    /// Count `rows` and `bytes` more; an error when that goes over a limit (nothing of them
    /// is kept then).
    fn add(&mut self, rows: u64, bytes: u64) -> Result<(), NifError> {
        let (rows, bytes) = (self.rows.saturating_add(rows), self.bytes.saturating_add(bytes));
        let hint = "the query was cancelled; use Chwire.stream/4 for results this large (memory bounded by a block), \
                    or raise the limit (:infinity lifts it)";
        if let Some(max) = self.limits.max_rows.filter(|&m| rows > m) {
            return Err(NifError::Limit("MAX_ROWS_EXCEEDED", format!("the result has more than max_result_rows: {max} rows; {hint}")));
        }
        if let Some(max) = self.limits.max_bytes.filter(|&m| bytes > m) {
            return Err(NifError::Limit(
                "MAX_BYTES_EXCEEDED",
                format!("the result has more than max_result_bytes: {max} bytes ({}); {hint}", self.what),
            ));
        }
        (self.rows, self.bytes) = (rows, bytes);
        Ok(())
    }
}

/// After a result went over its limits: the abandoned query (its stream dropped, which sent
/// Cancel) is drained and the connection checked with a ping before the caller hears of it,
/// so that the query is gone from the server and the connection ready when the error
/// arrives. Bounded like the cancel of an op (the core's pool drains the same way).
async fn drain(c: &mut Client) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), c.ping()).await;
}

/// Options from a URL plus `{key, value}` overrides by the core's one table of keys.
pub fn options(url: Option<&str>, extra: &[(String, String)]) -> Result<Options, NifError> {
    Ok(Options::from_url_and(url, extra.iter().map(|(k, v)| (k, v)))?)
}

pub async fn connect(opts: Options, tx: Tx) {
    let item = match Shared::connect(opts).await {
        Ok(c) => Item::Handle(Handle { target: c }),
        Err(e) => Item::Error(e.into()),
    };
    tx.send(item).await;
}

fn note_tz(tx: &Tx, c: &Client) {
    let tz = c.server_info().and_then(|s| s.timezone);
    *tx.shared.tz.lock().unwrap_or_else(|e| e.into_inner()) = tz;
}

/// A whole SELECT in one item. Plain columns are encoded for the caller as the blocks
/// arrive (`columns`: the shape, one list per column or rows) and the blocks dropped.
/// Past `limits` the query is cancelled and the item is a `Limit` error.
pub async fn query_all(target: ResourceArc<Handle>, spec: QuerySpec, columns: bool, limits: Limits, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        note_tz(&tx, c);
        let mut s = spec.query(c).stream().await?;
        let mut enc = Some(crate::etf::Encoded::new(columns));
        let mut blocks = Vec::new();
        let mut tally = Tally::new(limits, "decoded column data, as chwire::row::approx_bytes counts it");
        while let Some(b) = s.next_block().await? {
            let bytes = b.columns().iter().map(|(_, col)| chwire::row::approx_bytes(col.data()) as u64).sum();
            if let Err(e) = tally.add(b.rows() as u64, bytes) {
                drop((s, blocks, enc));
                drain(c).await;
                return Err(e);
            }
            if let Some(e) = enc.as_mut() {
                if e.push(&b) {
                    continue;
                }
                // Not plain (the types are the same in every block: this is the first one).
                enc = None;
            }
            blocks.push(b);
        }
        let header = s.header().cloned();
        Ok::<_, NifError>(match enc {
            Some(enc) if blocks.is_empty() => Item::Encoded { header, enc },
            _ => Item::Rows { header, blocks },
        })
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}

/// A SELECT block by block: the header, each block (waiting for the consumer), `Done`.
pub async fn query_stream(target: ResourceArc<Handle>, spec: QuerySpec, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        note_tz(&tx, c);
        let mut s = spec.query(c).stream().await?;
        let mut header_sent = false;
        while let Some(ev) = s.next_event().await? {
            if !header_sent {
                if let Some(h) = s.header() {
                    header_sent = true;
                    if !tx.send(Item::Header(h.clone())).await {
                        return Ok(None);
                    }
                }
            }
            if let Event::Data(b) = ev {
                if b.rows() > 0 && !tx.send(Item::Block(b)).await {
                    // The consumer left: dropping the stream cancels the query.
                    return Ok(None);
                }
            }
        }
        if !header_sent {
            tx.send(Item::Header(s.header().cloned().unwrap_or_else(Block::new))).await;
        }
        Ok::<_, NifError>(Some(Item::Done))
    }
    .await;
    match res {
        Ok(Some(item)) => {
            tx.send(item).await;
        }
        Ok(None) => {}
        Err(e) => {
            tx.send(Item::Error(e)).await;
        }
    }
}

/// An INSERT fed by the caller: the header, then one `Sent` per block the caller queued,
/// then the count once the caller closed the block channel.
pub async fn insert(target: ResourceArc<Handle>, spec: QuerySpec, mut blocks: tokio::sync::mpsc::Receiver<Block>, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        note_tz(&tx, c);
        let mut ins = spec.query(c).insert_blocks().await?;
        let cols = ins.header().columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect();
        if !tx.send(Item::InsertHeader(cols)).await {
            return Ok(None);
        }
        let mut rows = 0u64;
        while let Some(b) = blocks.recv().await {
            rows += b.rows() as u64;
            ins.send(&b).await?;
            if !tx.send(Item::Sent).await {
                return Ok(None);
            }
        }
        ins.end().await?;
        Ok::<_, NifError>(Some(rows))
    }
    .await;
    match res {
        Ok(Some(rows)) => {
            tx.send(Item::Count(rows)).await;
        }
        Ok(None) => {}
        Err(e) => {
            tx.send(Item::Error(e)).await;
        }
    }
}

/// A SELECT as one Arrow IPC stream, written batch by batch.
/// Past `limits` (rows, and bytes of the IPC stream) the query is cancelled and the item is a
/// `Limit` error.
pub async fn query_arrow(target: ResourceArc<Handle>, spec: QuerySpec, arrow: chwire_arrow::ArrowOptions, limits: Limits, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        let mut s = spec.query(c).fetch_arrow(arrow).await?;
        let schema = s.schema();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::with_capacity(1 << 20), &schema)?;
        let mut tally = Tally::new(limits, "of the Arrow IPC stream");
        let mut written = 0;
        let mut over = None;
        while let Some(batch) = s.next_batch().await? {
            w.write(&batch)?;
            let now = w.get_ref().len();
            if let Err(e) = tally.add(batch.num_rows() as u64, (now - written) as u64) {
                over = Some(e);
                break;
            }
            written = now;
        }
        if over.is_none() {
            w.finish()?;
            over = tally.add(0, (w.get_ref().len() - written) as u64).err();
        }
        if let Some(e) = over {
            drop((s, w));
            drain(c).await;
            return Err(e);
        }
        Ok::<_, NifError>(Item::Arrow(w.into_inner()?))
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}

/// Check an in-memory Arrow IPC stream's framing before arrow-ipc reads it: every message's
/// metadata and body must lie within the bytes (arrow-ipc allocates what a message claims).
fn check_ipc(bytes: &[u8]) -> Result<(), NifError> {
    let bad = |what: String| NifError::Arrow(format!("malformed IPC stream: {what}"));
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut pos = 0usize;
    while pos < bytes.len() {
        let mut p = pos;
        if word(p) == Some(0xFFFF_FFFF) {
            p += 4;
        }
        let len = word(p).ok_or_else(|| bad(format!("cut in a message length at byte {p}")))? as usize;
        p += 4;
        if len == 0 {
            return Ok(());
        }
        let meta =
            bytes.get(p..p.saturating_add(len)).ok_or_else(|| bad(format!("a message of {len} bytes at byte {p} runs past the end")))?;
        let message = arrow_ipc::root_as_message(meta).map_err(|e| bad(format!("a message header at byte {p}: {e}")))?;
        let body = usize::try_from(message.bodyLength()).map_err(|_| bad("a negative body length".into()))?;
        p = p.saturating_add(len);
        if body > bytes.len().saturating_sub(p) {
            return Err(bad(format!("a body of {body} bytes at byte {p} runs past the end ({} bytes)", bytes.len())));
        }
        pos = p + body;
    }
    Ok(())
}

/// An Arrow IPC stream inserted into `table`.
pub async fn insert_arrow(target: ResourceArc<Handle>, table: String, ipc: Vec<u8>, tx: Tx) {
    let res = async {
        check_ipc(&ipc)?;
        // The whole stream is decoded before the INSERT starts, so a malformed one sends
        // nothing; arrow-ipc panics on some inconsistent buffers, which are errors here.
        let batches = std::panic::catch_unwind(|| {
            let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(ipc), None)?;
            reader.collect::<Result<Vec<_>, _>>()
        })
        .map_err(|p| NifError::Arrow(format!("malformed IPC stream: {}", crate::error::panic_message(&*p))))??;
        match batches.first() {
            None => return Ok(Item::Count(0)),
            Some(b) if b.num_columns() == 0 => return Err(NifError::Arrow("the IPC stream's batches have no columns".into())),
            _ => {}
        }
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        let summary = c.insert_arrow(&table, batches).await?;
        Ok::<_, NifError>(Item::Count(summary.rows_sent))
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}

/// A no-result statement run to its end (DDL and such), or a ping.
pub async fn ping(target: ResourceArc<Handle>, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        lease.client()?.ping().await?;
        Ok::<_, NifError>(Item::Count(0))
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}

/// A SELECT read to its end, its blocks dropped: `{:ok, rows}` (the benchmarks' floor).
pub async fn count(target: ResourceArc<Handle>, sql: String, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let mut s = lease.client()?.query(sql).stream().await?;
        let mut rows = 0u64;
        while let Some(b) = s.next_block().await? {
            rows += b.rows() as u64;
        }
        Ok::<_, NifError>(Item::Count(rows))
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}
