"""The oracle corpus: SQL whose result ClickHouse 26.9 (chdb) writes as Native and as
JSONEachRow; run.py checks chwire against both. Every query must be deterministic (it runs
once per format).

CASES: (name, sql) for the types chwire accepts (its codecs decode and re-encode them).
PENDING: (name, sql, reason) for the types chwire does not support yet; chwire must refuse
them cleanly ("unsupported" on stderr, non-zero exit, no panic). When one starts passing,
run.py fails it with "now passes: remove from PENDING": move it to CASES.
"""


def _vals(fn, texts):
    """One column `v` with one row per text, converted by fn (e.g. toUInt64)."""
    items = ", ".join("'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'" for t in texts)
    return f"SELECT {fn}(arrayJoin([{items}])) AS v"


INT_RANGES = {
    "UInt8": ("0", "255"),
    "UInt16": ("0", "65535"),
    "UInt32": ("0", "4294967295"),
    "UInt64": ("0", "18446744073709551615"),
    "Int8": ("-128", "127"),
    "Int16": ("-32768", "32767"),
    "Int32": ("-2147483648", "2147483647"),
    "Int64": ("-9223372036854775808", "9223372036854775807"),
}

FLOAT_TEXTS = [
    "0", "-0", "1", "-1", "nan", "-nan", "inf", "-inf", "0.1", "0.2", "0.3", "0.5", "1.5",
    "3.141592653589793", "2.718281828459045", "100", "123456.789", "1e-7", "1.5e-7", "1e-6",
    "1e-5", "1.5e-5", "0.0001", "0.001", "9.999999e-5", "1e15", "1e16", "1e17", "123456789012345680",
    "1e20", "1e21", "1e22", "1.5e300", "-1.5e300", "1e308", "1.7976931348623157e308",
    "-1.7976931348623157e308", "2.2250738585072014e-308", "4.9406564584124654e-324", "5e-324",
    "9007199254740992", "9007199254740993", "4294967295", "4294967296", "18446744073709551615",
    "0.30000000000000004", "1.0000000000000002", "1234.5678", "-0.000123",
]
FLOAT32_TEXTS = [
    "0", "-0", "1", "-1", "nan", "-nan", "inf", "-inf", "0.1", "0.2", "0.3", "0.5", "1.5",
    "3.1415927", "100", "123456.79", "123456789", "16777216", "16777217", "1e-7", "1.5e-7",
    "1e-6", "1e-5", "1.5e-5", "0.0001", "1e10", "1e20", "1e21", "1e22", "3.4028235e38",
    "-3.4028235e38", "1.1754944e-38", "1.4e-45", "1e-45", "0.33333334", "1234.5677",
]

TIMEZONES = [
    "UTC", "Etc/UTC", "Asia/Tokyo", "America/New_York", "Europe/Moscow", "Asia/Kolkata",
    "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns",
    "Africa/Monrovia", "Europe/Amsterdam", "Pacific/Kiritimati", "Etc/GMT+12", "Europe/Berlin",
]
# Instants (UTC seconds): range ends, DST transitions (New York 2021, Lord Howe), y2k38.
INSTANTS = [0, 1, 59, 86399, 86400, 951782400, 1000000000, 1615705199, 1615705200,
            1636264799, 1636264800, 1648913400, 2147483647, 2147483648, 4102444800, 4294967295]

CASES = []


def case(name, sql):
    CASES.append((name, sql))


# ---- integers -----------------------------------------------------------------------------
for t, (lo, hi) in INT_RANGES.items():
    signed = lo.startswith("-")
    texts = [lo, str(int(lo) + 1), "0", "1", "2", "127", "128", str(int(hi) - 1), hi]
    if signed:
        texts[3:3] = ["-1", "-2"]
    texts = [x for x in dict.fromkeys(texts) if int(lo) <= int(x) <= int(hi)]
    case(f"int/{t}_range", _vals(f"to{t}", texts))
case("int/all_widths_one_row",
     "SELECT " + ", ".join(f"to{t}('{hi}') AS max_{t}, to{t}('{lo}') AS min_{t}" for t, (lo, hi) in INT_RANGES.items()))
case("int/uint64_hash_spread", "SELECT number AS i, sipHash64(number) AS u, toInt64(sipHash64(number)) AS s, "
     "toInt32(sipHash64(number)) AS s32, toUInt16(sipHash64(number)) AS u16, toInt8(sipHash64(number)) AS s8 FROM numbers(2000)")
case("int/powers_of_two", "SELECT number AS i, bitShiftLeft(toUInt64(1), number) AS p, "
     "toInt64(bitShiftLeft(toUInt64(1), number)) AS sp, toInt64(bitShiftLeft(toUInt64(1), number)) - 1 AS sm FROM numbers(64)")

# ---- floats -------------------------------------------------------------------------------
case("float/Float64_specials", _vals("toFloat64", FLOAT_TEXTS))
case("float/Float32_specials", _vals("toFloat32", FLOAT32_TEXTS))
case("float/Float64_decades", "SELECT number AS i, pow(10, toInt64(number) - 330) AS p, 1.5 * pow(10, toInt64(number) - 330) AS q, "
     "-pow(10, toInt64(number) - 330) / 3 AS r FROM numbers(640)")
case("float/Float32_decades", "SELECT number AS i, toFloat32(pow(10, toInt64(number) - 46)) AS p, "
     "toFloat32(1.5 * pow(10, toInt64(number) - 46)) AS q, toFloat32(-pow(10, toInt64(number) - 46) / 3) AS r FROM numbers(86)")
case("float/Float64_random_bits", "SELECT number AS i, reinterpretAsFloat64(reinterpretAsString(sipHash64(number))) AS f FROM numbers(5000)")
case("float/Float32_random_bits", "SELECT number AS i, reinterpretAsFloat32(reinterpretAsString(toUInt32(sipHash64(number) % 4294967296))) AS f FROM numbers(5000)")
case("float/Float64_random_ranges", "SELECT number AS i, (sipHash64(number) % 1000000) / 1000 AS a, "
     "(sipHash64(number) % 1000000007) * 1e-12 AS b, toFloat64(sipHash64(number)) AS c, "
     "toFloat32((sipHash64(number) % 100000) / 100) AS d FROM numbers(5000)")
case("float/nan_payloads", "SELECT reinterpretAsFloat64(unhex(arrayJoin(['010000000000F87F', '000000000000F8FF', "
     "'0100000000F0FF7F', 'FFFFFFFFFFFFFF7F']))) AS f, reinterpretAsFloat32(unhex(arrayJoin(['0100C07F']))) AS g")
case("float/subnormals", "SELECT number AS i, reinterpretAsFloat64(reinterpretAsString(number * 1234567891)) AS f, "
     "reinterpretAsFloat32(reinterpretAsString(toUInt32(number * 12345))) AS g FROM numbers(200)")
case("float/integral_values", "SELECT number AS i, toFloat64(number) AS f, toFloat64(number) * 1000000 AS g, "
     "toFloat32(number) / 4 AS h FROM numbers(1000)")

# ---- Bool ---------------------------------------------------------------------------------
case("bool/values", "SELECT arrayJoin([true, false, true])::Bool AS b")
case("bool/nullable_and_array", "SELECT arrayJoin([NULL, true, false])::Nullable(Bool) AS b, [true, false, NULL]::Array(Nullable(Bool)) AS a")

