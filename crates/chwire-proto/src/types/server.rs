//! The types a server has. Tables that chwire creates from another type system (the Spark
//! catalog, ADBC ingest) name only those: a type the server lacks becomes an older one that
//! holds the same values where there is one (a value it cannot hold is then refused by the
//! insert's conversion, never changed), and is refused before anything is created otherwise.

use super::DataType;
use std::collections::BTreeSet;

/// The type families of a server (`system.data_type_families`), or every family.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerTypes {
    /// None: a current server (every family chwire maps to).
    families: Option<BTreeSet<String>>,
}

impl ServerTypes {
    /// Every type: a current server.
    pub fn all() -> ServerTypes {
        ServerTypes { families: None }
    }

    /// The families a server lists (`SELECT name FROM system.data_type_families`).
    pub fn from_families<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> ServerTypes {
        ServerTypes { families: Some(names.into_iter().map(Into::into).collect()) }
    }

    /// Whether the server has the type family `name` (as ClickHouse spells it).
    pub fn has(&self, name: &str) -> bool {
        self.families.as_ref().is_none_or(|f| f.contains(name))
    }

    /// Whether tuple elements may be named (`Tuple(a Int32)`): servers with `Map` (20.x and
    /// later) have them, older ones do not list them as a family of their own.
    pub fn named_tuples(&self) -> bool {
        self.has("Map")
    }

    /// `ty` spelled in this server's types: `Date32` → `Date` and `DateTime64` → `DateTime`
    /// (narrower: the insert refuses what they cannot hold), `Bool` → `UInt8` (what ClickHouse
    /// stored booleans in before `Bool`); any other family the server lacks, and named tuple
    /// elements where it has none, is an error naming it.
    pub fn adapt(&self, ty: &DataType) -> Result<DataType, String> {
        use DataType as T;
        let inner = |t: &DataType| self.adapt(t).map(Box::new);
        Ok(match ty {
            T::Date32 if !self.has("Date32") => T::Date,
            T::DateTime64 { tz, .. } if !self.has("DateTime64") => T::DateTime(tz.clone()),
            T::Bool if !self.has("Bool") => T::UInt8,
            T::Nullable(t) => T::Nullable(inner(t)?),
            T::Array(t) => self.check("Array", T::Array(inner(t)?))?,
            T::LowCardinality(t) => self.check("LowCardinality", T::LowCardinality(inner(t)?))?,
            T::Map(k, v) => self.check("Map", T::Map(inner(k)?, inner(v)?))?,
            T::Tuple(items) => {
                if items.iter().any(|(n, _)| n.is_some()) && !self.named_tuples() {
                    return Err("this server has no named tuple elements (Tuple(a T)): they came with ClickHouse 20".into());
                }
                let items = items.iter().map(|(n, t)| Ok((n.clone(), self.adapt(t)?))).collect::<Result<Vec<_>, String>>()?;
                self.check("Tuple", T::Tuple(items))?
            }
            t => {
                let name = t.to_string();
                let family = name.split('(').next().unwrap_or_default().to_string();
                self.check(&family, t.clone())?
            }
        })
    }

    fn check(&self, family: &str, ty: DataType) -> Result<DataType, String> {
        if self.has(family) {
            Ok(ty)
        } else {
            Err(format!("this server has no type {family} (for {ty})"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    #[test]
    fn older_servers_get_older_types_or_an_error_naming_the_missing_one() {
        // ClickHouse 18.16's families among those the mappings use.
        let old = ServerTypes::from_families([
            "UInt8",
            "Int32",
            "Int64",
            "Float64",
            "String",
            "Date",
            "DateTime",
            "Nullable",
            "Array",
            "Tuple",
            "Decimal",
            "LowCardinality",
            "UUID",
        ]);
        let adapt = |s: &str| old.adapt(&t(s)).map(|d| d.to_string());
        assert_eq!(adapt("Nullable(Date32)").unwrap(), "Nullable(Date)");
        assert_eq!(adapt("Array(DateTime64(6, 'Asia/Tokyo'))").unwrap(), "Array(DateTime('Asia/Tokyo'))");
        assert_eq!(adapt("Tuple(Bool, Decimal(38, 10))").unwrap(), "Tuple(UInt8, Decimal(38, 10))");
        assert_eq!(adapt("LowCardinality(Nullable(String))").unwrap(), "LowCardinality(Nullable(String))");
        assert!(adapt("Map(String, Int64)").unwrap_err().contains("no type Map"));
        assert!(adapt("Tuple(a Int32)").unwrap_err().contains("named tuple"));
        assert!(adapt("Array(Time64(3))").unwrap_err().contains("no type Time64"));
        assert!(adapt("Nullable(Int128)").unwrap_err().contains("no type Int128"));
        // A current server keeps every type as it is.
        for s in ["Map(String, Tuple(a Bool, b Date32))", "DateTime64(9)", "Time64(3)"] {
            assert_eq!(ServerTypes::all().adapt(&t(s)).unwrap(), t(s));
        }
    }
}
