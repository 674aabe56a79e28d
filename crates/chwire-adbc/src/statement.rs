//! A statement: SQL (or a bulk ingest), bound parameters or data, and its latest result.

use crate::error::{invalid_arg, invalid_state, not_found, not_implemented, ChResult};
use crate::ingest::{Batches, IngestOptions};
use crate::options::{string_value, take_arrow_settings};
use crate::params::{bind_rows, ParamSet};
use crate::reader::{query_task, Job, StreamReader, BUFFERED};
use crate::session::{Inner, Running};
use adbc_core::error::Result;
use adbc_core::options::{OptionStatement, OptionValue};
use adbc_core::{CancelHandle, Optionable, PartitionedResult, Statement};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::Schema;
use chwire::bindings::Feed;
use chwire::sql::StatementKind;
use std::sync::Arc;
use tokio::sync::mpsc;

/// `adbc.statement.bind_by_name` (ADBC 1.1's DB-API sets it for dict parameters).
pub const BIND_BY_NAME: &str = "adbc.statement.bind_by_name";
/// Statement options `chwire.setting.<name>`: ClickHouse settings of this statement's queries.
pub const SETTING_PREFIX: &str = "chwire.setting.";
pub const ENGINE: &str = "chwire.ingest.engine";
pub const ORDER_BY: &str = "chwire.ingest.order_by";
/// Statement option `chwire.block_rows`: rows per block an ingest or an INSERT of bound data
/// sends (the core's insert option `block_rows`).
pub const BLOCK_ROWS: &str = "chwire.block_rows";

enum Bound {
    Batch(RecordBatch),
    Stream(Box<dyn RecordBatchReader + Send>),
}

/// An ADBC statement of a [`ChwireConnection`](crate::ChwireConnection): a query (with bound
/// parameters) or a bulk ingest of bound Arrow data.
pub struct ChwireStatement {
    inner: Arc<Inner>,
    sql: Option<String>,
    bound: Option<Bound>,
    by_name: Option<bool>,
    ingest: IngestOptions,
    settings: Vec<(String, String)>,
    /// The task of this statement's latest result (stopped by the next execute or release).
    last: Option<Arc<Running>>,
}

impl Drop for ChwireStatement {
    fn drop(&mut self) {
        if let Some(r) = self.last.take() {
            if !r.is_finished() {
                r.stop("the statement was released while its result was being read");
            }
        }
    }
}

/// An INSERT whose rows are sent as data: it ends in `VALUES` or `FORMAT <name>` (an
/// `INSERT ... SELECT` does not take data: it runs as it is). The core's SQL rules.
fn takes_data(sql: &str) -> bool {
    chwire::sql::InsertTarget::parse(sql).ok().flatten().is_some_and(|t| t.takes_data())
}

/// A statement with a result set (what ExecuteSchema may describe by starting it).
fn has_result(sql: &str) -> bool {
    StatementKind::of(sql).is_read()
}

fn empty_reader() -> Box<dyn RecordBatchReader + Send> {
    Box::new(RecordBatchIterator::new(Vec::<std::result::Result<RecordBatch, arrow_schema::ArrowError>>::new(), Arc::new(Schema::empty())))
}

struct StmtCancel(Arc<Inner>);

impl CancelHandle for StmtCancel {
    fn try_cancel(&self) -> Result<()> {
        self.0.cancel("the query was cancelled");
        Ok(())
    }
}

impl ChwireStatement {
    pub(crate) fn new(inner: Arc<Inner>) -> ChwireStatement {
        ChwireStatement { inner, sql: None, bound: None, by_name: None, ingest: IngestOptions::default(), settings: Vec::new(), last: None }
    }

    /// The ClickHouse settings this statement sends, and the Arrow options of its results: the
    /// connection's, with this statement's `output_format_arrow_*` settings applied (they shape
    /// the batches the driver builds and are not sent).
    fn settings_and_arrow(&self) -> (Vec<(String, String)>, chwire_arrow::ArrowOptions) {
        let mut settings = self.settings.clone();
        let mut arrow = self.inner.arrow_options();
        // Each was checked when it was set.
        let _ = take_arrow_settings(&mut settings, &mut arrow);
        (settings, arrow)
    }

    fn sql(&self) -> Result<String> {
        self.sql.clone().ok_or_else(|| invalid_state("no SQL query was set"))
    }

    /// Stop this statement's previous result and take the connection.
    fn take_connection(&mut self) -> Result<chwire::Lease> {
        if let Some(r) = self.last.take().filter(|r| !r.is_finished()) {
            r.stop("the statement was executed again while its result was being read");
        }
        self.inner.acquire()
    }

