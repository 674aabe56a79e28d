//! Column codecs: the data part of a column in a Native block.

use super::{
    ArrayColumn, BinaryValues, ColumnData, DynamicColumn, JsonColumn, LcKeys, LowCardinalityColumn, NullableColumn, StringColumn,
    TupleColumn, VariantColumn,
};
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::types::DataType;
use crate::wire::{Reader, WriteExt};

/// Bulk copy of `rows` little-endian values into a new vector.
fn read_vec<T: bytemuck::Pod>(r: &mut Reader<'_>, rows: usize) -> ReadResult<Vec<T>> {
    let size = rows.checked_mul(std::mem::size_of::<T>()).ok_or(ReadError::Invalid(DecodeError::LimitExceeded {
        what: "column",
        size: u64::MAX,
        limit: usize::MAX as u64,
    }))?;
    let bytes = r.bytes(size)?;
    let mut v = Vec::<T>::with_capacity(rows);
    // SAFETY: `T: Pod` accepts any bit pattern; the destination has capacity for `rows`
    // values (`size` bytes) and does not overlap the source; `set_len` follows the copy.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), size);
        v.set_len(rows);
    }
    Ok(v)
}

/// Offsets as N cumulative ends on the wire, stored as N + 1 starting at 0.
fn read_offsets(r: &mut Reader<'_>, rows: usize) -> ReadResult<Vec<u64>> {
    let size = rows.checked_mul(8).ok_or(ReadError::Invalid(DecodeError::malformed("offsets", "row count overflows")))?;
    let bytes = r.bytes(size)?;
    let mut v = Vec::<u64>::with_capacity(rows + 1);
    v.push(0);
    // SAFETY: capacity is rows + 1 values; one is set, the copy fills the other `rows`
    // (`size` bytes, any bit pattern is a valid u64); the source does not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().add(1).cast::<u8>(), size);
        v.set_len(rows + 1);
    }
    Ok(v)
}

fn read_strings(r: &mut Reader<'_>, rows: usize) -> ReadResult<StringColumn> {
    let src = r.rest();
    // Pass 1: walk the length prefixes, building the offsets and checking that every value
    // is there. Each row takes at least one byte, so the offsets' capacity is bounded by
    // what was received.
    let mut col = StringColumn::with_capacity(rows.min(src.len()), 0);
    let (offsets, data) = col.parts_mut();
    let mut p = 0usize;
    let mut total = 0u64;
    // Pass 2 recomputes where each value starts from its length, which assumes minimal
    // length prefixes (what ClickHouse writes); a longer encoding switches to a slower copy.
    let mut minimal = true;
    for _ in 0..rows {
        let len = match src.get(p) {
            Some(&b) if b < 0x80 => {
                p += 1;
                b as usize
            }
            Some(_) => {
                let mut sub = Reader::new(&src[p..]);
                let len = sub.varuint_len("string", crate::wire::MAX_STRING_SIZE).map_err(|e| shift(e, r.position() + p))?;
                minimal &= sub.position() == crate::wire::varuint_size(len as u64);
                p += sub.position();
                len
            }
            None => return Err(ReadError::Incomplete { needed: r.position() + p + 1 }),
        };
        if src.len() - p < len {
            return Err(ReadError::Incomplete { needed: r.position() + p + len });
        }
        p += len;
        total += len as u64;
        offsets.push(total);
    }
    // Pass 2: copy the bytes into one buffer of the exact size (plus slack so short values
    // are moved with one fixed-size 16-byte copy instead of a call to memcpy).
    const SLACK: usize = 16;
    let total = total as usize;
    if !minimal {
        let mut slow = Reader::new(&src[..p]);
        data.reserve_exact(total);
        for _ in 0..rows {
            data.extend_from_slice(slow.str_bytes()?);
        }
        r.skip(p)?;
        return Ok(col);
    }
    data.reserve_exact(total + SLACK);
    let dst = data.as_mut_ptr();
    let mut q = 0usize;
    for w in offsets.windows(2) {
        let (start, len) = (w[0] as usize, (w[1] - w[0]) as usize);
        q += crate::wire::varuint_size(len as u64);
        // SAFETY: pass 1 checked `q + len <= src.len()`; the destination holds `total + SLACK`
        // bytes and `start + len <= total`. The 16-byte copy reads `src[q..q + 16]` only when
        // that is in bounds and writes `dst[start..start + 16]`, within `total + SLACK`.
        unsafe {
            if len <= SLACK && q + SLACK <= src.len() {
                std::ptr::copy_nonoverlapping(src.as_ptr().add(q), dst.add(start), SLACK);
            } else {
                std::ptr::copy_nonoverlapping(src.as_ptr().add(q), dst.add(start), len);
            }
        }
        q += len;
    }
    // SAFETY: every byte in 0..total was written by the copies above (offsets tile 0..total).
    unsafe { data.set_len(total) };
    debug_assert_eq!(q, p, "minimal length prefixes");
    r.skip(p)?;
    Ok(col)
}

/// Re-base an "incomplete" position from a sub-reader.
fn shift(e: ReadError, base: usize) -> ReadError {
    match e {
        ReadError::Incomplete { needed } => ReadError::Incomplete { needed: base + needed },
        e => e,
    }
}

/// State a column carries before its data, read once per block (ClickHouse's
/// "serialization state prefix"): composite types hold their elements' prefixes,
/// depth first, and LowCardinality its key version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prefix {
    None,
    One(Box<Prefix>),
    Many(Vec<Prefix>),
    LowCardinality,
    /// A Dynamic column's structure: its version, types (with `SharedVariant`'s position for
    /// versions 1 and 2) and their prefixes.
    Dynamic {
        version: u64,
        max_types: Option<u64>,
        types: Vec<DataType>,
        shared: Option<usize>,
        prefixes: Vec<Prefix>,
    },
    /// A JSON column's structure: version, dynamic path names and the prefixes of the typed
    /// paths and of each dynamic path (a Dynamic structure).
    Json {
        version: u64,
        max_paths: Option<u64>,
        paths: Vec<String>,
        typed: Vec<Prefix>,
        dynamic: Vec<Prefix>,
    },
}

const JSON_V1: u64 = 0;
const JSON_STRING: u64 = 1;
const JSON_V2: u64 = 2;
const JSON_FLATTENED: u64 = 3;

const DYNAMIC_V1: u64 = 1;
const DYNAMIC_V2: u64 = 2;
const DYNAMIC_FLATTENED: u64 = 3;
const SHARED_VARIANT: &str = "SharedVariant";

