//! The Spark catalog's rules (`chwire.spark.ChwireCatalog`): databases as namespaces, their
//! tables, and `CREATE TABLE` from a Spark schema.
//!
//! * [`Request`]: one catalog operation, as the JVM front end sends it (JSON), run by
//!   [`run`] on the first host of the catalog's URL that answers;
//! * [`create_table_sql`]: a Spark schema and the table's properties → ClickHouse's
//!   `CREATE TABLE`, with the Spark → ClickHouse type mapping of [`clickhouse_type`] (the
//!   inverse of [`crate::types`]' mapping where the server has the type, so a table created
//!   from Spark reads back with the same Spark types).
//!
//! Errors that Spark has exceptions for (no such database or table, one that exists already,
//! a database that is not empty) come back as [`Outcome`]s the front end turns into Spark's
//! own exceptions; everything else is an [`Error`].

use chwire::ServerTypes;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::options::SparkOptions;
use crate::plan::text_rows;
use crate::sql::{quote_ident, sql_string};
use crate::write::{ABORT_PREFIX, STAGE_PREFIX};
use crate::{invalid, Error, Result};

/// A column of a table to create: Spark's name, type (Spark's JSON form), nullability and
/// comment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewColumn {
    /// The column's name.
    pub name: String,
    /// The column's Spark type, in Spark's JSON type format.
    #[serde(rename = "type")]
    pub data_type: Value,
    /// Whether the column takes NULLs (then `Nullable(...)` where ClickHouse allows it).
    pub nullable: bool,
    /// The column's comment, written as its ClickHouse `COMMENT`.
    #[serde(default)]
    pub comment: Option<String>,
}

/// A partition transform of `PARTITIONED BY`: its name (`identity`, `years`, `months`,
/// `days`, `hours`, `bucket`, ...) and the columns it references.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    /// The transform's name.
    pub name: String,
    /// The columns it references.
    pub columns: Vec<String>,
}

/// One catalog operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The connection's database (the URL's, `default` without one): Spark's default namespace.
    CurrentDatabase,
    /// The databases, sorted.
    Databases,
    /// Whether database `db` exists.
    DatabaseExists {
        /// The database.
        db: String,
    },
    /// `CREATE DATABASE db` ([`Outcome::DatabaseExists`] if it does).
    CreateDatabase {
        /// The database.
        db: String,
    },
    /// `DROP DATABASE db` (refused for the server's own databases).
    DropDatabase {
        /// The database.
        db: String,
        /// Drop it with its tables; else a database with tables is [`Outcome::DatabaseNotEmpty`].
        cascade: bool,
    },
    /// The tables of `db`, sorted, without chwire's staging and marker tables.
    Tables {
        /// The database.
        db: String,
    },
    /// Whether table `db.table` exists.
    TableExists {
        /// The database.
        db: String,
        /// The table.
        table: String,
    },
    /// The table's engine and keys as the catalog's table properties (what `CREATE TABLE`
    /// takes back): `DESCRIBE EXTENDED` and `SHOW CREATE TABLE` show them.
    TableProperties {
        /// The database.
        db: String,
        /// The table.
        table: String,
    },
    /// `CREATE TABLE` from a Spark schema ([`create_table_sql`]).
    CreateTable {
        /// The database.
        db: String,
        /// The table.
        table: String,
        /// The columns, in order.
        columns: Vec<NewColumn>,
        /// Spark's `PARTITIONED BY` transforms.
        partitioning: Vec<Transform>,
        /// The table's properties (engine and clauses, [`PROPERTIES`]).
        properties: BTreeMap<String, String>,
    },
    /// `DROP TABLE` ([`Outcome::Bool`]: whether there was one).
    DropTable {
        /// The database.
        db: String,
        /// The table.
        table: String,
    },
    /// `RENAME TABLE db.table TO to_db.to_table`.
    RenameTable {
        /// The table's database.
        db: String,
        /// The table.
        table: String,
        /// The new database.
        to_db: String,
        /// The new name.
        to_table: String,
    },
    /// A staged CREATE / REPLACE (Spark's atomic CTAS and RTAS): table `staged`, created and
    /// filled under a staging name in `db`, becomes `table` — with `replace`, in place of the
    /// existing one (one `RENAME` of both, then the old table dropped); else only if `table`
    /// does not exist.
    CommitStaged {
        /// The database of both tables.
        db: String,
        /// The table to create or replace.
        table: String,
        /// The staging table (one of chwire's staging names).
        staged: String,
        /// Replace an existing `table`.
        replace: bool,
    },
}