# ---- String -------------------------------------------------------------------------------
case("string/escapes", "SELECT arrayJoin(['', 'a', 'with \"quotes\"', 'back\\\\slash', 'tab\\there', 'nl\\nx', 'cr\\rx', "
     "'bs\\bff\\f', 'a/b', '</script>', ' lead and trail ', '\\'single\\'', '{\"json\":1}', 'NULL', '\\\\N']) AS s")
case("string/ascii_bytes", "SELECT number AS i, char(number) AS c, concat('x', char(number), 'y') AS s FROM numbers(128)")
case("string/high_bytes_invalid_utf8", "SELECT number AS i, char(number) AS c FROM numbers(128, 128)")
case("string/unicode", "SELECT arrayJoin(['héllo', 'Ünïcödé', '日本語テキスト', 'Привет', 'العربية', '😀🎉', "
     "'👨\u200d👩\u200d👧', 'e\u0301', '\u2028\u2029', '\ufeff', '\u007f\u0080\u009f', '\u00a0', "
     "'\ufffd', '\U0010ffff', '\ud7ff\ue000']) AS s")
case("string/invalid_utf8", "SELECT arrayJoin([unhex('FF00'), unhex('C328'), unhex('EDA080'), unhex('C0AF'), unhex('E282'), "
     "unhex('F0908080'), unhex('F4908080'), unhex('80'), unhex('61FF62'), unhex('E2')]) AS s")
case("string/long_100k", "SELECT repeat('0123456789', 10000) AS s, length(s) AS n")
case("string/long_escapes", "SELECT repeat('é\"\\\\\\n/\\t', 20000) AS s")
case("string/length_varint_edges", "SELECT length(s) AS n, s FROM (SELECT substring(repeat(repeat('x', 1024), 2048), 1, "
     "arrayJoin([0, 1, 127, 128, 255, 256, 16383, 16384, 65535, 65536, 2097151, 2097152])) AS s)")
case("string/many", "SELECT number AS i, toString(number) AS s, repeat('ab', number % 17) AS r FROM numbers(20000)")
case("string/column_names", "SELECT 1 AS \"weird \"\"name\"\"\", 2 AS \"é\", 3 AS \"a\\\\b\", 4 AS \"back`tick\", "
     "5 AS \"tab\\tname\", 6 AS \"a/b\", 7 AS \"nl\\nname\", 8 AS \"😀\"")
case("string/duplicate_column_names", "SELECT 1, 1, 'x' AS s")

# ---- FixedString --------------------------------------------------------------------------
case("fixedstring/padding", "SELECT toFixedString(arrayJoin(['', 'a', 'abcde', 'é', 'a\\0b']), 5) AS s")
case("fixedstring/one", "SELECT toFixedString(char(number), 1) AS s FROM numbers(128)")
case("fixedstring/binary_16", "SELECT number AS i, toFixedString(sipHash128(number), 16) AS h FROM numbers(100)")
case("fixedstring/invalid_utf8", "SELECT toFixedString(arrayJoin([unhex('FF'), unhex('C3'), unhex('E282')]), 3) AS s")
case("fixedstring/long", "SELECT toFixedString(repeat('z', 1000), 1000) AS s")

# ---- Date / DateTime ----------------------------------------------------------------------
case("date/range_ends", "SELECT toDate(arrayJoin(['1970-01-01', '1970-01-02', '1999-12-31', '2000-02-29', '2024-02-29', "
     "'2038-01-19', '2100-02-28', '2106-02-07', '2149-06-05', '2149-06-06'])) AS d")
case("date/every_day_number", "SELECT number AS i, toDate(number * 3) AS d FROM numbers(21846)")
# The Native format (protocol revision 0) writes a top-level DateTime('tz') column's type as
# plain "DateTime" (NativeWriter drops the zone for clients older than the time-zone revision),
# so its JSON in the zone cannot be derived from the bytes: the zone survives only inside
# Nullable(...) / Array(...), which is how these cases carry it. Top-level zones appear only
# where the zone is the session's (UTC).
case("datetime/server_tz", "SELECT toDateTime(arrayJoin([" + ", ".join(map(str, INSTANTS)) + "])::UInt32) AS t")
case("datetime/top_level_utc_zone_dropped", "SELECT toDateTime(1700000000, 'UTC') AS utc, toDateTime(1700000000) AS plain")
for tz in TIMEZONES:
    case(f"datetime/tz_{tz.replace('/', '_')}",
         f"SELECT toNullable(toDateTime(arrayJoin([{', '.join(map(str, INSTANTS))}])::UInt32, '{tz}')) AS t, "
         f"[toDateTime(0, '{tz}'), toDateTime(4294967295, '{tz}')] AS a")
case("datetime/many_timezones_one_row", "SELECT " + ", ".join(
    f"[toDateTime(1636264800, '{tz}')] AS \"{tz}\"" for tz in TIMEZONES))
case("datetime/every_hour_2021", "SELECT number AS i, toNullable(toDateTime(1609459200 + number * 3600, 'America/New_York')) AS ny, "
     "toNullable(toDateTime(1609459200 + number * 3600, 'Australia/Lord_Howe')) AS lh, "
     "[toDateTime(1609459200 + number * 3600, 'Africa/Monrovia')] AS mo FROM numbers(8760)")

# ---- Enum ---------------------------------------------------------------------------------
case("enum/enum8_range", "SELECT CAST(arrayJoin(['lo', 'zero', 'hi']) AS Enum8('lo' = -128, 'zero' = 0, 'hi' = 127)) AS e")
case("enum/enum16_range", "SELECT CAST(arrayJoin(['lo', 'zero', 'hi']) AS Enum16('lo' = -32768, 'zero' = 0, 'hi' = 32767)) AS e")
case("enum/odd_names", "SELECT CAST(arrayJoin(['it''s', 'back\\\\slash', 'quote\"', '', 'é', 'tab\\t', 'a = 1', 'x, y', "
     "'paren)', 'nl\\n']) AS Enum8('it''s' = 1, 'back\\\\slash' = 2, 'quote\"' = 3, '' = 4, 'é' = 5, 'tab\\t' = 6, "
     "'a = 1' = 7, 'x, y' = 8, 'paren)' = 9, 'nl\\n' = 10)) AS e")
case("enum/unsorted_definition", "SELECT CAST(arrayJoin(['b', 'a', 'c']) AS Enum8('c' = 3, 'b' = 2, 'a' = -1)) AS e")
case("enum/enum16_many", "SELECT CAST(toInt16(number * 1500 - 30000), 'Enum16(" + ", ".join(
    f"\\'v{v}\\' = {v}" for v in range(-30000, 31500, 1500)) + ")') AS e FROM numbers(41)")

# ---- UUID ---------------------------------------------------------------------------------
case("uuid/fixed", "SELECT toUUID(arrayJoin(['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', "
     "'61f0c404-5cb3-11e7-907b-a6006ad3dba0', '01234567-89ab-cdef-0123-456789abcdef'])) AS u")
case("uuid/hashed", "SELECT number AS i, reinterpretAsUUID(sipHash128(number)) AS u FROM numbers(1000)")

# ---- Nullable -----------------------------------------------------------------------------
for t in ["UInt8", "UInt16", "UInt32", "UInt64", "Int8", "Int16", "Int32", "Int64"]:
    lo, hi = INT_RANGES[t]
    case(f"nullable/{t}", f"SELECT arrayJoin([NULL, to{t}('{lo}'), NULL, to{t}('{hi}'), to{t}('0')]) AS v")
