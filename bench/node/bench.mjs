// chwire for Node.js against @clickhouse/client (HTTP; its fastest formats for each case), in
// one interleaved run on the same server (bench/PEERS.md's workloads), with the floors that
// bound each target measured in the same run:
//
//   W2 read   10M rows x 4 columns (UInt64, String, Float64, DateTime), every value reached:
//             chwire rows (objects), typed arrays and Arrow batches; @clickhouse/client
//             JSONEachRow (objects), JSONCompactEachRow (arrays) and its raw ArrowStream read
//             by apache-arrow. Floors: chwire's Rust client (`chwire bench W2`); the server
//             writing ArrowStream over HTTP to a reader that discards it (what the peer's Arrow
//             case waits for before reading a byte); apache-arrow reading those same bytes
//             from memory (the peer's Arrow case without the network); making W2's 10M strings
//             and 10M Dates from one text with no IO (what "into columns" must create).
//   W1 read   100M UInt64 into BigUint64Array / Arrow (peak RSS over the stream's start
//             printed), against chwire's Rust client (`chwire bench W1`, the target's floor)
//             and the JS floor: 800 MB of fresh BigUint64Arrays in this process, summed, with
//             no IO or decoding (what V8 charges for receiving them).
//   W5 insert 10M rows (id UInt64, name String, value Float64, ts DateTime) into a Null table
//             in blocks of 100,000, generated in the timed region: chwire from JS arrays and
//             from rows, and an Arrow table (built beforehand); @clickhouse/client
//             JSONEachRow and JSONCompactEachRow streams
//
// Usage: node bench/node/bench.mjs [--smoke] [--only W1] [--rounds N] [--rows-w2 N] [--rows-w1 N] [--rows-w5 N]
// Servers: CHWIRE_TEST_URL (native) and CHWIRE_TEST_HTTP_URL (scripts/with-server.sh exports
// both). The Rust floors need the `chwire` binary (CHWIRE_BIN, else target/release/chwire or
// napi's target/<triple>/release/chwire); without it they are skipped. Prints one line per run
// and the ratios (best run of each case).
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import http from "node:http";
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
// --only W1 (a prefix): run those cases alone.
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : "";
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

// The `chwire` binary for the Rust floors.
const bin = [
  process.env.CHWIRE_BIN,
  path.join(root, "target", "release", "chwire"),
  path.join(
    root,
    "target",
    `${process.arch === "arm64" ? "aarch64" : "x86_64"}-unknown-linux-gnu`,
    "release",
    "chwire",
  ),
].find((p) => p && existsSync(p));
// `chwire bench W1|W2` reads a fixed 100M / 10M rows: its wall (the query alone, without the
// process start) is the floor when this run reads as many.
const rustRows = { W1: 100_000_000, W2: 10_000_000 };
function rustFloor(w) {
  if (!bin || (w === "W1" ? W1_ROWS : W2_ROWS) !== rustRows[w])
    return { skip: true };
  const r = spawnSync(bin, ["--url", URL, "bench", w], { encoding: "utf8" });
  const m = r.stdout.match(/wall_s=([\d.]+)/);
  if (!m) throw new Error(`chwire bench ${w}: ${r.stderr || r.stdout}`);
  return { seconds: Number(m[1]) };
}

// Peak RSS over a stream's start (sampled every 16 blocks).
const rssPeak = {};
function rssProbe() {
  const start = process.memoryUsage.rss();
  let peak = 0;
  let n = 0;
  return {
    tick() {
      if (++n % 16 === 0)
        peak = Math.max(peak, process.memoryUsage.rss() - start);
    },
    done(name) {
      rssPeak[name] = Math.max(rssPeak[name] ?? 0, peak / 1048576);
    },
  };
}

const AUTH = HTTP.username
  ? {
      authorization:
        "Basic " +
        Buffer.from(
          `${decodeURIComponent(HTTP.username)}:${decodeURIComponent(HTTP.password)}`,
        ).toString("base64"),
    }
  : {};
