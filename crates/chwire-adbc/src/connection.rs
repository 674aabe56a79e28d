//! A connection: one chwire client on one of the driver's runtimes, shared with its statements
//! and with the tasks that read their results.

use crate::error::{invalid_arg, invalid_state, not_found, not_implemented, ChResult};
use crate::objects::TABLE_TYPES;
use crate::options::string_value;
use crate::runtime::{run, Pinned};
use crate::session::Inner;
use crate::statement::ChwireStatement;
use crate::CATALOG;
use adbc_core::error::Result;
use adbc_core::options::{InfoCode, ObjectDepth, OptionConnection, OptionValue};
use adbc_core::{CancelHandle, Connection, Optionable};
use arrow_array::{RecordBatch, RecordBatchReader, StringArray};
use arrow_schema::Schema;
use chwire::Options;
use chwire_arrow::ArrowOptions;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// An ADBC connection: one chwire client (on a runtime of the driver's), shared with the
/// connection's statements and the tasks reading their results.
pub struct ChwireConnection {
    pub(crate) inner: Arc<Inner>,
}

impl Drop for ChwireConnection {
    fn drop(&mut self) {
        // A stream still open ends with this reason; the client closes when its last user ends.
        self.inner.cancel("the connection was released while its result was being read");
    }
}

impl ChwireConnection {
    /// Connect with `opts`; results become record batches with `arrow`. A server that does
    /// not answer or refuses the handshake is an error.
    pub fn connect(opts: Options, arrow: ArrowOptions) -> Result<ChwireConnection> {
        let rt = Pinned::new();
        let o = opts.clone();
        let client = run(rt.handle(), async move { chwire::Client::connect(o).await.ch() })?;
        let server = client.server_info();
        let inner = Inner {
            shared: chwire::Shared::client(client),
            rt,
            running: Default::default(),
            opts: Mutex::new(opts),
            server,
            arrow,
            version: Default::default(),
        };
        Ok(ChwireConnection { inner: Arc::new(inner) })
    }

    /// Connect again to `database` (checked by the server at the handshake): the client's
    /// database survives reconnects that way, which `USE` would not.
    fn use_database(&mut self, database: String) -> Result<()> {
        let mut lease = self.inner.acquire()?;
        let mut o = self.inner.opts.lock().unwrap_or_else(|e| e.into_inner()).clone();
        o.database = database;
        let o2 = o.clone();
        run(self.inner.rt.handle(), async move {
            let new = chwire::Client::connect(o2).await.ch()?;
            *lease.client().ch()? = new;
            Ok(())
        })?;
        *self.inner.opts.lock().unwrap_or_else(|e| e.into_inner()) = o;
        Ok(())
    }
}

struct ConnCancel(Arc<Inner>);

impl CancelHandle for ConnCancel {
    fn try_cancel(&self) -> Result<()> {
        self.0.cancel("the query was cancelled");
        Ok(())
    }
}

impl Optionable for ChwireConnection {
    type Option = OptionConnection;

    fn set_option(&mut self, key: OptionConnection, value: OptionValue) -> Result<()> {
        let name = key.as_ref().to_string();
        match key {
            OptionConnection::AutoCommit => match string_value(&name, value)?.as_str() {
                "true" => Ok(()),
                "false" => Err(not_implemented("ClickHouse has no transactions: autocommit is always on")),
                v => Err(invalid_arg(format!("invalid value {v:?} for {name:?}"))),
            },
            OptionConnection::CurrentCatalog => {
                let v = string_value(&name, value)?;
                if v == CATALOG {
                    Ok(())
                } else {
                    Err(not_found(format!("no catalog {v:?}: a ClickHouse server has one catalog, {CATALOG:?}")))
                }
            }
            OptionConnection::CurrentSchema => {
                let v = string_value(&name, value)?;
                self.use_database(v)
            }
            OptionConnection::ReadOnly => {
                Err(not_implemented("read-only connections are not supported (use a readonly user or the readonly setting)"))
            }
            OptionConnection::IsolationLevel => Err(not_implemented("ClickHouse has no transactions (no isolation levels)")),
            _ => Err(not_implemented(format!("unknown connection option {name:?}"))),
        }
    }

    fn get_option_string(&self, key: OptionConnection) -> Result<String> {
        match key {
            OptionConnection::AutoCommit => Ok("true".into()),
            OptionConnection::CurrentCatalog => Ok(CATALOG.into()),
            OptionConnection::CurrentSchema => self.inner.current_database(),
            k => Err(not_found(format!("unknown connection option {:?}", k.as_ref()))),
        }
    }

    fn get_option_bytes(&self, key: OptionConnection) -> Result<Vec<u8>> {
        Err(not_found(format!("option {:?} has no bytes value", key.as_ref())))
    }

    fn get_option_int(&self, key: OptionConnection) -> Result<i64> {
        Err(not_found(format!("option {:?} has no int value", key.as_ref())))
    }

    fn get_option_double(&self, key: OptionConnection) -> Result<f64> {
        Err(not_found(format!("option {:?} has no double value", key.as_ref())))
    }
}