case("nullable/Float64", "SELECT arrayJoin([NULL, nan, inf, -0., 1.5, NULL]::Array(Nullable(Float64))) AS v")
case("nullable/Float32", "SELECT arrayJoin([NULL, nan, -inf, -0., 0.1, NULL]::Array(Nullable(Float32))) AS v")
case("nullable/String", "SELECT arrayJoin([NULL, '', 'x', NULL, 'é\"\\\\', unhex('FF')]) AS v")
case("nullable/FixedString", "SELECT arrayJoin([NULL, toFixedString('ab', 3), NULL]) AS v")
case("nullable/Date", "SELECT arrayJoin([NULL, toDate('2149-06-06'), toDate('1970-01-01')]) AS v")
case("nullable/DateTime", "SELECT arrayJoin([NULL, toDateTime(0), toDateTime(4294967295)]) AS v")
case("nullable/DateTime_tz", "SELECT arrayJoin([NULL, toDateTime(0, 'Asia/Kolkata'), NULL]) AS v")
case("nullable/Enum8", "SELECT arrayJoin([NULL, 'a', 'b'])::Nullable(Enum8('a' = 1, 'b' = 2)) AS v")
case("nullable/Enum16", "SELECT arrayJoin([NULL, 'a', 'b'])::Nullable(Enum16('a' = -1000, 'b' = 1000)) AS v")
case("nullable/UUID", "SELECT arrayJoin([NULL, toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')]) AS v")
case("nullable/all_null", "SELECT NULL::Nullable(Int32) AS a, NULL::Nullable(String) AS b FROM numbers(5)")
case("nullable/no_null", "SELECT toNullable(number) AS a, toNullable(toString(number)) AS b FROM numbers(5)")
case("nullable/alternating_multi_block", "SELECT if(number % 3 = 0, NULL, number) AS a, if(number % 2 = 0, NULL, "
     "toString(number)) AS b FROM numbers(30000) SETTINGS max_block_size=7000")

# ---- Array --------------------------------------------------------------------------------
case("array/empty", "SELECT []::Array(UInt8) AS a, []::Array(String) AS s, []::Array(Array(Nullable(Int64))) AS n")
case("array/mixed_lengths", "SELECT arrayJoin([[], [1], [], [2, 3], [], [], [4, 5, 6]])::Array(UInt32) AS a")
case("array/all_empty_rows", "SELECT []::Array(Int64) AS a FROM numbers(10)")
case("array/nullable_elements", "SELECT [NULL, 1, NULL, 255]::Array(Nullable(UInt8)) AS a, "
     "[NULL, '', 'x']::Array(Nullable(String)) AS s, [NULL, NULL]::Array(Nullable(Float64)) AS f")
case("array/nested_nullable", "SELECT arrayJoin([[[NULL]], [[]], [], [[NULL, 'a'], [], ['b', NULL]], [[], []]])"
     "::Array(Array(Nullable(String))) AS a")
case("array/deep5", "SELECT arrayJoin([[[[[[1, 2], []], [[3]]]]], [], [[]], [[[]]], [[[[]]]], [[[[[]]]]], "
     "[[[[[4]], [[5, 6]]]], [[[[7]]]]]])::Array(Array(Array(Array(Array(UInt8))))) AS a")
case("array/deep5_nullable_string", "SELECT arrayJoin([[[[[[NULL, 'a'], []], [[NULL]]]]], [], [[[[['x\"y']]]]]])"
     "::Array(Array(Array(Array(Array(Nullable(String)))))) AS a")
case("array/of_every_type", "SELECT [toInt8(-128), toInt8(127)] AS i8, [toUInt64('18446744073709551615'), 0] AS u64, "
     "[toInt64('-9223372036854775808')] AS i64, [nan, inf, -inf, -0., 1e-7, 0.1] AS f64, "
     "[toFloat32(nan), toFloat32(0.1), toFloat32(-0.)] AS f32, [true, false] AS b, ['', 'x\"\\\\', unhex('FF')] AS s, "
     "[toFixedString('ab', 3)] AS fs, [toDate('2149-06-06'), toDate(0)] AS d, [toDateTime(0), toDateTime(4294967295)] AS dt, "
     "[toDateTime(0, 'Asia/Tokyo')] AS dtz, ['a', 'b']::Array(Enum8('a' = 1, 'b' = 2)) AS e8, "
     "['x']::Array(Enum16('x' = 3000)) AS e16, [toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')] AS u")
case("array/nullable_of_every_type", "SELECT [NULL, toInt8(-1)] AS i8, [NULL, toUInt64(1)] AS u64, [NULL, 1.5] AS f64, "
     "[NULL, toFloat32(1.5)] AS f32, [NULL, true] AS b, [NULL, 'x'] AS s, [NULL, toFixedString('ab', 2)] AS fs, "
     "[NULL, toDate(1)] AS d, [NULL, toDateTime(1)] AS dt, [NULL, toDateTime(1, 'Europe/Moscow')] AS dtz, "
     "[NULL, 'a']::Array(Nullable(Enum8('a' = 1))) AS e8, [NULL, toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')] AS u")
case("array/ranges", "SELECT number AS i, range(number) AS a FROM numbers(1000)")
case("array/multi_block", "SELECT number AS i, range(number % 50) AS a, arrayMap(x -> toString(x), range(number % 7)) AS s, "
     "arrayMap(x -> if(x % 2 = 0, NULL, x), range(number % 5)) AS n FROM numbers(50000) SETTINGS max_block_size=7777")
case("array/array_of_arrays_of_nullable", "SELECT number AS i, arrayMap(x -> arrayMap(y -> if((x + y) % 3 = 0, NULL, "
     "toString(y)), range(x)), range(number % 6)) AS a FROM numbers(500)")

# ---- streams ------------------------------------------------------------------------------
case("stream/multi_block_200k", "SELECT number AS n, toString(number) AS s, toFloat64(number) / 7 AS f, number % 3 = 0 AS b, "
     "toDate(number % 50000) AS d FROM numbers(200000) SETTINGS max_block_size=10000")
case("stream/block_size_1", "SELECT number AS n, toString(number) AS s FROM numbers(100) SETTINGS max_block_size=1")
case("stream/uneven_blocks", "SELECT number AS n FROM numbers(100003) SETTINGS max_block_size=9999")
case("stream/empty_result", "SELECT number AS n, toString(number) AS s FROM numbers(0)")
case("stream/wide_100_columns", "SELECT " + ", ".join(
    f"number * {i} AS c{i}" if i % 3 == 0 else (f"toString(number + {i}) AS c{i}" if i % 3 == 1 else f"toFloat32(number) / {i} AS c{i}")
    for i in range(100)) + " FROM numbers(50)")
case("stream/single_row_no_from", "SELECT 1 AS x")


# ---- wide integers -------------------------------------------------------------------------
WIDE = {
    "Int128": ("-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"),
    "UInt128": ("0", "340282366920938463463374607431768211455"),
    "Int256": ("-57896044618658097711785492504343953926634992332820282019728792003956564819968",
               "57896044618658097711785492504343953926634992332820282019728792003956564819967"),
    "UInt256": ("0", "115792089237316195423570985008687907853269984665640564039457584007913129639935"),
}
for t, (lo, hi) in WIDE.items():
    texts = [lo, str(int(lo) + 1), "0", "1", "18446744073709551615", "18446744073709551616", str(int(hi) - 1), hi]
    if lo.startswith("-"):
        texts[3:3] = ["-1", "-18446744073709551616", "-9223372036854775809"]
    case(f"wideint/{t}_range", _vals(f"to{t}", texts))
    case(f"wideint/{t}_nullable_array", f"SELECT [NULL, to{t}('{hi}'), to{t}('0')] AS a, "
         f"arrayJoin([NULL, to{t}('{lo}')]) AS n")
