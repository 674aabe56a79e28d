// Dates, date-times and bytes both ways: DateTime64 beyond milliseconds as PreciseDate (exact
// both ways), date-time text read as the server reads it (in the column's zone), and String
// bytes as Buffers (`strings: 'buffer'`), each checked against the server's own answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ch, URL26, NEW_TYPES, SERVER, tableName, serverText } from './helpers.mjs';

const on26 = { skip: SERVER.startsWith('18') && 'needs 26.9' };
let c;
before(async () => {
  c = await ch.connect(URL26, { settings: NEW_TYPES });
});
after(async () => {
  await c?.close();
});

test('DateTime64(4..9) reads as PreciseDate: a Date with every digit', async () => {
  const { rows } = await c.query(
    `SELECT toDateTime64('2024-01-02 03:04:05.123456789', 9, 'Asia/Tokyo') AS ns,
            toDateTime64('2024-01-02 03:04:05.123456', 6) AS us,
            toDateTime64('1969-12-31 23:59:59.9995', 4, 'UTC') AS neg,
            toDateTime64('2024-01-02 03:04:05.123', 3) AS ms,
            [toDateTime64('2000-01-01 00:00:00.000001', 6, 'UTC')] AS arr,
            CAST(NULL AS Nullable(DateTime64(7))) AS nul`,
  );
  const r = rows[0];
  assert.ok(r.ns instanceof ch.PreciseDate && r.ns instanceof Date);
  assert.equal(r.ns.epochNanoseconds, 1704132245123456789n);
  assert.equal(r.ns.getTime(), 1704132245123);
  assert.equal(r.ns.getMicroseconds(), 456);
  assert.equal(r.ns.getNanoseconds(), 789);
  assert.equal(r.ns.toISOString(), '2024-01-01T18:04:05.123456789Z');
  assert.equal(r.us.toISOString(), '2024-01-02T03:04:05.123456Z');
  assert.equal(r.neg.epochNanoseconds, -500000n);
  assert.equal(r.neg.getTime(), -1);
  assert.equal(r.neg.toISOString(), '1969-12-31T23:59:59.999500Z');
  // Milliseconds or less: a plain Date, as before.
  assert.ok(!(r.ms instanceof ch.PreciseDate) && r.ms instanceof Date);
  assert.equal(r.arr[0].toISOString(), '2000-01-01T00:00:00.000001Z');
  assert.equal(r.nul, null);
  assert.equal(JSON.stringify({ t: r.ns }), '{"t":"2024-01-01T18:04:05.123456789Z"}');
  // Columns and Dynamic values too.
  const cols = await c.queryColumns(`SELECT toDateTime64(number / 7, 9, 'UTC') AS t FROM numbers(3)`);
  assert.equal(cols.columns.t[1].epochNanoseconds, 142857142n);
  const dyn = await c.query(
    `SELECT CAST(toDateTime64('2024-01-01 00:00:00.000000123', 9, 'UTC') AS Dynamic) AS d`,
  );
  assert.ok(dyn.rows[0].d instanceof ch.PreciseDate);
  assert.equal(dyn.rows[0].d.epochNanoseconds, 1704067200000000123n);
});

test('PreciseDate: constructors', () => {
  const P = ch.PreciseDate;
  assert.equal(new P(1704067200123456789n).toISOString(), '2024-01-01T00:00:00.123456789Z');
  assert.equal(new P(-1n).epochNanoseconds, -1n);
  assert.equal(new P(-1n).getTime(), -1);
  assert.equal(new P('2024-01-01T00:00:00.123456789Z').epochNanoseconds, 1704067200123456789n);
  assert.equal(new P('2024-01-01T05:30:00.5+05:30').epochNanoseconds, 1704067200500000000n);
  assert.equal(new P(1704067200123, 456789).epochNanoseconds, 1704067200123456789n);
  assert.equal(new P(new Date(5)).epochNanoseconds, 5000000n);
  assert.equal(new P(new P(7n)).epochNanoseconds, 7n);
  assert.throws(() => new P(1.5), RangeError);
  assert.throws(() => new P(0, 1_000_000), RangeError);
  assert.throws(() => new P('2024-01-01T00:00:00.1234567891Z'), RangeError);
});

