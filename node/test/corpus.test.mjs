// Every type of the 26.9 conformance corpus (tests/oracle/cases.py), both directions, against the
// server itself: each case is read as rows, as columns and as an Arrow table (the row counts the
// server's own JSONEachRow has), then the rows are inserted back — and the Arrow table too — into
// a table of the result's types, whose JSONEachRow must be the server's text of the original
// query, byte for byte.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ch, URL26, NEW_TYPES, SERVER, tableName, serverText } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = path.resolve(here, '../../tests/oracle');
const CASES = JSON.parse(
  execFileSync('python3', ['-c', 'import cases, json, sys; json.dump(cases.CASES, sys.stdout)'], {
    cwd: oracle,
    env: { ...process.env, PYTHONPATH: oracle },
    maxBuffer: 1 << 26,
  }).toString(),
);

const SETTINGS = {
  ...NEW_TYPES,
  allow_suspicious_variant_types: 1,
  allow_experimental_geo_types: 1,
  allow_suspicious_types_in_order_by: 1,
};

// Where a round trip cannot give the same text, and why (the reads are still checked).
// DateTime64 beyond milliseconds reads as PreciseDate, which goes back exactly.
const ROWS_DIFFER = [
  // Dynamic values carry no type in JS: a value goes back as the type of its JS value (an
  // integer as Int64, a Date as DateTime64(3), ...), so the types inside differ.
  [
    /^dynamic|^json|^variant\/(many|nested|lowcardinality|with_)/,
    'Dynamic/JSON values have no JS type of their own',
  ],
  // uniq/uniqExact states are hash sets: the same set, serialized again, in another order.
  [/^aggregate\/uniq/, 'hash set states reorder'],
];
// Rows of these types do not go back (Arrow does): a Geometry value is a bare array whose
// shape does not say which of the Variant's geo types it is.
const ROWS_UNSUPPORTED = [[/^geometry\//, 'Geometry from rows']];
// Bytes that are not UTF-8 read as U+FFFD in JS strings (as TextDecoder reads them): these cases
// go back from rows read with `strings: 'buffer'` (Buffers of the bytes), exactly.
const NOT_UTF8 = /invalid_utf8|binary_16/;
// Cases whose result no table can hold (its CREATE fails on the server): read only.
const reasonOf = (name, list) => list.find(([re]) => re.test(name))?.[1];

let c;
before(async () => {
  c = await ch.connect(URL26, { settings: SETTINGS });
});
after(async () => {
  await c?.close();
});

function jsonLines(text) {
  return text.split('\n').filter((l) => l !== '');
}

// A Memory table gives its blocks back in any order: the rows are compared as a multiset.
function sorted(text) {
  return jsonLines(text).sort();
}

async function back(t) {
  return sorted(await serverText(`SELECT * FROM ${t} FORMAT JSONEachRow`, SETTINGS));
}

test(
  `corpus: ${CASES.length} cases read as rows, columns and Arrow; rows and Arrow inserted back`,
  { skip: SERVER.startsWith('18') && 'needs 26.9' },
  async () => {
    const failures = [];
    const stats = { read: 0, rows: 0, arrow: 0, unstorable: 0, differ: 0, buffers: 0 };
    for (const [name, sql] of CASES) {
      const fail = (what, e) => failures.push(`${name}: ${what}: ${e?.stack ?? e}`.slice(0, 600));
      let want;
      try {
        want = await serverText(`${sql} FORMAT JSONEachRow`, SETTINGS);
      } catch (e) {
        fail('the server', e);
        continue;
      }
      const n = jsonLines(want).length;
      let rows;
      try {
        const r = await c.query(sql);
        rows = r.rows;
        assert.equal(rows.length, n, 'query rows');
        const cols = await c.queryColumns(sql);
        assert.equal(cols.rows, n, 'queryColumns rows');
        for (const m of cols.meta) assert.equal(cols.columns[m.name].length, n, `queryColumns ${m.name}`);
        try {
          const cnt = (await c.queryColumns(sql, { int64: 'number', decimal: 'number' })).rows;
          assert.equal(cnt, n, 'queryColumns (numbers) rows');
        } catch (e) {
          // 64-bit integers beyond 2^53 are refused as numbers, never rounded.
          if (!(e instanceof RangeError && /beyond 2\^53/.test(e.message))) throw e;
        }
        stats.read++;
      } catch (e) {
        fail('read', e);
        continue;
      }
      let table;
      let notUtf8 = false;
      try {
        table = await c.queryArrow(sql);
        assert.equal(table.numRows, n, 'queryArrow rows');
      } catch (e) {
        // Arrow's Utf8 must be valid UTF-8: such strings are refused, with the setting that makes
        // them Binary named.
        if (!/not valid UTF-8.*output_format_arrow_string_as_string/.test(e.message)) {
          fail('queryArrow', e);
          continue;
        }
        notUtf8 = true;
        table = await c.queryArrow(sql, { settings: { output_format_arrow_string_as_string: 0 } });
      }
      const t = tableName('node_corpus');
      try {
        await c.execute(`CREATE TABLE ${t} ENGINE = Memory AS SELECT * FROM (${sql}) LIMIT 0`);
      } catch {
        stats.unstorable++;
        continue;
      }
      try {
        if (n > 0) {
          const differ = reasonOf(name, ROWS_DIFFER);
          const columns = (await c.query(`SELECT * FROM ${t}`)).columns.map((x) => x.name);
          if (differ) stats.differ++;
          if (!reasonOf(name, ROWS_UNSUPPORTED)) {
            const bytes = notUtf8 || NOT_UTF8.test(name);
            if (bytes) stats.buffers++;
            await c.insert(t, bytes ? (await c.query(sql, { strings: 'buffer' })).rows : rows, { columns });
            if (!differ) {
              assert.deepEqual(await back(t), sorted(want), 'rows inserted back');
              stats.rows++;
            }
          }
          await c.execute(`TRUNCATE TABLE ${t}`);
          await c.insert(t, table);
          // Dynamic and JSON values go as JSON text in Arrow (their types inferred again); hash
          // set states reorder.
          if (!/^dynamic|^json|^aggregate\/uniq/.test(name))
            assert.deepEqual(await back(t), sorted(want), 'Arrow inserted back');
          stats.arrow++;
        }
      } catch (e) {
        fail('insert back', e);
      } finally {
        await c.execute(`DROP TABLE IF EXISTS ${t}`);
      }
    }
    console.log(`corpus: ${JSON.stringify(stats)}`);
    assert.deepEqual(failures, []);
  },
);
