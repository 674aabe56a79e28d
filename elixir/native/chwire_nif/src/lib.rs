//! The NIF of chwire's Elixir binding (`Chwire.Native`, elixir/lib/chwire/native.ex).
//!
//! Nothing here blocks a scheduler on the network: every operation starts a task on chwire's
//! tokio runtime and returns an op at once; results are delivered as `{:chwire, id, cells}`
//! messages and taken with `op_take`, which builds the terms in the caller (on a dirty CPU
//! scheduler when they are many; see `ops`). Every NIF catches panics and returns
//! `{:error, %Chwire.Error{name: "PANIC"}}` instead of taking the VM down.

mod alloc;
mod columns;
mod convert;
mod error;
mod etf;
mod json;
mod ops;
mod params;
mod qbit;
mod tasks;
mod terms;

use chwire::sql::{InsertTarget, TableRef};
use chwire::QuerySpec;
use convert::{header_of, Out};
use error::NifError;
use ops::{runtime, Handle, Item, Op};
use rustler::{Atom, Binary, Encoder, Env, ResourceArc, Term};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod atoms {
    rustler::atoms! {
        ok, error, nil, chwire, __struct__, __exception__, kind, code, name, message, rows_inserted,
        done, header, block, empty, sent, insert_header, more,
        columns, result, rows, maps, maps_subset,
    }
}

/// Run a NIF body, turning a panic or an error into `{:error, %Chwire.Error{}}`.
fn guard<'a>(env: Env<'a>, f: impl FnOnce() -> Result<Term<'a>, NifError>) -> Term<'a> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => e.to_error_tuple(env),
        Err(p) => NifError::Panic(error::panic_message(&*p)).to_error_tuple(env),
    }
}

fn ok<'a>(env: Env<'a>, t: impl Encoder) -> Term<'a> {
    (atoms::ok(), t).encode(env)
}

/// Start `work` as op `id` of the calling process.
fn start_op<'a, F>(
    env: Env<'a>,
    id: u64,
    depth: usize,
    target: Option<&chwire::Shared>,
    work: impl FnOnce(ops::Tx) -> F,
) -> (ResourceArc<Op>, Term<'a>)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let (op, tx) = Op::new(env.pid(), id, depth, target);
    let op = ResourceArc::new(op);
    op.start(tx, work);
    let t = ok(env, op.clone());
    (op, t)
}

fn spec(
    sql: String,
    params: Vec<(String, Term<'_>)>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
) -> Result<QuerySpec, NifError> {
    let mut spec = QuerySpec::new(sql);
    spec.settings = settings;
    spec.query_id = query_id;
    params::bind_all(&mut spec, params).map_err(NifError::Data)?;
    Ok(spec)
}

/// A table reference from Elixir: a binary read by the core's `TableRef::parse` (`t`, `db.t`,
/// quoted parts) or a `{db, table}` tuple of binaries taken as they are (names with dots).
/// Never pasted: anything else is a `:data` error and no SQL runs.
fn table_ref(t: Term<'_>) -> Result<TableRef, NifError> {
    if let Ok(name) = t.decode::<String>() {
        Ok(TableRef::parse(&name).map_err(chwire::Error::from)?)
    } else if let Ok((db, table)) = t.decode::<(String, String)>() {
        if db.is_empty() || table.is_empty() {
            return Err(NifError::Data(format!("an empty name in the table {{{db:?}, {table:?}}}")));
        }
        Ok(TableRef::qualified(db, table))
    } else {
        Err(NifError::Data("a table is a name (\"t\", \"db.t\") or a {db, table} tuple of strings".into()))
    }
}

/// Check a table reference as the inserts read it: `:ok` or the `:data` error (an insert with
/// no data runs nothing, but its table is still checked).
#[rustler::nif]
fn check_table<'a>(env: Env<'a>, table: Term<'a>) -> Term<'a> {
    guard(env, || {
        table_ref(table)?;
        Ok(atoms::ok().encode(env))
    })
}

// ---------------------------------------------------------------- connections

/// Connect (in the background): `{:ok, op}`, then the op yields `{:ok, handle}`.
#[rustler::nif]
fn connect<'a>(env: Env<'a>, url: Option<String>, opts: Vec<(String, String)>, id: u64) -> Term<'a> {
    guard(env, || {
        let o = tasks::options(url.as_deref(), &opts)?;
        Ok(start_op(env, id, 1, None, |tx| tasks::connect(o, tx)).1)
    })
}