test(
  'a PreciseDate parameter keeps its microseconds; nanoseconds beyond them are refused',
  on26,
  async () => {
    const P = ch.PreciseDate;
    const { rows } = await c.query("SELECT toString({t:DateTime64(9, 'UTC')}) AS s", {
      params: { t: new P(1704067200123456000n) },
    });
    assert.equal(rows[0].s, '2024-01-01 00:00:00.123456000');
    await assert.rejects(
      c.query("SELECT {t:DateTime64(9, 'UTC')}", { params: { t: new P(1704067200123456789n) } }),
      (e) => e instanceof RangeError && /nanoseconds/.test(e.message),
    );
    // Text carries every digit.
    const text = await c.query("SELECT toString({t:DateTime64(9, 'UTC')}) AS s", {
      params: { t: '2024-01-01 00:00:00.123456789' },
    });
    assert.equal(text.rows[0].s, '2024-01-01 00:00:00.123456789');
  },
);

test('DateTime64 from PreciseDate, Date, text and ticks goes in exactly, or is refused', on26, async () => {
  const t = tableName();
  await c.execute(
    `CREATE TABLE ${t} (n DateTime64(9, 'UTC'), u DateTime64(6, 'Asia/Kolkata'), a Array(DateTime64(9, 'UTC'))) ENGINE = Memory`,
  );
  const P = ch.PreciseDate;
  const rows = [
    { n: new P(1704067200123456789n), u: new P('2024-01-01T00:00:00.000001Z'), a: [new P(-1n)] },
    { n: new Date(1704067200123), u: '2024-01-01 05:30:00.25', a: [] },
    { n: 1704067200123456790n, u: 1704067200.5, a: ['2024-01-01T00:00:00.000000001Z'] },
  ];
  assert.equal(await c.insert(t, rows), 3);
  // Column arrays of PreciseDates too (their nanoseconds packed beside the milliseconds).
  assert.equal(
    await c.insert(t, { n: [new P(5n), new Date(0)], u: [new P(1000n), new P(0n)], a: [[], []] }),
    2,
  );
  const text = await serverText(
    `SELECT toString(n), toString(u), arrayStringConcat(arrayMap(x -> toString(x), a), ',') FROM ${t} ORDER BY n FORMAT TSV`,
  );
  assert.deepEqual(text.trim().split('\n'), [
    '1970-01-01 00:00:00.000000000\t1970-01-01 05:30:00.000000\t',
    '1970-01-01 00:00:00.000000005\t1970-01-01 05:30:00.000001\t',
    '2024-01-01 00:00:00.123000000\t2024-01-01 05:30:00.250000\t',
    '2024-01-01 00:00:00.123456789\t2024-01-01 05:30:00.000001\t1969-12-31 23:59:59.999999999',
    '2024-01-01 00:00:00.123456790\t2024-01-01 05:30:00.500000\t2024-01-01 00:00:00.000000001',
  ]);
  // Read back as PreciseDates: the same instants.
  const back = (await c.query(`SELECT n FROM ${t} ORDER BY n`)).rows.map((r) => r.n.epochNanoseconds);
  assert.deepEqual(back, [0n, 5n, 1704067200123000000n, 1704067200123456789n, 1704067200123456790n]);
  // Digits the column cannot keep are refused, never rounded.
  for (const [bad, re] of [
    [
      { u: new P(1n) },
      /column `u` \(DateTime64\(6, 'Asia\/Kolkata'\)\), row 0: the time has digits below DateTime64\(6\)/,
    ],
    [{ u: '2024-01-01 00:00:00.0000001' }, /digits below DateTime64\(6\)/],
    [{ u: 0.0000001 }, /not exact in microseconds/],
  ])
    await assert.rejects(c.insert(t, [{ n: 0, u: 0, a: [], ...bad }]), (e) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(e.message, re);
      return true;
    });
  await c.execute(`DROP TABLE ${t}`);
});

