// The client: `connect(url, options)`, `createPool(url, options)` and the operations both have.
//
// Every operation starts a task in the addon and awaits its items; an `AbortSignal` cancels it
// (the query is stopped on the server at once). Connection options are the core's URL keys
// (the same names in the URL, in `options` and in every binding).

import type * as arrow from 'apache-arrow';
import * as native from './native';
import { call, callSync, ChwireError, abortError } from './errors';
import { isTypedArray, pack, transpose } from './insert';
import { column, TypedArray } from './columns';
import { arrowLib, batchOf } from './arrow';
import {
  abortable,
  arrowStart,
  ArrowStream,
  checkSignal,
  ColumnInfo,
  ColumnStream,
  Feed,
  header,
  Progress,
  RowStream,
} from './streams';
import { PreciseDate } from './dates';

// The addon makes PreciseDates of DateTime64 values inside Variant, Dynamic and JSON.
native.registerClasses(PreciseDate);

export type Scalar = string | number | bigint | boolean;
export type { ColumnInfo, Progress } from './streams';
export { RowStream, ColumnStream, ArrowStream } from './streams';

/** @internal The ESM entry hands over apache-arrow's ESM copy (see arrow.ts). */
export function useArrow(mod: typeof arrowLib.A): void {
  arrowLib.A = mod;
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
  /** The Arrow mapping of this client's queries that name none (`queryArrow`'s `arrowMapping`). */
  arrowMapping?: 'rich' | 'clickhouse';
  /** Bounds of a result collected whole (`query`, `queryColumns`, `queryArrow`; streams are
   * not bounded): past one the query is cancelled and the call rejects with a `ChwireError` of
   * kind `limit`, the client usable at once. `0` (default): no bound. Not ClickHouse's
   * `max_result_rows`/`max_result_bytes` settings, which go in `settings`. */
  max_collected_rows?: number;
  /** Bytes of decoded column data (8 per UInt64, a string's bytes plus 8, …). */
  max_collected_bytes?: number;
  /** Aborts connecting (`connect` only). */
  signal?: AbortSignal;
  [key: string]: Scalar | Record<string, Scalar> | AbortSignal | undefined;
}

/** The pool's options: the core's `PoolOptions` names (durations as text, `'5s'`, `'500ms'`,
 * or a number of milliseconds). */
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
  /** String and FixedString values as `string`s (default: UTF-8, invalid bytes as U+FFFD, as
   * `TextDecoder` reads them) or as `Buffer`s of their bytes, exact for any bytes. */
  strings?: 'string' | 'buffer';
}

export interface RowOptions extends QueryOptions {
  /** Rows as objects keyed by column name (default) or as arrays in column order. */
  rowMode?: 'object' | 'array';
}

export interface StreamOptions extends QueryOptions {
  /** Each block's typed arrays (each batch's buffers) are valid until the next one is asked
   * for: then they are detached (empty) and their memory freed at once, instead of by the
   * garbage collector (which, for streams of hundreds of megabytes, costs more than the
   * reading). For consumers that are done with a block when they take the next one. */
  recycle?: boolean;
}

function recycling(o?: StreamOptions): boolean {
  if (o?.recycle !== undefined && typeof o.recycle !== 'boolean')
    throw new TypeError(`\`recycle\` must be a boolean, not ${describe(o.recycle)}`);
  return o?.recycle === true;
}

export interface ArrowOptions extends QueryOptions {
  /** `rich` (natural Arrow types, default) or `clickhouse` (what ClickHouse's `FORMAT Arrow` writes). */
  arrowMapping?: 'rich' | 'clickhouse';
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
  /** Rows per block sent (the core's `block_rows`, default 1,048,576): Arrow batches are
   * gathered and cut into blocks of exactly this many rows (the last one smaller); rows and
   * columns are cut into blocks of at most this many. */
  blockRows?: number;
}

