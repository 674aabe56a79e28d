//! `AggregateFunction` states. A Native column writes one state per row, back to back, each in
//! its function's own serialization and without a length, so finding where a state ends takes
//! knowing the function. chwire knows the layouts below (checked against ClickHouse 26.9) and
//! keeps every state as opaque bytes, re-encoded unchanged; other functions are an
//! [`DecodeError::UnsupportedType`] that names them.
//!
//! | function | state |
//! |---|---|
//! | `count` | VarUInt |
//! | `sum`, `sumWithOverflow` | the sum (64 bits for integers up to 64 bits and floats; 128/256 for wide integers and decimals; `sumWithOverflow`: the argument's width) |
//! | `avg` | the sum as for `sum`, then the count as VarUInt |
//! | `min`, `max`, `any`, `anyLast` | one value: `String` as Int32 size (−1 = none) + bytes; others a has-value byte + the binary value |
//! | `argMin`, `argMax` | the result's value, then the compared value's, both as above |
//! | `uniq` | skip degree byte, VarUInt count, count × UInt32 hashes |
//! | `uniqExact` | VarUInt count + count × (the value for one plain numeric/date argument, else a 128-bit hash) |
//! | `groupArray[(max)]` | VarUInt count + each element (fixed width for numbers, dates, enums; else VarUInt length + bytes) |
//! | `quantileDeterministic`, `quantilesDeterministic`, `medianDeterministic` | UInt64 sample count, UInt64 values seen, each sample as the value and its UInt32 determinator hash (padded: 8 bytes for values of up to 4 bytes, 16 for 8); state version 1 (revision 54491) adds a `skip_degree` byte |
//!
//! A state's layout can change with its version: the type name carries it
//! (`AggregateFunction(1, quantileDeterministic(0.5), UInt64, UInt64)`, as a server of revision
//! 54491 and later writes it), or, without one, the revision the column was written at says it.
//! Combinators: `-If` (the state of the function without it) and the implicit `-Null` of
//! `Nullable` arguments (a flag byte, then the state if the flag is set — except `count`,
//! which counts non-NULLs itself, and `groupArray`, whose state has no flag).

#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]

use super::StringColumn;
use crate::error::{DecodeError, ReadError, ReadResult};
use crate::revision::{Revision, QUANTILE_DETERMINISTIC_SKIP_DEGREE};
use crate::types::{AggregateFunctionType, DataType};
use crate::wire::Reader;

/// Consumes one binary value of a type (`binary::skip_value`). `argMin`/`argMax`/`min`/…
/// states hold values of any type, whose decoder lives with the binary value decoder;
/// passing it in keeps this module below that one (the value decoder reads states too).
pub(crate) type SkipValue = fn(&DataType, &mut Reader<'_>) -> ReadResult<()>;

/// Most hashes a `uniq` state keeps (ClickHouse's `UNIQUES_HASH_MAX_SIZE` is 2^17).
const MAX_UNIQ_HASHES: usize = 1 << 20;
/// Most elements chwire accepts in one state (a bound on what a length may claim).
const MAX_ELEMENTS: usize = 1 << 32;

/// How one state is laid out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StateFormat {
    /// A VarUInt (`count`).
    VarUInt,
    /// N bytes (`sum`).
    Fixed(usize),
    /// N bytes, then a VarUInt (`avg`: sum and count).
    Avg(usize),
    /// One optional value (`min`, `max`, `any`, `anyLast`).
    Single(Single),
    /// `argMin`/`argMax`: the result, then the compared value.
    ArgMinMax(Single, Single),
    /// `uniq`: skip degree byte, VarUInt count, count × UInt32.
    Uniq,
    /// `uniqExact`: VarUInt count + count × width.
    HashSet(usize),
    /// `groupArray`: VarUInt count + elements of a fixed width, or each VarUInt-length-prefixed.
    GroupArray(Option<usize>),
    /// The `-Null` combinator's flag byte, then the nested state if the flag is set.
    NullFlag(Box<StateFormat>),
    /// A deterministic reservoir sample (`quantileDeterministic` …): UInt64 count, UInt64 total,
    /// count × `pair` bytes, then (state version 1) the skip degree byte.
    Reservoir { pair: usize, skip_degree: bool },
}

