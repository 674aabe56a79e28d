// Every query form, parameters of every kind, settings, query ids, the mapping options.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { ch, URL26, NEW_TYPES } from './helpers.mjs';
import * as arrow from 'apache-arrow';

let c;
before(async () => {
  c = await ch.connect(URL26);
});
after(async () => {
  await c?.close();
});

const SQL =
  "SELECT number AS n, toString(number) AS s, toFloat64(number) / 2 AS f, toDateTime(number, 'Asia/Tokyo') AS t FROM numbers(5)";

test('query: rows as objects and as arrays, with the columns described', async () => {
  const r = await c.query(SQL);
  assert.equal(r.rows.length, 5);
  assert.deepEqual(r.rows[3], { n: 3n, s: '3', f: 1.5, t: new Date(3000) });
  assert.deepEqual(
    r.columns.map((x) => x.type),
    ['UInt64', 'String', 'Float64', "DateTime('Asia/Tokyo')"],
  );
  assert.equal(r.columns[3].timeZone, 'Asia/Tokyo');
  assert.match(r.queryId, /^[0-9a-f-]{36}$/);
  const a = await c.query(SQL, { rowMode: 'array' });
  assert.deepEqual(a.rows[4], [4n, '4', 2, new Date(4000)]);
});

test('query: int64 as number, exactness checked; decimals as text or number', async () => {
  const r = await c.query('SELECT toUInt64(9007199254740992) AS a, toInt64(-5) AS b', { int64: 'number' });
  assert.deepEqual(r.rows[0], { a: 9007199254740992, b: -5 });
  await assert.rejects(c.query('SELECT toUInt64(9007199254740993) AS a', { int64: 'number' }), (e) => {
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /column `a`, row 0/);
    return true;
  });
  const d = await c.query("SELECT toDecimal64('12.345', 3) AS d, toDecimal256('-1.5', 40) AS e");
  assert.deepEqual(d.rows[0], { d: '12.345', e: '-1.5' });
  const dn = await c.query("SELECT toDecimal64('12.345', 3) AS d", { decimal: 'number' });
  assert.equal(dn.rows[0].d, 12.345);
});

test('query: an empty result and a statement without one', async () => {
  const r = await c.query('SELECT number FROM numbers(0)');
  assert.deepEqual(r.rows, []);
  assert.deepEqual(r.columns, [{ name: 'number', type: 'UInt64' }]);
  const cols = await c.queryColumns('SELECT number FROM numbers(0)');
  assert.equal(cols.rows, 0);
  const e = await c.execute('SELECT 1');
  assert.ok(e.progress);
});

test('queryColumns: typed arrays over many blocks, strings as arrays', async () => {
  const r = await c.queryColumns(
    'SELECT number AS n, toInt32(toInt64(number) - 5) AS i, toFloat32(number) AS f, toString(number) AS s, (number % 2 = 0)::Bool AS b, toNullable(number) AS z FROM numbers(100000)',
    { settings: { max_block_size: 7000 } },
  );
  assert.equal(r.rows, 100000);
  assert.ok(r.columns.n instanceof BigUint64Array);
  assert.ok(r.columns.i instanceof Int32Array);
  assert.ok(r.columns.f instanceof Float32Array);
  assert.equal(r.columns.n.length, 100000);
  assert.equal(r.columns.n[99999], 99999n);
  assert.equal(r.columns.i[0], -5);
  assert.equal(r.columns.s[12345], '12345');
  assert.equal(r.columns.b[2], true);
  assert.equal(r.columns.z[7], 7n);
  let sum = 0n;
  for (const x of r.columns.n) sum += x;
  assert.equal(sum, 4999950000n);
});

test('queryColumnsStream: one set of typed arrays per block', async () => {
  let rows = 0;
  let blocks = 0;
  for await (const b of c.queryColumnsStream('SELECT number FROM numbers(50000)', {
    settings: { max_block_size: 10000 },
  })) {
    assert.ok(b.number instanceof BigUint64Array);
    rows += b.number.length;
    blocks++;
  }
  assert.equal(rows, 50000);
  assert.ok(blocks >= 5);
});

test('queryArrow: an apache-arrow Table, in both mappings', async () => {
  const t = await c.queryArrow(SQL);
  assert.ok(t instanceof arrow.Table);
  assert.equal(t.numRows, 5);
  assert.equal(t.getChild('n').get(4), 4n);
  assert.equal(t.getChild('s').get(2), '2');
  assert.equal(String(t.schema.fields[3].type), 'Timestamp<SECOND, Asia/Tokyo>');
  assert.equal(t.schema.fields[0].metadata.get('clickhouse.type'), 'UInt64');
  const ch26 = await c.queryArrow(SQL, { arrowMapping: 'clickhouse' });
  assert.equal(String(ch26.schema.fields[3].type), 'Uint32');
  // The connect option is the client's default (as Python's and ADBC's), a query's own wins.
  const cc = await ch.connect(URL26, { arrowMapping: 'clickhouse' });
  try {
    assert.equal(String((await cc.queryArrow(SQL)).schema.fields[3].type), 'Uint32');
    const rich = await cc.queryArrow(SQL, { arrowMapping: 'rich' });
    assert.equal(String(rich.schema.fields[3].type), 'Timestamp<SECOND, Asia/Tokyo>');
  } finally {
    await cc.close();
  }
  await assert.rejects(ch.connect(URL26, { arrowMapping: 'fancy' }), TypeError);
});

