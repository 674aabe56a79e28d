//! The current server's features as users meet them in MergeTree tables — sparse columns at
//! every depth the server stores them, JSON with typed paths and SKIP hints, Dynamic, Variant,
//! Time/Time64, QBit, BFloat16, LowCardinality across parts, Nested — from the shared cases of
//! tests/features/tables.json (every front end's suite reads them): each table read as blocks
//! over the native protocol at the oldest and newest revisions (with and without compression)
//! and over HTTP, the blocks inserted into a copy over both transports, and the rows read as
//! dynamic values inserted into another; every copy must hold what the server holds. On
//! ClickHouse 26.9, and on 18.16 for the cases it has types for.

mod common;

use chwire::proto::{Block, Value};
use chwire::Client;
use serde_json::Value as Json;

/// Cases whose rows of dynamic values cannot go back as they were read, with the reason (one
/// that starts passing fails, so that the list stays true).
const KNOWN_ROWS: &[(&str, &str)] = &[(
    "json_typed_paths_and_hints",
    "the row inserter writes JSON columns from JSON text only, not from the path/value pairs a JSON column reads as",
)];

fn cases() -> Vec<Json> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/tables.json");
    let text = std::fs::read_to_string(path).expect("tests/features/tables.json");
    let all: Json = serde_json::from_str(&text).expect("tables.json is JSON");
    all["tables"].as_array().expect("a list of tables").clone()
}

/// The HTTP URL of the same server (set by scripts/with-server.sh), or the rig's default.
fn http_url(var: &str, default_port: u16) -> String {
    std::env::var(var).unwrap_or_else(|_| format!("http://default@127.0.0.1:{default_port}/default"))
}

fn server_name(c: &Client) -> &'static str {
    if common::is_old_server(c) {
        "18.16"
    } else {
        "26.9"
    }
}

/// The case's settings on this server (`settings_18` on 18.16).
fn settings(case: &Json, server: &str) -> Vec<(String, String)> {
    let key = if server == "18.16" { "settings_18" } else { "settings" };
    case[key]
        .as_object()
        .map(|m| {
            m.iter().map(|(k, v)| (k.clone(), v.as_i64().map_or_else(|| v.as_str().unwrap_or("").to_string(), |i| i.to_string()))).collect()
        })
        .unwrap_or_default()
}