/// Most samples a deterministic reservoir keeps (ClickHouse's default is 8192).
const MAX_RESERVOIR: usize = 1 << 24;

/// An optional single value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Single {
    /// Int32 size (−1: no value) + that many bytes.
    String,
    /// A has-value byte, then the value's binary encoding.
    Value(DataType),
}

impl StateFormat {
    /// The layout of `f`'s states written at revision `rev` (which gives the state version
    /// when the type name has none), or an `UnsupportedType` error naming the function.
    pub(crate) fn of(f: &AggregateFunctionType, rev: Revision) -> Result<StateFormat, DecodeError> {
        let unsupported = |why: String| DecodeError::UnsupportedType(format!("{f}: {why}"));
        if RESERVOIR.contains(&f.function.as_str()) {
            let version = f.version.unwrap_or(if rev.has(QUANTILE_DETERMINISTIC_SKIP_DEGREE) { 1 } else { 0 });
            return reservoir(&f.args, version).map_err(unsupported);
        }
        if let Some(v) = f.version.filter(|&v| v != 0) {
            return Err(unsupported(format!("state version {v} is not supported")));
        }
        let mut name = f.function.as_str();
        let mut args: &[DataType] = &f.args;
        if let Some(base) = name.strip_suffix("If").filter(|b| KNOWN.contains(b)) {
            // -If adds a condition argument and keeps the nested state as it is.
            match args.split_last() {
                Some((DataType::UInt8 | DataType::Bool, rest)) if !rest.iter().any(DataType::is_nullable) => {
                    name = base;
                    args = rest;
                }
                _ => return Err(unsupported(format!("{} with these arguments is not supported", f.function))),
            }
        }
        if !KNOWN.contains(&name) {
            return Err(unsupported(format!("the state format of {name} is not known to chwire")));
        }
        if args.iter().any(|a| matches!(a, DataType::LowCardinality(_)) || a.strip_nullable() == &DataType::Nothing) {
            return Err(unsupported(format!("{name} of these argument types is not supported")));
        }
        let nullable = args.iter().any(DataType::is_nullable);
        let plain: Vec<DataType> = args.iter().map(|a| a.strip_nullable().clone()).collect();
        let base = base_format(name, &f.params, &plain).map_err(unsupported)?;
        // ClickHouse's Null combinator: a flag byte when the result can be NULL or when the
        // function returns a default for NULLs only (uniq*), and always with several arguments.
        let flag = nullable && name != "count" && (plain.len() > 1 || name != "groupArray");
        Ok(if flag { StateFormat::NullFlag(Box::new(base)) } else { base })
    }

    /// Consume one state.
    pub(crate) fn skip(&self, r: &mut Reader<'_>, skip_value: SkipValue) -> ReadResult<()> {
        match self {
            StateFormat::VarUInt => {
                r.varuint()?;
            }
            StateFormat::Fixed(n) => {
                r.bytes(*n)?;
            }
            StateFormat::Avg(n) => {
                r.bytes(*n)?;
                r.varuint()?;
            }
            StateFormat::Single(s) => s.skip(r, skip_value)?,
            StateFormat::ArgMinMax(a, b) => {
                a.skip(r, skip_value)?;
                b.skip(r, skip_value)?;
            }
            StateFormat::Uniq => {
                r.u8()?;
                let n = r.varuint_len("uniq state", MAX_UNIQ_HASHES)?;
                r.bytes(n.saturating_mul(4))?; // n <= MAX_UNIQ_HASHES
            }
            StateFormat::HashSet(w) | StateFormat::GroupArray(Some(w)) => {
                let n = r.varuint_len("aggregate state", MAX_ELEMENTS)?;
                r.bytes(n.checked_mul(*w).ok_or_else(|| DecodeError::malformed("aggregate state", "size overflows"))?)?;
            }
            StateFormat::GroupArray(None) => {
                let n = r.varuint_len("aggregate state", MAX_ELEMENTS)?;
                // Each element takes at least its length byte, so this ends with the input.
                for _ in 0..n {
                    r.value_bytes()?;
                }
            }
            StateFormat::NullFlag(inner) => {
                if r.u8()? != 0 {
                    inner.skip(r, skip_value)?;
                }
            }
            StateFormat::Reservoir { pair, skip_degree } => {
                let count = r.u64_le()?;
                let n = usize::try_from(count).ok().filter(|&n| n <= MAX_RESERVOIR).ok_or(DecodeError::LimitExceeded {
                    what: "reservoir samples",
                    size: count,
                    limit: MAX_RESERVOIR as u64,
                })?;
                r.u64_le()?; // values seen
                r.bytes(n.saturating_mul(*pair))?; // n <= 2^24, pair <= 16
                if *skip_degree {
                    r.u8()?;
                }
            }
        }
        Ok(())
    }
}

