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
    /// Bounds of a result the caller collects whole ([`Query::limits`]).
    pub limits: super::ResultLimits,
    /// The values that hold an instant, with the zone they were bound in: a DateTime without
    /// a zone of its own is read in the session's zone, which is known only on the connection
    /// the query runs on (a pool's spec is bound before one is leased; a `session_timezone`
    /// setting changes it). [`QuerySpec::query`] binds them again where the zone differs.
    zoned: Vec<Zoned>,
}

/// A parameter holding an instant, as [`QuerySpec::bind`] bound it.
#[derive(Debug, Clone, PartialEq)]
struct Zoned {
    /// Its place and name in `params`, and what it was bound to there (`params` is public: a
    /// parameter a caller changed since is left as the caller left it).
    at: usize,
    name: String,
    bound: BoundValue,
    value: ParamValue,
    /// The zone it was bound in (None: UTC).
    zone: Option<String>,
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
        if value.has_instant() {
            let zone = server_tz.map(str::to_owned);
            self.zoned.push(Zoned { at: self.params.len(), name: name.clone(), bound: bound.clone(), value: value.clone(), zone });
        }
        self.params.push((name, bound));
        Ok(())
    }

    /// The parameters holding an instant that were bound in another zone than `tz` (the
    /// session's), bound again in `tz`.
    fn bind_in_zone(&mut self, tz: Option<&str>) {
        let Some(tz) = tz else { return };
        for z in &mut self.zoned {
            if z.zone.as_deref() == Some(tz) {
                continue;
            }
            let Some((name, slot)) = self.params.get_mut(z.at).filter(|(n, v)| *n == z.name && *v == z.bound) else { continue };
            let ty = crate::params::placeholder_type(&self.sql, name);
            // The value was bound once already and its checks do not depend on the zone, so
            // this cannot fail; if it did, the first binding would stay.
            if let Ok(bound) = z.value.bind(ty.as_ref(), Some(tz)) {
                *slot = bound.clone();
                z.bound = bound;
                z.zone = Some(tz.to_owned());
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
        // The session's zone (which assembles every setting) only for a spec that holds an
        // instant: not on each query's path.
        if !self.zoned.is_empty() {
            let zone = super::session_zone::of(client, &self.settings).or_else(|| client.server_timezone());
            self.bind_in_zone(zone.as_deref());
        }
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
        q.limits(self.limits)
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
        // Bound in the session's zone: nothing to do again; in another (a session_timezone
        // setting): bound again.
        let mut known = QuerySpec::new(sql);
        known.bind("t", &noon, Some("Asia/Kolkata")).unwrap();
        known.bind_in_zone(Some("Asia/Kolkata"));
        assert_eq!(texts(&known)[0].1, "2024-01-01 17:30:00");
        known.bind_in_zone(Some("Asia/Tokyo"));
        assert_eq!(texts(&known)[0].1, "2024-01-01 21:00:00");
    }

    #[test]
    fn a_parameter_the_caller_changed_is_left_as_the_caller_left_it() {
        let noon = ParamValue::Instant(1_704_110_400_000_000);
        let mut spec = QuerySpec::new("SELECT {t:DateTime}, {u:DateTime}");
        spec.bind("t", &noon, None).unwrap();
        spec.bind("u", &noon, None).unwrap();
        let mine = ParamValue::Str("2000-01-01 00:00:00".into()).bind(None, None).unwrap();
        spec.params[0].1 = mine.clone();
        spec.bind_in_zone(Some("Asia/Kolkata"));
        assert_eq!(spec.params[0].1, mine);
        assert_eq!(spec.params[1].1.param_text(), "2024-01-01 17:30:00");
    }
}