// Text the server's own parser reads (toDateTime64(text, 9, zone)), including wall-clock times a
// zone skips or repeats: chwire stores the same instant.
const TEXTS = [
  '2024-01-01 00:00:00',
  '2024-01-01T12:34:56',
  '2024-06-30 23:59:59.123456789',
  '2024-01-01',
  '1704067200',
  '2024-03-10 02:30:00', // New York skips 02:00-03:00
  '2024-11-03 01:30:00', // New York repeats 01:00-02:00
  '2024-03-31 02:30:00', // Berlin skips
  '2024-10-27 02:30:00', // Berlin repeats
  '1950-06-01 12:00:00',
  '2105-12-31 23:59:59',
];
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kathmandu', 'Australia/Lord_Howe'];

test(
  'DateTime/DateTime64 text goes in as the server reads it, in the column zone (else the server zone)',
  on26,
  async () => {
    for (const zone of [...ZONES, null]) {
      const t = tableName();
      const z = zone ? `, '${zone}'` : '';
      await c.execute(
        `CREATE TABLE ${t} (i UInt32, s String, dt DateTime${zone ? `('${zone}')` : ''}, d9 DateTime64(9${z})) ENGINE = Memory`,
      );
      const rows = TEXTS.map((s, i) => ({
        i,
        s,
        dt: s.includes('.') || s.startsWith('1950') ? 0 : s,
        d9: s,
      }));
      await c.insert(t, rows);
      const got = await serverText(
        `SELECT i, toUnixTimestamp64Nano(d9) = toUnixTimestamp64Nano(toDateTime64(s, 9${z})),
              dt = 0 OR toUnixTimestamp(dt) = toUnixTimestamp(toDateTime(s${z})), s
       FROM ${t} ORDER BY i FORMAT TSV`,
      );
      for (const line of got.trim().split('\n')) {
        const [, same9, same] = line.split('\t');
        assert.equal(`${same9}${same}`, '11', `${zone}: ${line}`);
      }
      await c.execute(`DROP TABLE ${t}`);
    }
  },
);