/// What an operation found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The operation was done.
    Done,
    /// The answer of a yes/no operation (`DatabaseExists`, `TableExists`; `DropTable`: whether
    /// there was a table to drop).
    Bool {
        /// The answer.
        value: bool,
    },
    /// Names of databases or tables, sorted (`CurrentDatabase`: the one name).
    Names {
        /// The names.
        names: Vec<String>,
    },
    /// The database does not exist (Spark's `NoSuchNamespaceException`).
    NoSuchDatabase {
        /// The database.
        db: String,
    },
    /// The table does not exist (Spark's `NoSuchTableException`).
    NoSuchTable {
        /// Its database.
        db: String,
        /// The table.
        table: String,
    },
    /// The database exists already (Spark's `NamespaceAlreadyExistsException`).
    DatabaseExists {
        /// The database.
        db: String,
    },
    /// The table exists already (Spark's `TableAlreadyExistsException`).
    TableExists {
        /// Its database.
        db: String,
        /// The table.
        table: String,
    },
    /// The database has tables and the drop is not a cascade (Spark's
    /// `NonEmptyNamespaceException`).
    DatabaseNotEmpty {
        /// The database.
        db: String,
    },
    /// A table's properties (`TableProperties`).
    Properties {
        /// Property name → value.
        properties: BTreeMap<String, String>,
    },
}

/// Table properties the catalog reads (also as `option.<name>`, as Spark passes a writer's
/// options): the engine (default `MergeTree`) and its clauses.
pub const PROPERTIES: [&str; 6] = ["engine", "order_by", "partition_by", "primary_key", "sample_by", "settings"];
/// Properties Spark sets itself, which say nothing ClickHouse keeps. The provider is one: a
/// catalog's tables are always ClickHouse's, and `saveAsTable` without `format` names the
/// session's default source (parquet), as Spark's own JDBC catalog also ignores.
const SPARK_RESERVED: [&str; 4] = ["owner", "provider", "is_managed_location", "collation"];

/// The ClickHouse type of a Spark type (Spark's JSON form) on a server with `types`;
/// `nullable` wraps it in `Nullable` where ClickHouse allows that (not arrays, maps, tuples).
/// The Spark type's current ClickHouse type, spelled in the server's types by the rule every
/// front end shares ([`ServerTypes::adapt`]: `Date32` → `Date`, `DateTime64` → `DateTime`, a
/// missing family refused); Spark's own refusals come first (a type that would not read back
/// as itself).
pub fn clickhouse_type(t: &Value, nullable: bool, types: &ServerTypes) -> Result<String> {
    let current = spark_type(t, nullable, types.has("Bool"))?;
    let ty = chwire::DataType::parse(&current).map_err(|e| Error::Invalid(format!("{current}: {e}")))?;
    match types.adapt(&ty) {
        Ok(ty) => Ok(ty.to_string()),
        Err(e) => invalid(format!("no ClickHouse type for Spark type {}: {e}", spark_name(t))),
    }
}

/// A Spark type as Spark prints it in its JSON form (`long`, `map`, `struct`).
fn spark_name(t: &Value) -> String {
    match t {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.get("type").and_then(Value::as_str).unwrap_or("?").to_string(),
        other => other.to_string(),
    }
}

