// The second and later adversarial probes (against 26.9): each case was silently wrong, a misleading error
// or impossible to stop before its fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ch, URL26, tableName, serverText, running, eventually } from './helpers.mjs';
import * as arrow from 'apache-arrow';

let c;
before(async () => {
  c = await ch.connect(URL26);
});
after(async () => {
  await c?.close();
});

test("blockRows is the core's block_rows: a whole number of rows, 1 or more (NaN inserted nothing, 0.5 made half rows)", async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt64) ENGINE = Memory`);
  for (const bad of [NaN, 0.5, 0, -5, Infinity, 'ten'])
    await assert.rejects(c.insert(t, [{ a: 1 }], { blockRows: bad }), (e) => {
      assert.equal(e.kind, 'config', `${bad}: ${e}`);
      assert.match(e.message, /block_rows/);
      return true;
    });
  for (const bad of [true, {}, [4]])
    await assert.rejects(c.insert(t, [{ a: 1 }], { blockRows: bad }), TypeError);
  assert.equal(await c.insert(t, [{ a: 1 }, { a: 2 }], { blockRows: 2 ** 60 }), 2);
  assert.equal(await c.insert(t, [{ a: 1 }, { a: 2 }, { a: 3 }], { blockRows: '2' }), 3);
  assert.equal((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim(), '5');
  await c.execute(`DROP TABLE ${t}`);
});

test('a bigint a double cannot hold exactly is refused for Float columns (it was rounded)', async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (f Float64, g Float32) ENGINE = Memory`);
  await assert.rejects(c.insert(t, [{ f: 2n ** 60n + 1n, g: 0 }]), (e) => {
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /column `f` \(Float64\), row 0: 1152921504606846977 is not exact in Float64/);
    return true;
  });
  await assert.rejects(c.insert(t, [{ f: 0, g: 2n ** 1100n }]), RangeError);
  await assert.rejects(c.insert(t, [{ f: 0, g: 2n ** 24n + 1n }]), /16777217 is not exact in Float32/);
  assert.equal(await c.insert(t, [{ f: 2n ** 60n, g: 16777216n }]), 1);
  assert.equal(
    (await serverText(`SELECT toUInt64(f), toUInt64(g) FROM ${t} FORMAT TSV`)).trim(),
    '1152921504606846976\t16777216',
  );
  await c.execute(`DROP TABLE ${t}`);
});

test('256-bit and UInt128 parameters out of range are RangeErrors (the server wrapped them)', async () => {
  const q = (type, a) => c.query(`SELECT toString({a:${type}}) AS s`, { params: { a } });
  for (const [type, a] of [
    ['UInt256', 2n ** 256n],
    ['UInt256', -1n],
    ['Int256', 2n ** 255n],
    ['Int256', -(2n ** 255n) - 1n],
    ['UInt128', -1n],
    ['UInt128', 2n ** 128n],
    ['Int128', 2n ** 127n],
    ['UInt64', 2n ** 64n],
  ])
    await assert.rejects(q(type, a), (e) => {
      assert.ok(e instanceof RangeError, `${type} ${a}: ${e}`);
      assert.match(e.message, /does not fit|outside the range/);
      return true;
    });
  for (const [type, a] of [
    ['UInt256', 2n ** 256n - 1n],
    ['Int256', -(2n ** 255n)],
    ['UInt128', 2n ** 128n - 1n],
    ['UInt128', 0n],
  ])
    assert.equal((await q(type, a)).rows[0].s, String(a), `${type} ${a}`);
});

test('a queryId of the wrong type is a TypeError (it was "Node-API call failed")', async () => {
  await assert.rejects(c.query('SELECT 1', { queryId: 5 }), /`queryId` must be a string, not a number/);
  await assert.rejects(c.insert('t', [{ a: 1 }], { queryId: {} }), TypeError);
});

