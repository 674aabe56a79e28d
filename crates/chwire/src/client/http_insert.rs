//! [`Query::insert_blocks`] over HTTP: the table's columns come from `DESCRIBE TABLE` (the native
//! protocol's server sends them as the insert's header), then the rows go out as the streamed
//! body of `INSERT INTO t (…) FORMAT Native`.

use super::*;
use crate::http::QueryRequest;
use chwire_proto::sql::{quote_identifiers, InsertTarget};

impl<'c> Query<'c> {
    pub(super) async fn insert_http(self) -> Result<Insert<'c>> {
        let sql = &self.sql;
        let target = InsertTarget::parse(sql).map_err(|e| Error::invalid(e.0))?.filter(InsertTarget::takes_data).ok_or_else(|| {
            Error::invalid(format!(
                "over HTTP, chwire sends an insert's rows as Native blocks: end the statement with VALUES or FORMAT Native \
                     (INSERT … SELECT and INSERT … VALUES (…) run with execute): {sql:?}"
            ))
        })?;
        let client = self.client;
        let described = client.query(format!("DESCRIBE TABLE {}", target.table)).fetch_blocks().await?;
        let mut table_columns = Vec::new();
        for b in &described {
            let text = |name: &str, i: usize| match b.column(name).map(|c| c.value(i)) {
                Some(chwire_proto::Value::String(s)) => String::from_utf8_lossy(s).into_owned(),
                _ => String::new(),
            };
            for i in 0..b.rows() {
                table_columns.push((text("name", i), text("type", i), text("default_type", i)));
            }
        }
        let chosen: Vec<&(String, String, String)> = match &target.columns {
            Some(names) => names
                .iter()
                .map(|n| {
                    table_columns
                        .iter()
                        .find(|(c, _, _)| c == n)
                        .ok_or_else(|| Error::invalid(format!("table {} has no column {n:?}", target.table)))
                })
                .collect::<Result<_>>()?,
            None => table_columns.iter().filter(|(_, _, kind)| !matches!(kind.as_str(), "MATERIALIZED" | "ALIAS")).collect(),
        };
        let mut header = Block::new();
        for (name, ty, _) in chosen {
            let dt = DataType::parse(ty).map_err(|e| Error::protocol(format!("column {name:?} has type {ty:?}: {e}")).caused_by(e))?;
            let empty =
                chwire_proto::ColumnData::empty_for(&dt).map_err(|e| Error::protocol(format!("column {name:?}: {e}")).caused_by(e))?;
            let col = chwire_proto::Column::new(dt, empty).map_err(|e| Error::protocol(format!("column {name:?}: {e}")).caused_by(e))?;
            header.push(name.clone(), col).map_err(|e| Error::protocol(e.to_string()).caused_by(e))?;
        }
        let columns = target.columns.as_ref().map_or(String::new(), |names| format!(" ({})", quote_identifiers(names)));
        let statement = format!("INSERT INTO {}{columns} FORMAT Native", target.table);
        let query_id = self.query_id.unwrap_or_else(new_query_id);
        client.ready().await?;
        let mut req = QueryRequest::new(&client.opts, &query_id);
        for s in client.opts.settings_list(&self.settings)? {
            req.setting(&s.name, &s.value);
        }
        // The statement's own SETTINGS clause, after the query's.
        for (name, value) in &target.settings {
            req.setting(name, value);
        }
        if client.opts.compression.is_enabled() {
            req.setting("decompress", "1");
        }
        req.query(&statement);
        // Until `end` confirms it, an interrupted insert leaves the connection unusable.
        client.pending = Pending::Broken;
        let h = Link::open(&mut client.conn)?.http()?;
        let res = h.start_insert(&client.opts, req).await;
        client.note(res)?;
        Ok(Insert { client, header, progress: Progress::default(), rows_sent: 0, done: false, writing: false })
    }
}
