// AbortSignal on every call, early ends of streams, slow consumers: the query must be gone from
// the server (system.processes) and the client usable at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ch, URL26, running, eventually, tableName } from './helpers.mjs';

let c;
before(async () => {
  c = await ch.connect(URL26);
});
after(async () => {
  await c?.close();
});

// A query that runs until stopped, sending a block at a time.
const slow = (marker) =>
  `SELECT number, sleepEachRow(0.001) AS z /* ${marker} */ FROM system.numbers SETTINGS max_block_size = 100`;

test('an aborted signal refuses the call before anything runs', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(c.query('SELECT 1', { signal: ac.signal }), { name: 'AbortError' });
  await assert.rejects(c.insert('t', [{ a: 1 }], { signal: ac.signal }), { name: 'AbortError' });
});

test("abort mid-query rejects with the signal's reason and stops the query on the server", async () => {
  const marker = `node_abort_${process.pid}_1`;
  const ac = new AbortController();
  const p = c.query(slow(marker), { signal: ac.signal });
  assert.ok(await eventually(async () => (await running(marker)) === 1), 'the query runs');
  ac.abort(new Error('stop it'));
  await assert.rejects(p, /stop it/);
  assert.ok(
    await eventually(async () => (await running(marker)) === 0),
    'the query is gone from system.processes',
  );
  const r = await c.query('SELECT 42 AS x');
  assert.equal(r.rows[0].x, 42);
});

test('abort of every query form', async () => {
  for (const form of ['queryColumns', 'queryArrow', 'queryArrowStream', 'execute']) {
    const marker = `node_abort_${process.pid}_${form}`;
    const ac = new AbortController();
    // A stream form resolves with its stream; the abort rejects its reading.
    const p =
      form === 'queryArrowStream'
        ? c[form](slow(marker), { signal: ac.signal }).then(async (s) => {
            for await (const b of s) assert.ok(b);
          })
        : c[form](slow(marker), { signal: ac.signal });
    assert.ok(await eventually(async () => (await running(marker)) === 1), `${form} runs`);
    ac.abort();
    await assert.rejects(p, { name: 'AbortError' }, form);
    assert.ok(await eventually(async () => (await running(marker)) === 0), `${form}: the query is gone`);
  }
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
});

test('leaving a stream early (break) stops the query on the server', async () => {
  const marker = `node_break_${process.pid}`;
  let n = 0;
  for await (const row of c.queryStream(slow(marker))) {
    if (++n === 150) break;
    assert.ok(row);
  }
  assert.ok(await eventually(async () => (await running(marker)) === 0), 'the query is gone after break');
  const m2 = `node_break_arrow_${process.pid}`;
  const s = await c.queryArrowStream(slow(m2));
  for await (const b of s) {
    assert.ok(b.numRows > 0);
    break;
  }
  assert.ok(await eventually(async () => (await running(m2)) === 0), 'the Arrow query is gone after break');
  const m3 = `node_destroy_${process.pid}`;
  const readable = c.queryStream(slow(m3)).toReadable();
  await assert.rejects(
    async () => {
      for await (const r of readable) {
        assert.ok(r);
        readable.destroy();
      }
    },
    { code: 'ERR_STREAM_PREMATURE_CLOSE' },
  );
  assert.ok(await eventually(async () => (await running(m3)) === 0), 'the query is gone after destroy()');
  assert.equal((await c.query('SELECT 7 AS x')).rows[0].x, 7);
});

test(
  'an abandoned stream (never read again, collected) stops its query',
  { skip: typeof global.gc !== 'function' && 'needs --expose-gc' },
  async () => {
    const marker = `node_gc_${process.pid}`;
    const d = await ch.connect(URL26);
    (() => {
      const s = d.queryStream(slow(marker));
      s.nextBlock();
    })();
    assert.ok(await eventually(async () => (await running(marker)) === 1), 'the query runs');
    for (let i = 0; i < 20 && (await running(marker)) > 0; i++) {
      global.gc();
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(await running(marker), 0);
    await d.close();
  },
);

test('a slow consumer pauses the reading: memory stays a block or two', async () => {
  // 200 MB of result read slowly at first: the process must not buffer it.
  const rss0 = process.memoryUsage.rss();
  let n = 0;
  let peak = 0;
  for await (const b of c.queryColumnsStream("SELECT repeat('x', 1000) AS s FROM numbers(200000)", {
    settings: { max_block_size: 1000 },
  })) {
    n += b.s.length;
    if (n <= 5000) await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, process.memoryUsage.rss() - rss0);
  }
  assert.equal(n, 200000);
  assert.ok(peak < 100 * 1048576, `peak growth ${(peak / 1048576).toFixed(1)} MiB`);
});

test('abort of an insert ends it; the connection goes on', async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt64) ENGINE = Memory`);
  const ac = new AbortController();
  async function* rows() {
    for (let i = 0; i < 100; i++) {
      yield [{ a: i }];
      await new Promise((r) => setTimeout(r, 20));
      if (i === 5) ac.abort();
    }
  }
  await assert.rejects(c.insert(t, rows(), { signal: ac.signal, blockRows: 1 }), { name: 'AbortError' });
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
  await c.execute(`DROP TABLE ${t}`);
});

test('an aborted insert is abandoned, never ended: the server keeps none of its rows', async () => {
  // MergeTree gathers an INSERT's small blocks until its end: rows in the table after an abort
  // mean the insert was ended (committed) instead of abandoned.
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt8) ENGINE = MergeTree ORDER BY a`);
  for (let k = 0; k < 6; k++) {
    const ac = new AbortController();
    async function* rows() {
      for (;;) {
        await new Promise((r) => setTimeout(r, 5));
        yield { a: 1 };
      }
    }
    setTimeout(() => ac.abort(), 150 + k * 13);
    await assert.rejects(c.insert(t, rows(), { signal: ac.signal, blockRows: 10 }), { name: 'AbortError' });
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await c.query(`SELECT count() AS n FROM ${t}`)).rows[0].n, 0n);
  await c.execute(`DROP TABLE ${t}`);
});
