// A hostile but fair user: wrong arguments, wrong values, aborts and closes at the worst
// moments, errors mid-stream, results larger than memory should hold. Each case was a crash,
// a hang or silently wrong data before its fix (or guards one that must stay fixed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as arrow from 'apache-arrow';
import { ch, URL26, NEW_TYPES, tableName, serverText, running, eventually } from './helpers.mjs';

let c;
before(async () => {
  c = await ch.connect(URL26);
});
after(async () => {
  await c?.close();
});

const slow = (marker) =>
  `SELECT number, sleepEachRow(0.001) AS z /* ${marker} */ FROM system.numbers SETTINGS max_block_size = 100`;
const within = (p, ms, what) =>
  Promise.race([
    p,
    new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);

test('arguments of the wrong type are TypeErrors before anything is sent', async () => {
  await assert.rejects(ch.connect(123), TypeError);
  await assert.rejects(ch.connect(URL26, { max_threads: {} }), /`max_threads`.*not an object/);
  await assert.rejects(c.query(123), TypeError);
  await assert.rejects(c.query(), TypeError);
  await assert.rejects(c.query('SELECT {a:UInt8}', { params: 5 }), /`params` must be an object/);
  await assert.rejects(c.query('SELECT 1', { settings: ['x'] }), /`settings` must be an object/);
  await assert.rejects(c.insert(5, [{ a: 1 }]), TypeError);
  for (const data of [null, undefined, 5, 'rows'])
    await assert.rejects(c.insert('t', data), TypeError, String(data));
  await assert.rejects(c.insert('t', [{ a: 1 }], { columns: 'a' }), /`columns` must be an array/);
  assert.throws(() => ch.createPool(42), TypeError);
  // Bad URLs are config errors naming the problem.
  for (const u of ['garbage', 'ftp://x', 'tcp://127.0.0.1:99999/default', 'http://[::1'])
    await assert.rejects(ch.connect(u), (e) => e instanceof ch.ChwireError && e.kind === 'config', u);
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
});

test('close() with a query, a stream and an insert running: each rejects as closed, nothing hangs', async () => {
  const marker = `node_close_${process.pid}`;
  const d = await ch.connect(URL26);
  const q = d.query(slow(marker));
  q.catch(() => {});
  assert.ok(await eventually(async () => (await running(marker)) === 1), 'the query runs');
  await within(d.close(), 5000, 'close with a query running');
  await assert.rejects(q, (e) => e instanceof ch.ChwireError && e.kind === 'closed');
  assert.ok(await eventually(async () => (await running(marker)) === 0), 'the query is gone from the server');
  await assert.rejects(d.query('SELECT 1'), (e) => e.kind === 'closed');

  // A stream nobody reads (its channel full) and queued calls behind it.
  const e = await ch.connect(URL26);
  const s = e.queryStream('SELECT number FROM numbers(100000000)');
  await s.ready();
  const queued = e.query('SELECT 1');
  queued.catch(() => {});
  await within(e.close(), 5000, 'close with a stream unread');
  await assert.rejects(
    async () => {
      for await (const r of s) assert.ok(r);
    },
    (x) => x.kind === 'closed',
  );
  await assert.rejects(queued, (x) => x.kind === 'closed');

  // An insert fed slowly.
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt64) ENGINE = Memory`);
  const f = await ch.connect(URL26);
  async function* rows() {
    for (let i = 0; ; i++) {
      yield [{ a: i }];
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const ins = f.insert(t, rows(), { blockRows: 1 });
  ins.catch(() => {});
  await new Promise((r) => setTimeout(r, 200));
  await within(f.close(), 5000, 'close with an insert running');
  await assert.rejects(ins, (x) => x.kind === 'closed');
  await c.execute(`DROP TABLE ${t}`);

  // A pool the same way.
  const pool = ch.createPool(URL26, {}, { max_size: 2 });
  const pq = pool.query(slow(`${marker}_pool`));
  pq.catch(() => {});
  assert.ok(await eventually(async () => (await running(`${marker}_pool`)) === 1));
  await within(pool.close(), 5000, 'pool close');
  await assert.rejects(pq, (x) => x.kind === 'closed');
  await assert.rejects(pool.query('SELECT 1'), (x) => x.kind === 'closed');
  assert.ok(await eventually(async () => (await running(`${marker}_pool`)) === 0));
});

test('an abort mid-stream is an AbortError, never a silently shorter result', async () => {
  const ac = new AbortController();
  let n = 0;
  await assert.rejects(
    async () => {
      for await (const r of c.queryStream(slow(`node_abort_iter_${process.pid}`), { signal: ac.signal })) {
        assert.ok(r);
        if (++n === 150) ac.abort();
      }
    },
    { name: 'AbortError' },
  );
  assert.equal(n, 150, 'no row after the abort');
  const ac2 = new AbortController();
  await assert.rejects(
    async () => {
      for await (const b of c.queryColumnsStream(slow(`node_abort_cols_${process.pid}`), {
        signal: ac2.signal,
      })) {
        assert.ok(b);
        ac2.abort();
      }
    },
    { name: 'AbortError' },
  );
  const ac3 = new AbortController();
  const s = await c.queryArrowStream(slow(`node_abort_arrow_${process.pid}`), { signal: ac3.signal });
  await assert.rejects(
    async () => {
      for await (const b of s) {
        assert.ok(b.numRows);
        ac3.abort();
      }
    },
    { name: 'AbortError' },
  );
  assert.equal((await c.query('SELECT 2 AS x')).rows[0].x, 2);
});

test('a server error mid-stream rejects every form after rows arrived; the client goes on', async () => {
  const sql = 'SELECT throwIf(number = 50000) AS x FROM numbers(100000) SETTINGS max_block_size = 1000';
  const is395 = (e) => e instanceof ch.ClickHouseError && e.code === 395;
  await assert.rejects(c.query(sql), is395);
  await assert.rejects(c.queryColumns(sql), is395);
  await assert.rejects(c.queryArrow(sql), is395);
  await assert.rejects(c.execute(sql), is395);
  let rows = 0;
  await assert.rejects(async () => {
    for await (const r of c.queryStream(sql)) rows += r ? 1 : 0;
  }, is395);
  assert.ok(rows > 0 && rows <= 50000, `${rows} rows before the error`);
  await assert.rejects(async () => {
    for await (const b of await c.queryArrowStream(sql)) assert.ok(b);
  }, is395);
  assert.equal((await c.query('SELECT 3 AS x')).rows[0].x, 3);
});

test('many concurrent calls on one client queue and all get their own results', async () => {
  const calls = Array.from({ length: 30 }, (_, i) =>
    i % 3 === 0
      ? c
          .query(`SELECT ${i} AS x, count() AS n FROM numbers(${i * 1000})`)
          .then((r) => [r.rows[0].x, r.rows[0].n])
      : i % 3 === 1
        ? c
            .queryColumns(`SELECT ${i} AS x, count() AS n FROM numbers(${i * 1000})`)
            .then((r) => [r.columns.x[0], r.columns.n[0]])
        : c
            .queryArrow(`SELECT ${i} AS x, count() AS n FROM numbers(${i * 1000})`)
            .then((t) => [t.getChild('x').get(0), t.getChild('n').get(0)]),
  );
  const got = await Promise.all(calls);
  got.forEach(([x, n], i) => {
    assert.equal(Number(x), i);
    assert.equal(n, BigInt(i * 1000));
  });
});

test('giant results stream in bounded memory (W1-like: 30M UInt64, rows, typed arrays and Arrow)', async () => {
  const measure = async (f) => {
    global.gc?.();
    const rss0 = process.memoryUsage.rss();
    let peak = 0;
    const n = await f(() => (peak = Math.max(peak, process.memoryUsage.rss() - rss0)));
    return { n, peak: peak / 1048576 };
  };
  const sql = 'SELECT number FROM numbers(30000000)';
  const cols = await measure(async (tick) => {
    let n = 0;
    let sum = 0n;
    for await (const b of c.queryColumnsStream(sql)) {
      n += b.number.length;
      sum += b.number[b.number.length - 1];
      tick();
    }
    assert.ok(sum > 0n);
    return n;
  });
  assert.equal(cols.n, 30_000_000);
  assert.ok(cols.peak < 64, `typed arrays: RSS grew ${cols.peak.toFixed(1)} MiB`);
  const arr = await measure(async (tick) => {
    let n = 0;
    for await (const b of await c.queryArrowStream(sql)) {
      n += b.numRows;
      tick();
    }
    return n;
  });
  assert.equal(arr.n, 30_000_000);
  assert.ok(arr.peak < 64, `Arrow: RSS grew ${arr.peak.toFixed(1)} MiB`);
  const rows = await measure(async (tick) => {
    let n = 0;
    for await (const b of c
      .queryStream('SELECT number, toString(number) AS s FROM numbers(3000000)')
      .blocks()) {
      n += b.length;
      tick();
    }
    return n;
  });
  assert.equal(rows.n, 3_000_000);
  assert.ok(rows.peak < 128, `rows: RSS grew ${rows.peak.toFixed(1)} MiB`);
});

test('insert values: NaN, huge bigints, bad date strings, nested nulls are refused naming column and row', async () => {
  const t = tableName();
  await c.execute(
    `CREATE TABLE ${t} (i Int32, u UInt64, d Date, dt DateTime, a Array(String), an Array(Nullable(String)), tup Tuple(a UInt8, b String), m Map(String, UInt8)) ENGINE = Memory`,
  );
  const ok = { i: 1, u: 1n, d: '2024-01-01', dt: 0, a: [], an: [], tup: { a: 1, b: 'x' }, m: {} };
  const cases = [
    [{ i: NaN }, RangeError, /column `i` \(Int32\), row 1: NaN is not an integer/],
    [{ i: 1e-300 }, RangeError, /row 1: 1e-300 is not an integer/],
    [{ u: 2n ** 64n }, RangeError, /column `u` \(UInt64\), row 1: 18446744073709551616 does not fit UInt64/],
    [
      { u: 2n ** 200n },
      RangeError,
      /column `u` \(UInt64\), row 1: 1606938044258990275541962092341162602522202993782792835301376 does not fit/,
    ],
    [{ u: -1n }, RangeError, /row 1: -1 does not fit UInt64/],
    [{ d: '2024-02-30' }, RangeError, /column `d` \(Date\), row 1: "2024-02-30" is not a date/],
    [{ d: new Date(Date.UTC(2024, 0, 1, 12)) }, RangeError, /a Date with a time of day/],
    [
      { dt: '2024-01-01 25:00:00' },
      RangeError,
      /column `dt` \(DateTime\), row 1: "2024-01-01 25:00:00" is not a date and time/,
    ],
    [{ dt: '2024-01-01 00:00:00.5' }, RangeError, /row 1: a time with a fraction of a second/],
    [{ dt: new Date('nope') }, RangeError, /column `dt`.*row 1/],
    [{ a: [null] }, RangeError, /column `a` \(Array\(String\)\), row 1: NULL does not fit/],
    [{ a: [['x']] }, TypeError, /column `a`.*an array does not fit String/],
    [{ tup: { a: null, b: 'x' } }, RangeError, /column `tup`.*NULL does not fit/],
    [{ m: { k: 300 } }, RangeError, /column `m`.*300 does not fit UInt8/],
  ];
  for (const [bad, cls, re] of cases) {
    await assert.rejects(c.insert(t, [ok, { ...ok, ...bad }]), (e) => {
      assert.ok(e instanceof cls, `${Object.keys(bad)}: ${e}`);
      assert.match(e.message, re);
      assert.equal(e.rowsInserted, 0);
      return true;
    });
  }
  assert.equal(Number((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim()), 0);
  // Nested nulls where the type has them go in.
  assert.equal(await c.insert(t, [{ ...ok, an: [null, 'x', null] }]), 1);
  assert.deepEqual((await c.query(`SELECT an FROM ${t}`)).rows[0].an, [null, 'x', null]);
  await c.execute(`DROP TABLE ${t}`);
});

test('a refused block commits the blocks before it, and says how many rows went in', async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (a UInt8) ENGINE = Memory`);
  const rows = Array.from({ length: 10 }, (_, i) => ({ a: i }));
  rows[7].a = 999;
  await assert.rejects(c.insert(t, rows, { blockRows: 5 }), (e) => {
    assert.ok(e instanceof RangeError);
    assert.equal(e.rowsInserted, 5);
    assert.match(e.message, /row 7: 999 does not fit UInt8 \(the 5 rows before it were inserted\)/);
    return true;
  });
  assert.equal(Number((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim()), 5);
  // Arrow data the same: the second table does not convert, the first stays.
  async function* tables() {
    yield arrow.tableFromArrays({ a: new Uint8Array([1, 2]) });
    yield arrow.tableFromArrays({ a: new Float64Array([1.5]) });
  }
  await assert.rejects(c.insert(t, tables()), (e) => {
    assert.equal(e.rowsInserted, 2);
    return true;
  });
  assert.equal(Number((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim()), 7);
  await c.execute(`DROP TABLE ${t}`);
});

test('wide and structured values go in: 256-bit bigints, Decimal256 text, Nested, objects in Dynamic', async () => {
  const t = tableName();
  await c.execute(
    `CREATE TABLE ${t} (i Int256, u UInt256, ni Array(Nullable(Int256)), d Decimal(76, 40), n Nested(a UInt8, b String), dy Dynamic) ENGINE = Memory`,
    { settings: { ...NEW_TYPES, flatten_nested: 0 } },
  );
  const row = {
    i: -(2n ** 255n),
    u: 2n ** 256n - 1n,
    ni: [null, 2n ** 200n],
    d: '-123456789012345678901234567890123.4567890123456789012345678901234567890123',
    n: [
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ],
    dy: { x: 1, y: { z: 'w' } },
  };
  assert.equal(await c.insert(t, [row]), 1);
  const got = (await c.query(`SELECT * FROM ${t}`)).rows[0];
  assert.equal(got.i, row.i);
  assert.equal(got.u, row.u);
  assert.deepEqual(got.ni, row.ni);
  assert.equal(got.d, row.d);
  assert.deepEqual(got.n, row.n);
  assert.deepEqual(got.dy, row.dy);
  assert.equal(
    (await serverText(`SELECT dynamicType(dy) FROM ${t} FORMAT TSV`)).trim(),
    'Tuple(x Int64, y Tuple(z String))',
  );
  await assert.rejects(c.insert(t, [{ ...row, u: 2n ** 256n }]), /row 0: .* does not fit UInt256/);
  await assert.rejects(c.insert(t, [{ ...row, i: 2n ** 255n }]), /does not fit Int256/);
  await assert.rejects(
    c.insert(t, [{ ...row, d: '1.00000000000000000000000000000000000000001' }]),
    /cannot be represented exactly/,
  );
  await c.execute(`DROP TABLE ${t}`);
});

test('numbers that are not what their type needs, in parameters', async () => {
  const r = await c.query('SELECT {a:Float64} AS a, {b:Float64} AS b', { params: { a: NaN, b: -Infinity } });
  assert.ok(Number.isNaN(r.rows[0].a));
  assert.equal(r.rows[0].b, -Infinity);
  await assert.rejects(c.query('SELECT {a:Int32}', { params: { a: NaN } }), TypeError);
  await assert.rejects(c.query('SELECT {a:UInt64}', { params: { a: 2n ** 70n } }), RangeError);
});