/// The functions whose state is a deterministic reservoir sample.
const RESERVOIR: [&str; 3] = ["quantileDeterministic", "quantilesDeterministic", "medianDeterministic"];

/// The reservoir state of a value type (and a determinator argument), at a state version.
fn reservoir(args: &[DataType], version: u64) -> Result<StateFormat, String> {
    let [value, determinator] = args else { return Err("takes a value and a determinator".into()) };
    if value.is_nullable() || determinator.is_nullable() {
        return Err("Nullable arguments are not supported".into());
    }
    // A sample is `std::pair<T, UInt32>` in memory: padded to T's alignment (at least 4).
    let pair = match value.fixed_width() {
        Some(1 | 2 | 4) => 8,
        Some(8) => 16,
        _ => return Err(format!("of {value} is not supported")),
    };
    match version {
        0 | 1 => Ok(StateFormat::Reservoir { pair, skip_degree: version == 1 }),
        v => Err(format!("state version {v} is not supported")),
    }
}

impl Single {
    fn of(ty: &DataType) -> Single {
        match ty {
            DataType::String => Single::String,
            t => Single::Value(t.clone()),
        }
    }

    fn skip(&self, r: &mut Reader<'_>, skip_value: SkipValue) -> ReadResult<()> {
        match self {
            Single::String => match r.i32_le()? {
                -1 => {}
                n if n < 0 => return Err(DecodeError::malformed("aggregate state", format!("string size {n}")).into()),
                n => {
                    r.bytes(n as usize)?;
                }
            },
            Single::Value(t) => {
                if r.u8()? != 0 {
                    skip_value(t, r)?;
                }
            }
        }
        Ok(())
    }
}

/// The functions whose states chwire can frame.
const KNOWN: [&str; 13] =
    ["count", "sum", "sumWithOverflow", "avg", "min", "max", "any", "anyLast", "argMin", "argMax", "uniq", "uniqExact", "groupArray"];

fn base_format(name: &str, params: &[String], args: &[DataType]) -> Result<StateFormat, String> {
    let max_params = if name == "groupArray" { 1 } else { 0 };
    if params.len() > max_params {
        return Err(format!("{name} with parameters is not supported"));
    }
    let one = || match args {
        [t] => Ok(t),
        _ => Err(format!("{name} takes one argument")),
    };
    Ok(match name {
        "count" => StateFormat::VarUInt,
        "sum" => {
            let t = one()?;
            StateFormat::Fixed(sum_width(t).ok_or_else(|| format!("sum of {t} is not supported"))?)
        }
        "avg" => {
            let t = one()?;
            StateFormat::Avg(sum_width(t).ok_or_else(|| format!("avg of {t} is not supported"))?)
        }
        "sumWithOverflow" => {
            let t = one()?;
            if sum_width(t).is_none() {
                return Err(format!("sumWithOverflow of {t} is not supported"));
            }
            StateFormat::Fixed(t.fixed_width().unwrap_or(8))
        }
        "min" | "max" | "any" | "anyLast" => StateFormat::Single(Single::of(one()?)),
        "argMin" | "argMax" => match args {
            [a, b] => StateFormat::ArgMinMax(Single::of(a), Single::of(b)),
            _ => return Err(format!("{name} takes two arguments")),
        },
        "uniq" if !args.is_empty() => StateFormat::Uniq,
        "uniqExact" if !args.is_empty() => StateFormat::HashSet(match args {
            [t] => exact_width(t).unwrap_or(16),
            _ => 16,
        }),
        "groupArray" => StateFormat::GroupArray(group_array_width(one()?)),
        _ => return Err(format!("{name} with {} arguments is not supported", args.len())),
    })
}

