// A server in a zone other than UTC (Asia/Kolkata, +05:30), started for this file by
// scripts/server.sh: a Date bound to a DateTime without a zone is that instant, through a client
// and through a pool (whose parameters are bound before a connection, and the server's zone,
// are known: the core binds them again on the connection they run on); a zone-less column
// reads as its instant.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ch, SERVER } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const skip = SERVER.startsWith('18') && 'needs 26.9 (the rig of scripts/server.sh)';
const tcp = Number(process.env.CHWIRE_TEST_TCP_PORT ?? 19000) + 8;
const http = Number(process.env.CHWIRE_TEST_HTTP_PORT ?? 18123) + 8;
const env = {
  ...process.env,
  CHWIRE_CH_DIR: (process.env.CHWIRE_CH_DIR ?? path.join(root, 'build', 'ch26')) + '-kolkata-node',
  CHWIRE_CH_TCP_PORT: String(tcp),
  CHWIRE_CH_HTTP_PORT: String(http),
  CHWIRE_CH_TZ: 'Asia/Kolkata',
  CHWIRE_CH_NAME: 'server.sh (Asia/Kolkata, node)',
};
const script = path.join(root, 'scripts', 'server.sh');
const url = `tcp://default@127.0.0.1:${tcp}/default`;
let started = false;

before(async () => {
  if (skip) return;
  try {
    execFileSync(script, ['status'], { env, stdio: 'ignore' });
  } catch {
    execFileSync(script, ['start'], { env, stdio: 'ignore', timeout: 170_000 });
    started = true;
  }
});
after(() => {
  if (started) execFileSync(script, ['stop'], { env, stdio: 'ignore' });
});

const noon = new Date(Date.UTC(2024, 0, 1, 12, 0, 0)); // 17:30 in Kolkata
const sql = `SELECT timezone() AS tz, toUnixTimestamp({t:DateTime}) AS t,
  toUnixTimestamp64Milli({m:DateTime64(3)}) AS m, arrayMap(x -> toUnixTimestamp(x), {a:Array(DateTime)}) AS a,
  toUnixTimestamp({z:DateTime('UTC')}) AS z, toDateTime('2024-01-02 03:04:05') AS dt`;
const params = { t: noon, m: new Date(noon.getTime() + 250), a: [new Date(0), noon], z: noon };

function check(row, how) {
  assert.equal(row.tz, 'Asia/Kolkata', how);
  assert.equal(row.t, 1704110400, how);
  assert.equal(row.m, 1704110400250n, how);
  assert.deepEqual(row.a, [0, 1704110400], how);
  assert.equal(row.z, 1704110400, how);
  assert.equal(row.dt.toISOString(), '2024-01-01T21:34:05.000Z', how);
}

test(
  'a Date for a DateTime without a zone is its instant, by a client and by a pool',
  { skip, timeout: 200_000 },
  async () => {
    const c = await ch.connect(url);
    try {
      check((await c.query(sql, { params })).rows[0], 'client');
    } finally {
      await c.close();
    }
    const pool = ch.createPool(url, {}, { max_size: 2 });
    try {
      // Several at once: some run on connections opened for them.
      const results = await Promise.all([1, 2, 3].map(() => pool.query(sql, { params })));
      for (const r of results) check(r.rows[0], 'pool');
      // A session_timezone of the query's own: zone-less DateTime text is read in it.
      const tokyo = await pool.query(`SELECT timezone() AS tz, toUnixTimestamp({t:DateTime}) AS t`, {
        params: { t: noon },
        settings: { session_timezone: 'Asia/Tokyo' },
      });
      assert.deepEqual(tokyo.rows[0], { tz: 'Asia/Tokyo', t: 1704110400 });
    } finally {
      await pool.close();
    }
  },
);
