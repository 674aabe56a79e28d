// Insert data → the packed columns the addon converts (src/input.rs decides what fits).
//
// Packing is lossless and type-blind: a column whose values are all numbers goes as a
// Float64Array, all strings as one joined string plus UTF-16 lengths, all `Date`s as
// milliseconds, all 64-bit bigints as a BigInt64Array, all booleans as bytes (each with a null
// map when some values are null or undefined); a typed array as it is; anything else as the
// JS array, read value by value by the addon. Whether a value fits its column — a string into
// UInt8, 300 into UInt8, 1.5 into Int64 — is decided there, by the column's type.

import type { TypedArray } from './columns';
import { PreciseDate } from './dates';

export type Packed =
  | { k: 'f64'; v: Float64Array; z?: Uint8Array }
  | { k: 'date'; v: Float64Array; ns?: Uint32Array; z?: Uint8Array }
  | { k: 'i64'; v: BigInt64Array; z?: Uint8Array }
  | { k: 'bool'; v: Uint8Array; z?: Uint8Array }
  | { k: 'str'; v: string; l: Uint32Array; z?: Uint8Array }
  | { k: 'ta'; v: TypedArray }
  | { k: 'raw'; v: unknown[] };

export function isTypedArray(v: unknown): v is TypedArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !Buffer.isBuffer(v);
}

/** One column's values (`from` to `to`) packed. */
export function pack(col: ArrayLike<unknown>, from: number, to: number): Packed {
  if (isTypedArray(col)) {
    return { k: 'ta', v: from === 0 && to === col.length ? col : (col.subarray(from, to) as TypedArray) };
  }
  const n = to - from;
  let num = true;
  let str = true;
  let big = true;
  let date = true;
  let bool = true;
  let nulls = false;
  for (let i = from; i < to; i++) {
    const v = col[i];
    if (v === null || v === undefined) {
      nulls = true;
      continue;
    }
    const t = typeof v;
    if (t !== 'number') num = false;
    if (t !== 'string') str = false;
    if (t !== 'bigint' || BigInt.asIntN(64, v as bigint) !== v) big = false;
    if (t !== 'boolean') bool = false;
    if (!(v instanceof Date)) date = false;
    if (!num && !str && !big && !date && !bool) break;
  }
  let z: Uint8Array | undefined;
  if (nulls) {
    z = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const v = col[from + i];
      if (v === null || v === undefined) z[i] = 1;
    }
  }
  const slice = () =>
    from === 0 && to === col.length && Array.isArray(col) ? col : Array.prototype.slice.call(col, from, to);
  if (num) {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = (col[from + i] as number) ?? 0;
    return z ? { k: 'f64', v, z } : { k: 'f64', v };
  }
  if (str) {
    const l = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const v = col[from + i] as string | null | undefined;
      l[i] = v == null ? 0 : v.length;
    }
    const v = (slice() as string[]).join('');
    return z ? { k: 'str', v, l, z } : { k: 'str', v, l };
  }
  if (big) {
    const v = new BigInt64Array(n);
    for (let i = 0; i < n; i++) v[i] = (col[from + i] as bigint) ?? 0n;
    return z ? { k: 'i64', v, z } : { k: 'i64', v };
  }
  if (date) {
    const v = new Float64Array(n);
    // PreciseDates' nanoseconds past the millisecond, when some have any.
    let ns: Uint32Array | undefined;
    for (let i = 0; i < n; i++) {
      const d = col[from + i] as Date | null | undefined;
      v[i] = d == null ? 0 : d.getTime();
      const sub = d == null ? 0 : PreciseDate.subMillisecond(d);
      if (sub !== 0) (ns ??= new Uint32Array(n))[i] = sub;
    }
    const out: Packed = { k: 'date', v };
    if (ns) out.ns = ns;
    if (z) out.z = z;
    return out;
  }
  if (bool) {
    const v = new Uint8Array(n);
    for (let i = 0; i < n; i++) v[i] = col[from + i] ? 1 : 0;
    return z ? { k: 'bool', v, z } : { k: 'bool', v };
  }
  return { k: 'raw', v: slice() as unknown[] };
}

/** Rows (objects or arrays) `from`..`to` as one array per column of `names`. */
export function transpose(rows: unknown[], names: string[], from: number, to: number): unknown[][] {
  const n = to - from;
  const cols = names.map(() => new Array<unknown>(n));
  const first = rows[from];
  if (Array.isArray(first)) {
    for (let i = 0; i < n; i++) {
      const r = rows[from + i];
      if (!Array.isArray(r)) throw new TypeError(`row ${from + i} is not an array (the first row is)`);
      if (r.length !== names.length)
        throw new TypeError(`row ${from + i} has ${r.length} values for ${names.length} columns`);
      for (let j = 0; j < cols.length; j++) cols[j][i] = r[j];
    }
  } else {
    for (let i = 0; i < n; i++) {
      const r = rows[from + i] as Record<string, unknown>;
      if (r === null || typeof r !== 'object' || Array.isArray(r))
        throw new TypeError(`row ${from + i} is not an object (the first row is)`);
      for (let j = 0; j < cols.length; j++) cols[j][i] = r[names[j]];
    }
  }
  return cols;
}
