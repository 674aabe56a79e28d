//! The driver and the database: connection options (`uri`, `username`, `password`, and
//! chwire's URL options as `chwire.<key>`), checked when set.

use crate::connection::ChwireConnection;
use crate::error::{not_found, not_implemented, ChResult};
use crate::options::{arrow_options, string_value, take_arrow_settings, ARROW_MAPPING};
use adbc_core::error::Result;
use adbc_core::options::{OptionConnection, OptionDatabase, OptionValue};
use adbc_core::{Database, Driver, Optionable};
use chwire::Options;

/// Prefix of the database options that are chwire URL options (`chwire.compression`, ...).
pub const CHWIRE_PREFIX: &str = "chwire.";

/// The driver: makes [`ChwireDatabase`]s (`AdbcDriverChwireInit` exports it to C).
#[derive(Default, Debug)]
pub struct ChwireDriver;

impl Driver for ChwireDriver {
    type DatabaseType = ChwireDatabase;

    fn new_database(&mut self) -> Result<ChwireDatabase> {
        Ok(ChwireDatabase::default())
    }

    fn new_database_with_opts(&mut self, opts: impl IntoIterator<Item = (OptionDatabase, OptionValue)>) -> Result<ChwireDatabase> {
        let mut db = ChwireDatabase::default();
        for (k, v) in opts {
            db.set_option(k, v)?;
        }
        Ok(db)
    }
}

/// An ADBC database: the options connections are made with (`uri`, `username`, `password`,
/// `chwire.<URL option>`, `chwire.arrow_mapping`), each checked when set.
#[derive(Default)]
pub struct ChwireDatabase {
    uri: Option<String>,
    username: Option<String>,
    password: Option<String>,
    /// chwire URL options, in the order they were set.
    extra: Vec<(String, String)>,
    /// `chwire.arrow_mapping`: `rich` (default) or `clickhouse` (ClickHouse's own Arrow types).
    mapping: Option<String>,
}

impl ChwireDatabase {
    /// The client options these settings make, and the Arrow options of results (the mapping,
    /// with the URL's and options' `output_format_arrow_*` settings applied).
    pub fn connection_options(&self) -> Result<(Options, chwire_arrow::ArrowOptions)> {
        let mut o = self.options()?;
        let mut arrow = arrow_options(self.mapping.as_deref())?;
        take_arrow_settings(&mut o.settings, &mut arrow)?;
        Ok((o, arrow))
    }

    /// The client options these settings make.
    pub fn options(&self) -> Result<Options> {
        // The core's one reader of a URL and options (a host without a port gets the default
        // of the transport and TLS all of them choose).
        let mut o = Options::from_url_and(self.uri.as_deref(), self.extra.iter().map(|(k, v)| (k, v))).ch()?;
        if let Some(u) = &self.username {
            o.user = u.clone();
        }
        if let Some(p) = &self.password {
            o.password = p.clone();
        }
        Ok(o)
    }
}

impl Optionable for ChwireDatabase {
    type Option = OptionDatabase;

    fn set_option(&mut self, key: OptionDatabase, value: OptionValue) -> Result<()> {
        let name = key.as_ref().to_string();
        match key {
            OptionDatabase::Uri => {
                let v = string_value(&name, value)?;
                let mut o = Options::from_url(&v).ch()?; // refused now, not at the first connection
                take_arrow_settings(&mut o.settings, &mut chwire_arrow::ArrowOptions::default())?;
                self.uri = Some(v);
            }
            OptionDatabase::Username => self.username = Some(string_value(&name, value)?),
            OptionDatabase::Password => self.password = Some(string_value(&name, value)?),
            OptionDatabase::Other(k) if k == ARROW_MAPPING => {
                let v = string_value(&k, value)?;
                arrow_options(Some(&v))?;
                self.mapping = Some(v);
            }
            OptionDatabase::Other(k) if k.starts_with(CHWIRE_PREFIX) => {
                let v = string_value(&k, value)?;
                let key = k[CHWIRE_PREFIX.len()..].to_string();
                // Set again, an option replaces its earlier value (in any spelling).
                let before = self.extra.clone();
                self.extra.retain(|(n, _)| canonical(n) != canonical(&key));
                self.extra.push((key, v));
                if let Err(e) = self.connection_options() {
                    self.extra = before;
                    return Err(e);
                }
            }
            _ => return Err(not_implemented(format!("unknown database option {name:?}"))),
        }
        Ok(())
    }