function textOptions(o: object | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!o) return out;
  checkObject(o, 'options');
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === null) continue;
    if (k === 'settings' && typeof v === 'object') {
      // Settings stay settings, whatever their name (the core's `setting.NAME`): never read as
      // one of chwire's options (`compression`, a bound).
      for (const [sk, sv] of Object.entries(v as Record<string, Scalar>))
        out[`setting.${sk}`] = scalar(sv, sk);
    } else if (typeof v === 'boolean' && native.nonFlagKey(k)) {
      // The core reads it, and refuses a boolean for a number or a duration.
      out[k] = String(v);
    } else if ((typeof v === 'number' || typeof v === 'bigint') && native.durationKey(k)) {
      // A duration as a number is milliseconds, as JavaScript's timeouts are.
      if (typeof v === 'number' && !Number.isFinite(v)) {
        if (v !== Infinity)
          throw new TypeError(`\`${k}\`: a duration must be a number of milliseconds, not ${v}`);
        out[k] = 'none';
      } else out[k] = `${v}ms`;
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

function checkQueryId(v: unknown): void {
  if (v !== undefined && v !== null && typeof v !== 'string')
    throw new TypeError(`\`queryId\` must be a string, not ${describe(v)}`);
}

function checkObject(v: unknown, what: string): void {
  if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))
    throw new TypeError(`${what} must be an object, not ${describe(v)}`);
}

function isArrowData(v: unknown): v is arrow.Table | arrow.RecordBatch {
  return v instanceof arrowLib.A.Table || v instanceof arrowLib.A.RecordBatch;
}

function isColumns(v: unknown): v is Record<string, ArrayLike<unknown>> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isArrowData(v)) return false;
  const vals = Object.values(v as object);
  return vals.length > 0 && vals.every((c) => Array.isArray(c) || isTypedArray(c));
}