case("wideint/hash_spread", "SELECT number AS i, reinterpretAsUInt128(sipHash128(number)) AS u128, "
     "reinterpretAsInt128(sipHash128(number)) AS i128, reinterpretAsUInt256(concat(sipHash128(number), sipHash128(number + 1))) AS u256, "
     "reinterpretAsInt256(concat(sipHash128(number), sipHash128(number + 1))) AS i256 FROM numbers(1000)")

# ---- BFloat16 -----------------------------------------------------------------------------
case("bfloat16/specials", "SELECT toBFloat16(toFloat32(arrayJoin(['0', '-0', '1', '-1', 'nan', 'inf', '-inf', '0.1', '1.5', "
     "'3.140625', '100', '1e-7', '1e-30', '1e30', '3.3895314e38', '-3.3895314e38', '1.1754944e-38', '9.18355e-41', "
     "'65504', '256', '257']))) AS v")
case("bfloat16/random", "SELECT number AS i, toBFloat16(reinterpretAsFloat32(reinterpretAsString(toUInt32(sipHash64(number) % 4294967296)))) AS v "
     "FROM numbers(3000)")
case("bfloat16/nullable_array", "SELECT [NULL, toBFloat16(1.5)] AS a, arrayJoin([NULL, toBFloat16(-2.)]) AS n")

# ---- Decimal ------------------------------------------------------------------------------
case("decimal/Decimal32", "SELECT toDecimal32(arrayJoin(['-99999.9999', '-1', '-0.0001', '0', '0.0001', '12.5', '99999.9999']), 4) AS v")
case("decimal/Decimal32_extremes", "SELECT CAST(arrayJoin(['-999999999', '999999999', '0']) AS Decimal(9, 0)) AS s0, "
     "CAST(arrayJoin(['-0.999999999', '0.999999999', '0.000000001']) AS Decimal(9, 9)) AS s9")
case("decimal/Decimal64", "SELECT toDecimal64(arrayJoin(['-99999999.9999999999', '-0.0000000001', '0', '0.0000000001', "
     "'1.5', '99999999.9999999999']), 10) AS v")
case("decimal/Decimal64_extremes", "SELECT CAST(arrayJoin(['-999999999999999999', '999999999999999999']) AS Decimal(18, 0)) AS s0, "
     "CAST(arrayJoin(['-0.999999999999999999', '0.000000000000000001']) AS Decimal(18, 18)) AS s18")
case("decimal/Decimal128", "SELECT toDecimal128(arrayJoin(['12345678901234567.12345678901234567890', '-1', '0', "
     "'-99999999999999999999999999999999999999e-20']), 20) AS v")
case("decimal/Decimal128_extremes", "SELECT CAST(arrayJoin(['-99999999999999999999999999999999999999', "
     "'99999999999999999999999999999999999999']) AS Decimal(38, 0)) AS s0, "
     "CAST(arrayJoin(['-0.' || repeat('9', 38), '0.' || repeat('0', 37) || '1']) AS Decimal(38, 38)) AS s38")
case("decimal/Decimal256", "SELECT toDecimal256(arrayJoin(['-1234567890123456789012345678901234.5678901234567890123456789012345678901234', "
     "'0', '1', '-0.0000000000000000000000000000000000000001']), 40) AS v")
case("decimal/Decimal256_extremes", "SELECT CAST(arrayJoin(['-' || repeat('9', 76), repeat('9', 76)]) AS Decimal(76, 0)) AS s0, "
     "CAST(arrayJoin(['-0.' || repeat('9', 76), '0.' || repeat('0', 75) || '1']) AS Decimal(76, 76)) AS s76")
case("decimal/P_S_forms", "SELECT CAST('1234567.89' AS Decimal(9, 2)) AS a, CAST('1.5' AS Decimal(38, 10)) AS b, "
     "CAST('-0.5' AS Decimal(10, 1)) AS c, CAST('100' AS Decimal(19, 0)) AS d, CAST('2.50' AS Decimal(39, 2)) AS e")
case("decimal/nullable_array", "SELECT [NULL, toDecimal64('1.25', 2)] AS a, arrayJoin([NULL, toDecimal32('-3.5', 1)]) AS n, "
     "[[toDecimal128('0.1', 3)]] AS aa")
case("decimal/many", "SELECT number AS i, toDecimal64(number, 3) / 7 AS d, toDecimal128(number, 0) * 1000000007 AS e, "
     "toDecimal32(number % 1000, 2) - 5 AS f FROM numbers(5000)")

# ---- Date32 / DateTime64 ------------------------------------------------------------------
case("date32/range_ends", "SELECT toDate32(arrayJoin(['1900-01-01', '1900-01-02', '1900-02-28', '1900-03-01', '1969-12-31', "
     "'1970-01-01', '2000-02-29', '2149-06-06', '2149-06-07', '2299-12-31'])) AS d")
case("date32/every_week", "SELECT number AS i, toDate32(-25567 + number * 7) AS d FROM numbers(20870)")
case("date32/nullable_array", "SELECT [NULL, toDate32('1900-01-01')] AS a, arrayJoin([NULL, toDate32('2299-12-31')]) AS n")
for prec in range(0, 10):
    case(f"datetime64/precision_{prec}", f"SELECT toDateTime64(arrayJoin(['1900-01-01 00:00:00', '1969-12-31 23:59:59.5', "
         f"'1970-01-01 00:00:00', '1970-01-01 00:00:00.000000001', '2021-03-14 06:59:59.123456789', '2106-02-07 06:28:16', "
         f"'2261-12-31 23:59:59.999999999']), {prec}, 'UTC') AS t")
case("datetime64/negative_fractions", "SELECT toDateTime64(arrayJoin([-1.5, -0.001, -86400.25, -2208988800.5]), 3, 'UTC') AS t")
case("datetime64/range_ends_9", "SELECT toDateTime64(arrayJoin(['1900-01-01 00:00:00', '2262-04-11 23:47:16.854775807']), 9, 'UTC') AS t")
case("datetime64/range_ends_3", "SELECT toDateTime64(arrayJoin(['1900-01-01 00:00:00', '2299-12-31 23:59:59.999']), 3, 'UTC') AS t")
for tz in ["Asia/Tokyo", "America/New_York", "Africa/Monrovia", "Asia/Kathmandu", "Australia/Lord_Howe"]:
    case(f"datetime64/tz_{tz.replace('/', '_')}", f"SELECT toDateTime64(1636264800 + arrayJoin([0, 0.5, 3600.25, -2500000000.125]), 3, "
         f"'{tz}') AS t, toDateTime64('1900-01-01 12:00:00', 6, '{tz}') AS old")
case("datetime64/session_tz", "SELECT toDateTime64(1636264800.25, 2) AS t")
case("datetime64/nullable_array", "SELECT [NULL, toDateTime64(0.5, 1, 'Asia/Tokyo')] AS a, "
     "arrayJoin([NULL, toDateTime64(-1.5, 3, 'UTC')]) AS n")

