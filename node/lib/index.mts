// The ESM entry: the same API as the CommonJS one (index.ts), with apache-arrow's ESM copy
// handed to it, so that `instanceof Table` holds for the tables an ESM program makes and gets.
import * as arrow from 'apache-arrow';
import cjs from './index.js';

cjs.useArrow(arrow);

export const {
  connect,
  createPool,
  Client,
  Pool,
  Queryable,
  RowStream,
  ColumnStream,
  ArrowStream,
  ChwireError,
  ClickHouseError,
  PreciseDate,
  version,
} = cjs;
export type * from './index.js';
