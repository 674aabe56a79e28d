// The slice against ClickHouse 18.16 (revision 54412): client-side parameter binding, binary
// settings, the types it has, both directions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ch, URL18, tableName } from './helpers.mjs';

const skip = !URL18 && 'no 18.16 server (CHWIRE_TEST_URL_18; scripts/with-server.sh --both)';

test('18.16: queries, parameters bound as typed literals, settings', { skip }, async () => {
  const c = await ch.connect(URL18);
  assert.equal(c.serverInfo.version.split('.')[0], '18');
  assert.deepEqual(c.serverInfo.settings, {});
  const r = await c.query(
    'SELECT {a:UInt8} AS a, {s:String} AS s, {d:Decimal(9, 2)} AS d, {arr:Array(Nullable(String))} AS arr, {t:DateTime} AS t',
    { params: { a: 200, s: "it's", d: '1.25', arr: ['x', null], t: new Date(86400000) } },
  );
  assert.deepEqual(r.rows[0], { a: 200, s: "it's", d: '1.25', arr: ['x', null], t: new Date(86400000) });
  await assert.rejects(c.query('SELECT 1', { settings: { max_threads: 'lots' } }), ch.ChwireError);
  await c.close();
});

test('18.16: every type it has, read and inserted back', { skip }, async () => {
  const c = await ch.connect(URL18);
  const t = tableName('node_old');
  await c.execute(
    `CREATE TABLE ${t} (u8 UInt8, i64 Int64, u64 UInt64, f32 Float32, f64 Float64, s String, fs FixedString(3), d Date, dt DateTime, ` +
      `dtz DateTime('Asia/Tokyo'), e8 Enum8('a' = 1, 'b' = 2), u UUID, n Nullable(Int32), a Array(String), dec Decimal(18, 4), ` +
      `lc LowCardinality(String), tup Tuple(UInt8, String)) ENGINE = Memory`,
  );
  const row = {
    u8: 255,
    i64: -9007199254740993n,
    u64: 18446744073709551615n,
    f32: 1.5,
    f64: -0.1,
    s: 'é',
    fs: 'ab\0',
    d: new Date(Date.UTC(2149, 5, 6)),
    dt: new Date(4294967295000),
    dtz: new Date(1000),
    e8: 'b',
    u: '61f0c404-5cb3-11e7-907b-a6006ad3dba0',
    n: null,
    a: ['x', ''],
    dec: '-12.3456',
    lc: 'lc',
    tup: [1, 'x'],
  };
  assert.equal(await c.insert(t, [row, { ...row, n: 5 }]), 2);
  const r = await c.query(`SELECT * FROM ${t}`);
  assert.deepEqual(r.rows[0], row);
  assert.equal(r.rows[1].n, 5);
  const back = await c.queryArrow(`SELECT * FROM ${t}`);
  assert.equal(await c.insert(t, back), 2);
  assert.equal((await c.query(`SELECT count() AS n FROM ${t}`)).rows[0].n, 4n);
  await c.execute(`DROP TABLE ${t}`);
  await c.close();
});