fn read_type_name(r: &mut Reader<'_>) -> ReadResult<DataType> {
    let name = std::str::from_utf8(r.str_bytes()?).map_err(|_| DecodeError::malformed("Dynamic", "type name is not UTF-8"))?;
    Ok(DataType::parse(name)?)
}

fn read_dynamic_prefix(r: &mut Reader<'_>) -> ReadResult<Prefix> {
    let version = r.u64_le()?;
    match version {
        DYNAMIC_V1 | DYNAMIC_V2 => {
            let max_types = if version == DYNAMIC_V1 { Some(r.varuint()?) } else { None };
            let n = r.varuint_len("Dynamic types", 1 << 16)?;
            let mut names = Vec::with_capacity(n + 1);
            for _ in 0..n {
                let name = std::str::from_utf8(r.str_bytes()?)
                    .map_err(|_| DecodeError::malformed("Dynamic", "type name is not UTF-8"))?
                    .to_string();
                names.push(name);
            }
            // The values are a Variant of these types plus SharedVariant, sorted by name.
            names.push(SHARED_VARIANT.to_string());
            names.sort();
            if names.len() > 255 {
                return Err(DecodeError::malformed("Dynamic", "more than 255 variant types").into());
            }
            let shared = names.iter().position(|n| n == SHARED_VARIANT);
            let types = names
                .iter()
                .map(|n| if n == SHARED_VARIANT { Ok(DataType::String) } else { DataType::parse(n) })
                .collect::<Result<Vec<_>, _>>()?;
            let mode = r.u64_le()?;
            if mode != VARIANT_MODE_BASIC {
                return Err(DecodeError::malformed("Dynamic", format!("variant discriminators mode {mode}")).into());
            }
            let prefixes = types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?;
            Ok(Prefix::Dynamic { version, max_types, types, shared, prefixes })
        }
        DYNAMIC_FLATTENED => {
            let n = r.varuint_len("Dynamic types", 254)?;
            let types = (0..n).map(|_| read_type_name(r)).collect::<Result<Vec<_>, _>>()?;
            let prefixes = types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?;
            Ok(Prefix::Dynamic { version, max_types: None, types, shared: None, prefixes })
        }
        v => Err(DecodeError::malformed("Dynamic", format!("unsupported serialization version {v}")).into()),
    }
}

fn read_dynamic_body(rows: usize, prefix: &Prefix, r: &mut Reader<'_>) -> ReadResult<DynamicColumn> {
    let Prefix::Dynamic { version, max_types, types, shared, prefixes } = prefix else {
        return Err(DecodeError::malformed("Dynamic", "missing structure prefix").into());
    };
    let discriminators: Vec<u8> = if *version == DYNAMIC_FLATTENED {
        // Indexes into `types`, `types.len()` meaning NULL, at the smallest fitting width.
        let n = types.len();
        let idx: Vec<u64> = match n + 1 {
            0..=0xff => read_vec::<u8>(r, rows)?.into_iter().map(u64::from).collect(),
            0x100..=0xffff => read_vec::<u16>(r, rows)?.into_iter().map(u64::from).collect(),
            _ => read_vec::<u32>(r, rows)?.into_iter().map(u64::from).collect(),
        };
        idx.into_iter()
            .map(|i| match i {
                i if i == n as u64 => Ok(VariantColumn::NULL),
                i if i < n as u64 => Ok(i as u8),
                i => Err(DecodeError::malformed("Dynamic", format!("type index {i} of {n} types"))),
            })
            .collect::<Result<_, _>>()?
    } else {
        read_vec(r, rows)?
    };
    let values = read_variant_rows("Dynamic", types, |i| prefixes.get(i).unwrap_or(&Prefix::None), discriminators, r)?;
    // SharedVariant: values of types beyond max_types, each its binary type + binary value.
    let shared_values = match shared.and_then(|s| values.variants.get(s)) {
        Some(ColumnData::String(encoded)) => BinaryValues::decode(encoded)?,
        _ => BinaryValues::default(),
    };
    Ok(DynamicColumn { types: types.clone(), shared: *shared, values, version: *version, max_types: *max_types, shared_values })
}

/// The per-type columns of a Variant (or a Dynamic's values) after its discriminators: each
/// type's column holds the rows that point at it.
fn read_variant_rows<'p>(
    what: &'static str,
    types: &[DataType],
    prefix_of: impl Fn(usize) -> &'p Prefix,
    discriminators: Vec<u8>,
    r: &mut Reader<'_>,
) -> ReadResult<VariantColumn> {
    let (offsets, counts) = VariantColumn::layout(&discriminators, types.len()).map_err(|e| DecodeError::malformed(what, e))?;
    let mut variants = Vec::with_capacity(types.len());
    for (i, t) in types.iter().enumerate() {
        // decode_body yields exactly the rows asked for, so the layout holds.
        variants.push(decode_body(t, counts[i] as usize, prefix_of(i), r)?);
    }
    Ok(VariantColumn { discriminators, offsets, variants })
}

fn write_dynamic_prefix(d: &DynamicColumn, out: &mut Vec<u8>) {
    out.put_u64_le(d.version);
    if d.version == DYNAMIC_FLATTENED {
        out.put_varuint(d.types.len() as u64);
        for t in &d.types {
            out.put_str(t.to_string());
        }
    } else {
        if d.version == DYNAMIC_V1 {
            out.put_varuint(d.max_types.unwrap_or(32));
        }
        let own: Vec<&DataType> = d.types.iter().enumerate().filter(|(i, _)| Some(*i) != d.shared).map(|(_, t)| t).collect();
        out.put_varuint(own.len() as u64);
        for t in own {
            out.put_str(t.to_string());
        }
        out.put_u64_le(VARIANT_MODE_BASIC);
    }
    for (t, c) in d.types.iter().zip(&d.values.variants) {
        write_prefix_of(t, c, out);
    }
}

fn write_dynamic_body(d: &DynamicColumn, out: &mut Vec<u8>) {
    if d.version == DYNAMIC_FLATTENED {
        let n = d.types.len() as u8;
        out.extend(d.values.discriminators.iter().map(|&x| if x == VariantColumn::NULL { n } else { x }));
    } else {
        out.extend_from_slice(&d.values.discriminators);
    }
    d.values.variants.iter().for_each(|c| encode_column(c, out));
}

