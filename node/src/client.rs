//! `NativeClient`: one connection or a pool, and the operations on it. The TS layer's `Client`
//! and `Pool` wrap it.

use crate::error::{Error, Result};
use crate::insert::NativeInsert;
use crate::js;
use crate::ops;
use crate::stream::{Job, Mode, NativeStream};
use crate::values::Mapping;
use chwire::sql::{InsertTarget, TableRef};
use chwire::{QuerySpec, ResultLimits, Shared};
use chwire_arrow::ArrowOptions;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;

#[napi]
pub struct NativeClient {
    target: Shared,
    server: Option<chwire::ServerInfo>,
    /// The Arrow mapping of results when a query names none (the options' `arrowMapping`).
    arrow_mapping: Option<String>,
    /// Bounds of results collected whole (`max_collected_rows`, `max_collected_bytes`).
    limits: ResultLimits,
}

/// The client's defaults for its queries among the options, rather than connection options:
/// the Arrow mapping (the core's `arrow_mapping`, as `arrowMapping`; as Python's
/// `connect(arrow_mapping=…)` and ADBC's `chwire.arrow_mapping`) and the bounds of results
/// collected whole (the core's `ResultLimits`, as Python's and Elixir's); the rest.
fn split_client_options(pairs: Pairs) -> Result<(Pairs, Option<String>, ResultLimits)> {
    use chwire::options::keys::{classify, Classified, Scope};
    let (mut rest, mut mapping) = (Vec::with_capacity(pairs.len()), None);
    for (k, v) in pairs {
        match classify(&k) {
            Ok(Classified::Option(key)) if key.scope == Scope::Arrow => {
                ArrowOptions::named(&v).map_err(|e| Error::Type(format!("{k}: {e}")))?;
                mapping = Some(v);
            }
            _ => rest.push((k, v)),
        }
    }
    let limits = ResultLimits::take(&mut rest)?;
    Ok((rest, mapping, limits))
}

/// Options as (key, value) pairs.
type Pairs = Vec<(String, String)>;

fn pairs(m: Option<HashMap<String, String>>) -> Pairs {
    let mut v: Vec<(String, String)> = m.unwrap_or_default().into_iter().collect();
    // `settings` of the URL first, then these: a stable order for the same keys.
    v.sort();
    v
}

/// Connect one client: `url` and/or options by the core's URL keys.
#[napi(ts_return_type = "Promise<NativeClient>")]
pub async fn connect(url: Option<String>, options: Option<HashMap<String, String>>) -> napi::Result<NativeClient> {
    let (options, arrow_mapping, limits) = split_client_options(pairs(options))?;
    let opts = ops::options(url.as_deref(), &options)?;
    let client = chwire::Client::connect(opts).await.map_err(Error::from)?;
    let server = client.server_info();
    Ok(NativeClient { target: Shared::client(client), server, arrow_mapping, limits })
}

/// A pool (connections open as they are needed): options as `connect`'s, plus the pool's own.
#[napi(catch_unwind)]
pub fn create_pool(
    url: Option<String>,
    options: Option<HashMap<String, String>>,
    pool: Option<HashMap<String, String>>,
) -> napi::Result<NativeClient> {
    let (options, arrow_mapping, limits) = split_client_options(pairs(options))?;
    let opts = ops::options(url.as_deref(), &options)?;
    let popts = ops::pool_options(&pairs(pool))?;
    // The pool's maintenance task needs the runtime's context.
    let target = napi::bindgen_prelude::within_runtime_if_available(|| Shared::pool(opts, popts)).map_err(Error::from)?;
    Ok(NativeClient { target, server: None, arrow_mapping, limits })
}

#[napi(object)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub revision: f64,
    pub timezone: Option<String>,
    pub display_name: Option<String>,
    /// The settings the server applies to the session, from its Hello (revision 54474+).
    pub settings: std::collections::HashMap<String, String>,
}

#[napi(object)]
pub struct PoolStatus {
    pub size: u32,
    pub idle: u32,
    pub in_use: u32,
    pub waiting: u32,
}

impl NativeClient {
    fn server_tz(&self) -> Option<&str> {
        self.server.as_ref().and_then(|s| s.timezone.as_deref())
    }