/// The Spark type's ClickHouse type on a current server (Spark's refusals included; a server
/// without `Bool` refuses booleans: they would read back as short, into which Spark writes no
/// booleans).
fn spark_type(t: &Value, nullable: bool, has_bool: bool) -> Result<String> {
    let refuse = |what: &str, why: &str| -> Result<String> { invalid(format!("no ClickHouse type for Spark type {what}: {why}")) };
    let scalar = match t {
        Value::String(s) => match s.as_str() {
            "byte" => "Int8".to_string(),
            "short" => "Int16".into(),
            "integer" => "Int32".into(),
            "long" => "Int64".into(),
            "float" => "Float32".into(),
            "double" => "Float64".into(),
            // Without Bool a boolean column would read back as short (UInt8), and Spark would
            // refuse to write booleans into it: refused here, before anything is created.
            "boolean" if has_bool => "Bool".into(),
            "boolean" => return refuse("boolean", "this server has no Bool type; cast the column to tinyint"),
            // Spark 4.3 hands char(n)/varchar(n) columns to catalogs as such: String keeps no
            // length, so they are refused (below) like binary, which has no type that reads
            // back as binary but FixedString, whose width Spark does not know.
            // Spark 4 spells the default collation out (SHOW CREATE TABLE prints it): byte
            // order, ClickHouse's own. Other collations compare differently: refused.
            "string" | "string collate UTF8_BINARY" => "String".into(),
            d if d.starts_with("string collate ") => {
                return refuse(d, "ClickHouse compares strings by their bytes (collation UTF8_BINARY); declare the column STRING");
            }
            d if d.starts_with("char(") || d.starts_with("varchar(") => {
                return refuse(d, "ClickHouse's String has no length and reads back as string; declare the column STRING");
            }
            "binary" => return refuse("binary", "ClickHouse's String reads back as string; cast the column to string"),
            // Date32 covers 1900..2299 (Date, on servers without it, 1970-01-01..2149 or 2105);
            // DateTime64(6) microseconds (DateTime, on servers without it, whole seconds: a
            // value with a fraction is refused on write).
            "date" => "Date32".into(),
            "timestamp" => "DateTime64(6)".into(),
            d if d.starts_with("decimal(") => {
                let inner = d.trim_start_matches("decimal(").trim_end_matches(')');
                let (p, s) = inner.split_once(',').unwrap_or((inner, "0"));
                let (Ok(p), Ok(s)) = (p.trim().parse::<u8>(), s.trim().parse::<u8>()) else {
                    return refuse(d, "cannot read its precision and scale");
                };
                format!("Decimal({p}, {s})")
            }
            other => return refuse(other, "ClickHouse has no such type (or chwire does not map it)"),
        },
        Value::Object(o) => {
            return match o.get("type").and_then(Value::as_str) {
                Some("array") => {
                    let element = spark_type(&o["elementType"], o.get("containsNull").and_then(Value::as_bool).unwrap_or(true), has_bool)?;
                    Ok(format!("Array({element})"))
                }
                Some("map") => {
                    let key = spark_type(&o["keyType"], false, has_bool)?;
                    let value = spark_type(&o["valueType"], o.get("valueContainsNull").and_then(Value::as_bool).unwrap_or(true), has_bool)?;
                    Ok(format!("Map({key}, {value})"))
                }
                Some("struct") => {
                    let fields = o.get("fields").and_then(Value::as_array).cloned().unwrap_or_default();
                    if fields.is_empty() {
                        return refuse("struct<>", "a tuple needs at least one element");
                    }
                    let mut parts = Vec::new();
                    for f in &fields {
                        let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
                        let nullable = f.get("nullable").and_then(Value::as_bool).unwrap_or(true);
                        parts.push(format!("{} {}", quote_ident(name), spark_type(&f["type"], nullable, has_bool)?));
                    }
                    Ok(format!("Tuple({})", parts.join(", ")))
                }
                other => refuse(other.unwrap_or("?"), "ClickHouse has no such type"),
            };
        }
        other => return refuse(&other.to_string(), "not a Spark type"),
    };
    Ok(if nullable { format!("Nullable({scalar})") } else { scalar })
}

/// A property by its name, given bare or as `option.<name>`; given both ways differently is
/// an error.
fn property<'a>(props: &'a BTreeMap<String, String>, name: &str) -> Result<Option<&'a str>> {
    let bare = props.get(name).map(String::as_str);
    let option = props.get(&format!("option.{name}")).map(String::as_str);
    match (bare, option) {
        (Some(a), Some(b)) if a != b => invalid(format!("table property '{name}' is given twice, as {a:?} and {b:?}")),
        (a, b) => Ok(a.or(b)),
    }
}