async fn run(c: &mut Client, sql: &str, settings: &[(String, String)]) {
    let mut q = c.query(sql);
    for (k, v) in settings {
        q = q.setting(k.clone(), v.clone());
    }
    q.execute().await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

async fn blocks(c: &mut Client, sql: &str, settings: &[(String, String)]) -> Vec<Block> {
    let mut q = c.query(sql);
    for (k, v) in settings {
        q = q.setting(k.clone(), v.clone());
    }
    q.fetch_blocks().await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The server's fingerprint of a table's rows: their count and a hash of their text.
async fn fingerprint(c: &mut Client, table: &str, server: &str) -> (u64, u64) {
    let hash = if server == "18.16" { "cityHash64(toString(tuple(*)))" } else { "cityHash64(formatRow('TSV', *))" };
    let b = blocks(c, &format!("SELECT count(), groupBitXor({hash}) FROM {table}"), &[]).await;
    let (n, h) = (b[0].column_at(0).unwrap().value(0), b[0].column_at(1).unwrap().value(0));
    match (n, h) {
        (Value::UInt(n), Value::UInt(h)) => (n, h),
        other => panic!("{other:?}"),
    }
}

/// The columns and subcolumns of the table's active parts stored as Sparse.
async fn sparse(c: &mut Client, table: &str) -> Vec<String> {
    let sql = format!(
        "SELECT DISTINCT arrayJoin(arrayConcat(if(serialization_kind = 'Sparse', [column], []), \
         arrayMap((n, k) -> if(k = 'Sparse', concat(column, '.', n), ''), subcolumns.names, subcolumns.serializations))) AS c \
         FROM system.parts_columns WHERE database = currentDatabase() AND table = '{table}' AND active AND c != ''"
    );
    let mut out = Vec::new();
    for b in blocks(c, &sql, &[]).await {
        for i in 0..b.rows() {
            if let Value::String(s) = b.column_at(0).unwrap().value(i) {
                out.push(String::from_utf8_lossy(s).into_owned());
            }
        }
    }
    out
}

async fn copy(c: &mut Client, table: &str, copy: &str, settings: &[(String, String)]) {
    run(c, &format!("DROP TABLE IF EXISTS {copy}"), &[]).await;
    run(c, &format!("CREATE TABLE {copy} AS {table}"), settings).await;
}

async fn insert_blocks(c: &mut Client, table: &str, blocks: &[Block], settings: &[(String, String)]) {
    let mut q = c.query(format!("INSERT INTO {table} VALUES"));
    for (k, v) in settings {
        q = q.setting(k.clone(), v.clone());
    }
    let mut ins = q.insert_blocks().await.unwrap_or_else(|e| panic!("insert into {table}: {e}"));
    for b in blocks.iter().filter(|b| b.rows() > 0) {
        ins.send(b).await.unwrap_or_else(|e| panic!("insert into {table}: {e}"));
    }
    ins.end().await.unwrap_or_else(|e| panic!("insert into {table}: {e}"));
}

async fn each_case_on(native: &str, http: String) {
    let mut c = Client::connect_url(native).await.unwrap_or_else(|e| panic!("{native}: {e}"));
    let server = server_name(&c);
    let revisions: &[u64] = if server == "26.9" { &[54465, 54492] } else { &[54412] };
    let mut checked = 0;
    for case in cases() {
        if !case["servers"].as_array().unwrap().iter().any(|s| s == server) {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let set = settings(&case, server);
        let t = format!("chwire_feat_{}_{}", name, std::process::id());
        run(&mut c, &format!("DROP TABLE IF EXISTS {t}"), &[]).await;
        run(
            &mut c,
            &format!("CREATE TABLE {t} ({}) ENGINE = {}", case["columns"].as_str().unwrap(), case["engine"].as_str().unwrap()),
            &set,
        )
        .await;
        for ins in case["inserts"].as_array().unwrap() {
            run(&mut c, &ins.as_str().unwrap().replace("{t}", &t), &set).await;
        }
        // The parts store what the case is about.
        let want_sparse = case["sparse"].as_array().unwrap();
        let stored = if want_sparse.is_empty() { Vec::new() } else { sparse(&mut c, &t).await };
        for col in want_sparse {
            assert!(stored.iter().any(|s| s == col.as_str().unwrap()), "{name}: {col} is not sparse on the server ({stored:?})");
        }
        let want = fingerprint(&mut c, &t, server).await;
        let mut read_set = set.clone();
        if let Some(m) = case["select_settings"].as_object() {
            read_set.extend(m.iter().map(|(k, v)| (k.clone(), v.to_string())));
        }
        let select = format!("SELECT * FROM {t} ORDER BY k");
        let mut sources: Vec<(String, String)> = Vec::new();
        for rev in revisions {
            for comp in ["none", "lz4"] {
                sources.push((format!("native {rev} {comp}"), format!("{native}?client_revision={rev}&compression={comp}")));
            }
        }
        sources.push(("http".into(), http.clone()));
        sources.push(("http zstd".into(), format!("{http}?compression=zstd")));
        let cp = format!("{t}_copy");
        for (who, url) in &sources {
            let mut r = Client::connect_url(url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
            let got = blocks(&mut r, &select, &read_set).await;
            assert_eq!(got.iter().map(Block::rows).sum::<usize>() as u64, want.0, "{name}: rows read {who}");
            // The blocks back through both transports.
            for to in [native, http.as_str()] {
                copy(&mut c, &t, &cp, &set).await;
                let mut w = Client::connect_url(to).await.unwrap();
                insert_blocks(&mut w, &cp, &got, &set).await;
                assert_eq!(fingerprint(&mut c, &cp, server).await, want, "{name}: read {who}, inserted over {to}");
            }
        }
        // Rows as dynamic values, read and written back value by value.
        let known = KNOWN_ROWS.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
        for url in [native, http.as_str()] {
            copy(&mut c, &t, &cp, &set).await;
            let (mut r, mut w) = (Client::connect_url(url).await.unwrap(), Client::connect_url(url).await.unwrap());
            let mut q = r.query(select.as_str());
            for (k, v) in &read_set {
                q = q.setting(k.clone(), v.clone());
            }
            let mut rows = q.fetch_dynamic().await.unwrap();
            let mut q = w.query(format!("INSERT INTO {cp} VALUES"));
            for (k, v) in &set {
                q = q.setting(k.clone(), v.clone());
            }
            let mut ins = q.insert_dynamic().await.unwrap();
            let mut refused = None;
            while let Some(row) = rows.next().await.unwrap_or_else(|e| panic!("{name}: rows over {url}: {e}")) {
                if let Err(e) = ins.write(&row.values()).await {
                    refused = Some(e);
                    break;
                }
            }
            drop(rows);
            match (refused, known) {
                (None, None) => {
                    ins.end().await.unwrap();
                    assert_eq!(fingerprint(&mut c, &cp, server).await, want, "{name}: rows over {url}");
                }
                (Some(e), None) => panic!("{name}: a row back over {url}: {e}"),
                (Some(e), Some(why)) => assert!(e.to_string().contains("does not fit JSON"), "{name} ({why}): {e}"),
                (None, Some(why)) => panic!("{name}: rows now go back ({why}): remove it from KNOWN_ROWS"),
            }
        }
        run(&mut c, &format!("DROP TABLE IF EXISTS {cp}"), &[]).await;
        run(&mut c, &format!("DROP TABLE IF EXISTS {t}"), &[]).await;
        checked += 1;
    }
    assert!(checked >= 2, "{checked} cases for {server}");
}

#[tokio::test]
async fn feature_tables_read_and_write_back_on_the_current_server() {
    let url = common::url();
    let native = if common::is_http() {
        format!("tcp://default@127.0.0.1:{}/default", std::env::var("CHWIRE_TEST_TCP_PORT").unwrap_or_else(|_| "19000".into()))
    } else {
        url
    };
    each_case_on(&native, http_url("CHWIRE_TEST_HTTP_URL", common::http_port())).await;
}

#[tokio::test]
async fn feature_tables_of_the_oldest_server() {
    each_case_on(&common::url_18(), http_url("CHWIRE_TEST_HTTP_URL_18", 18200)).await;
}

/// A value of tests/features/params.json's host forms as a `ParamValue` (what Rust programs
/// and every binding bind through).
fn host(v: &Json) -> chwire::ParamValue {
    use chwire::ParamValue as P;
    match v {
        Json::Null => P::Null,
        Json::Bool(b) => P::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => P::Int(i.into()),
            None => P::Float(n.as_f64().unwrap()),
        },
        Json::String(s) => P::Str(s.clone()),
        Json::Array(items) => P::List(items.iter().map(host).collect()),
        Json::Object(m) => match (m.get("int"), m.get("float"), m.get("decimal"), m.get("tuple"), m.get("map")) {
            (Some(Json::String(i)), ..) => P::Number(i.clone()),
            (_, Some(Json::String(f)), ..) => P::Float(f.parse().unwrap()),
            (_, _, Some(Json::String(d)), ..) => P::Number(d.clone()),
            (_, _, _, Some(Json::Array(t)), _) => P::Tuple(t.iter().map(host).collect()),
            (.., Some(Json::Array(kv))) => P::Map(kv.iter().map(|p| (host(&p[0]), host(&p[1]))).collect()),
            _ => P::Map(m.iter().map(|(k, v)| (P::Str(k.clone()), host(v))).collect()),
        },
    }
}

/// tests/features/refusals.json: what every front end refuses with the core's message —
/// parameters that do not fit their placeholder (nothing is sent; the client stays usable),
/// text that is no table for an insert, and connection options — over native and HTTP on 26.9
/// and native on 18.16.
#[tokio::test]
async fn what_every_front_end_refuses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/refusals.json");
    let refusals: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let native = format!("tcp://default@127.0.0.1:{}/default", std::env::var("CHWIRE_TEST_TCP_PORT").unwrap_or_else(|_| "19000".into()));
    let mut wrong = Vec::new();
    for url in [native, http_url("CHWIRE_TEST_HTTP_URL", common::http_port()), common::url_18()] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        for p in refusals["params"].as_array().unwrap() {
            let (ty, error) = (p["type"].as_str().unwrap(), p["error"].as_str().unwrap());
            let got = c.query(format!("SELECT toString({{p:{ty}}})")).bind("p", &host(&p["value"])).fetch_blocks().await;
            match got {
                Err(e) if e.code().is_none() && e.to_string().contains(error) => {}
                Err(e) => wrong.push(format!("{url}: {ty} {}: {e}", p["value"])),
                Ok(_) => wrong.push(format!("{url}: {ty} {}: accepted", p["value"])),
            }
        }
        for t in refusals["tables"].as_array().unwrap() {
            let (table, error) = (t["table"].as_str().unwrap(), t["error"].as_str().unwrap());
            match c.insert_blocks(table, None).await {
                Err(e) if e.code().is_none() && e.to_string().contains(error) => {}
                Err(e) => wrong.push(format!("{url}: table {table:?}: {e}")),
                Ok(_) => wrong.push(format!("{url}: table {table:?}: accepted")),
            }
        }
        let seven = c.query("SELECT {p:UInt8}").bind("p", &chwire::ParamValue::Int(7)).fetch_blocks().await.unwrap();
        assert_eq!(seven.iter().find(|b| b.rows() > 0).unwrap().column_at(0).unwrap().value(0), Value::UInt(7), "{url}");
        for o in refusals["options"].as_array().unwrap() {
            let (query, error) = (o["query"].as_str().unwrap(), o["error"].as_str().unwrap());
            let with = format!("{url}{}{query}", if url.contains('?') { '&' } else { '?' });
            let got = match Client::connect_url(&with).await {
                Ok(mut c) => c.query("SELECT 1").fetch_blocks().await.map(drop),
                Err(e) => Err(e),
            };
            match got {
                Err(e) if e.to_string().contains(error) => {}
                Err(e) => wrong.push(format!("{url}: {query}: {e}")),
                Ok(()) => wrong.push(format!("{url}: {query}: accepted")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A value of tests/features/dynamic.json's host forms as the dynamic value a Rust program
/// writes (integers Int64, UInt64 beyond; lists Arrays; `{"map": pairs}` Maps).
fn dyn_value(v: &Json) -> Value<'_> {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float64(n.as_f64().unwrap()),
        },
        Json::String(s) => Value::String(s.as_bytes()),
        Json::Array(items) => Value::Array(items.iter().map(dyn_value).collect()),
        Json::Object(m) => match (m.get("int"), m.get("map")) {
            (Some(Json::String(i)), _) => Value::UInt(i.parse().unwrap()),
            (_, Some(Json::Array(kv))) => Value::Map(kv.iter().map(|p| (dyn_value(&p[0]), dyn_value(&p[1]))).collect()),
            _ => panic!("no dynamic.json host form: {v}"),
        },
    }
}

/// tests/features/dynamic.json: values inserted into a Dynamic column take the types of the
/// core's one rule (the ones Python's, Node's and Elixir's values take), over both transports.
#[tokio::test]
async fn host_values_into_dynamic_by_the_cores_rule() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/dynamic.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = cases["dynamic"].as_array().unwrap();
    for url in [common::url(), http_url("CHWIRE_TEST_HTTP_URL", 18123)] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        if server_name(&c) != "26.9" {
            return;
        }
        let t = format!("rs_dyn_{}", std::process::id());
        run(&mut c, &format!("CREATE TABLE {t} (k UInt32, d Dynamic) ENGINE = Memory"), &[]).await;
        let mut ins = c.insert_dynamic(t.as_str(), None).await.unwrap();
        for (k, case) in cases.iter().enumerate() {
            ins.write(&[Value::UInt(k as u64), dyn_value(&case["value"])]).await.unwrap();
        }
        ins.end().await.unwrap();
        let text = |v: Value<'_>| match v {
            Value::String(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Value::Null => None,
            v => Some(format!("{v:?}")),
        };
        let read = blocks(&mut c, &format!("SELECT dynamicType(d), toString(d) FROM {t} ORDER BY k"), &[]).await;
        let got: Vec<(Option<String>, Option<String>)> = read
            .iter()
            .flat_map(|b| (0..b.rows()).map(move |r| (b.column_at(0).unwrap().value(r), b.column_at(1).unwrap().value(r))))
            .map(|(a, b)| (text(a), text(b)))
            .collect();
        run(&mut c, &format!("DROP TABLE {t}"), &[]).await;
        let want: Vec<(Option<String>, Option<String>)> =
            cases.iter().map(|c| (c["type"].as_str().map(String::from), c["text"].as_str().map(String::from))).collect();
        assert_eq!(got, want, "{url}");
    }
}

/// tests/features/statements.json: a query's own FORMAT clause is taken off by the core's rule
/// over both transports (the native protocol ignores it, HTTP would answer in it); words that
/// only look like one stay.
#[tokio::test]
async fn a_querys_own_format_clause() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/statements.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for url in [common::url(), http_url("CHWIRE_TEST_HTTP_URL", 18123)] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        for case in cases["format"].as_array().unwrap() {
            let sql = case["sql"].as_str().unwrap();
            let got: Vec<String> = blocks(&mut c, sql, &[])
                .await
                .iter()
                .flat_map(|b| {
                    (0..b.rows()).map(move |r| match b.column_at(0).unwrap().value(r) {
                        Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                        v => format!("{v:?}"),
                    })
                })
                .collect();
            let want: Vec<String> = case["rows"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
            assert_eq!(got, want, "{url}: {sql}");
        }
    }
}