    fn spec(&self, env: js::Env, sql: String, o: Option<js::Val>) -> Result<(QuerySpec, Mapping, ArrowOptions)> {
        let get = |name: &str| -> Result<Option<js::Val>> {
            match o {
                Some(o) => Ok(js::opt(env, o, name)?),
                None => Ok(None),
            }
        };
        let mut spec = QuerySpec::new(sql);
        crate::params::bind_all(env, get("params")?, &mut spec, self.server_tz())?;
        spec.settings = crate::params::settings(env, get("settings")?)?;
        spec.query_id = get("queryId")?.map(|v| js::string(env, v)).transpose()?;
        let word = |name: &str| -> Result<Option<String>> { get(name)?.map(|v| js::string(env, v)).transpose().map_err(Error::from) };
        let mut m = Mapping::default();
        match word("int64")?.as_deref() {
            None | Some("bigint") => {}
            Some("number") => m.int64_as_number = true,
            Some(x) => return Err(Error::Type(format!("int64: {x:?} (use \"bigint\" or \"number\")"))),
        }
        match word("decimal")?.as_deref() {
            None | Some("string") => {}
            Some("number") => m.decimal_as_number = true,
            Some(x) => return Err(Error::Type(format!("decimal: {x:?} (use \"string\" or \"number\")"))),
        }
        match word("strings")?.as_deref() {
            None | Some("string") => {}
            Some("buffer") => m.strings_as_buffers = true,
            Some(x) => return Err(Error::Type(format!("strings: {x:?} (use \"string\" or \"buffer\")"))),
        }
        let mut arrow = match word("arrowMapping")?.or_else(|| self.arrow_mapping.clone()) {
            None => ArrowOptions::rich(),
            Some(name) => ArrowOptions::named(&name).map_err(|e| Error::Type(format!("arrowMapping: {e}")))?,
        };
        // Arrow output settings shape the batches chwire builds: applied here, not sent.
        arrow.take_settings(&mut spec.settings).map_err(|e| Error::Type(e.to_string()))?;
        // A result the caller collects whole (`query`, `queryColumns`, `queryArrow`): the
        // client's bounds.
        if get("whole")?.map(|v| js::bool_of(env, v)).transpose()?.unwrap_or(false) {
            spec.limits = self.limits;
        }
        Ok((spec, m, arrow))
    }
}

#[napi]
impl NativeClient {
    /// Start a query; `mode`: blocks, columns, arrow, arrowStream or execute.
    #[napi(catch_unwind)]
    pub fn query(&self, env: Env, sql: String, mode: String, spec: Option<Unknown>) -> napi::Result<NativeStream> {
        let raw = env.raw();
        let spec_val = spec.map(|s| s.raw());
        let (spec, mapping, arrow) = crate::error::guarded(|| self.spec(raw, sql, spec_val))?;
        let mode = match mode.as_str() {
            "blocks" => Mode::Blocks,
            "columns" => Mode::Columns,
            "arrow" => Mode::Arrow,
            "arrowStream" => Mode::ArrowStream,
            "execute" => Mode::Execute,
            m => return Err(Error::Type(format!("unknown mode {m:?}")).into()),
        };
        Ok(NativeStream::start(self.target.clone(), Job { spec, mode, mapping, arrow }))
    }

    /// Start an INSERT into `table` (`t`, `db.t`, backquoted parts; read by the core's
    /// `TableRef` and quoted again) of `columns` (all of the table's when absent), with the
    /// insert options `options` (`insertOptions`'s keys: `block_rows`).
    #[napi(catch_unwind)]
    pub fn insert(
        &self,
        env: Env,
        table: String,
        columns: Option<Vec<String>>,
        spec: Option<Unknown>,
        options: Option<std::collections::HashMap<String, String>>,
    ) -> napi::Result<NativeInsert> {
        let options = crate::insert::insert_options(options.unwrap_or_default())?;
        let table = TableRef::parse(&table).map_err(|e| Error::from(chwire::Error::from(e)))?;
        let sql = InsertTarget::values(table, columns.filter(|c| !c.is_empty())).to_string();
        let raw = env.raw();
        let spec_val = spec.map(|s| s.raw());
        let (spec, _, _) = crate::error::guarded(|| self.spec(raw, sql, spec_val))?;
        Ok(NativeInsert::start(self.target.clone(), spec, options))
    }

    #[napi]
    pub fn server_info(&self) -> Option<ServerInfo> {
        self.server.as_ref().map(|s| ServerInfo {
            name: s.name.clone(),
            version: format!("{}.{}.{}", s.version.0, s.version.1, s.version.2),
            revision: s.revision as f64,
            timezone: s.timezone.clone(),
            display_name: s.display_name.clone(),
            settings: s.settings.iter().cloned().collect(),
        })
    }

    #[napi]
    pub fn pool_status(&self) -> Option<PoolStatus> {
        let s = self.target.pool_status()?;
        Some(PoolStatus { size: s.size as u32, idle: s.idle as u32, in_use: s.in_use as u32, waiting: s.waiting as u32 })
    }

    /// Close: operations still running or queued stop (their queries are cancelled on the
    /// server) and fail with a `closed` error, then the connection closes; a pool refuses new
    /// work and its connections close as their operations end.
    #[napi]
    pub async fn close(&self) -> napi::Result<()> {
        self.target.close().await;
        Ok(())
    }

    /// A panic inside the addon, for the suite: it must arrive as an error, never a crash.
    #[napi(catch_unwind)]
    pub fn panic_for_test(&self, what: String) -> napi::Result<()> {
        crate::error::guarded(|| -> Result<()> { panic!("{what}") })?;
        Ok(())
    }

    /// The same inside a task on the runtime.
    #[napi]
    pub async fn panic_in_task_for_test(&self, what: String) -> napi::Result<()> {
        let h = tokio::spawn(async move {
            if !what.is_empty() {
                panic!("{what}");
            }
        });
        h.await.map_err(|j| Error::Panic(crate::error::panic_message(&*j.into_panic())))?;
        Ok(())
    }
}
