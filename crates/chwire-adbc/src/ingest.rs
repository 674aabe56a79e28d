//! Bulk ingest (`adbc.ingest.*`): CREATE TABLE from the Arrow schema through chwire-arrow's
//! Arrow → ClickHouse type mapping (`clickhouse_type_for`, the mapping of `insert_arrow` and
//! the CLI's inference) spelled in the server's types (`ServerTypes::adapt`, shared with the
//! Spark catalog: `Date32` → `Date` and so on where the server is older), then the batches as chwire's `insert_arrow` sends them (each batch
//! converted to the table's types by `batch_into_block`, lossless casts only, in blocks of at
//! most 2^20 rows), taken from a channel that the calling thread fills from the bound data.

use crate::error::{invalid_arg, invalid_data, invalid_state, ChResult};
use adbc_core::error::Result;
use adbc_core::options::IngestMode;
use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, Schema, SchemaRef};
use chwire::sql::{quote_identifier, InsertTarget, TableRef};
use chwire::{DataType, ServerTypes};

/// The engine of tables created by ingest unless `chwire.ingest.engine` says otherwise.
pub const DEFAULT_ENGINE: &str = "MergeTree";
/// Their ORDER BY (MergeTree family) unless `chwire.ingest.order_by` says otherwise.
pub const DEFAULT_ORDER_BY: &str = "tuple()";

