// The package's declarations as a TypeScript program uses them (`npm run typecheck`, not run):
// every call type-checks against dist/*.d.mts, and misuse is a compile error.
import {
  connect,
  createPool,
  ClickHouseError,
  ChwireError,
  PreciseDate,
  type QueryResult,
  type ColumnInfo,
} from 'chwire';
import type { Table, RecordBatch } from 'apache-arrow';

export async function use(): Promise<void> {
  const c = await connect('tcp://default@127.0.0.1:9000/default', {
    compression: 'lz4',
    settings: { max_threads: 2 },
  });
  const ac = new AbortController();
  const r: QueryResult<{ n: bigint }> = await c.query<{ n: bigint }>('SELECT number AS n FROM numbers(3)', {
    params: { x: 1 },
    settings: { max_block_size: 100 },
    queryId: 'q',
    signal: ac.signal,
    int64: 'bigint',
  });
  const n: bigint = r.rows[0].n;
  const cols: ColumnInfo[] = r.columns;
  const t: Table = await c.queryArrow('SELECT 1', { arrowMapping: 'clickhouse' });
  for await (const b of await c.queryArrowStream('SELECT 1')) {
    const batch: RecordBatch = b;
    void batch;
  }
  for await (const row of c.queryStream('SELECT 1', { rowMode: 'array' })) void row;
  const { columns } = await c.queryColumns('SELECT 1');
  const inserted: number = await c.insert('t', [{ a: 1 }], { blockRows: 10, columns: ['a'] });
  await c.insert('t', t);
  await c.insert('t', { a: new Float64Array(3) });
  const pool = createPool(null, { host: 'localhost', port: 9000 }, { max_size: 4, acquire_timeout: '5s' });
  const s: number = pool.status().inUse;
  try {
    await pool.execute('SELECT 1');
  } catch (e) {
    if (e instanceof ClickHouseError) {
      const code: number = e.code;
      void code;
    } else if (e instanceof ChwireError) {
      const kind: 'connection' | string = e.kind;
      void kind;
    }
  }
  const p = new PreciseDate(1704067200123456789n);
  const ns: bigint = p.epochNanoseconds;
  const when: Date = p;
  await c.insert('t', [{ t: p, s: '2024-01-01 00:00:00' }]);
  for await (const b of c.queryColumnsStream('SELECT 1', { recycle: true, strings: 'buffer' })) void b;
  for await (const b of await c.queryArrowStream('SELECT 1', { recycle: true })) void b;
  await connect(null, { signal: ac.signal });
  void [ns, when];
  // @ts-expect-error: strings are 'string' or 'buffer'
  await c.query('SELECT 1', { strings: 'bytes' });
  // @ts-expect-error: rowMode is 'object' or 'array'
  await c.query('SELECT 1', { rowMode: 'table' });
  // @ts-expect-error: the pool's options are the core's names
  createPool(null, {}, { maxSize: 1 });
  void [n, cols, columns, inserted, s];
  await pool.close();
  await c.close();
}
