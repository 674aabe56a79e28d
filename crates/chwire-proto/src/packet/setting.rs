//! A setting sent with a query: what the Query packet carries in either encoding (as strings
//! with flags, `client`; or in the binary form of older revisions, `legacy_settings`).

/// A setting sent with a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The setting's name, e.g. `max_threads`.
    pub name: String,
    /// The value as text, as in `SET name = value` (without SQL quotes).
    pub value: String,
    /// Important settings make the server fail on an unknown name instead of ignoring it.
    pub important: bool,
}
