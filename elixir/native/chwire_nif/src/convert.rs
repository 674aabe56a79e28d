//! chwire's columns → Erlang terms, built in the calling process's heap.
//!
//! Each column becomes one term per row, built in one pass over its contiguous buffer
//! (integers and floats straight from the `Vec<T>`, strings as binaries, the containers
//! from their children's terms: a LowCardinality dictionary's terms are made once and shared
//! by every row that refers to them). Lists are made with `enif_make_list_from_array`.
//! Leaf types with an Elixir struct (dates, times, decimals) go through chwire's `Value`.
//! The representation of every type is documented in elixir/README.md.

use crate::etf::{Enc, Encoded};
use chrono::{Datelike, Offset, TimeZone, Timelike};
use chwire::proto::column::LowCardinalityColumn;
use chwire::{Block, ColumnData, DataType, Value};
use rustler::sys::{self, ErlNifEnv, ErlNifTerm as T};
use rustler::{Atom, Env, Term};

/// Builds terms in one env; caches the atoms it uses.
pub struct Out<'a> {
    pub env: Env<'a>,
    /// Whole columns of plain types through one external-term-format decode (see `column_list`).
    pub bulk: bool,
    raw: *mut ErlNifEnv,
    server_tz: Option<String>,
    nil: T,
    true_: T,
    false_: T,
    nan: T,
    inf: T,
    neg_inf: T,
    date_keys: [T; 5],
    datetime_keys: [T; 12],
    decimal_keys: [T; 3],
    dt64_keys: [T; 5],
    iso: T,
    date_mod: T,
    datetime_mod: T,
    decimal_mod: T,
    dt64_mod: T,
}

fn atom(env: Env<'_>, name: &str) -> T {
    Atom::from_str(env, name).map(|a| a.as_c_arg()).unwrap_or_else(|_| crate::atoms::nil().as_c_arg())
}

impl<'a> Out<'a> {
    pub fn new(env: Env<'a>, server_tz: Option<String>) -> Out<'a> {
        let a = |n: &str| atom(env, n);
        Out {
            env,
            bulk: true,
            raw: env.as_c_arg(),
            server_tz,
            nil: a("nil"),
            true_: a("true"),
            false_: a("false"),
            nan: a("nan"),
            inf: a("infinity"),
            neg_inf: a("neg_infinity"),
            // Struct keys in the order a map sorts them (atoms compare by name).
            date_keys: [a("__struct__"), a("calendar"), a("day"), a("month"), a("year")],
            datetime_keys: [
                a("__struct__"),
                a("calendar"),
                a("day"),
                a("hour"),
                a("microsecond"),
                a("minute"),
                a("month"),
                a("second"),
                a("std_offset"),
                a("time_zone"),
                a("utc_offset"),
                a("year"),
            ],
            decimal_keys: [a("__struct__"), a("coef"), a("scale")],
            dt64_keys: [a("__struct__"), a("precision"), a("ticks"), a("time_zone"), a("datetime")],
            iso: a("Elixir.Calendar.ISO"),
            date_mod: a("Elixir.Date"),
            datetime_mod: a("Elixir.DateTime"),
            decimal_mod: a("Elixir.Chwire.Decimal"),
            dt64_mod: a("Elixir.Chwire.DateTime64"),
        }
    }

    pub fn term(&self, t: T) -> Term<'a> {
        unsafe { Term::new(self.env, t) }
    }

    pub fn list(&self, items: &[T]) -> T {
        unsafe { sys::enif_make_list_from_array(self.raw, items.as_ptr(), items.len() as u32) }
    }

    fn tuple(&self, items: &[T]) -> T {
        unsafe { sys::enif_make_tuple_from_array(self.raw, items.as_ptr(), items.len() as u32) }
    }

    fn u64(&self, v: u64) -> T {
        unsafe { sys::enif_make_uint64(self.raw, v) }
    }

    fn i64(&self, v: i64) -> T {
        unsafe { sys::enif_make_int64(self.raw, v) }
    }

    fn f64(&self, v: f64) -> T {
        if v.is_finite() {
            unsafe { sys::enif_make_double(self.raw, v) }
        } else if v.is_nan() {
            self.nan
        } else if v > 0.0 {
            self.inf
        } else {
            self.neg_inf
        }
    }

