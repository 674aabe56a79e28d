"""Writes crates/chwire-arrow/tests/fixtures/types.native: one Native block per query below,
written by ClickHouse 26.9 (chdb), for the chwire-arrow round-trip tests (every type through
both mappings and back must give the identical block).

    build/oracle-venv/bin/python tests/oracle/arrow_fixture.py
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "crates/chwire-arrow/tests/fixtures/types.native")

QUERIES = [
    "SELECT toUInt8(number) a, toInt8(number - 2) b, toUInt16(number * 1000) c, toInt16(-number) d, toUInt32(number * 1e9) e, "
    "toInt32(-number * 1e9) f, toUInt64(number) * 18446744073709551 g, toInt64(number) * -9223372036854775 h FROM numbers(5)",
    "SELECT toFloat32(number / 3) a, toFloat64(number / 7) b, number % 2 = 0 AS c, toBFloat16(number * 1.5) d FROM numbers(5)",
    "SELECT toString(number) s, repeat('ü', number) u, toFixedString(toString(number), 3) f FROM numbers(5)",
    "SELECT generateUUIDv4(number) AS u0, toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') u1, toIPv4(number * 16777216 + 1) i4, "
    "toIPv6(concat('2001:db8::', toString(number))) i6 FROM numbers(4)",
    "SELECT toDate(number * 10000) d, toDate32(-number * 10000) d32, toDateTime(number * 1000000000, 'Asia/Tokyo') t, "
    "toDateTime(number) tn FROM numbers(5)",
    "SELECT toDateTime64(number * 1.123, 3, 'UTC') a, toDateTime64(number * 1.5, 0) b, toDateTime64(-number * 1.12345, 5, 'Europe/Moscow') c, "
    "toDateTime64(number, 9) d, toDateTime64(number, 1) e, toDateTime64(number, 8) f FROM numbers(5)",
    "SELECT CAST(number % 3 AS Enum8('a' = 0, 'b' = 1, 'c\\'' = 2)) e8, CAST(number % 2 * 1000 - 500 AS Enum16('x' = -500, 'y' = 500)) e16, "
    "CAST(if(number % 2, NULL, 'p') AS Nullable(Enum8('p' = 5, 'q' = 6))) en FROM numbers(4)",
    "SELECT toDecimal32(number / 3, 4) d32, toDecimal64(-number / 7, 10) d64, toDecimal128(number * 1e20, 5) d128, "
    "toDecimal256(-number * 1e40, 20) d256 FROM numbers(4)",
    "SELECT toInt128(number) * toInt128('-170141183460469231731687303715884105') a, "
    "toUInt128(number) * toUInt128('1701411834604692317316873037158841057') b, "
    "toInt256(number) * toInt256('-1000000000000000000000000000000000000000000000') c, "
    "toUInt256(number) * toUInt256('10000000000000000000000000000000000000000000000') d FROM numbers(4)",
    "SELECT if(number % 2, NULL, number) n, if(number % 3 = 0, NULL, toString(number)) s, if(number = 1, NULL, toDate(number)) d, "
    "CAST(NULL AS Nullable(Nothing)) z, if(number = 2, NULL, toDecimal64(number, 2)) dn FROM numbers(4)",
    "SELECT range(number) a, [toString(number), ''] b, arrayMap(x -> if(x % 2, NULL, x), range(number)) c, [range(number), []] d, "
    "[] AS e FROM numbers(4)",
    "SELECT map('k' || toString(number), number, 'z', 0) m, CAST(map(number, [toString(number)]) AS Map(UInt64, Array(String))) m2, "
    "CAST(map() AS Map(String, Nullable(Int8))) m3 FROM numbers(3)",
    "SELECT (number, toString(number)) t, CAST((number, [number]) AS Tuple(a UInt64, b Array(UInt64))) tn, "
    "tuple(tuple(number)) tt FROM numbers(3)",
    "SELECT toLowCardinality(toString(number % 3)) l, toLowCardinality(if(number % 2, NULL, toString(number))) ln, "
    "[toLowCardinality(toString(number))] la, toLowCardinality(toFixedString(toString(number % 2), 2)) lf FROM numbers(5)",
    "SELECT toIntervalSecond(number) s, toIntervalMillisecond(number) ms, toIntervalNanosecond(-number) ns, toIntervalMinute(number) mi, "
    "toIntervalDay(number) d, toIntervalMonth(number) mo, toIntervalQuarter(number) q, toIntervalYear(-number) y FROM numbers(3)",
    "SELECT CAST(number * 3600 - 3600 AS Time) t, CAST(number * 1.5 AS Time64(3)) t3, CAST(number * 1.25 AS Time64(6)) t6, "
    "CAST(number AS Time64(9)) t9, CAST(number AS Time64(2)) t2 FROM numbers(3)",
    "SELECT CAST(multiIf(number % 3 = 0, number::Variant(UInt64, String, Array(UInt8)), number % 3 = 1, toString(number), NULL) "
    "AS Variant(UInt64, String, Array(UInt8))) v FROM numbers(7)",
    "SELECT sumState(number) s, groupArrayState(number) g, uniqExactState(number) u FROM numbers(10) GROUP BY number % 3 ORDER BY number % 3",
    "SELECT CAST((number, number) AS Point) p, CAST([(number, 0)] AS Ring) r, CAST([[[(1, number)]]] AS MultiPolygon) mp, "
    "CAST(number AS SimpleAggregateFunction(sum, UInt64)) saf FROM numbers(3)",
    "SELECT CAST([(number, 'x')] AS Nested(a UInt8, b String)) n, CAST([1.5, -2, number] AS QBit(Float32, 3)) q FROM numbers(3)",
    "SELECT CAST(multiIf(number = 0, (1, 2)::Point, number = 1, [(1, 2), (3, 4)]::Ring, NULL) AS Geometry) g FROM numbers(3)",
    "SELECT number AS empty FROM numbers(0)",
]

SETTINGS = ("SETTINGS enable_time_time64_type = 1, allow_experimental_qbit_type = 1, allow_suspicious_low_cardinality_types = 1, "
            "flatten_nested = 0, max_threads = 1, session_timezone = 'UTC'")


def main():
    import chdb
    db = chdb.connect(":memory:")
    out = b""
    for q in QUERIES:
        try:
            data = db.query(q + " " + SETTINGS, "Native").bytes()
        except Exception as e:
            print(f"arrow_fixture: chdb refused {q[:80]}...: {e}", file=sys.stderr)
            sys.exit(1)
        if not data:
            data = b"\x01\x00\x05empty\x06UInt64"  # a header without rows
        out += data
    with open(OUT, "wb") as f:
        f.write(out)
    print(f"wrote {len(QUERIES)} blocks ({len(out)} bytes) to {OUT}")


if __name__ == "__main__":
    main()