/// tests/features/texts.json: text inserted into address and UUID columns (as Arrow string
/// columns) is read by the core's one parser, as ClickHouse reads it; what it refuses is refused
/// before anything is sent. Over both transports.
#[tokio::test]
async fn text_into_addresses_and_uuids_by_the_cores_parser() {
    use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array};
    use std::sync::Arc;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/texts.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let batch = |cases: &[Json]| {
        let mut fields: Vec<(String, ArrayRef)> = vec![("k".into(), Arc::new(UInt32Array::from(vec![1])))];
        for (i, c) in cases.iter().enumerate() {
            fields.push((format!("c{i}"), Arc::new(StringArray::from(vec![c["value"].as_str().unwrap()]))));
        }
        RecordBatch::try_from_iter(fields).unwrap()
    };
    for url in [common::url(), http_url("CHWIRE_TEST_HTTP_URL", 18123)] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        if server_name(&c) != "26.9" {
            return;
        }
        let inserted = cases["inserted"].as_array().unwrap();
        // The cases are ClickHouse's own reading of the text (its TSV input): what it reads,
        // as `text`; what it refuses, refused.
        for case in inserted.iter().chain(cases["refused"].as_array().unwrap()) {
            let (ty, value) = (case["type"].as_str().unwrap(), case["value"].as_str().unwrap().replace('\'', "\\'"));
            let sql = format!("SELECT toString(c) FROM format(TSV, 'c {ty}', '{value}')");
            let server = c.query(sql.as_str()).fetch_blocks().await;
            match case["text"].as_str() {
                Some(text) => {
                    let b = server.unwrap_or_else(|e| panic!("{sql}: {e}"));
                    assert_eq!(b[0].column_at(0).unwrap().value(0), Value::String(text.as_bytes()), "{sql}");
                }
                None => assert!(server.is_err(), "{sql}: the server reads it; texts.json says refused"),
            }
        }
        let t = format!("rs_texts_{}", std::process::id());
        run(&mut c, &format!("CREATE TABLE {t} ({}) ENGINE = Memory", case_columns(inserted)), &[]).await;
        c.insert_arrow(t.as_str(), [batch(inserted)]).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        let texts: Vec<String> = (0..inserted.len()).map(|i| format!("toString(c{i})")).collect();
        let read = blocks(&mut c, &format!("SELECT {} FROM {t}", texts.join(", ")), &[]).await;
        let got: Vec<String> = (0..inserted.len())
            .map(|i| match read[0].column_at(i).unwrap().value(0) {
                Value::String(s) => String::from_utf8_lossy(s).into_owned(),
                v => format!("{v:?}"),
            })
            .collect();
        let want: Vec<String> = inserted.iter().map(|c| c["text"].as_str().unwrap().to_string()).collect();
        assert_eq!(got, want, "{url}");
        run(&mut c, &format!("DROP TABLE {t}"), &[]).await;
        for case in cases["refused"].as_array().unwrap() {
            let one = std::slice::from_ref(case);
            run(&mut c, &format!("CREATE TABLE {t} ({}) ENGINE = Memory", case_columns(one)), &[]).await;
            let err = c.insert_arrow(t.as_str(), [batch(one)]).await.expect_err(&format!("{url}: {case} was taken"));
            assert!(err.to_string().contains("is not the text of a"), "{url}: {case}: {err}");
            let n = blocks(&mut c, &format!("SELECT count() FROM {t}"), &[]).await;
            assert_eq!(n[0].column_at(0).unwrap().value(0), Value::UInt(0), "{url}: {case}");
            run(&mut c, &format!("DROP TABLE {t}"), &[]).await;
        }
    }
}