# ---- Time / Time64 ------------------------------------------------------------------------
case("time/range", "SELECT CAST(arrayJoin(['00:00:00', '00:00:01', '12:34:56', '23:59:59', '24:00:00', '99:59:59', "
     "'100:00:00', '999:59:59', '-00:00:01', '-01:00:00', '-999:59:59']) AS Time) AS t")
for prec in (0, 1, 3, 6, 9):
    case(f"time64/precision_{prec}", f"SELECT CAST(arrayJoin(['00:00:00', '12:34:56.789123456', '-01:00:00.5', "
         f"'999:59:59.999999999', '-999:59:59.999999999', '-00:00:00.000000001']) AS Time64({prec})) AS t")
case("time/nullable_array", "SELECT [NULL, CAST('01:02:03' AS Time)] AS a, arrayJoin([NULL, CAST('-01:02:03.25' AS Time64(2))]) AS n")

# ---- IPv4 / IPv6 --------------------------------------------------------------------------
case("ip/IPv4", "SELECT toIPv4(arrayJoin(['0.0.0.0', '127.0.0.1', '255.255.255.255', '10.1.2.3', '1.2.3.4'])) AS ip")
case("ip/IPv6", "SELECT toIPv6(arrayJoin(['::', '::1', '2001:db8::ff00:42:8329', '::ffff:1.2.3.4', "
     "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe80::1:0:0:1', '1:0:0:1::', '1::1:0:0:1', '0:0:1::'])) AS ip")
case("ip/nullable_array", "SELECT [NULL, toIPv4('1.2.3.4')] AS a4, arrayJoin([NULL, toIPv6('::1')]) AS n6")

# ---- Tuple --------------------------------------------------------------------------------
case("tuple/unnamed", "SELECT (1, 'a', toDate(1), [1, 2]) AS t")
case("tuple/with_nothing", "SELECT (1, NULL) AS t")
case("tuple/empty", "SELECT tuple() AS e FROM numbers(3)")
case("tuple/named", "SELECT CAST((1, 'x') AS Tuple(id UInt32, name String)) AS t")
case("tuple/named_odd_names", "SELECT CAST((1, 2, 3) AS Tuple(`a b` UInt8, `é` UInt8, `x\"y` UInt8)) AS t")
case("tuple/nested", "SELECT ((1, (2, 'b')), [(3, 'c')]) AS t")
case("tuple/nested_named", "SELECT CAST(((1, 'x'), [(2, 3)]) AS Tuple(a Tuple(b UInt8, c String), d Array(Tuple(e UInt8, f UInt8)))) AS t")
case("tuple/nullable_elements", "SELECT arrayJoin([(NULL, 'a'), (1, NULL)])::Tuple(Nullable(UInt8), Nullable(String)) AS t")
case("tuple/nullable_tuple", "SELECT arrayJoin([NULL, (1, 'a')])::Nullable(Tuple(UInt8, String)) AS t")
case("tuple/array_of_tuples", "SELECT [(1, 'a'), (2, 'b')] AS a, []::Array(Tuple(UInt8, String)) AS e")
case("tuple/many", "SELECT number AS i, (number, toString(number), if(number % 3 = 0, NULL, number * 1.5)) AS t FROM numbers(5000)")

# ---- Map ----------------------------------------------------------------------------------
case("map/basic", "SELECT map('a', 1, 'b', 2) AS m, map() AS e")
case("map/key_types", "SELECT map(1, 'x', 2, 'y') AS u, map(toUInt64('18446744073709551615'), 1) AS u64, map(-1, 1.5) AS i, "
     "map(toDate(1), 1) AS d, map(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0'), 1) AS uu, map('k\"\\\\', 1) AS s")
case("map/nested_values", "SELECT map('k', [NULL, 'v'], 'e', []) AS m, map(1, map('x', 2)) AS mm")
case("map/nullable_values", "SELECT map('a', NULL, 'b', 1) AS m")
case("map/many", "SELECT number AS i, mapFromArrays(arrayMap(x -> toString(x), range(number % 5)), range(number % 5)) AS m "
     "FROM numbers(5000)")

# ---- LowCardinality -----------------------------------------------------------------------
case("lowcardinality/String", "SELECT toLowCardinality(toString(number % 3)) AS s FROM numbers(10)")
case("lowcardinality/Nullable_String", "SELECT toLowCardinality(if(number % 2 = 0, NULL, toString(number % 3))) AS s FROM numbers(10)")
case("lowcardinality/FixedString", "SELECT toLowCardinality(toFixedString(toString(number % 4), 2)) AS s FROM numbers(10)")
case("lowcardinality/numbers_dates", "SELECT toLowCardinality(toUInt32(number % 5)) AS a, toLowCardinality(toFloat64(number % 2)) AS b, "
     "toLowCardinality(toDate(number % 3)) AS d, toLowCardinality(toInt64(-number)) AS i FROM numbers(10)")
case("lowcardinality/in_array", "SELECT [toLowCardinality('a'), toLowCardinality('b'), toLowCardinality('a')] AS a, "
     "arrayMap(x -> toLowCardinality(toString(x % 2)), range(number)) AS r FROM numbers(5)")
case("lowcardinality/in_map", "SELECT map(toLowCardinality('k1'), 1, toLowCardinality('k2'), 2) AS m")
case("lowcardinality/in_tuple", "SELECT tuple(toLowCardinality('x'), 1) AS t")
case("lowcardinality/big_dictionary_multi_block", "SELECT toLowCardinality(toString(number)) AS s, "
     "toLowCardinality(if(number % 5 = 0, NULL, toString(number % 1000))) AS n FROM numbers(100000) SETTINGS max_block_size=30000")
# Nested dictionaries that differ from block to block: one Arrow file holds them as deltas.
case("lowcardinality/nested_multi_block", "SELECT arrayMap(x -> toLowCardinality(toString(number * 10 + x)), range(number % 4)) AS a, "
     "map(toLowCardinality(toString(number % 7 + intDiv(number, 1000))), toLowCardinality(toString(number))) AS m, "
     "tuple(toLowCardinality(toString(number * 3)), number) AS t FROM numbers(5000) SETTINGS max_block_size=1500")
case("lowcardinality/uint16_indexes", "SELECT toLowCardinality(toString(number % 300)) AS s FROM numbers(1000)")
case("lowcardinality/uint32_indexes", "SELECT toLowCardinality(toString(number)) AS s FROM numbers(70000)")

# ---- Nested -------------------------------------------------------------------------------
case("nested/basic", "SELECT [(1, 'a'), (2, 'b')]::Nested(a UInt8, b String) AS n")
case("nested/empty_and_many", "SELECT arrayMap(x -> (x, toString(x)), range(number % 4))::Nested(a UInt64, b String) AS n FROM numbers(20)")

# ---- Variant ------------------------------------------------------------------------------
case("variant/basic", "SELECT arrayJoin([1::Variant(UInt64, String, Array(UInt64)), 'a', [1, 2], NULL]) AS v")
case("variant/all_null", "SELECT NULL::Variant(UInt64, String) AS v FROM numbers(3)")
case("variant/in_array", "SELECT [1::Variant(UInt8, String), 'x', NULL] AS a")
case("variant/many", "SELECT number AS i, multiIf(number % 4 = 0, number::Variant(UInt64, String, Float64), number % 4 = 1, "
     "toString(number)::Variant(UInt64, String, Float64), number % 4 = 2, (number / 3)::Variant(UInt64, String, Float64), "
     "NULL::Variant(UInt64, String, Float64)) AS v FROM numbers(4000)")