test('connect takes a signal: an abort rejects at once, a connection made later is closed', async () => {
  const ac = new AbortController();
  const p = ch.connect(URL26, { signal: ac.signal });
  ac.abort();
  await assert.rejects(p, { name: 'AbortError' });
  await assert.rejects(ch.connect(URL26, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  await assert.rejects(ch.connect(URL26, { signal: 'soon' }), TypeError);
  // Aborting after connect changes nothing.
  const ac2 = new AbortController();
  const d = await ch.connect(URL26, { signal: ac2.signal });
  ac2.abort();
  assert.equal((await d.query('SELECT 1 AS x')).rows[0].x, 1);
  await d.close();
});

test('reading a stream on after it was closed or left is an error, never an empty result', async () => {
  const s = c.queryStream('SELECT number FROM numbers(10)');
  let n = 0;
  for await (const r of s) {
    assert.ok(r);
    if (++n === 3) break;
  }
  await assert.rejects(
    async () => {
      for await (const r of s) assert.ok(r);
    },
    (e) => e instanceof ch.ChwireError && e.kind === 'closed',
  );
  const a = await c.queryArrowStream('SELECT number FROM numbers(100000) SETTINGS max_block_size = 1000');
  for await (const b of a) {
    assert.ok(b.numRows);
    break;
  }
  await assert.rejects(a.readAll(), (e) => e.kind === 'closed');
  const closed = c.queryStream('SELECT 1');
  closed.close();
  closed.close();
  await assert.rejects(closed.ready(), (e) => e.kind === 'closed');
  // A stream read to its end can be iterated again: it is empty, and whole.
  const whole = await c.queryArrowStream('SELECT number FROM numbers(10)');
  let rows = 0;
  for await (const b of whole) rows += b.numRows;
  for await (const b of whole) rows += b.numRows;
  assert.equal(rows, 10);
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
});

test('aborts at every point of every form: rejected, and the query is gone from the server', async () => {
  for (const form of ['query', 'queryColumns', 'queryArrow', 'execute'])
    for (const at of [0, 2, 30]) {
      const marker = `node_abort_at_${process.pid}_${form}_${at}`;
      const ac = new AbortController();
      const p = c[form](
        `SELECT number, sleepEachRow(0.0005) AS z /* ${marker} */ FROM numbers(100000) SETTINGS max_block_size = 1000`,
        { signal: ac.signal },
      );
      setTimeout(() => ac.abort(), at);
      await assert.rejects(p, { name: 'AbortError' }, `${form} at ${at} ms`);
      assert.ok(await eventually(async () => (await running(marker)) === 0), `${form} at ${at} ms: gone`);
    }
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt64) ENGINE = Memory`);
  for (const at of [0, 1, 20]) {
    const ac = new AbortController();
    async function* rows() {
      for (let i = 0; i < 1000; i++) {
        yield [{ a: i }];
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    const p = c.insert(t, rows(), { blockRows: 1, signal: ac.signal });
    setTimeout(() => ac.abort(), at);
    await assert.rejects(p, { name: 'AbortError' }, `insert at ${at} ms`);
  }
  await c.execute(`DROP TABLE ${t}`);
  assert.equal((await c.query('SELECT 2 AS x')).rows[0].x, 2);
});

test('a boolean for a number or a duration is refused (max_collected_rows: true read as 1)', async () => {
  for (const o of [{ max_collected_rows: true }, { connect_timeout: false }, { max_block_rows: true }])
    await assert.rejects(
      ch.connect(URL26, o),
      (e) => e.kind === 'config' && /max_collected_rows|connect_timeout|max_block_rows/.test(e.message),
      JSON.stringify(o),
    );
  assert.throws(() => ch.createPool(URL26, {}, { max_size: true }), /max_size="true" \(a whole number\)/);
  // A flag takes one, as a ClickHouse setting does (as 1/0).
  const ok = await ch.connect(URL26, { secure: false, insert_deduplicate: true });
  assert.equal((await ok.query('SELECT 1 AS one')).rows[0].one, 1);
  await ok.close();
});

test('an abort while the source makes its next chunk rejects once, with no stray rejection', async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (n UInt64) ENGINE = Memory`);
  const stray = [];
  const onStray = (e) => stray.push(e);
  process.on('unhandledRejection', onStray);
  try {
    for (const last of [true, false]) {
      const ac = new AbortController();
      async function* gen() {
        yield arrow.tableFromArrays({ n: BigUint64Array.from([1n]) });
        ac.abort(); // the signal fires while the data is being produced
        if (!last) yield arrow.tableFromArrays({ n: BigUint64Array.from([2n]) });
      }
      await assert.rejects(c.insert(t, gen(), { signal: ac.signal }), { name: 'AbortError' });
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(stray, []);
    assert.equal((await c.query('SELECT 1 AS one')).rows[0].one, 1);
  } finally {
    process.off('unhandledRejection', onStray);
    await c.execute(`DROP TABLE ${t}`);
  }
});

test('a source that throws mid-insert ends it with what was sent committed, and says how much', async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (n UInt64) ENGINE = Memory`);
  try {
    async function* rows() {
      for (let i = 0; i < 5; i++) yield { n: i };
      throw new Error('the source broke');
    }
    await assert.rejects(c.insert(t, rows(), { blockRows: 2 }), (e) => {
      assert.match(e.message, /the source broke \(the 5 rows before it were inserted\)/);
      assert.equal(e.rowsInserted, 5);
      return true;
    });
    assert.equal((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim(), '5');
    async function* tables() {
      yield arrow.tableFromArrays({ n: BigUint64Array.from([7n, 8n]) });
      throw new Error('the source broke again');
    }
    // Arrow batches gathered but not yet sent go in first.
    await assert.rejects(c.insert(t, tables()), (e) => e.rowsInserted === 2);
    assert.equal((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim(), '7');
    // Refused before anything went in: "nothing was inserted".
    await assert.rejects(c.insert(t, [{ n: -1 }]), /\(nothing was inserted\)/);
    // A list of Arrow tables is data, as an iterable of them is (not rows).
    const list = [
      arrow.tableFromArrays({ n: BigUint64Array.from([1n]) }),
      arrow.tableFromArrays({ n: BigUint64Array.from([2n]) }),
    ];
    assert.equal(await c.insert(t, list), 2);
    assert.equal((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim(), '9');
  } finally {
    await c.execute(`DROP TABLE ${t}`);
  }
});