/// tests/features/nulls.json: a NULL where the column's type has none. A NULL Array or Map (at
/// any depth) is the empty one, as ClickHouse reads such input; a NULL scalar or Tuple for a
/// column that is not Nullable is refused before anything is sent. Rows of dynamic values over
/// both transports (Arrow inserts: the CLI's files, Python's and ADBC's suites).
#[tokio::test]
async fn nulls_where_the_type_has_none_by_the_cores_rule() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/nulls.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for url in [common::url(), http_url("CHWIRE_TEST_HTTP_URL", 18123)] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        if server_name(&c) != "26.9" {
            return;
        }
        let inserted = cases["inserted"].as_array().unwrap();
        let t = format!("rs_nulls_{}", std::process::id());
        run(&mut c, &format!("CREATE TABLE {t} ({}) ENGINE = Memory", case_columns(inserted)), &[]).await;
        let mut ins = c.insert_dynamic(t.as_str(), None).await.unwrap();
        ins.write(&null_row(inserted)).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        ins.end().await.unwrap();
        let texts: Vec<String> = (0..inserted.len()).map(|i| format!("toString(c{i})")).collect();
        let read = blocks(&mut c, &format!("SELECT {} FROM {t}", texts.join(", ")), &[]).await;
        let got: Vec<Option<String>> = (0..inserted.len())
            .map(|i| match read[0].column_at(i).unwrap().value(0) {
                Value::String(s) => Some(String::from_utf8_lossy(s).into_owned()),
                Value::Null => None,
                v => Some(format!("{v:?}")),
            })
            .collect();
        let want: Vec<Option<String>> = inserted.iter().map(|c| c["text"].as_str().map(str::to_string)).collect();
        assert_eq!(got, want, "{url}");
        run(&mut c, &format!("DROP TABLE {t}"), &[]).await;
        for case in cases["refused"].as_array().unwrap() {
            let one = std::slice::from_ref(case);
            run(&mut c, &format!("CREATE TABLE {t} ({}) ENGINE = Memory", case_columns(one)), &[]).await;
            let mut ins = c.insert_dynamic(t.as_str(), None).await.unwrap();
            let err = match ins.write(&null_row(one)).await {
                Ok(()) => ins.end().await.expect_err(&format!("{url}: {case} was taken")),
                Err(e) => {
                    drop(ins);
                    e
                }
            };
            assert!(err.to_string().contains(cases["error"].as_str().unwrap()), "{url}: {case}: {err}");
            let n = blocks(&mut c, &format!("SELECT count() FROM {t}"), &[]).await;
            assert_eq!(n[0].column_at(0).unwrap().value(0), Value::UInt(0), "{url}: {case}");
            run(&mut c, &format!("DROP TABLE {t}"), &[]).await;
        }
    }
}