    pub fn binary(&self, bytes: &[u8]) -> T {
        let mut t: T = T::default();
        unsafe {
            let p = sys::enif_make_new_binary(self.raw, bytes.len(), &mut t);
            if !p.is_null() && !bytes.is_empty() {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
            }
        }
        t
    }

    fn map(&self, keys: &[T], values: &[T]) -> Option<T> {
        let mut m: T = T::default();
        let ok = unsafe { sys::enif_make_map_from_arrays(self.raw, keys.as_ptr(), values.as_ptr(), keys.len(), &mut m) };
        (ok != 0).then_some(m)
    }

    /// A map from pairs that may repeat a key (a ClickHouse Map may): the last one wins.
    fn map_lenient(&self, keys: &[T], values: &[T]) -> T {
        if let Some(m) = self.map(keys, values) {
            return m;
        }
        let mut m = unsafe { sys::enif_make_new_map(self.raw) };
        for (k, v) in keys.iter().zip(values) {
            let mut out: T = T::default();
            if unsafe { sys::enif_make_map_put(self.raw, m, *k, *v, &mut out) } != 0 {
                m = out;
            }
        }
        m
    }

    fn i128(&self, v: i128) -> T {
        match i64::try_from(v) {
            Ok(s) => self.i64(s),
            Err(_) => self.bigint(v < 0, &v.unsigned_abs().to_le_bytes()),
        }
    }

    fn u128(&self, v: u128) -> T {
        match u64::try_from(v) {
            Ok(s) => self.u64(s),
            Err(_) => self.bigint(false, &v.to_le_bytes()),
        }
    }

    /// A 256-bit little-endian integer (two's complement when `signed`).
    fn int256(&self, bytes: &[u8], signed: bool) -> T {
        let mut mag = [0u8; 32];
        mag.copy_from_slice(&bytes[..32]);
        let negative = signed && mag[31] & 0x80 != 0;
        if negative {
            // Two's complement magnitude: invert and add one.
            let mut carry = true;
            for b in &mut mag {
                *b = !*b;
                if carry {
                    let (r, c) = b.overflowing_add(1);
                    *b = r;
                    carry = c;
                }
            }
        }
        if mag[8..].iter().all(|&b| b == 0) {
            let v = u64::from_le_bytes(mag[..8].try_into().unwrap_or([0; 8]));
            if !negative {
                return self.u64(v);
            }
            if v <= i64::MAX as u64 + 1 {
                return self.i64((v as i64).wrapping_neg());
            }
        }
        self.bigint(negative, &mag)
    }

    /// An integer from its sign and little-endian magnitude (the external term format's
    /// SMALL_BIG_EXT).
    fn bigint(&self, negative: bool, mag: &[u8]) -> T {
        let len = mag.iter().rposition(|&b| b != 0).map_or(1, |p| p + 1);
        let mut etf = Vec::with_capacity(4 + len);
        etf.extend_from_slice(&[131, 110, len as u8, u8::from(negative)]);
        etf.extend_from_slice(&mag[..len]);
        self.env.binary_to_term(&etf).map_or(self.nil, |(t, _)| t.as_c_arg())
    }

