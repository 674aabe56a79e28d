//! Plain columns in Erlang's external term format, for the VM to decode in one call
//! (`enif_binary_to_term`): whole results as their blocks arrive (`Encoded`, on chwire's IO
//! threads, so that the caller only decodes) and single column lists (`Enc`, used by
//! `convert`). Also the heap words the decoded terms take, for the caller to grow its heap by.

use chwire::proto::column::LowCardinalityColumn;
use chwire::{Block, ColumnData, DataType};

/// A result of plain columns encoded in the external term format as its blocks arrive (on
/// chwire's IO threads, overlapping the network), so that the caller only has the VM decode it:
/// one list per column (`columns`) or one list of row lists.
pub struct Encoded {
    pub columns: bool,
    pub n: usize,
    pub ncols: usize,
    pub bufs: Vec<Vec<u8>>,
    /// The heap words the decoded terms take (list cells, boxed numbers, binaries' headers;
    /// a string's bytes only where they are on the heap): what the caller grows its heap by.
    pub words: u64,
}

impl Encoded {
    pub fn new(columns: bool) -> Encoded {
        Encoded { columns, n: 0, ncols: 0, bufs: Vec::new(), words: 0 }
    }

    /// Append a block; false (nothing appended) when a column is not plain.
    pub fn push(&mut self, b: &Block) -> bool {
        let Some(cols) = b.columns().iter().map(|(_, c)| Enc::of(c.data_type(), c.data())).collect::<Option<Vec<_>>>() else {
            return false;
        };
        if self.bufs.is_empty() {
            self.ncols = cols.len();
            let lists = if self.columns { cols.len() } else { 1 };
            self.bufs = (0..lists).map(|_| vec![131, 108, 0, 0, 0, 0]).collect();
        }
        if cols.len() != self.ncols {
            return false;
        }
        let rows = b.rows();
        // A list cell per value (columns) or per value and row (rows: a list per row), plus
        // what each value takes.
        let cells = if self.columns { rows * cols.len() } else { rows * (cols.len() + 1) };
        self.words += 2 * cells as u64 + cols.iter().map(|c| c.words_all(rows)).sum::<u64>();
        if self.columns {
            for (buf, c) in self.bufs.iter_mut().zip(&cols) {
                buf.reserve(rows * 9);
                c.put_all(buf, rows);
            }
        } else if let Some(buf) = self.bufs.first_mut() {
            buf.reserve(rows * (6 + cols.len() * 9));
            let ncols = (cols.len() as u32).to_be_bytes();
            for i in 0..rows {
                if cols.is_empty() {
                    buf.push(106);
                    continue;
                }
                buf.push(108);
                buf.extend_from_slice(&ncols);
                for c in &cols {
                    c.put(buf, i);
                }
                buf.push(106);
            }
        }
        self.n += rows;
        true
    }

    /// The finished buffers (element counts patched in, the lists' tails appended).
    pub fn finish(mut self) -> Vec<Vec<u8>> {
        let n = (self.n as u32).to_be_bytes();
        for buf in &mut self.bufs {
            if self.n == 0 {
                *buf = vec![131, 106];
            } else {
                buf[2..6].copy_from_slice(&n);
                buf.push(106);
            }
        }
        self.bufs
    }
}

