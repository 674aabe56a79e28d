//! GetObjects: the server's one catalog, its databases (ADBC's db schemas), their tables and
//! columns, read from `system.databases`, `system.tables` and `system.columns`. Filters are
//! search patterns (`%`, `_`, `\` escapes, as SQL's LIKE), applied to what the server lists.
//!
//! A session's temporary tables belong to no database: `system.tables` lists them with the
//! database `''` (and `system.columns` of 18.16 not at all), so they are the db schema `""`
//! (listed while the session has one), of type `LOCAL TEMPORARY`, their columns read with
//! `DESCRIBE TABLE`. An empty db schema is also what ingest and GetTableSchema take for them.

use crate::error::{internal, invalid_arg};
use crate::session::Inner;
use crate::CATALOG;
use adbc_core::error::Result;
use adbc_core::options::ObjectDepth;
use adbc_core::schemas::{COLUMN_SCHEMA, GET_OBJECTS_SCHEMA};
use arrow_array::{
    new_empty_array, new_null_array, Array, ArrayRef, BooleanArray, Int16Array, Int32Array, ListArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, FieldRef, Fields};
use chwire::sql::quote_identifier;
use std::sync::Arc;

/// ClickHouse's kinds of tables, as GetObjects reports them: the table types of GetTableTypes and GetObjects' filter.
pub const TABLE_TYPES: [&str; 5] = ["TABLE", "VIEW", "MATERIALIZED VIEW", "DICTIONARY", "LOCAL TEMPORARY"];

pub struct Filters<'a> {
    pub catalog: Option<&'a str>,
    pub db_schema: Option<&'a str>,
    pub table_name: Option<&'a str>,
    pub table_type: Option<Vec<&'a str>>,
    pub column_name: Option<&'a str>,
}