    fn date(&self, days: i64) -> T {
        let d = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).and_then(|e| e.checked_add_signed(chrono::Duration::days(days)));
        let Some(d) = d else { return self.i64(days) };
        let values = [self.date_mod, self.iso, self.i64(d.day().into()), self.i64(d.month().into()), self.i64(d.year().into())];
        self.map(&self.date_keys, &values).unwrap_or(self.nil)
    }

    /// `%DateTime{}` of `secs` + `micros` in `tz` (the column's, else the server's, else UTC),
    /// its offsets from the IANA database (chrono-tz), so no Elixir time zone database is needed.
    fn datetime(&self, secs: i64, micros: u32, precision: u8, tz: Option<&str>) -> T {
        let name = tz.or(self.server_tz.as_deref()).unwrap_or("Etc/UTC");
        let zone: chrono_tz::Tz = name.parse().unwrap_or(chrono_tz::Tz::UTC);
        let name = if name.parse::<chrono_tz::Tz>().is_ok() { name } else { "Etc/UTC" };
        let Some(dt) = zone.timestamp_opt(secs, micros * 1000).single() else { return self.i64(secs) };
        use chrono_tz::OffsetComponents;
        let off = dt.offset();
        let std_off = off.dst_offset().num_seconds();
        let utc_off = off.fix().local_minus_utc() as i64 - std_off;
        let abbr = chrono_tz::OffsetName::abbreviation(off).unwrap_or("UTC");
        let values = [
            self.datetime_mod,
            self.iso,
            self.i64(dt.day().into()),
            self.i64(dt.hour().into()),
            self.tuple(&[self.i64(micros.into()), self.i64(precision.min(6).into())]),
            self.i64(dt.minute().into()),
            self.i64(dt.month().into()),
            self.i64(dt.second().into()),
            self.i64(std_off),
            self.binary(name.as_bytes()),
            self.i64(utc_off),
            self.i64(dt.year().into()),
        ];
        let mut keys = self.datetime_keys.to_vec();
        let mut values = values.to_vec();
        keys.push(atom(self.env, "zone_abbr"));
        values.push(self.binary(abbr.as_bytes()));
        self.map(&keys, &values).unwrap_or(self.nil)
    }

    fn decimal(&self, coef: T, scale: u8) -> T {
        self.map(&self.decimal_keys, &[self.decimal_mod, coef, self.i64(scale.into())]).unwrap_or(self.nil)
    }

    /// One value of any type.
    pub fn value(&self, v: &Value<'_>) -> T {
        match v {
            Value::Null | Value::Nothing => self.nil,
            Value::UInt(x) => self.u64(*x),
            Value::Int(x) => self.i64(*x),
            Value::Float32(x) => self.f64(f64::from(*x)),
            Value::Float64(x) => self.f64(*x),
            Value::BFloat16(b) => self.f64(f64::from(f32::from_bits(u32::from(*b) << 16))),
            Value::Bool(b) => {
                if *b {
                    self.true_
                } else {
                    self.false_
                }
            }
            Value::String(b) | Value::FixedString(b) | Value::JsonText(b) | Value::AggregateState(b) => self.binary(b),
            Value::Uuid(u) => self.binary(uuid_text(u).as_bytes()),
            Value::Date(d) => self.date(i64::from(*d)),
            Value::Date32(d) => self.date(i64::from(*d)),
            Value::DateTime(s, tz) => self.datetime(i64::from(*s), 0, 0, *tz),
            Value::DateTime64 { ticks, precision, tz } => self.datetime64(*ticks, *precision, *tz),
            Value::Enum(name, _) => self.binary(name.as_bytes()),
            Value::Array(items) | Value::QBit(items) => {
                let terms: Vec<T> = items.iter().map(|x| self.value(x)).collect();
                self.list(&terms)
            }
            Value::UInt128(x) => self.u128(*x),
            Value::Int128(x) => self.i128(*x),
            Value::UInt256(b) => self.int256(b, false),
            Value::Int256(b) => self.int256(b, true),
            Value::Decimal { raw, scale } => self.decimal(self.i128(*raw), *scale),
            Value::Decimal256 { raw, scale } => self.decimal(self.int256(raw, true), *scale),
            Value::Time(s) => self.i64((*s).into()),
            Value::Time64 { ticks, .. } | Value::Interval(ticks, _) => self.i64(*ticks),
            Value::Ipv4(a) => {
                let o = a.octets();
                self.tuple(&o.map(|x| self.i64(x.into())))
            }
            Value::Ipv6(a) => {
                let s = a.segments();
                self.tuple(&s.map(|x| self.i64(x.into())))
            }
            Value::Tuple(items) => {
                let terms: Vec<T> = items.iter().map(|(_, x)| self.value(x)).collect();
                self.tuple(&terms)
            }
            Value::Map(pairs) => {
                let keys: Vec<T> = pairs.iter().map(|(k, _)| self.value(k)).collect();
                let values: Vec<T> = pairs.iter().map(|(_, v)| self.value(v)).collect();
                self.map_lenient(&keys, &values)
            }
            Value::Json(fields) => {
                let keys: Vec<T> = fields.iter().map(|(k, _)| self.binary(k.as_bytes())).collect();
                let values: Vec<T> = fields.iter().map(|(_, v)| self.value(v)).collect();
                self.map_lenient(&keys, &values)
            }
        }
    }

    /// DateTime64: a `%DateTime{}` up to microseconds (precision 0–6); beyond, which Elixir's
    /// DateTime cannot hold, `%Chwire.DateTime64{ticks, precision, time_zone, datetime}` (the
    /// exact ticks, plus the DateTime cut to microseconds for convenience).
    fn datetime64(&self, ticks: i64, precision: u8, tz: Option<&str>) -> T {
        let p = i64::from(precision.min(18));
        let per_sec = 10i64.pow(p as u32);
        let secs = ticks.div_euclid(per_sec);
        let frac = ticks.rem_euclid(per_sec);
        let micros = if p <= 6 { frac * 10i64.pow(6 - p as u32) } else { frac / 10i64.pow(p as u32 - 6) };
        let dt = self.datetime(secs, micros as u32, precision, tz);
        if precision <= 6 {
            return dt;
        }
        let name = tz.or(self.server_tz.as_deref()).unwrap_or("Etc/UTC");
        let values = [self.dt64_mod, self.i64(precision.into()), self.i64(ticks), self.binary(name.as_bytes()), dt];
        // Keys sorted: __struct__, datetime, precision, ticks, time_zone.
        let keys = [self.dt64_keys[0], self.dt64_keys[4], self.dt64_keys[1], self.dt64_keys[2], self.dt64_keys[3]];
        let values = [values[0], values[4], values[1], values[2], values[3]];
        self.map(&keys, &values).unwrap_or(self.nil)
    }

    /// One term per row of a column.
    pub fn column(&self, ty: &DataType, data: &ColumnData) -> Vec<T> {
        use ColumnData as D;
        use DataType as Ty;
        let st = ty.structural();
        match (st, data) {
            (Ty::Bool, D::UInt8(v)) => v.iter().map(|&x| if x != 0 { self.true_ } else { self.false_ }).collect(),
            (Ty::UInt8, D::UInt8(v)) => v.iter().map(|&x| self.u64(x.into())).collect(),
            (Ty::UInt16, D::UInt16(v)) => v.iter().map(|&x| self.u64(x.into())).collect(),
            (Ty::UInt32, D::UInt32(v)) => v.iter().map(|&x| self.u64(x.into())).collect(),
            (Ty::UInt64, D::UInt64(v)) => v.iter().map(|&x| self.u64(x)).collect(),
            (Ty::Int8, D::Int8(v)) => v.iter().map(|&x| self.i64(x.into())).collect(),
            (Ty::Int16, D::Int16(v)) => v.iter().map(|&x| self.i64(x.into())).collect(),
            (Ty::Int32, D::Int32(v)) => v.iter().map(|&x| self.i64(x.into())).collect(),
            (Ty::Int64, D::Int64(v)) => v.iter().map(|&x| self.i64(x)).collect(),
            (Ty::Float32, D::Float32(v)) => v.iter().map(|&x| self.f64(x.into())).collect(),
            (Ty::Float64, D::Float64(v)) => v.iter().map(|&x| self.f64(x)).collect(),
            (Ty::String, D::String(s)) => s.iter().map(|b| self.binary(b)).collect(),
            (Ty::FixedString(_), D::Fixed { width, data }) if *width > 0 => data.chunks_exact(*width).map(|b| self.binary(b)).collect(),
            (Ty::Nullable(inner), D::Nullable(n)) => {
                let mut terms = self.column(inner, &n.values);
                for (t, &null) in terms.iter_mut().zip(&n.nulls) {
                    if null != 0 {
                        *t = self.nil;
                    }
                }
                terms
            }
            (Ty::Array(inner), D::Array(a)) => {
                let values = self.column(inner, &a.values);
                a.offsets.windows(2).map(|w| self.list(values.get(w[0] as usize..w[1] as usize).unwrap_or(&[]))).collect()
            }
            (Ty::Map(k, v), D::Array(a)) => match &a.values {
                D::Tuple(t) if t.elements.len() == 2 => {
                    let keys = self.column(k, &t.elements[0]);
                    let values = self.column(v, &t.elements[1]);
                    a.offsets
                        .windows(2)
                        .map(|w| {
                            let r = w[0] as usize..w[1] as usize;
                            self.map_lenient(keys.get(r.clone()).unwrap_or(&[]), values.get(r).unwrap_or(&[]))
                        })
                        .collect()
                }
                _ => self.generic(ty, data),
            },
            (Ty::Tuple(items), D::Tuple(t)) if items.len() == t.elements.len() => {
                let cols: Vec<Vec<T>> = items.iter().zip(&t.elements).map(|((_, ity), e)| self.column(ity, e)).collect();
                let mut row = vec![T::default(); cols.len()];
                (0..t.rows)
                    .map(|i| {
                        for (slot, c) in row.iter_mut().zip(&cols) {
                            *slot = c[i];
                        }
                        self.tuple(&row)
                    })
                    .collect()
            }
            (Ty::LowCardinality(inner), D::LowCardinality(l)) => self.low_cardinality(inner, l),
            _ => self.generic(ty, data),
        }
    }

    fn low_cardinality(&self, inner: &DataType, l: &LowCardinalityColumn) -> Vec<T> {
        let dict = self.column(inner.strip_nullable(), &l.dictionary);
        let nullable = inner.is_nullable();
        (0..l.keys.len())
            .map(|i| {
                let k = l.keys.get(i);
                if nullable && k == 0 {
                    self.nil
                } else {
                    dict.get(k).copied().unwrap_or(self.nil)
                }
            })
            .collect()
    }

    fn generic(&self, ty: &DataType, data: &ColumnData) -> Vec<T> {
        (0..data.len()).map(|i| self.value(&Value::at(ty, data, i))).collect()
    }

    /// One column of several blocks as one list term. Plain numbers, booleans and strings are
    /// written as one external-term-format list and decoded by the VM in one call (one heap
    /// allocation for the whole list, instead of one `enif_make_*` call per value and a heap
    /// fragment every 200 words of floats); other types go value by value.
    pub fn column_list(&self, ty: &DataType, parts: &[&ColumnData]) -> T {
        if self.bulk {
            if let Some(t) = self.etf_list(ty, parts) {
                return t;
            }
        }
        let mut terms = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        for p in parts {
            terms.extend_from_slice(&self.column(ty, p));
        }
        self.list(&terms)
    }

    fn etf_list(&self, ty: &DataType, parts: &[&ColumnData]) -> Option<T> {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        if n == 0 {
            return Some(self.list(&[]));
        }
        let encs: Vec<Enc<'_>> = parts.iter().map(|p| Enc::of(ty, p)).collect::<Option<_>>()?;
        let mut buf = Vec::with_capacity(7 + n * 9);
        buf.extend_from_slice(&[131, 108]);
        buf.extend_from_slice(&u32::try_from(n).ok()?.to_be_bytes());
        for (p, enc) in parts.iter().zip(&encs) {
            enc.put_all(&mut buf, p.len());
        }
        buf.push(106);
        // Trusted: the bytes are ours, and the only atoms are nil, true, false, nan, infinity
        // and neg_infinity.
        unsafe { self.env.binary_to_term_trusted(&buf) }.map(|(t, _)| t.as_c_arg())
    }

    /// The terms of a list (its cells' heads).
    fn elements(&self, list: T, n: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(n);
        let mut cur = list;
        let mut head = T::default();
        let mut tail = T::default();
        while unsafe { sys::enif_get_list_cell(self.raw, cur, &mut head, &mut tail) } != 0 {
            out.push(head);
            cur = tail;
        }
        out
    }

    /// Each column of several blocks of the same header as one list.
    pub fn column_lists(&self, header: &[(String, DataType)], blocks: &[Block]) -> Vec<T> {
        (0..header.len())
            .map(|i| {
                let parts: Vec<&ColumnData> = blocks.iter().filter_map(|b| b.column_at(i)).map(|c| c.data()).collect();
                let ty = blocks.first().and_then(|b| b.column_at(i)).map_or(&header[i].1, |c| c.data_type());
                self.column_list(ty, &parts)
            })
            .collect()
    }

    /// Rows as lists of their values.
    pub fn rows(&self, lists: &[T], n: usize) -> T {
        let cols: Vec<Vec<T>> = lists.iter().map(|&l| self.elements(l, n)).collect();
        let mut row = vec![T::default(); cols.len()];
        let rows: Vec<T> = (0..n)
            .map(|i| {
                for (slot, c) in row.iter_mut().zip(&cols) {
                    *slot = c.get(i).copied().unwrap_or(self.nil);
                }
                self.list(&row)
            })
            .collect();
        self.list(&rows)
    }

    /// `%Chwire.Result{columns, types, rows, num_rows}` of a header and blocks.
    pub fn result(&self, header: &[(String, DataType)], blocks: &[Block]) -> Term<'a> {
        let num_rows: usize = blocks.iter().map(Block::rows).sum();
        let rows = match self.etf_rows(blocks, num_rows) {
            Some(rows) => rows,
            None => {
                let lists = self.column_lists(header, blocks);
                self.rows(&lists, num_rows)
            }
        };
        self.result_struct(header, rows, num_rows)
    }

    /// Rows of plain columns (see `etf_list`) as one external-term-format list of lists
    /// (`Encoded`'s row layout), decoded by the VM in one call.
    fn etf_rows(&self, blocks: &[Block], n: usize) -> Option<T> {
        if !self.bulk || n == 0 || blocks.is_empty() {
            return None;
        }
        let mut enc = Encoded::new(false);
        for b in blocks {
            if !enc.push(b) {
                return None;
            }
        }
        let bufs = enc.finish();
        // Trusted: the bytes are ours (see `decode`).
        unsafe { self.env.binary_to_term_trusted(bufs.first()?) }.map(|(t, _)| t.as_c_arg())
    }

    pub fn result_struct(&self, header: &[(String, DataType)], rows: T, num_rows: usize) -> Term<'a> {
        let names: Vec<T> = header.iter().map(|(n, _)| self.binary(n.as_bytes())).collect();
        let types: Vec<T> = header.iter().map(|(_, t)| self.binary(t.to_string().as_bytes())).collect();
        let keys = [
            atom(self.env, "__struct__"),
            atom(self.env, "columns"),
            atom(self.env, "num_rows"),
            atom(self.env, "rows"),
            atom(self.env, "types"),
        ];
        let values = [atom(self.env, "Elixir.Chwire.Result"), self.list(&names), self.u64(num_rows as u64), rows, self.list(&types)];
        self.term(self.map(&keys, &values).unwrap_or(self.nil))
    }

    /// `[{name, values}]` in query order.
    pub fn column_pairs(&self, header: &[(String, DataType)], blocks: &[Block]) -> Term<'a> {
        let lists = self.column_lists(header, blocks);
        let pairs: Vec<T> = header.iter().zip(lists).map(|((n, _), l)| self.tuple(&[self.binary(n.as_bytes()), l])).collect();
        self.term(self.list(&pairs))
    }
}

