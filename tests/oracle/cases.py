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


# ---- PENDING: the types chwire still refuses ----------------------------------------------
PENDING = []


def pending(name, sql, reason=None):
    PENDING.append((name, sql, reason or "not supported by chwire yet"))


case("json/dynamic_paths", "SELECT arrayJoin(['{\"a\":1,\"b\":{\"c\":\"x\"}}', '{\"a\":[1,2],\"d\":null}', '{}'])::JSON AS j")
case("json/nested_and_arrays", "SELECT arrayJoin(['{\"a\":{\"b\":{\"c\":[1,2,3]}},\"s\":\"x\"}', '{\"a\":{\"b\":{\"d\":true}},\"arr\":[{\"k\":1},{\"k\":2}]}', '{\"n\":null,\"f\":-0.5}'])::JSON AS j")
case("json/multi_block", "SELECT concat('{\"id\":', toString(number), if(number % 2 = 0, ',\"even\":true', ',\"odd\":\"y\"'), '}')::JSON AS j FROM numbers(20000) SETTINGS max_block_size = 6000")
case("json/in_tuple", "SELECT tuple(number, concat('{\"v\":', toString(number), '}')::JSON) AS t FROM numbers(3)")
case("json/typed_nullable", "SELECT arrayJoin(['{\"a\":1}', '{}'])::JSON(a Nullable(UInt32), b.c String) AS j")
case("json/typed_paths", "SELECT '{\"a\":1,\"b\":{\"c\":\"x\"},\"z\":1.5}'::JSON(a UInt32, b.c String) AS j")
pending("pending/JSON_shared_data", "SELECT arrayJoin(['{\"a\":1,\"b\":2,\"c\":3}', '{\"d\":4}'])::JSON(max_dynamic_paths=1) AS j",
        "paths beyond max_dynamic_paths are stored binary-encoded in shared data")
pending("pending/Geometry", "SELECT arrayJoin([((1., 2.)::Point)::Geometry, ([(0., 0.), (1., 1.)]::LineString)::Geometry]) AS g")
pending("pending/QBit", "SELECT [1., 2., 3.]::QBit(Float32, 3) AS q")
pending("pending/AggregateFunction_sum", "SELECT sumState(number) AS s FROM numbers(10)")
pending("pending/AggregateFunction_uniq", "SELECT uniqState(number) AS u FROM numbers(10)")