/// The `PARTITION BY` expression of Spark's partition transforms.
fn partition_expr(partitioning: &[Transform]) -> Result<Option<String>> {
    let mut exprs = Vec::new();
    for t in partitioning {
        let [col] = t.columns.as_slice() else {
            return invalid(format!("partition transform {}({}) is not supported", t.name, t.columns.join(", ")));
        };
        let c = quote_ident(col);
        exprs.push(match t.name.as_str() {
            "identity" => c,
            "years" => format!("toYear({c})"),
            "months" => format!("toYYYYMM({c})"),
            "days" => format!("toYYYYMMDD({c})"),
            "hours" => format!("toStartOfHour({c})"),
            other => return invalid(format!("partition transform {other}({col}) is not supported; use the table property partition_by")),
        });
    }
    Ok(match exprs.len() {
        0 => None,
        1 => exprs.pop(),
        _ => Some(format!("({})", exprs.join(", "))),
    })
}

/// `CREATE TABLE` of a Spark schema: the engine and its clauses from `properties`
/// ([`PROPERTIES`]; a `MergeTree`-family engine without `order_by` is ordered by `tuple()`),
/// `PARTITIONED BY` transforms as `PARTITION BY`.
pub fn create_table_sql(
    db: &str,
    table: &str,
    columns: &[NewColumn],
    partitioning: &[Transform],
    properties: &BTreeMap<String, String>,
    types: &ServerTypes,
) -> Result<String> {
    if columns.is_empty() {
        return invalid("a ClickHouse table needs at least one column");
    }
    for key in properties.keys() {
        let bare = key.strip_prefix("option.").unwrap_or(key);
        if key.starts_with("option.") && !PROPERTIES.contains(&bare) {
            // A writer's other options (url, user, ...) travel with it; they are not the table's.
            continue;
        }
        if !PROPERTIES.contains(&bare) && !SPARK_RESERVED.contains(&bare) {
            return invalid(format!("table property '{key}' is not one chwire knows (it takes {})", PROPERTIES.join(", ")));
        }
    }
    let mut defs = Vec::new();
    for c in columns {
        let t = clickhouse_type(&c.data_type, c.nullable, types).map_err(|e| Error::Invalid(format!("column '{}': {e}", c.name)))?;
        let mut d = format!("{} {t}", quote_ident(&c.name));
        if let Some(comment) = c.comment.as_deref().filter(|s| !s.is_empty()) {
            d.push_str(&format!(" COMMENT {}", sql_string(comment)));
        }
        defs.push(d);
    }
    let engine = property(properties, "engine")?.unwrap_or("MergeTree").trim();
    if engine.is_empty() {
        return invalid("table property 'engine' is empty");
    }
    let engine = if engine.contains('(') { engine.to_string() } else { format!("{engine}()") };
    let merge_tree = engine.split('(').next().unwrap_or_default().ends_with("MergeTree");
    let mut sql = format!("CREATE TABLE {}.{} ({}) ENGINE = {engine}", quote_ident(db), quote_ident(table), defs.join(", "));
    let partition = match (partition_expr(partitioning)?, property(properties, "partition_by")?) {
        (Some(_), Some(_)) => return invalid("give the partitioning as PARTITIONED BY or as the property partition_by, not both"),
        (a, b) => a.or(b.map(str::to_string)),
    };
    let order_by = property(properties, "order_by")?.map(str::to_string).or_else(|| merge_tree.then(|| "tuple()".to_string()));
    for (clause, value) in [
        ("PARTITION BY", partition),
        ("ORDER BY", order_by),
        ("PRIMARY KEY", property(properties, "primary_key")?.map(str::to_string)),
        ("SAMPLE BY", property(properties, "sample_by")?.map(str::to_string)),
        ("SETTINGS", property(properties, "settings")?.map(str::to_string)),
    ] {
        if let Some(v) = value {
            if v.trim().is_empty() {
                return invalid(format!("table property for {clause} is empty"));
            }
            if !merge_tree && clause != "SETTINGS" {
                return invalid(format!("{clause} is only for MergeTree-family engines, not {engine}"));
            }
            sql.push_str(&format!(" {clause} {v}"));
        }
    }
    Ok(sql)
}

/// A database the server keeps for itself (`system`, `information_schema`): never dropped
/// through the catalog, whatever `CASCADE` says.
fn server_database(db: &str) -> bool {
    db == "system" || db.eq_ignore_ascii_case("information_schema")
}

