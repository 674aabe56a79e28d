// Shared by the suite: the rig's servers (scripts/with-server.sh exports their URLs), a
// connection per test file, unique table names, the server's own answers over HTTP, and a TCP
// proxy whose connections a test can cut.
import net from 'node:net';
import * as chwire from '../dist/index.mjs';

export const ch = chwire;

export const URL26 = process.env.CHWIRE_TEST_URL ?? 'tcp://default@127.0.0.1:19000/default';
export const HTTP26 = process.env.CHWIRE_TEST_HTTP_URL ?? 'http://default@127.0.0.1:18123/default';
export const URL18 = process.env.CHWIRE_TEST_URL_18;
export const SERVER = process.env.CHWIRE_TEST_SERVER ?? '';

/** Settings the newer types need on 26.9. */
export const NEW_TYPES = {
  allow_experimental_variant_type: 1,
  allow_experimental_dynamic_type: 1,
  allow_experimental_json_type: 1,
  enable_time_time64_type: 1,
  allow_experimental_qbit_type: 1,
  allow_suspicious_low_cardinality_types: 1,
  allow_experimental_object_type: 1,
};

let n = 0;
export function tableName(prefix = 'node_t') {
  return `${prefix}_${process.pid}_${Date.now() % 1e6}_${n++}`;
}

/** The server's own answer (HTTP) as text: the truth to compare with. */
export async function serverText(sql, settings = {}) {
  const u = new URL(HTTP26.replace(/\/[^/]*$/, '/'));
  const db = HTTP26.match(/\/([^/]*)$/)?.[1] || 'default';
  u.searchParams.set('database', db);
  for (const [k, v] of Object.entries(settings)) u.searchParams.set(k, String(v));
  const auth = u.username
    ? 'Basic ' +
      Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')
    : undefined;
  u.username = '';
  u.password = '';
  const r = await fetch(u, { method: 'POST', body: sql, headers: auth ? { authorization: auth } : {} });
  const text = await r.text();
  if (!r.ok) throw new Error(`server: ${text}`);
  return text;
}

/** Rows of `system.processes` running `marker` (a comment in the SQL), other than this one. */
export async function running(marker) {
  const t = await serverText(
    `SELECT count() FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%' FORMAT TSV`,
  );
  return Number(t.trim());
}

export async function eventually(f, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await f()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A TCP proxy to the server of `url`: `{url, cut()}` (cut destroys every open connection). */
export async function proxy(url) {
  const m = url.match(/^(\w+):\/\/([^@]*@)?([^:/]+):(\d+)(\/.*)?$/);
  const [, scheme, user = '', host, port, path = '/default'] = m;
  const socks = new Set();
  const server = net.createServer((c) => {
    const up = net.connect(Number(port), host);
    socks.add(c);
    socks.add(up);
    c.pipe(up).pipe(c);
    const end = () => {
      c.destroy();
      up.destroy();
      socks.delete(c);
      socks.delete(up);
    };
    c.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const p = server.address().port;
  return {
    url: `${scheme}://${user}127.0.0.1:${p}${path}`,
    cut() {
      for (const s of socks) s.destroy();
      socks.clear();
    },
    close() {
      this.cut();
      server.close();
    },
  };
}