# ---- geo ----------------------------------------------------------------------------------
case("geo/Point", "SELECT (1.5, -2.)::Point AS p, (nan, -0.)::Point AS q")
case("geo/Ring", "SELECT [(0., 0.), (1., 0.), (1., 1.), (0., 0.)]::Ring AS r")
case("geo/LineString", "SELECT [(0., 0.), (1., 1.)]::LineString AS l")
case("geo/MultiLineString", "SELECT [[(0., 0.), (1., 1.)], [(2., 2.)]]::MultiLineString AS m")
case("geo/Polygon", "SELECT [[(0., 0.), (1., 0.), (1., 1.), (0., 0.)], []]::Polygon AS p")
case("geo/MultiPolygon", "SELECT [[[(0., 0.), (1., 0.), (1., 1.), (0., 0.)]]]::MultiPolygon AS m")

# ---- SimpleAggregateFunction / Interval / Nothing -----------------------------------------
case("simpleaggregate/sum", "SELECT CAST(number AS SimpleAggregateFunction(sum, UInt64)) AS s FROM numbers(3)")
case("simpleaggregate/others", "SELECT CAST('x' AS SimpleAggregateFunction(anyLast, String)) AS a, "
     "CAST(NULL AS SimpleAggregateFunction(max, Nullable(Float64))) AS m, "
     "CAST([1, 2] AS SimpleAggregateFunction(groupArrayArray, Array(UInt8))) AS g")
for kind in ["Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour", "Day", "Week", "Month",
             "Quarter", "Year"]:
    case(f"interval/{kind}", f"SELECT toInterval{kind}(arrayJoin([-9223372036854775808, -1, 0, 5, 9223372036854775807])) AS i")
case("nothing/Array_Nothing", "SELECT [] AS a")
case("nothing/Nullable_Nothing", "SELECT NULL AS n")
case("dynamic/basic", "SELECT arrayJoin([1::Dynamic, 'a'::Dynamic, [1.5]::Dynamic, NULL::Dynamic, toDate(1)::Dynamic]) AS d")
case("dynamic/three_types_max_types_1", "SELECT arrayJoin([1::Dynamic(max_types=1), 'x'::Dynamic(max_types=1), 2.5::Dynamic(max_types=1)]) AS d")
case("dynamic/max_types", "SELECT arrayJoin([1::Dynamic(max_types=1), 'x'::Dynamic(max_types=1)]) AS d")
case("dynamic/in_array", "SELECT [1::Dynamic, 'b'::Dynamic, NULL] AS a, number FROM numbers(3)")
case("dynamic/in_tuple_and_map", "SELECT tuple(number::Dynamic, toString(number)) AS t, map('k', [number]::Dynamic) AS m FROM numbers(4)")
case("dynamic/multi_block", "SELECT if(number % 3 = 0, number::Dynamic, if(number % 3 = 1, toString(number)::Dynamic, NULL)) AS d FROM numbers(30000) SETTINGS max_block_size = 7000")
case("geo/MultiPoint", "SELECT [(0., 0.), (1., 1.)]::MultiPoint AS m")
case("nothing/Array_Nullable_Nothing", "SELECT [NULL, NULL] AS a")


# ---- JSON -----------------------------------------------------------------------------------
case("json/dynamic_paths", "SELECT arrayJoin(['{\"a\":1,\"b\":{\"c\":\"x\"}}', '{\"a\":[1,2],\"d\":null}', '{}'])::JSON AS j")
case("json/nested_and_arrays", "SELECT arrayJoin(['{\"a\":{\"b\":{\"c\":[1,2,3]}},\"s\":\"x\"}', '{\"a\":{\"b\":{\"d\":true}},\"arr\":[{\"k\":1},{\"k\":2}]}', '{\"n\":null,\"f\":-0.5}'])::JSON AS j")
case("json/multi_block", "SELECT concat('{\"id\":', toString(number), if(number % 2 = 0, ',\"even\":true', ',\"odd\":\"y\"'), '}')::JSON AS j FROM numbers(20000) SETTINGS max_block_size = 6000")
case("json/in_tuple", "SELECT tuple(number, concat('{\"v\":', toString(number), '}')::JSON) AS t FROM numbers(3)")
case("json/typed_nullable", "SELECT arrayJoin(['{\"a\":1}', '{}'])::JSON(a Nullable(UInt32), b.c String) AS j")
case("json/typed_paths", "SELECT '{\"a\":1,\"b\":{\"c\":\"x\"},\"z\":1.5}'::JSON(a UInt32, b.c String) AS j")


# ---- Dynamic: values beyond max_types, kept binary-encoded in SharedVariant ------------------
def _rows(*objs):
    """JSONEachRow text of the given rows, as an SQL string literal."""
    import json
    text = "\n".join(json.dumps(o, separators=(",", ":")) for o in objs)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_DYN_VALUES = [
    1, -5, 18446744073709551615, 1.5, -0.0, 1e300, "x", "", "2020-01-01", "2020-01-01 10:00:00", "1.2.3.4",
    "61f0c404-5cb3-11e7-907b-a6006ad3dba0", True, None, [1, 2, 3], [1, None], ["a", None], [], [[1], [2, 3]],
    [1, "a"], {"x": 1, "y": {"z": "w"}}, {}, [{"k": 1}, {"k": 2, "m": "v"}], "é\"\\/\n", 0.1,
]
case("dynamic_shared/inferred_max_types_2", "SELECT * FROM format(JSONEachRow, 'd Dynamic(max_types=2)', "
     + _rows(*({"d": v} for v in _DYN_VALUES)) + ")")
case("dynamic_shared/inferred_max_types_0", "SELECT * FROM format(JSONEachRow, 'd Dynamic(max_types=0)', "
     + _rows(*({"d": v} for v in _DYN_VALUES)) + ")")
_V = "Variant(UInt64, String, Array(UInt64), Date, Float64)"
case("dynamic_shared/max_types_1_many_rows", f"SELECT number AS i, CAST(multiIf(number % 5 = 0, number::{_V}, "
     f"number % 5 = 1, toString(number)::{_V}, number % 5 = 2, range(number % 4)::Array(UInt64)::{_V}, "
     f"number % 5 = 3, toDate(number)::{_V}, number % 7 = 4, (number / 8)::{_V}, NULL) AS Dynamic(max_types=1)) AS d "
     "FROM numbers(3000) SETTINGS max_block_size = 1000")
case("dynamic_shared/variant_max_types_1", "SELECT arrayJoin([1::Int64::Variant(Int64, String, Float64, Array(Int64), Date), "
     "'x', 2.5::Float64, [1, 2]::Array(Int64), toDate(5), NULL])::Dynamic(max_types=1) AS d")