/// A plain column's values in the external term format.
pub(crate) enum Enc<'c> {
    Bool(&'c [u8]),
    U8(&'c [u8]),
    U16(&'c [u16]),
    U32(&'c [u32]),
    U64(&'c [u64]),
    I8(&'c [i8]),
    I16(&'c [i16]),
    I32(&'c [i32]),
    I64(&'c [i64]),
    F32(&'c [f32]),
    F64(&'c [f64]),
    Str(&'c chwire::StringColumn),
    /// `nil` where the null map says so.
    Nullable(&'c [u8], Box<Enc<'c>>),
    /// A list of the elements between two offsets.
    Array(&'c [u64], Box<Enc<'c>>),
    /// The dictionary entry of each key (key 0 is `nil` when the type is nullable).
    LowCardinality(&'c LowCardinalityColumn, bool, Box<Enc<'c>>),
}

impl<'c> Enc<'c> {
    pub(crate) fn of(ty: &DataType, data: &'c ColumnData) -> Option<Enc<'c>> {
        use ColumnData as D;
        use DataType as Ty;
        Some(match (ty.structural(), data) {
            (Ty::Bool, D::UInt8(v)) => Enc::Bool(v),
            (Ty::UInt8, D::UInt8(v)) => Enc::U8(v),
            (Ty::UInt16, D::UInt16(v)) => Enc::U16(v),
            (Ty::UInt32, D::UInt32(v)) => Enc::U32(v),
            (Ty::UInt64, D::UInt64(v)) => Enc::U64(v),
            (Ty::Int8, D::Int8(v)) => Enc::I8(v),
            (Ty::Int16, D::Int16(v)) => Enc::I16(v),
            (Ty::Int32, D::Int32(v)) => Enc::I32(v),
            (Ty::Int64, D::Int64(v)) => Enc::I64(v),
            (Ty::Float32, D::Float32(v)) => Enc::F32(v),
            (Ty::Float64, D::Float64(v)) => Enc::F64(v),
            (Ty::String, D::String(s)) => Enc::Str(s),
            (Ty::Nullable(inner), D::Nullable(n)) => Enc::Nullable(&n.nulls, Box::new(Enc::of(inner, &n.values)?)),
            (Ty::Array(inner), D::Array(a)) => Enc::Array(&a.offsets, Box::new(Enc::of(inner, &a.values)?)),
            (Ty::LowCardinality(inner), D::LowCardinality(l)) => {
                Enc::LowCardinality(l, inner.is_nullable(), Box::new(Enc::of(inner.strip_nullable(), &l.dictionary)?))
            }
            _ => return None,
        })
    }

    /// Values `0..rows`, one loop per plain type (the per-value `put` matches on the type for
    /// each value: twice the time for the seed's 1M x 7 result).
    pub(crate) fn put_all(&self, buf: &mut Vec<u8>, rows: usize) {
        match self {
            Enc::U8(v) => v[..rows].iter().for_each(|&x| etf_u64(buf, x.into())),
            Enc::U16(v) => v[..rows].iter().for_each(|&x| etf_u64(buf, x.into())),
            Enc::U32(v) => v[..rows].iter().for_each(|&x| etf_u64(buf, x.into())),
            Enc::U64(v) => v[..rows].iter().for_each(|&x| etf_u64(buf, x)),
            Enc::I8(v) => v[..rows].iter().for_each(|&x| etf_i64(buf, x.into())),
            Enc::I16(v) => v[..rows].iter().for_each(|&x| etf_i64(buf, x.into())),
            Enc::I32(v) => v[..rows].iter().for_each(|&x| etf_i64(buf, x.into())),
            Enc::I64(v) => v[..rows].iter().for_each(|&x| etf_i64(buf, x)),
            Enc::F32(v) => v[..rows].iter().for_each(|&x| etf_float(buf, x.into())),
            Enc::F64(v) => v[..rows].iter().for_each(|&x| etf_float(buf, x)),
            _ => (0..rows).for_each(|i| self.put(buf, i)),
        }
    }

    /// The heap words of values `0..rows`' terms, without their list cells.
    fn words_all(&self, rows: usize) -> u64 {
        match self {
            Enc::U64(v) => v[..rows].iter().map(|&x| big_words(x)).sum(),
            Enc::I64(v) => v[..rows].iter().map(|&x| big_words(x.unsigned_abs())).sum(),
            Enc::F32(_) | Enc::F64(_) => 2 * rows as u64,
            Enc::Bool(_) | Enc::U8(_) | Enc::U16(_) | Enc::U32(_) | Enc::I8(_) | Enc::I16(_) | Enc::I32(_) => 0,
            _ => (0..rows).map(|i| self.words(i)).sum(),
        }
    }

    /// The heap words of value `i`'s term (a float is 2; a binary of up to 64 bytes is on the
    /// heap, 2 words and its bytes; a longer one is 6 words pointing at its bytes off the heap).
    fn words(&self, i: usize) -> u64 {
        match self {
            Enc::U64(v) => big_words(v[i]),
            Enc::I64(v) => big_words(v[i].unsigned_abs()),
            Enc::F32(_) | Enc::F64(_) => 2,
            Enc::Bool(_) | Enc::U8(_) | Enc::U16(_) | Enc::U32(_) | Enc::I8(_) | Enc::I16(_) | Enc::I32(_) => 0,
            Enc::Str(s) => {
                let n = s.get(i).len() as u64;
                if n <= 64 {
                    2 + n.div_ceil(8)
                } else {
                    6
                }
            }
            Enc::Nullable(nulls, inner) => {
                if nulls[i] != 0 {
                    0
                } else {
                    inner.words(i)
                }
            }
            Enc::Array(offsets, inner) => (offsets[i]..offsets[i + 1]).map(|j| 2 + inner.words(j as usize)).sum(),
            Enc::LowCardinality(lc, nullable, inner) => {
                let k = lc.keys.get(i);
                if *nullable && k == 0 {
                    0
                } else {
                    inner.words(k)
                }
            }
        }
    }

    #[inline]
    fn put(&self, buf: &mut Vec<u8>, i: usize) {
        match self {
            Enc::Bool(v) => etf_atom(buf, if v[i] != 0 { "true" } else { "false" }),
            Enc::U8(v) => etf_u64(buf, v[i].into()),
            Enc::U16(v) => etf_u64(buf, v[i].into()),
            Enc::U32(v) => etf_u64(buf, v[i].into()),
            Enc::U64(v) => etf_u64(buf, v[i]),
            Enc::I8(v) => etf_i64(buf, v[i].into()),
            Enc::I16(v) => etf_i64(buf, v[i].into()),
            Enc::I32(v) => etf_i64(buf, v[i].into()),
            Enc::I64(v) => etf_i64(buf, v[i]),
            Enc::F32(v) => etf_float(buf, v[i].into()),
            Enc::F64(v) => etf_float(buf, v[i]),
            Enc::Str(s) => {
                let b = s.get(i);
                buf.push(109);
                buf.extend_from_slice(&(b.len() as u32).to_be_bytes());
                buf.extend_from_slice(b);
            }
            Enc::Nullable(nulls, inner) => {
                if nulls[i] != 0 {
                    etf_atom(buf, "nil");
                } else {
                    inner.put(buf, i);
                }
            }
            Enc::Array(offsets, inner) => {
                let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
                if b > a {
                    buf.push(108);
                    buf.extend_from_slice(&((b - a) as u32).to_be_bytes());
                    for j in a..b {
                        inner.put(buf, j);
                    }
                }
                buf.push(106);
            }
            Enc::LowCardinality(lc, nullable, inner) => {
                let k = lc.keys.get(i);
                if *nullable && k == 0 {
                    etf_atom(buf, "nil");
                } else {
                    inner.put(buf, k);
                }
            }
        }
    }
}

/// The heap words of an integer of magnitude `mag`: none for a small integer (60 bits,
/// signed), a one-digit bignum's two beyond.
#[inline]
fn big_words(mag: u64) -> u64 {
    if mag > (1 << 59) - 1 {
        2
    } else {
        0
    }
}

#[inline]
fn etf_u64(buf: &mut Vec<u8>, v: u64) {
    if v <= 255 {
        buf.extend_from_slice(&[97, v as u8]);
    } else if v <= i32::MAX as u64 {
        let b = (v as u32).to_be_bytes();
        buf.extend_from_slice(&[98, b[0], b[1], b[2], b[3]]);
    } else {
        etf_big(buf, false, v);
    }
}

#[inline]
fn etf_i64(buf: &mut Vec<u8>, v: i64) {
    if (0..=255).contains(&v) {
        buf.extend_from_slice(&[97, v as u8]);
    } else if let Ok(i) = i32::try_from(v) {
        let b = i.to_be_bytes();
        buf.extend_from_slice(&[98, b[0], b[1], b[2], b[3]]);
    } else {
        etf_big(buf, v < 0, v.unsigned_abs());
    }
}

/// SMALL_BIG_EXT of a magnitude of up to 64 bits (not 0).
fn etf_big(buf: &mut Vec<u8>, neg: bool, mag: u64) {
    let len = 8 - (mag.leading_zeros() / 8) as usize;
    buf.extend_from_slice(&[110, len as u8, u8::from(neg)]);
    buf.extend_from_slice(&mag.to_le_bytes()[..len]);
}

#[inline]
fn etf_float(buf: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        let b = v.to_bits().to_be_bytes();
        buf.extend_from_slice(&[70, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    } else {
        etf_atom(
            buf,
            if v.is_nan() {
                "nan"
            } else if v > 0.0 {
                "infinity"
            } else {
                "neg_infinity"
            },
        );
    }
}

fn etf_atom(buf: &mut Vec<u8>, name: &str) {
    buf.extend_from_slice(&[119, name.len() as u8]);
    buf.extend_from_slice(name.as_bytes());
}
