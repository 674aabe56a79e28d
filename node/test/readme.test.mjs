// The README's JavaScript block runs as written against the test server (its URL replaces the
// rig's default one), as python/tests/test_readme.py and elixir/test/readme_test.exs run theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ch, URL26 } from './helpers.mjs';

const RIG_URL = 'tcp://default@127.0.0.1:19000/default';
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```js\n(.*?)```/gs)].map((m) => m[1]);
const dist = pathToFileURL(new URL('../dist/index.mjs', import.meta.url).pathname).href;

test("the README's JavaScript block runs as written", async () => {
  assert.ok(blocks.length > 0, 'README.md lost its JavaScript example');
  const admin = await ch.connect(URL26);
  const dir = mkdtempSync(join(tmpdir(), 'chwire-readme-'));
  try {
    await admin.execute('DROP TABLE IF EXISTS people');
    for (const [i, code] of blocks.entries()) {
      assert.ok(code.includes(RIG_URL), 'a README block connects somewhere else than the rig');
      assert.ok(code.includes("from 'chwire'"), 'a README block imports something else');
      const file = join(dir, `block${i}.mjs`);
      const source = code.replace(RIG_URL, URL26).replace("from 'chwire'", `from '${dist}'`);
      writeFileSync(file, `${source}\nexport { rows, columns, table };\n`);
      const { rows, columns, table } = await import(pathToFileURL(file).href);
      assert.deepEqual(rows[2], { number: 2n, s: '2' });
      assert.equal(columns.number.length, 1_000_000);
      assert.ok(table.numRows > 0);
    }
    const { rows } = await admin.query('SELECT count() AS n FROM people');
    assert.equal(rows[0].n, 1n);
  } finally {
    await admin.execute('DROP TABLE IF EXISTS people');
    await admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