_TYPED = [
    "toUInt8(200)", "toInt8(-100)", "toUInt16(60000)", "toInt16(-30000)", "toUInt32(4000000000)", "toInt32(-2000000000)",
    "toUInt64('18446744073709551615')", "toInt64(-9223372036854775807)", "toUInt128('340282366920938463463374607431768211455')",
    "toInt128(-170141183460469231731687303715884105727)", "toUInt256(12345678901234567890)", "toInt256(-1)",
    "toFloat32(1.25)", "toFloat64(-0.1)", "toBFloat16(1.5)", "toDecimal32(1.5, 2)", "toDecimal64(-123.456, 3)",
    "toDecimal128('12345678901234567.123', 5)", "toDecimal256('-1.5', 40)", "true", "toDate('2149-06-06')",
    "toDate32('1900-01-01')", "toDateTime(1636264800)", "toDateTime(1636264800, 'Asia/Tokyo')", "toDateTime64(1.5, 3)",
    "toDateTime64(-1.25, 6, 'America/New_York')", "toTime('-01:02:03')", "CAST('12:34:56.789' AS Time64(3))",
    "toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')", "toIPv4('1.2.3.4')", "toIPv6('2001:db8::ff00:42:8329')",
    "'str'", "toFixedString('ab', 3)", "CAST('b' AS Enum8('a' = -1, 'b' = 2))", "CAST('y' AS Enum16('x' = 1000, 'y' = -1000))",
    "[1, NULL, 3]", "[[1], []]", "['a', NULL]", "(1, 'x', [2.5])", "CAST((1, 'x') AS Tuple(a UInt8, b String))",
    "map('a', 1, 'b', 2)", "map(1, [NULL, 'x'])", "[toLowCardinality('lc')]", "toLowCardinality(toNullable('lcn'))",
    "[1::Variant(UInt8, String), 'v', NULL]", "[(1, 'a')]::Nested(x UInt8, y String)", "tuple()", "[NULL, NULL]",
    "toIntervalDay(3)", "[toIntervalYear(-1)]", "(1.5, 2.5)::Point", "[(0., 0.), (1., 1.)]::Ring",
    "[[[(0., 0.), (1., 0.), (0., 1.)]]]::MultiPolygon", "((1., 2.)::Point)::Geometry", "[((1., 2.)::Point)::Geometry, NULL]",
    "'{\"a\":1,\"b\":{\"c\":[1,2]}}'::JSON", "['{\"k\":\"v\"}'::JSON(max_dynamic_paths=0)]",
    "CAST(5 AS SimpleAggregateFunction(sum, UInt64))", "[1., -2., 3.5]::QBit(Float32, 3)", "[0.5]::QBit(Float64, 1)", "arrayMap(x -> x * 1.5, range(9))::QBit(BFloat16, 9)",
    "sumState(toUInt64(7))", "[1::Dynamic, 'a'::Dynamic, NULL::Dynamic]",
]
case("dynamic_shared/empty_tuples", "SELECT CAST([tuple()], 'Dynamic(max_types=0)') AS a, CAST([tuple(), tuple()], 'Dynamic(max_types=0)') AS b")
case("dynamic_shared/every_type_one_row", "SELECT " + ", ".join(f"({v})::Dynamic(max_types=0) AS c{i}" for i, v in enumerate(_TYPED)))
case("dynamic_shared/in_array_tuple_map", "SELECT [number::Dynamic(max_types=1), toString(number)::Dynamic(max_types=1), "
     "[number]::Dynamic(max_types=1)] AS a, tuple(toDate(number)::Dynamic(max_types=0), 1) AS t, "
     "map('k', (number * 1.5)::Dynamic(max_types=0)) AS m FROM numbers(5)")

# ---- JSON: paths beyond max_dynamic_paths, kept binary-encoded in shared data ---------------
case("json_shared/max_dynamic_paths_1", "SELECT arrayJoin(['{\"a\":1,\"b\":2,\"c\":3}', '{\"d\":4}'])::JSON(max_dynamic_paths=1) AS j")
_JSON_ROWS = [
    {"a": 1, "b": 2, "c": 3},
    {"d": 4, "e": {"f": [1, 2, None], "g": "2020-01-01", "h": [{"x": 1}, {"y": "z"}]}, "n": None, "dec": 1.25, "s": "str",
     "t": True, "arr": ["a", None], "dt": "2020-01-01 10:00:00", "big": 18446744073709551615, "neg": -5, "mixed": [1, "a"],
     "emptyarr": [], "emptyobj": {}, "ip": "1.2.3.4", "uuid": "61f0c404-5cb3-11e7-907b-a6006ad3dba0", "f": 1e300},
    {"a": "now a string", "deep": {"er": {"est": {"x": [[1, 2], [3]]}}}, "nulls": [None, None], "bools": [True, False]},
    {"dt64": "2020-01-01 10:00:00.123", "date32": "1900-01-01", "neg0": -0.0, "small": 1e-7, "esc": "q\"\\/\n\t",
     "objs": [{"a": {"b": 1}}, {"a": {"c": [1.5]}}], "ints": [1, -1, 18446744073709551615]},
    {},
]
case("json_shared/many_types_max_dynamic_paths_1", "SELECT j FROM format(JSONEachRow, 'j JSON(max_dynamic_paths=1)', "
     + _rows(*({"j": o} for o in _JSON_ROWS)) + ")")
case("json_shared/max_dynamic_paths_0", "SELECT j FROM format(JSONEachRow, 'j JSON(max_dynamic_paths=0)', "
     + _rows(*({"j": o} for o in _JSON_ROWS)) + ")")
case("json_shared/typed_and_shared", "SELECT j FROM format(JSONEachRow, 'j JSON(max_dynamic_paths=2, a.b UInt32, s String)', "
     + _rows({"j": {"a": {"b": 1, "c": 2}, "s": "x", "z": [1], "y": {"q": None}}},
             {"j": {"a": {"d": "e"}, "k1": 1, "k2": 2, "k3": 3}}, {"j": {"s": "only"}}) + ")")
case("json_shared/multi_block", "SELECT concat('{\"id\":', toString(number), ',\"k', toString(number % 7), '\":', "
     "toString(number), if(number % 3 = 0, ',\"arr\":[1,2]', ''), '}')::JSON(max_dynamic_paths=2) AS j "
     "FROM numbers(20000) SETTINGS max_block_size = 6000")
case("json_shared/in_array_and_tuple", "SELECT [concat('{\"a\":', toString(number), ',\"b\":\"x\",\"c\":[', "
     "toString(number), ']}')::JSON(max_dynamic_paths=1)] AS a, tuple(1, '{\"p\":1,\"q\":2}'::JSON(max_dynamic_paths=0)) AS t "
     "FROM numbers(4)")
case("json_shared/dynamic_path_overflowing_max_types", "SELECT j FROM format(JSONEachRow, "
     "'j JSON(max_dynamic_paths=4, max_dynamic_types=1)', " + _rows({"j": {"a": 1}}, {"j": {"a": "s"}}, {"j": {"a": [1.5]}},
                                                                      {"j": {"a": {"n": 1}}}, {"j": {"a": None}}) + ")")

# ---- AggregateFunction: opaque states, carried through unchanged ---------------------------
_G = "FROM numbers(10) GROUP BY k ORDER BY k"
case("aggregate/sum_count_avg", f"SELECT number % 3 AS k, sumState(number) AS s, countState() AS c, avgState(number) AS a {_G}")
case("aggregate/sum_widths", "SELECT sumState(toUInt8(number)) AS u8, sumState(toInt32(number) - 5) AS i32, "
     "sumState(toFloat32(number) / 3) AS f32, sumState(toDecimal32(number, 2)) AS d32, sumState(toDecimal256(number, 3)) AS d256, "
     "sumState(toUInt128(number)) AS u128, sumState(toInt256(number)) AS i256, sumWithOverflowState(toUInt8(number * 50)) AS wo, "
     "sumWithOverflowState(toInt16(number)) AS wo16 FROM numbers(10)")
case("aggregate/avg_types", "SELECT avgState(toInt8(number) - 3) AS i8, avgState(toFloat64(number) / 7) AS f64, "
     "avgState(toDecimal64(number, 4)) AS d64, avgState(toUInt256(number)) AS u256, avgState(toDecimal256(number, 1)) AS d256 FROM numbers(10)")