/// Row 1 of a nulls.json table: `k` and each case's value.
fn null_row(cases: &[Json]) -> Vec<Value<'_>> {
    let mut row = vec![Value::UInt(1)];
    row.extend(cases.iter().map(|c| dyn_value(&c["value"])));
    row
}

/// The columns of a table of texts.json's or nulls.json's `cases`: `k UInt32, c0 <type 0>, …`.
fn case_columns(cases: &[Json]) -> String {
    let cols: Vec<String> = cases.iter().enumerate().map(|(i, c)| format!("c{i} {}", c["type"].as_str().unwrap())).collect();
    format!("k UInt32, {}", cols.join(", "))
}

/// tests/features/limits.json: bounds of a result collected whole, counted by the core's query
/// stream (`QuerySpec::limits`, what every binding's whole-result call sets): past one, an
/// error naming the option, the connection ready at once; a stream is bounded only when asked.
/// Both transports, both servers.
#[tokio::test]
async fn results_collected_whole_are_bounded_by_the_cores_tally() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/limits.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let limits_of = |l: &Json| {
        let mut limits = chwire::ResultLimits::none();
        for (k, v) in l.as_object().unwrap() {
            limits.set(k, v.as_str().unwrap())?;
        }
        Ok::<_, chwire::Error>(limits)
    };
    let sql = cases["sql"].as_str().unwrap();
    let settings: Vec<(String, String)> =
        cases["settings"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect();
    for url in [common::url(), http_url("CHWIRE_TEST_HTTP_URL", 18123)] {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        for case in cases["cases"].as_array().unwrap() {
            let mut spec = chwire::QuerySpec::new(sql);
            spec.settings = settings.clone();
            spec.limits = limits_of(&case["limits"]).unwrap();
            let got = spec.query(&mut c).fetch_blocks().await.map(|bs| bs.iter().map(Block::rows).sum::<usize>());
            match (&case["error"], got) {
                (Json::Null, Ok(rows)) => assert_eq!(rows as u64, case["rows"].as_u64().unwrap(), "{url}: {case}"),
                (Json::String(want), Err(e)) => {
                    assert!(matches!(e.kind(), chwire::ErrorKind::ResultTooLarge(_)), "{url}: {case}: {e:?}");
                    assert!(e.to_string().contains(want.as_str()), "{url}: {case}: {e}");
                    // Ready at once: the query was stopped and drained before the error.
                    assert!(c.is_idle(), "{url}: {case}: the connection is not idle after the error");
                }
                (want, got) => panic!("{url}: {case}: want {want}, got {got:?}"),
            }
            let one = c.query("SELECT 1").fetch_blocks().await.unwrap_or_else(|e| panic!("{url}: {case}: {e}"));
            assert_eq!(one[0].column_at(0).unwrap().value(0), Value::UInt(1));
        }
        // Not bounded unless asked: a plain stream reads every row.
        let mut q = c.query(sql);
        for (k, v) in &settings {
            q = q.setting(k.clone(), v.clone());
        }
        let mut s = q.stream().await.unwrap();
        let mut rows = 0;
        while let Some(b) = s.next_block().await.unwrap() {
            rows += b.rows();
        }
        assert_eq!(rows as u64, cases["rows"].as_u64().unwrap());
        for case in cases["refused"].as_array().unwrap() {
            let e = limits_of(&case["limits"]).unwrap_err();
            assert!(e.to_string().contains(case["error"].as_str().unwrap()), "{case}: {e}");
        }
    }
}