/// A small metadata result (GetInfo, GetObjects, GetTableTypes) as a reader that keeps the
/// batch it handed out alive until the reader itself is released: some consumers keep values
/// that point into a batch's buffers after releasing it (the ADBC Go validation suite compares
/// GetObjects' column names after moving past their batch). Results stream as usual.
struct KeepAlive {
    batch: Option<RecordBatch>,
    schema: arrow_schema::SchemaRef,
    _given: Vec<RecordBatch>,
}

impl Iterator for KeepAlive {
    type Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.batch.take()?;
        self._given.push(b.clone());
        Some(Ok(b))
    }
}

impl RecordBatchReader for KeepAlive {
    fn schema(&self) -> arrow_schema::SchemaRef {
        self.schema.clone()
    }
}

fn one_batch(batch: RecordBatch) -> Box<dyn RecordBatchReader + Send> {
    Box::new(KeepAlive { schema: batch.schema(), batch: Some(batch), _given: Vec::new() })
}

impl Connection for ChwireConnection {
    type StatementType = ChwireStatement;

    fn new_statement(&mut self) -> Result<ChwireStatement> {
        Ok(ChwireStatement::new(self.inner.clone()))
    }

    fn get_cancel_handle(&self) -> Box<dyn CancelHandle> {
        Box::new(ConnCancel(self.inner.clone()))
    }

    fn get_info(&self, codes: Option<HashSet<InfoCode>>) -> Result<Box<dyn RecordBatchReader + Send>> {
        let wants_version = codes.as_ref().is_none_or(|c| c.contains(&InfoCode::VendorVersion));
        let version = if wants_version { self.inner.server_version() } else { None };
        Ok(one_batch(crate::info::info_batch(self.inner.server.as_ref(), version.as_deref(), codes)?))
    }

    fn get_objects(
        &self,
        depth: ObjectDepth,
        catalog: Option<&str>,
        db_schema: Option<&str>,
        table_name: Option<&str>,
        table_type: Option<Vec<&str>>,
        column_name: Option<&str>,
    ) -> Result<Box<dyn RecordBatchReader + Send>> {
        let f = crate::objects::Filters { catalog, db_schema, table_name, table_type, column_name };
        Ok(one_batch(crate::objects::get_objects(&self.inner, depth, &f)?))
    }

    fn get_table_schema(&self, catalog: Option<&str>, db_schema: Option<&str>, table_name: &str) -> Result<Schema> {
        if let Some(c) = catalog.filter(|c| !c.is_empty() && *c != CATALOG) {
            return Err(not_found(format!("no catalog {c:?}: a ClickHouse server has one catalog, {CATALOG:?}")));
        }
        let table = crate::ingest::qualified(db_schema, table_name);
        let blocks = self.inner.fetch(format!("DESCRIBE TABLE {table}"), vec![])?;
        let names = Inner::strings(&blocks, 0);
        let types = Inner::strings(&blocks, 1);
        let mut columns = Vec::new();
        for (n, t) in names.into_iter().zip(types) {
            let (Some(n), Some(t)) = (n, t) else { continue };
            let ty = chwire::DataType::parse(&t).map_err(|e| invalid_data_type(&n, &t, e))?;
            columns.push((n, ty));
        }
        let schema = chwire_arrow::schema_for(&columns, &self.inner.arrow_options()).ch()?;
        Ok(schema.as_ref().clone())
    }

    fn get_table_types(&self) -> Result<Box<dyn RecordBatchReader + Send>> {
        let schema = adbc_core::schemas::GET_TABLE_TYPES_SCHEMA.clone();
        let batch = RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(TABLE_TYPES.to_vec()))])?;
        Ok(one_batch(batch))
    }

    fn get_statistic_names(&self) -> Result<Box<dyn RecordBatchReader + Send>> {
        Err(not_implemented("statistics are not supported"))
    }

    fn get_statistics(
        &self,
        _catalog: Option<&str>,
        _db_schema: Option<&str>,
        _table_name: Option<&str>,
        _approximate: bool,
    ) -> Result<Box<dyn RecordBatchReader + Send>> {
        Err(not_implemented("statistics are not supported"))
    }

    // Autocommit is always on (turning it off is NOT_IMPLEMENTED): commit and rollback are
    // INVALID_STATE, as for any driver in autocommit mode (the ADBC validation suite's
    // TestAutocommitDefault).
    fn commit(&mut self) -> Result<()> {
        Err(invalid_state("autocommit is on (ClickHouse has no transactions): there is nothing to commit"))
    }

    fn rollback(&mut self) -> Result<()> {
        Err(invalid_state("autocommit is on (ClickHouse has no transactions): there is nothing to roll back"))
    }

    fn read_partition(&self, _partition: impl AsRef<[u8]>) -> Result<Box<dyn RecordBatchReader + Send>> {
        Err(not_implemented("partitioned results are not supported"))
    }
}

fn invalid_data_type(name: &str, ty: &str, e: impl std::fmt::Display) -> adbc_core::error::Error {
    crate::error::invalid_data(format!("column {name:?}: cannot read its type {ty:?}: {e}"))
}
