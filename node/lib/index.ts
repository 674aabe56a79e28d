// chwire for Node.js: ClickHouse's native protocol over chwire's Rust core, results as rows,
// typed arrays or Apache Arrow without a JS value per number. docs/NODE.md has the API and the
// type mapping.

export {
  connect,
  createPool,
  Client,
  Pool,
  Queryable,
  RowStream,
  ColumnStream,
  ArrowStream,
  useArrow,
} from './client';
export type {
  ConnectOptions,
  PoolOptions,
  QueryOptions,
  RowOptions,
  ArrowOptions,
  StreamOptions,
  InsertOptions,
  InsertData,
  ColumnInfo,
  Progress,
  QueryResult,
  ColumnsResult,
  ServerInfo,
  PoolStatus,
  Scalar,
} from './client';
export { ChwireError, ClickHouseError } from './errors';
export { PreciseDate } from './dates';
export type { ErrorKind } from './errors';
export type { TypedArray } from './columns';
import { version as nativeVersion } from './native';

/** The addon's version. */
export function version(): string {
  return nativeVersion();
}