case("aggregate/min_max_any", f"SELECT number % 3 AS k, minState(number) AS mi, maxState(toString(number)) AS ma, "
     f"anyState(toDate(number)) AS an, anyLastState(toFixedString(toString(number), 3)) AS al, "
     f"minState([number, 1]) AS arr, maxState((number, 'x')) AS tup, minState(toDecimal128(number, 5)) AS dec, "
     f"maxState(toDateTime64(number, 3, 'UTC')) AS dt64, anyState(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')) AS uu {_G}")
case("aggregate/argmin_argmax", f"SELECT number % 3 AS k, argMinState(toString(number), number) AS a, "
     f"argMaxState(number, toString(number)) AS b, argMaxState([number], number * 2) AS c {_G}")
case("aggregate/uniq", f"SELECT number % 3 AS k, uniqState(number) AS u, uniqState(toString(number)) AS us, "
     f"uniqState(number, toString(number)) AS u2 {_G}")
case("aggregate/uniq_many", "SELECT number % 4 AS k, uniqState(number) AS u FROM numbers(100000) GROUP BY k ORDER BY k")
case("aggregate/uniqExact", f"SELECT number % 3 AS k, uniqExactState(number) AS u, uniqExactState(toString(number)) AS s, "
     f"uniqExactState(toUInt8(number)) AS u8, uniqExactState(toDate(number)) AS d, uniqExactState(toDecimal32(number, 1)) AS dec, "
     f"uniqExactState(number, number) AS two, uniqExactState(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')) AS uu {_G}")
case("aggregate/uniqExact_many", "SELECT number % 2 AS k, uniqExactState(number) AS u, uniqExactState(toString(number)) AS s "
     "FROM numbers(50000) GROUP BY k ORDER BY k")
case("aggregate/groupArray", f"SELECT number % 3 AS k, groupArrayState(number) AS g, groupArrayState(toString(number)) AS s, "
     f"groupArrayState([number]) AS a, groupArrayState(2)(number) AS g2, groupArrayState(toDate32(number)) AS d32, "
     f"groupArrayState(CAST(number % 2 + 1 AS Enum16('a' = 1, 'b' = 2))) AS e, groupArrayState(toDecimal64(number, 2)) AS dec {_G}")
case("aggregate/nullable_arguments", f"SELECT number % 3 AS k, sumState(if(number > 5, NULL, number)) AS s, "
     f"countState(if(number > 5, NULL, number)) AS c, avgState(toNullable(number)) AS a, minState(if(number % 3 = 1, NULL, number)) AS mi, "
     f"uniqState(if(number % 3 = 2, NULL, number)) AS u, uniqExactState(toNullable(toString(number))) AS ue, "
     f"groupArrayState(if(number % 2 = 0, NULL, number)) AS g, argMaxState(toNullable(number), number) AS am, "
     f"anyState(if(number > 100, NULL, toString(number))) AS an {_G}")
case("aggregate/if_combinator", f"SELECT number % 3 AS k, sumIfState(number, number % 2 = 0) AS s, countIfState(number > 4) AS c, "
     f"uniqIfState(number, number < 5) AS u, groupArrayIfState(number, number != 3) AS g {_G}")
case("aggregate/empty_groups", "SELECT sumState(number) AS s, countState() AS c, avgState(number) AS a, minState(number) AS mi, "
     "anyState(toString(number)) AS an, argMinState(toString(number), number) AS am, uniqState(number) AS u, "
     "uniqExactState(number) AS ue, groupArrayState(number) AS g, sumState(toNullable(number)) AS sn FROM numbers(0)")
case("aggregate/initializeAggregation", "SELECT number AS i, initializeAggregation('uniqState', number) AS u, "
     "initializeAggregation('sumState', number) AS s, initializeAggregation('groupArrayState', toString(number)) AS g, "
     "initializeAggregation('argMaxState', number, -number) AS a FROM numbers(1000)")
case("aggregate/in_array_and_tuple", f"SELECT number % 3 AS k, [sumState(number), sumState(number + 1)] AS a, "
     f"tuple(countState(), 1) AS t {_G}")
case("aggregate/many_rows_multi_block", "SELECT number % 20000 AS k, sumState(number) AS s, minState(toString(number)) AS m, "
     "groupArrayState(number) AS g FROM numbers(100000) GROUP BY k ORDER BY k SETTINGS max_block_size = 7000")

# ---- QBit: bit-transposed vectors ----------------------------------------------------------
case("qbit/float32", "SELECT [1., 2., 3.]::QBit(Float32, 3) AS q")
case("qbit/all_element_types", "SELECT [1.5, -2., 3., 0.1]::QBit(Float64, 4) AS f64, [1., -0.5]::QBit(BFloat16, 2) AS bf16, "
     "[-0., 1e-40, 3.4028235e38, -1.1754944e-38, 0.1]::QBit(Float32, 5) AS special")
for dim in (1, 7, 8, 9, 17, 64, 100):
    case(f"qbit/dimension_{dim}", f"SELECT number AS i, arrayMap(x -> toFloat32((x + number) / 7 - 3), range({dim}))::QBit(Float32, {dim}) AS q, "
         f"arrayMap(x -> (x * number) / 3, range({dim}))::QBit(Float64, {dim}) AS q64 FROM numbers(50)")
case("qbit/in_array_and_nullable", "SELECT [[1., 2.]::QBit(Float32, 2), [3., 4.]::QBit(Float32, 2)] AS a, "
     "tuple([0.5]::QBit(Float64, 1), 1) AS t FROM numbers(3)")

# ---- Geometry: a Variant of the geometry types ---------------------------------------------
case("geometry/basic", "SELECT arrayJoin([((1., 2.)::Point)::Geometry, ([(0., 0.), (1., 1.)]::LineString)::Geometry]) AS g")
case("geometry/every_kind", "SELECT arrayJoin([((1., 2.)::Point)::Geometry, ([(0., 0.), (1., 1.)]::LineString)::Geometry, "
     "([(0., 0.), (1., 0.), (0., 0.)]::Ring)::Geometry, ([[(0., 0.), (1., 0.), (0., 0.)], []]::Polygon)::Geometry, "
     "([[(0., 0.)], [(2., 2.), (3., 3.)]]::MultiLineString)::Geometry, ([[[(0., 0.), (1., 1.)]]]::MultiPolygon)::Geometry, "
     "([(5., 6.), (7., 8.)]::MultiPoint)::Geometry, NULL]) AS g")
case("geometry/in_array_and_many_rows", "SELECT number AS i, [((number * 1., -1.5)::Point)::Geometry, NULL] AS a, "
     "if(number % 2 = 0, ((number * 1., 0.)::Point)::Geometry, ([(number * 1., 1.)]::LineString)::Geometry) AS g FROM numbers(500)")


# ---- PENDING: the types chwire still refuses ----------------------------------------------
PENDING = []


def pending(name, sql, reason=None):
    PENDING.append((name, sql, reason or "not supported by chwire yet"))


pending("pending/AggregateFunction_quantiles", "SELECT quantilesState(0.5, 0.9)(number) AS q FROM numbers(10)",
        "the state layout of quantiles (a reservoir sample) is not implemented")
pending("pending/AggregateFunction_uniqCombined", "SELECT uniqCombinedState(number) AS u FROM numbers(10)",
        "the state layout of uniqCombined (HyperLogLog with a small-set form) is not implemented")