/// A pool (connections open on demand): `{:ok, handle}`. `opts` are the pool's and the
/// connection's together, sorted by the core's table of keys (names, aliases, spellings).
#[rustler::nif]
fn pool_new<'a>(env: Env<'a>, url: Option<String>, opts: Vec<(String, String)>) -> Term<'a> {
    guard(env, || {
        let mut opts = opts;
        let p = chwire::PoolOptions::take(&mut opts)?;
        let o = tasks::options(url.as_deref(), &opts)?;
        let _enter = runtime().enter();
        Ok(ok(env, ResourceArc::new(Handle { target: chwire::Shared::pool(o, p)? })))
    })
}

/// Whether `key` (any spelling of a name or alias of the core's table) takes a duration:
/// `Chwire` writes an integer given for one as milliseconds, as Erlang's timeouts are.
#[rustler::nif]
fn duration_key(key: String) -> bool {
    chwire::options::keys::takes_duration(&key)
}

/// `%{size, idle, in_use, waiting}` of a pool (`nil` for a connection).
#[rustler::nif]
fn pool_status<'a>(env: Env<'a>, h: ResourceArc<Handle>) -> Term<'a> {
    guard(env, || match h.target.pool_status() {
        Some(s) => {
            let keys = ["size", "idle", "in_use", "waiting"].map(|k| Atom::from_str(env, k).map(|a| a.encode(env)));
            let keys: Vec<Term<'a>> = keys.into_iter().collect::<Result<_, _>>().map_err(|_| NifError::Data("atom".into()))?;
            let vals = [s.size as u64, s.idle as u64, s.in_use as u64, s.waiting as u64].map(|v| v.encode(env));
            Ok(Term::map_from_term_arrays(env, &keys, &vals).map_err(|_| NifError::Data("map".into()))?)
        }
        None => Ok(atoms::nil().encode(env)),
    })
}

/// Close a connection (a running query ends first); pools close when their handle is gone.
#[rustler::nif]
fn close<'a>(env: Env<'a>, h: ResourceArc<Handle>) -> Term<'a> {
    guard(env, || {
        if !h.target.is_pool() {
            let c = h.target.clone();
            runtime().spawn(async move { c.close().await });
        }
        Ok(atoms::ok().encode(env))
    })
}

/// Ping the server through the handle (op yields `{:ok, 0}`).
#[rustler::nif]
fn ping<'a>(env: Env<'a>, h: ResourceArc<Handle>, id: u64) -> Term<'a> {
    guard(env, || Ok(start_op(env, id, 1, Some(&h.target), |tx| tasks::ping(h.clone(), tx)).1))
}

// ---------------------------------------------------------------- queries

/// Start a SELECT (or any statement). `mode`: `:all` (one item with every block) or
/// `:stream` (header, blocks, done; one block queued at a time).
#[rustler::nif]
#[allow(clippy::too_many_arguments)]
fn query<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    sql: String,
    params: Vec<(String, Term<'a>)>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    stream: bool,
    columns: bool,
    limits: Vec<(String, String)>,
    id: u64,
) -> Term<'a> {
    query_impl(env, h, sql, params, settings, query_id, stream, columns, limits, id)
}

/// `query` on a dirty CPU scheduler, for parameters with lists, tuples or maps (their
/// conversion is as long as they are: 1M values took ~60 ms).
#[rustler::nif(schedule = "DirtyCpu")]
#[allow(clippy::too_many_arguments)]
fn query_dirty<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    sql: String,
    params: Vec<(String, Term<'a>)>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    stream: bool,
    columns: bool,
    limits: Vec<(String, String)>,
    id: u64,
) -> Term<'a> {
    query_impl(env, h, sql, params, settings, query_id, stream, columns, limits, id)
}

#[allow(clippy::too_many_arguments)]
fn query_impl<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    sql: String,
    params: Vec<(String, Term<'a>)>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    stream: bool,
    columns: bool,
    limits: Vec<(String, String)>,
    id: u64,
) -> Term<'a> {
    guard(env, || {
        let mut spec = spec(sql, params, settings, query_id)?;
        spec.limits = result_limits(&limits)?;
        let target = h.clone();
        let t = if stream {
            ops::stream_opened(id, &h.target, env.pid());
            start_op(env, id, 1, Some(&h.target), |tx| tasks::query_stream(target, spec, tx)).1
        } else {
            start_op(env, id, 1, Some(&h.target), |tx| tasks::query_all(target, spec, columns, tx)).1
        };
        Ok(t)
    })
}