/// Variant discriminators as one byte per row.
const VARIANT_MODE_BASIC: u64 = 0;

/// The only LowCardinality key version (SharedDictionariesWithAdditionalKeys).
const LC_KEY_VERSION: u64 = 1;
const LC_HAS_ADDITIONAL_KEYS: u64 = 1 << 9;
const LC_NEED_UPDATE_DICTIONARY: u64 = 1 << 10;
const LC_NEED_GLOBAL_DICTIONARY: u64 = 1 << 8;

/// Read the state prefix of a column of type `ty`.
pub fn read_prefix(ty: &DataType, r: &mut Reader<'_>) -> ReadResult<Prefix> {
    Ok(match ty {
        DataType::Nullable(t) | DataType::Array(t) => Prefix::One(Box::new(read_prefix(t, r)?)),
        DataType::Map(k, v) => Prefix::Many(vec![read_prefix(k, r)?, read_prefix(v, r)?]),
        DataType::Tuple(items) => Prefix::Many(items.iter().map(|(_, t)| read_prefix(t, r)).collect::<Result<_, _>>()?),
        DataType::Variant(types) => {
            let mode = r.u64_le()?;
            if mode != VARIANT_MODE_BASIC {
                return Err(DecodeError::malformed(
                    "Variant",
                    format!("discriminators mode {mode} (only the basic mode 0 is used in Native blocks)"),
                )
                .into());
            }
            Prefix::Many(types.iter().map(|t| read_prefix(t, r)).collect::<Result<_, _>>()?)
        }
        DataType::Dynamic { .. } => read_dynamic_prefix(r)?,
        DataType::Json { typed, .. } => read_json_prefix(typed, r)?,
        DataType::LowCardinality(_) => {
            let v = r.u64_le()?;
            if v != LC_KEY_VERSION {
                return Err(DecodeError::malformed("LowCardinality", format!("unknown key serialization version {v}")).into());
            }
            Prefix::LowCardinality
        }
        t if t.physical() == crate::types::Physical::Alias => read_prefix(&t.storage().expect("alias storage"), r)?,
        _ => Prefix::None,
    })
}

fn sub(p: &Prefix, i: usize) -> &Prefix {
    match p {
        Prefix::One(x) if i == 0 => x,
        Prefix::Many(v) => v.get(i).unwrap_or(&Prefix::None),
        _ => &Prefix::None,
    }
}

/// Decode the data of a column of `rows` rows (no per-column header): its prefix, then its body.
pub fn decode_column(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    let prefix = read_prefix(ty, r)?;
    decode_body(ty, rows, &prefix, r)
}

/// Decode the body of a column whose prefix was read already.
pub fn decode_body(ty: &DataType, rows: usize, prefix: &Prefix, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    use crate::types::Physical as P;
    Ok(match ty.physical() {
        P::U8 => ColumnData::UInt8(read_vec(r, rows)?),
        P::U16 => ColumnData::UInt16(read_vec(r, rows)?),
        P::U32 => ColumnData::UInt32(read_vec(r, rows)?),
        P::U64 => ColumnData::UInt64(read_vec(r, rows)?),
        P::U128 => ColumnData::UInt128(read_vec(r, rows)?),
        P::I8 => ColumnData::Int8(read_vec(r, rows)?),
        P::I16 => ColumnData::Int16(read_vec(r, rows)?),
        P::I32 => ColumnData::Int32(read_vec(r, rows)?),
        P::I64 => ColumnData::Int64(read_vec(r, rows)?),
        P::I128 => ColumnData::Int128(read_vec(r, rows)?),
        P::F32 => ColumnData::Float32(read_vec(r, rows)?),
        P::F64 => ColumnData::Float64(read_vec(r, rows)?),
        P::Fixed(width) => ColumnData::Fixed {
            width,
            data: read_vec(r, rows.checked_mul(width).ok_or(ReadError::Invalid(DecodeError::malformed("FixedString", "size overflows")))?)?,
        },
        P::String => ColumnData::String(read_strings(r, rows)?),
        P::Nullable => {
            let DataType::Nullable(inner) = ty else { unreachable!() };
            let nulls: Vec<u8> = read_vec(r, rows)?;
            let values = decode_body(inner, rows, sub(prefix, 0), r)?;
            ColumnData::Nullable(Box::new(NullableColumn { nulls, values }))
        }
        P::Array | P::Map => {
            let offsets = read_offsets(r, rows)?;
            if offsets.windows(2).any(|w| w[1] < w[0]) {
                return Err(DecodeError::malformed("Array offsets", "offsets decrease").into());
            }
            let total = *offsets.last().unwrap();
            let total = usize::try_from(total).map_err(|_| DecodeError::malformed("Array offsets", "too many elements"))?;
            let values = match ty {
                DataType::Array(inner) => decode_body(inner, total, sub(prefix, 0), r)?,
                DataType::Map(k, v) => {
                    let keys = decode_body(k, total, sub(prefix, 0), r)?;
                    let values = decode_body(v, total, sub(prefix, 1), r)?;
                    ColumnData::Tuple(TupleColumn { rows: total, elements: vec![keys, values] })
                }
                _ => unreachable!(),
            };
            ColumnData::Array(Box::new(ArrayColumn { offsets, values }))
        }
        P::Tuple => {
            let DataType::Tuple(items) = ty else { unreachable!() };
            if items.is_empty() {
                // `Tuple()` keeps its row count with one placeholder byte per row.
                r.bytes(rows)?;
                return Ok(ColumnData::Tuple(TupleColumn { rows, elements: Vec::new() }));
            }
            let mut elements = Vec::with_capacity(items.len());
            for (i, (_, t)) in items.iter().enumerate() {
                elements.push(decode_body(t, rows, sub(prefix, i), r)?);
            }
            ColumnData::Tuple(TupleColumn { rows, elements })
        }
        P::LowCardinality => {
            let DataType::LowCardinality(inner) = ty else { unreachable!() };
            ColumnData::LowCardinality(Box::new(read_low_cardinality(inner, rows, r)?))
        }
        P::Variant => {
            let DataType::Variant(types) = ty else { unreachable!() };
            let discriminators: Vec<u8> = read_vec(r, rows)?;
            ColumnData::Variant(Box::new(read_variant_rows("Variant", types, |i| sub(prefix, i), discriminators, r)?))
        }
        P::Dynamic => ColumnData::Dynamic(Box::new(read_dynamic_body(rows, prefix, r)?)),
        P::Json => {
            let DataType::Json { typed, .. } = ty else { unreachable!() };
            ColumnData::Json(Box::new(read_json_body(typed, rows, prefix, r)?))
        }
        P::AggregateFunction => {
            let DataType::AggregateFunction(f) = ty else { unreachable!() };
            ColumnData::AggregateState(super::aggregate::read_states(f, rows, r)?)
        }
        P::Alias => decode_body(&ty.storage().expect("alias storage"), rows, prefix, r)?,
        P::Unsupported => return Err(DecodeError::UnsupportedType(ty.to_string()).into()),
    })
}

