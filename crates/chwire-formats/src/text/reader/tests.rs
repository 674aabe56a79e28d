use super::*;

fn source(format: TextFormat, text: impl AsRef<[u8]>) -> TextSource {
    TextSource::new(format, Box::new(std::io::Cursor::new(text.as_ref().to_vec())), None, BlockLimits::default())
}

#[test]
fn a_column_given_twice_is_an_error_and_a_byte_order_mark_is_skipped() {
    let target = vec![("a".to_string(), DataType::parse("UInt8").unwrap()), ("b".into(), DataType::parse("String").unwrap())];
    let mut s = source(TextFormat::CsvWithNames, "a,a\n1,2\n");
    assert!(s.bind(&target).unwrap_err().to_string().contains("column \"a\" is named twice"));
    let mut s = source(TextFormat::Jsonl, "{\"a\":1,\"a\":2}\n");
    s.bind(&target).unwrap();
    assert!(s.next_block().unwrap_err().to_string().contains("column \"a\" appears twice"));
    for (format, text) in [
        (TextFormat::CsvWithNames, "\u{feff}a,b\n1,x\n"),
        (TextFormat::Tsv, "\u{feff}1\tx\n"),
        (TextFormat::Jsonl, "\u{feff}{\"a\":1,\"b\":\"x\"}\n"),
    ] {
        let mut s = source(format, text);
        s.bind(&target).unwrap();
        let b = s.next_block().unwrap().unwrap();
        assert_eq!(b.column("a").unwrap().value(0), Value::UInt(1), "{format}");
    }
    // TSV: a backslash before a newline escapes it (the value holds a newline).
    let mut s = source(TextFormat::Tsv, "1\tline\\\nbreak\n2\tx\\\\\n");
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    assert_eq!(b.rows(), 2);
    assert_eq!(b.column("b").unwrap().value(0), Value::String(b"line\nbreak"));
    assert_eq!(b.column("b").unwrap().value(1), Value::String(b"x\\"));
    // Unknown members: an error, or left out with input_format_skip_unknown_fields.
    let mut s = source(TextFormat::Jsonl, "{\"a\":1,\"zz\":2}\n");
    s.bind(&target).unwrap();
    assert!(s.next_block().unwrap_err().to_string().contains("no column \"zz\""));
    let mut s = source(TextFormat::Jsonl, "{\"a\":1,\"zz\":[2]}\n").skip_unknown_fields(true);
    s.bind(&target).unwrap();
    assert_eq!(s.next_block().unwrap().unwrap().column("a").unwrap().value(0), Value::UInt(1));
    // A short input that is no mark reaches the parser whole.
    let mut s = source(TextFormat::Tsv, "7\t\n");
    s.bind(&target).unwrap();
    assert_eq!(s.next_block().unwrap().unwrap().column("a").unwrap().value(0), Value::UInt(7));
}

#[test]
fn types_lines_must_match_their_names_and_parse() {
    // As many types as names.
    let err = source(TextFormat::TsvWithNamesAndTypes, "a\tb\nUInt8\n1\t2\n").next_block().unwrap_err().to_string();
    assert!(err.contains("line 2: 1 types for 2 names"), "{err}");
    // A type chwire does not know: an error naming it before any value is taken.
    let err = source(TextFormat::CsvWithNamesAndTypes, "a\nUInt9\n1\n").next_block().unwrap_err().to_string();
    assert!(err.contains("line 2: column a: no type UInt9 that chwire knows"), "{err}");
    // Names without types; no header at all (an empty input is no rows).
    let err = source(TextFormat::CsvWithNamesAndTypes, "a\n").next_block().unwrap_err().to_string();
    assert!(err.contains("not followed by a types line"), "{err}");
    let err = source(TextFormat::CsvWithNamesAndTypes, "").next_block().unwrap_err().to_string();
    assert!(err.contains("--structure"), "{err}");
    // Declared types make the columns; a bound target of other types is refused.
    let mut s = source(TextFormat::TsvWithNamesAndTypes, "a\tb\nUInt8\tNullable(String)\n1\t\\N\n");
    let b = s.next_block().unwrap().unwrap();
    assert_eq!(
        crate::io::columns_of(&b),
        [("a".to_string(), DataType::parse("UInt8").unwrap()), ("b".into(), DataType::parse("Nullable(String)").unwrap())]
    );
    let mut s = source(TextFormat::TsvWithNamesAndTypes, "a\tb\nUInt8\tString\n1\tx\n");
    let target = [("b".to_string(), DataType::parse("String").unwrap()), ("a".to_string(), DataType::parse("UInt16").unwrap())];
    let err = s.bind(&target).unwrap_err().to_string();
    assert!(err.contains("column a: the types line says UInt8, the target column is UInt16"), "{err}");
}

