//! DateTime timezones over HTTP.
//!
//! `FORMAT Native` over HTTP is written for a client of revision 0, and every ClickHouse
//! version (18.16 as 26.9) then names a `DateTime('Asia/Tokyo')` column plain `DateTime`: the
//! values (seconds since the epoch) are right, but rendered, converted to Arrow or read into
//! zoned types they would land in the server's zone — text output re-read into the same
//! column would shift by the zone's offset. So when a result has such columns, chwire asks the
//! server for the real types once per query (`DESCRIBE TABLE (<query>)`, on a side connection)
//! and puts the zones back. Statements that cannot be described keep the plain types.

use chwire_proto::{Block, DataType};

#[derive(Debug, Default)]
pub(crate) struct ZoneFix {
    /// The query, until its types are known.
    sql: String,
    state: State,
}

#[derive(Debug, Default)]
enum State {
    /// Nothing to fix (no query, or not resolvable).
    #[default]
    Off,
    Unresolved,
    /// The type to give each column (`None`: keep the block's).
    Resolved(Vec<Option<DataType>>),
}

/// The type name with every `DateTime('zone')` / `DateTime64(p, 'zone')` zone removed: what
/// the server writes over HTTP.
pub(crate) fn strip_zones(ty: &str) -> String {
    let mut out = String::with_capacity(ty.len());
    let mut rest = ty;
    while let Some(i) = rest.find("DateTime") {
        out.push_str(&rest[..i + "DateTime".len()]);
        rest = &rest[i + "DateTime".len()..];
        if let Some(r) = rest.strip_prefix("('") {
            // DateTime('zone')
            let end = r.find("')").map_or(r.len(), |e| e + 2);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("64(") {
            // DateTime64(p[, 'zone'])
            let close = r.find(')').unwrap_or(r.len());
            let args = &r[..close];
            let precision = args.split(',').next().unwrap_or("").trim();
            out.push_str(&format!("64({precision})"));
            rest = r.get(close + 1..).unwrap_or("");
        }
    }
    out.push_str(rest);
    out
}

/// Whether a type has a DateTime without a zone (which may have lost it).
fn plain_datetime(ty: &DataType) -> bool {
    let name = ty.to_string();
    name.contains("DateTime") && strip_zones(&name) == name
}

pub(crate) fn has_plain_datetime(b: &Block) -> bool {
    b.columns().iter().any(|(_, c)| plain_datetime(c.data_type()))
}

impl ZoneFix {
    pub(crate) fn for_query(sql: &str) -> ZoneFix {
        let sql = sql.trim().trim_end_matches(';').trim_end();
        ZoneFix { sql: sql.to_string(), state: State::Unresolved }
    }

    /// A query whose result carries its zones (a server that takes `client_protocol_version`):
    /// nothing to fix; the SQL is kept for an empty result's header.
    pub(crate) fn with_zones(sql: &str) -> ZoneFix {
        ZoneFix { state: State::Off, ..ZoneFix::for_query(sql) }
    }

    pub(crate) fn is_unresolved(&self) -> bool {
        matches!(self.state, State::Unresolved)
    }

    pub(crate) fn sql(&self) -> &str {
        &self.sql
    }

    /// Take the described types: a column gets one only where it is the block's type with
    /// zones (anything else means the description does not match the result).
    pub(crate) fn resolve(&mut self, b: &Block, described: Option<Vec<String>>) {
        self.sql.clear();
        let Some(types) = described.filter(|t| t.len() == b.num_columns()) else {
            self.state = State::Off;
            return;
        };
        let fix = b
            .columns()
            .iter()
            .zip(types)
            .map(|((_, c), t)| {
                let got = c.data_type().to_string();
                (t != got && strip_zones(&t) == got).then(|| DataType::parse(&t).ok()).flatten()
            })
            .collect::<Vec<_>>();
        self.state = if fix.iter().any(Option::is_some) { State::Resolved(fix) } else { State::Off };
    }

    pub(crate) fn apply(&self, b: Block) -> Block {
        let State::Resolved(fix) = &self.state else { return b };
        if b.num_columns() != fix.len() {
            return b;
        }
        b.retyped(|i, _| fix.get(i).cloned().flatten()).expect("same storage: only the zone differs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_stripped_as_the_server_does() {
        assert_eq!(strip_zones("DateTime('Asia/Tokyo')"), "DateTime");
        assert_eq!(strip_zones("Array(Nullable(DateTime('UTC')))"), "Array(Nullable(DateTime))");
        assert_eq!(strip_zones("Tuple(DateTime64(3, 'UTC'), DateTime)"), "Tuple(DateTime64(3), DateTime)");
        assert_eq!(strip_zones("String"), "String");
    }
}
