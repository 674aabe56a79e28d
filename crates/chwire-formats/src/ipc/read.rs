//! Arrow IPC files and streams read with their utf8 arrays as binary.
//!
//! A ClickHouse String holds any bytes, and ClickHouse writes it into Arrow utf8 arrays
//! whatever its bytes (`output_format_arrow_string_as_string`, on by default). arrow-ipc's
//! readers check every utf8 array and refuse the whole file when one value is not UTF-8;
//! ClickHouse reads such a file. So chwire decodes each message against the file's schema with
//! utf8 made binary (the same layout: offsets and bytes), where the offsets are still checked
//! but the bytes are taken as they are. The ClickHouse types come from the file's own schema
//! (and a field's metadata, which is kept), which is what [`file`] and [`stream`] return beside
//! the batches.
//!
//! The loops mirror arrow-ipc's `FileReader` and `StreamReader`, on its public decoders
//! (`FileDecoder`, `RecordBatchDecoder`, `read_dictionary`); the lengths they trust were checked
//! before (`ipc_guard`).

use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::{Buffer, MutableBuffer};
use arrow_ipc::reader::{read_dictionary, read_footer_length, FileDecoder, RecordBatchDecoder};
use arrow_ipc::{Block, MessageHeader, MetadataVersion};
use arrow_schema::{ArrowError, DataType as A, Field, FieldRef, Fields, Schema, SchemaRef, UnionFields};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// `schema` with every utf8 type (at any depth) the binary type of the same offsets.
pub(super) fn bytes_schema(schema: &Schema) -> Schema {
    Schema::new_with_metadata(schema.fields().iter().map(bytes_field).collect::<Fields>(), schema.metadata().clone())
}

fn bytes_field(field: &FieldRef) -> FieldRef {
    let ty = bytes_type(field.data_type());
    if &ty == field.data_type() {
        return field.clone();
    }
    Arc::new(Field::clone(field).with_data_type(ty))
}

fn bytes_type(ty: &A) -> A {
    match ty {
        A::Utf8 => A::Binary,
        A::LargeUtf8 => A::LargeBinary,
        A::Utf8View => A::BinaryView,
        A::List(f) => A::List(bytes_field(f)),
        A::LargeList(f) => A::LargeList(bytes_field(f)),
        A::ListView(f) => A::ListView(bytes_field(f)),
        A::LargeListView(f) => A::LargeListView(bytes_field(f)),
        A::FixedSizeList(f, n) => A::FixedSizeList(bytes_field(f), *n),
        A::Struct(fields) => A::Struct(fields.iter().map(bytes_field).collect()),
        A::Map(f, sorted) => A::Map(bytes_field(f), *sorted),
        A::Dictionary(key, value) => A::Dictionary(key.clone(), Box::new(bytes_type(value))),
        A::RunEndEncoded(ends, values) => A::RunEndEncoded(ends.clone(), bytes_field(values)),
        A::Union(fields, mode) => {
            let (ids, children): (Vec<i8>, Vec<FieldRef>) = fields.iter().map(|(id, f)| (id, bytes_field(f))).unzip();
            match UnionFields::try_new(ids, children) {
                Ok(fields) => A::Union(fields, *mode),
                Err(_) => ty.clone(),
            }
        }
        _ => ty.clone(),
    }
}

fn parse_error(what: impl std::fmt::Display) -> ArrowError {
    ArrowError::ParseError(what.to_string())
}

/// An IPC file's schema (as written) and its batches (utf8 read as binary).
pub(super) fn file<R: Read + Seek>(mut reader: R) -> Result<(SchemaRef, FileBatches<R>), ArrowError> {
    let mut tail = [0; 10];
    reader.seek(SeekFrom::End(-10))?;
    reader.read_exact(&mut tail)?;
    let footer_len = read_footer_length(tail)?;
    let mut footer_data = vec![0; footer_len];
    let back = i64::try_from(footer_len).ok().and_then(|l| l.checked_add(10)).ok_or_else(|| parse_error("footer length"))?;
    reader.seek(SeekFrom::End(-back))?;
    reader.read_exact(&mut footer_data)?;
    let footer = arrow_ipc::root_as_footer(&footer_data).map_err(|e| parse_error(format!("Unable to get root as footer: {e:?}")))?;
    let ipc_schema = footer.schema().ok_or_else(|| parse_error("the IPC footer has no schema"))?;
    if !ipc_schema.endianness().equals_to_target_endianness() {
        return Err(ArrowError::IpcError("the file's endianness is not this machine's".into()));
    }
    let schema = Arc::new(arrow_ipc::convert::fb_to_schema(ipc_schema));
    let blocks: Vec<Block> =
        footer.recordBatches().ok_or_else(|| parse_error("the IPC footer has no record batches"))?.iter().copied().collect();
    let mut decoder = FileDecoder::new(Arc::new(bytes_schema(&schema)), footer.version());
    for block in footer.dictionaries().into_iter().flatten() {
        let buf = read_block(&mut reader, block)?;
        decoder.read_dictionary(block, &buf)?;
    }
    Ok((schema, FileBatches { reader, blocks, next: 0, decoder }))
}

