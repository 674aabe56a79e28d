//! The format registry against the rig's 18.16 server: every format `chwire query` writes,
//! `chwire insert` reads back into a table of every 18.16 type, to the same contents (an
//! aggregate hash computed by the server); bad values name their line and column, and
//! `--skip-rows` continues without duplicates or gaps.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn url() -> String {
    std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".to_string())
}

/// The rig's native port for clickhouse-client, also when the suite runs over HTTP.
fn native_port() -> String {
    let o = chwire::Options::from_url(&url()).unwrap();
    if o.transport == chwire::Transport::Http {
        return std::env::var("CHWIRE_TEST_TCP_PORT").unwrap_or_else(|_| "19000".into());
    }
    o.port.to_string()
}

fn chwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chwire")).arg("--url").arg(url()).args(args).env_remove("CHWIRE_URL").output().expect("run chwire")
}

fn ok(o: Output) -> String {
    assert!(o.status.success(), "chwire failed: {}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn sql(q: &str) -> String {
    ok(chwire(&["query", "--format", "TSV", q]))
}

/// `INSERT ... SELECT` through ClickHouse's own client (chwire's query path takes an INSERT
/// without rows for one that waits for data blocks).
fn server_insert_select(q: &str) {
    let port = native_port();
    let o = Command::new("clickhouse-client")
        .args(["--host", "127.0.0.1", "--port", &port, "--query", q])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("clickhouse-client is installed by scripts/server.sh");
    assert!(o.status.success(), "{q}: {}", String::from_utf8_lossy(&o.stderr));
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chwire-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every type of the 18.16 server, with an expression that fills it (extremes, NULLs, empty
/// and escaped strings, nested composites).
const TYPES: &[(&str, &str, &str)] = &[
    ("u8", "UInt8", "toUInt8(number % 256)"),
    ("u16", "UInt16", "toUInt16(number * 257 % 65536)"),
    ("u32", "UInt32", "toUInt32(number * 2654435761 % 4294967296)"),
    ("u64", "UInt64", "if(number % 3 = 0, 18446744073709551615, number * 1000003)"),
    ("i8", "Int8", "toInt8(toInt64(number % 256) - 128)"),
    ("i16", "Int16", "toInt16(toInt64(number * 331 % 65536) - 32768)"),
    ("i32", "Int32", "toInt32(toInt64(number * 2654435761 % 4294967296) - 2147483648)"),
    ("i64", "Int64", "if(number % 3 = 0, -9223372036854775808, toInt64(number) * -1000003)"),
    ("f32", "Float32", "toFloat32(number) / 7"),
    ("f64", "Float64", "if(number % 4 = 0, toFloat64('5e-324'), number / 3 - 1e300 * (number % 2))"),
    ("s", "String", "concat('tab\\t nl\\n bs\\\\ q\\' dq\" c, ü🚀 ', toString(number), if(number % 5 = 0, '', 'x'))"),
    ("fs", "FixedString(5)", "toFixedString(toString(number % 1000), 5)"),
    ("d", "Date", "toDate(number * 37 % 65535)"),
    ("dt", "DateTime", "toDateTime(number * 2654435761 % 4294967296)"),
    ("dtz", "DateTime('Asia/Tokyo')", "toDateTime(number * 1000003, 'Asia/Tokyo')"),
    ("e8", "Enum8('a' = -128, 'b\\'q' = 0, 'c' = 127)", "arrayElement(['a', 'b\\'q', 'c'], number % 3 + 1)"),
    ("e16", "Enum16('x' = -32768, 'y' = 32767)", "arrayElement(['x', 'y'], number % 2 + 1)"),
    ("uuid", "UUID", "generateUUIDv4()"),
    ("ns", "Nullable(String)", "if(number % 3 = 0, NULL, toString(number))"),
    ("ni64", "Nullable(Int64)", "if(number % 2 = 0, NULL, toInt64(number) - 5)"),
    ("nd", "Nullable(Decimal(18, 3))", "if(number % 4 = 1, NULL, toDecimal64(number / 8, 3))"),
    ("au64", "Array(UInt64)", "range(number % 4)"),
    ("as", "Array(String)", "arrayMap(x -> concat('a\\'\\\\,\"', toString(x)), range(number % 3))"),
    ("ans", "Array(Nullable(String))", "[NULL, toString(number), '']"),
    ("aau8", "Array(Array(UInt8))", "[arrayMap(x -> toUInt8(x), range(number % 3)), []]"),
    ("adt", "Array(DateTime)", "[toDateTime(number)]"),
    ("nfs", "Nullable(FixedString(2))", "if(number % 2 = 0, NULL, toFixedString('ab', 2))"),
    ("lc", "LowCardinality(String)", "toLowCardinality(toString(number % 7))"),
    ("lcn", "LowCardinality(Nullable(String))", "if(number % 3 = 0, NULL, toString(number % 5))"),
    ("alc", "Array(LowCardinality(String))", "[toString(number % 3), 'x']"),
    ("dec32", "Decimal(9, 4)", "toDecimal32(number / 7, 4)"),
    ("dec64", "Decimal(18, 3)", "toDecimal64(-number * 1000000.5, 3)"),
    ("dec128", "Decimal(38, 20)", "toDecimal128(number, 20)"),
    ("tup", "Tuple(UInt64, String, Array(UInt64))", "(number, concat('t,\\'', toString(number)), [number, 1])"),
    ("nested", "Nested(x UInt8, y String)", ""),
];

/// A table of every type with `rows` rows, made by the server itself.
fn make_source_table(t: &str, rows: u64) {
    let columns = TYPES.iter().map(|(n, ty, _)| format!("`{n}` {ty}")).collect::<Vec<_>>().join(", ");
    sql(&format!("DROP TABLE IF EXISTS {t}"));
    sql(&format!("CREATE TABLE {t} ({columns}) ENGINE = Memory"));
    let names = TYPES.iter().filter(|(_, _, e)| !e.is_empty()).map(|(n, _, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let exprs = TYPES.iter().filter(|(_, _, e)| !e.is_empty()).map(|(_, _, e)| *e).collect::<Vec<_>>().join(", ");
    server_insert_select(&format!(
        "INSERT INTO {t} ({names}, `nested.x`, `nested.y`) SELECT {exprs}, arrayMap(x -> toUInt8(x), range(number % 3)), \
         arrayMap(x -> concat('n', toString(x)), range(number % 3)) FROM system.numbers LIMIT {rows}"
    ));
}

/// The server's hash of a table's contents: every column as text (18.16's cityHash64 takes
/// neither Nullable nor Decimal), xor-ed over the rows, and the row count.
fn contents(t: &str) -> String {
    let cols = sql(&format!("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '{t}'"));
    let hashed = cols.lines().map(|c| format!("toString(`{c}`)")).collect::<Vec<_>>().join(", ");
    sql(&format!("SELECT count(), groupBitXor(cityHash64({hashed})) FROM {t}"))
}

fn insert_file(table: &str, format: &str, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["insert", table, "--format", format, "--input", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    chwire(&args)
}

/// query --format F → file → insert --format F: the same contents, for every text format,
/// every 18.16 type, several blocks.
#[test]
fn text_formats_round_trip_every_type() {
    let src = "chwire_fmt_src";
    make_source_table(src, 3000);
    let want = contents(src);
    assert!(want.starts_with("3000\t"), "{want}");
    for format in ["TSV", "TabSeparatedWithNames", "TSVWithNamesAndTypes", "csv", "CSVWithNames", "CSVWithNamesAndTypes", "JSONEachRow"] {
        let file = scratch(&format!("all.{format}"));
        let out = chwire(&["query", "--format", format, "--setting", "max_block_size=700", &format!("SELECT * FROM {src}")]);
        std::fs::write(&file, ok(out)).unwrap();
        let dst = format!("chwire_fmt_dst_{}", format.to_lowercase());
        sql(&format!("DROP TABLE IF EXISTS {dst}"));
        sql(&format!("CREATE TABLE {dst} AS {src}"));
        let o = insert_file(&dst, format, &file, &["--block-rows", "1000"]);
        assert!(o.status.success(), "{format}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("Inserted 3000 rows"), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(contents(&dst), want, "{format}");
        sql(&format!("DROP TABLE {dst}"));
    }
    sql(&format!("DROP TABLE {src}"));
}

/// query → Parquet/Arrow file → insert: the same contents, for every 18.16 type, in both
/// Arrow mappings, with several row groups and batches.
#[test]
fn parquet_and_arrow_round_trip_every_type() {
    let src = "chwire_fmt_src_bin";
    make_source_table(src, 3000);
    let want = contents(src);
    for format in ["Parquet", "Arrow", "ArrowStream"] {
        for types in ["rich", "clickhouse"] {
            let file = scratch(&format!("all-{types}.{format}"));
            // `--arrow-types`, the flag's old name, still works.
            let flag = if format == "Arrow" { "--arrow-types" } else { "--arrow-mapping" };
            let mut args = vec!["query", "--format", format, flag, types, "--setting", "max_block_size=700"];
            if format == "Parquet" {
                args.extend(["--setting", "output_format_parquet_row_group_size=1000", "--file-compression", "zstd:3"]);
            }
            let select = format!("SELECT * FROM {src}");
            args.push(&select);
            let out = chwire(&args);
            assert!(out.status.success(), "{format} {types}: {}", String::from_utf8_lossy(&out.stderr));
            std::fs::write(&file, &out.stdout).unwrap();
            let dst = format!("chwire_fmt_dst_{}_{types}", format.to_lowercase());
            sql(&format!("DROP TABLE IF EXISTS {dst}"));
            sql(&format!("CREATE TABLE {dst} AS {src}"));
            let o = insert_file(&dst, format, &file, &["--block-rows", "800"]);
            assert!(o.status.success(), "{format} {types}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(contents(&dst), want, "{format} {types}");
            sql(&format!("DROP TABLE {dst}"));
        }
    }
    sql(&format!("DROP TABLE {src}"));
}

/// A Parquet file whose column does not convert to the table's type: an error naming the
/// column and both types, nothing inserted; `--skip-rows` slices batches exactly.
#[test]
fn parquet_insert_checks_types_and_skips_rows() {
    let t = "chwire_fmt_pq_skip";
    let file = scratch("skip.parquet");
    let out = chwire(&[
        "query",
        "--format",
        "Parquet",
        "--setting",
        "max_block_size=300",
        "SELECT number AS id, toString(number) AS s FROM system.numbers LIMIT 2500",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&file, &out.stdout).unwrap();
    sql(&format!("DROP TABLE IF EXISTS {t}"));
    sql(&format!("CREATE TABLE {t} (id UInt64, s UInt8) ENGINE = Memory"));
    let o = insert_file(t, "parquet", &file, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("s") && err.contains("UInt8") && err.contains("nothing was inserted"), "{err}");
    sql(&format!("DROP TABLE {t}"));
    sql(&format!("CREATE TABLE {t} (id UInt64, s String) ENGINE = Memory"));
    ok(insert_file(t, "Parquet", &file, &["--skip-rows", "1234", "--block-rows", "1000"]));
    assert_eq!(sql(&format!("SELECT count(), min(id), max(id), countIf(s != toString(id)) FROM {t}")), "1266\t1234\t2499\t0\n");
    let o = chwire(&["insert", t, "--format", "Parquet"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--input"), "{}", String::from_utf8_lossy(&o.stderr));
    sql(&format!("DROP TABLE {t}"));
}

/// Infinities and NaN (which JSON has no numbers for) through TSV and CSV.
#[test]
fn non_finite_floats_round_trip_in_tsv_and_csv() {
    let t = "chwire_fmt_floats";
    sql(&format!("DROP TABLE IF EXISTS {t}"));
    sql(&format!("CREATE TABLE {t} (f Float64, g Float32, n Nullable(Float64)) ENGINE = Memory"));
    server_insert_select(&format!("INSERT INTO {t} SELECT arrayJoin([1/0, -1/0, 0/0, -0., 1.5]) AS f, toFloat32(f), f"));
    for format in ["TSV", "CSV"] {
        let file = scratch(&format!("floats.{format}"));
        std::fs::write(&file, ok(chwire(&["query", "--format", format, &format!("SELECT * FROM {t}")]))).unwrap();
        ok(insert_file(t, format, &file, &[]));
    }
    // 5 rows, then 5 more through TSV, then those 10 through CSV.
    for c in ["f", "g", "n"] {
        let q = format!(
            "SELECT countIf(isInfinite({c}) AND {c} > 0), countIf(isInfinite({c}) AND {c} < 0), countIf(isNaN({c})), \
             countIf({c} = 0 AND 1 / {c} < 0), countIf({c} = 1.5) FROM {t}"
        );
        assert_eq!(sql(&q), "4\t4\t4\t4\t4\n", "{c}");
    }
    sql(&format!("DROP TABLE {t}"));
}

/// A bad value: the error names the line and the column, the blocks before it are committed
/// and nothing of its block; `--skip-rows` (as the error says) continues exactly.
#[test]
fn bad_values_name_line_and_column_and_skip_rows_continues() {
    let t = "chwire_fmt_skip";
    sql(&format!("DROP TABLE IF EXISTS {t}"));
    sql(&format!("CREATE TABLE {t} (id UInt32, v UInt8, s String) ENGINE = Memory"));
    let mut csv = String::from("id,v,s\n");
    for i in 1..=2500u32 {
        let v = if i == 1234 { "300".to_string() } else { (i % 200).to_string() };
        csv.push_str(&format!("{i},{v},\"multi\nline {i}\"\n"));
    }
    let file = scratch("skip.csv");
    std::fs::write(&file, &csv).unwrap();
    let o = insert_file(t, "CSVWithNames", &file, &["--block-rows", "500"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    // Row 1234 starts on line 1 + 2 * 1233 + 1 (each row spans two lines).
    assert!(err.contains("line 2468") && err.contains("column `v` (UInt8)") && err.contains("300"), "{err}");
    assert!(err.contains("1000 rows were inserted") && err.contains("--skip-rows 1000"), "{err}");
    assert_eq!(sql(&format!("SELECT count(), max(id) FROM {t}")), "1000\t1000\n");

    std::fs::write(&file, csv.replace("1234,300,", "1234,34,")).unwrap();
    ok(insert_file(t, "CSVWithNames", &file, &["--block-rows", "500", "--skip-rows", "1000"]));
    assert_eq!(
        sql(&format!("SELECT count(), uniqExact(id), min(id), max(id), sum(v) FROM {t}")),
        format!("2500\t2500\t1\t2500\t{}\n", (1..=2500u32).map(|i| i % 200).sum::<u32>())
    );

    // Unparsable text, in each text format: line and column named, nothing inserted.
    for (format, text, line, col) in [
        ("TSV", "1\t2\tx\n2\tnope\ty\n", "line 2", "`v`"),
        ("CSV", "1,2,x\n2,3\n", "line 2", "2 fields, expected 3"),
        ("JSONEachRow", "{\"id\":1,\"v\":2,\"s\":\"x\"}\n\n{\"id\":-1,\"v\":2,\"s\":\"x\"}\n", "line 3", "`id`"),
        ("TSVWithNames", "id\tv\ts\n1\t2\t3\n\\N\t1\tx\n", "line 3", "NULL does not fit"),
    ] {
        let file = scratch(&format!("bad.{format}"));
        std::fs::write(&file, text).unwrap();
        let o = insert_file(t, format, &file, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{format}: {err}");
        assert!(err.contains(line) && err.contains(col), "{format}: {err}");
    }
    assert_eq!(sql(&format!("SELECT count() FROM {t}")), "2500\n");
    sql(&format!("DROP TABLE {t}"));
}

/// `convert` reads text by `--structure` and writes every output format; the names of the
/// registry work in any case for every subcommand.
#[test]
fn convert_text_by_structure_and_names_in_any_case() {
    let input = scratch("conv.tsv");
    std::fs::write(&input, "1\ta\\tb\t[1,2]\t2020-01-02 03:04:05\n2\t\\N\t[]\t1970-01-01 00:00:00\n").unwrap();
    let structure = "id UInt64, s Nullable(String), a Array(UInt8), t DateTime";
    let native = scratch("conv.native");
    ok(chwire(&[
        "convert",
        "--from",
        "tabseparated",
        "--to",
        "NATIVE",
        "-S",
        structure,
        "-i",
        input.to_str().unwrap(),
        "-o",
        native.to_str().unwrap(),
    ]));
    let back = ok(chwire(&["convert", "--from", "native", "--to", "tsv", "-i", native.to_str().unwrap()]));
    assert_eq!(back, std::fs::read_to_string(&input).unwrap());
    let json = ok(chwire(&["convert", "--from", "TSV", "--to", "jsoneachrow", "--structure", structure, "-i", input.to_str().unwrap()]));
    assert_eq!(json.lines().next().unwrap(), r#"{"id":1,"s":"a\tb","a":[1,2],"t":"2020-01-02 03:04:05"}"#);
    let o = chwire(&["convert", "--from", "CSV", "--to", "TSV", "-i", input.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--structure"));
    let o = chwire(&["convert", "--from", "Pretty", "--to", "TSV"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("output format only"));
}

/// DateTime (rich: a timestamp in seconds, which Parquet has no type for) goes to Parquet in
/// milliseconds with its zone, as ClickHouse 26.9 writes it, so that every reader sees a time
/// (parquet-rs alone wrote a bare INT64); chwire reads it back to DateTime.
#[test]
fn datetime_goes_to_parquet_as_a_timestamp() {
    let input = scratch("dt.tsv");
    std::fs::write(&input, "2020-01-01 00:00:00\t['1970-01-02 00:00:01']\n").unwrap();
    let parquet = scratch("dt.parquet");
    let structure = "t DateTime('UTC'), a Array(DateTime('Asia/Kolkata'))";
    let i = input.to_str().unwrap();
    let p = parquet.to_str().unwrap();
    ok(chwire(&["convert", "--from", "TSV", "-S", structure, "--to", "Parquet", "-i", i, "-o", p]));
    let file = parquet::file::reader::SerializedFileReader::new(std::fs::File::open(&parquet).unwrap()).unwrap();
    let schema = parquet::file::reader::FileReader::metadata(&file).file_metadata().schema_descr_ptr();
    for leaf in schema.columns() {
        let logical = leaf.logical_type_ref().cloned();
        let millis_utc = matches!(&logical, Some(parquet::basic::LogicalType::Timestamp(t))
            if t.is_adjusted_to_u_t_c && matches!(t.unit, parquet::basic::TimeUnit::MILLIS));
        assert!(millis_utc, "{}: {logical:?}", leaf.path());
    }
    let back = ok(chwire(&["convert", "--from", "Parquet", "--to", "TSVWithNamesAndTypes", "-i", p]));
    assert_eq!(back, "t\ta\nDateTime(\\'UTC\\')\tArray(DateTime(\\'Asia/Kolkata\\'))\n2020-01-01 00:00:00\t['1970-01-02 00:00:01']\n");
}

/// `...WithNamesAndTypes` (and `...WithNames` for empty results): written as ClickHouse 26.9 writes them (the header lines below are
/// chdb 26.9's for this input, byte for byte, as is the rest of the text: a tuple's elements
/// are CSV fields of their own, typed by element); read back by the types they declare (no
/// `--structure` needed), and checked against the target's types when there is one.
#[test]
fn names_and_types_formats_declare_their_columns() {
    let input = scratch("nt.tsv");
    std::fs::write(&input, "1\ta\\tb\t(1,'x')\t2020-01-02 03:04:05\t[(1,'y')]\n2\t\\N\t(2,'')\t1970-01-01 00:00:00\t[]\n").unwrap();
    let structure = "id UInt64, s Nullable(String), t Tuple(p UInt8, q String), d DateTime('UTC'), a Array(Tuple(UInt8, String))";
    let path = input.to_str().unwrap();
    let csv = ok(chwire(&["convert", "--from", "TSV", "-S", structure, "--to", "CSVWithNamesAndTypes", "-i", path]));
    assert_eq!(
        csv,
        "\"id\",\"s\",\"t.p\",\"t.q\",\"d\",\"a\"\n\"UInt64\",\"Nullable(String)\",\"UInt8\",\"String\",\"DateTime('UTC')\",\"Array(Tuple(UInt8, String))\"\n\
         1,\"a\tb\",1,\"x\",\"2020-01-02 03:04:05\",\"[(1,'y')]\"\n2,\\N,2,\"\",\"1970-01-01 00:00:00\",\"[]\"\n"
    );
    let tsv = ok(chwire(&["convert", "--from", "TSV", "-S", structure, "--to", "TabSeparatedWithNamesAndTypes", "-i", path]));
    let (header, rows) = tsv.split_at(tsv.find("\n1\t").unwrap() + 1);
    assert_eq!(
        header,
        "id\ts\tt\td\ta\nUInt64\tNullable(String)\tTuple(p UInt8, q String)\tDateTime(\\'UTC\\')\tArray(Tuple(UInt8, String))\n"
    );
    assert_eq!(rows, std::fs::read_to_string(&input).unwrap());
    // A result without rows still has its header lines (as ClickHouse writes them), and so
    // does a conversion of an empty input. (Over HTTP, 18.16 sends no block at all for an
    // empty result, so there is no header to write.)
    let empty = ok(chwire(&["query", "--format", "CSVWithNamesAndTypes", "SELECT 1 AS a, 'x' AS b WHERE 0"]));
    if !url().starts_with("http") {
        assert_eq!(empty, "\"a\",\"b\"\n\"UInt8\",\"String\"\n");
    }
    let nothing = scratch("nothing.tsv");
    std::fs::write(&nothing, "").unwrap();
    let empty = ok(chwire(&["convert", "--from", "TSV", "-S", "a UInt8", "--to", "TSVWithNames", "-i", nothing.to_str().unwrap()]));
    assert_eq!(empty, "a\n");
    for (format, text) in [("CSVWithNamesAndTypes", &csv), ("TSVWithNamesAndTypes", &tsv)] {
        let file = scratch(&format!("nt.{format}"));
        std::fs::write(&file, text).unwrap();
        let file = file.to_str().unwrap();
        // By the declared types (CSV: the tuple's fields are columns of their own), and by a structure.
        let declared = ok(chwire(&["convert", "--from", format, "--to", "JSONEachRow", "-i", file]));
        let first = if format.starts_with("CSV") {
            r#"{"id":1,"s":"a\tb","t.p":1,"t.q":"x","d":"2020-01-02 03:04:05","a":[[1,"y"]]}"#
        } else {
            r#"{"id":1,"s":"a\tb","t":{"p":1,"q":"x"},"d":"2020-01-02 03:04:05","a":[[1,"y"]]}"#
        };
        assert_eq!(declared.lines().next().unwrap(), first, "{format}");
        let back = ok(chwire(&["convert", "--from", format, "-S", structure, "--to", "TSV", "-i", file]));
        assert_eq!(back, std::fs::read_to_string(&input).unwrap(), "{format}");
        let o = chwire(&["convert", "--from", format, "-S", &structure.replace("id UInt64", "id UInt32"), "--to", "TSV", "-i", file]);
        assert_eq!(o.status.code(), Some(2), "{format}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("line 2: column id: the types line says UInt64, the target column is UInt32"), "{format}: {err}");
    }
}

/// An input without rows converts to an empty file of the columns it declares (a Parquet or
/// Arrow schema, a header with types), in every format, not to nothing; an input that declares
/// none cannot make a Parquet or Arrow file (an error, and no file is left behind).
#[test]
fn empty_inputs_convert_to_empty_files_of_their_columns() {
    let header = scratch("empty.csv");
    std::fs::write(&header, "\"a\",\"s\"\n\"UInt8\",\"Nullable(String)\"\n").unwrap();
    let mut from = ("CSVWithNamesAndTypes", header);
    for to in ["Parquet", "Arrow", "ArrowStream", "Parquet"] {
        let out = scratch(&format!("empty-from-{}.{to}", from.0));
        ok(chwire(&["convert", "--from", from.0, "--to", to, "-i", from.1.to_str().unwrap(), "-o", out.to_str().unwrap()]));
        assert!(std::fs::metadata(&out).unwrap().len() > 0, "{} -> {to}: an empty file", from.0);
        from = (to, out);
    }
    let back = ok(chwire(&["convert", "--from", "Parquet", "--to", "CSVWithNamesAndTypes", "-i", from.1.to_str().unwrap()]));
    assert_eq!(back, "\"a\",\"s\"\n\"UInt8\",\"Nullable(String)\"\n");
    let nothing = scratch("empty.native");
    std::fs::write(&nothing, "").unwrap();
    let out = scratch("from-nothing.parquet");
    let o = chwire(&["convert", "--from", "Native", "--to", "Parquet", "-i", nothing.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("declares no columns"));
    assert!(!out.exists(), "no partial file is left");
    // Nor after a value that fails halfway through a file.
    let bad = scratch("bad.tsv");
    std::fs::write(&bad, "1\n2\nx\n").unwrap();
    let out = scratch("bad.parquet");
    let o =
        chwire(&["convert", "--from", "TSV", "-S", "a UInt8", "--to", "Parquet", "-i", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists(), "no partial file is left");
}

/// `chwire bench W5` creates its table when it is missing.
#[test]
fn bench_w5_creates_its_table() {
    let t = "chwire_fmt_w5";
    sql(&format!("DROP TABLE IF EXISTS {t}"));
    let out = ok(chwire(&["bench", "W5", "--table", t]));
    assert!(out.contains("rows=10000000") && out.contains("check=49999995000000"), "{out}");
    assert_eq!(sql(&format!("SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = '{t}'")), "Null\n");
    sql(&format!("DROP TABLE {t}"));
}