test('date-time text with an offset or a zone is that instant; bad text is a RangeError', on26, async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (i UInt8, d DateTime64(3, 'Asia/Tokyo')) ENGINE = Memory`);
  await c.insert(t, [
    { i: 0, d: '2024-01-01T00:00:00Z' },
    { i: 1, d: '2024-01-01T05:30:00+05:30' },
    { i: 2, d: '2024-01-01T01:00:00[Europe/Berlin]' },
    { i: 3, d: '2024-01-01 09:00:00' },
  ]);
  const got = await serverText(`SELECT toUnixTimestamp64Milli(d) FROM ${t} ORDER BY i FORMAT TSV`);
  assert.deepEqual(got.trim().split('\n'), Array(4).fill('1704067200000'));
  for (const bad of [
    '2024-13-01 00:00:00',
    '2024-02-30',
    'noon',
    '2024-01-01 24:00:00',
    '99999999999999999999',
    '',
  ])
    await assert.rejects(c.insert(t, [{ i: 9, d: bad }]), (e) => {
      assert.ok(e instanceof RangeError, `${bad}: ${e}`);
      assert.match(e.message, /column `d` \(DateTime64\(3, 'Asia\/Tokyo'\)\), row 0: .*(not a date|beyond)/);
      return true;
    });
  await c.execute(`DROP TABLE ${t}`);
});

test('Date and Date32: text, midnight Dates and day numbers; jiff checks the calendar', async () => {
  const t = tableName();
  const d32 = SERVER.startsWith('18') ? 'Date' : 'Date32';
  await c.execute(`CREATE TABLE ${t} (i UInt8, d Date, e ${d32}) ENGINE = Memory`);
  await c.insert(t, [
    { i: 0, d: '2024-02-29', e: '2024-02-29' },
    { i: 1, d: new Date(Date.UTC(2024, 1, 29)), e: 19782 },
    { i: 2, d: 19782, e: 19782n },
  ]);
  const got = await serverText(`SELECT toString(d), toString(e) FROM ${t} ORDER BY i FORMAT TSV`);
  assert.deepEqual(got.trim().split('\n'), Array(3).fill('2024-02-29\t2024-02-29'));
  for (const [bad, re] of [
    [{ d: '2023-02-29' }, /"2023-02-29" is not a date/],
    [{ d: '2024-1-1' }, /is not a date/],
    [{ d: -1 }, /day -1 is outside Date's range/],
    [{ d: 1.5 }, /1.5 is not an integer/],
  ])
    await assert.rejects(c.insert(t, [{ i: 9, d: 0, e: 0, ...bad }]), (e) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(e.message, re);
      return true;
    });
  await c.execute(`DROP TABLE ${t}`);
});

test('Time text: minutes and seconds below 60, digits within the precision', on26, async () => {
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (i UInt8, a Time, b Time64(3)) ENGINE = Memory`);
  await c.insert(t, [{ i: 0, a: '-12:34:56', b: '100:00:00.5' }]);
  assert.equal(
    (await serverText(`SELECT toString(a), toString(b) FROM ${t} FORMAT TSV`)).trim(),
    '-12:34:56\t100:00:00.500',
  );
  for (const [bad, re] of [
    [{ a: '1:99:00' }, /"1:99:00" is not a time/],
    [{ a: '1:00:00.5' }, /fraction of a second for a Time column/],
    [{ b: '0:00:00.0001' }, /digits below Time64\(3\)/],
    [{ a: '1:00' }, /is not a time/],
  ])
    await assert.rejects(c.insert(t, [{ i: 9, a: 0, b: 0, ...bad }]), (e) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(e.message, re);
      return true;
    });
  await c.execute(`DROP TABLE ${t}`);
});

test("strings: 'buffer' reads String and FixedString bytes as Buffers, exactly; the default is strings", async () => {
  const sql = `SELECT 'a\\xffb' AS s, toFixedString('ab', 3) AS f, ['x', '\\xfe'] AS arr,
                      CAST(NULL AS Nullable(String)) AS n, toLowCardinality('lc') AS lc, 42 AS num`;
  const dflt = (await c.query(sql)).rows[0];
  assert.equal(dflt.s, 'a\uFFFDb');
  assert.equal(dflt.f, 'ab\0');
  const r = (await c.query(sql, { strings: 'buffer' })).rows[0];
  assert.deepEqual(r.s, Buffer.from([0x61, 0xff, 0x62]));
  assert.deepEqual(r.f, Buffer.from('ab\0'));
  assert.deepEqual(r.arr, [Buffer.from('x'), Buffer.from([0xfe])]);
  assert.equal(r.n, null);
  assert.deepEqual(r.lc, Buffer.from('lc'));
  assert.equal(r.num, 42);
  const cols = await c.queryColumns(sql, { strings: 'buffer' });
  assert.deepEqual(cols.columns.s[0], Buffer.from([0x61, 0xff, 0x62]));
  await assert.rejects(c.query(sql, { strings: 'bytes' }), TypeError);
  // The bytes go back as they were.
  const t = tableName();
  await c.execute(`CREATE TABLE ${t} (s String, f FixedString(3), arr Array(String)) ENGINE = Memory`);
  await c.insert(t, [{ s: r.s, f: r.f, arr: r.arr }]);
  assert.equal(
    (await serverText(`SELECT hex(s), hex(f), arrayMap(x -> hex(x), arr) FROM ${t} FORMAT TSV`)).trim(),
    "61FF62\t616200\t['78','FE']",
  );
  await c.execute(`DROP TABLE ${t}`);
});