/// Width of the sum `sum` and `avg` keep for an argument type.
fn sum_width(t: &DataType) -> Option<usize> {
    use DataType as T;
    Some(match t {
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 => 8,
        T::Bool | T::Float32 | T::Float64 | T::BFloat16 => 8,
        T::UInt128 | T::Int128 => 16,
        T::UInt256 | T::Int256 => 32,
        T::Decimal { precision, .. } if *precision <= 38 => 16,
        T::Decimal { .. } => 32,
        _ => return None,
    })
}

/// Types `uniqExact` keeps as their value (others as a 128-bit hash).
fn exact_width(t: &DataType) -> Option<usize> {
    use DataType as T;
    match t {
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::UInt128 | T::UInt256 => t.fixed_width(),
        T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Int128 | T::Int256 => t.fixed_width(),
        T::Float32 | T::Float64 | T::BFloat16 | T::Bool | T::Date | T::Date32 | T::DateTime(_) | T::Ipv4 => t.fixed_width(),
        T::Enum8(_) | T::Enum16(_) | T::Uuid => t.fixed_width(),
        _ => None,
    }
}

/// Types `groupArray` keeps at their fixed width (others length-prefixed).
fn group_array_width(t: &DataType) -> Option<usize> {
    use DataType as T;
    match t {
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::UInt128 | T::UInt256 => t.fixed_width(),
        T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Int128 | T::Int256 => t.fixed_width(),
        T::Float32 | T::Float64 | T::BFloat16 | T::Bool | T::Date | T::DateTime(_) | T::Ipv4 => t.fixed_width(),
        T::Enum8(_) | T::Enum16(_) => t.fixed_width(),
        _ => None,
    }
}

/// Read `rows` states of `f`: the bytes of each, as a string column.
pub(crate) fn read_states(f: &AggregateFunctionType, rows: usize, r: &mut Reader<'_>, skip_value: SkipValue) -> ReadResult<StringColumn> {
    let format = StateFormat::of(f, r.revision())?;
    let src = r.rest();
    let mut sub = r.sub(src);
    // Every state takes at least one byte: the offsets are bounded by what was received.
    let mut offsets = Vec::with_capacity(rows.min(src.len()).saturating_add(1));
    offsets.push(0u64);
    for _ in 0..rows {
        format.skip(&mut sub, skip_value).map_err(|e| match e {
            ReadError::Incomplete { needed } => ReadError::Incomplete { needed: r.position().saturating_add(needed) },
            e => e,
        })?;
        offsets.push(sub.position() as u64);
    }
    let data = src.get(..sub.position()).unwrap_or_default().to_vec(); // a reader stays within its input
    r.skip(sub.position())?;
    StringColumn::try_from_parts(offsets, data).map_err(|e| DecodeError::malformed("aggregate states", e.to_string()).into())
}