/// `db.table` (or `table`): ADBC names the two apart, unquoted.
pub fn qualified(db: Option<&str>, table: &str) -> TableRef {
    match db {
        Some(d) if !d.is_empty() => TableRef::qualified(d, table),
        _ => TableRef::new(table),
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
    /// The core's insert options (`chwire.block_rows`); also for bound data's INSERT.
    pub insert: chwire::InsertOptions,
}

impl IngestOptions {
    pub fn table(&self) -> Result<TableRef> {
        let t = self.target.as_deref().ok_or_else(|| invalid_state("no adbc.ingest.target_table"))?;
        if let Some(c) = self.catalog.as_deref().filter(|c| !c.is_empty() && *c != crate::CATALOG) {
            return Err(crate::error::not_found(format!("no catalog {c:?}: a ClickHouse server has one catalog, {:?}", crate::CATALOG)));
        }
        if self.temporary && self.db_schema.as_deref().is_some_and(|d| !d.is_empty()) {
            return Err(invalid_state("a temporary table has no database: unset adbc.ingest.target_db_schema"));
        }
        Ok(qualified(self.db_schema.as_deref(), t))
    }

    /// The CREATE TABLE statement for `schema` on a server with `types` (each column's type
    /// spelled in the server's types: [`ServerTypes::adapt`], the rule the Spark catalog uses).
    pub fn create_sql(&self, schema: &Schema, if_not_exists: bool, types: &ServerTypes) -> Result<String> {
        if schema.fields().is_empty() {
            return Err(invalid_arg("the data to ingest has no columns"));
        }
        let cols: Vec<String> = self.column_types(schema, types)?.iter().map(|(n, ty)| format!("{} {ty}", quote_identifier(n))).collect();
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

    /// The name and type of each column of a table created for `schema` on a server with
    /// `types`.
    pub fn column_types(&self, schema: &Schema, types: &ServerTypes) -> Result<Vec<(String, DataType)>> {
        schema
            .fields()
            .iter()
            .map(|f| {
                let ty = chwire_arrow::clickhouse_type_for(f).ch()?;
                let ty = types.adapt(&ty).map_err(|e| invalid_arg(format!("column {:?}: {e}", f.name())))?;
                if let Some(what) = no_table_column(&ty) {
                    return Err(invalid_arg(format!(
                        "column {:?}: its type {ty} cannot be a table's column ({what}); cast it, or give it a clickhouse.type",
                        f.name()
                    )));
                }
                Ok((f.name().clone(), ty))
            })
            .collect()
    }

    /// Whether the mode creates a table (and needs the server's types).
    pub fn creates(&self) -> bool {
        !matches!(self.mode, Some(IngestMode::Append))
    }

    /// The statements before the insert, by mode.
    pub fn prepare_sql(&self, schema: &Schema, types: &ServerTypes) -> Result<Vec<String>> {
        let table = self.table()?;
        Ok(match self.mode.unwrap_or(IngestMode::Create) {
            IngestMode::Create => vec![self.create_sql(schema, false, types)?],
            IngestMode::Append => vec![],
            IngestMode::Replace => vec![
                format!("DROP {}TABLE IF EXISTS {table}", if self.temporary { "TEMPORARY " } else { "" }),
                self.create_sql(schema, false, types)?,
            ],
            IngestMode::CreateAppend => vec![self.create_sql(schema, true, types)?],
        })
    }
}

/// Why no table can have a column of `ty`, if none can: Arrow's null type maps to `Nothing` and
/// durations to `Interval*`, which ClickHouse has for values but not for stored columns.
fn no_table_column(ty: &DataType) -> Option<&'static str> {
    match ty {
        DataType::Nothing => Some("Nothing, the type of NULL, holds no values"),
        DataType::Interval(_) => Some("intervals are not stored in tables"),
        DataType::Nullable(t) | DataType::Array(t) | DataType::LowCardinality(t) => no_table_column(t),
        DataType::Map(k, v) => no_table_column(k).or_else(|| no_table_column(v)),
        DataType::Tuple(items) => items.iter().find_map(|(_, t)| no_table_column(t)),
        _ => None,
    }
}

/// Batches handed from the thread that reads the bound data to the task that sends them.
pub type Batches = tokio::sync::mpsc::Receiver<std::result::Result<RecordBatch, ArrowError>>;

/// Create (by mode) and fill the table; the number of rows inserted. `schema` is the bound
/// data's; its batches arrive through `batches`.
pub async fn ingest(
    c: &mut chwire::Client,
    opts: &IngestOptions,
    settings: &[(String, String)],
    schema: SchemaRef,
    batches: Batches,
) -> Result<i64> {
    let mut batches = batches;
    let mut first = None;
    let types = if opts.creates() {
        let types = c.server_types().await.ch()?;
        // The first batch is converted to the table's types before anything is created or
        // dropped: a value they cannot hold (on an older server a date before 1970, a fraction
        // of a second) refuses the ingest with the table as it was.
        first = batches.recv().await;
        if let Some(Ok(batch)) = &first {
            let target = opts.column_types(&schema, &types)?;
            chwire_arrow::batch_into_block(batch.clone(), &target)
                .map_err(|e| invalid_data(format!("Arrow conversion: {e}; nothing was created or inserted")))?;
        }
        types
    } else {
        ServerTypes::all()
    };
    for sql in opts.prepare_sql(&schema, &types)? {
        c.execute(sql).await.ch()?;
    }
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let sql = InsertTarget::values(opts.table()?, Some(names)).to_string();
    let res = insert_batches(c, sql, settings, &opts.insert, first, batches, false).await;
    if res.is_err() && matches!(opts.mode.unwrap_or(IngestMode::Create), IngestMode::Create) {
        // The table this ingest created goes again: a failed create leaves nothing behind, and
        // the error must not count rows that were inserted into it.
        let _ = c.execute(format!("DROP {}TABLE IF EXISTS {}", if opts.temporary { "TEMPORARY " } else { "" }, opts.table()?)).await;
        return res.map_err(|mut e| {
            e.message.push_str(" (the table this ingest created was dropped again: nothing of it stays)");
            e
        });
    }
    res
}

/// An error of the core's Arrow insert: data it refused (the INSERT ended, what was sent
/// committed) or a failure that leaves the INSERT to be aborted.
fn refused_or_aborted(e: chwire::Error) -> Result<Result<i64>> {
    if matches!(e.kind(), chwire::ErrorKind::InvalidInput(_)) {
        return Ok(Err(invalid_data(e.to_string())));
    }
    Err(crate::error::from_chwire(e))
}

/// Run the INSERT `sql` with the batches of `batches` as its rows: each batch converted to the
/// INSERT's columns (chwire-arrow's lossless conversion, `batch_into_block`) in blocks of
/// 2^20 rows (the core's `block_rows`). `by_position`: the batches' columns are the INSERT's in order, whatever their
/// names (bound data of `INSERT INTO t VALUES`); else they are matched by name (ingest, whose
/// INSERT names the batches' columns). The number of rows sent.
///
/// The batches are read by the thread that called the driver (see `ChwireStatement::pump`), not
/// here: a reader may block (a Python generator, another connection's result stream), and this
/// runs on a runtime thread that serves other connections too.
pub async fn insert_batches(
    c: &mut chwire::Client,
    sql: String,
    settings: &[(String, String)],
    insert: &chwire::InsertOptions,
    first: Option<std::result::Result<RecordBatch, ArrowError>>,
    mut batches: Batches,
    by_position: bool,
) -> Result<i64> {
    // Ok(Err(_)): data refused, the INSERT ended with the blocks before it committed (the
    // core's rule; the connection, and the session's temporary tables, stay); Err(_): aborted
    // mid-way.
    let res: Result<Result<i64>> = async {
        let mut q = c.query(sql);
        for (k, v) in settings {
            q = q.setting(k.clone(), v.clone());
        }
        // The core's Arrow insert: batches gathered or cut into blocks, converted and checked.
        let mut ins = q.insert_arrow().await.ch()?.by_position(by_position).options(insert);
        let mut first = first;
        loop {
            let batch = match first.take() {
                Some(b) => b,
                None => match batches.recv().await {
                    Some(b) => b,
                    None => break,
                },
            };
            let sent = match batch {
                Ok(batch) => ins.send_batch(batch).await,
                Err(e) => Err(ins.refuse(format!("reading the bound data: {e}")).await),
            };
            if let Err(e) = sent {
                return refused_or_aborted(e);
            }
        }
        match ins.end().await {
            Ok(summary) => Ok(Ok(i64::try_from(summary.rows_sent).unwrap_or(i64::MAX))),
            Err(e) => refused_or_aborted(e),
        }
    }
    .await;
    match res {
        Ok(res) => res,
        Err(e) => {
            close_aborted_insert(c).await;
            Err(e)
        }
    }
}

/// An insert that failed half-way leaves the client's connection to be closed at its next use
/// (closing it is what aborts the INSERT on the server): close it now, or the server keeps the
/// INSERT (and its table lock) open while the ADBC connection sits idle.
pub async fn close_aborted_insert(c: &mut chwire::Client) {
    let _ = c.ping().await;
}