/// `max_collected_rows:`/`max_collected_bytes:` as the core reads them (`0`: no bound).
fn result_limits(pairs: &[(String, String)]) -> Result<chwire::ResultLimits, NifError> {
    let mut limits = chwire::ResultLimits::none();
    for (k, v) in pairs {
        limits.set(k, v)?;
    }
    Ok(limits)
}

/// An insert's options (`block_rows:`) as the core reads them.
fn insert_options(pairs: Vec<(String, String)>) -> Result<chwire::InsertOptions, NifError> {
    Ok(chwire::InsertOptions::from_pairs(pairs)?)
}

/// `{:ok, block_rows}` of an insert's options (the rows path cuts its data by it).
#[rustler::nif]
fn insert_block_rows<'a>(env: Env<'a>, pairs: Vec<(String, String)>) -> Term<'a> {
    guard(env, || Ok((atoms::ok(), insert_options(pairs)?.block_rows as u64).encode(env)))
}

/// A SELECT as one Arrow IPC stream (op yields `{:ok, binary}`). `mapping`: `"rich"` or
/// `"clickhouse"` (docs/ARROW.md); `output_format_arrow_*` settings shape the batches and are
/// not sent (the server may not know them). On a dirty scheduler: its parameters may be long
/// lists, and its results are the large ones anyway.
#[rustler::nif(schedule = "DirtyCpu")]
#[allow(clippy::too_many_arguments)]
fn query_arrow<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    sql: String,
    params: Vec<(String, Term<'a>)>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    mapping: String,
    limits: Vec<(String, String)>,
    id: u64,
) -> Term<'a> {
    guard(env, || {
        // The core's Arrow mapping by name, and its output settings taken out (not sent).
        let mut arrow = chwire_arrow::ArrowOptions::named(&mapping)?;
        let mut settings = settings;
        arrow.take_settings(&mut settings)?;
        let mut spec = spec(sql, params, settings, query_id)?;
        spec.limits = result_limits(&limits)?;
        let target = h.clone();
        Ok(start_op(env, id, 1, Some(&h.target), |tx| tasks::query_arrow(target, spec, arrow, tx)).1)
    })
}

/// Insert an Arrow IPC stream (op yields `{:ok, rows}`) through the core's Arrow insert, with
/// `settings`, `query_id` and the insert options `options` (`block_rows`).
#[rustler::nif(schedule = "DirtyCpu")]
#[allow(clippy::too_many_arguments)]
fn insert_arrow<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    table: Term<'a>,
    ipc: Binary<'a>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    options: Vec<(String, String)>,
    id: u64,
) -> Term<'a> {
    guard(env, || {
        let table = table_ref(table)?;
        let options = insert_options(options)?;
        let bytes = ipc.as_slice().to_vec();
        let target = h.clone();
        let job = tasks::ArrowInsertJob { table, settings, query_id, options };
        Ok(start_op(env, id, 1, Some(&h.target), |tx| tasks::insert_arrow(target, job, bytes, tx)).1)
    })
}

// ---------------------------------------------------------------- inserts

/// Start `INSERT INTO table [(names)] VALUES` (`table`: see `table_ref`): the op yields `{:insert_header, columns}`,
/// then `:sent` per block given with `insert_block`, then `{:ok, rows}` after `insert_end`.
#[rustler::nif]
fn insert_start<'a>(
    env: Env<'a>,
    h: ResourceArc<Handle>,
    table: Term<'a>,
    names: Option<Vec<String>>,
    settings: Vec<(String, String)>,
    query_id: Option<String>,
    id: u64,
) -> Term<'a> {
    guard(env, || {
        let sql = InsertTarget::values(table_ref(table)?, names).to_string();
        let mut spec = QuerySpec::new(sql);
        spec.settings = settings;
        spec.query_id = query_id;
        let (btx, brx) = tokio::sync::mpsc::channel(2);
        let target = h.clone();
        let (op, t) = start_op(env, id, 4, Some(&h.target), |tx| tasks::insert(target, spec, brx, tx));
        *op.blocks.lock().unwrap_or_else(|e| e.into_inner()) = Some(btx);
        Ok(t)
    })
}