/// As ClickHouse 26.9 reads `1,,\n2,"",""` (chdb, `input_format_csv_empty_as_default` on,
/// its default): an empty unquoted field is the column's default, NULL for every Nullable
/// (strings included); a quoted "" is the empty string.
#[test]
fn empty_csv_fields_are_the_default_and_quoted_ones_empty_strings() {
    let target = vec![
        ("a".to_string(), DataType::parse("Nullable(String)").unwrap()),
        ("b".into(), DataType::parse("String").unwrap()),
        ("c".into(), DataType::parse("Nullable(FixedString(2))").unwrap()),
        ("d".into(), DataType::parse("LowCardinality(Nullable(String))").unwrap()),
        ("e".into(), DataType::parse("Nullable(Int32)").unwrap()),
        ("f".into(), DataType::parse("UInt8").unwrap()),
    ];
    let mut s = source(TextFormat::Csv, ",,,,,\n\"\",\"\",\"\",\"\",7,1\n");
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    let row = |r: usize| b.columns().iter().map(|(_, c)| c.value(r)).collect::<Vec<_>>();
    assert_eq!(row(0), [Value::Null, Value::String(b""), Value::Null, Value::Null, Value::Null, Value::UInt(0)]);
    assert_eq!(row(1)[..3], [Value::String(b""), Value::String(b""), Value::FixedString(b"\0\0")]);
    assert_eq!(row(1)[3], Value::String(b""));
}

/// As ClickHouse 26.9 reads a quoted empty field (chdb, `file('x.csv', CSV, 'a UInt8, b T')` of
/// `1,""`): 0 for integers and decimals, Nullable ones too; an error for floats, dates, UUIDs.
#[test]
fn a_quoted_empty_csv_field_is_zero_for_integers_and_decimals_only() {
    for (ty, want) in [
        ("Int32", Value::Int(0)),
        ("UInt8", Value::UInt(0)),
        ("Nullable(Int32)", Value::Int(0)),
        ("Int128", Value::Int128(0)),
        ("LowCardinality(UInt16)", Value::UInt(0)),
    ] {
        let target = vec![("a".to_string(), DataType::parse("UInt8").unwrap()), ("b".into(), DataType::parse(ty).unwrap())];
        let mut s = source(TextFormat::Csv, "1,\"\"\n");
        s.bind(&target).unwrap();
        let b = s.next_block().unwrap().unwrap();
        assert_eq!(b.columns()[1].1.value(0), want, "{ty}");
    }
    let target =
        vec![("a".to_string(), DataType::parse("UInt8").unwrap()), ("b".into(), DataType::parse("Nullable(Decimal(9, 2))").unwrap())];
    let mut s = source(TextFormat::Csv, "1,\"\"\n");
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    assert_eq!(
        format!("{:?}", b.columns()[1].1.value(0)),
        format!("{:?}", parse::default_value(&DataType::parse("Decimal(9, 2)").unwrap()).unwrap())
    );
    assert_ne!(b.columns()[1].1.value(0), Value::Null);
    for ty in ["Float64", "Date", "UUID", "Bool", "DateTime"] {
        let target = vec![("a".to_string(), DataType::parse("UInt8").unwrap()), ("b".into(), DataType::parse(ty).unwrap())];
        let mut s = source(TextFormat::Csv, "1,\"\"\n");
        s.bind(&target).unwrap();
        assert!(s.next_block().is_err(), "{ty}");
    }
}