    /// Run `fut` on the connection's runtime as this statement's task and wait for it.
    fn run_task<T: Send + 'static>(&mut self, fut: impl std::future::Future<Output = Result<T>> + Send + 'static) -> Result<T> {
        crate::runtime::check_not_async()?;
        let handle = self.inner.rt.handle().spawn(fut);
        let running = Running::new(handle.abort_handle());
        self.inner.track(running.clone());
        self.last = Some(running.clone());
        match self.inner.rt.handle().block_on(handle) {
            Ok(r) => r,
            Err(j) if j.is_cancelled() => Err(crate::error::cancelled(*running.why.lock().unwrap_or_else(|e| e.into_inner()))),
            Err(j) => Err(crate::error::internal(format!("chwire task failed: {j}"))),
        }
    }

    /// The bound data as a reader (consumed).
    fn bound_reader(&mut self) -> Option<Box<dyn RecordBatchReader + Send>> {
        match self.bound.take()? {
            Bound::Batch(b) => {
                let schema = b.schema();
                Some(Box::new(RecordBatchIterator::new(vec![Ok(b)], schema)))
            }
            Bound::Stream(r) => Some(r),
        }
    }

    /// The parameter sets of the bound data (one per row).
    fn param_sets(&mut self, sql: &str) -> Result<Vec<ParamSet>> {
        let Some(reader) = self.bound_reader() else {
            if let Some((n, _)) = crate::params::placeholders(sql).first() {
                return Err(invalid_state(format!("the query has placeholders ({n:?}, ...) and no parameters are bound")));
            }
            return Ok(Vec::new());
        };
        let tz = self.inner.server_timezone();
        let mut sets = Vec::new();
        for b in reader {
            sets.extend(bind_rows(sql, &b?, self.by_name, &tz)?);
        }
        Ok(sets)
    }

    /// An INSERT without placeholders, with bound data: the data are its rows.
    fn is_data_insert(&self, sql: &str) -> bool {
        self.bound.is_some() && takes_data(sql) && crate::params::placeholders(sql).is_empty()
    }

    fn ingest(&mut self) -> Result<i64> {
        let reader = self.bound_reader().ok_or_else(|| invalid_state("bulk ingest needs bound data (bind a batch or a stream)"))?;
        let opts = self.ingest.clone();
        let (settings, _) = self.settings_and_arrow();
        let schema = reader.schema();
        self.pump(reader, move |c, batches| Box::pin(async move { crate::ingest::ingest(c, &opts, &settings, schema, batches).await }))
    }

    /// `INSERT INTO t [(cols)] VALUES` with the bound data as its rows.
    fn insert_data(&mut self, sql: String) -> Result<i64> {
        let reader = self.bound_reader().ok_or_else(|| invalid_state("no data bound"))?;
        let (settings, _) = self.settings_and_arrow();
        let insert = self.ingest.insert;
        // Bound data is matched to the INSERT's columns by position.
        self.pump(reader, move |c, batches| {
            Box::pin(async move { crate::ingest::insert_batches(c, sql, &settings, &insert, None, batches, true).await })
        })
    }

    /// Run `insert` as this statement's task with the batches of `reader`, read ahead on a
    /// thread of their own by the core's `Feed` (as Python's `insert_arrow` reads its source),
    /// never on the connection's runtime: a reader may block (a Python generator waiting for
    /// the GIL, another connection's result stream, whose reads wait on a runtime themselves),
    /// and a runtime thread serves other connections too. When the task ends early (an error,
    /// a cancel) the channel closes and reading stops at the reader's next batch.
    fn pump<F>(&mut self, reader: Box<dyn RecordBatchReader + Send>, insert: F) -> Result<i64>
    where
        F: for<'c> FnOnce(&'c mut chwire::Client, Batches) -> BoxFuture<'c, Result<i64>> + Send + 'static,
    {
        crate::runtime::check_not_async()?;
        let mut lease = self.take_connection()?;
        let (batches, reading) = Feed::start(reader, 2, |m| arrow_schema::ArrowError::ExternalError(m.into())).into_parts();
        let handle = self.inner.rt.handle().spawn(async move {
            let c = lease.client().ch()?;
            insert(c, batches).await
        });
        let running = Running::new(handle.abort_handle());
        self.inner.track(running.clone());
        self.last = Some(running.clone());
        let result = self.inner.rt.handle().block_on(handle);
        // The call returns once the reader is no longer pulled (as when this thread read it):
        // after the task the channel is closed, so the reading thread ends at the reader's
        // current batch.
        let _ = reading.join();
        match result {
            Ok(r) => r,
            Err(j) if j.is_cancelled() => Err(crate::error::cancelled(*running.why.lock().unwrap_or_else(|e| e.into_inner()))),
            Err(j) => Err(crate::error::internal(format!("chwire task failed: {j}"))),
        }
    }
}

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

impl Optionable for ChwireStatement {
    type Option = OptionStatement;

