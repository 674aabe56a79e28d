// Arrow results from the addon's batch descriptors (src/arrow_out.rs) into apache-arrow objects.
//
// The addon hands over each record batch's buffers as they are (external ArrayBuffers over the
// memory chwire built the batch in) and the schema once, as an IPC schema message. Here
// `makeData` wraps those buffers, typed by the schema's fields: no column data is copied and no
// IPC is written or read for the data.

import * as arrowCjs from 'apache-arrow';
import type * as arrow from 'apache-arrow';

/** An array's buffers, as the addon describes them. */
export interface ArrayDesc {
  /** Length, null count. */
  n: number;
  nc: number;
  /** Validity bitmap, values (or a dictionary's keys), offsets, union type ids. */
  z?: ArrayBuffer;
  d?: ArrayBuffer;
  o?: ArrayBuffer;
  t?: ArrayBuffer;
  /** Children (lists, maps, structs, unions) and a dictionary's values. */
  c?: ArrayDesc[];
  x?: ArrayDesc;
}

type ArrowModule = typeof import('apache-arrow');

/** The apache-arrow module whose classes results are made of. apache-arrow is a dual package:
 * `import` and `require` load two copies whose classes differ; the ESM entry (index.mts) hands
 * its copy over, so that the Tables an ESM program makes and gets are of the classes it imports. */
export const arrowLib: { A: ArrowModule } = { A: arrowCjs };

/** The schema of an IPC stream that holds only its schema message. */
export function schemaOf(A: ArrowModule, ipc: Uint8Array): arrow.Schema {
  return A.tableFromIPC(ipc).schema;
}

function data(A: ArrowModule, type: arrow.DataType, d: ArrayDesc): arrow.Data {
  const kids = d.c?.map((c, i) => data(A, type.children[i].type, c));
  // makeData takes from these what the type has.
  const props = {
    type,
    offset: 0,
    length: d.n,
    nullCount: d.nc,
    nullBitmap: d.z && new Uint8Array(d.z),
    data: d.d,
    valueOffsets: d.o,
    typeIds: d.t,
    child: kids?.[0],
    children: kids ?? [],
    dictionary: d.x && A.makeVector(data(A, (type as arrow.Dictionary).dictionary, d.x)),
  };
  return A.makeData(props as unknown as Parameters<typeof A.makeData>[0]);
}

/** One record batch of `schema` from the addon's column descriptors. */
export function batchOf(
  A: ArrowModule,
  schema: arrow.Schema,
  rows: number,
  columns: ArrayDesc[],
): arrow.RecordBatch {
  const children = schema.fields.map((f, i) => data(A, f.type, columns[i]));
  const struct = A.makeData({ type: new A.Struct(schema.fields), length: rows, nullCount: 0, children });
  return new A.RecordBatch(schema, struct);
}

/** The ArrayBuffers of a batch's descriptors (to give back when the batch is done with). */
export function arrowBuffers(descs: ArrayDesc[], out: ArrayBuffer[] = []): ArrayBuffer[] {
  for (const d of descs) {
    for (const b of [d.z, d.d, d.o, d.t]) if (b) out.push(b);
    if (d.c) arrowBuffers(d.c, out);
    if (d.x) arrowBuffers([d.x], out);
  }
  return out;
}