test("queryArrowStream / queryArrow: record batches over chwire's own buffers (no copy, no IPC)", async () => {
  const s = await c.queryArrowStream('SELECT number, toString(number) AS s FROM numbers(100000)', {
    settings: { max_block_size: 10000 },
  });
  assert.equal(s.schema.fields.length, 2);
  let rows = 0;
  let sum = 0n;
  for await (const b of s) {
    assert.ok(b instanceof arrow.RecordBatch);
    for (const v of b.getChild('number')) sum += v;
    assert.equal(b.getChild('s').get(b.numRows - 1), String(rows + b.numRows - 1));
    rows += b.numRows;
  }
  assert.equal(rows, 100000);
  assert.equal(sum, 4999950000n);
  const t = await (await c.queryArrowStream('SELECT 1 AS x')).readAll();
  assert.equal(t.numRows, 1);
  // 10M UInt64 (80 MB) kept as a Table: the values stay in the memory chwire decoded them
  // into (external to V8), so V8's own ArrayBuffer allocations do not grow by them, as they
  // would with any copy on the JS side.
  global.gc?.();
  const before = process.memoryUsage().arrayBuffers;
  const big = await c.queryArrow('SELECT number FROM numbers(10000000)');
  const grew = process.memoryUsage().arrayBuffers - before;
  assert.equal(big.numRows, 10_000_000);
  assert.equal(big.getChild('number').get(9_999_999), 9_999_999n);
  assert.ok(grew < 8 << 20, `V8-allocated ArrayBuffers grew by ${(grew / 1048576).toFixed(1)} MiB`);
});

test('queryStream: async iteration, blocks, Readable interop', async () => {
  let sum = 0n;
  for await (const row of c.queryStream('SELECT number FROM numbers(20000)')) sum += row.number;
  assert.equal(sum, 199990000n);
  const readable = c.queryStream('SELECT number FROM numbers(10)', { rowMode: 'array' }).toReadable();
  assert.ok(readable instanceof Readable);
  const got = [];
  for await (const r of readable) got.push(r[0]);
  assert.equal(got.length, 10);
  const arrowReadable = (await c.queryArrowStream('SELECT number FROM numbers(10)')).toReadable();
  let n = 0;
  for await (const b of arrowReadable) n += b.numRows;
  assert.equal(n, 10);
});

test('params: every kind, by the placeholder type', async () => {
  const r = await c.query(
    'SELECT {a:UInt8} AS a, {b:Int64} AS b, {c:Float64} AS c, {d:String} AS d, {e:Bool} AS e, {f:Nullable(String)} AS f, ' +
      "{g:Array(UInt32)} AS g, {h:Tuple(UInt8, String)} AS h, {i:Map(String, UInt64)} AS i, {j:DateTime('UTC')} AS j, " +
      '{k:Date} AS k, {l:Decimal(18, 4)} AS l, {m:UUID} AS m, {n:IPv4} AS n, {o:UInt256} AS o, {p:Array(Array(String))} AS p, ' +
      "{q:Map(String, Array(Tuple(UInt8, String)))} AS q, {r:DateTime64(3, 'UTC')} AS r",
    {
      params: {
        a: 200,
        b: -9007199254740993n,
        c: 1.5,
        d: "it's \\ 'quoted'\n",
        e: true,
        f: null,
        g: [1, 2, 3],
        h: [7, 'x'],
        i: new Map([['k', 5n]]),
        j: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
        k: '2024-02-29',
        l: '-12.3456',
        m: '61f0c404-5cb3-11e7-907b-a6006ad3dba0',
        n: '1.2.3.4',
        o: 2n ** 200n,
        p: [['a', "b'"], []],
        q: { x: [[1, 'y']] },
        r: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)),
      },
    },
  );
  const row = r.rows[0];
  assert.equal(row.a, 200);
  assert.equal(row.b, -9007199254740993n);
  assert.equal(row.c, 1.5);
  assert.equal(row.d, "it's \\ 'quoted'\n");
  assert.equal(row.e, true);
  assert.equal(row.f, null);
  assert.deepEqual(row.g, [1, 2, 3]);
  assert.deepEqual(row.h, [7, 'x']);
  assert.deepEqual(row.i, new Map([['k', 5n]]));
  assert.deepEqual(row.j, new Date(Date.UTC(2024, 0, 2, 3, 4, 5)));
  assert.deepEqual(row.k, new Date(Date.UTC(2024, 1, 29)));
  assert.equal(row.l, '-12.3456');
  assert.equal(row.m, '61f0c404-5cb3-11e7-907b-a6006ad3dba0');
  assert.equal(row.n, '1.2.3.4');
  assert.equal(row.o, 2n ** 200n);
  assert.deepEqual(row.p, [['a', "b'"], []]);
  assert.deepEqual(row.q, new Map([['x', [[1, 'y']]]]));
  assert.deepEqual(row.r, new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)));
});

