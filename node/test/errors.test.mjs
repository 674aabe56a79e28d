// Errors: the server's as ClickHouseError, panics as errors (never a crash), a connection lost
// mid-query rejects and leaves the pool usable, a pool of the core's options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ch, URL26, proxy, running, eventually } from './helpers.mjs';

test('a server exception is a ClickHouseError with code, name and message; the client goes on', async () => {
  const c = await ch.connect(URL26);
  await assert.rejects(c.query('SELECT * FROM no_such_table_anywhere'), (e) => {
    assert.ok(e instanceof ch.ClickHouseError);
    assert.ok(e instanceof ch.ChwireError);
    assert.equal(e.code, 60);
    assert.equal(e.name, 'UNKNOWN_TABLE');
    assert.equal(e.kind, 'server');
    assert.match(e.message, /no_such_table_anywhere/);
    assert.equal(typeof e.stackTrace, 'string');
    return true;
  });
  await assert.rejects(c.query('SELEC 1'), { name: 'SYNTAX_ERROR', code: 62 });
  await assert.rejects(c.query('SELECT throwIf(number = 3) FROM numbers(10)'), { code: 395 });
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
  await c.close();
  await assert.rejects(c.query('SELECT 1'), (e) => e.kind === 'closed');
});

test('a panic in Rust is an error in JS, the process goes on', async () => {
  const c = await ch.connect(URL26);
  const n = c.native;
  assert.throws(
    () => n.panicForTest('boom'),
    (e) => /panicked.*boom/.test(e.message),
  );
  await assert.rejects(n.panicInTaskForTest('boom in a task'), (e) => /boom in a task/.test(e.message));
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
  await c.close();
});

// A read that fails before its first rows is sent again (the core's read failover): the cut
// comes after rows arrived, when the query can no longer be repeated.
async function cutAfterRows(p, q) {
  const it = q[Symbol.asyncIterator]();
  assert.ok(!(await it.next()).done);
  p.cut();
  for (;;) if ((await it.next()).done) break;
}

test('a connection lost mid-query rejects the promise; the client reconnects', async () => {
  const p = await proxy(URL26);
  try {
    const c = await ch.connect(p.url);
    const marker = `node_cut_${process.pid}`;
    const q = c.queryStream(
      `SELECT number, sleepEachRow(0.001) /* ${marker} */ FROM system.numbers SETTINGS max_block_size = 100`,
    );
    await assert.rejects(
      cutAfterRows(p, q),
      (e) => e instanceof ch.ChwireError && ['connection', 'protocol'].includes(e.kind),
    );
    assert.ok(await eventually(async () => (await running(marker)) === 0), 'the server ended the query');
    assert.equal((await c.query('SELECT 5 AS x')).rows[0].x, 5);
    await c.close();
  } finally {
    p.close();
  }
});

test('a pool: parallel queries, status, a lost connection leaves it usable', async () => {
  const p = await proxy(URL26);
  try {
    const pool = ch.createPool(p.url, {}, { max_size: 3, acquire_timeout: '10s' });
    const started = Date.now();
    const rs = await Promise.all([1, 2, 3].map((i) => pool.query(`SELECT ${i} AS x, sleep(0.5)`)));
    assert.deepEqual(
      rs.map((r) => r.rows[0].x),
      [1, 2, 3],
    );
    assert.ok(Date.now() - started < 1400, 'three queries ran at once');
    assert.ok(pool.status().size >= 1);
    const marker = `node_pool_cut_${process.pid}`;
    const q = pool.queryStream(
      `SELECT number, sleepEachRow(0.001) /* ${marker} */ FROM system.numbers SETTINGS max_block_size = 100`,
    );
    await assert.rejects(cutAfterRows(p, q), ch.ChwireError);
    assert.ok(await eventually(async () => (await running(marker)) === 0), 'the server ended the query');
    const again = await Promise.all([pool.query('SELECT 1 AS x'), pool.query('SELECT 2 AS x')]);
    assert.deepEqual(
      again.map((r) => r.rows[0].x),
      [1, 2],
    );
    const ins = await pool.query('SELECT count() AS n FROM numbers(10)');
    assert.equal(ins.rows[0].n, 10n);
    assert.throws(() => ch.createPool(URL26, {}, { nope: 1 }), TypeError);
    await pool.close();
  } finally {
    p.close();
  }
});

test('a client runs one query at a time: concurrent calls queue', async () => {
  const c = await ch.connect(URL26);
  const rs = await Promise.all([1, 2, 3, 4].map((i) => c.query(`SELECT ${i} AS x`)));
  assert.deepEqual(
    rs.map((r) => r.rows[0].x),
    [1, 2, 3, 4],
  );
  await c.close();
});
