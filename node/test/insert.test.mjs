// Inserts from every form of JS data, and bad values refused before anything of their block is sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import * as arrow from 'apache-arrow';
import { ch, URL26, tableName, serverText } from './helpers.mjs';

let c;
let t;
before(async () => {
  c = await ch.connect(URL26);
  t = tableName();
  await c.execute(
    `CREATE TABLE ${t} (id UInt64, name String, value Float64, ts DateTime, small UInt8, big Int64, note Nullable(String), tags Array(String)) ENGINE = Memory`,
  );
});
after(async () => {
  await c?.execute(`DROP TABLE IF EXISTS ${t}`);
  await c?.close();
});

async function count() {
  return Number((await serverText(`SELECT count() FROM ${t} FORMAT TSV`)).trim());
}

test('rows as objects, rows as arrays, columns, typed arrays, Arrow, (async) iterables, Readable', async () => {
  await c.execute(`TRUNCATE TABLE ${t}`);
  const row = (i) => ({
    id: i,
    name: `n${i}`,
    value: i / 2,
    ts: new Date(i * 1000),
    small: i % 200,
    big: BigInt(i) - 5n,
    note: i % 2 ? null : 'x',
    tags: ['a', String(i)],
  });
  assert.equal(await c.insert(t, [row(0), row(1)]), 2);
  assert.equal(await c.insert(t, [[2, 'n2', 1, 2, 2, -3n, null, []]]), 1);
  assert.equal(
    await c.insert(t, {
      id: [3, 4],
      name: ['n3', 'n4'],
      value: new Float64Array([1.5, 2]),
      ts: [3, 4],
      small: new Uint8Array([3, 4]),
      big: new BigInt64Array([1n, 2n]),
      note: [null, 'y'],
      tags: [[], ['z']],
    }),
    2,
  );
  const table = arrow.tableFromArrays({
    id: new BigUint64Array([5n, 6n]),
    name: ['n5', 'n6'],
    value: new Float64Array([5, 6]),
    small: new Uint8Array([5, 6]),
  });
  assert.equal(await c.insert(t, table), 2);
  assert.equal(await c.insert(t, [row(7), row(8)][Symbol.iterator]()), 2);
  async function* gen() {
    yield [row(9)];
    yield { id: [10], name: ['n10'], value: [0], ts: [0], small: [0], big: [0], note: [null], tags: [[]] };
  }
  assert.equal(await c.insert(t, gen()), 2);
  assert.equal(await c.insert(t, Readable.from([row(11), row(12), row(13)])), 3);
  assert.equal(await count(), 14);
  const r = await c.query(`SELECT * FROM ${t} WHERE id = 1`);
  assert.deepEqual(r.rows[0], {
    id: 1n,
    name: 'n1',
    value: 0.5,
    ts: new Date(1000),
    small: 1,
    big: -4n,
    note: null,
    tags: ['a', '1'],
  });
  const ids = (await c.queryColumns(`SELECT id FROM ${t} ORDER BY id`)).columns.id;
  assert.deepEqual(
    [...ids],
    Array.from({ length: 14 }, (_, i) => BigInt(i)),
  );
});

test('non-ASCII strings and many blocks', async () => {
  await c.execute(`TRUNCATE TABLE ${t}`);
  const n = 250_000;
  const names = Array.from({ length: n }, (_, i) => (i % 3 ? `é${i}😀` : `plain${i}`));
  const got = await c.insert(
    t,
    {
      id: Array.from({ length: n }, (_, i) => i),
      name: names,
      value: new Float64Array(n),
      ts: new Uint32Array(n),
      small: new Uint8Array(n),
      big: new BigInt64Array(n),
      note: names,
      tags: Array.from({ length: n }, () => []),
    },
    { blockRows: 60_000 },
  );
  assert.equal(got, n);
  const back = await c.queryColumns(`SELECT name FROM ${t} ORDER BY id`);
  assert.deepEqual(back.columns.name, names);
});

test('a wrong value is a TypeError/RangeError naming the column and row; nothing of its block is sent', async () => {
  await c.execute(`TRUNCATE TABLE ${t}`);
  const ok = (i) => ({ id: i, name: 'x', value: 1, ts: 0, small: 1, big: 1, note: null, tags: [] });
  const cases = [
    [
      { small: 'a string' },
      TypeError,
      /column `small` \(UInt8\), row 2: the string "a string" does not fit UInt8/,
    ],
    [{ small: 300 }, RangeError, /column `small` \(UInt8\), row 2: 300 does not fit UInt8/],
    [{ big: 1.5 }, RangeError, /column `big` \(Int64\), row 2: 1.5 is not an integer/],
    [{ id: -1 }, RangeError, /column `id` \(UInt64\), row 2/],
    [{ name: 5 }, TypeError, /column `name` \(String\), row 2: the number 5 does not fit String/],
    [
      { ts: new Date(1500) },
      RangeError,
      /column `ts` \(DateTime\), row 2: a time with a fraction of a second/,
    ],
    [{ tags: 'x' }, TypeError, /column `tags` \(Array\(String\)\), row 2/],
    [{ id: null }, RangeError, /column `id` \(UInt64\), row 2: NULL does not fit/],
  ];
  for (const [bad, cls, re] of cases) {
    const rows = [ok(0), ok(1), { ...ok(2), ...bad }, ok(3)];
    await assert.rejects(c.insert(t, rows), (e) => {
      assert.ok(e instanceof cls, `${JSON.stringify(bad)}: ${e}`);
      assert.match(e.message, re);
      return true;
    });
  }
  // Row numbers count across blocks; the blocks before the failing one were sent.
  const rows = Array.from({ length: 10 }, (_, i) => ok(i));
  rows[7].small = 999;
  await assert.rejects(c.insert(t, rows, { blockRows: 5 }), /row 7/);
  assert.equal(await count(), 5);
  // Bad Arrow data: refused before it is sent.
  await c.execute(`TRUNCATE TABLE ${t}`);
  const bad = arrow.tableFromArrays({ id: new Float64Array([1.5]) });
  await assert.rejects(c.insert(t, bad), (e) => e.kind === 'data' || e instanceof RangeError);
  assert.equal(await count(), 0);
  // A column the table does not have.
  await assert.rejects(
    c.insert(t, [{ id: 1, nope: 2 }]),
    (e) => e.name === 'NO_SUCH_COLUMN_IN_TABLE' || /nope/.test(e.message),
  );
  assert.equal((await c.query('SELECT 1 AS x')).rows[0].x, 1);
});

test('table names are read and quoted, never pasted', async () => {
  await assert.rejects(c.insert(`${t}; DROP TABLE ${t}`, [{ id: 1 }]), (e) => e.kind === 'data');
  assert.equal(Number((await serverText(`EXISTS TABLE ${t} FORMAT TSV`)).trim()), 1);
  const db = URL26.split('/').pop() || 'default';
  await c.execute(`TRUNCATE TABLE ${t}`);
  assert.equal(await c.insert(`\`${db}\`.${t}`, [{ id: 1 }], { columns: ['id'] }), 1);
});