fn read_block<R: Read + Seek>(reader: &mut R, block: &Block) -> Result<Buffer, ArrowError> {
    let len = |v: i64| usize::try_from(v).map_err(|_| parse_error(format!("a block length of {v}")));
    let total = len(block.bodyLength())?.checked_add(len(i64::from(block.metaDataLength()))?).ok_or_else(|| parse_error("block length"))?;
    let offset = u64::try_from(block.offset()).map_err(|_| parse_error(format!("a block offset of {}", block.offset())))?;
    reader.seek(SeekFrom::Start(offset))?;
    let mut buf = MutableBuffer::from_len_zeroed(total);
    reader.read_exact(&mut buf)?;
    Ok(buf.into())
}

/// The record batches of an IPC file, in order.
pub(super) struct FileBatches<R> {
    reader: R,
    blocks: Vec<Block>,
    next: usize,
    decoder: FileDecoder,
}

impl<R: Read + Seek> Iterator for FileBatches<R> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let block = *self.blocks.get(self.next)?;
        self.next += 1;
        let batch = read_block(&mut self.reader, &block).and_then(|buf| self.decoder.read_record_batch(&block, &buf));
        match batch {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => Some(Err(parse_error("an IPC block without a message"))),
            Err(e) => Some(Err(e)),
        }
    }
}

/// The schema of an IPC stream (its first message, as written) and its batches (utf8 read
/// as binary).
pub(super) fn stream<R: Read>(reader: R) -> Result<(SchemaRef, StreamBatches<R>), ArrowError> {
    let mut batches =
        StreamBatches { reader, schema: Arc::new(Schema::empty()), dictionaries: HashMap::new(), done: false, meta: Vec::new() };
    if batches.next_message()?.is_none() {
        return Err(ArrowError::IpcError("Expected schema message, found empty stream.".into()));
    }
    let message = root_message(&batches.meta)?;
    let Some(ipc_schema) = message.header_as_schema() else {
        return Err(ArrowError::IpcError(format!(
            "Expected a schema as the first message in the stream, got: {:?}",
            message.header_type()
        )));
    };
    let schema = Arc::new(arrow_ipc::convert::fb_to_schema(ipc_schema));
    batches.schema = Arc::new(bytes_schema(&schema));
    Ok((schema, batches))
}

/// A message's metadata (its flatbuffer), parsed.
fn root_message(meta: &[u8]) -> Result<arrow_ipc::Message<'_>, ArrowError> {
    arrow_ipc::root_as_message(meta).map_err(|e| parse_error(format!("Unable to get root as message: {e:?}")))
}

/// The record batches of an IPC stream, its dictionary messages applied on the way.
pub(super) struct StreamBatches<R> {
    reader: R,
    /// The stream's schema with utf8 as binary.
    schema: SchemaRef,
    dictionaries: HashMap<i64, ArrayRef>,
    done: bool,
    /// The current message's metadata (a flatbuffer).
    meta: Vec<u8>,
}

impl<R: Read> StreamBatches<R> {
    /// Reads the next message's metadata into `meta` and returns its body; `None` at the end
    /// of the stream (its end marker, or the end of the input between messages).
    fn next_message(&mut self) -> Result<Option<Buffer>, ArrowError> {
        let mut word = [0u8; 4];
        match self.reader.read_exact(&mut word) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        if word == [0xFF; 4] {
            self.reader.read_exact(&mut word)?;
        }
        let len = i32::from_le_bytes(word);
        if len == 0 {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| parse_error(format!("Invalid metadata length: {len}")))?;
        self.meta.resize(len, 0);
        self.reader.read_exact(&mut self.meta)?;
        let body_len = root_message(&self.meta)?.bodyLength();
        let body_len = usize::try_from(body_len).map_err(|_| parse_error(format!("Invalid body length: {body_len}")))?;
        let mut body = MutableBuffer::from_len_zeroed(body_len);
        self.reader.read_exact(&mut body)?;
        Ok(Some(body.into()))
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        loop {
            let Some(body) = self.next_message()? else { return Ok(None) };
            let message = root_message(&self.meta)?;
            let version: MetadataVersion = message.version();
            match message.header_type() {
                MessageHeader::RecordBatch => {
                    let batch =
                        message.header_as_record_batch().ok_or_else(|| parse_error("Unable to read IPC message as record batch"))?;
                    let decoder = RecordBatchDecoder::try_new(&body, batch, self.schema.clone(), &self.dictionaries, &version)?;
                    return decoder.with_require_alignment(false).read_record_batch().map(Some);
                }
                MessageHeader::DictionaryBatch => {
                    let dict = message.header_as_dictionary_batch().ok_or_else(|| parse_error("Failed to parse dictionary batch"))?;
                    read_dictionary(&body, dict, &self.schema, &mut self.dictionaries, &version)?;
                }
                MessageHeader::Schema => return Err(ArrowError::IpcError("Expected a record batch, but found a schema".into())),
                t => return Err(parse_error(format!("Unsupported message header type in IPC stream: '{t:?}'"))),
            }
        }
    }
}