fn insert_block_impl<'a>(env: Env<'a>, op: ResourceArc<Op>, layout: Atom, data: Term<'a>, max_rows: u64, first_row: u64) -> Term<'a> {
    guard(env, || {
        let header = op
            .insert_columns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or(NifError::Data("the insert has no header yet".into()))?;
        let layout = if layout == atoms::columns() {
            columns::Layout::Columns
        } else if layout == atoms::maps() {
            columns::Layout::RowMaps { exact: true }
        } else if layout == atoms::maps_subset() {
            columns::Layout::RowMaps { exact: false }
        } else {
            columns::Layout::RowLists
        };
        let (block, rest) =
            columns::build_block(env, &header, layout, data, max_rows.max(1) as usize, first_row).map_err(NifError::Data)?;
        let rows = block.rows();
        if rows > 0 {
            let tx = op.blocks.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or(NifError::Closed)?;
            if tx.try_send(block).is_err() {
                // The insert ended (its error is the op's next item) or too many blocks queued.
                return Ok((atoms::error(), atoms::done()).encode(env));
            }
        }
        Ok((atoms::ok(), rows as u64, rest).encode(env))
    })
}

/// Build a block of at most `max_rows` rows from `data` (layout `:columns`, `:rows` or
/// `:maps`) and queue it: `{:ok, rows, rest}`, or an error naming the column and row of the
/// first value that does not fit (nothing of the block is sent).
#[rustler::nif]
fn insert_block<'a>(env: Env<'a>, op: ResourceArc<Op>, layout: Atom, data: Term<'a>, max_rows: u64, first_row: u64) -> Term<'a> {
    insert_block_impl(env, op, layout, data, max_rows, first_row)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn insert_block_dirty<'a>(env: Env<'a>, op: ResourceArc<Op>, layout: Atom, data: Term<'a>, max_rows: u64, first_row: u64) -> Term<'a> {
    insert_block_impl(env, op, layout, data, max_rows, first_row)
}

/// No more blocks: the insert ends (the op yields `{:ok, rows}`).
#[rustler::nif]
fn insert_end<'a>(env: Env<'a>, op: ResourceArc<Op>) -> Term<'a> {
    guard(env, || {
        op.blocks.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(atoms::ok().encode(env))
    })
}

// ---------------------------------------------------------------- results

/// Ref-counted bytes handed to the VM as a binary without a copy.
struct Bytes(Vec<u8>);

#[rustler::resource_impl]
impl rustler::Resource for Bytes {}

fn take_impl<'a>(env: Env<'a>, op: ResourceArc<Op>, columns: bool) -> Term<'a> {
    guard(env, || {
        let Some(item) = op.take() else { return Ok(atoms::empty().encode(env)) };
        let tz = op.shared.tz.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let out = Out::new(env, tz);
        Ok(match item {
            Item::Rows { header, blocks } => {
                let header = header.as_ref().or(blocks.first()).map(header_of).unwrap_or_default();
                if columns {
                    ok(env, out.column_pairs(&header, &blocks))
                } else {
                    ok(env, out.result(&header, &blocks))
                }
            }
            Item::Encoded { header, enc } => {
                let header = header.as_ref().map(header_of).unwrap_or_default();
                ok(env, out.encoded(&header, enc))
            }
            Item::Header(b) => {
                let h: Vec<(String, String)> = header_of(&b).into_iter().map(|(n, t)| (n, t.to_string())).collect();
                (atoms::header(), h).encode(env)
            }
            Item::Block(b) => (atoms::block(), out.result(&header_of(&b), std::slice::from_ref(&b))).encode(env),
            Item::Done => atoms::done().encode(env),
            Item::Handle(h) => ok(env, ResourceArc::new(h)),
            Item::InsertHeader(cols) => {
                let h: Vec<(String, String)> = cols.iter().map(|(n, t)| (n.clone(), t.to_string())).collect();
                *op.insert_columns.lock().unwrap_or_else(|e| e.into_inner()) = Some(cols);
                (atoms::insert_header(), h).encode(env)
            }
            Item::Sent => atoms::sent().encode(env),
            Item::Count(n) => ok(env, n),
            Item::Arrow(bytes) => {
                let r = ResourceArc::new(Bytes(bytes));
                let bin = r.make_binary(env, |b| &b.0);
                ok(env, bin)
            }
            Item::Error(e) => e.to_error_tuple(env),
        })
    })
}