    fn get_option_string(&self, key: OptionDatabase) -> Result<String> {
        let v = match &key {
            OptionDatabase::Uri => self.uri.clone(),
            OptionDatabase::Username => self.username.clone(),
            OptionDatabase::Password => self.password.clone(),
            OptionDatabase::Other(k) if k == ARROW_MAPPING => self.mapping.clone(),
            OptionDatabase::Other(k) if k.starts_with(CHWIRE_PREFIX) => {
                let name = &k[CHWIRE_PREFIX.len()..];
                self.extra.iter().rev().find(|(n, _)| canonical(n) == canonical(name)).map(|(_, v)| v.clone())
            }
            _ => None,
        };
        v.ok_or_else(|| not_found(format!("option {:?} is not set", key.as_ref())))
    }

    fn get_option_bytes(&self, key: OptionDatabase) -> Result<Vec<u8>> {
        Err(not_found(format!("option {:?} has no bytes value", key.as_ref())))
    }

    fn get_option_int(&self, key: OptionDatabase) -> Result<i64> {
        Err(not_found(format!("option {:?} has no int value", key.as_ref())))
    }

    fn get_option_double(&self, key: OptionDatabase) -> Result<f64> {
        Err(not_found(format!("option {:?} has no double value", key.as_ref())))
    }
}

impl Database for ChwireDatabase {
    type ConnectionType = ChwireConnection;

    fn new_connection(&self) -> Result<ChwireConnection> {
        let (o, arrow) = self.connection_options()?;
        ChwireConnection::connect(o, arrow)
    }

    fn new_connection_with_opts(&self, opts: impl IntoIterator<Item = (OptionConnection, OptionValue)>) -> Result<ChwireConnection> {
        let mut c = self.new_connection()?;
        for (k, v) in opts {
            c.set_option(k, v)?;
        }
        Ok(c)
    }
}

/// An option's or setting's one name, whatever the spelling (the core's rule); a key that is
/// neither as given (the core refuses it when the options are read).
fn canonical(key: &str) -> &str {
    chwire::options::keys::canonical_name(key).unwrap_or(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(db: &mut ChwireDatabase, key: OptionDatabase, value: &str) -> Result<()> {
        db.set_option(key, OptionValue::String(value.into()))
    }

    /// `chwire.*` options and the URI are read together by the core (ports by the transport and
    /// TLS all of them choose); an option set again replaces its earlier value, in any spelling.
    #[test]
    fn options_are_read_with_the_uri_and_replace_themselves() {
        let mut db = ChwireDatabase::default();
        set(&mut db, OptionDatabase::Uri, "tcp://a/db").unwrap();
        set(&mut db, OptionDatabase::Other("chwire.hosts".into()), "b").unwrap();
        set(&mut db, OptionDatabase::Other("chwire.secure".into()), "true").unwrap();
        let ports: Vec<u16> = db.options().unwrap().endpoints().iter().map(|e| e.port).collect();
        assert_eq!(ports, [9440, 9440]);
        set(&mut db, OptionDatabase::Other("chwire.compression".into()), "lz4").unwrap();
        set(&mut db, OptionDatabase::Other("chwire.Compression".into()), "none").unwrap();
        assert_eq!(db.options().unwrap().compression, chwire::Compression::None);
        let read = db.get_option_string(OptionDatabase::Other("chwire.compression".into())).unwrap();
        assert_eq!(read, "none");
        // A refused value leaves the options as they were.
        assert!(set(&mut db, OptionDatabase::Other("chwire.compression".into()), "bogus").is_err());
        assert_eq!(db.get_option_string(OptionDatabase::Other("chwire.compression".into())).unwrap(), "none");
    }
}