impl<R: Read> Iterator for StreamBatches<R> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_batch().transpose();
        if !matches!(next, Some(Ok(_))) {
            self.done = true;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{Array, BinaryArray, StringArray};
    use arrow_ipc::writer::{FileWriter, StreamWriter};

    /// A batch whose utf8 column holds bytes that are not UTF-8, as ClickHouse writes them
    /// (built unchecked: arrow-rs itself would refuse to build it).
    fn batch() -> RecordBatch {
        let bytes = BinaryArray::from(vec![&[0xFF, 0x80][..], b"ok"]);
        let data = bytes.to_data().into_builder().data_type(A::Utf8);
        // SAFETY: the offsets and buffers are those of a valid binary array; only the UTF-8
        // of the values is not checked, which is what this test needs.
        let strings = StringArray::from(unsafe { data.build_unchecked() });
        let schema = Schema::new(vec![Field::new("s", A::Utf8, false), Field::new("n", A::Int32, false)]);
        RecordBatch::try_new(Arc::new(schema), vec![Arc::new(strings), Arc::new(arrow_array::Int32Array::from(vec![1, 2]))]).unwrap()
    }

    fn check(schema: &SchemaRef, batches: Vec<RecordBatch>) {
        assert_eq!(schema.field(0).data_type(), &A::Utf8, "the file's own schema");
        assert_eq!(batches.len(), 2);
        for b in batches {
            let s = b.column(0).as_binary::<i32>();
            assert_eq!(s.value(0), &[0xFF, 0x80]);
            assert_eq!(s.value(1), b"ok");
            assert_eq!(b.column(1).as_primitive::<arrow_array::types::Int32Type>().value(1), 2);
        }
    }

    #[test]
    fn files_keep_bytes_that_are_not_utf8() {
        let b = batch();
        let mut w = FileWriter::try_new(Vec::new(), &b.schema()).unwrap();
        w.write(&b).unwrap();
        w.write(&b).unwrap();
        let f = std::io::Cursor::new(w.into_inner().unwrap());
        assert!(arrow_ipc::reader::FileReader::try_new(f.clone(), None).unwrap().next().unwrap().is_err(), "arrow-ipc refuses them");
        let (schema, batches) = file(f).unwrap();
        check(&schema, batches.collect::<Result<_, _>>().unwrap());
    }

    #[test]
    fn streams_keep_bytes_that_are_not_utf8() {
        let b = batch();
        let mut w = StreamWriter::try_new(Vec::new(), &b.schema()).unwrap();
        w.write(&b).unwrap();
        w.write(&b).unwrap();
        let bytes = w.into_inner().unwrap();
        let (schema, batches) = stream(bytes.as_slice()).unwrap();
        check(&schema, batches.collect::<Result<_, _>>().unwrap());
        // Without the end marker, the stream ends where the input does.
        let (_, batches) = stream(&bytes[..bytes.len() - 8]).unwrap();
        assert_eq!(batches.count(), 2);
    }

    #[test]
    fn nested_utf8_becomes_binary_and_the_rest_stays() {
        let list = A::List(Arc::new(Field::new("item", A::Utf8, true)));
        let map = A::Map(
            Arc::new(Field::new(
                "entries",
                A::Struct(vec![Field::new("k", A::Utf8, false), Field::new("v", A::LargeUtf8, true)].into()),
                false,
            )),
            false,
        );
        let dict = A::Dictionary(Box::new(A::Int8), Box::new(A::Utf8));
        let meta = HashMap::from([("clickhouse.type".to_string(), "Enum8('a' = 1)".to_string())]);
        let schema = Schema::new(vec![
            Field::new("l", list, true),
            Field::new("m", map, false),
            Field::new("d", dict, false).with_metadata(meta.clone()),
            Field::new("i", A::Int64, false),
        ]);
        let b = bytes_schema(&schema);
        assert_eq!(b.field(0).data_type(), &A::List(Arc::new(Field::new("item", A::Binary, true))));
        let A::Map(entries, _) = b.field(1).data_type() else { panic!() };
        let A::Struct(kv) = entries.data_type() else { panic!() };
        assert_eq!((kv[0].data_type(), kv[1].data_type()), (&A::Binary, &A::LargeBinary));
        assert_eq!(b.field(2).data_type(), &A::Dictionary(Box::new(A::Int8), Box::new(A::Binary)));
        assert_eq!(b.field(2).metadata(), &meta);
        assert_eq!(b.field(3), schema.field(3));
    }
}