    fn set_option(&mut self, key: OptionStatement, value: OptionValue) -> Result<()> {
        let name = key.as_ref().to_string();
        match key {
            OptionStatement::TargetTable => {
                self.ingest.target = Some(string_value(&name, value)?);
                self.sql = None;
            }
            OptionStatement::TargetDbSchema => self.ingest.db_schema = Some(string_value(&name, value)?),
            OptionStatement::TargetCatalog => self.ingest.catalog = Some(string_value(&name, value)?),
            OptionStatement::IngestMode => self.ingest.mode = Some(string_value(&name, value)?.parse()?),
            OptionStatement::Temporary => {
                self.ingest.temporary = match string_value(&name, value)?.as_str() {
                    "true" => true,
                    "false" => false,
                    v => return Err(invalid_arg(format!("invalid value {v:?} for {name:?} (true or false)"))),
                }
            }
            OptionStatement::Incremental => return Err(not_implemented("incremental execution is not supported")),
            OptionStatement::Other(k) if k == BIND_BY_NAME => {
                self.by_name = Some(match string_value(&k, value)?.as_str() {
                    "true" => true,
                    "false" => false,
                    v => return Err(invalid_arg(format!("invalid value {v:?} for {k:?} (true or false)"))),
                })
            }
            OptionStatement::Other(k) if k == ENGINE => self.ingest.engine = Some(string_value(&k, value)?),
            OptionStatement::Other(k) if k == ORDER_BY => self.ingest.order_by = Some(string_value(&k, value)?),
            OptionStatement::Other(k) if k == BLOCK_ROWS => {
                let v = string_value(&k, value)?;
                self.ingest.insert.set("block_rows", &v).map_err(|e| invalid_arg(format!("{k}: {e}")))?;
            }
            OptionStatement::Other(k) if k.starts_with(SETTING_PREFIX) && k.len() > SETTING_PREFIX.len() => {
                let v = string_value(&k, value)?;
                // An Arrow output setting is checked now (it is applied, not sent).
                let mut arrow = chwire_arrow::ArrowOptions::default();
                take_arrow_settings(&mut vec![(k[SETTING_PREFIX.len()..].to_string(), v.clone())], &mut arrow)?;
                self.settings.push((k[SETTING_PREFIX.len()..].to_string(), v));
            }
            _ => return Err(not_implemented(format!("unknown statement option {name:?}"))),
        }
        Ok(())
    }

    fn get_option_string(&self, key: OptionStatement) -> Result<String> {
        let v = match &key {
            OptionStatement::TargetTable => self.ingest.target.clone(),
            OptionStatement::TargetDbSchema => self.ingest.db_schema.clone(),
            OptionStatement::TargetCatalog => self.ingest.catalog.clone(),
            OptionStatement::IngestMode => self.ingest.mode.map(String::from),
            OptionStatement::Temporary => Some(self.ingest.temporary.to_string()),
            OptionStatement::Other(k) if k == BIND_BY_NAME => self.by_name.map(|b| b.to_string()),
            OptionStatement::Other(k) if k == ENGINE => self.ingest.engine.clone(),
            OptionStatement::Other(k) if k == ORDER_BY => self.ingest.order_by.clone(),
            OptionStatement::Other(k) if k == BLOCK_ROWS => Some(self.ingest.insert.block_rows.to_string()),
            OptionStatement::Other(k) if k.starts_with(SETTING_PREFIX) => {
                let n = &k[SETTING_PREFIX.len()..];
                self.settings.iter().rev().find(|(s, _)| s == n).map(|(_, v)| v.clone())
            }
            _ => None,
        };
        v.ok_or_else(|| not_found(format!("option {:?} is not set", key.as_ref())))
    }

    fn get_option_bytes(&self, key: OptionStatement) -> Result<Vec<u8>> {
        Err(not_found(format!("option {:?} has no bytes value", key.as_ref())))
    }

    fn get_option_int(&self, key: OptionStatement) -> Result<i64> {
        Err(not_found(format!("option {:?} has no int value", key.as_ref())))
    }

    fn get_option_double(&self, key: OptionStatement) -> Result<f64> {
        Err(not_found(format!("option {:?} has no double value", key.as_ref())))
    }
}

impl Statement for ChwireStatement {
    fn bind(&mut self, batch: RecordBatch) -> Result<()> {
        self.bound = Some(Bound::Batch(batch));
        Ok(())
    }

    fn bind_stream(&mut self, reader: Box<dyn RecordBatchReader + Send>) -> Result<()> {
        self.bound = Some(Bound::Stream(reader));
        Ok(())
    }