function isIterable(v: unknown): v is AsyncIterable<unknown> | Iterable<unknown> {
  // Tables iterate their rows: they are data, not a sequence of data. An array is rows, unless
  // it holds Arrow tables or batches (a list of them, as an iterable of them is).
  if (Array.isArray(v)) return v.length > 0 && v.every(isArrowData);
  return (
    !isArrowData(v) &&
    v !== null &&
    typeof v === 'object' &&
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

  /** `whole`: the caller collects the whole result (the client's `max_collected_*` bounds apply). */
  private start(
    sql: string,
    mode: string,
    o?: QueryOptions & { arrowMapping?: string },
    whole = false,
  ): Feed {
    if (this.closed) throw new ChwireError('the client is closed', 'closed');
    if (typeof sql !== 'string') throw new TypeError(`the SQL must be a string, not ${describe(sql)}`);
    checkObject(o, 'the options');
    checkObject(o?.params, '`params`');
    checkObject(o?.settings, '`settings`');
    checkQueryId(o?.queryId);
    checkSignal(o?.signal);
    const spec =
      o || whole
        ? {
            params: o?.params,
            settings: o?.settings,
            queryId: o?.queryId,
            int64: o?.int64,
            decimal: o?.decimal,
            arrowMapping: o?.arrowMapping,
            strings: o?.strings,
            whole,
          }
        : undefined;
    const s = callSync(() => this.native.query(sql, mode, spec));
    return new Feed(s, o?.signal);
  }

  /** The whole result as rows (objects, or arrays with `rowMode: 'array'`). */
  async query<R = Record<string, unknown>>(sql: string, o?: RowOptions): Promise<QueryResult<R>> {
    const stream = new RowStream(this.start(sql, 'blocks', o, true), o?.rowMode === 'array', true);
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
    const feed = this.start(sql, 'columns', o, true);
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
  queryColumnsStream(sql: string, o?: StreamOptions): ColumnStream {
    const recycle = recycling(o);
    return new ColumnStream(this.start(sql, 'blocks', o), recycle);
  }

  /** The whole result as an apache-arrow `Table` (chwire's Arrow mapping, docs/ARROW.md). */
  async queryArrow(sql: string, o?: ArrowOptions): Promise<arrow.Table> {
    const feed = this.start(sql, 'arrow', o, true);
    const { schema } = await arrowStart(feed);
    const batches: arrow.RecordBatch[] = [];
    for (;;) {
      const it = await feed.next();
      if (it === null) break;
      if (it.t === 'r') batches.push(batchOf(arrowLib.A, schema, it.n, it.c));
    }
    return new arrowLib.A.Table(schema, batches);
  }

  /** Record batches as they arrive (one per block); memory stays a block or two. */
  async queryArrowStream(sql: string, o?: ArrowOptions & StreamOptions): Promise<ArrowStream> {
    const recycle = recycling(o);
    const feed = this.start(sql, 'arrowStream', o);
    const { h, schema } = await arrowStart(feed);
    return new ArrowStream(feed, schema, h, recycle);
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
    checkQueryId(o?.queryId);
    if (
      o?.columns !== undefined &&
      !(Array.isArray(o.columns) && o.columns.every((c) => typeof c === 'string'))
    )
      throw new TypeError('`columns` must be an array of column names');
    checkSignal(o?.signal);
    // The core reads the insert options (a bad value is its error, kind `config`).
    const insertOptions: Record<string, string> = {};
    const br: unknown = o?.blockRows;
    if (br !== undefined && br !== null) {
      if (typeof br !== 'number' && typeof br !== 'bigint' && typeof br !== 'string')
        throw new TypeError(`\`blockRows\` must be a number of rows, not ${describe(br)}`);
      insertOptions.block_rows = String(br);
    }
    const blockRows = callSync(() => native.insertOptions(insertOptions)).blockRows;
    // The chunks of data, and the first one to decide the columns by.
    const chunks: AsyncIterator<unknown> | Iterator<unknown> = isIterable(data)
      ? Symbol.asyncIterator in data
        ? (data as AsyncIterable<unknown>)[Symbol.asyncIterator]()
        : (data as Iterable<unknown>)[Symbol.iterator]()
      : [data][Symbol.iterator]();
    let first = await chunks.next();
    // Single row objects from an iterable (a Readable of rows) are gathered into blocks.
    const rowBuffer: unknown[] = [];
    // The source's failure, held while the rows it gave before are handed out.
    let failure: { error: unknown } | undefined;
    const nextChunk = async (): Promise<IteratorResult<unknown>> => {
      for (;;) {
        if (failure) throw failure.error;
        let r: IteratorResult<unknown>;
        try {
          r = first.done === undefined ? await chunks.next() : first;
        } catch (error) {
          if (!rowBuffer.length) throw error;
          failure = { error };
          return { done: false, value: rowBuffer.splice(0) };
        }
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
    const ins = callSync(() => this.native.insert(table, names, spec, insertOptions));
    const signal = o?.signal;
    const onAbort = () => ins.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const wait = <T>(p: Promise<T>) => (signal ? abortable(p, signal) : p);
    // A value that does not fit (a TypeError/RangeError of this block's conversion), or the
    // source failing: the blocks before it are committed (the core's rule, every front end's),
    // and the error says how many rows went in.
    let refused: unknown;
    let failed = false;
    try {
      const header = await wait(call(() => ins.header()));
      const cols = header.map((c) => c.name);
      let row = 0;
      convert: while (!cur.done) {
        const v = cur.value;
        if (isArrowData(v)) {
          const t = v instanceof arrowLib.A.Table ? v : new arrowLib.A.Table(v);
          const ipc = arrowLib.A.tableToIPC(t, 'stream');
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
              failed = true;
              break convert;
            }
            await wait(call(() => ins.flush()));
            row += to - from;
          }
        }
        try {
          cur = await nextChunk();
        } catch (e) {
          // The source failed: as for data refused (the core's rule for a reader's failure),
          // what was sent is committed and the error says how many rows went in.
          refused = e;
          failed = true;
          break convert;
        }
      }
      const sent = await wait(call(() => ins.end()));
      if (failed) throw withRowsInserted(refused, sent);
      return sent;
    } catch (e) {
      if (failed && e === refused) throw e;
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
    e.message +=
      rows === 0
        ? ' (nothing was inserted)'
        : rows === 1
          ? ' (the 1 row before it was inserted)'
          : ` (the ${rows} rows before it were inserted)`;
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
  if (v instanceof arrowLib.A.Table || v instanceof arrowLib.A.RecordBatch)
    return v.schema.fields.map((f) => f.name);
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
  checkObject(options, 'the options');
  const { signal, ...rest } = options ?? {};
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError('`signal` must be an AbortSignal');
  checkSignal(signal);
  const p = call(() => native.connect(url ?? null, textOptions(rest)));
  if (!signal) return new Client(await p);
  // A connection that opens after the abort is closed again.
  p.then(
    (n) => {
      if (signal.aborted) void n.close().catch(() => {});
    },
    () => {},
  );
  return new Client(await abortable(p, signal));
}

/** A pool over `url`/`options` (connections open as they are needed). */
export function createPool(url?: string | null, options?: ConnectOptions, pool?: PoolOptions): Pool {
  if (url !== undefined && url !== null && typeof url !== 'string')
    throw new TypeError(`the URL must be a string, not ${describe(url)}`);
  const n = callSync(() => native.createPool(url ?? null, textOptions(options), textOptions(pool)));
  return new Pool(n);
}
