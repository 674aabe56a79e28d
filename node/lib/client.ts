// The client: `connect(url, options)`, `createPool(url, options)` and the operations both have.
//
// Every operation starts a task in the addon and awaits its items; an `AbortSignal` cancels it
// (the query is stopped on the server at once). Connection options are the core's URL keys
// (the same names in the URL, in `options` and in every binding).

import { Readable } from 'node:stream';
import * as arrowCjs from 'apache-arrow';
import type * as arrow from 'apache-arrow';
import * as native from './native';
import { abortError, call, callSync, ChwireError, translate } from './errors';
import { column, Desc, rowBuilder, RowBuilder, TypedArray } from './columns';
import { isTypedArray, pack, transpose } from './insert';

export type Scalar = string | number | bigint | boolean;

// apache-arrow is a dual package: `import` and `require` load two copies whose classes differ.
// The ESM entry (index.mts) hands its copy over, so that the Tables an ESM program makes and
// gets are of the classes it imports.
let A: typeof arrowCjs = arrowCjs;
/** @internal */
export function useArrow(mod: typeof arrowCjs): void {
  A = mod;
}

/** Connection options: the core's URL keys (`compression`, `connect_timeout`, `secure`, …);
 * unknown keys are ClickHouse settings sent with every query. `settings` adds settings. */
export interface ConnectOptions {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  settings?: Record<string, Scalar>;
  [key: string]: Scalar | Record<string, Scalar> | undefined;
}

/** The pool's options: the core's `PoolOptions` names (durations as `'5s'`, `'500ms'` or seconds). */
export interface PoolOptions {
  max_size?: number;
  min_idle?: number;
  acquire_timeout?: string | number;
  idle_timeout?: string | number;
  max_lifetime?: string | number;
  health_check_after?: string | number;
}

export interface QueryOptions {
  /** Values for `{name:Type}` placeholders (sent as data, never as SQL). */
  params?: Record<string, unknown>;
  /** ClickHouse settings for this query. */
  settings?: Record<string, Scalar>;
  queryId?: string;
  signal?: AbortSignal;
  /** (U)Int64 as `bigint` (default) or `number` (each value checked to be exact). */
  int64?: 'bigint' | 'number';
  /** Decimal as its exact text (default) or the nearest `number`. */
  decimal?: 'string' | 'number';
}

export interface RowOptions extends QueryOptions {
  /** Rows as objects keyed by column name (default) or as arrays in column order. */
  rowMode?: 'object' | 'array';
}

export interface ArrowOptions extends QueryOptions {
  /** `rich` (natural Arrow types, default) or `clickhouse` (what ClickHouse's `FORMAT Arrow` writes). */
  arrowMapping?: 'rich' | 'clickhouse';
}

export interface ColumnInfo {
  name: string;
  /** The ClickHouse type. */
  type: string;
  /** DateTime columns: the column's zone, else the server's (the `Date`s are instants). */
  timeZone?: string;
}

export interface Progress {
  readRows: number;
  readBytes: number;
  totalRowsToRead: number;
  writtenRows: number;
  writtenBytes: number;
  elapsedNs: number;
}

export interface QueryResult<R = Record<string, unknown>> {
  rows: R[];
  columns: ColumnInfo[];
  queryId: string;
  progress: Progress;
}

export interface ColumnsResult {
  /** One typed array (numbers, bigints) or array (everything else) per column. */
  columns: Record<string, TypedArray | unknown[]>;
  meta: ColumnInfo[];
  rows: number;
  queryId: string;
}

export type InsertData =
  | unknown[]
  | Record<string, ArrayLike<unknown>>
  | arrow.Table
  | arrow.RecordBatch
  | AsyncIterable<unknown>
  | Iterable<unknown>;

export interface InsertOptions {
  /** The columns to insert (default: the keys of the first row object, the keys of a columns
   * object, an Arrow table's fields, or all of the table's columns for rows as arrays). */
  columns?: string[];
  settings?: Record<string, Scalar>;
  queryId?: string;
  signal?: AbortSignal;
  /** Rows per block sent (default 100,000). */
  blockRows?: number;
}

/** Rows built at a time by a stream. */
const CHUNK_ROWS = 8192;

