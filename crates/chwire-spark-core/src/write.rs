//! The staged write protocol: each task attempt inserts into its own staging table; the
//! driver's commit moves the staged rows into the target, its abort removes them.
//!
//! * [`WriteJob::prepare`] (driver) picks the server (the first host of the URL that answers)
//!   and a job id, and checks the written columns against the target;
//! * each task attempt creates [`WriteJob::stage_table`] (`CREATE TABLE ... AS target` for a
//!   plain `MergeTree` target, whose parts the commit attaches; else a `Log` table of the
//!   written columns) on that server, inserts its rows, and before it reports success checks
//!   that the job was not aborted ([`WriteJob::aborted_sql`]); on any failure it drops its table;
//! * [`WriteJob::commit`] (driver, every task succeeded) moves each reported table into the
//!   target (`ATTACH PARTITION ID ... FROM stage`: hard links, or `INSERT INTO target SELECT`,
//!   synchronously for a `Distributed` target) and drops it, then drops every other staging
//!   table of the job (attempts that failed or were killed, whose messages never arrived);
//! * [`WriteJob::abort`] creates the (empty) marker table `chwire_aborted_<job>`, then drops
//!   every staging table of the job; a task still running drops its own when it sees the marker.
//!
//! A task killed mid-write or retried leaves only a staging table that is never moved: the
//! target gets each row of each partition exactly once.

use arrow_array::RecordBatch;
use chwire::Client;
use serde::{Deserialize, Serialize};
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;
use tokio::sync::mpsc;

use crate::options::SparkOptions;

/// Create a table with the target's columns: with the settings that let the target have been
/// created, since a server refuses some types by default (`LowCardinality(UInt32)` needs
/// `allow_suspicious_low_cardinality_types`, a setting servers before 20 do not know).
async fn create_like_target(c: &mut Client, sql: String) -> chwire::Result<()> {
    let current = c.server_info().is_some_and(|s| s.version.0 >= 20);
    let mut q = c.query(sql);
    if current {
        q = q.setting("allow_suspicious_low_cardinality_types", "1");
    }
    q.execute().await?;
    Ok(())
}
use crate::plan::text_rows;
use crate::sql::{quote_ident, split_table, sql_string};
use crate::{invalid, Error, Result};

/// The name prefix of staging tables: `chwire_stage_<job>_<attempt tag>`.
pub const STAGE_PREFIX: &str = "chwire_stage_";
/// The name prefix of a job's abort marker table: `chwire_aborted_<job>`.
pub const ABORT_PREFIX: &str = "chwire_aborted_";
/// Listings of the job's staging tables tried while tables are dropped beside them.
const LIST_ATTEMPTS: u32 = 8;

/// One write job, made on the driver and sent to the tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteJob {
    /// The options of the write.
    pub options: SparkOptions,
    /// The server every statement of the job goes to.
    pub url: String,
    /// The job's id (16 hex digits, random), in its staging and marker tables' names.
    pub job: String,
    /// The target's database, where the staging tables are made.
    pub db: String,
    /// `` `db`.`table` ``.
    pub target: String,
    /// The written columns, in the order of the rows.
    pub names: Vec<String>,
    /// Whether the target is a Distributed table (its inserts use `insert_distributed_sync`).
    pub distributed: bool,
    /// A plain MergeTree target that no materialized view reads: staging tables of the same
    /// structure whose parts the commit attaches (hard links, no rows copied). Attached parts
    /// never reach a materialized view, so a target with views gets `INSERT ... SELECT`.
    pub attach_parts: bool,
    /// Replace the target's rows (Spark's overwrite, `TRUNCATE` capability): the commit fills a
    /// copy of the target and swaps it in with one `RENAME`.
    #[serde(default)]
    pub overwrite: bool,
}

/// Whether the commit can replace a table of engine `engine` by a copy made with `CREATE TABLE
/// ... AS` and one `RENAME` (not a replicated table, whose copy would share its ZooKeeper path,
/// nor a Distributed one, whose rows are on the shards, nor a view).
fn swappable(engine: &str) -> bool {
    (engine.ends_with("MergeTree") && !engine.starts_with("Replicated")) || matches!(engine, "Log" | "TinyLog" | "StripeLog" | "Memory")
}

