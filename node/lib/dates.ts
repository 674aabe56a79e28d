// `PreciseDate`: a `Date` that keeps the digits below the millisecond, for DateTime64(4..9).
//
// A JavaScript `Date` holds whole milliseconds. DateTime64 columns of precision 4 to 9 read
// as `PreciseDate`s: still `Date`s (`instanceof Date`, `getTime()` the millisecond), with the
// microseconds and nanoseconds beyond it kept, and inserted back exactly. The methods follow
// @google-cloud/precise-date's (`getMicroseconds`, `getNanoseconds`, `getFullTime`).

const NS_PER_MS = 1_000_000n;

/** A `Date` with nanoseconds: `epochNanoseconds` is exact, `getTime()` its floor in milliseconds. */
export class PreciseDate extends Date {
  /** Nanoseconds past `getTime()`'s millisecond, 0–999,999. */
  readonly #sub: number;

  /**
   * `new PreciseDate(epochNanoseconds: bigint)`,
   * `new PreciseDate('2024-01-01T00:00:00.123456789Z')` (ISO 8601 with up to 9 fractional digits),
   * `new PreciseDate(milliseconds, nanosecondsPastTheMillisecond)`, or `new PreciseDate(date)`.
   */
  constructor(value?: bigint | string | number | Date, subMillisecondNanos = 0) {
    let ms: number;
    let sub = 0;
    if (typeof value === 'bigint') {
      const m = value / NS_PER_MS;
      let r = value % NS_PER_MS;
      ms = Number(r < 0n ? m - 1n : m);
      if (r < 0n) r += NS_PER_MS;
      sub = Number(r);
    } else if (typeof value === 'string') {
      ms = Date.parse(value);
      const frac = /(?:\d)[.,](\d+)/.exec(value)?.[1] ?? '';
      if (frac.length > 9 || Number.isNaN(ms))
        throw new RangeError(`not an ISO 8601 date and time: ${value}`);
      sub = Number((frac + '000000000').slice(3, 9));
    } else if (value instanceof PreciseDate) {
      ms = value.getTime();
      sub = value.#sub;
    } else if (value instanceof Date) {
      ms = value.getTime();
    } else {
      ms = value ?? Date.now();
      sub = subMillisecondNanos;
      if (!Number.isInteger(ms) || !Number.isInteger(sub) || sub < 0 || sub >= 1_000_000)
        throw new RangeError(
          'PreciseDate(ms, ns): whole milliseconds and 0 to 999,999 nanoseconds past them',
        );
    }
    super(ms);
    this.#sub = Number.isNaN(this.getTime()) ? 0 : sub;
  }

  /** Nanoseconds since 1970-01-01 UTC. */
  get epochNanoseconds(): bigint {
    return BigInt(this.getTime()) * NS_PER_MS + BigInt(this.#sub);
  }

  /** The same as `epochNanoseconds` (@google-cloud/precise-date's name). */
  getFullTime(): bigint {
    return this.epochNanoseconds;
  }

  /** Microseconds past the millisecond (0–999). */
  getMicroseconds(): number {
    return Math.floor(this.#sub / 1000);
  }

  /** Nanoseconds past the microsecond (0–999). */
  getNanoseconds(): number {
    return this.#sub % 1000;
  }

  /** ISO 8601 with the digits the value has: 3, 6 or 9 after the second. */
  override toISOString(): string {
    const base = super.toISOString();
    if (this.#sub === 0) return base;
    const digits = String(this.#sub).padStart(6, '0');
    return `${base.slice(0, -1)}${this.#sub % 1000 === 0 ? digits.slice(0, 3) : digits}Z`;
  }

  /** @internal Nanoseconds past the millisecond (the insert's packing reads it). */
  static subMillisecond(d: Date): number {
    return d instanceof PreciseDate ? d.#sub : 0;
  }
}