/// A table the catalog keeps out of listings: the write protocol's own.
fn internal(name: &str) -> bool {
    name.starts_with(STAGE_PREFIX) || name.starts_with(ABORT_PREFIX)
}

async fn database_exists(c: &mut chwire::Client, db: &str) -> Result<bool> {
    let rows = text_rows(c, &format!("SELECT count() FROM system.databases WHERE name = {}", sql_string(db))).await?;
    Ok(rows.first().and_then(|r| r.first().cloned().flatten()).as_deref() == Some("1"))
}

async fn table_exists(c: &mut chwire::Client, db: &str, table: &str) -> Result<bool> {
    let rows =
        text_rows(c, &format!("SELECT count() FROM system.tables WHERE database = {} AND name = {}", sql_string(db), sql_string(table)))
            .await?;
    Ok(rows.first().and_then(|r| r.first().cloned().flatten()).as_deref() == Some("1"))
}

/// A table's engine and keys, by the names of [`PROPERTIES`]: `engine` with its arguments
/// (`ReplacingMergeTree(v)`), the keys a MergeTree-family table has (`primary_key` only where
/// it is not the sorting key), and its `SETTINGS`. None: no such table.
async fn table_properties(c: &mut chwire::Client, db: &str, table: &str) -> Result<Option<BTreeMap<String, String>>> {
    let sql = format!(
        "SELECT engine, engine_full, partition_key, sorting_key, primary_key, sampling_key FROM system.tables \
         WHERE database = {} AND name = {}",
        sql_string(db),
        sql_string(table)
    );
    let Some(row) = text_rows(c, &sql).await?.into_iter().next() else { return Ok(None) };
    let field = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    // system.tables lists a key of several expressions without its parentheses (`id, d`):
    // they are put back, as the key's clause needs them.
    let key = |i: usize| {
        let k = field(i);
        if chwire::sql::top_level(&k).any(|t| t.is_punct(",")) {
            format!("({k})")
        } else {
            k
        }
    };
    let (engine, full) = (field(0), field(1));
    let mut p = BTreeMap::new();
    p.insert("engine".to_string(), engine_with_arguments(&engine, &full).to_string());
    let order_by = key(3);
    for (name, value) in [("partition_by", key(2)), ("order_by", order_by.clone()), ("sample_by", key(5))] {
        if !value.is_empty() {
            p.insert(name.to_string(), value);
        }
    }
    let primary = key(4);
    if !primary.is_empty() && primary != order_by {
        p.insert("primary_key".to_string(), primary);
    }
    if let Some(settings) = settings_clause(&full) {
        p.insert("settings".to_string(), settings.to_string());
    }
    Ok(Some(p))
}

/// `engine` with the arguments `engine_full` gives it (`Name(args)`), else the name alone.
fn engine_with_arguments<'a>(engine: &'a str, full: &'a str) -> &'a str {
    match full.strip_prefix(engine) {
        Some(rest) if rest.starts_with('(') => match chwire::sql::top_level(rest).find(|t| t.is_punct(")")) {
            Some(close) => &full[..engine.len() + close.end()],
            None => engine,
        },
        _ => engine,
    }
}

/// The text of `engine_full`'s SETTINGS clause: after its last top-level `SETTINGS` that a
/// `name =` follows (the clause comes last; a column named `settings` is written bare).
fn settings_clause(full: &str) -> Option<&str> {
    let tokens: Vec<_> = chwire::sql::top_level(full).collect();
    let clause = tokens.windows(3).rev().find(|w| w[0].is_keyword("SETTINGS") && w[1].identifier().is_some() && w[2].is_punct("="))?;
    Some(full[clause[0].end()..].trim())
}

async fn names(c: &mut chwire::Client, sql: &str) -> Result<Vec<String>> {
    Ok(text_rows(c, sql).await?.into_iter().filter_map(|r| r.into_iter().next().flatten()).collect())
}