/// 16 random hex digits (std's per-process random hasher keys, mixed with the time).
fn job_id() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// The first host of the options' URL that answers, as a one-host URL, with the connection
/// that asked it (used on: no second connection to the same host).
pub(crate) async fn first_answering(opts: &SparkOptions) -> Result<(String, Client)> {
    let mut last = None;
    for url in opts.single_host_urls(None)? {
        match opts.connect(Some(&url)).await {
            Ok(mut c) => match c.execute("SELECT 1").await {
                Ok(_) => return Ok((url, c)),
                Err(e) => last = Some(e.into()),
            },
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::Invalid("no host in url".into())))
}

/// Refuse DataFrame columns (`fields`, written into the table's columns `names`) whose type does
/// not convert into their column's type (`have`: the table's names and types as DESCRIBE
/// gives them), by the same conversion the tasks apply to each batch, tried on no rows. Columns
/// whose type the client does not parse are left to the tasks.
fn check_types(fields: &[arrow_schema::Field], names: &[String], have: &[(String, String)]) -> Result<()> {
    let mut target = Vec::with_capacity(names.len());
    let mut arrays = Vec::with_capacity(names.len());
    let mut named = Vec::with_capacity(names.len());
    for (f, n) in fields.iter().zip(names) {
        let Some(ty) = have.iter().find(|(h, _)| h == n).and_then(|(_, t)| chwire::DataType::parse(t).ok()) else { continue };
        target.push((n.clone(), ty));
        arrays.push(arrow_array::new_empty_array(f.data_type()));
        named.push(f.clone().with_name(n.clone()));
    }
    let empty = RecordBatch::try_new(std::sync::Arc::new(arrow_schema::Schema::new(named)), arrays)
        .map_err(|e| Error::Invalid(format!("the DataFrame's columns as Arrow: {e}")))?;
    let batch = crate::arrow::from_spark(empty, &target)?;
    chwire_arrow::batch_to_block(&batch, &target).map_err(|e| Error::Invalid(e.to_string()))?;
    Ok(())
}