/// SQL LIKE: `%` any run of characters, `_` one character, `\\` makes the next one literal.
/// Greedy matching with backtracking to the last `%` only: O(text × pattern) at worst.
pub fn like(text: &str, pattern: &str) -> bool {
    enum Tok {
        Any,
        One,
        Lit(char),
    }
    let mut toks = Vec::new();
    let mut it = pattern.chars();
    while let Some(c) = it.next() {
        toks.push(match c {
            '%' => Tok::Any,
            '_' => Tok::One,
            '\\' => Tok::Lit(it.next().unwrap_or('\\')),
            c => Tok::Lit(c),
        });
    }
    let t: Vec<char> = text.chars().collect();
    let (mut ti, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match toks.get(pi) {
            Some(Tok::Any) => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(Tok::One) => {
                ti += 1;
                pi += 1;
            }
            Some(Tok::Lit(c)) if *c == t[ti] => {
                ti += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    toks[pi..].iter().all(|t| matches!(t, Tok::Any))
}

fn matches(filter: Option<&str>, name: &str) -> bool {
    filter.is_none_or(|p| like(name, p))
}

struct Col {
    name: String,
    ordinal: i32,
    ty: String,
    default: Option<String>,
    comment: Option<String>,
}

struct Table {
    name: String,
    kind: &'static str,
    columns: Vec<Col>,
}

struct Db {
    name: String,
    tables: Vec<Table>,
}

fn table_type(engine: &str, temporary: bool) -> &'static str {
    match engine {
        _ if temporary => "LOCAL TEMPORARY",
        "View" => "VIEW",
        "MaterializedView" => "MATERIALIZED VIEW",
        "Dictionary" => "DICTIONARY",
        _ => "TABLE",
    }
}

/// The db schema of a session's temporary tables (their `database` in `system.tables`).
pub const TEMPORARY_DB_SCHEMA: &str = "";

pub fn get_objects(inner: &Arc<Inner>, depth: ObjectDepth, f: &Filters<'_>) -> Result<RecordBatch> {
    if let Some(types) = &f.table_type {
        if let Some(t) = types.iter().find(|t| !TABLE_TYPES.contains(t)) {
            return Err(invalid_arg(format!("unknown table type {t:?} (ClickHouse's are {TABLE_TYPES:?})")));
        }
    }
    let schema = GET_OBJECTS_SCHEMA.clone();
    if !matches(f.catalog, CATALOG) {
        return Ok(RecordBatch::new_empty(schema));
    }
    let mut dbs = Vec::new();
    if depth != ObjectDepth::Catalogs {
        // The session's temporary tables first: "" sorts before every database's name.
        if matches(f.db_schema, TEMPORARY_DB_SCHEMA) {
            let b = inner.fetch("SELECT name FROM system.tables WHERE is_temporary LIMIT 1".into(), vec![])?;
            if Inner::strings(&b, 0).into_iter().flatten().next().is_some() {
                dbs.push(Db { name: TEMPORARY_DB_SCHEMA.to_string(), tables: Vec::new() });
            }
        }
        let b = inner.fetch("SELECT name FROM system.databases ORDER BY name".into(), vec![])?;
        for name in Inner::strings(&b, 0).into_iter().flatten() {
            if name != TEMPORARY_DB_SCHEMA && matches(f.db_schema, &name) {
                dbs.push(Db { name, tables: Vec::new() });
            }
        }
    }
    let tables_too = matches!(depth, ObjectDepth::Tables | ObjectDepth::Columns | ObjectDepth::All);
    if tables_too && !dbs.is_empty() {
        let b = inner.fetch("SELECT database, name, engine, is_temporary FROM system.tables ORDER BY database, name".into(), vec![])?;
        let (d, n, e, t) = (Inner::strings(&b, 0), Inner::strings(&b, 1), Inner::strings(&b, 2), Inner::flags(&b, 3));
        for i in 0..n.len() {
            let (Some(Some(db)), Some(Some(name))) = (d.get(i), n.get(i)) else { continue };
            let kind = table_type(e.get(i).cloned().flatten().as_deref().unwrap_or(""), t.get(i).copied().unwrap_or(false));
            if !matches(f.table_name, name) || f.table_type.as_ref().is_some_and(|ts| !ts.contains(&kind)) {
                continue;
            }
            if let Some(entry) = dbs.iter_mut().find(|x| &x.name == db) {
                entry.tables.push(Table { name: name.clone(), kind, columns: Vec::new() });
            }
        }
    }
    let columns_too = matches!(depth, ObjectDepth::Columns | ObjectDepth::All);
    if columns_too && dbs.iter().any(|d| d.name != TEMPORARY_DB_SCHEMA && !d.tables.is_empty()) {
        // system.columns lists each table's columns in the table's order (18.16 has no
        // `position` column): the ordinal is the place in that list, before any filter.
        let b = inner.fetch("SELECT database, table, name, type, default_expression, comment FROM system.columns".into(), vec![])?;
        let cols: Vec<Vec<Option<String>>> = (0..6).map(|i| Inner::strings(&b, i)).collect();
        let mut last: Option<(String, String)> = None;
        let mut ordinal = 0;
        for i in 0..cols[0].len() {
            let get = |c: usize| cols[c].get(i).cloned().flatten();
            let (Some(db), Some(table), Some(name)) = (get(0), get(1), get(2)) else { continue };
            let key = (db.clone(), table.clone());
            if last.as_ref() != Some(&key) {
                ordinal = 0;
                last = Some(key);
            }
            ordinal += 1;
            // Temporary tables' columns come from DESCRIBE below (servers that list them
            // here too would give them twice).
            if db == TEMPORARY_DB_SCHEMA || !matches(f.column_name, &name) {
                continue;
            }
            let Some(t) = dbs.iter_mut().find(|x| x.name == db).and_then(|d| d.tables.iter_mut().find(|t| t.name == table)) else {
                continue;
            };
            t.columns.push(Col {
                name,
                ordinal,
                ty: get(3).unwrap_or_default(),
                default: get(4).filter(|s| !s.is_empty()),
                comment: get(5).filter(|s| !s.is_empty()),
            });
        }
    }
    if columns_too {
        if let Some(temp) = dbs.iter_mut().find(|d| d.name == TEMPORARY_DB_SCHEMA) {
            for t in &mut temp.tables {
                t.columns = describe(inner, &t.name, f.column_name)?;
            }
        }
    }
    build(schema, depth, dbs)
}

/// The columns of a temporary table, by `DESCRIBE TABLE` (name, type, default kind, default
/// expression, comment: the first five columns on every server), those matching `filter`
/// with their place in the table.
fn describe(inner: &Arc<Inner>, table: &str, filter: Option<&str>) -> Result<Vec<Col>> {
    let b = inner.fetch(format!("DESCRIBE TABLE {}", quote_identifier(table)), vec![])?;
    let cols: Vec<Vec<Option<String>>> = (0..5).map(|i| Inner::strings(&b, i)).collect();
    let mut out = Vec::new();
    for (i, name) in cols[0].iter().enumerate() {
        let Some(name) = name else { continue };
        if !matches(filter, name) {
            continue;
        }
        let get = |c: usize| cols[c].get(i).cloned().flatten().filter(|s| !s.is_empty());
        out.push(Col {
            name: name.clone(),
            ordinal: i32::try_from(i + 1).map_err(|_| internal("a table of more than 2^31 columns"))?,
            ty: get(1).unwrap_or_default(),
            default: get(3),
            comment: get(4),
        });
    }
    Ok(out)
}

fn list_item(dt: &DataType) -> Result<FieldRef> {
    match dt {
        DataType::List(f) => Ok(f.clone()),
        _ => Err(internal("GetObjects' schema: a list was expected")),
    }
}

fn struct_fields(dt: &DataType) -> Result<Fields> {
    match dt {
        DataType::Struct(f) => Ok(f.clone()),
        _ => Err(internal("GetObjects' schema: a struct was expected")),
    }
}

/// A list array of `values` cut by `lengths` (None: a NULL list).
fn list(list_type: &DataType, lengths: &[Option<usize>], values: ArrayRef) -> Result<ArrayRef> {
    let item = list_item(list_type)?;
    let offsets = OffsetBuffer::<i32>::from_lengths(lengths.iter().map(|l| l.unwrap_or(0)));
    let nulls = lengths.iter().any(Option::is_none).then(|| NullBuffer::from(lengths.iter().map(Option::is_some).collect::<Vec<_>>()));
    Ok(Arc::new(ListArray::try_new(item, offsets, values, nulls)?))
}

fn build(schema: arrow_schema::SchemaRef, depth: ObjectDepth, dbs: Vec<Db>) -> Result<RecordBatch> {
    let schemas_list_type = schema.field(1).data_type().clone();
    let db_fields = struct_fields(list_item(&schemas_list_type)?.data_type())?;
    let tables_list_type = db_fields[1].data_type().clone();
    let table_fields = struct_fields(list_item(&tables_list_type)?.data_type())?;
    let columns_list_type = table_fields[2].data_type().clone();
    let constraints_list_type = table_fields[3].data_type().clone();
    let col_fields = struct_fields(&COLUMN_SCHEMA)?;

    let with_tables = matches!(depth, ObjectDepth::Tables | ObjectDepth::Columns | ObjectDepth::All);
    let with_columns = matches!(depth, ObjectDepth::Columns | ObjectDepth::All);

    // Columns, flattened over every table of every database.
    let all_cols: Vec<&Col> = dbs.iter().flat_map(|d| d.tables.iter().flat_map(|t| t.columns.iter())).collect();
    let n = all_cols.len();
    let strs = |f: &dyn Fn(&Col) -> Option<String>| -> ArrayRef { Arc::new(all_cols.iter().map(|c| f(c)).collect::<StringArray>()) };
    let nullable = |c: &Col| c.ty.starts_with("Nullable(") || c.ty.starts_with("LowCardinality(Nullable(");
    let mut col_arrays: Vec<ArrayRef> = Vec::new();
    for field in col_fields.iter() {
        let a: ArrayRef = match field.name().as_str() {
            "column_name" => strs(&|c| Some(c.name.clone())),
            "ordinal_position" => Arc::new(all_cols.iter().map(|c| Some(c.ordinal)).collect::<Int32Array>()),
            "remarks" => strs(&|c| c.comment.clone()),
            "xdbc_type_name" => strs(&|c| Some(c.ty.clone())),
            "xdbc_nullable" => Arc::new(all_cols.iter().map(|c| Some(i16::from(nullable(c)))).collect::<Int16Array>()),
            "xdbc_is_nullable" => strs(&|c| Some(if nullable(c) { "YES" } else { "NO" }.to_string())),
            "xdbc_column_def" => strs(&|c| c.default.clone()),
            "xdbc_is_autoincrement" => Arc::new(all_cols.iter().map(|_| Some(false)).collect::<BooleanArray>()),
            "xdbc_is_generatedcolumn" => Arc::new(all_cols.iter().map(|_| Some(false)).collect::<BooleanArray>()),
            _ => new_null_array(field.data_type(), n),
        };
        col_arrays.push(a);
    }
    let columns = Arc::new(StructArray::try_new(col_fields.clone(), col_arrays, None)?);

    // Tables.
    let all_tables: Vec<&Table> = dbs.iter().flat_map(|d| d.tables.iter()).collect();
    let col_lengths: Vec<Option<usize>> = all_tables.iter().map(|t| with_columns.then_some(t.columns.len())).collect();
    let table_columns = list(&columns_list_type, &col_lengths, columns)?;
    let constraint_item = list_item(&constraints_list_type)?;
    let constraints = list(
        &constraints_list_type,
        &all_tables.iter().map(|_| with_columns.then_some(0)).collect::<Vec<_>>(),
        new_empty_array(constraint_item.data_type()),
    )?;
    let tables = Arc::new(StructArray::try_new(
        table_fields.clone(),
        vec![
            Arc::new(all_tables.iter().map(|t| Some(t.name.clone())).collect::<StringArray>()),
            Arc::new(all_tables.iter().map(|t| Some(t.kind)).collect::<StringArray>()),
            table_columns,
            constraints,
        ],
        None,
    )?);

    // Databases.
    let table_lengths: Vec<Option<usize>> = dbs.iter().map(|d| with_tables.then_some(d.tables.len())).collect();
    let db_tables = list(&tables_list_type, &table_lengths, tables)?;
    let db_struct = Arc::new(StructArray::try_new(
        db_fields.clone(),
        vec![Arc::new(dbs.iter().map(|d| Some(d.name.clone())).collect::<StringArray>()), db_tables],
        None,
    )?);

    // The catalog.
    let catalog_schemas = list(&schemas_list_type, &[(depth != ObjectDepth::Catalogs).then_some(dbs.len())], db_struct)?;
    let catalog_names: ArrayRef = Arc::new(StringArray::from(vec![CATALOG]));
    debug_assert_eq!(catalog_names.len(), 1);
    Ok(RecordBatch::try_new(schema, vec![catalog_names, catalog_schemas])?)
}

#[cfg(test)]
mod tests {
    use super::like;

    #[test]
    fn like_patterns() {
        assert!(like("default", "def%"));
        assert!(like("default", "%"));
        assert!(like("default", "d_fault"));
        assert!(!like("default", "d_ault"));
        assert!(like("a_b", "a\\_b"));
        assert!(!like("axb", "a\\_b"));
        assert!(like("", "%"));
        assert!(!like("x", ""));
    }
}
