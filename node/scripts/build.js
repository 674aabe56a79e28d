#!/usr/bin/env node
// `npm install` of this package: the native addon (cargo, release, its progress shown) and the
// TypeScript layer (tsc). CHWIRE_NODE_SKIP_BUILD=1 skips both (a prebuilt checkout).
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');

const here = path.resolve(__dirname, '..');
if (process.env.CHWIRE_NODE_SKIP_BUILD === '1') process.exit(0);

function find(name) {
  // The tools are dependencies of this package; npm puts them in its own node_modules or hoists
  // them into the consumer's.
  for (let dir = here; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'node_modules', '.bin', name);
    if (fs.existsSync(p)) return p;
    if (path.dirname(dir) === dir) return null;
  }
}

function bin(name) {
  return find(name) ?? name;
}

function run(cmd, args) {
  // stderr goes straight to the terminal (npm shows an install script's output with
  // --foreground-scripts; make node-test and `npm run build` show it always).
  console.error(`chwire: ${path.basename(cmd)} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: here, stdio: 'inherit' });
  if (r.error) throw r.error;
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const napiArgs = [
  'build',
  '--release',
  '--platform',
  '--js',
  'native.js',
  '--dts',
  'native.d.ts',
  '--manifest-path',
  'Cargo.toml',
  '--output-dir',
  '.',
];
// A package installed from a folder (`npm install ./node`) is a link to it, and npm installs
// no dependencies of a linked package: neither the tools this build needs nor what the package
// requires at run time (apache-arrow). They are installed into the folder first.
if (!find('napi') || !find('tsc')) {
  const lock = fs.existsSync(path.join(here, 'package-lock.json'));
  run('npm', [lock ? 'ci' : 'install', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund']);
}
run(bin('napi'), napiArgs);
run(bin('tsc'), ['-p', 'tsconfig.json']);
