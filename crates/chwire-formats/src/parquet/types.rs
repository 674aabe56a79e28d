//! Parquet column types that parquet-rs reads differently from ClickHouse 26.9, made to read
//! as ClickHouse reads them, before the file's Arrow schema is derived.
//!
//! INTERVAL (a converted type on 12 fixed bytes: months, days and milliseconds, each a
//! little-endian u32, as DuckDB writes its intervals): parquet-rs reads it as an Arrow
//! day-time interval, which has no room for the months and drops them. ClickHouse reads the
//! 12 bytes as `FixedString(12)`; so does chwire, by reading the column without its INTERVAL
//! annotation (a plain fixed-length byte array). Only the schema the reader derives its types
//! from changes: the pages, their encodings and the column chunks are read as they are.

use parquet::basic::ConvertedType;
use parquet::errors::Result;
use parquet::file::metadata::{FileMetaData, ParquetMetaData, ParquetMetaDataBuilder};
use parquet::schema::types::{BasicTypeInfo, SchemaDescriptor, Type, TypePtr};
use std::sync::Arc;

/// `metadata` with every INTERVAL column read as its 12 bytes; `None` when it has none.
pub(super) fn intervals_as_bytes(metadata: &ParquetMetaData) -> Result<Option<ParquetMetaData>> {
    without_annotations(metadata, &|info| info.converted_type() == ConvertedType::INTERVAL)
}

/// `metadata` with the leaves `annotated` selects read as their plain physical type (the
/// logical and converted types dropped); `None` when it selects none.
pub(super) fn without_annotations(
    metadata: &ParquetMetaData,
    annotated: &dyn Fn(&BasicTypeInfo) -> bool,
) -> Result<Option<ParquetMetaData>> {
    let file = metadata.file_metadata();
    let Some(root) = without(&file.schema_descr().root_schema_ptr(), annotated)? else { return Ok(None) };
    let schema = Arc::new(SchemaDescriptor::new(root));
    let file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_owned),
        file.key_value_metadata().cloned(),
        schema,
        file.column_orders().cloned(),
    );
    let rewritten = ParquetMetaDataBuilder::new(file)
        .set_row_groups(metadata.row_groups().to_vec())
        .set_column_index(metadata.column_index().cloned())
        .set_offset_index(metadata.offset_index().cloned())
        .build();
    Ok(Some(rewritten))
}

/// `ty` without the annotations of the leaves `annotated` selects, or `None` when it has none.
fn without(ty: &TypePtr, annotated: &dyn Fn(&BasicTypeInfo) -> bool) -> Result<Option<TypePtr>> {
    let info = ty.get_basic_info();
    if ty.is_primitive() {
        if !annotated(info) {
            return Ok(None);
        }
        let mut plain = Type::primitive_type_builder(info.name(), ty.get_physical_type()).with_id(info.has_id().then(|| info.id()));
        if let Type::PrimitiveType { type_length, .. } = ty.as_ref() {
            plain = plain.with_length(*type_length);
        }
        if info.has_repetition() {
            plain = plain.with_repetition(info.repetition());
        }
        return Ok(Some(Arc::new(plain.build()?)));
    }
    let mut changed = false;
    let mut fields = Vec::with_capacity(ty.get_fields().len());
    for field in ty.get_fields() {
        match without(field, annotated)? {
            Some(plain) => {
                changed = true;
                fields.push(plain);
            }
            None => fields.push(field.clone()),
        }
    }
    if !changed {
        return Ok(None);
    }
    let mut group = Type::group_type_builder(info.name())
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_id(info.has_id().then(|| info.id()))
        .with_fields(fields);
    if info.has_repetition() {
        group = group.with_repetition(info.repetition());
    }
    Ok(Some(Arc::new(group.build()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, FixedSizeBinaryArray, ListArray, RecordBatch};
    use arrow_schema::DataType;
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
    use parquet::data_type::{FixedLenByteArray, FixedLenByteArrayType, Int32Type};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    /// 12 bytes of an interval: months, days, milliseconds.
    fn interval(months: u32, days: u32, millis: u32) -> Vec<u8> {
        [months, days, millis].iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A file as DuckDB writes intervals: a top-level optional INTERVAL column (a null in
    /// the middle), one in a list, and an INT32 beside them.
    fn file() -> bytes::Bytes {
        let schema = Arc::new(
            parse_message_type(
                "message duckdb_schema {
                    optional int32 i;
                    optional fixed_len_byte_array(12) iv (INTERVAL);
                    optional group l (LIST) { repeated group list { optional fixed_len_byte_array(12) element (INTERVAL); } }
                }",
            )
            .unwrap(),
        );
        let mut w = SerializedFileWriter::new(Vec::new(), schema, Default::default()).unwrap();
        let mut rg = w.next_row_group().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int32Type>().write_batch(&[1, 2, 3], Some(&[1, 1, 1]), None).unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        let values = [FixedLenByteArray::from(interval(1, 2, 3)), FixedLenByteArray::from(interval(14, 30, 86_399_999))];
        c.typed::<FixedLenByteArrayType>().write_batch(&values, Some(&[1, 0, 1]), None).unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        // Rows: [interval(5, 6, 7)], [], [interval(8, 9, 10), interval(11, 12, 13)].
        let values: Vec<FixedLenByteArray> =
            [interval(5, 6, 7), interval(8, 9, 10), interval(11, 12, 13)].into_iter().map(Into::into).collect();
        c.typed::<FixedLenByteArrayType>().write_batch(&values, Some(&[3, 1, 3, 3]), Some(&[0, 0, 0, 1])).unwrap();
        c.close().unwrap();
        rg.close().unwrap();
        w.into_inner().unwrap().into()
    }

    #[test]
    fn intervals_read_as_their_twelve_bytes_months_included() {
        let f = file();
        let loaded = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).unwrap();
        assert!(matches!(loaded.schema().field(1).data_type(), DataType::Interval(_)), "parquet-rs' own reading");
        let rewritten = intervals_as_bytes(loaded.metadata()).unwrap().expect("the file has intervals");
        let metadata = ArrowReaderMetadata::try_new(Arc::new(rewritten), ArrowReaderOptions::new()).unwrap();
        let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::new_with_metadata(f, metadata)
            .build()
            .unwrap()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        let batch = &batches[0];
        assert_eq!(batch.schema().field(0).data_type(), &DataType::Int32);
        let iv = batch.column(1).as_any().downcast_ref::<FixedSizeBinaryArray>().unwrap();
        assert_eq!(iv.value(0), interval(1, 2, 3).as_slice());
        assert!(iv.is_null(1));
        assert_eq!(iv.value(2), interval(14, 30, 86_399_999).as_slice(), "the months are kept");
        let l = batch.column(2).as_any().downcast_ref::<ListArray>().unwrap();
        assert_eq!(l.value_offsets(), &[0, 1, 1, 3]);
        let items = l.values().as_any().downcast_ref::<FixedSizeBinaryArray>().unwrap();
        assert_eq!(items.value(2), interval(11, 12, 13).as_slice());
    }

    #[test]
    fn a_file_without_intervals_is_left_alone() {
        let f = crate::parquet::columns::tests::file(10);
        let loaded = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new()).unwrap();
        assert!(intervals_as_bytes(loaded.metadata()).unwrap().is_none());
    }
}