/// Run one catalog operation on the first host of `opts`' URL that answers.
pub async fn run(opts: &SparkOptions, req: &Request) -> Result<Outcome> {
    let (_, mut c) = crate::write::first_answering(opts).await?;
    let c = &mut c;
    Ok(match req {
        Request::CurrentDatabase => Outcome::Names { names: names(c, "SELECT currentDatabase()").await? },
        Request::Databases => Outcome::Names { names: names(c, "SELECT name FROM system.databases ORDER BY name").await? },
        Request::DatabaseExists { db } => Outcome::Bool { value: database_exists(c, db).await? },
        Request::CreateDatabase { db } => {
            if database_exists(c, db).await? {
                return Ok(Outcome::DatabaseExists { db: db.clone() });
            }
            c.execute(format!("CREATE DATABASE {}", quote_ident(db))).await?;
            Outcome::Done
        }
        Request::DropDatabase { db, cascade } => {
            if server_database(db) {
                return invalid(format!("database {db} is the server's own: the chwire catalog does not drop it"));
            }
            if !database_exists(c, db).await? {
                return Ok(Outcome::NoSuchDatabase { db: db.clone() });
            }
            let tables = names(c, &format!("SELECT name FROM system.tables WHERE database = {}", sql_string(db))).await?;
            if !tables.is_empty() && !cascade {
                return Ok(Outcome::DatabaseNotEmpty { db: db.clone() });
            }
            c.execute(format!("DROP DATABASE {}", quote_ident(db))).await?;
            Outcome::Done
        }
        Request::Tables { db } => {
            if !database_exists(c, db).await? {
                return Ok(Outcome::NoSuchDatabase { db: db.clone() });
            }
            let all = names(c, &format!("SELECT name FROM system.tables WHERE database = {} ORDER BY name", sql_string(db))).await?;
            Outcome::Names { names: all.into_iter().filter(|n| !internal(n)).collect() }
        }
        Request::TableExists { db, table } => Outcome::Bool { value: table_exists(c, db, table).await? },
        Request::TableProperties { db, table } => match table_properties(c, db, table).await? {
            Some(properties) => Outcome::Properties { properties },
            None => Outcome::NoSuchTable { db: db.clone(), table: table.clone() },
        },
        Request::CreateTable { db, table, columns, partitioning, properties } => {
            if !database_exists(c, db).await? {
                return Ok(Outcome::NoSuchDatabase { db: db.clone() });
            }
            if table_exists(c, db, table).await? {
                return Ok(Outcome::TableExists { db: db.clone(), table: table.clone() });
            }
            let types = c.server_types().await?;
            c.execute(create_table_sql(db, table, columns, partitioning, properties, &types)?).await?;
            Outcome::Done
        }
        Request::DropTable { db, table } => {
            if !table_exists(c, db, table).await? {
                return Ok(Outcome::Bool { value: false });
            }
            c.execute(format!("DROP TABLE {}.{}", quote_ident(db), quote_ident(table))).await?;
            Outcome::Bool { value: true }
        }
        Request::RenameTable { db, table, to_db, to_table } => {
            if !table_exists(c, db, table).await? {
                return Ok(Outcome::NoSuchTable { db: db.clone(), table: table.clone() });
            }
            if table_exists(c, to_db, to_table).await? {
                return Ok(Outcome::TableExists { db: to_db.clone(), table: to_table.clone() });
            }
            c.execute(format!(
                "RENAME TABLE {}.{} TO {}.{}",
                quote_ident(db),
                quote_ident(table),
                quote_ident(to_db),
                quote_ident(to_table)
            ))
            .await?;
            Outcome::Done
        }
        Request::CommitStaged { db, table, staged, replace } => {
            if !internal(staged) {
                return invalid(format!("{staged} is not a staging table"));
            }
            let t = format!("{}.{}", quote_ident(db), quote_ident(table));
            let st = format!("{}.{}", quote_ident(db), quote_ident(staged));
            let exists = table_exists(c, db, table).await?;
            if *replace && exists {
                let old = format!("{}.{}", quote_ident(db), quote_ident(&format!("{staged}_old")));
                c.execute(format!("RENAME TABLE {t} TO {old}, {st} TO {t}")).await?;
                c.execute(format!("DROP TABLE {old}")).await?;
            } else if exists {
                return Ok(Outcome::TableExists { db: db.clone(), table: table.clone() });
            } else {
                c.execute(format!("RENAME TABLE {st} TO {t}")).await?;
            }
            Outcome::Done
        }
    })
}

