// Streams of a query's results: the addon's items (`Feed`, each `next()` abortable) as rows,
// typed-array columns or Arrow record batches, block by block.

import { Readable } from 'node:stream';
import type * as arrow from 'apache-arrow';
import * as native from './native';
import { abortError, ChwireError, translate } from './errors';
import { buffersOf, column, Desc, rowBuilder, RowBuilder, TypedArray } from './columns';
import { ArrayDesc, arrowBuffers, arrowLib, batchOf, schemaOf } from './arrow';

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

/** Rows built at a time by a stream. */
const CHUNK_ROWS = 8192;

export type Item =
  | { t: 'h'; columns: ColumnInfo[]; queryId: string }
  | { t: 'b'; n: number; c: Desc[] }
  | { t: 'a'; b: Buffer }
  | { t: 'r'; n: number; c: ArrayDesc[] }
  | { t: 'd'; progress: Progress };

/** Items of one native stream, each `next()` abortable. */
export class Feed {
  /** Cancelled or ended: nothing more comes. */
  private done = false;
  /** Ended by the server (the result is whole). */
  private ended = false;
  /** Items taken from the addon, not yet given out. */
  private queue: Item[] = [];
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
    if (this.queue.length > 0) return this.queue.shift()!;
    // Closed before its end (`close()`, a `break`): reading on is an error, never a result
    // that looks whole.
    if (this.done) throw new ChwireError('the stream was closed before its end', 'closed');
    let items: Item[] | null;
    try {
      items = await (this.signal ? abortable(this.stream.next(), this.signal) : this.stream.next());
    } catch (e) {
      this.finish();
      if (this.signal?.aborted) throw abortError(this.signal);
      throw translate(e);
    }
    if (items === null) {
      this.ended = true;
      this.finish();
      return null;
    }
    this.check();
    // The addon hands over what was already queued together (one event-loop round trip).
    this.queue = items;
    return this.queue.shift()!;
  }

  cancel(): void {
    if (!this.done) this.stream.cancel();
    this.queue = [];
    this.finish();
  }

  private finish(): void {
    this.done = true;
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
  }
}

/** `p`, rejected as soon as `signal` aborts. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // `p` is abandoned: its own failure (the insert ended by the abort) must not surface as an
    // unhandled rejection, which ends the process.
    p.catch(() => {});
    return Promise.reject(abortError(signal));
  }
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

export function checkSignal(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

export async function header(feed: Feed): Promise<{ columns: ColumnInfo[]; queryId: string }> {
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
      this.release();
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
    this.release();
  }

  /** The current block's rows are built: its buffers (never handed out) are given back now. */
  private release(): void {
    if (this.cur) native.releaseBuffers(buffersOf(this.cur.c));
    this.cur = undefined;
  }
}

/** A query's columns block by block: each block `{name: typed array | array}`. */
export class ColumnStream implements AsyncIterable<Record<string, TypedArray | unknown[]>> {
  columns: ColumnInfo[] = [];
  queryId = '';
  private readonly feed: Feed;
  private readonly recycle: boolean;
  private started?: Promise<void>;

  /** @internal */
  constructor(feed: Feed, recycle = false) {
    this.feed = feed;
    this.recycle = recycle;
  }

  ready(): Promise<void> {
    this.started ??= header(this.feed).then((h) => {
      this.columns = h.columns;
      this.queryId = h.queryId;
    });
    return this.started;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Record<string, TypedArray | unknown[]>> {
    // `recycle`: the block before is given back as the next one is asked for.
    let prev: Desc[] | undefined;
    try {
      await this.ready();
      for (;;) {
        if (prev) native.releaseBuffers(buffersOf(prev));
        prev = undefined;
        const it = await this.feed.next();
        if (it === null) return;
        if (it.t !== 'b') continue;
        const out: Record<string, TypedArray | unknown[]> = {};
        it.c.forEach((d, j) => (out[this.columns[j].name] = column(d)));
        if (this.recycle) prev = it.c;
        yield out;
      }
    } finally {
      if (prev) native.releaseBuffers(buffersOf(prev));
      this.feed.cancel();
    }
  }

  close(): void {
    this.feed.cancel();
  }
}

/** A query's Arrow record batches as they arrive (one per server block), made by apache-arrow's
 * `makeData` over the buffers chwire built them in (no copy of the column data, no IPC). */
export class ArrowStream implements AsyncIterable<arrow.RecordBatch> {
  readonly schema: arrow.Schema;
  readonly columns: ColumnInfo[];
  readonly queryId: string;
  private readonly feed: Feed;
  private readonly recycle: boolean;

  /** @internal */
  constructor(
    feed: Feed,
    schema: arrow.Schema,
    h: { columns: ColumnInfo[]; queryId: string },
    recycle = false,
  ) {
    this.feed = feed;
    this.recycle = recycle;
    this.schema = schema;
    this.columns = h.columns;
    this.queryId = h.queryId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<arrow.RecordBatch> {
    // `recycle`: the batch before is given back as the next one is asked for.
    let prev: ArrayDesc[] | undefined;
    try {
      for (;;) {
        if (prev) native.releaseBuffers(arrowBuffers(prev));
        prev = undefined;
        const it = await this.feed.next();
        if (it === null) return;
        if (it.t !== 'r') continue;
        if (this.recycle) prev = it.c;
        yield batchOf(arrowLib.A, this.schema, it.n, it.c);
      }
    } finally {
      if (prev) native.releaseBuffers(arrowBuffers(prev));
      this.feed.cancel();
    }
  }

  /** All batches as one `Table`. */
  async readAll(): Promise<arrow.Table> {
    const batches: arrow.RecordBatch[] = [];
    for await (const b of this) batches.push(b);
    return new arrowLib.A.Table(this.schema, batches);
  }

  toReadable(): Readable {
    return Readable.from(this, { objectMode: true });
  }

  close(): void {
    this.feed.cancel();
  }
}

/** The header and the Arrow schema that start an Arrow result. */
export async function arrowStart(
  feed: Feed,
): Promise<{ h: { columns: ColumnInfo[]; queryId: string }; schema: arrow.Schema }> {
  const h = await header(feed);
  const it = await feed.next();
  if (!it || it.t !== 'a') throw new Error('chwire: the Arrow result did not start with its schema');
  return { h, schema: schemaOf(arrowLib.A, it.b) };
}