fn read_low_cardinality(inner: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<LowCardinalityColumn> {
    let flags = r.u64_le()?;
    if flags & LC_NEED_GLOBAL_DICTIONARY != 0 {
        return Err(DecodeError::malformed("LowCardinality", "a global dictionary is not allowed in Native blocks").into());
    }
    if flags & !(0xff | LC_HAS_ADDITIONAL_KEYS | LC_NEED_UPDATE_DICTIONARY | LC_NEED_GLOBAL_DICTIONARY) != 0 {
        return Err(DecodeError::malformed("LowCardinality", format!("unknown flags 0x{flags:x}")).into());
    }
    let dictionary = if flags & LC_HAS_ADDITIONAL_KEYS != 0 {
        let n = r.u64_le()?;
        let n = usize::try_from(n).map_err(|_| DecodeError::malformed("LowCardinality", "dictionary too large"))?;
        decode_column(inner.strip_nullable(), n, r)?
    } else {
        ColumnData::empty_for(inner.strip_nullable()).map_err(|e| DecodeError::malformed("LowCardinality", e.to_string()))?
    };
    let n = r.u64_le()?;
    if n != rows as u64 {
        return Err(DecodeError::malformed("LowCardinality", format!("{n} indexes for a block of {rows} rows")).into());
    }
    let keys = match flags & 0xff {
        0 => LcKeys::U8(read_vec(r, rows)?),
        1 => LcKeys::U16(read_vec(r, rows)?),
        2 => LcKeys::U32(read_vec(r, rows)?),
        3 => LcKeys::U64(read_vec(r, rows)?),
        w => return Err(DecodeError::malformed("LowCardinality", format!("unknown index width code {w}")).into()),
    };
    if let Some(max) = keys.max() {
        if max >= dictionary.len() as u64 {
            return Err(
                DecodeError::malformed("LowCardinality", format!("index {max} outside a dictionary of {}", dictionary.len())).into()
            );
        }
    }
    Ok(LowCardinalityColumn { dictionary, keys })
}

/// How the server serialized a column (revision >= CUSTOM_SERIALIZATION).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerializationKind {
    Default,
    Sparse,
}

/// Reads the `has_custom` byte and, if set, the kind of the column.
pub fn skip_or_read_custom_kind(r: &mut Reader<'_>, column: &str) -> ReadResult<SerializationKind> {
    if r.u8()? == 0 {
        return Ok(SerializationKind::Default);
    }
    match r.u8()? {
        0 => Ok(SerializationKind::Default),
        1 => Ok(SerializationKind::Sparse),
        k => Err(DecodeError::UnsupportedSerialization(k, column.to_string()).into()),
    }
}

const END_OF_GRANULE_FLAG: u64 = 1 << 62;

/// Decode a sparse column: the offsets stream (defaults before each non-default value,
/// then the trailing default count flagged with END_OF_GRANULE), then the non-default
/// values; expanded into an ordinary column of `rows` rows.
pub fn decode_sparse(ty: &DataType, rows: usize, r: &mut Reader<'_>) -> ReadResult<ColumnData> {
    let prefix = read_prefix(ty, r)?;
    let mut positions = Vec::new();
    let mut pos: u64 = 0;
    loop {
        let v = r.varuint()?;
        let count = v & !END_OF_GRANULE_FLAG;
        pos = pos
            .checked_add(count)
            .filter(|&p| p <= rows as u64)
            .ok_or_else(|| DecodeError::malformed("sparse offsets", format!("offsets exceed the block's {rows} rows")))?;
        if v & END_OF_GRANULE_FLAG != 0 {
            break;
        }
        if pos >= rows as u64 {
            return Err(DecodeError::malformed("sparse offsets", format!("non-default value at row {pos} of {rows}")).into());
        }
        positions.push(pos as usize);
        pos += 1;
    }
    if pos != rows as u64 {
        return Err(DecodeError::malformed("sparse offsets", format!("offsets cover {pos} rows, the block has {rows}")).into());
    }
    let values = decode_body(ty, positions.len(), &prefix, r)?;
    expand_sparse(ty, values, &positions, rows).map_err(ReadError::Invalid)
}

fn scatter<T: Copy + Default>(values: Vec<T>, positions: &[usize], rows: usize) -> Vec<T> {
    let mut out = vec![T::default(); rows];
    for (v, &p) in values.into_iter().zip(positions) {
        out[p] = v;
    }
    out
}

fn expand_sparse(ty: &DataType, values: ColumnData, positions: &[usize], rows: usize) -> Result<ColumnData, DecodeError> {
    use ColumnData as D;
    Ok(match values {
        D::UInt8(v) => D::UInt8(scatter(v, positions, rows)),
        D::UInt16(v) => D::UInt16(scatter(v, positions, rows)),
        D::UInt32(v) => D::UInt32(scatter(v, positions, rows)),
        D::UInt64(v) => D::UInt64(scatter(v, positions, rows)),
        D::Int8(v) => D::Int8(scatter(v, positions, rows)),
        D::Int16(v) => D::Int16(scatter(v, positions, rows)),
        D::Int32(v) => D::Int32(scatter(v, positions, rows)),
        D::Int64(v) => D::Int64(scatter(v, positions, rows)),
        D::Float32(v) => D::Float32(scatter(v, positions, rows)),
        D::Float64(v) => D::Float64(scatter(v, positions, rows)),
        D::Fixed { width, data } => {
            let mut out = vec![0u8; rows * width];
            for (i, &p) in positions.iter().enumerate() {
                out[p * width..(p + 1) * width].copy_from_slice(&data[i * width..(i + 1) * width]);
            }
            D::Fixed { width, data: out }
        }
        D::String(s) => {
            let mut out = StringColumn::with_capacity(rows, s.data().len());
            let mut next = positions.iter().enumerate().peekable();
            for row in 0..rows {
                match next.peek() {
                    Some(&(i, &p)) if p == row => {
                        out.push(s.get(i));
                        next.next();
                    }
                    _ => out.push(b""),
                }
            }
            D::String(out)
        }
        _ => return Err(DecodeError::UnsupportedSerialization(1, format!("sparse {ty}"))),
    })
}