function arrowUrl(sql) {
  const u = new globalThis.URL(`${HTTP.protocol}//${HTTP.host}/`);
  u.searchParams.set("database", HTTP.pathname.slice(1) || "default");
  u.searchParams.set("output_format_arrow_compression_method", "none");
  u.searchParams.set("query", `${sql} FORMAT ArrowStream`);
  return u;
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
  // ---- W2 floors
  "W2 floor: chwire Rust client": () => rustFloor("W2"),
  "W2 floor: server ArrowStream over HTTP, discarded": async () => {
    // node:http as the peer uses it, every byte read and dropped.
    const bytes = await new Promise((resolve, reject) => {
      const req = http.request(
        arrowUrl(w2sql),
        { method: "POST", headers: AUTH, agent: false },
        (res) => {
          let n = 0;
          res.on("data", (chunk) => (n += chunk.length));
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(n)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    if (bytes === 0) throw new Error("ArrowStream: no bytes");
  },
  "W2 floor: apache-arrow reading ArrowStream bytes from memory": async () => {
    let sum = 0n;
    let len = 0;
    let touch = 0;
    for (const b of arrow.RecordBatchReader.from(w2ipc)) {
      for (const d of b.getChild("number").data) sum += sum64(d.values);
      for (const d of b.getChild("s").data) len += d.values.length;
      const f = b.getChild("f").toArray();
      for (let i = 0; i < f.length; i++) touch += f[i];
      touch += b.getChild("t").length;
    }
    check("ArrowStream from memory", sum + BigInt(len), w2check);
    return touch;
  },
  "W2 floor: 10M strings and 10M Dates from one text, no IO": async () => {
    let len = 0;
    let touch = 0;
    for (const { text, offsets } of w2texts) {
      const n = offsets.length - 1;
      const strings = new Array(n);
      for (let i = 0; i < n; i++)
        strings[i] = text.substring(offsets[i], offsets[i + 1]);
      const dates = new Array(n);
      for (let i = 0; i < n; i++) dates[i] = new Date(i * 1000);
      for (const x of strings) len += x.length;
      touch += dates.length;
    }
    check("strings", BigInt(len), BigInt(sLen(W2_ROWS)));
    return touch;
  },
  // ---- W1
  "W1 chwire BigUint64Array": async () => {
    const rss = rssProbe();
    let sum = 0n;
    for await (const b of c.queryColumnsStream(w1sql)) {
      sum += sum64(b.number);
      rss.tick();
    }
    check("W1 columns", sum, w1check);
    rss.done("W1 chwire BigUint64Array");
  },
  "W1 chwire Arrow": async () => {
    const rss = rssProbe();
    let sum = 0n;
    for await (const b of await c.queryArrowStream(w1sql)) {
      for (const d of b.getChild("number").data) sum += sum64(d.values);
      rss.tick();
    }
    check("W1 arrow", sum, w1check);
    rss.done("W1 chwire Arrow");
  },
  "W1 chwire BigUint64Array (recycle)": async () => {
    const rss = rssProbe();
    let sum = 0n;
    for await (const b of c.queryColumnsStream(w1sql, { recycle: true })) {
      sum += sum64(b.number);
      rss.tick();
    }
    check("W1 columns recycled", sum, w1check);
    rss.done("W1 chwire BigUint64Array (recycle)");
  },
  "W1 chwire Arrow (recycle)": async () => {
    const rss = rssProbe();
    let sum = 0n;
    for await (const b of await c.queryArrowStream(w1sql, { recycle: true })) {
      for (const d of b.getChild("number").data) sum += sum64(d.values);
      rss.tick();
    }
    check("W1 arrow recycled", sum, w1check);
    rss.done("W1 chwire Arrow (recycle)");
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
  "W1 floor: chwire Rust client": () => rustFloor("W1"),
  "W1 floor: 800 MB of fresh BigUint64Arrays, no IO": async () => {
    // The blocks the server sends (65409 rows each), as an async stream hands them over.
    async function* blocks() {
      for (let at = 0; at < W1_ROWS; at += 65409) {
        const a = new BigUint64Array(Math.min(65409, W1_ROWS - at));
        a[0] = BigInt(at);
        yield a;
        if ((at / 65409) % 8 === 0) await new Promise(setImmediate);
      }
    }
    let sum = 0n;
    for await (const a of blocks()) sum += sum64(a);
    if (sum === 0n && W1_ROWS > 1) throw new Error("W1 floor: no values");
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

// The W2 floors' inputs, made outside the timed region: the server's ArrowStream bytes, and
// W2's strings as one text plus offsets per block (as chwire hands strings to JS).
const w2ipc = await (async () => {
  const r = await fetch(arrowUrl(w2sql), { method: "POST", headers: AUTH });
  return new Uint8Array(await r.arrayBuffer());
})();
const w2texts = [];
for (let at = 0; at < W2_ROWS; at += 65409) {
  const n = Math.min(65409, W2_ROWS - at);
  const parts = new Array(n);
  const offsets = new Uint32Array(n + 1);
  let o = 0;
  for (let i = 0; i < n; i++) {
    parts[i] = String(at + i);
    o += parts[i].length;
    offsets[i + 1] = o;
  }
  w2texts.push({ text: parts.join(""), offsets });
}

const best = {};
const skipped = new Set();
for (let round = 0; round < ROUNDS; round++) {
  // Interleaved: every case once per round, the order rotated.
  const names = Object.keys(cases);
  const order = names
    .slice(round % names.length)
    .concat(names.slice(0, round % names.length));
  for (const name of order) {
    if (skipped.has(name) || !name.startsWith(only)) continue;
    global.gc?.();
    const t0 = process.hrtime.bigint();
    const out = await cases[name]();
    let s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (out?.skip) {
      skipped.add(name);
      continue;
    }
    if (out?.seconds !== undefined) s = out.seconds;
    best[name] = Math.min(best[name] ?? Infinity, s);
    console.log(`RUN round=${round + 1} ${name}: ${s.toFixed(3)} s`);
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
const f = (name) => best[name];
const x = (a, b) => (f(a) && f(b) ? `${(f(a) / f(b)).toFixed(2)}x` : "n/a");
console.log("\nfloors (same run):");
console.log(
  `  W1: chwire BigUint64Array ${x("W1 chwire BigUint64Array", "W1 floor: chwire Rust client")} and Arrow ${x("W1 chwire Arrow", "W1 floor: chwire Rust client")} of the Rust client's time (target <= 1.5x)`,
);
console.log(
  `  W1 with recycle: BigUint64Array ${x("W1 chwire BigUint64Array (recycle)", "W1 floor: chwire Rust client")} and Arrow ${x("W1 chwire Arrow (recycle)", "W1 floor: chwire Rust client")} of the Rust client's time`,
);
console.log(
  `  W1: the JS floor (fresh typed arrays, no IO) is ${x("W1 floor: 800 MB of fresh BigUint64Arrays, no IO", "W1 floor: chwire Rust client")} of the Rust client's time`,
);
console.log(
  `  W1 peak RSS over the stream's start (MiB, target <= 64): ${Object.entries(
    rssPeak,
  )
    .map(([k, v]) => `${k.replace("W1 chwire ", "")} ${v.toFixed(0)}`)
    .join(", ")}`,
);
console.log(
  `  W2: the peer's ArrowStream ${x("W2 @clickhouse/client ArrowStream", "W2 floor: server ArrowStream over HTTP, discarded")} of the server writing it alone; chwire's Rust client is ${x("W2 @clickhouse/client ArrowStream", "W2 floor: chwire Rust client")} faster than the peer's ArrowStream (the most any client could gain: target 10x)`,
);
console.log(
  `  W2: apache-arrow reading the bytes from memory ${f("W2 floor: apache-arrow reading ArrowStream bytes from memory")?.toFixed(3)} s; 10M strings + Dates with no IO ${f("W2 floor: 10M strings and 10M Dates from one text, no IO")?.toFixed(3)} s (chwire typed arrays ${x("W2 chwire typed arrays", "W2 floor: 10M strings and 10M Dates from one text, no IO")} of it)`,
);