/// tests/features/pool.json: the pool's option names, aliases and host spellings, read by the
/// core's `PoolOptions` (what every binding's pool takes), and the mistakes it refuses.
#[tokio::test]
async fn pool_options_by_the_cores_names() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/pool.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pairs = |c: &Json| -> Vec<(String, String)> {
        c["options"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect()
    };
    let make = |c: &Json| {
        // As a binding's options: the pool's taken out, the rest the connection's.
        let mut p = pairs(c);
        let popts = chwire::PoolOptions::take(&mut p)?;
        chwire::Pool::new(chwire::Options::from_url_and(Some(&common::url()), p)?, popts)
    };
    for case in cases["accepted"].as_array().unwrap() {
        let pool = make(case).unwrap_or_else(|e| panic!("{case}: {e}"));
        let mut c = pool.get().await.unwrap_or_else(|e| panic!("{case}: {e}"));
        let one = c.query("SELECT 1").fetch_blocks().await.unwrap();
        assert_eq!(one[0].column_at(0).unwrap().value(0), Value::UInt(1));
        drop(c);
        let size = pool.status().size;
        assert!(size >= 1 && size as u64 <= case["max_size"].as_u64().unwrap(), "{case}: size {size}");
    }
    for case in cases["refused"].as_array().unwrap() {
        let e = make(case).err().unwrap_or_else(|| panic!("{case}: taken"));
        assert!(e.to_string().contains(case["error"].as_str().unwrap()), "{case}: {e}");
    }
}