/// The op's next item as terms built in the caller (`:empty` when none is queued).
/// `columns`: a whole result as `[{name, values}]` rather than `%Chwire.Result{}`.
#[rustler::nif]
fn op_take<'a>(env: Env<'a>, op: ResourceArc<Op>, columns: bool) -> Term<'a> {
    take_impl(env, op, columns)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn op_take_dirty<'a>(env: Env<'a>, op: ResourceArc<Op>, columns: bool) -> Term<'a> {
    take_impl(env, op, columns)
}

/// The heap words the terms of the op's whole result take, once it is queued (nil for other
/// items: the caller estimates from the cells of its message).
#[rustler::nif]
fn op_words(op: ResourceArc<Op>) -> Option<u64> {
    *op.shared.words.lock().unwrap_or_else(|e| e.into_inner())
}

/// Stop an op: its query is cancelled on the server (chwire sends Cancel and drains the
/// connection before its next query), an unfinished insert is aborted. No message of the op
/// arrives after this returns.
#[rustler::nif]
fn op_cancel<'a>(env: Env<'a>, op: ResourceArc<Op>) -> Term<'a> {
    guard(env, || {
        op.cancel();
        Ok(atoms::ok().encode(env))
    })
}

/// Whether the stream op `id` is alive (its resource not yet collected): a stream abandoned
/// without being closed frees its connection when it is collected.
#[rustler::nif]
fn stream_open(id: u64) -> bool {
    ops::stream_open(id)
}

/// The processes consuming a live stream on this connection (`[]` for a pool): one that
/// abandoned its stream without closing it frees the connection once it collects its garbage.
#[rustler::nif]
fn stream_owners(h: ResourceArc<Handle>) -> Vec<rustler::LocalPid> {
    ops::stream_owners(&h.target)
}

// ---------------------------------------------------------------- Native format, tests, floors

/// Decode Native-format bytes (as `FORMAT Native` or chwire's writers produce) with chwire's
/// decoders: `{:ok, [%Chwire.Result{}]}`, one per block.
#[rustler::nif(schedule = "DirtyCpu")]
fn decode_native<'a>(env: Env<'a>, bytes: Binary<'a>, tz: Option<String>) -> Term<'a> {
    guard(env, || {
        let blocks = chwire::proto::native::decode_all(bytes.as_slice()).map_err(|e| NifError::Data(e.to_string()))?;
        let out = Out::new(env, tz);
        let results: Vec<Term<'a>> = blocks.iter().map(|b| out.result(&header_of(b), std::slice::from_ref(b))).collect();
        Ok(ok(env, results))
    })
}