/// The table's column for each DataFrame column, matched as Spark matches names by default
/// (`spark.sql.caseSensitive` off): the column of the same name, else the one column whose name
/// differs only in case. Columns not in the table, or matching two columns that differ only in
/// case, are an error naming them.
pub fn resolve_columns(names: &[String], have: &[String], table: &str) -> Result<Vec<String>> {
    let (mut out, mut missing, mut ambiguous) = (Vec::with_capacity(names.len()), Vec::new(), Vec::new());
    for n in names {
        if have.contains(n) {
            out.push(n.clone());
            continue;
        }
        let like: Vec<&String> = have.iter().filter(|h| h.to_lowercase() == n.to_lowercase()).collect();
        match like.as_slice() {
            [one] => out.push((*one).clone()),
            [] => missing.push(format!("'{n}'")),
            many => ambiguous.push(format!("'{n}' ({})", many.iter().map(|h| format!("'{h}'")).collect::<Vec<_>>().join(", "))),
        }
    }
    if !missing.is_empty() {
        return invalid(format!("columns [{}] of the DataFrame are not in {table}", missing.join(", ")));
    }
    if !ambiguous.is_empty() {
        return invalid(format!("columns of the DataFrame match columns of {table} that differ only in case: {}", ambiguous.join("; ")));
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(dup) = out.iter().find(|n| !seen.insert(n.as_str())) {
        return invalid(format!("two columns of the DataFrame are column '{dup}' of {table}"));
    }
    Ok(out)
}

impl WriteJob {
    /// Prepare a write of the DataFrame columns `fields` (Spark's Arrow fields, see
    /// [`crate::arrow::spark_fields`]) with `opts` (driver); `overwrite` replaces the target's
    /// rows at the commit instead of adding to them. A column whose type cannot be written into
    /// its table column is refused here, before any task runs: the tasks would all fail alike,
    /// and where that happens only at a task's commit Spark reports its commit being denied.
    pub async fn prepare(opts: &SparkOptions, fields: &[arrow_schema::Field], overwrite: bool) -> Result<WriteJob> {
        let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
        let Some(table) = &opts.table else {
            return invalid("writing with the chwire data source needs option 'table'");
        };
        let (url, mut c) = first_answering(opts).await?;
        let (db, name) = split_table(table)?;
        let db = match db {
            Some(db) => db,
            None => text_rows(&mut c, "SELECT currentDatabase()").await?.remove(0).remove(0).unwrap_or_default(),
        };
        let target = format!("{}.{}", quote_ident(&db), quote_ident(&name));
        // The engine, and whether materialized views read the target's inserts (their
        // dependencies): attached parts bypass them, so such a target gets INSERT ... SELECT.
        let meta = text_rows(
            &mut c,
            &format!(
                "SELECT engine, toString(notEmpty(dependencies_table)) FROM system.tables WHERE database = {} AND name = {}",
                sql_string(&db),
                sql_string(&name)
            ),
        )
        .await?
        .into_iter()
        .next()
        .unwrap_or_default();
        let engine = meta.first().cloned().flatten().unwrap_or_default();
        let has_views = meta.get(1).cloned().flatten().as_deref() == Some("1");
        // The columns an INSERT takes (MATERIALIZED and ALIAS ones are not in SELECT *), and
        // their types.
        let have: Vec<(String, String)> = text_rows(&mut c, &format!("DESCRIBE TABLE {target}"))
            .await?
            .into_iter()
            .filter_map(|r| {
                let kind = r.get(2).cloned().flatten().unwrap_or_default();
                let ty = r.get(1).cloned().flatten().unwrap_or_default();
                (kind != "MATERIALIZED" && kind != "ALIAS").then(|| r.into_iter().next().flatten().map(|n| (n, ty))).flatten()
            })
            .collect();
        let have_names: Vec<String> = have.iter().map(|(n, _)| n.clone()).collect();
        let names = resolve_columns(&names, &have_names, table)?;
        check_types(fields, &names, &have)?;
        if overwrite && !swappable(&engine) {
            return invalid(format!(
                "cannot overwrite {table}: its engine {engine} cannot be replaced by a copy (overwrite takes MergeTree-family \
                 tables without replication, Log, TinyLog, StripeLog and Memory); append, or truncate it yourself"
            ));
        }
        Ok(WriteJob {
            options: opts.clone(),
            url,
            job: job_id(),
            db,
            target,
            names,
            distributed: engine == "Distributed",
            attach_parts: engine == "MergeTree" && !has_views,
            overwrite,
        })
    }

    /// A batch of the DataFrame (its columns in the order `prepare` was given) with the table's
    /// spelling of each column name.
    fn named(&self, batch: RecordBatch) -> Result<RecordBatch> {
        let schema = batch.schema();
        if schema.fields().len() != self.names.len() {
            return invalid(format!("a batch has {} columns, the write {}", schema.fields().len(), self.names.len()));
        }
        if schema.fields().iter().zip(&self.names).all(|(f, n)| f.name() == n) {
            return Ok(batch);
        }
        let fields: Vec<_> = schema.fields().iter().zip(&self.names).map(|(f, n)| f.as_ref().clone().with_name(n.clone())).collect();
        RecordBatch::try_new(std::sync::Arc::new(arrow_schema::Schema::new(fields)), batch.columns().to_vec())
            .map_err(|e| Error::Invalid(format!("renaming a batch's columns: {e}")))
    }

    fn columns(&self) -> String {
        self.names.iter().map(|n| quote_ident(n)).collect::<Vec<_>>().join(", ")
    }

    /// The staging table of one task attempt; `tag` names the attempt uniquely
    /// (`<partition>_<attempt>_<task id>`).
    pub fn stage_table(&self, tag: &str) -> String {
        format!("{}.{}", quote_ident(&self.db), quote_ident(&format!("{STAGE_PREFIX}{}_{tag}", self.job)))
    }

    /// The statement creating staging table `stage`.
    pub fn create_stage_sql(&self, stage: &str) -> String {
        if self.attach_parts {
            format!("CREATE TABLE {stage} AS {}", self.target)
        } else {
            format!("CREATE TABLE {stage} ENGINE = Log AS SELECT {} FROM {} LIMIT 0", self.columns(), self.target)
        }
    }

    /// The INSERT of a task's rows into its staging table.
    pub fn insert_sql(&self, stage: &str) -> String {
        format!("INSERT INTO {stage} ({}) VALUES", self.columns())
    }

    fn abort_marker(&self) -> String {
        format!("{}.{}", quote_ident(&self.db), quote_ident(&format!("{ABORT_PREFIX}{}", self.job)))
    }

    /// A query answering 1 when the job was aborted (a task checks it before reporting).
    pub fn aborted_sql(&self) -> String {
        format!("EXISTS TABLE {}", self.abort_marker())
    }

    /// The statement dropping table `stage` if it exists.
    pub fn drop_sql(stage: &str) -> String {
        format!("DROP TABLE IF EXISTS {stage}")
    }

    /// One task attempt's write (both front ends): create staging table `stage`, insert the
    /// Spark batches `rx` delivers (an error item, the front end's failure to produce the
    /// next batch, fails the write with it) in blocks of `blockRows` rows (smaller batches gathered;
    /// each converted by [`crate::arrow::from_spark`] and chwire-arrow's checked casts to the
    /// staging table's columns: a value that does not fit is an error naming the column), end
    /// the INSERT and check that the job was not aborted. Returns the rows written; on any
    /// failure the staging table is dropped.
    pub async fn write_stage(&self, stage: &str, mut rx: mpsc::Receiver<std::result::Result<RecordBatch, String>>) -> Result<u64> {
        let mut c = self.connect().await?;
        create_like_target(&mut c, self.create_stage_sql(stage)).await?;
        let res = async {
            // The core's Arrow insert: small batches gathered into blocks of `blockRows` rows.
            let block_rows = usize::try_from(self.options.block_rows).unwrap_or(usize::MAX);
            let mut ins = c.query(self.insert_sql(stage)).insert_arrow().await?.block_rows(block_rows);
            while let Some(batch) = rx.recv().await.transpose().map_err(Error::Invalid)? {
                let batch = crate::arrow::from_spark(self.named(batch)?, ins.target())?;
                ins.send_batch(batch).await?;
            }
            let rows = ins.end().await?.rows_sent;
            // A task still running when the job was aborted (its abort has already swept the
            // staging tables) removes its own table.
            let aborted = text_rows(&mut c, &self.aborted_sql()).await?;
            if aborted.first().and_then(|r| r.first().cloned().flatten()).as_deref() == Some("1") {
                return invalid(format!("the write job {} was aborted", self.job));
            }
            Ok(rows)
        }
        .await;
        if res.is_err() {
            let _ = c.settle().await;
            let _ = c.execute(Self::drop_sql(stage)).await;
        }
        res
    }

    /// A connection to the job's server.
    pub async fn connect(&self) -> Result<Client> {
        self.options.connect(Some(&self.url)).await
    }

    /// Move the staged tables `stages` (the tasks' messages) into the target, then drop every
    /// staging table of the job. An overwrite moves them into a copy of the target instead
    /// (`CREATE TABLE ... AS`), and swaps it in for the target with one `RENAME`: until then
    /// the target keeps its rows, after it it has exactly the job's.
    pub async fn commit(&self, c: &mut Client, stages: &[String]) -> Result<()> {
        if !self.overwrite {
            for stage in stages {
                self.move_rows(c, stage, &self.target).await?;
            }
            return self.drop_job_tables(c).await;
        }
        let swap = self.stage_table("swap");
        let old = self.stage_table("old");
        create_like_target(c, format!("CREATE TABLE {swap} AS {}", self.target)).await?;
        for stage in stages {
            self.move_rows(c, stage, &swap).await?;
        }
        c.execute(format!("RENAME TABLE {} TO {old}, {swap} TO {}", self.target, self.target)).await?;
        c.execute(Self::drop_sql(&old)).await?;
        self.drop_job_tables(c).await
    }

    /// Move a staged table's rows into `dest` (the target or its copy), then drop it.
    async fn move_rows(&self, c: &mut Client, stage: &str, dest: &str) -> Result<()> {
        let cols = self.columns();
        if self.attach_parts {
            let (db, name) = split_table(stage)?;
            let db = db.unwrap_or_else(|| self.db.clone());
            let parts = text_rows(
                c,
                &format!(
                    "SELECT DISTINCT partition_id FROM system.parts WHERE database = {} AND table = {} AND active",
                    sql_string(&db),
                    sql_string(&name)
                ),
            )
            .await?;
            for pid in parts.into_iter().filter_map(|r| r.into_iter().next().flatten()) {
                c.execute(format!("ALTER TABLE {dest} ATTACH PARTITION ID {} FROM {stage}", sql_string(&pid))).await?;
            }
        } else {
            let mut q = c.query(format!("INSERT INTO {dest} ({cols}) SELECT {cols} FROM {stage}"));
            if self.distributed {
                q = q.setting("insert_distributed_sync", "1");
            }
            q.execute().await?;
        }
        c.execute(Self::drop_sql(stage)).await?;
        Ok(())
    }

    /// Abort the job: the marker first, then the sweep (a task that finishes after the marker
    /// drops its own table; one that finished before it is swept).
    pub async fn abort(&self, c: &mut Client) -> Result<()> {
        c.execute(format!("CREATE TABLE IF NOT EXISTS {} (job String) ENGINE = Log", self.abort_marker())).await?;
        self.drop_job_tables(c).await
    }

    /// Drop every staging table of the job. Tasks drop their own tables meanwhile, and
    /// ClickHouse 18.16 fails a listing of `system.tables` that meets a table being dropped
    /// (UNKNOWN_TABLE, code 60): the listing is then tried again.
    pub async fn drop_job_tables(&self, c: &mut Client) -> Result<()> {
        let listing = format!(
            "SELECT name FROM system.tables WHERE database = {} AND startsWith(name, {})",
            sql_string(&self.db),
            sql_string(&format!("{STAGE_PREFIX}{}_", self.job))
        );
        for attempt in 1..=LIST_ATTEMPTS {
            let names = match text_rows(c, &listing).await {
                Ok(rows) => rows,
                Err(Error::Client(e)) if attempt < LIST_ATTEMPTS && e.code() == Some(chwire::proto::error_codes::code::UNKNOWN_TABLE) => {
                    tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt))).await;
                    continue;
                }
                Err(e) => return Err(e),
            };
            for name in names.into_iter().filter_map(|r| r.into_iter().next().flatten()) {
                c.execute(format!("DROP TABLE IF EXISTS {}.{}", quote_ident(&self.db), quote_ident(&name))).await?;
            }
            return Ok(());
        }
        Ok(())
    }

    /// The job as JSON, as it crosses the bindings ([`WriteJob::from_json`] reads it).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("write job serializes")
    }

    /// A job from [`WriteJob::to_json`]'s JSON; anything else is an [`Error::Invalid`].
    pub fn from_json(text: &str) -> Result<WriteJob> {
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("bad write job JSON: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataframe_columns_resolve_as_spark_resolves_names() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let have = s(&["id", "Name", "a", "A"]);
        assert_eq!(resolve_columns(&s(&["ID", "name", "a", "A"]), &have, "t").unwrap(), s(&["id", "Name", "a", "A"]));
        let e = resolve_columns(&s(&["id", "nope"]), &have, "t").unwrap_err().to_string();
        assert!(e.contains("'nope'") && e.contains("not in t"), "{e}");
        let e = resolve_columns(&s(&["id"]), &s(&["ID", "Id"]), "t").unwrap_err().to_string();
        assert!(e.contains("differ only in case") && e.contains("'ID'") && e.contains("'Id'"), "{e}");
        let e = resolve_columns(&s(&["id", "ID"]), &s(&["Id"]), "t").unwrap_err().to_string();
        assert!(e.contains("two columns of the DataFrame are column 'Id'"), "{e}");
    }

    fn job(engine_merge: bool) -> WriteJob {
        WriteJob {
            options: SparkOptions::parse([("url", "tcp://h/db")]).unwrap(),
            url: "tcp://h:9000/db".into(),
            job: "0123456789abcdef".into(),
            db: "d".into(),
            target: "`d`.`t`".into(),
            names: vec!["a".into(), "b`".into()],
            distributed: false,
            attach_parts: engine_merge,
            overwrite: false,
        }
    }

    #[test]
    fn statements() {
        let j = job(false);
        let stage = j.stage_table("3_0_17");
        assert_eq!(stage, "`d`.`chwire_stage_0123456789abcdef_3_0_17`");
        assert_eq!(j.create_stage_sql(&stage), format!("CREATE TABLE {stage} ENGINE = Log AS SELECT `a`, `b\\`` FROM `d`.`t` LIMIT 0"));
        assert_eq!(job(true).create_stage_sql(&stage), format!("CREATE TABLE {stage} AS `d`.`t`"));
        assert_eq!(j.aborted_sql(), "EXISTS TABLE `d`.`chwire_aborted_0123456789abcdef`");
        assert_eq!(WriteJob::from_json(&j.to_json()).unwrap(), j);
        assert_ne!(job_id(), job_id());
        assert_eq!(job_id().len(), 16);
        assert!(swappable("MergeTree") && swappable("ReplacingMergeTree") && swappable("Log"));
        assert!(!swappable("ReplicatedMergeTree") && !swappable("Distributed") && !swappable("View"));
    }
}