/// ClickHouse 26.9's CSVWithNames of `CAST((1, 'a') AS Tuple(a UInt8, b String)) AS tu,
/// ((1, 2), 3) AS n, 2 AS x` (chdb): a tuple's elements are named fields of their own.
#[test]
fn csv_names_of_tuple_elements_bind_to_the_tuple() {
    let text = b"\"tu.a\",\"tu.b\",\"n.1.1\",\"n.1.2\",\"n.2\",\"x\"\n1,\"a\",1,2,3,2\n".to_vec();
    let target = crate::parse_structure("x UInt8, n Tuple(Tuple(UInt8, UInt8), UInt8), tu Tuple(a UInt8, b String)").unwrap();
    let mut s = TextSource::new(TextFormat::CsvWithNames, Box::new(std::io::Cursor::new(text)), None, BlockLimits::default());
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    let row: Vec<String> = b.columns().iter().map(|(_, c)| format!("{:?}", c.value(0))).collect();
    assert_eq!(row[0], "UInt(2)");
    assert!(row[2].contains("UInt(1)") && row[2].contains("String([97])"), "{row:?}");
    // Written back with the names ClickHouse gives the elements.
    let mut out = Vec::new();
    let mut w = crate::text::writer::Writer::new(crate::text::writer::TextFormat::CsvWithNames, None);
    w.write_block(&b, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "\"x\",\"n.1.1\",\"n.1.2\",\"n.2\",\"tu.a\",\"tu.b\"\n2,1,2,3,1,\"a\"\n");
    // A name that is neither a column nor a whole tuple's elements is an error.
    let partial = b"\"tu.a\",\"x\"\n1,2\n".to_vec();
    let mut s = TextSource::new(TextFormat::CsvWithNames, Box::new(std::io::Cursor::new(partial)), None, BlockLimits::default());
    assert!(s.bind(&target).unwrap_err().to_string().contains("no column \"tu.a\""));
    // ClickHouse 26.9's CSVWithNames of an empty tuple and of a Nullable(Tuple) inside a
    // tuple (chdb): one field each; read and written back byte for byte.
    for (structure, text) in [
        ("t Tuple(), x UInt8", "\"t\",\"x\"\n,1\n"),
        ("t Tuple(UInt8, Nullable(Tuple(UInt8, UInt8))), x UInt8", "\"t.1\",\"t.2\",\"x\"\n1,\"(2,3)\",1\n1,\\N,1\n"),
    ] {
        let target = crate::parse_structure(structure).unwrap();
        let mut s = TextSource::new(
            TextFormat::CsvWithNames,
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            None,
            BlockLimits::default(),
        );
        s.bind(&target).unwrap();
        let b = s.next_block().unwrap().unwrap();
        let mut out = Vec::new();
        crate::text::writer::Writer::new(crate::text::writer::TextFormat::CsvWithNames, None).write_block(&b, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text, "{structure}");
    }
    // Nested columns of a table are named `n.x` themselves: they bind by their own names.
    let table = crate::parse_structure("`n.x` Array(UInt8), `n.y` Array(String), t Tuple(x UInt8)").unwrap();
    let names: Vec<String> = ["t.x", "n.y", "n.x"].map(String::from).to_vec();
    assert_eq!(columns_of_names(TextFormat::CsvWithNames, &names, &table).unwrap(), [2, 1, 0]);
    assert!(columns_of_names(TextFormat::TsvWithNames, &names, &table).is_err(), "TSV writes a tuple as one field");
}