fn read_json_prefix(typed: &[(String, DataType)], r: &mut Reader<'_>) -> ReadResult<Prefix> {
    let version = r.u64_le()?;
    let max_paths = match version {
        JSON_V1 => Some(r.varuint()?),
        JSON_V2 | JSON_FLATTENED => None,
        JSON_STRING => return Ok(Prefix::Json { version, max_paths: None, paths: Vec::new(), typed: Vec::new(), dynamic: Vec::new() }),
        v => return Err(DecodeError::malformed("JSON", format!("unsupported serialization version {v}")).into()),
    };
    let n = r.varuint_len("JSON dynamic paths", 1 << 20)?;
    let mut paths = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        paths.push(std::str::from_utf8(r.str_bytes()?).map_err(|_| DecodeError::malformed("JSON", "path is not UTF-8"))?.to_string());
    }
    let typed = typed.iter().map(|(_, t)| read_prefix(t, r)).collect::<Result<Vec<_>, _>>()?;
    let dynamic = (0..n).map(|_| read_dynamic_prefix(r)).collect::<Result<Vec<_>, _>>()?;
    Ok(Prefix::Json { version, max_paths, paths, typed, dynamic })
}

fn read_json_body(typed_types: &[(String, DataType)], rows: usize, prefix: &Prefix, r: &mut Reader<'_>) -> ReadResult<JsonColumn> {
    let Prefix::Json { version, max_paths, paths, typed, dynamic } = prefix else {
        return Err(DecodeError::malformed("JSON", "missing structure prefix").into());
    };
    if *version == JSON_STRING {
        return Ok(JsonColumn {
            version: *version,
            rows,
            text: Some(read_strings(r, rows)?),
            typed: Vec::new(),
            dynamic: Vec::new(),
            shared: None,
            max_dynamic_paths: None,
            shared_values: BinaryValues::default(),
        });
    }
    let mut typed_cols = Vec::with_capacity(typed_types.len());
    for ((_, t), p) in typed_types.iter().zip(typed) {
        typed_cols.push(decode_body(t, rows, p, r)?);
    }
    let mut dynamic_cols = Vec::with_capacity(paths.len());
    for (path, p) in paths.iter().zip(dynamic) {
        dynamic_cols.push((path.clone(), read_dynamic_body(rows, p, r)?));
    }
    let shared = if *version == JSON_FLATTENED {
        None
    } else {
        let shared_ty = DataType::Array(Box::new(DataType::Tuple(vec![(None, DataType::String), (None, DataType::String)])));
        Some(decode_body(&shared_ty, rows, &Prefix::None, r)?)
    };
    let mut json = JsonColumn {
        version: *version,
        rows,
        text: None,
        typed: typed_cols,
        dynamic: dynamic_cols,
        shared,
        max_dynamic_paths: *max_paths,
        shared_values: BinaryValues::default(),
    };
    // Paths beyond max_dynamic_paths: each value its binary type + binary value.
    if let Some(ColumnData::Array(a)) = &json.shared {
        if let ColumnData::Tuple(t) = &a.values {
            if let [ColumnData::String(paths), ColumnData::String(values)] = t.elements.as_slice() {
                if paths.iter().any(|p| std::str::from_utf8(p).is_err()) {
                    return Err(DecodeError::malformed("JSON", "a shared data path is not UTF-8").into());
                }
                json.shared_values = BinaryValues::decode(values)?;
            }
        }
    }
    Ok(json)
}

fn write_json_prefix(typed_types: &[(String, DataType)], j: &JsonColumn, out: &mut Vec<u8>) {
    out.put_u64_le(j.version);
    if j.version == JSON_STRING {
        return;
    }
    if j.version == JSON_V1 {
        out.put_varuint(j.max_dynamic_paths.unwrap_or(1024));
    }
    out.put_varuint(j.dynamic.len() as u64);
    for (p, _) in &j.dynamic {
        out.put_str(p);
    }
    for ((_, t), c) in typed_types.iter().zip(&j.typed) {
        write_prefix_of(t, c, out);
    }
    for (_, d) in &j.dynamic {
        write_dynamic_prefix(d, out);
    }
}

fn write_json_body(j: &JsonColumn, out: &mut Vec<u8>) {
    if let Some(text) = &j.text {
        encode_column(&ColumnData::String(text.clone()), out);
        return;
    }
    j.typed.iter().for_each(|c| encode_column(c, out));
    j.dynamic.iter().for_each(|(_, d)| write_dynamic_body(d, out));
    if let Some(shared) = &j.shared {
        encode_column(shared, out);
    }
}

/// Append the state prefix of a column of type `ty` holding `data` (a Dynamic column's
/// structure depends on its data).
pub fn write_prefix_of(ty: &DataType, data: &ColumnData, out: &mut Vec<u8>) {
    use ColumnData as D;
    match (ty, data) {
        (DataType::Nullable(t), D::Nullable(n)) => write_prefix_of(t, &n.values, out),
        (DataType::Array(t), D::Array(a)) => write_prefix_of(t, &a.values, out),
        (DataType::Map(k, v), D::Array(a)) => {
            if let D::Tuple(t) = &a.values {
                write_prefix_of(k, &t.elements[0], out);
                write_prefix_of(v, &t.elements[1], out);
            }
        }
        (DataType::Tuple(items), D::Tuple(t)) => items.iter().zip(&t.elements).for_each(|((_, ty), c)| write_prefix_of(ty, c, out)),
        (DataType::LowCardinality(_), _) => out.put_u64_le(LC_KEY_VERSION),
        (DataType::Variant(types), D::Variant(v)) => {
            out.put_u64_le(VARIANT_MODE_BASIC);
            types.iter().zip(&v.variants).for_each(|(t, c)| write_prefix_of(t, c, out));
        }
        (DataType::Dynamic { .. }, D::Dynamic(d)) => write_dynamic_prefix(d, out),
        (DataType::Json { typed, .. }, D::Json(j)) => write_json_prefix(typed, j, out),
        (t, d) if t.physical() == crate::types::Physical::Alias => write_prefix_of(&t.storage().expect("alias storage"), d, out),
        _ => {}
    }
}

