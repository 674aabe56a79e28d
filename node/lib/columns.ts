// Result columns from the addon's descriptors (src/out.rs) into JavaScript values.
//
// The addon decides what each ClickHouse type becomes and hands over buffers: typed arrays over
// the block's own memory (numbers, bigints), text plus UTF-16 offsets (strings), milliseconds
// (dates), and nested descriptors. Here they are only materialised: rows are built by a function
// generated once per result shape, reading the typed arrays directly (one object per row, no
// other value per number).

import { PreciseDate } from './dates';

export type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

export type Desc =
  | { k: 'n' | 'b'; v: TypedArray }
  | { k: 'bool'; v: Uint8Array }
  | { k: 'ms'; v: Float64Array }
  | { k: 'pd'; v: Float64Array; n: Uint32Array }
  | { k: 'bin'; v: Uint8Array; o: Uint32Array }
  | { k: 's'; t: string[]; o: Uint32Array[] }
  | { k: 'null'; z: Uint8Array; c: Desc }
  | { k: 'dict'; d: Desc; i: Uint32Array; nullable: boolean }
  | { k: 'arr'; o: Uint32Array; c: Desc }
  | { k: 'map'; o: Uint32Array; key: Desc; val: Desc }
  | { k: 'tup'; names?: string[]; items: Desc[]; n: number }
  | { k: 'v'; v: unknown[] }
  | { k: 'nulls'; n: number }
  | { k: 'parts'; p: Desc[] };

/** Each row's value of a column (typed arrays stay typed arrays). */
export function values(d: Desc): ArrayLike<unknown> {
  switch (d.k) {
    case 'n':
    case 'b':
      return d.v;
    case 'bool': {
      const v = d.v;
      const out = new Array<boolean>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = v[i] !== 0;
      return out;
    }
    case 'ms': {
      const v = d.v;
      const out = new Array<Date>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = new Date(v[i]);
      return out;
    }
    case 'pd': {
      const v = d.v;
      const n = d.n;
      const out = new Array<Date>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = new PreciseDate(v[i], n[i]);
      return out;
    }
    case 'bin': {
      const v = d.v;
      const o = d.o;
      const out = new Array<Buffer>(o.length - 1);
      for (let i = 0; i < out.length; i++) out[i] = Buffer.copyBytesFrom(v, o[i], o[i + 1] - o[i]);
      return out;
    }
    case 's':
      return strings(d.t, d.o);
    case 'null': {
      const inner = values(d.c);
      const z = d.z;
      const out = new Array<unknown>(z.length);
      for (let i = 0; i < z.length; i++) out[i] = z[i] ? null : inner[i];
      return out;
    }
    case 'dict': {
      const dict = values(d.d);
      const keys = d.i;
      const out = new Array<unknown>(keys.length);
      if (d.nullable) for (let i = 0; i < keys.length; i++) out[i] = keys[i] === 0 ? null : dict[keys[i]];
      else for (let i = 0; i < keys.length; i++) out[i] = dict[keys[i]];
      return out;
    }
    case 'arr': {
      const inner = values(d.c);
      const o = d.o;
      const n = o.length - 1;
      const out = new Array<unknown[]>(n);
      for (let i = 0; i < n; i++) {
        const a = o[i];
        const b = o[i + 1];
        const row = new Array<unknown>(b - a);
        for (let j = a; j < b; j++) row[j - a] = inner[j];
        out[i] = row;
      }
      return out;
    }
    case 'map': {
      const keys = values(d.key);
      const vals = values(d.val);
      const o = d.o;
      const n = o.length - 1;
      const out = new Array<Map<unknown, unknown>>(n);
      for (let i = 0; i < n; i++) {
        const m = new Map<unknown, unknown>();
        for (let j = o[i]; j < o[i + 1]; j++) m.set(keys[j], vals[j]);
        out[i] = m;
      }
      return out;
    }
    case 'tup': {
      const items = d.items.map(values);
      const out = new Array<unknown>(d.n);
      if (d.names) {
        const names = d.names;
        for (let i = 0; i < d.n; i++) {
          const o: Record<string, unknown> = {};
          for (let j = 0; j < names.length; j++) define(o, names[j], items[j][i]);
          out[i] = o;
        }
      } else {
        for (let i = 0; i < d.n; i++) {
          const a = new Array<unknown>(items.length);
          for (let j = 0; j < items.length; j++) a[j] = items[j][i];
          out[i] = a;
        }
      }
      return out;
    }
    case 'v':
      return d.v;
    case 'nulls':
      return new Array<null>(d.n).fill(null);
    case 'parts': {
      const parts = d.p.map(values);
      const out: unknown[] = [];
      for (const p of parts) for (let i = 0; i < p.length; i++) out.push(p[i]);
      return out;
    }
  }
}

