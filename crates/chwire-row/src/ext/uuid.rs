//! `uuid::Uuid` ↔ UUID (on the wire: two little-endian u64 halves).

use ::uuid::Uuid;

use crate::impls::bad_storage;
use crate::QueryParam;
use crate::{FromColumn, ToColumn};
use chwire_proto::column::{uuid_from_wire, uuid_to_wire};
use chwire_proto::{ColumnData, DataType};

impl<'a> FromColumn<'a> for Uuid {
    fn check_plain(ty: &DataType) -> Result<(), String> {
        match ty {
            DataType::Uuid => Ok(()),
            _ => Err("Uuid reads and writes UUID".into()),
        }
    }

    #[inline]
    fn read_plain(_: &'a DataType, data: &'a ColumnData, row: usize) -> Result<Self, String> {
        match data {
            ColumnData::Fixed { width: 16, data } => Ok(Uuid::from_bytes(uuid_from_wire(&data[row * 16..row * 16 + 16]))),
            other => Err(bad_storage(other)),
        }
    }
}

impl ToColumn for Uuid {
    fn check_write(ty: &DataType) -> Result<(), String> {
        <Uuid as FromColumn<'static>>::check_plain(ty)
    }

    #[inline]
    fn write(&self, _: &DataType, col: &mut ColumnData) -> Result<(), String> {
        match col {
            ColumnData::Fixed { width: 16, data } => {
                data.extend_from_slice(&uuid_to_wire(self.as_bytes()));
                Ok(())
            }
            other => Err(bad_storage(other)),
        }
    }
}

impl QueryParam for Uuid {
    fn param_text(&self) -> String {
        self.hyphenated().to_string()
    }
    fn sql_literal(&self) -> String {
        format!("'{}'", self.hyphenated())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{block_of, rows_of};

    #[test]
    fn uuids_round_trip_in_wire_order() {
        let u = Uuid::parse_str("61f0c404-5cb3-11e7-907b-a6006ad3dba0").unwrap();
        let cols = [("u", DataType::Uuid), ("n", DataType::parse("Nullable(UUID)").unwrap())];
        let block = block_of::<(Uuid, Option<Uuid>)>(&cols, &[(u, None), (Uuid::nil(), Some(u))]).unwrap();
        // ClickHouse's bytes for this UUID (see chwire_proto's uuid_wire_order test).
        let ColumnData::Fixed { data, .. } = block.column("u").unwrap().data() else { panic!() };
        assert_eq!(&data[..16], &[0xe7, 0x11, 0xb3, 0x5c, 0x04, 0xc4, 0xf0, 0x61, 0xa0, 0xdb, 0xd3, 0x6a, 0x00, 0xa6, 0x7b, 0x90]);
        assert_eq!(rows_of::<(Uuid, Option<Uuid>)>(&block).unwrap(), [(u, None), (Uuid::nil(), Some(u))]);
        assert_eq!(u.sql_literal(), "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'");
        let e = block_of::<(Uuid,)>(&[("s", DataType::String)], &[(u,)]).unwrap_err();
        assert!(e.to_string().contains("UUID"), "{e}");
    }
}