/// Append the wire form of a column of type `ty`: prefix, then body. `data` must fit `ty`
/// (see [`ColumnData::check`]).
pub fn encode_column_of(ty: &DataType, data: &ColumnData, out: &mut Vec<u8>) {
    write_prefix_of(ty, data, out);
    encode_column(data, out);
}

/// Append the body of `data` (no prefix; see [`encode_column_of`]).
pub fn encode_column(data: &ColumnData, out: &mut Vec<u8>) {
    use ColumnData as D;
    match data {
        D::UInt8(v) => out.extend_from_slice(v),
        D::UInt16(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::UInt32(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::UInt64(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::UInt128(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Int8(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Int16(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Int32(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Int64(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Int128(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Float32(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Float64(v) => out.extend_from_slice(bytemuck::cast_slice(v)),
        D::Fixed { data, .. } => out.extend_from_slice(data),
        D::String(s) => {
            // A lower bound: one length byte per value (exact for values under 128 bytes).
            out.reserve(s.data().len() + s.len());
            for v in s.iter() {
                out.put_str(v);
            }
        }
        D::Nullable(n) => {
            out.extend_from_slice(&n.nulls);
            encode_column(&n.values, out);
        }
        D::Array(a) => {
            out.extend_from_slice(bytemuck::cast_slice(&a.offsets[1..]));
            encode_column(&a.values, out);
        }
        // ClickHouse writes '0' as the placeholder of an empty tuple's rows.
        D::Tuple(t) if t.elements.is_empty() => out.extend(std::iter::repeat_n(b'0', t.rows)),
        D::Tuple(t) => t.elements.iter().for_each(|e| encode_column(e, out)),
        D::Dynamic(d) => write_dynamic_body(d, out),
        D::Json(j) => write_json_body(j, out),
        // States are written back to back, exactly as received.
        D::AggregateState(s) => out.extend_from_slice(s.data()),
        D::Variant(v) => {
            out.extend_from_slice(&v.discriminators);
            v.variants.iter().for_each(|c| encode_column(c, out));
        }
        D::LowCardinality(l) => {
            let (code, keys): (u64, &[u8]) = match &l.keys {
                LcKeys::U8(v) => (0, v),
                LcKeys::U16(v) => (1, bytemuck::cast_slice(v)),
                LcKeys::U32(v) => (2, bytemuck::cast_slice(v)),
                LcKeys::U64(v) => (3, bytemuck::cast_slice(v)),
            };
            out.put_u64_le(code | LC_HAS_ADDITIONAL_KEYS | LC_NEED_UPDATE_DICTIONARY);
            out.put_u64_le(l.dictionary.len() as u64);
            // Dictionary types have no prefix of their own (strings, numbers, dates).
            encode_column(&l.dictionary, out);
            out.put_u64_le(l.keys.len() as u64);
            out.extend_from_slice(keys);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(ty: &str, data: ColumnData, wire: &[u8]) {
        let ty = DataType::parse(ty).unwrap();
        data.check(&ty).unwrap();
        let mut out = Vec::new();
        encode_column(&data, &mut out);
        assert_eq!(out, wire, "encoding of {ty}");
        let rows = data.len();
        let mut r = Reader::new(wire);
        assert_eq!(decode_column(&ty, rows, &mut r).unwrap(), data, "decoding of {ty}");
        assert!(r.is_empty());
        // Every strict prefix is incomplete, never an error or a panic.
        for cut in 0..wire.len() {
            let mut r = Reader::new(&wire[..cut]);
            match decode_column(&ty, rows, &mut r) {
                Err(ReadError::Incomplete { needed }) => assert!(needed > cut),
                other => panic!("{ty} cut at {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn fixed_width() {
        round_trip("UInt64", ColumnData::UInt64(vec![1, u64::MAX]), &[1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]);
        round_trip("Int16", ColumnData::Int16(vec![-2, 3]), &[0xfe, 0xff, 3, 0]);
        round_trip("Float32", ColumnData::Float32(vec![1.0]), &[0, 0, 0x80, 0x3f]);
        round_trip("FixedString(2)", ColumnData::Fixed { width: 2, data: b"abc\0".to_vec() }, b"abc\0");
    }

    #[test]
    fn strings_nullable_arrays() {
        let s: StringColumn = ["ab", "c", ""].into_iter().collect();
        round_trip("String", ColumnData::String(s.clone()), b"\x02ab\x01c\x00");
        round_trip(
            "Nullable(String)",
            ColumnData::Nullable(Box::new(NullableColumn { nulls: vec![0, 1, 0], values: ColumnData::String(s) })),
            b"\x00\x01\x00\x02ab\x01c\x00",
        );
        round_trip(
            "Array(UInt8)",
            ColumnData::Array(Box::new(ArrayColumn { offsets: vec![0, 2, 2, 3], values: ColumnData::UInt8(vec![7, 8, 9]) })),
            &[2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9],
        );
    }

    #[test]
    fn strings_with_overlong_length_prefixes() {
        // "ab" with a 2-byte length prefix, then "c" with a minimal one.
        let wire = b"\x82\x00ab\x01c";
        let got = decode_column(&DataType::String, 2, &mut Reader::new(wire)).unwrap();
        assert_eq!(got, ColumnData::String(["ab", "c"].into_iter().collect()));
    }

    #[test]
    fn decreasing_array_offsets_are_an_error() {
        let wire = [3u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9];
        let ty = DataType::parse("Array(UInt8)").unwrap();
        assert!(matches!(decode_column(&ty, 2, &mut Reader::new(&wire)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn huge_row_counts_do_not_allocate() {
        let ty = DataType::parse("Array(String)").unwrap();
        // Claims 2^60 elements: must ask for more bytes (the caller caps), not allocate.
        let mut wire = Vec::new();
        wire.put_u64_le(1 << 60);
        match decode_column(&ty, 1, &mut Reader::new(&wire)) {
            Err(ReadError::Incomplete { .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(decode_column(&DataType::UInt64, usize::MAX / 2, &mut Reader::new(&wire)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn sparse_columns_expand() {
        // rows: 0, 5, 0, 0, 7, 0 -> offsets: 1 default then value, 2 defaults then value, 1 trailing.
        let mut wire = Vec::new();
        wire.put_varuint(1);
        wire.put_varuint(2);
        wire.put_varuint(1 | END_OF_GRANULE_FLAG);
        wire.extend_from_slice(&5u32.to_le_bytes());
        wire.extend_from_slice(&7u32.to_le_bytes());
        let got = decode_sparse(&DataType::UInt32, 6, &mut Reader::new(&wire)).unwrap();
        assert_eq!(got, ColumnData::UInt32(vec![0, 5, 0, 0, 7, 0]));

        let mut wire = Vec::new();
        wire.put_varuint(2);
        wire.put_varuint(END_OF_GRANULE_FLAG);
        wire.put_str("x");
        let got = decode_sparse(&DataType::String, 3, &mut Reader::new(&wire)).unwrap();
        assert_eq!(got, ColumnData::String(["", "", "x"].into_iter().collect()));
    }

    #[test]
    fn sparse_bad_offsets_are_errors() {
        for stream in [vec![7u64 | END_OF_GRANULE_FLAG], vec![1, 1, 1, 1, END_OF_GRANULE_FLAG], vec![9]] {
            let mut wire = Vec::new();
            for v in stream {
                wire.put_varuint(v);
            }
            wire.extend_from_slice(&[0u8; 64]);
            let res = decode_sparse(&DataType::UInt32, 3, &mut Reader::new(&wire));
            assert!(matches!(res, Err(ReadError::Invalid(_))), "{res:?}");
        }
    }
}

#[cfg(test)]
mod composite_tests {
    use super::*;
    use crate::column::Value;

    fn round_trip(ty: &str, rows: usize, wire: &[u8]) -> ColumnData {
        let ty = DataType::parse(ty).unwrap();
        let mut r = Reader::new(wire);
        let data = decode_column(&ty, rows, &mut r).unwrap();
        assert!(r.is_empty(), "{ty}: {} bytes left", r.remaining());
        data.check(&ty).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        for cut in 0..wire.len() {
            assert!(
                matches!(decode_column(&ty, rows, &mut Reader::new(&wire[..cut])), Err(ReadError::Incomplete { .. })),
                "{ty} cut at {cut}"
            );
        }
        data
    }

    #[test]
    fn variant_basic_mode() {
        // Variant(String, UInt64): rows "a", NULL, 7, "b".
        let mut w = Vec::new();
        w.put_u64_le(0); // mode
        w.extend_from_slice(&[0, 255, 1, 0]); // discriminators
        w.extend_from_slice(b"\x01a\x01b"); // String rows
        w.put_u64_le(7); // UInt64 rows
        let data = round_trip("Variant(String, UInt64)", 4, &w);
        let ty = DataType::parse("Variant(String, UInt64)").unwrap();
        let col = crate::Column::new(ty, data).unwrap();
        assert_eq!(
            (0..4).map(|i| col.value(i)).collect::<Vec<_>>(),
            [Value::String(b"a"), Value::Null, Value::UInt(7), Value::String(b"b")]
        );
        // A discriminator beyond the types is an error.
        let mut bad = w.clone();
        bad[8] = 5;
        assert!(matches!(
            decode_column(&DataType::parse("Variant(String, UInt64)").unwrap(), 4, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }

    #[test]
    fn low_cardinality_in_array_has_its_prefix_first() {
        // Array(LowCardinality(String)), rows ["x", "y"], ["x"]: key version, offsets, LC body.
        let mut w = Vec::new();
        w.put_u64_le(1);
        w.put_u64_le(2);
        w.put_u64_le(3);
        w.put_u64_le(0x600); // UInt8 keys, additional keys, update dictionary
        w.put_u64_le(3);
        w.extend_from_slice(b"\x00\x01x\x01y");
        w.put_u64_le(3);
        w.extend_from_slice(&[1, 2, 1]);
        let data = round_trip("Array(LowCardinality(String))", 2, &w);
        let col = crate::Column::new(DataType::parse("Array(LowCardinality(String))").unwrap(), data).unwrap();
        assert_eq!(col.value(0), Value::Array(vec![Value::String(b"x"), Value::String(b"y")]));
        // An index outside the dictionary is an error.
        let mut bad = w.clone();
        let n = bad.len();
        bad[n - 1] = 9;
        assert!(matches!(
            decode_column(&DataType::parse("Array(LowCardinality(String))").unwrap(), 2, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }

    #[test]
    fn map_and_tuple() {
        // Map(String, UInt8): {"a":1,"b":2}, {}: offsets, keys, values.
        let mut w = Vec::new();
        w.put_u64_le(2);
        w.put_u64_le(2);
        w.extend_from_slice(b"\x01a\x01b");
        w.extend_from_slice(&[1, 2]);
        let data = round_trip("Map(String, UInt8)", 2, &w);
        let col = crate::Column::new(DataType::parse("Map(String, UInt8)").unwrap(), data).unwrap();
        assert_eq!(col.value(0), Value::Map(vec![(Value::String(b"a"), Value::UInt(1)), (Value::String(b"b"), Value::UInt(2))]));
        assert_eq!(col.value(1), Value::Map(vec![]));
        // Tuple(a UInt8, b String): each element's whole column in turn.
        let data = round_trip("Tuple(a UInt8, b String)", 2, b"\x05\x06\x01p\x00");
        let col = crate::Column::new(DataType::parse("Tuple(a UInt8, b String)").unwrap(), data).unwrap();
        assert_eq!(col.value(1), Value::Tuple(vec![(Some("a"), Value::UInt(6)), (Some("b"), Value::String(b""))]));
    }
}

#[cfg(test)]
mod new_type_tests {
    use super::*;
    use crate::column::Value;

    /// Decode, re-encode byte for byte, and every strict prefix is "incomplete".
    fn round_trip(ty: &str, rows: usize, wire: &[u8]) -> crate::Column {
        let ty = DataType::parse(ty).unwrap();
        let data = decode_column(&ty, rows, &mut Reader::new(wire)).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        for cut in 0..wire.len() {
            assert!(
                matches!(decode_column(&ty, rows, &mut Reader::new(&wire[..cut])), Err(ReadError::Incomplete { .. })),
                "{ty} cut at {cut}"
            );
        }
        crate::Column::new(ty, data).unwrap()
    }

    #[test]
    fn aggregate_states_are_carried_unchanged() {
        // avg(UInt64) states of two groups, then a count column.
        let mut w = Vec::new();
        w.extend_from_slice(&18u64.to_le_bytes());
        w.push(4);
        w.extend_from_slice(&12u64.to_le_bytes());
        w.push(3);
        let col = round_trip("AggregateFunction(avg, UInt64)", 2, &w);
        assert_eq!(col.value(1), Value::AggregateState(&w[9..]));
        // A built column must hold whole states.
        let ty = DataType::parse("AggregateFunction(count)").unwrap();
        let ok: StringColumn = [&[3u8][..], &[0x80, 1]].into_iter().collect();
        assert!(crate::Column::new(ty.clone(), ColumnData::AggregateState(ok)).is_ok());
        let bad: StringColumn = [&[3u8, 3][..]].into_iter().collect();
        assert!(crate::Column::new(ty, ColumnData::AggregateState(bad)).is_err());
    }

    #[test]
    fn qbit_and_geometry() {
        // QBit(Float32, 3): 32 one-byte planes; [1, 2, 3].
        let mut w = vec![0u8; 32];
        w[1] = 0x06;
        w[2..9].fill(0x01);
        w[9] = 0x04;
        let col = round_trip("QBit(Float32, 3)", 1, &w);
        assert_eq!(col.value(0), Value::QBit(vec![Value::Float32(1.), Value::Float32(2.), Value::Float32(3.)]));
        // Geometry: Variant prefix, discriminators (Point = 3, NULL), the Point column.
        let mut w = vec![0u8; 8];
        w.extend_from_slice(&[3, 255]);
        w.extend_from_slice(&1f64.to_le_bytes());
        w.extend_from_slice(&2f64.to_le_bytes());
        let col = round_trip("Geometry", 2, &w);
        assert_eq!(col.value(0), Value::Tuple(vec![(None, Value::Float64(1.)), (None, Value::Float64(2.))]));
        assert_eq!(col.value(1), Value::Null);
        // MultiPoint is discriminator 6.
        let mut bad = w.clone();
        bad[8] = 7;
        assert!(matches!(decode_column(&DataType::Geometry, 2, &mut Reader::new(&bad)), Err(ReadError::Invalid(_))));
    }

    #[test]
    fn json_shared_data_decodes() {
        // JSON(max_dynamic_paths=0), version 2: no dynamic paths; shared data of two rows:
        // {"a": 1, "b": "x"}, {}.
        let mut w = Vec::new();
        w.put_u64_le(JSON_V2);
        w.put_varuint(0);
        w.put_u64_le(2); // array offsets
        w.put_u64_le(2);
        w.put_str("a");
        w.put_str("b");
        let mut one = vec![0x0a];
        one.extend_from_slice(&1i64.to_le_bytes());
        w.put_str(&one);
        w.put_str(b"\x15\x01x");
        let col = round_trip("JSON(max_dynamic_paths=0)", 2, &w);
        assert_eq!(col.value(0), Value::Json(vec![("a", Value::Int(1)), ("b", Value::String(b"x"))]));
        assert_eq!(col.value(1), Value::Json(vec![]));
        // A shared value that is not one whole binary value is malformed, not a panic.
        let mut bad = w.clone();
        let n = bad.len();
        bad[n - 3] = 0x0a; // Int64, with only two bytes of value
        assert!(matches!(
            decode_column(&DataType::parse("JSON(max_dynamic_paths=0)").unwrap(), 2, &mut Reader::new(&bad)),
            Err(ReadError::Invalid(_))
        ));
    }
}

#[cfg(test)]
mod dynamic_tests {
    use super::*;
    use crate::column::Value;

    fn check(ty: &str, rows: usize, wire: &[u8]) -> crate::Column {
        let ty = DataType::parse(ty).unwrap();
        let data = decode_column(&ty, rows, &mut Reader::new(wire)).unwrap();
        let mut out = Vec::new();
        encode_column_of(&ty, &data, &mut out);
        assert_eq!(out, wire, "re-encoding {ty}");
        crate::Column::new(ty, data).unwrap()
    }

    #[test]
    fn dynamic_v2_and_flattened() {
        // V2: types [Int64, String] + SharedVariant, sorted: Int64, SharedVariant, String.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(2);
        w.put_str("Int64");
        w.put_str("String");
        w.put_u64_le(0); // variant mode
        w.extend_from_slice(&[0, 2, 255]); // 5, "x", NULL
        w.extend_from_slice(&5i64.to_le_bytes());
        w.put_str("x");
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::Int(5), Value::String(b"x"), Value::Null]);

        // Array(Dynamic): the structure comes before the array offsets.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(1);
        w.put_str("UInt8");
        w.put_u64_le(0);
        w.put_u64_le(2); // offsets: one row of two elements
        w.extend_from_slice(&[1, 1]); // discriminators: SharedVariant=0, UInt8=1
        w.extend_from_slice(&[7, 8]);
        let col = check("Array(Dynamic)", 1, &w);
        assert_eq!(col.value(0), Value::Array(vec![Value::UInt(7), Value::UInt(8)]));

        // FLATTENED: types [String, UInt64]; indexes 1, 2 (NULL), 0.
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_FLATTENED);
        w.put_varuint(2);
        w.put_str("String");
        w.put_str("UInt64");
        w.extend_from_slice(&[1, 2, 0]);
        w.put_str("s");
        w.put_u64_le(9);
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::UInt(9), Value::Null, Value::String(b"s")]);
    }

    #[test]
    fn shared_variant_values_decode() {
        // No types of its own: every row in SharedVariant (discriminator 0), as binary type +
        // value: Int64 5, then String "x".
        let mut w = Vec::new();
        w.put_u64_le(DYNAMIC_V2);
        w.put_varuint(0);
        w.put_u64_le(0);
        w.extend_from_slice(&[0, 255, 0]);
        let mut int = vec![0x0a];
        int.extend_from_slice(&5i64.to_le_bytes());
        w.put_str(&int);
        w.put_str(b"\x15\x01x");
        let col = check("Dynamic", 3, &w);
        assert_eq!((0..3).map(|i| col.value(i)).collect::<Vec<_>>(), [Value::Int(5), Value::Null, Value::String(b"x")]);
        // A value cut short, or with bytes after it, is malformed.
        for bad in [&b"\x0a\x01"[..], b"\x01\x01\x02"] {
            let mut w = Vec::new();
            w.put_u64_le(DYNAMIC_V2);
            w.put_varuint(0);
            w.put_u64_le(0);
            w.push(0);
            w.put_str(bad);
            assert!(matches!(
                decode_column(&DataType::parse("Dynamic").unwrap(), 1, &mut Reader::new(&w)),
                Err(ReadError::Invalid(DecodeError::Malformed { .. }))
            ));
        }
    }
}
