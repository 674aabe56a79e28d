-- How duckdb_types.parquet was written (DuckDB 2.0.1, from PyPI):
--   python -c "import duckdb; duckdb.sql(open('duckdb_types.sql').read())"
-- Types as DuckDB writes them to Parquet; parquet.py's `foreign` check converts the file with
-- chwire and compares with chdb reading it. TIME is left out: ClickHouse 26.9 reads it as a
-- DateTime64 on 1970-01-01, chwire as Time64 (docs/ARROW.md).
COPY (
  SELECT i::INTEGER AS i,
    CASE WHEN i % 3 = 2 THEN NULL ELSE INTERVAL (i) MONTH + INTERVAL (i * 2) DAY + INTERVAL (i * 3) MILLISECOND END AS iv,
    [CASE WHEN i = 1 THEN NULL ELSE INTERVAL (i * 13) MONTH END] AS ivs,
    [i, i + 1] AS l, i::HUGEINT * 100000000000000000000 AS h, i::UHUGEINT AS uh,
    ('cdb6a3c2-0000-4000-8000-00000000000' || i::VARCHAR)::UUID AS u,
    TIMESTAMPTZ '2024-01-02 03:04:05.123456+00' + INTERVAL (i) HOUR AS tz,
    TIMESTAMP '2024-01-02 03:04:05' + INTERVAL (i) SECOND AS ts,
    TIMESTAMP_NS '2024-01-02 03:04:05.123456789' AS tns, TIMESTAMP_MS '2024-01-02 03:04:05.123' AS tms,
    DATE '2024-02-29' + i::INTEGER AS d, (i / 7)::DECIMAL(18, 4) AS dec, (i / 3)::DECIMAL(38, 10) AS dec38,
    {'a': i, 'b': 'x' || i::VARCHAR} AS st, MAP {'k' || i::VARCHAR: i} AS m, 'bytes\x00\xFF'::BLOB AS b,
    i::TINYINT AS ti, i::UTINYINT AS uti, i::USMALLINT AS us, i::UINTEGER AS ui, i::UBIGINT AS ub,
    (i % 2 = 0) AS bo, i::FLOAT AS fl, i / 4 AS db, [[i], [i, i]] AS ll, [{'x': i}] AS ls,
    CASE WHEN i = 3 THEN NULL ELSE 'v' || i::VARCHAR END AS s
  FROM range(5) t(i)
) TO 'duckdb_types.parquet' (FORMAT parquet);
