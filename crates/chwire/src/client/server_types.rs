//! The type families of the connected server, for DDL that chwire writes (see
//! [`ServerTypes`](chwire_proto::types::ServerTypes)).

use super::Client;
use crate::error::Result;
use chwire_proto::types::ServerTypes;
use chwire_proto::Value;

impl Client {
    /// The type families this server has (`system.data_type_families`, aliases included): the
    /// types a table chwire creates may name ([`ServerTypes::adapt`]).
    pub async fn server_types(&mut self) -> Result<ServerTypes> {
        let mut cursor = self.query("SELECT name FROM system.data_type_families").fetch_dynamic().await?;
        let mut names = Vec::new();
        while let Some(row) = cursor.next().await? {
            if let Some(Value::String(b)) = row.values().into_iter().next() {
                names.push(String::from_utf8_lossy(b).into_owned());
            }
        }
        Ok(ServerTypes::from_families(names))
    }
}