/// Checks that every value of `states` is exactly one state of `f` (of the version its type
/// name gives, else version 0).
pub(crate) fn check_states(f: &AggregateFunctionType, states: &StringColumn, skip_value: SkipValue) -> Result<(), String> {
    let format = StateFormat::of(f, Revision(0)).map_err(|e| e.to_string())?;
    for (i, s) in states.iter().enumerate() {
        let mut r = Reader::new(s);
        let ok = format.skip(&mut r, skip_value).is_ok() && r.is_empty();
        if !ok {
            return Err(format!("value {i} is not one state of {f}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(ty: &str, rows: usize, wire: &[u8]) -> Result<Vec<Vec<u8>>, ReadError> {
        let DataType::AggregateFunction(f) = DataType::parse(ty).unwrap() else { panic!("{ty}") };
        let mut r = Reader::new(wire);
        let col = read_states(&f, rows, &mut r, crate::column::binary::skip_value)?;
        assert!(r.is_empty(), "{ty}: {} bytes left", r.remaining());
        Ok(col.iter().map(<[u8]>::to_vec).collect())
    }

    #[test]
    fn frames_states_as_clickhouse_26_9_writes_them() {
        // sum(UInt64) over groups of numbers(10) % 3: 18, 12, 15.
        let mut w = Vec::new();
        for v in [18u64, 12, 15] {
            w.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(states("AggregateFunction(sum, UInt64)", 3, &w).unwrap().len(), 3);
        assert_eq!(states("AggregateFunction(count)", 3, &[4, 3, 3]).unwrap(), [[4], [3], [3]]);
        // avg(UInt64): sum then VarUInt count.
        let avg = [0x12, 0, 0, 0, 0, 0, 0, 0, 4];
        assert_eq!(states("AggregateFunction(avg, UInt64)", 1, &avg).unwrap(), [avg.to_vec()]);
        // uniq: skip degree 0, 2 hashes.
        let uniq = [0, 2, 1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(states("AggregateFunction(uniq, UInt64)", 1, &uniq).unwrap(), [uniq.to_vec()]);
        // any(String): Int32 size including the terminating zero; −1 for none.
        let any = [2, 0, 0, 0, b'0', 0, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(states("AggregateFunction(any, String)", 2, &any).unwrap(), [any[..6].to_vec(), any[6..].to_vec()]);
        // min(Array(UInt64)): has byte + binary array.
        let min = [1, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(states("AggregateFunction(min, Array(UInt64))", 2, &min).unwrap(), [min[..10].to_vec(), vec![0]]);
        // groupArray(String): count + length-prefixed elements; groupArray(UInt8): raw.
        assert_eq!(states("AggregateFunction(groupArray, String)", 1, &[2, 1, b'a', 0]).unwrap().len(), 1);
        assert_eq!(states("AggregateFunction(groupArray(2), UInt8)", 2, &[2, 7, 8, 0]).unwrap(), [vec![2, 7, 8], vec![0]]);
        // Nullable argument: flag, then the state if set.
        let mut w = vec![1];
        w.extend_from_slice(&45u64.to_le_bytes());
        w.push(0);
        assert_eq!(states("AggregateFunction(sum, Nullable(UInt64))", 2, &w).unwrap().len(), 2);
        // groupArray of Nullable has no flag; sumIf is sum.
        assert_eq!(states("AggregateFunction(groupArray, Nullable(UInt8))", 1, &[1, 5]).unwrap(), [vec![1, 5]]);
        assert_eq!(states("AggregateFunction(sumIf, UInt64, UInt8)", 1, &[9, 0, 0, 0, 0, 0, 0, 0]).unwrap().len(), 1);
        // argMax(UInt64, String): has + u64, then the string value.
        let mut w = vec![1];
        w.extend_from_slice(&9u64.to_le_bytes());
        w.extend_from_slice(&[2, 0, 0, 0, b'9', 0]);
        assert_eq!(states("AggregateFunction(argMax, UInt64, String)", 1, &w).unwrap(), [w.clone()]);
    }

    #[test]
    fn truncated_and_bad_states_are_errors_not_panics() {
        let cases: &[(&str, &[u8])] = &[
            ("AggregateFunction(sum, UInt64)", &[1, 2, 3]),
            ("AggregateFunction(uniq, UInt64)", &[0, 0xff, 0xff, 0xff, 0x7f]),
            ("AggregateFunction(uniqExact, UInt64)", &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
            ("AggregateFunction(groupArray, String)", &[0xff, 0xff, 0xff, 0x0f, 3, b'a']),
            ("AggregateFunction(any, String)", &[0xfe, 0xff, 0xff, 0xff]),
            ("AggregateFunction(any, String)", &[5, 0, 0, 0, b'a']),
            ("AggregateFunction(min, Array(String))", &[1, 0xff, 0xff, 0xff, 0xff, 0x0f]),
            ("AggregateFunction(count)", &[0x80]),
        ];
        for (ty, wire) in cases {
            assert!(states(ty, 1, wire).is_err(), "{ty} {wire:?}");
        }
    }

    #[test]
    fn unknown_functions_are_named() {
        for ty in [
            "AggregateFunction(quantiles(0.5, 0.9), Float64)",
            "AggregateFunction(uniqCombined, UInt64)",
            "AggregateFunction(sum, String)",
            "AggregateFunction(1, sumMap, Array(UInt8), Array(UInt64))",
            "AggregateFunction(sumIf, Nullable(UInt64), UInt8)",
            "AggregateFunction(sum, Nullable(Nothing))",
        ] {
            let DataType::AggregateFunction(f) = DataType::parse(ty).unwrap() else { panic!() };
            match StateFormat::of(&f, Revision(0)) {
                Err(DecodeError::UnsupportedType(m)) => assert!(m.contains(&f.function), "{m}"),
                other => panic!("{ty}: {other:?}"),
            }
        }
    }
}
