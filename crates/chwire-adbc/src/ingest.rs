//! Bulk ingest (`adbc.ingest.*`): CREATE TABLE from the Arrow schema through chwire-arrow's
//! Arrow → ClickHouse type mapping (`clickhouse_type_for`, the mapping of `insert_arrow` and
//! the CLI's inference), then the batches through chwire's `insert_arrow_reader` (each batch
//! converted to the table's types, lossless casts only, in blocks of at most 2^20 rows).

use crate::error::{invalid_arg, invalid_state, ChResult};
use adbc_core::error::Result;
use adbc_core::options::IngestMode;
use arrow_array::RecordBatchReader;
use arrow_schema::Schema;
use chwire::proto::packet::client::quote_identifier;

/// The engine of tables created by ingest unless `chwire.ingest.engine` says otherwise.
pub const DEFAULT_ENGINE: &str = "MergeTree";
/// Their ORDER BY (MergeTree family) unless `chwire.ingest.order_by` says otherwise.
pub const DEFAULT_ORDER_BY: &str = "tuple()";

/// `db.table` (or `table`), each name quoted.
pub fn qualified(db: Option<&str>, table: &str) -> String {
    match db {
        Some(d) if !d.is_empty() => format!("{}.{}", quote_identifier(d), quote_identifier(table)),
        _ => quote_identifier(table),
    }
}

#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    pub target: Option<String>,
    pub db_schema: Option<String>,
    pub catalog: Option<String>,
    pub mode: Option<IngestMode>,
    pub temporary: bool,
    pub engine: Option<String>,
    pub order_by: Option<String>,
}

impl IngestOptions {
    pub fn table(&self) -> Result<String> {
        let t = self.target.as_deref().ok_or_else(|| invalid_state("no adbc.ingest.target_table"))?;
        if let Some(c) = self.catalog.as_deref().filter(|c| !c.is_empty() && *c != crate::CATALOG) {
            return Err(crate::error::not_found(format!("no catalog {c:?}: a ClickHouse server has one catalog, {:?}", crate::CATALOG)));
        }
        if self.temporary && self.db_schema.as_deref().is_some_and(|d| !d.is_empty()) {
            return Err(invalid_state("a temporary table has no database: unset adbc.ingest.target_db_schema"));
        }
        Ok(qualified(self.db_schema.as_deref(), t))
    }

    /// The CREATE TABLE statement for `schema`.
    pub fn create_sql(&self, schema: &Schema, if_not_exists: bool) -> Result<String> {
        if schema.fields().is_empty() {
            return Err(invalid_arg("the data to ingest has no columns"));
        }
        let mut cols = Vec::new();
        for f in schema.fields() {
            let ty = chwire_arrow::clickhouse_type_for(f).ch()?;
            cols.push(format!("{} {ty}", quote_identifier(f.name())));
        }
        let engine = match (&self.engine, self.temporary) {
            (Some(e), _) => e.clone(),
            (None, true) => "Memory".to_string(),
            (None, false) => DEFAULT_ENGINE.to_string(),
        };
        let order_by = match &self.order_by {
            Some(o) => format!(" ORDER BY {o}"),
            None if engine.contains("MergeTree") && !engine.contains("ORDER BY") => format!(" ORDER BY {DEFAULT_ORDER_BY}"),
            None => String::new(),
        };
        Ok(format!(
            "CREATE {}TABLE {}{} ({}) ENGINE = {engine}{order_by}",
            if self.temporary { "TEMPORARY " } else { "" },
            if if_not_exists { "IF NOT EXISTS " } else { "" },
            self.table()?,
            cols.join(", ")
        ))
    }

    /// The statements before the insert, by mode.
    pub fn prepare_sql(&self, schema: &Schema) -> Result<Vec<String>> {
        let table = self.table()?;
        Ok(match self.mode.unwrap_or(IngestMode::Create) {
            IngestMode::Create => vec![self.create_sql(schema, false)?],
            IngestMode::Append => vec![],
            IngestMode::Replace => vec![
                format!("DROP {}TABLE IF EXISTS {table}", if self.temporary { "TEMPORARY " } else { "" }),
                self.create_sql(schema, false)?,
            ],
            IngestMode::CreateAppend => vec![self.create_sql(schema, true)?],
        })
    }
}

/// Create (by mode) and fill the table; the number of rows inserted.
pub async fn ingest(c: &mut chwire::Client, opts: &IngestOptions, reader: Box<dyn RecordBatchReader + Send>) -> Result<i64> {
    let schema = reader.schema();
    for sql in opts.prepare_sql(&schema)? {
        c.execute(sql).await.ch()?;
    }
    let res = c.insert_arrow_reader(&opts.table()?, reader).await.ch();
    if res.is_err() {
        close_aborted_insert(c).await;
    }
    Ok(res?.rows_sent as i64)
}

/// An insert that failed half-way leaves the client's connection to be closed at its next use
/// (closing it is what aborts the INSERT on the server): close it now, or the server keeps the
/// INSERT (and its table lock) open while the ADBC connection sits idle.
pub async fn close_aborted_insert(c: &mut chwire::Client) {
    let _ = c.ping().await;
}