    fn execute(&mut self) -> Result<Box<dyn RecordBatchReader + Send>> {
        if self.ingest.target.is_some() {
            self.ingest()?;
            return Ok(empty_reader());
        }
        let sql = self.sql()?;
        if self.is_data_insert(&sql) {
            self.insert_data(sql)?;
            return Ok(empty_reader());
        }
        let sets = self.param_sets(&sql)?;
        let lease = self.take_connection()?;
        let (tx, rx) = mpsc::channel(BUFFERED);
        let (settings, arrow) = self.settings_and_arrow();
        let job = Job { sql, sets, settings };
        let waiting = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let handle = self.inner.rt.handle().spawn(query_task(lease, job, arrow, tx, waiting.clone()));
        let running = Running::with_flag(handle.abort_handle(), waiting);
        self.inner.track(running.clone());
        self.last = Some(running.clone());
        Ok(Box::new(StreamReader::open(rx, running)?))
    }

    fn execute_update(&mut self) -> Result<Option<i64>> {
        if self.ingest.target.is_some() {
            return self.ingest().map(Some);
        }
        let sql = self.sql()?;
        if self.is_data_insert(&sql) {
            return self.insert_data(sql).map(Some);
        }
        let sets = self.param_sets(&sql)?;
        let insert = StatementKind::of(&sql) == StatementKind::Insert;
        let mut lease = self.take_connection()?;
        let (settings, _) = self.settings_and_arrow();
        let written = self.run_task(async move {
            let c = lease.client().ch()?;
            let sets = if sets.is_empty() { vec![Vec::new()] } else { sets };
            let mut written = 0u64;
            for set in sets {
                let mut q = c.query(sql.clone());
                for (k, v) in &settings {
                    q = q.setting(k.clone(), v.clone());
                }
                for (k, v) in set {
                    q = q.param(k, v);
                }
                written += q.execute().await.ch()?.progress.written_rows;
            }
            Ok(written)
        })?;
        // ClickHouse reports the rows an INSERT ... SELECT wrote (from revision 54420: older
        // servers, 18.16 among them, send no written rows, so the count is unknown); other
        // statements (DDL, mutations, which run in the background) have no count.
        let reports = self.inner.server.as_ref().is_some_and(|s| s.negotiated_revision >= chwire::proto::revision::CLIENT_WRITE_INFO);
        Ok((insert && reports).then_some(written as i64))
    }

    fn execute_schema(&mut self) -> Result<Schema> {
        let sql = self.sql()?;
        if !has_result(&sql) {
            return Ok(Schema::empty());
        }
        let sets = self.param_sets(&sql)?;
        let mut lease = self.take_connection()?;
        let (settings, opts) = self.settings_and_arrow();
        self.run_task(async move {
            let c = lease.client().ch()?;
            let mut q = c.query(sql);
            for (k, v) in settings {
                q = q.setting(k, v);
            }
            for (k, v) in sets.into_iter().next().unwrap_or_default() {
                q = q.param(k, v);
            }
            // The server sends the result's header block first: the schema is known before
            // the query runs to its end. Dropping the stream cancels the query.
            let stream = q.fetch_arrow(opts).await.ch()?;
            Ok(stream.schema().as_ref().clone())
        })
    }

    fn execute_partitions(&mut self) -> Result<PartitionedResult> {
        Err(not_implemented("partitioned results are not supported"))
    }

    fn get_parameter_schema(&self) -> Result<Schema> {
        Ok(crate::params::parameter_schema(&self.sql()?, &self.settings_and_arrow().1))
    }

    fn prepare(&mut self) -> Result<()> {
        // ClickHouse has no prepared statements: the SQL is sent as it is at each execution.
        self.sql().map(|_| ())
    }

    fn set_sql_query(&mut self, query: impl AsRef<str>) -> Result<()> {
        self.sql = Some(query.as_ref().to_string());
        self.ingest.target = None;
        Ok(())
    }

    fn set_substrait_plan(&mut self, _plan: impl AsRef<[u8]>) -> Result<()> {
        Err(not_implemented("ClickHouse takes SQL, not Substrait plans"))
    }

    fn get_cancel_handle(&self) -> Box<dyn CancelHandle> {
        Box::new(StmtCancel(self.inner.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::{has_result, takes_data};

    #[test]
    fn inserts_that_take_data() {
        assert!(takes_data("INSERT INTO t VALUES"));
        assert!(takes_data("insert into t (a, b) values ;"));
        assert!(takes_data("INSERT INTO t (a)VALUES"));
        assert!(takes_data("INSERT INTO t FORMAT Native\n"));
        assert!(!takes_data("INSERT INTO t SELECT 5"));
        assert!(!takes_data("INSERT INTO t SELECT * FROM values_t"));
        assert!(!takes_data("SELECT 1 FORMAT Native"));
    }

    #[test]
    fn first_words() {
        assert!(has_result("  -- c\n /* x */ (select 1)"));
        assert!(has_result("WITH 1 AS x SELECT x"));
        assert!(!has_result("insert into t values"));
        assert!(!has_result("CREATE TABLE t (a Int8) ENGINE = Memory"));
    }
}
