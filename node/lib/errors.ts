// Errors from the addon, as JavaScript's own classes where one fits.
//
// The addon rejects with a tagged JSON message (src/error.rs decides what every error is);
// `translate` turns it into a `ClickHouseError` (the server's exception: `code`, `name`,
// message), a `TypeError` or `RangeError` (a value that does not fit its column or parameter,
// naming them), an `AbortError` (the operation was aborted), or a `ChwireError` with a `kind`
// (connection, timeout, protocol, config, data, closed, panic, limit, client).

const TAG = '\u0001chwire:';

export type ErrorKind =
  | 'server'
  | 'connection'
  | 'timeout'
  | 'protocol'
  | 'config'
  | 'data'
  | 'closed'
  | 'aborted'
  | 'panic'
  | 'client'
  | 'limit'
  | 'type'
  | 'range';

/** Every error of chwire that is not a `TypeError`, `RangeError` or `AbortError`. */
export class ChwireError extends Error {
  readonly kind: ErrorKind;
  constructor(message: string, kind: ErrorKind, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    Object.defineProperty(this, 'name', { value: 'ChwireError', enumerable: false, writable: true });
  }
}

/**
 * A ClickHouse server exception: `code` (e.g. 60), `name` (the code's name, e.g.
 * `UNKNOWN_TABLE`), `message` (the server's text), `stackTrace` (the server's). The connection
 * stays usable after it.
 */
export class ClickHouseError extends ChwireError {
  readonly code: number;
  readonly stackTrace: string;
  constructor(code: number, name: string, message: string, stackTrace: string) {
    super(message, 'server');
    this.code = code;
    this.stackTrace = stackTrace;
    Object.defineProperty(this, 'name', { value: name, enumerable: false, writable: true });
  }
}

/** The error `signal` aborts with (its reason, else an `AbortError`). */
export function abortError(signal?: AbortSignal): unknown {
  if (signal?.reason !== undefined) return signal.reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

interface Encoded {
  kind: ErrorKind;
  message: string;
  code?: number;
  name?: string;
  serverMessage?: string;
  stackTrace?: string;
  rowsInserted?: number;
}

/** The error the addon's error `e` is in JavaScript (anything else unchanged). */
export function translate(e: unknown): unknown {
  if (!(e instanceof Error) || !e.message.startsWith(TAG)) return e;
  let d: Encoded;
  try {
    d = JSON.parse(e.message.slice(TAG.length)) as Encoded;
  } catch {
    return e;
  }
  const out = make(d);
  if (d.rowsInserted !== undefined)
    Object.defineProperty(out, 'rowsInserted', {
      value: d.rowsInserted,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

function make(d: Encoded): Error {
  switch (d.kind) {
    case 'server':
      return new ClickHouseError(
        d.code ?? 0,
        d.name ?? 'UNKNOWN',
        d.serverMessage ?? d.message,
        d.stackTrace ?? '',
      );
    case 'type':
      return new TypeError(d.message);
    case 'range':
      return new RangeError(d.message);
    case 'aborted':
      return new DOMException(d.message, 'AbortError');
    default:
      return new ChwireError(d.message, d.kind);
  }
}

/** `f()`, its rejection translated. */
export async function call<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw translate(e);
  }
}

/** `f()` (synchronous), its error translated. */
export function callSync<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw translate(e);
  }
}
