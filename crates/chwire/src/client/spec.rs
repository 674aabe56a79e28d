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
    /// Values bound before the server's zone was known that hold an instant (a pool's spec is
    /// bound before a connection is leased): bound again by [`QuerySpec::query`] in the zone
    /// of the connection it runs on, as a DateTime without a zone of its own is read in it.
    /// Each with its place and name in `params`.
    zoned: Vec<(usize, String, ParamValue)>,
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
        if server_tz.is_none() && value.has_instant() {
            self.zoned.push((self.params.len(), name.clone(), value.clone()));
        }
        self.params.push((name, bound));
        Ok(())
    }

    /// The parameters bound without the server's zone that hold an instant, bound again in
    /// `server_tz`.
    fn bind_in_zone(&mut self, server_tz: Option<&str>) {
        let Some(tz) = server_tz else { return };
        for (at, bound_name, value) in std::mem::take(&mut self.zoned) {
            // `params` is public: a caller may have changed it since (then it is left alone).
            let Some((name, slot)) = self.params.get_mut(at).filter(|(n, _)| *n == bound_name) else { continue };
            let ty = crate::params::placeholder_type(&self.sql, name);
            // The value was bound once already and its checks do not depend on the zone, so
            // this cannot fail; if it did, the first binding would stay.
            if let Ok(bound) = value.bind(ty.as_ref(), Some(tz)) {
                *slot = bound;
            }
        }
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
    pub fn query(mut self, client: &mut Client) -> Query<'_> {
        self.bind_in_zone(client.server_timezone().as_deref());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::QueryParam;

    fn texts(spec: &QuerySpec) -> Vec<(String, String)> {
        spec.params.iter().map(|(n, v)| (n.clone(), v.param_text())).collect()
    }

    #[test]
    fn instants_bound_without_the_servers_zone_are_bound_again_in_it() {
        // 2024-01-01 12:00:00 UTC = 17:30 in Asia/Kolkata.
        let noon = ParamValue::Instant(1_704_110_400_000_000);
        let sql = "SELECT {t:DateTime}, {z:DateTime('UTC')}, {a:Array(DateTime64(3))}, {s:String}, {t:DateTime}";
        let mut spec = QuerySpec::new(sql);
        spec.bind("t", &ParamValue::Instant(0), None).unwrap();
        spec.bind("z", &noon, None).unwrap();
        spec.bind("a", &ParamValue::List(vec![noon.clone()]), None).unwrap();
        spec.bind("s", &ParamValue::Str("x".into()), None).unwrap();
        spec.bind("t", &noon, None).unwrap();
        let before = texts(&spec);
        assert_eq!(before[4].1, "2024-01-01 12:00:00");
        let mut unknown = spec.clone();
        unknown.bind_in_zone(None);
        assert_eq!(texts(&unknown), before, "no zone known: the first binding stays");
        spec.bind_in_zone(Some("Asia/Kolkata"));
        let after = texts(&spec);
        assert_eq!(after[0].1, "1970-01-01 05:30:00", "the first `t`, bound again too");
        assert_eq!(after[1].1, "2024-01-01 12:00:00", "a zone of its own: unchanged");
        assert_eq!(after[2].1, "['2024-01-01 17:30:00']");
        assert_eq!(after[3].1, "x");
        assert_eq!(after[4].1, "2024-01-01 17:30:00");
        // Bound with the zone known: nothing to do again.
        let mut known = QuerySpec::new(sql);
        known.bind("t", &noon, Some("Asia/Kolkata")).unwrap();
        assert!(known.zoned.is_empty());
    }
}
