//! GetInfo: the server's name and version, the driver's, the Arrow and ADBC versions.

use adbc_core::error::Result;
use adbc_core::options::InfoCode;
use arrow_array::{new_empty_array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray, UInt32Array, UnionArray};
use arrow_buffer::ScalarBuffer;
use arrow_schema::DataType;
use std::collections::HashSet;
use std::sync::Arc;

enum V {
    Str(String),
    Bool(bool),
    Int(i64),
}

/// The GetInfo result for `codes` (all when `None`); `version` is the server's version as it
/// names it (`SELECT version()`), if known.
pub fn info_batch(server: Option<&chwire::ServerInfo>, version: Option<&str>, codes: Option<HashSet<InfoCode>>) -> Result<RecordBatch> {
    let mut all: Vec<(InfoCode, V)> = vec![(InfoCode::VendorName, V::Str("ClickHouse".into()))];
    match (version, server) {
        (Some(v), _) => all.push((InfoCode::VendorVersion, V::Str(v.into()))),
        // The handshake's three numbers: a current server's version has four (26.9.2.1).
        (None, Some(s)) => all.push((InfoCode::VendorVersion, V::Str(format!("{}.{}.{}", s.version.0, s.version.1, s.version.2)))),
        (None, None) => {}
    }
    all.extend([
        (InfoCode::VendorSql, V::Bool(true)),
        (InfoCode::VendorSubstrait, V::Bool(false)),
        (InfoCode::DriverName, V::Str(crate::DRIVER_NAME.into())),
        (InfoCode::DriverVersion, V::Str(env!("CARGO_PKG_VERSION").into())),
        (InfoCode::DriverArrowVersion, V::Str(crate::ARROW_VERSION.into())),
        (InfoCode::DriverAdbcVersion, V::Int(i64::from(adbc_core::constants::ADBC_VERSION_1_1_0))),
    ]);
    if let Some(codes) = &codes {
        all.retain(|(c, _)| codes.contains(c));
    }
    let schema = adbc_core::schemas::GET_INFO_SCHEMA.clone();
    let DataType::Union(fields, _) = schema.field(1).data_type().clone() else {
        return Err(crate::error::internal("GetInfo's schema has no union"));
    };
    let (mut strings, mut bools, mut ints) = (Vec::new(), Vec::new(), Vec::new());
    let mut type_ids = Vec::new();
    let mut offsets = Vec::new();
    let mut names = Vec::new();
    for (code, v) in all {
        names.push(u32::from(&code));
        match v {
            V::Str(s) => {
                type_ids.push(0i8);
                offsets.push(strings.len() as i32);
                strings.push(s);
            }
            V::Bool(b) => {
                type_ids.push(1);
                offsets.push(bools.len() as i32);
                bools.push(b);
            }
            V::Int(i) => {
                type_ids.push(2);
                offsets.push(ints.len() as i32);
                ints.push(i);
            }
        }
    }
    let mut children: Vec<ArrayRef> =
        vec![Arc::new(StringArray::from(strings)), Arc::new(BooleanArray::from(bools)), Arc::new(Int64Array::from(ints))];
    for (_, f) in fields.iter().skip(3) {
        children.push(new_empty_array(f.data_type()));
    }
    let union = UnionArray::try_new(fields, ScalarBuffer::from(type_ids), Some(ScalarBuffer::from(offsets)), children)?;
    Ok(RecordBatch::try_new(schema, vec![Arc::new(UInt32Array::from(names)), Arc::new(union)])?)
}