/// A JSON string that is not UTF-8 is its bytes, as ClickHouse reads it (the expected bytes are
/// chdb 26.9's for the same lines): in a String, in an Array(String), beside escapes; a line
/// that also has a surrogate escape of its own, a backslash before an invalid byte or an
/// invalid byte outside a string is refused, and so is a key that is not UTF-8.
#[test]
fn json_strings_that_are_not_utf8_are_their_bytes() {
    let target = vec![("s".to_string(), DataType::parse("String").unwrap()), ("a".into(), DataType::parse("Array(String)").unwrap())];
    let mut s = source(TextFormat::Jsonl, b"{\"s\":\"a\xffb\",\"a\":[\"\xfe\",\"x\\n\xc3\"]}\n{\"s\":\"\xc3\xa9\\u00e9\\\\\xff\",\"a\":[]}\n{\"s\":\"plain\",\"a\":[\"\\u00e9\"]}\n");
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    let col = |name, row| b.column(name).unwrap().value(row);
    assert_eq!(col("s", 0), Value::String(b"a\xffb"));
    assert_eq!(col("a", 0), Value::Array(vec![Value::String(b"\xfe"), Value::String(b"x\n\xc3")]));
    assert_eq!(col("s", 1), Value::String(b"\xc3\xa9\xc3\xa9\\\xff"));
    assert_eq!(col("s", 2), Value::String(b"plain"));
    assert_eq!(col("a", 2), Value::Array(vec![Value::String("é".as_bytes())]));
    for (line, why) in [
        (&b"{\"s\":\"\\uDC80\xff\"}\n"[..], "surrogate escapes of its own"),
        (b"{\"s\":\"\\\xff\"}\n", "not a JSON"),
        (b"{\"s\":\xff\"a\"}\n", "not a JSON object"),
        (b"{\"s\xff\":\"a\"}\n", "not a JSON object"),
    ] {
        let mut s = source(TextFormat::Jsonl, line);
        s.bind(&target).unwrap();
        let e = s.next_block().unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("line 1"), "{line:?}: {e}");
    }
}

/// As the 18.16 server and ClickHouse 26.9 read them: a quote inside an unquoted CSV field is
/// a character of it (`12" pipe`), the newline after it ends the row; `""` inside a quoted
/// field is one quote, and a quoted field may hold a newline. Rows split over reads too.
#[test]
fn a_quote_inside_an_unquoted_csv_field_is_a_character() {
    let one = vec![("s".to_string(), DataType::parse("String").unwrap())];
    let mut s = source(TextFormat::Csv, "12\" pipe\n3\" bolt\nwasher\n\"a\"\"\nb\"\n");
    s.bind(&one).unwrap();
    let b = s.next_block().unwrap().unwrap();
    let got: Vec<_> = (0..b.rows()).map(|r| b.column("s").unwrap().value(r)).collect();
    assert_eq!(got, [Value::String(b"12\" pipe"), Value::String(b"3\" bolt"), Value::String(b"washer"), Value::String(b"a\"\nb")]);
    let three = vec![
        ("a".to_string(), DataType::parse("Int32").unwrap()),
        ("s".into(), DataType::parse("String").unwrap()),
        ("n".into(), DataType::parse("String").unwrap()),
    ];
    let mut s = source(TextFormat::Csv, "1,a\"b,c\n2,x,\"y\"\n");
    s.bind(&three).unwrap();
    let b = s.next_block().unwrap().unwrap();
    assert_eq!(b.rows(), 2);
    assert_eq!(b.column("s").unwrap().value(0), Value::String(b"a\"b"));
    assert_eq!(b.column("n").unwrap().value(0), Value::String(b"c"));
    assert_eq!(b.column("n").unwrap().value(1), Value::String(b"y"));
}

/// As ClickHouse 26.9 reads them (chdb, `file('x.csv', CSV, 'i Int32, s String, t String')`):
/// spaces and tabs around a field are not part of it, inside quotes they are.
#[test]
fn csv_fields_are_trimmed_of_spaces_and_tabs_outside_quotes() {
    let target = vec![
        ("i".to_string(), DataType::parse("Int32").unwrap()),
        ("s".into(), DataType::parse("String").unwrap()),
        ("t".into(), DataType::parse("String").unwrap()),
    ];
    let mut s = source(TextFormat::Csv, " 5 , a , b \n6,\" q \" ,  \n\t7\t,\tx y\t,\"z\"\n");
    s.bind(&target).unwrap();
    let b = s.next_block().unwrap().unwrap();
    let col = |n: &str| (0..b.rows()).map(|r| b.column(n).unwrap().value(r)).collect::<Vec<_>>();
    assert_eq!(col("i"), [Value::Int(5), Value::Int(6), Value::Int(7)]);
    assert_eq!(col("s"), [Value::String(b"a"), Value::String(b" q "), Value::String(b"x y")]);
    assert_eq!(col("t"), [Value::String(b"b"), Value::String(b""), Value::String(b"z")]);
}