/// The names and types of a block.
pub fn header_of(b: &Block) -> Vec<(String, DataType)> {
    b.columns().iter().map(|(n, c)| (n.clone(), c.data_type().clone())).collect()
}

impl<'a> Out<'a> {
    /// Decode one of `Encoded`'s buffers.
    pub fn decode(&self, buf: &[u8]) -> T {
        // Trusted: the bytes are ours (the only atoms are nil, true, false, nan, infinity and
        // neg_infinity).
        unsafe { self.env.binary_to_term_trusted(buf) }.map_or(self.nil, |(t, _)| t.as_c_arg())
    }

    /// `Encoded` as `[{name, values}]` or a `%Chwire.Result{}`.
    pub fn encoded(&self, header: &[(String, DataType)], enc: Encoded) -> Term<'a> {
        let (columns, n) = (enc.columns, enc.n);
        let bufs = enc.finish();
        if columns {
            // No block came (an empty result): every column of the header is empty.
            let lists: Vec<T> = if bufs.is_empty() {
                header.iter().map(|_| self.list(&[])).collect()
            } else {
                bufs.iter().map(|b| self.decode(b)).collect()
            };
            let pairs: Vec<T> = header.iter().zip(lists).map(|((name, _), l)| self.tuple(&[self.binary(name.as_bytes()), l])).collect();
            self.term(self.list(&pairs))
        } else {
            let rows = bufs.first().map_or_else(|| self.list(&[]), |b| self.decode(b));
            self.result_struct(header, rows, n)
        }
    }
}

fn uuid_text(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}