type Item =
  | { t: 'h'; columns: ColumnInfo[]; queryId: string }
  | { t: 'b'; n: number; c: Desc[] }
  | { t: 'a'; b: Buffer }
  | { t: 'd'; progress: Progress };

function textOptions(o: object | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!o) return out;
  checkObject(o, 'options');
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === null) continue;
    if (k === 'settings' && typeof v === 'object') {
      for (const [sk, sv] of Object.entries(v as Record<string, Scalar>)) out[sk] = scalar(sv, sk);
    } else out[k] = scalar(v as Scalar, k);
  }
  return out;
}

function scalar(v: Scalar, key?: string): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint')
    throw new TypeError(
      `${key ? `\`${key}\`: ` : ''}an option or setting must be a string, number, bigint or boolean, not ${describe(v)}`,
    );
  return String(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function checkObject(v: unknown, what: string): void {
  if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))
    throw new TypeError(`${what} must be an object, not ${describe(v)}`);
}

/** Items of one native stream, each `next()` abortable. */
class Feed {
  /** Cancelled or ended: nothing more comes. */
  private done = false;
  /** Ended by the server (the result is whole). */
  private ended = false;
  private readonly stream: native.NativeStream;
  private readonly signal?: AbortSignal;
  private readonly onAbort?: () => void;

  constructor(stream: native.NativeStream, signal?: AbortSignal) {
    this.stream = stream;
    this.signal = signal;
    if (signal) {
      this.onAbort = () => this.cancel();
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** Throws the abort error once the signal aborted (a result cut short is never a whole one). */
  check(): void {
    if (!this.ended && this.signal?.aborted) {
      this.cancel();
      throw abortError(this.signal);
    }
  }

  async next(): Promise<Item | null> {
    if (this.ended) return null;
    this.check();
    if (this.done) return null;
    let item: Item | null;
    try {
      item = await (this.signal ? abortable(this.stream.next(), this.signal) : this.stream.next());
    } catch (e) {
      this.finish();
      if (this.signal?.aborted) throw abortError(this.signal);
      throw translate(e);
    }
    if (item === null) {
      this.ended = true;
      this.finish();
    }
    return item;
  }

  cancel(): void {
    if (!this.done) this.stream.cancel();
    this.finish();
  }

  private finish(): void {
    this.done = true;
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
  }
}

/** `p`, rejected as soon as `signal` aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function checkSignal(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

async function header(feed: Feed): Promise<{ columns: ColumnInfo[]; queryId: string }> {
  const h = await feed.next();
  if (!h || h.t !== 'h') throw new Error('chwire: the result did not start with its header');
  return h;
}

/** A query's rows as they arrive: `for await (const row of stream)`, `.blocks()`, `.toReadable()`. */
export class RowStream implements AsyncIterable<unknown> {
  /** The result's columns (after the first block or `await stream.ready()`). */
  columns: ColumnInfo[] = [];
  queryId = '';
  progress?: Progress;
  private readonly feed: Feed;
  private readonly asArrays: boolean;
  private builder?: RowBuilder;
  private started?: Promise<void>;
  private cur?: { n: number; c: Desc[] };
  private at = 0;
  private readonly whole: boolean;

  /** @internal */
  constructor(feed: Feed, asArrays: boolean, whole = false) {
    this.feed = feed;
    this.asArrays = asArrays;
    this.whole = whole;
  }

  /** Waits for the header (the columns). */
  ready(): Promise<void> {
    this.started ??= header(this.feed).then((h) => {
      this.columns = h.columns;
      this.queryId = h.queryId;
    });
    return this.started;
  }

  /** The next chunk of rows (at most `CHUNK_ROWS` of one server block), `null` at the end. */
  async nextBlock(): Promise<unknown[] | null> {
    await this.ready();
    for (;;) {
      this.feed.check();
      if (this.cur && this.at < this.cur.n) {
        const from = this.at;
        const to = this.whole ? this.cur.n : Math.min(this.cur.n, from + CHUNK_ROWS);
        this.at = to;
        return this.builder!(this.cur.c, from, to);
      }
      this.cur = undefined;
      const it = await this.feed.next();
      if (it === null) return null;
      if (it.t === 'd') {
        this.progress = it.progress;
        continue;
      }
      if (it.t !== 'b') continue;
      this.builder ??= rowBuilder(
        this.columns.map((c) => c.name),
        it.c,
        this.asArrays,
      );
      this.cur = it;
      this.at = 0;
    }
  }

  /** Chunks of rows (of at most 8192 rows: rows a consumer is done with die young, which keeps
   * the garbage collector's work small). Leaving the loop early stops the query. */
  async *blocks(): AsyncGenerator<unknown[]> {
    try {
      for (;;) {
        const b = await this.nextBlock();
        if (b === null) return;
        yield b;
      }
    } finally {
      this.close();
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    for await (const b of this.blocks())
      for (const r of b) {
        // An abort ends the rows at once, not after the rest of the chunk.
        this.feed.check();
        yield r;
      }
  }

  /** A `Readable` in object mode of the rows (destroying it stops the query). */
  toReadable(): Readable {
    return Readable.from(this, { objectMode: true });
  }

  /** Stop the query (it is cancelled on the server). */
  close(): void {
    this.feed.cancel();
  }
}

/** A query's columns block by block: each block `{name: typed array | array}`. */
export class ColumnStream implements AsyncIterable<Record<string, TypedArray | unknown[]>> {
  columns: ColumnInfo[] = [];
  queryId = '';
  private readonly feed: Feed;
  private started?: Promise<void>;

  /** @internal */
  constructor(feed: Feed) {
    this.feed = feed;
  }

  ready(): Promise<void> {
    this.started ??= header(this.feed).then((h) => {
      this.columns = h.columns;
      this.queryId = h.queryId;
    });
    return this.started;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Record<string, TypedArray | unknown[]>> {
    try {
      await this.ready();
      for (;;) {
        const it = await this.feed.next();
        if (it === null) return;
        if (it.t !== 'b') continue;
        const out: Record<string, TypedArray | unknown[]> = {};
        it.c.forEach((d, j) => (out[this.columns[j].name] = column(d)));
        yield out;
      }
    } finally {
      this.feed.cancel();
    }
  }

  close(): void {
    this.feed.cancel();
  }
}

/** A query's Arrow record batches as they arrive (one per server block), read by apache-arrow
 * from chwire's IPC bytes without copying the column data. */
export class ArrowStream implements AsyncIterable<arrow.RecordBatch> {
  readonly schema: arrow.Schema;
  readonly columns: ColumnInfo[];
  readonly queryId: string;
  private readonly feed: Feed;
  private readonly reader: arrow.AsyncRecordBatchStreamReader;

  /** @internal */
  constructor(
    feed: Feed,
    reader: arrow.AsyncRecordBatchStreamReader,
    h: { columns: ColumnInfo[]; queryId: string },
  ) {
    this.feed = feed;
    this.reader = reader;
    this.schema = reader.schema;
    this.columns = h.columns;
    this.queryId = h.queryId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<arrow.RecordBatch> {
    try {
      for (;;) {
        const r = await this.reader.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      this.feed.cancel();
    }
  }

  /** All batches as one `Table`. */
  async readAll(): Promise<arrow.Table> {
    const batches: arrow.RecordBatch[] = [];
    for await (const b of this) batches.push(b);
    return new A.Table(this.schema, batches);
  }

  toReadable(): Readable {
    return Readable.from(this, { objectMode: true });
  }

  close(): void {
    this.feed.cancel();
  }
}

async function* ipcChunks(feed: Feed): AsyncGenerator<Uint8Array> {
  for (;;) {
    const it = await feed.next();
    if (it === null) return;
    if (it.t === 'a') yield it.b;
  }
}

function isArrowData(v: unknown): v is arrow.Table | arrow.RecordBatch {
  return v instanceof A.Table || v instanceof A.RecordBatch;
}

function isColumns(v: unknown): v is Record<string, ArrayLike<unknown>> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isArrowData(v)) return false;
  const vals = Object.values(v as object);
  return vals.length > 0 && vals.every((c) => Array.isArray(c) || isTypedArray(c));
}

function isIterable(v: unknown): v is AsyncIterable<unknown> | Iterable<unknown> {
  // Tables iterate their rows: they are data, not a sequence of data.
  return (
    !isArrowData(v) &&
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    (Symbol.asyncIterator in (v as object) || Symbol.iterator in (v as object))
  );
}

/** What `query`, `insert` and the others run on: a connection or a pool. */
export class Queryable {
  /** @internal */
  protected readonly native: native.NativeClient;
  protected closed = false;

  /** @internal */
  constructor(n: native.NativeClient) {
    this.native = n;
  }

  private start(sql: string, mode: string, o?: QueryOptions & { arrowMapping?: string }): Feed {
    if (this.closed) throw new ChwireError('the client is closed', 'closed');
    if (typeof sql !== 'string') throw new TypeError(`the SQL must be a string, not ${describe(sql)}`);
    checkObject(o, 'the options');
    checkObject(o?.params, '`params`');
    checkObject(o?.settings, '`settings`');
    checkSignal(o?.signal);
    const spec = o
      ? {
          params: o.params,
          settings: o.settings,
          queryId: o.queryId,
          int64: o.int64,
          decimal: o.decimal,
          arrowMapping: o.arrowMapping,
        }
      : undefined;
    const s = callSync(() => this.native.query(sql, mode, spec));
    return new Feed(s, o?.signal);
  }

  /** The whole result as rows (objects, or arrays with `rowMode: 'array'`). */
  async query<R = Record<string, unknown>>(sql: string, o?: RowOptions): Promise<QueryResult<R>> {
    const stream = new RowStream(this.start(sql, 'blocks', o), o?.rowMode === 'array', true);
    let rows: unknown[] = [];
    let first = true;
    for await (const b of stream.blocks()) {
      if (first) rows = b;
      else for (let i = 0; i < b.length; i++) rows.push(b[i]);
      first = false;
    }
    return {
      rows: rows as R[],
      columns: stream.columns,
      queryId: stream.queryId,
      progress: stream.progress ?? emptyProgress(),
    };
  }

  /** Rows as they arrive (async iterable, `.blocks()`, `.toReadable()`); memory stays a block or two. */
  queryStream(sql: string, o?: RowOptions): RowStream {
    return new RowStream(this.start(sql, 'blocks', o), o?.rowMode === 'array');
  }

  /** The whole result as one typed array (numbers, bigints) or array per column. */
  async queryColumns(sql: string, o?: QueryOptions): Promise<ColumnsResult> {
    const feed = this.start(sql, 'columns', o);
    const h = await header(feed);
    const columns: Record<string, TypedArray | unknown[]> = {};
    let rows = 0;
    for (;;) {
      const it = await feed.next();
      if (it === null) break;
      if (it.t === 'b') {
        rows = it.n;
        it.c.forEach((d, j) => (columns[h.columns[j].name] = column(d)));
      }
    }
    if (rows === 0) for (const c of h.columns) columns[c.name] = [];
    return { columns, meta: h.columns, rows, queryId: h.queryId };
  }

  /** Columns block by block (typed arrays over each block's memory). */
  queryColumnsStream(sql: string, o?: QueryOptions): ColumnStream {
    return new ColumnStream(this.start(sql, 'blocks', o));
  }

  /** The whole result as an apache-arrow `Table` (chwire's Arrow mapping, docs/ARROW.md). */
  async queryArrow(sql: string, o?: ArrowOptions): Promise<arrow.Table> {
    const feed = this.start(sql, 'arrow', o);
    await header(feed);
    let ipc: Buffer | undefined;
    for (;;) {
      const it = await feed.next();
      if (it === null) break;
      if (it.t === 'a') ipc = it.b;
    }
    if (!ipc) throw new Error('chwire: no Arrow data');
    return A.tableFromIPC(ipc);
  }

  /** Record batches as they arrive (one per block); memory stays a block or two. */
  async queryArrowStream(sql: string, o?: ArrowOptions): Promise<ArrowStream> {
    const feed = this.start(sql, 'arrowStream', o);
    const h = await header(feed);
    const reader = (await A.RecordBatchReader.from(
      ipcChunks(feed),
    )) as unknown as arrow.AsyncRecordBatchStreamReader;
    await reader.open();
    return new ArrowStream(feed, reader, h);
  }

  /** Run a statement without a result (DDL, `INSERT … SELECT`, …): its progress. */
  async execute(sql: string, o?: QueryOptions): Promise<{ progress: Progress; queryId?: string }> {
    const feed = this.start(sql, 'execute', o);
    let progress = emptyProgress();
    for (;;) {
      const it = await feed.next();
      if (it === null) break;
      if (it.t === 'd') progress = it.progress;
    }
    return { progress };
  }

  /**
   * Insert rows (objects or arrays), columns (`{name: array | typed array}`), an Arrow `Table`
   * or `RecordBatch`, or an (async) iterable of any of those (a `Readable` too) into `table`.
   * Each block is converted before it is sent: a value that does not fit is a `TypeError` or
   * `RangeError` naming the column and row, and nothing of its block is sent (blocks before it
   * stay inserted). Returns the number of rows sent.
   */
  async insert(table: string, data: InsertData, o?: InsertOptions): Promise<number> {
    if (this.closed) throw new ChwireError('the client is closed', 'closed');
    if (typeof table !== 'string') throw new TypeError(`the table must be a string, not ${describe(table)}`);
    if (data === null || typeof data !== 'object')
      throw new TypeError(
        `insert data must be rows, columns, an Arrow Table or RecordBatch, or an (async) iterable of them, not ${describe(data)}`,
      );
    checkObject(o, 'the options');
    checkObject(o?.settings, '`settings`');
    if (
      o?.columns !== undefined &&
      !(Array.isArray(o.columns) && o.columns.every((c) => typeof c === 'string'))
    )
      throw new TypeError('`columns` must be an array of column names');
    checkSignal(o?.signal);
    const blockRows = Math.max(1, o?.blockRows ?? 100_000);
    // The chunks of data, and the first one to decide the columns by.
    const chunks: AsyncIterator<unknown> | Iterator<unknown> = isIterable(data)
      ? Symbol.asyncIterator in data
        ? (data as AsyncIterable<unknown>)[Symbol.asyncIterator]()
        : (data as Iterable<unknown>)[Symbol.iterator]()
      : [data][Symbol.iterator]();
    let first = await chunks.next();
    // Single row objects from an iterable (a Readable of rows) are gathered into blocks.
    const rowBuffer: unknown[] = [];
    const nextChunk = async (): Promise<IteratorResult<unknown>> => {
      for (;;) {
        const r = first.done === undefined ? await chunks.next() : first;
        first = { done: undefined } as unknown as IteratorResult<unknown>;
        if (r.done) {
          if (rowBuffer.length) return { done: false, value: rowBuffer.splice(0) };
          return r;
        }
        const v = r.value;
        if (Array.isArray(v) || isArrowData(v) || isColumns(v)) {
          if (rowBuffer.length) {
            first = r;
            return { done: false, value: rowBuffer.splice(0) };
          }
          return r;
        }
        rowBuffer.push(v);
        if (rowBuffer.length >= blockRows) return { done: false, value: rowBuffer.splice(0) };
      }
    };
    let cur = await nextChunk();
    if (cur.done) return 0;
    const names = o?.columns ?? namesOf(cur.value);
    const spec = { settings: o?.settings, queryId: o?.queryId };
    const ins = callSync(() => this.native.insert(table, names, spec));
    const signal = o?.signal;
    const onAbort = () => ins.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const wait = <T>(p: Promise<T>) => (signal ? abortable(p, signal) : p);
    // A value that does not fit (a TypeError/RangeError of this block's conversion): the blocks
    // before it are committed, as the CLI's insert does, and the error says how many rows went in.
    let refused: unknown;
    try {
      const header = await wait(call(() => ins.header()));
      const cols = header.map((c) => c.name);
      let row = 0;
      convert: while (!cur.done) {
        const v = cur.value;
        if (isArrowData(v)) {
          const t = v instanceof A.Table ? v : new A.Table(v);
          const ipc = A.tableToIPC(t, 'stream');
          await wait(call(() => ins.sendArrow(Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength))));
          row += t.numRows;
        } else {
          const byName = isColumns(v) ? v : undefined;
          const rows = byName ? undefined : (v as unknown[]);
          const total = byName ? (Object.values(byName)[0]?.length ?? 0) : rows!.length;
          for (let from = 0; from < total; from += blockRows) {
            const to = Math.min(total, from + blockRows);
            checkSignal(signal);
            try {
              let packed;
              if (byName) {
                packed = cols.map((c) => {
                  const col = byName[c];
                  if (col === undefined) throw new TypeError(`the data has no column \`${c}\``);
                  if (col.length !== total)
                    throw new TypeError(
                      `column \`${c}\` has ${col.length} values where others have ${total}`,
                    );
                  return pack(col, from, to);
                });
              } else {
                const t = transpose(rows!, cols, from, to);
                packed = t.map((c) => pack(c, 0, c.length));
              }
              callSync(() => ins.convert(packed, row));
            } catch (e) {
              if (!(e instanceof TypeError || e instanceof RangeError)) throw e;
              refused = e;
              break convert;
            }
            await wait(call(() => ins.flush()));
            row += to - from;
          }
        }
        cur = await nextChunk();
      }
      const sent = await wait(call(() => ins.end()));
      if (refused !== undefined) throw withRowsInserted(refused, sent);
      return sent;
    } catch (e) {
      if (e === refused) throw e;
      ins.abort();
      if (signal?.aborted) throw abortError(signal);
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** `e` with the rows that were inserted before it (`rowsInserted`, also in its message). */
function withRowsInserted(e: unknown, rows: number): unknown {
  if (e instanceof Error) {
    e.message += ` (the ${rows} rows before it were inserted)`;
    Object.defineProperty(e, 'rowsInserted', {
      value: rows,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return e;
}

function namesOf(v: unknown): string[] | null {
  if (v instanceof A.Table || v instanceof A.RecordBatch) return v.schema.fields.map((f) => f.name);
  if (isColumns(v)) return Object.keys(v);
  if (Array.isArray(v) && v.length > 0 && v[0] !== null && typeof v[0] === 'object' && !Array.isArray(v[0]))
    return Object.keys(v[0] as object);
  return null;
}

function emptyProgress(): Progress {
  return { readRows: 0, readBytes: 0, totalRowsToRead: 0, writtenRows: 0, writtenBytes: 0, elapsedNs: 0 };
}

export interface ServerInfo {
  name: string;
  version: string;
  revision: number;
  timezone?: string;
  displayName?: string;
  /** The settings the server applies to the session, as its Hello listed them (26.x; empty for older servers). */
  settings: Record<string, string>;
}

/** One connection: one query at a time (concurrent calls queue; use a `Pool` to run them in parallel). */
export class Client extends Queryable {
  /** The server's name, version, revision, zone and session settings. */
  get serverInfo(): ServerInfo | null {
    return this.native.serverInfo() ?? null;
  }

  /** Close: operations still running or queued stop (their queries are cancelled on the server)
   * and reject with a `ChwireError` of kind `closed`; then the connection closes. */
  async close(): Promise<void> {
    this.closed = true;
    await call(() => this.native.close());
  }
}

export interface PoolStatus {
  size: number;
  idle: number;
  inUse: number;
  waiting: number;
}

/** The core's pool: each operation takes a connection for its duration. */
export class Pool extends Queryable {
  status(): PoolStatus {
    return this.native.poolStatus() ?? { size: 0, idle: 0, inUse: 0, waiting: 0 };
  }

  /** Refuse new work and stop what runs (as `Client.close`); the connections close. */
  async close(): Promise<void> {
    this.closed = true;
    await call(() => this.native.close());
  }
}

/** Connect: `url` (`tcp://user:password@host:9000/db?compression=lz4`, `http://…`; every
 * binding's URLs) and/or `options` by the same keys. */
export async function connect(url?: string | null, options?: ConnectOptions): Promise<Client> {
  if (url !== undefined && url !== null && typeof url !== 'string')
    throw new TypeError(`the URL must be a string, not ${describe(url)}`);
  const n = await call(() => native.connect(url ?? null, textOptions(options)));
  return new Client(n);
}

/** A pool over `url`/`options` (connections open as they are needed). */
export function createPool(url?: string | null, options?: ConnectOptions, pool?: PoolOptions): Pool {
  if (url !== undefined && url !== null && typeof url !== 'string')
    throw new TypeError(`the URL must be a string, not ${describe(url)}`);
  const n = callSync(() => native.createPool(url ?? null, textOptions(options), textOptions(pool)));
  return new Pool(n);
}