/// Encode columns `[{name, type, values}]` as one Native block, through the same builders as
/// inserts: `{:ok, bytes}`.
#[rustler::nif(schedule = "DirtyCpu")]
fn encode_native<'a>(env: Env<'a>, columns: Vec<(String, String, Term<'a>)>) -> Term<'a> {
    guard(env, || {
        let mut header = Vec::with_capacity(columns.len());
        let mut lists = Vec::with_capacity(columns.len());
        for (n, t, values) in columns {
            let ty = chwire::DataType::parse(&t).map_err(|e| NifError::Data(format!("column `{n}`: {e}")))?;
            header.push((n, ty));
            lists.push(values);
        }
        let data = lists.encode(env);
        let (block, _) = columns::build_block(env, &header, columns::Layout::Columns, data, usize::MAX, 0).map_err(NifError::Data)?;
        let mut out = Vec::new();
        chwire::proto::native::encode_block(&block, &mut out);
        let r = ResourceArc::new(Bytes(out));
        Ok(ok(env, r.make_binary(env, |b| &b.0)))
    })
}

/// The floor of building the seed's terms: `rows` rows of (UInt64 ×3, Float64 ×2, Int64,
/// UInt32) made in memory (no network, no decoding), turned into `[{name, values}]` the way
/// `query_columns` does. The buffers are built before the clock the caller reads.
/// `bulk`: whole columns through one external-term-format decode (what queries use), else one
/// `enif_make_*` per value (for the comparison in docs/BENCHMARKS.md).
#[rustler::nif(schedule = "DirtyCpu")]
fn floor_columns<'a>(env: Env<'a>, rows: u64, bulk: bool) -> Term<'a> {
    guard(env, || {
        use chwire::{Column, ColumnData, DataType as D};
        if rows > 100_000_000 {
            return Err(NifError::Data(format!("{rows} rows: the floor builds at most 100M")));
        }
        let n = rows as usize;
        let u: Vec<u64> = (0..n as u64).collect();
        let f: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
        let i: Vec<i64> = (0..n as i64).map(|x| x - 500_000).collect();
        let w: Vec<u32> = (0..n as u32).collect();
        let mut b = chwire::Block::new();
        let cols = [
            ("id", D::UInt64, ColumnData::UInt64(u.clone())),
            ("user_id", D::UInt64, ColumnData::UInt64(u.clone())),
            ("timestamp", D::UInt64, ColumnData::UInt64(u)),
            ("value", D::Float64, ColumnData::Float64(f.clone())),
            ("count", D::Int64, ColumnData::Int64(i)),
            ("score", D::Float64, ColumnData::Float64(f)),
            ("rank", D::UInt32, ColumnData::UInt32(w)),
        ];
        for (name, ty, data) in cols {
            b.push(name, Column::new(ty, data)?)?;
        }
        let (t0, c0) = (std::time::Instant::now(), thread_cpu_us());
        let mut out = Out::new(env, None);
        out.bulk = bulk;
        let t = out.column_pairs(&header_of(&b), std::slice::from_ref(&b));
        let (us, cpu) = (t0.elapsed().as_micros() as u64, thread_cpu_us() - c0);
        Ok(ok(env, (us, cpu, t)))
    })
}

/// The kernel's floor of a result binary of `bytes` bytes: memory from Rust's allocator filled
/// 64 KiB at a time and handed to the VM, as `query_arrow`'s IPC stream is (its pages are
/// fresh every time: the allocator maps buffers this large anew and unmaps them when freed,
/// where a binary made by the VM may reuse a carrier the VM kept).
#[rustler::nif(schedule = "DirtyCpu")]
fn floor_fresh_bytes<'a>(env: Env<'a>, bytes: u64) -> Term<'a> {
    guard(env, || {
        if bytes > 16 << 30 {
            return Err(NifError::Data(format!("{bytes} bytes: the floor writes at most 16 GiB")));
        }
        let (n, chunk) = (bytes as usize, [1u8; 65536]);
        let mut v = Vec::new();
        while v.len() < n {
            v.extend_from_slice(&chunk[..chunk.len().min(n - v.len())]);
        }
        let r = ResourceArc::new(Bytes(v));
        Ok(ok(env, r.make_binary(env, |b| &b.0)))
    })
}

/// The network-and-decoding floor of a query: its blocks read and dropped, no terms (op
/// yields `{:ok, rows}`).
#[rustler::nif]
fn query_count<'a>(env: Env<'a>, h: ResourceArc<Handle>, sql: String, id: u64) -> Term<'a> {
    guard(env, || {
        let target = h.clone();
        Ok(start_op(env, id, 1, Some(&h.target), |tx| tasks::count(target, sql, tx)).1)
    })
}

/// CPU time of the calling thread, in µs (robust to other processes' load).
fn thread_cpu_us() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

/// A deliberate panic inside a NIF, to show it comes back as an error tuple.
#[rustler::nif]
fn panic_test<'a>(env: Env<'a>, what: String) -> Term<'a> {
    guard(env, || -> Result<Term<'a>, NifError> { panic!("panic_test: {what}") })
}

/// A deliberate panic inside a runtime task (the op yields an error item).
#[rustler::nif]
fn panic_task<'a>(env: Env<'a>, id: u64) -> Term<'a> {
    guard(env, || Ok(start_op(env, id, 1, None, |_tx| async move { panic!("panic in a chwire task") }).1))
}

/// On load: panics (caught at the NIF boundary or in a task, and returned as errors) print one
/// line to stderr instead of the default hook's backtrace.
fn load(_env: Env<'_>, _info: Term<'_>) -> bool {
    std::panic::set_hook(Box::new(|p| {
        let at = p.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("chwire: caught panic{at}: {}", error::panic_message(p.payload()));
    }));
    true
}

rustler::init!("Elixir.Chwire.Native", load = load);

#[global_allocator]
static GLOBAL: alloc::Split = alloc::Split;