/// tests/features/blocks.json: the blocks an Arrow insert sends (the core's `ArrowInsert`, what
/// every binding's Arrow insert runs), seen as the parts of a MergeTree table whose merges are
/// stopped, and what a refused batch leaves. Both transports, both servers.
#[tokio::test]
async fn arrow_inserts_cut_blocks_by_the_cores_rule() {
    use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/features/blocks.json");
    let cases: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let settings: Vec<(String, String)> =
        cases["settings"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect();
    let options_of = |c: &Json| {
        let mut pairs: Vec<(String, String)> =
            c.get("block_rows").map(|v| vec![("block_rows".to_string(), v.as_str().unwrap().to_string())]).unwrap_or_default();
        chwire::InsertOptions::take(&mut pairs)
    };
    // The case's batches (for the refusal, batch `bad_batch` starting with a NULL).
    let batches = |case: &Json| -> Vec<RecordBatch> {
        let bad = case["bad_batch"].as_u64();
        let mut next = 0u64;
        let mut out = Vec::new();
        for (i, rows) in case["batches"].as_array().unwrap().iter().enumerate() {
            let rows = rows.as_u64().unwrap();
            let col: ArrayRef =
                std::sync::Arc::new(UInt64Array::from_iter((next..next + rows).map(|v| (bad != Some(i as u64) || v != next).then_some(v))));
            next += rows;
            out.push(RecordBatch::try_from_iter([("n", col)]).unwrap());
        }
        out
    };
    let urls = [
        common::url(),
        http_url("CHWIRE_TEST_HTTP_URL", common::http_port()),
        common::url_18(),
        http_url("CHWIRE_TEST_HTTP_URL_18", 18200),
    ];
    for url in urls {
        let mut c = Client::connect_url(&url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        let t = format!("rs_blocks_{}", std::process::id());
        let all = cases["cases"].as_array().unwrap().iter().chain([&cases["refusal"]]);
        for case in all {
            run(&mut c, &format!("DROP TABLE IF EXISTS {t}"), &[]).await;
            run(&mut c, &format!("CREATE TABLE {t} (n UInt64) ENGINE = MergeTree ORDER BY tuple()"), &[]).await;
            run(&mut c, &format!("SYSTEM STOP MERGES {t}"), &[]).await;
            let mut spec = chwire::QuerySpec::new(format!("INSERT INTO {t} VALUES"));
            spec.settings = settings.clone();
            let opts = options_of(case).unwrap_or_else(|e| panic!("{case}: {e}"));
            let sent = async {
                let mut ins = spec.query(&mut c).insert_arrow().await?.options(&opts);
                for b in batches(case) {
                    ins.send_batch(b).await?;
                }
                Ok::<_, chwire::Error>(ins.end().await?.rows_sent)
            }
            .await;
            let want: Vec<u64> = case["parts"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            match (sent, case["errors"].as_array()) {
                (Ok(n), None) => assert_eq!(n, want.iter().sum::<u64>(), "{url}: {case}"),
                (Err(e), Some(errors)) => {
                    for error in errors {
                        assert!(e.to_string().contains(error.as_str().unwrap()), "{url}: {case}: {e}");
                    }
                    assert_eq!(e.rows_inserted(), case["rows_inserted"].as_u64(), "{url}: {case}");
                    assert!(c.is_idle(), "{url}: the connection is not ready after a refusal");
                }
                (got, _) => panic!("{url}: {case}: {got:?}"),
            }
            // Each part's rows, in the order of their values (the order sent).
            let parts = format!("SELECT count() FROM {t} GROUP BY _part ORDER BY min(n)");
            let got: Vec<u64> = c.query(&parts).fetch_all::<(u64,)>().await.unwrap().into_iter().map(|(r,)| r).collect();
            assert_eq!(got, want, "{url}: {case}");
            let rows: u64 = want.iter().sum();
            let (count, sum) = c.query(format!("SELECT count(), sum(n) FROM {t}")).fetch_one::<(u64, u64)>().await.unwrap();
            assert_eq!((count, sum), (rows, rows * rows.saturating_sub(1) / 2), "{url}: {case}");
        }
        run(&mut c, &format!("DROP TABLE IF EXISTS {t}"), &[]).await;
    }
    for case in cases["refused"].as_array().unwrap() {
        let e = options_of(case).unwrap_err();
        assert!(e.to_string().contains(case["error"].as_str().unwrap()), "{case}: {e}");
    }
}
