//! The tasks behind each operation (see `ops`).

use crate::error::NifError;
use crate::ops::{Handle, Item, Tx};
use chwire::{Block, Client, Event, Options, QuerySpec, Shared};
use rustler::ResourceArc;

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
/// arrive (`columns`: the shape, one list per column or rows) and the blocks dropped. The
/// spec's bounds (`max_collected_rows:`, `max_collected_bytes:`) are the core's: past one, the
/// query is cancelled and drained and the item is the error.
pub async fn query_all(target: ResourceArc<Handle>, spec: QuerySpec, columns: bool, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        note_tz(&tx, c);
        let mut s = spec.query(c).stream().await?;
        let mut enc = Some(crate::etf::Encoded::new(columns));
        let mut blocks = Vec::new();
        while let Some(b) = s.next_block().await? {
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

/// A SELECT as one Arrow IPC stream, written batch by batch (the spec's bounds as
/// `query_all`'s).
pub async fn query_arrow(target: ResourceArc<Handle>, spec: QuerySpec, arrow: chwire_arrow::ArrowOptions, tx: Tx) {
    let res = async {
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        let mut s = spec.query(c).fetch_arrow(arrow).await?;
        let schema = s.schema();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::with_capacity(1 << 20), &schema)?;
        while let Some(batch) = s.next_batch().await? {
            w.write(&batch)?;
        }
        w.finish()?;
        Ok::<_, NifError>(Item::Arrow(w.into_inner()?))
    }
    .await;
    tx.send(res.unwrap_or_else(Item::Error)).await;
}

/// What an Arrow insert goes into, and how.
pub struct ArrowInsertJob {
    pub table: chwire::sql::TableRef,
    pub settings: Vec<(String, String)>,
    pub query_id: Option<String>,
    pub options: chwire::InsertOptions,
}

/// An Arrow IPC stream inserted into the job's table by the core's Arrow insert (columns by
/// the stream's names; data refused ends it with the blocks before committed).
pub async fn insert_arrow(target: ResourceArc<Handle>, job: ArrowInsertJob, ipc: Vec<u8>, tx: Tx) {
    let res = async {
        // The whole stream is decoded before the INSERT starts, so a malformed one sends
        // nothing (the core's safe reading: framing checked, a panic of arrow-ipc an error).
        let batches = chwire_arrow::read_ipc_stream(ipc)?;
        let names: Vec<String> = match batches.first() {
            None => return Ok(Item::Count(0)),
            Some(b) if b.num_columns() == 0 => return Err(NifError::Arrow("the IPC stream's batches have no columns".into())),
            Some(b) => b.schema().fields().iter().map(|f| f.name().clone()).collect(),
        };
        let mut spec = QuerySpec::new(chwire::sql::InsertTarget::values(job.table, Some(names)).to_string());
        spec.settings = job.settings;
        spec.query_id = job.query_id;
        let mut lease = target.target.lease().await?;
        let c = lease.client()?;
        let mut ins = spec.query(c).insert_arrow().await?.options(&job.options);
        for b in batches {
            ins.send_batch(b).await?;
        }
        Ok::<_, NifError>(Item::Count(ins.end().await?.rows_sent))
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
