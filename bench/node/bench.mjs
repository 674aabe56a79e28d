// chwire for Node.js against @clickhouse/client (HTTP; its fastest formats for each case), in
// one interleaved run on the same server (bench/PEERS.md's workloads):
//
//   W2 read   10M rows x 4 columns (UInt64, String, Float64, DateTime), every value reached:
//             chwire rows (objects), typed arrays and Arrow batches; @clickhouse/client
//             JSONEachRow (objects), JSONCompactEachRow (arrays) and its raw ArrowStream read
//             by apache-arrow
//   W1 read   100M UInt64 into BigInt64Array / Arrow, against chwire's own Rust client (the
//             floor: `chwire bench W1`, when CHWIRE_BIN or target/release/chwire exists)
//   W5 insert 10M rows (id UInt64, name String, value Float64, ts DateTime) into a Null table
//             in blocks of 100,000, generated in the timed region: chwire from JS arrays and
//             from rows, and an Arrow table (built beforehand); @clickhouse/client
//             JSONEachRow and JSONCompactEachRow streams
//
// Usage: node bench/node/bench.mjs [--smoke] [--rounds N] [--rows-w2 N] [--rows-w1 N] [--rows-w5 N]
// Servers: CHWIRE_TEST_URL (native) and CHWIRE_TEST_HTTP_URL (scripts/with-server.sh exports
// both). Prints one line per run and the ratios (best run of each case).
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const require = createRequire(path.join(root, "node", "package.json"));
const ch = await import(path.join(root, "node", "dist", "index.mjs"));
const { createClient } = require("@clickhouse/client");
const arrow = await import(
  require.resolve("apache-arrow").replace(/\.js$/, ".mjs")
);

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const smoke = flag("--smoke");
const ROUNDS = opt("--rounds", smoke ? 1 : 2);
const W2_ROWS = opt("--rows-w2", smoke ? 100_000 : 10_000_000);
const W1_ROWS = opt("--rows-w1", smoke ? 1_000_000 : 100_000_000);
const W5_ROWS = opt("--rows-w5", smoke ? 100_000 : 10_000_000);
const BLOCK = 100_000;

const URL =
  process.env.CHWIRE_TEST_URL ?? "tcp://default@127.0.0.1:19000/default";
const HTTP = new globalThis.URL(
  process.env.CHWIRE_TEST_HTTP_URL ?? "http://default@127.0.0.1:18123/default",
);
const peer = createClient({
  url: `${HTTP.protocol}//${HTTP.host}`,
  username: decodeURIComponent(HTTP.username || "default"),
  password: decodeURIComponent(HTTP.password),
  database: HTTP.pathname.slice(1) || "default",
  compression: { request: false, response: false },
  request_timeout: 600_000,
  clickhouse_settings: {
    send_progress_in_http_headers: 1,
    http_headers_progress_interval_ms: "10000",
  },
});
// Arrow from the server uncompressed (apache-arrow has no LZ4 codec of its own).
const NO_ARROW_CODEC = { output_format_arrow_compression_method: "none" };
const c = await ch.connect(URL);

const w2sql = `SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT ${W2_ROWS}`;
const w1sql = `SELECT number FROM system.numbers LIMIT ${W1_ROWS}`;
// The check of W2: the sum of `number` and the byte length of `s` (every row's values reached).
let w2check = 0n;
for (let i = 0n; i < BigInt(W2_ROWS); i += 1n) w2check += i;
const sLen = (n) => {
  let len = 0;
  for (let d = 1, p = 10; ; d++, p *= 10) {
    const upto = Math.min(n, p);
    const from = p / 10 === 1 ? 0 : p / 10;
    if (upto > from) len += (upto - from) * d;
    if (p >= n) break;
  }
  return len;
};
w2check += BigInt(sLen(W2_ROWS));
const w1check = (BigInt(W1_ROWS) * BigInt(W1_ROWS - 1)) / 2n;