test('params: wrong values are TypeError/RangeError naming the parameter', async () => {
  await assert.rejects(
    c.query('SELECT {x:UInt8}', { params: { x: 1.5 } }),
    (e) => e instanceof TypeError && /"x"/.test(e.message),
  );
  await assert.rejects(
    c.query('SELECT {x:UInt8}', { params: { x: 300 } }),
    (e) => e instanceof RangeError && /"x"/.test(e.message),
  );
  await assert.rejects(c.query('SELECT {x:String}', { params: { x: Symbol('s') } }), TypeError);
  // The value is data, never SQL.
  const r = await c.query('SELECT {x:String} AS x', { params: { x: "'); DROP TABLE x; --" } });
  assert.equal(r.rows[0].x, "'); DROP TABLE x; --");
});

test('settings and queryId are sent', async () => {
  const r = await c.query("SELECT getSetting('max_threads') AS m, queryID() AS q", {
    settings: { max_threads: 3 },
    queryId: 'node-test-query-id-1',
  });
  assert.equal(r.rows[0].q, 'node-test-query-id-1');
  assert.equal(r.queryId, 'node-test-query-id-1');
  assert.equal(String(r.rows[0].m), '3');
  const s = await c.query("SELECT getSetting('max_block_size') AS m", {
    settings: { max_block_size: '1234' },
  });
  assert.equal(String(s.rows[0].m), '1234');
});

test('connect: the URL and option keys of every binding; a bad option is refused', async () => {
  const u = new URL(URL26.replace(/^tcp:/, 'http:'));
  const d = await ch.connect(null, {
    host: u.hostname,
    port: Number(u.port),
    compression: 'lz4',
    max_threads: 2,
    settings: { max_block_size: 100 },
  });
  const r = await d.query("SELECT getSetting('max_threads') AS m, getSetting('max_block_size') AS b");
  assert.equal(String(r.rows[0].m), '2');
  assert.equal(String(r.rows[0].b), '100');
  await d.close();
  await assert.rejects(
    ch.connect(URL26 + '?compression=nope'),
    (e) => e instanceof ch.ChwireError && e.kind === 'config',
  );
  await assert.rejects(
    ch.connect('tcp://default@127.0.0.1:1/default?connect_timeout=1s'),
    (e) => e.kind === 'connection',
  );
});

test('HTTP transport: the same API over http://', async () => {
  const url = process.env.CHWIRE_TEST_HTTP_URL;
  if (!url) return;
  const h = await ch.connect(url);
  const r = await h.query('SELECT number FROM numbers(3)');
  assert.deepEqual(
    r.rows.map((x) => x.number),
    [0n, 1n, 2n],
  );
  await h.close();
});

test('newer types read (Variant, Dynamic, JSON, Time, BFloat16)', async () => {
  const r = await c.query(
    'SELECT 5::Variant(UInt8, String) AS v, \'x\'::Dynamic AS d, \'{"a":{"b":1},"c":[1,2]}\'::JSON AS j, ' +
      "toTime('01:02:03') AS t, toBFloat16(1.5) AS bf, map(1, 'a') AS m",
    { settings: NEW_TYPES },
  );
  assert.deepEqual(r.rows[0], {
    v: 5,
    d: 'x',
    j: { a: { b: 1 }, c: [1, 2] },
    t: '01:02:03',
    bf: 1.5,
    m: new Map([[1, 'a']]),
  });
});

test('serverInfo: the revision and the session settings of the Hello; client_revision pins one', async () => {
  const info = c.serverInfo;
  assert.equal(info.revision, 54492);
  assert.equal(info.settings.implicit_select, '0');
  const sep = URL26.includes('?') ? '&' : '?';
  const old = await ch.connect(`${URL26}${sep}client_revision=54465`);
  const r = await old.query(
    "SELECT toUInt64(client_revision) AS r FROM system.processes WHERE query LIKE '%chwire-node-revision%'",
  );
  assert.deepEqual(r.rows, [{ r: 54465n }]);
  await old.close();
});
