//! [`QuerySpec`]: a query as data (its SQL, parameters, settings and id), owned, to be sent
//! later or elsewhere: what the bindings build from their callers' arguments and hand to the
//! task that runs it.

use super::{Client, Query};
use crate::params::{BoundValue, ParamError, ParamValue};

/// A statement with what goes with it, owned: [`QuerySpec::query`] makes the [`Query`] on a
/// client. Parameters are bound when they are added ([`QuerySpec::bind`]: shaped by their
/// placeholders' declared types), so that a value that does not fit is refused at the call,
/// before anything runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuerySpec {
    /// The SQL.
    pub sql: String,
    /// `{name:Type}` parameters by name, bound.
    pub params: Vec<(String, BoundValue)>,
    /// Settings of this query only.
    pub settings: Vec<(String, String)>,
    /// The query id (default: a random UUID).
    pub query_id: Option<String>,
}

impl QuerySpec {
    /// A spec of `sql` alone.
    pub fn new(sql: impl Into<String>) -> QuerySpec {
        QuerySpec { sql: sql.into(), ..QuerySpec::default() }
    }

    /// Bind `value` to the placeholder `name`, shaped by the type the SQL declares for it
    /// ([`ParamValue::bind`]); `server_tz` is the zone the server reads DateTime values without
    /// one in ([`Client::server_timezone`]). The error is the value's, for the caller to name.
    pub fn bind(&mut self, name: impl Into<String>, value: &ParamValue, server_tz: Option<&str>) -> Result<(), ParamError> {
        let name = name.into();
        let ty = crate::params::placeholder_type(&self.sql, &name);
        let bound = value.bind(ty.as_ref(), server_tz)?;
        self.params.push((name, bound));
        Ok(())
    }

    /// Add a setting.
    pub fn setting(mut self, name: impl Into<String>, value: impl Into<String>) -> QuerySpec {
        self.settings.push((name.into(), value.into()));
        self
    }

    /// Use this query id.
    pub fn query_id(mut self, id: impl Into<String>) -> QuerySpec {
        self.query_id = Some(id.into());
        self
    }

    /// The query on `client`, ready to send.
    pub fn query(self, client: &mut Client) -> Query<'_> {
        let mut q = client.query(self.sql);
        for (k, v) in self.settings {
            q = q.setting(k, v);
        }
        for (k, v) in self.params {
            q = q.param(k, v);
        }
        if let Some(id) = self.query_id {
            q = q.query_id(id);
        }
        q
    }
}