function define(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function strings(texts: string[], offs: Uint32Array[]): string[] {
  let n = 0;
  for (const o of offs) n += o.length - 1;
  const out = new Array<string>(n);
  let at = 0;
  for (let p = 0; p < texts.length; p++) {
    const t = texts[p];
    const o = offs[p];
    const m = o.length - 1;
    for (let i = 0; i < m; i++) out[at++] = t.substring(o[i], o[i + 1]);
  }
  return out;
}

/** A whole column for `queryColumns`: typed arrays as they are (parts joined), else an array. */
export function column(d: Desc): TypedArray | unknown[] {
  if (d.k === 'n' || d.k === 'b') return d.v;
  if (
    d.k === 'parts' &&
    d.p.length > 0 &&
    d.p.every((p) => p.k === d.p[0].k && (p.k === 'n' || p.k === 'b'))
  ) {
    const arrays = d.p.map((p) => (p as { v: TypedArray }).v);
    const Ctor = arrays[0].constructor as new (n: number) => TypedArray;
    const out = new Ctor(arrays.reduce((a, x) => a + x.length, 0));
    let at = 0;
    for (const a of arrays) {
      (out as unknown as { set(a: ArrayLike<unknown>, at: number): void }).set(a, at);
      at += a.length;
    }
    return out;
  }
  const v = values(d);
  return Array.isArray(v) ? v : Array.from(v);
}

export type RowBuilder = (descs: Desc[], from: number, to: number) => unknown[];

/**
 * A function building rows `from`..`to` (objects keyed by `names`, or arrays) from one block's
 * columns, generated for the block's shape: typed columns are read in place, strings cut from
 * their text (`substring`), `null`/`Date`/boolean wrappers inline, other columns materialised
 * first (once per block, cached on the descriptor).
 */
export function rowBuilder(names: string[], shape: Desc[], asArrays: boolean): RowBuilder {
  const pre: string[] = [];
  const fields: string[] = [];
  shape.forEach((d, j) => {
    let expr: string;
    const inner = d.k === 'null' ? d.c : d;
    const wrap = (e: string) => (d.k === 'null' ? `(z${j}[i] ? null : ${e})` : e);
    const src = d.k === 'null' ? `d[${j}].c` : `d[${j}]`;
    if (d.k === 'null') pre.push(`const z${j} = d[${j}].z;`);
    switch (inner.k) {
      case 'n':
      case 'b':
        pre.push(`const c${j} = ${src}.v;`);
        expr = wrap(`c${j}[i]`);
        break;
      case 'bool':
        pre.push(`const c${j} = ${src}.v;`);
        expr = wrap(`c${j}[i] !== 0`);
        break;
      case 'ms':
        pre.push(`const c${j} = ${src}.v;`);
        expr = wrap(`new Date(c${j}[i])`);
        break;
      case 'pd':
        pre.push(`const c${j} = ${src}.v, n${j} = ${src}.n;`);
        expr = wrap(`new PreciseDate(c${j}[i], n${j}[i])`);
        break;
      case 'bin':
        pre.push(`const c${j} = ${src}.v, o${j} = ${src}.o;`);
        expr = wrap(`Buffer.copyBytesFrom(c${j}, o${j}[i], o${j}[i + 1] - o${j}[i])`);
        break;
      case 's':
        if (inner.t.length === 1) {
          pre.push(`const t${j} = ${src}.t[0], o${j} = ${src}.o[0];`);
          expr = wrap(`t${j}.substring(o${j}[i], o${j}[i + 1])`);
          break;
        }
      // falls through: several text parts
      default:
        pre.push(`const c${j} = ${src}.m ??= values(${src});`);
        expr = wrap(`c${j}[i]`);
    }
    if (asArrays) fields.push(expr);
    else if (names[j] === '__proto__') fields.push(`["__proto__"]: ${expr}`);
    else fields.push(`${JSON.stringify(names[j])}: ${expr}`);
  });
  const row = asArrays ? `[${fields.join(', ')}]` : `{${fields.join(', ')}}`;
  const body = `${pre.join('\n')}
const rows = new Array(to - from);
for (let i = from; i < to; i++) rows[i - from] = ${row};
return rows;`;
  const make = new Function(
    'values',
    'PreciseDate',
    'Buffer',
    `return function rows(d, from, to) {\n${body}\n};`,
  ) as (v: typeof values, p: typeof PreciseDate, b: typeof Buffer) => RowBuilder;
  return make(values, PreciseDate, Buffer);
}

/** The ArrayBuffers of a block's descriptors (to give back once its rows are built). */
export function buffersOf(descs: Desc[], out: ArrayBuffer[] = []): ArrayBuffer[] {
  for (const d of descs) {
    switch (d.k) {
      case 'n':
      case 'b':
      case 'bool':
      case 'ms':
        out.push(d.v.buffer as ArrayBuffer);
        break;
      case 'pd':
        out.push(d.v.buffer as ArrayBuffer, d.n.buffer as ArrayBuffer);
        break;
      case 'bin':
        out.push(d.v.buffer as ArrayBuffer, d.o.buffer as ArrayBuffer);
        break;
      case 's':
        for (const o of d.o) out.push(o.buffer as ArrayBuffer);
        break;
      case 'null':
        out.push(d.z.buffer as ArrayBuffer);
        buffersOf([d.c], out);
        break;
      case 'dict':
        out.push(d.i.buffer as ArrayBuffer);
        buffersOf([d.d], out);
        break;
      case 'arr':
        out.push(d.o.buffer as ArrayBuffer);
        buffersOf([d.c], out);
        break;
      case 'map':
        out.push(d.o.buffer as ArrayBuffer);
        buffersOf([d.key, d.val], out);
        break;
      case 'tup':
        buffersOf(d.items, out);
        break;
      case 'parts':
        buffersOf(d.p, out);
        break;
    }
  }
  return out;
}