// The sum of a block of UInt64 values read as 32-bit halves (numbers, exact per block): every
// value is reached without a BigInt per value, the same for every client's typed arrays.
function sum64(a) {
  const w = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < w.length; i += 2) {
    lo += w[i];
    hi += w[i + 1];
  }
  return BigInt(lo) + (BigInt(hi) << 32n);
}

function check(name, got, want) {
  if (got !== want) throw new Error(`${name}: check ${got} != ${want}`);
}

const cases = {
  // ---- W2
  "W2 chwire rows (objects)": async () => {
    let sum = 0n;
    let len = 0;
    let touch = 0;
    for await (const rows of c.queryStream(w2sql).blocks())
      for (const r of rows) {
        sum += r.number;
        len += r.s.length;
        touch += r.f + r.t.getTime();
      }
    check("rows", sum + BigInt(len), w2check);
    return touch;
  },
  "W2 chwire typed arrays": async () => {
    let sum = 0n;
    let len = 0;
    let touch = 0;
    for await (const b of c.queryColumnsStream(w2sql)) {
      sum += sum64(b.number);
      for (const x of b.s) len += x.length;
      const f = b.f;
      for (let i = 0; i < f.length; i++) touch += f[i];
      touch += b.t.length;
    }
    check("columns", sum + BigInt(len), w2check);
    return touch;
  },
  "W2 chwire Arrow": async () => {
    let sum = 0n;
    let len = 0;
    let touch = 0;
    for await (const b of await c.queryArrowStream(w2sql)) {
      for (const d of b.getChild("number").data) sum += sum64(d.values);
      for (const d of b.getChild("s").data) len += d.values.length;
      const f = b.getChild("f").toArray();
      for (let i = 0; i < f.length; i++) touch += f[i];
      touch += b.getChild("t").length;
    }
    check("arrow", sum + BigInt(len), w2check);
    return touch;
  },
  "W2 @clickhouse/client JSONEachRow (objects)": async () => {
    const rs = await peer.query({
      query: w2sql,
      format: "JSONEachRow",
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    let sum = 0;
    let len = 0;
    let touch = 0;
    for await (const rows of rs.stream())
      for (const row of rows) {
        const r = row.json();
        sum += r.number;
        len += r.s.length;
        touch += r.f + new Date(r.t.replace(" ", "T") + "Z").getTime();
      }
    check("JSONEachRow", BigInt(sum) + BigInt(len), w2check);
    return touch;
  },
  "W2 @clickhouse/client JSONCompactEachRow (arrays)": async () => {
    const rs = await peer.query({
      query: w2sql,
      format: "JSONCompactEachRow",
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    let sum = 0;
    let len = 0;
    let touch = 0;
    for await (const rows of rs.stream())
      for (const row of rows) {
        const r = row.json();
        sum += r[0];
        len += r[1].length;
        touch += r[2] + new Date(r[3].replace(" ", "T") + "Z").getTime();
      }
    check("JSONCompactEachRow", BigInt(sum) + BigInt(len), w2check);
    return touch;
  },
  "W2 @clickhouse/client ArrowStream": async () => {
    const rs = await peer.exec({
      query: `${w2sql} FORMAT ArrowStream`,
      clickhouse_settings: NO_ARROW_CODEC,
    });
    let sum = 0n;
    let len = 0;
    let touch = 0;
    const reader = await arrow.RecordBatchReader.from(rs.stream);
    for await (const b of reader) {
      for (const d of b.getChild("number").data) sum += sum64(d.values);
      for (const d of b.getChild("s").data) len += d.values.length;
      const f = b.getChild("f").toArray();
      for (let i = 0; i < f.length; i++) touch += f[i];
      touch += b.getChild("t").length;
    }
    check("ArrowStream", sum + BigInt(len), w2check);
    return touch;
  },
  // ---- W1
  "W1 chwire BigUint64Array": async () => {
    let sum = 0n;
    for await (const b of c.queryColumnsStream(w1sql)) sum += sum64(b.number);
    check("W1 columns", sum, w1check);
  },
  "W1 chwire Arrow": async () => {
    let sum = 0n;
    for await (const b of await c.queryArrowStream(w1sql))
      for (const d of b.getChild("number").data) sum += sum64(d.values);
    check("W1 arrow", sum, w1check);
  },
  "W1 @clickhouse/client ArrowStream": async () => {
    const rs = await peer.exec({
      query: `${w1sql} FORMAT ArrowStream`,
      clickhouse_settings: NO_ARROW_CODEC,
    });
    let sum = 0n;
    for await (const b of await arrow.RecordBatchReader.from(rs.stream))
      for (const d of b.getChild("number").data) sum += sum64(d.values);
    check("W1 peer arrow", sum, w1check);
  },
  // ---- W5
  "W5 chwire JS arrays": async () => {
    async function* blocks() {
      for (let at = 0; at < W5_ROWS; at += BLOCK) {
        const n = Math.min(BLOCK, W5_ROWS - at);
        const id = new Array(n);
        const name = new Array(n);
        const value = new Array(n);
        const ts = new Array(n);
        for (let j = 0; j < n; j++) {
          const i = at + j;
          id[j] = i;
          name[j] = "name-" + i;
          value[j] = i * 0.5;
          ts[j] = 1600000000 + (i % 86400);
        }
        yield { id, name, value, ts };
      }
    }
    check(
      "W5 arrays",
      await c.insert("chwire_bench_w5", blocks(), { blockRows: BLOCK }),
      W5_ROWS,
    );
  },
  "W5 chwire rows (objects)": async () => {
    async function* blocks() {
      for (let at = 0; at < W5_ROWS; at += BLOCK) {
        const n = Math.min(BLOCK, W5_ROWS - at);
        const rows = new Array(n);
        for (let j = 0; j < n; j++) {
          const i = at + j;
          rows[j] = {
            id: i,
            name: "name-" + i,
            value: i * 0.5,
            ts: 1600000000 + (i % 86400),
          };
        }
        yield rows;
      }
    }
    check(
      "W5 rows",
      await c.insert("chwire_bench_w5", blocks(), { blockRows: BLOCK }),
      W5_ROWS,
    );
  },
  "W5 chwire Arrow table": async () => {
    check("W5 arrow", await c.insert("chwire_bench_w5", w5table), W5_ROWS);
  },
  "W5 @clickhouse/client JSONEachRow": async () => {
    const values = Readable.from(
      (function* () {
        for (let i = 0; i < W5_ROWS; i++)
          yield {
            id: i,
            name: "name-" + i,
            value: i * 0.5,
            ts: 1600000000 + (i % 86400),
          };
      })(),
      { objectMode: true },
    );
    await peer.insert({
      table: "chwire_bench_w5",
      values,
      format: "JSONEachRow",
    });
  },
  "W5 @clickhouse/client JSONCompactEachRow": async () => {
    const values = Readable.from(
      (function* () {
        for (let i = 0; i < W5_ROWS; i++)
          yield [i, "name-" + i, i * 0.5, 1600000000 + (i % 86400)];
      })(),
      { objectMode: true },
    );
    await peer.insert({
      table: "chwire_bench_w5",
      values,
      format: "JSONCompactEachRow",
    });
  },
};

await c.execute(
  "CREATE TABLE IF NOT EXISTS chwire_bench_w5 (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null",
);
// The Arrow table W5 inserts (built outside the timed region: it is the input).
const w5table = (() => {
  const id = new BigUint64Array(W5_ROWS);
  const value = new Float64Array(W5_ROWS);
  const ts = new Uint32Array(W5_ROWS);
  const name = new Array(W5_ROWS);
  for (let i = 0; i < W5_ROWS; i++) {
    id[i] = BigInt(i);
    value[i] = i * 0.5;
    ts[i] = 1600000000 + (i % 86400);
    name[i] = "name-" + i;
  }
  // Utf8 as it is (tableFromArrays would make a dictionary of 10M distinct strings).
  return new arrow.Table({
    id: arrow.makeVector(id),
    name: arrow.vectorFromArray(name, new arrow.Utf8()),
    value: arrow.makeVector(value),
    ts: arrow.makeVector(ts),
  });
})();

const best = {};
for (let round = 0; round < ROUNDS; round++) {
  // Interleaved: every case once per round, the order rotated.
  const names = Object.keys(cases);
  const order = names
    .slice(round % names.length)
    .concat(names.slice(0, round % names.length));
  for (const name of order) {
    global.gc?.();
    const t0 = process.hrtime.bigint();
    await cases[name]();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    best[name] = Math.min(best[name] ?? Infinity, s);
    console.log(`RUN round=${round + 1} ${name}: ${s.toFixed(3)} s`);
  }
}

// The floor of W1: chwire's Rust client.
let floor;
const bin =
  process.env.CHWIRE_BIN ?? path.join(root, "target", "release", "chwire");
if (!smoke && W1_ROWS === 100_000_000 && existsSync(bin)) {
  for (let round = 0; round < ROUNDS; round++) {
    const r = spawnSync(bin, ["--url", URL, "bench", "W1"], {
      encoding: "utf8",
    });
    const m = r.stdout.match(/wall_s=([\d.]+)/);
    if (m) floor = Math.min(floor ?? Infinity, Number(m[1]));
  }
}

await c.close();
await peer.close();

const ratio = (a, b) => (best[b] / best[a]).toFixed(1);
console.log("\nbest of each (s):");
for (const [k, v] of Object.entries(best))
  console.log(`  ${k.padEnd(48)} ${v.toFixed(3)}`);
console.log(
  `\nratios (@clickhouse/client time / chwire time; W2 ${W2_ROWS} rows, W1 ${W1_ROWS}, W5 ${W5_ROWS}):`,
);
console.log(
  `  W2 rows:    chwire objects vs JSONEachRow           ${ratio("W2 chwire rows (objects)", "W2 @clickhouse/client JSONEachRow (objects)")}x`,
);
console.log(
  `  W2 rows:    chwire objects vs JSONCompactEachRow    ${ratio("W2 chwire rows (objects)", "W2 @clickhouse/client JSONCompactEachRow (arrays)")}x`,
);
console.log(
  `  W2 columns: chwire typed arrays vs JSONCompactEachRow ${ratio("W2 chwire typed arrays", "W2 @clickhouse/client JSONCompactEachRow (arrays)")}x`,
);
console.log(
  `  W2 columns: chwire typed arrays vs its ArrowStream    ${ratio("W2 chwire typed arrays", "W2 @clickhouse/client ArrowStream")}x`,
);
console.log(
  `  W2 Arrow:   chwire Arrow vs its ArrowStream          ${ratio("W2 chwire Arrow", "W2 @clickhouse/client ArrowStream")}x`,
);
console.log(
  `  W1 Arrow:   chwire Arrow vs its ArrowStream          ${ratio("W1 chwire Arrow", "W1 @clickhouse/client ArrowStream")}x`,
);
console.log(
  `  W5 insert:  chwire JS arrays vs JSONEachRow         ${ratio("W5 chwire JS arrays", "W5 @clickhouse/client JSONEachRow")}x`,
);
console.log(
  `  W5 insert:  chwire rows vs JSONEachRow              ${ratio("W5 chwire rows (objects)", "W5 @clickhouse/client JSONEachRow")}x`,
);
console.log(
  `  W5 insert:  chwire Arrow table vs JSONCompactEachRow ${ratio("W5 chwire Arrow table", "W5 @clickhouse/client JSONCompactEachRow")}x`,
);
if (floor !== undefined) {
  console.log(
    `  W1 floor:   chwire Rust client ${floor.toFixed(3)} s; BigUint64Array ${(best["W1 chwire BigUint64Array"] / floor).toFixed(2)}x of it, Arrow ${(best["W1 chwire Arrow"] / floor).toFixed(2)}x`,
  );
} else if (!smoke) {
  console.log(
    "  W1 floor:   no chwire binary (CHWIRE_BIN or target/release/chwire) for the Rust floor",
  );
}
