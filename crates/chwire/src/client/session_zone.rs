//! The session's time zone (`session_timezone`) on results: the server renders a `DateTime`
//! column without a zone of its own in the session's zone — the query's or the client's
//! `session_timezone` setting, which is what the native protocol knows of it (26.9 sends no
//! TimezoneUpdate for it; one that comes is taken), or the `X-ClickHouse-Timezone` header of an
//! HTTP response (also for a session's `SET session_timezone`). Such columns are given that
//! zone, so that their text, Arrow timestamps and zoned rows are the server's, not the
//! handshake's zone's (the server's default).

use super::Client;
use chwire_proto::{Block, DataType};

/// `tz` if it is a zone and not the server's (whose zone DateTime columns without one are in
/// anyway).
pub(super) fn other_than_the_servers(client: &Client, tz: &str) -> Option<String> {
    let server = client.server_info().and_then(|i| i.timezone);
    (!tz.is_empty() && server.as_deref() != Some(tz)).then(|| tz.to_string())
}

/// The query's `session_timezone` (its own setting, else the client's), where it is not the
/// server's zone.
pub(super) fn of(client: &Client, per_query: &[(String, String)]) -> Option<String> {
    // (A refused setting fails the query itself.)
    let settings = client.opts.settings_list(per_query).ok()?;
    let tz = settings.iter().rev().find(|s| s.name == "session_timezone")?;
    other_than_the_servers(client, &tz.value)
}

/// `ty` with every `DateTime`/`DateTime64` without a zone given `tz` (`None`: nothing to do).
fn zoned(ty: &DataType, tz: &str) -> Option<DataType> {
    use DataType as T;
    let boxed = |t: &DataType| zoned(t, tz).map(Box::new);
    Some(match ty {
        T::DateTime(None) => T::DateTime(Some(tz.to_string())),
        T::DateTime64 { precision, tz: None } => T::DateTime64 { precision: *precision, tz: Some(tz.to_string()) },
        T::Nullable(t) => T::Nullable(boxed(t)?),
        T::Array(t) => T::Array(boxed(t)?),
        T::LowCardinality(t) => T::LowCardinality(boxed(t)?),
        T::Map(k, v) if zoned(k, tz).is_some() || zoned(v, tz).is_some() => {
            T::Map(boxed(k).unwrap_or_else(|| k.clone()), boxed(v).unwrap_or_else(|| v.clone()))
        }
        T::Tuple(items) if items.iter().any(|(_, t)| zoned(t, tz).is_some()) => {
            T::Tuple(items.iter().map(|(n, t)| (n.clone(), zoned(t, tz).unwrap_or_else(|| t.clone()))).collect())
        }
        T::Nested(items) if items.iter().any(|(_, t)| zoned(t, tz).is_some()) => {
            T::Nested(items.iter().map(|(n, t)| (n.clone(), zoned(t, tz).unwrap_or_else(|| t.clone()))).collect())
        }
        _ => return None,
    })
}

/// The block with its zoneless DateTime columns in `tz`.
pub(super) fn apply(b: Block, tz: &str) -> Block {
    if !b.columns().iter().any(|(_, c)| zoned(c.data_type(), tz).is_some()) {
        return b;
    }
    b.retyped(|_, c| zoned(c.data_type(), tz)).expect("same storage: only the zone differs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoneless_datetimes_take_the_session_zone_at_every_depth() {
        for (ty, want) in [
            ("DateTime", Some("DateTime('Asia/Tokyo')")),
            ("DateTime('UTC')", None),
            ("DateTime64(3)", Some("DateTime64(3, 'Asia/Tokyo')")),
            ("Array(Nullable(DateTime))", Some("Array(Nullable(DateTime('Asia/Tokyo')))")),
            ("Map(String, DateTime64(6))", Some("Map(String, DateTime64(6, 'Asia/Tokyo'))")),
            ("Tuple(a DateTime, b String)", Some("Tuple(a DateTime('Asia/Tokyo'), b String)")),
            ("Tuple(a DateTime('UTC'), b String)", None),
            ("String", None),
        ] {
            let got = zoned(&DataType::parse(ty).unwrap(), "Asia/Tokyo").map(|t| t.to_string());
            assert_eq!(got.as_deref(), want, "{ty}");
        }
    }
}