/// [`run`] with the request and its outcome as JSON (the JVM front end's form).
pub async fn run_json(opts: &SparkOptions, request: &str) -> Result<String> {
    let req: Request = serde_json::from_str(request).map_err(|e| Error::Invalid(format!("bad catalog request JSON: {e}")))?;
    Ok(serde_json::to_string(&run(opts, &req).await?).expect("outcome serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// ClickHouse 18.16's families among those the mapping uses.
    fn old() -> ServerTypes {
        ServerTypes::from_families([
            "Int8", "Int16", "Int32", "Int64", "UInt8", "Float32", "Float64", "String", "Date", "DateTime", "Decimal", "Nullable", "Array",
            "Tuple",
        ])
    }

    fn col(name: &str, t: Value, nullable: bool) -> NewColumn {
        NewColumn { name: name.into(), data_type: t, nullable, comment: None }
    }

    #[test]
    fn types_by_server() {
        let ts = json!("timestamp");
        assert_eq!(clickhouse_type(&ts, true, &old()).unwrap(), "Nullable(DateTime)");
        assert_eq!(clickhouse_type(&ts, false, &ServerTypes::all()).unwrap(), "DateTime64(6)");
        assert!(clickhouse_type(&json!("boolean"), false, &old()).unwrap_err().to_string().contains("no Bool"));
        assert_eq!(clickhouse_type(&json!("boolean"), true, &ServerTypes::all()).unwrap(), "Nullable(Bool)");
        assert!(clickhouse_type(&json!("binary"), false, &ServerTypes::all()).is_err());
        assert_eq!(clickhouse_type(&json!("decimal(38,10)"), false, &old()).unwrap(), "Decimal(38, 10)");
        let arr = json!({"type": "array", "elementType": "long", "containsNull": true});
        assert_eq!(clickhouse_type(&arr, true, &old()).unwrap(), "Array(Nullable(Int64))");
        let map = json!({"type": "map", "keyType": "string", "valueType": "double", "valueContainsNull": false});
        assert!(clickhouse_type(&map, false, &old()).is_err());
        assert_eq!(clickhouse_type(&map, true, &ServerTypes::all()).unwrap(), "Map(String, Float64)");
        let st = json!({"type": "struct", "fields": [{"name": "a`b", "type": "integer", "nullable": false, "metadata": {}}]});
        assert_eq!(clickhouse_type(&st, true, &ServerTypes::all()).unwrap(), "Tuple(`a\\`b` Int32)");
        assert!(clickhouse_type(&json!("interval day"), false, &old()).unwrap_err().to_string().contains("interval day"));
        assert!(clickhouse_type(&json!("decimal(x,1)"), false, &old()).is_err());
        assert_eq!(clickhouse_type(&json!("string collate UTF8_BINARY"), false, &old()).unwrap(), "String");
        let e = clickhouse_type(&json!("string collate UTF8_LCASE"), false, &old()).unwrap_err().to_string();
        assert!(e.contains("UTF8_LCASE") && e.contains("by their bytes"), "{e}");
        let e = clickhouse_type(&json!("varchar(10)"), true, &ServerTypes::all()).unwrap_err().to_string();
        assert!(e.contains("varchar(10)") && e.contains("declare the column STRING"), "{e}");
        assert!(clickhouse_type(&json!("char(3)"), false, &old()).is_err());
    }

    #[test]
    fn engines_keep_their_arguments_and_clauses_are_found_outside_quotes() {
        let full = "ReplacingMergeTree(v) PARTITION BY toYYYYMM(d) ORDER BY (id, d) SETTINGS index_granularity = 4096";
        assert_eq!(engine_with_arguments("ReplacingMergeTree", full), "ReplacingMergeTree(v)");
        assert_eq!(engine_with_arguments("MergeTree", "MergeTree ORDER BY id"), "MergeTree");
        assert_eq!(engine_with_arguments("Memory", ""), "Memory");
        let odd = "Distributed('c', 'd', 't)(', rand()) SETTINGS fsync_after_insert = 0";
        assert_eq!(engine_with_arguments("Distributed", odd), "Distributed('c', 'd', 't)(', rand())");
        assert_eq!(settings_clause(full), Some("index_granularity = 4096"));
        assert_eq!(settings_clause("MergeTree ORDER BY (a, ' SETTINGS x')"), None);
        // Quotes as ClickHouse reads them: a doubled quote, an escaped one, a quoted name.
        assert_eq!(settings_clause("MergeTree ORDER BY ('it''s SETTINGS', 'a\\' SETTINGS')"), None);
        assert_eq!(settings_clause("MergeTree ORDER BY `SETTINGS` SETTINGS x = 1"), Some("x = 1"));
        // A column named settings, written bare by the server.
        assert_eq!(settings_clause("MergeTree ORDER BY settings SETTINGS index_granularity = 8192"), Some("index_granularity = 8192"));
        assert_eq!(settings_clause("MergeTree ORDER BY settings"), None);
        assert_eq!(engine_with_arguments("Bad", "Bad(unclosed"), "Bad");
        let comma = |s: &str| chwire::sql::top_level(s).any(|t| t.is_punct(","));
        assert!(comma("id, d") && !comma("tuple(id, d)"));
    }

    #[test]
    fn create_statement() {
        let cols = [col("id", json!("long"), false), col("v", json!("string"), true)];
        let mut props = BTreeMap::new();
        props.insert("provider".to_string(), "chwire".to_string());
        props.insert("owner".to_string(), "me".to_string());
        props.insert("order_by".to_string(), "id".to_string());
        let sql = create_table_sql("d", "t", &cols, &[], &props, &old()).unwrap();
        assert_eq!(sql, "CREATE TABLE `d`.`t` (`id` Int64, `v` Nullable(String)) ENGINE = MergeTree() ORDER BY id");
        // The default order, and partitions from PARTITIONED BY.
        let parts = [Transform { name: "days".into(), columns: vec!["ts".into()] }];
        let sql = create_table_sql("d", "t", &cols, &parts, &BTreeMap::new(), &old()).unwrap();
        assert!(sql.ends_with("ENGINE = MergeTree() PARTITION BY toYYYYMMDD(`ts`) ORDER BY tuple()"), "{sql}");
        // Other engines take no ORDER BY; unknown properties and other providers are refused.
        let mut log = BTreeMap::new();
        log.insert("engine".to_string(), "Log".to_string());
        assert!(create_table_sql("d", "t", &cols, &[], &log, &old()).unwrap().ends_with("ENGINE = Log()"));
        log.insert("order_by".to_string(), "id".to_string());
        assert!(create_table_sql("d", "t", &cols, &[], &log, &old()).is_err());
        let mut bad = BTreeMap::new();
        bad.insert("engin".to_string(), "Log".to_string());
        assert!(create_table_sql("d", "t", &cols, &[], &bad, &old()).unwrap_err().to_string().contains("engin"));
        // A writer's options arrive as option.*: its engine clauses count, its others do not.
        let mut opts = BTreeMap::new();
        opts.insert("option.url".to_string(), "tcp://h".to_string());
        opts.insert("option.order_by".to_string(), "id".to_string());
        assert!(create_table_sql("d", "t", &cols, &[], &opts, &old()).unwrap().ends_with("ORDER BY id"));
        assert!(create_table_sql("d", "t", &[], &[], &opts, &old()).is_err());
        let bucket = [Transform { name: "bucket".into(), columns: vec!["id".into()] }];
        assert!(create_table_sql("d", "t", &cols, &bucket, &BTreeMap::new(), &old()).is_err());
    }

    #[test]
    fn requests_as_json() {
        let r: Request = serde_json::from_str(r#"{"op":"tables","db":"x"}"#).unwrap();
        assert_eq!(r, Request::Tables { db: "x".into() });
        let o = serde_json::to_string(&Outcome::NoSuchTable { db: "a".into(), table: "b".into() }).unwrap();
        assert_eq!(o, r#"{"outcome":"no_such_table","db":"a","table":"b"}"#);
        assert!(internal("chwire_stage_0123_1_0_1") && !internal("events"));
        assert!(server_database("system") && server_database("INFORMATION_SCHEMA") && server_database("information_schema"));
        assert!(!server_database("System") && !server_database("default"));
    }
}
