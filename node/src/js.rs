//! Thin, checked helpers over Node-API for reading and making JavaScript values.
//!
//! The conversions (results → JS values, JS values → columns and parameters) work on raw
//! `napi_value`s through these, on the JS thread only: every function takes the `napi_env` of
//! the call it runs in.

use napi::sys;
use std::ptr;

pub type Env = sys::napi_env;
pub type Val = sys::napi_value;

/// A Node-API call that failed (an exception may be pending).
#[derive(Debug)]
pub struct Fail(pub &'static str);

impl From<Fail> for crate::error::Error {
    fn from(f: Fail) -> Self {
        crate::error::Error::Data(format!("Node-API call failed: {}", f.0))
    }
}

pub type R<T> = Result<T, Fail>;

#[inline]
fn ok(status: sys::napi_status, what: &'static str) -> R<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Fail(what))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Symbol,
    Object,
    Function,
    External,
    BigInt,
}

pub fn kind(env: Env, v: Val) -> R<Kind> {
    let mut t = 0;
    ok(unsafe { sys::napi_typeof(env, v, &mut t) }, "typeof")?;
    Ok(match t {
        sys::ValueType::napi_undefined => Kind::Undefined,
        sys::ValueType::napi_null => Kind::Null,
        sys::ValueType::napi_boolean => Kind::Boolean,
        sys::ValueType::napi_number => Kind::Number,
        sys::ValueType::napi_string => Kind::String,
        sys::ValueType::napi_symbol => Kind::Symbol,
        sys::ValueType::napi_function => Kind::Function,
        sys::ValueType::napi_external => Kind::External,
        sys::ValueType::napi_bigint => Kind::BigInt,
        _ => Kind::Object,
    })
}

/// What a value is, for messages.
pub fn describe(env: Env, v: Val) -> String {
    match kind(env, v) {
        Ok(Kind::String) => match string(env, v) {
            Ok(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
            Ok(_) => "a string".into(),
            Err(_) => "a string".into(),
        },
        Ok(Kind::Number) => match f64_of(env, v) {
            Ok(f) => format!("the number {}", js_number_text(f)),
            Err(_) => "a number".into(),
        },
        Ok(Kind::BigInt) => match bigint(env, v) {
            Ok(Some(i)) => format!("the bigint {i}n"),
            _ => "a bigint".into(),
        },
        Ok(Kind::Boolean) => format!("{}", bool_of(env, v).unwrap_or(false)),
        Ok(Kind::Null) => "null".into(),
        Ok(Kind::Undefined) => "undefined".into(),
        Ok(Kind::Object) if is_array(env, v).unwrap_or(false) => "an array".into(),
        Ok(Kind::Object) if is_date(env, v).unwrap_or(false) => "a Date".into(),
        Ok(Kind::Object) if is_typedarray(env, v).unwrap_or(false) || is_buffer(env, v).unwrap_or(false) => "a typed array".into(),
        Ok(Kind::Object) => "an object".into(),
        Ok(k) => format!("a {k:?}").to_lowercase(),
        Err(_) => "a value".into(),
    }
}

/// A double as JavaScript prints it (1, 1.5, NaN, Infinity).
pub fn js_number_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if f == f.trunc() && f.abs() < 1e21 {
        format!("{f:.0}")
    } else if f.abs() >= 1e21 || f.abs() < 1e-6 {
        // JavaScript's exponent form: 1e-7, 1.5e+21.
        let e = format!("{f:e}");
        match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        }
    } else {
        format!("{f}")
    }
}

pub fn f64_of(env: Env, v: Val) -> R<f64> {
    let mut f = 0.0;
    ok(unsafe { sys::napi_get_value_double(env, v, &mut f) }, "get_value_double")?;
    Ok(f)
}

pub fn bool_of(env: Env, v: Val) -> R<bool> {
    let mut b = false;
    ok(unsafe { sys::napi_get_value_bool(env, v, &mut b) }, "get_value_bool")?;
    Ok(b)
}

/// A bigint's value, `None` beyond 128 bits.
pub fn bigint(env: Env, v: Val) -> R<Option<i128>> {
    let (neg, words) = bigint_words(env, v)?;
    if words.len() > 2 {
        if words[2..].iter().all(|&w| w == 0) {
            return bigint_from(neg, &words[..2]);
        }
        return Ok(None);
    }
    bigint_from(neg, &words)
}

fn bigint_from(neg: bool, words: &[u64]) -> R<Option<i128>> {
    let mag = words.first().copied().unwrap_or(0) as u128 | (words.get(1).copied().unwrap_or(0) as u128) << 64;
    Ok(if neg {
        if mag <= i128::MAX as u128 + 1 {
            Some((mag as i128).wrapping_neg())
        } else {
            None
        }
    } else if mag <= i128::MAX as u128 {
        Some(mag as i128)
    } else {
        None
    })
}

/// A bigint's sign and little-endian 64-bit words.
pub fn bigint_words(env: Env, v: Val) -> R<(bool, Vec<u64>)> {
    let mut count = 0usize;
    let mut sign = 0i32;
    ok(unsafe { sys::napi_get_value_bigint_words(env, v, ptr::null_mut(), &mut count, ptr::null_mut()) }, "bigint_words")?;
    let mut words = vec![0u64; count.max(1)];
    let mut n = words.len();
    ok(unsafe { sys::napi_get_value_bigint_words(env, v, &mut sign, &mut n, words.as_mut_ptr()) }, "bigint_words")?;
    words.truncate(n.max(1));
    let neg = sign != 0 && words.iter().any(|&w| w != 0);
    Ok((neg, words))
}

/// A bigint that fits in u128 (or `None`).
pub fn biguint(env: Env, v: Val) -> R<Option<u128>> {
    let (neg, words) = bigint_words(env, v)?;
    if neg || words.iter().skip(2).any(|&w| w != 0) {
        return Ok(None);
    }
    Ok(Some(words.first().copied().unwrap_or(0) as u128 | (words.get(1).copied().unwrap_or(0) as u128) << 64))
}

pub fn string(env: Env, v: Val) -> R<String> {
    let mut len = 0usize;
    ok(unsafe { sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len) }, "string length")?;
    let mut buf = vec![0u8; len + 1];
    let mut got = 0usize;
    ok(unsafe { sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), buf.len(), &mut got) }, "string")?;
    buf.truncate(got);
    // Node writes lone surrogates as U+FFFD: always valid UTF-8.
    Ok(String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

pub fn is_array(env: Env, v: Val) -> R<bool> {
    let mut b = false;
    ok(unsafe { sys::napi_is_array(env, v, &mut b) }, "is_array")?;
    Ok(b)
}

pub fn is_date(env: Env, v: Val) -> R<bool> {
    let mut b = false;
    ok(unsafe { sys::napi_is_date(env, v, &mut b) }, "is_date")?;
    Ok(b)
}

pub fn is_typedarray(env: Env, v: Val) -> R<bool> {
    let mut b = false;
    ok(unsafe { sys::napi_is_typedarray(env, v, &mut b) }, "is_typedarray")?;
    Ok(b)
}

pub fn is_buffer(env: Env, v: Val) -> R<bool> {
    let mut b = false;
    ok(unsafe { sys::napi_is_buffer(env, v, &mut b) }, "is_buffer")?;
    Ok(b)
}

/// A Date's milliseconds since the epoch (NaN for an invalid one).
pub fn date_ms(env: Env, v: Val) -> R<f64> {
    let mut f = 0.0;
    ok(unsafe { sys::napi_get_date_value(env, v, &mut f) }, "get_date_value")?;
    Ok(f)
}

pub fn array_len(env: Env, v: Val) -> R<u32> {
    let mut n = 0u32;
    ok(unsafe { sys::napi_get_array_length(env, v, &mut n) }, "array length")?;
    Ok(n)
}

pub fn element(env: Env, v: Val, i: u32) -> R<Val> {
    let mut out = ptr::null_mut();
    ok(unsafe { sys::napi_get_element(env, v, i, &mut out) }, "get_element")?;
    Ok(out)
}

/// The elements of an array.
pub fn elements(env: Env, v: Val) -> R<Vec<Val>> {
    let n = array_len(env, v)?;
    (0..n).map(|i| element(env, v, i)).collect()
}

pub fn named(env: Env, obj: Val, name: &str) -> R<Val> {
    let key = str_val(env, name)?;
    let mut out = ptr::null_mut();
    ok(unsafe { sys::napi_get_property(env, obj, key, &mut out) }, "get_property")?;
    Ok(out)
}

/// A property, `None` when undefined or null.
pub fn opt(env: Env, obj: Val, name: &str) -> R<Option<Val>> {
    let v = named(env, obj, name)?;
    Ok(match kind(env, v)? {
        Kind::Undefined | Kind::Null => None,
        _ => Some(v),
    })
}

/// An object's own enumerable string keys and values.
pub fn entries(env: Env, obj: Val) -> R<Vec<(String, Val)>> {
    let mut keys = ptr::null_mut();
    ok(unsafe { sys::napi_get_property_names(env, obj, &mut keys) }, "property names")?;
    let n = array_len(env, keys)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let k = element(env, keys, i)?;
        let mut v = ptr::null_mut();
        ok(unsafe { sys::napi_get_property(env, obj, k, &mut v) }, "get_property")?;
        let name = match kind(env, k)? {
            Kind::String => string(env, k)?,
            _ => js_number_text(f64_of(env, k)?),
        };
        out.push((name, v));
    }
    Ok(out)
}

/// The entries of a JavaScript `Map`, through its `entries()` spread into an array by
/// `Array.from`.
pub fn map_entries(env: Env, map: Val) -> R<Vec<(Val, Val)>> {
    let global = global(env)?;
    let array = named(env, global, "Array")?;
    let from = named(env, array, "from")?;
    let mut arr = ptr::null_mut();
    ok(unsafe { sys::napi_call_function(env, array, from, 1, &map, &mut arr) }, "Array.from")?;
    let mut out = Vec::new();
    for pair in elements(env, arr)? {
        out.push((element(env, pair, 0)?, element(env, pair, 1)?));
    }
    Ok(out)
}

pub fn is_map(env: Env, v: Val) -> R<bool> {
    let ctor = named(env, global(env)?, "Map")?;
    let mut b = false;
    ok(unsafe { sys::napi_instanceof(env, v, ctor, &mut b) }, "instanceof Map")?;
    Ok(b)
}

/// The bytes of a Buffer or any typed array / DataView (a view, valid while `v` lives).
pub fn bytes_of<'a>(env: Env, v: Val) -> R<&'a [u8]> {
    let mut data = ptr::null_mut();
    let mut len = 0usize;
    if is_buffer(env, v)? {
        ok(unsafe { sys::napi_get_buffer_info(env, v, &mut data, &mut len) }, "buffer info")?;
    } else {
        let mut t = 0;
        let mut n = 0usize;
        let mut ab = ptr::null_mut();
        let mut off = 0usize;
        ok(unsafe { sys::napi_get_typedarray_info(env, v, &mut t, &mut n, &mut data, &mut ab, &mut off) }, "typedarray info")?;
        len = n * element_size(t);
    }
    Ok(if len == 0 || data.is_null() { &[] } else { unsafe { std::slice::from_raw_parts(data.cast(), len) } })
}

fn element_size(t: sys::napi_typedarray_type) -> usize {
    match t {
        sys::TypedarrayType::int16_array | sys::TypedarrayType::uint16_array => 2,
        sys::TypedarrayType::int32_array | sys::TypedarrayType::uint32_array | sys::TypedarrayType::float32_array => 4,
        sys::TypedarrayType::float64_array | sys::TypedarrayType::bigint64_array | sys::TypedarrayType::biguint64_array => 8,
        _ => 1,
    }
}

/// A typed array's element type name and raw bytes.
pub fn typed_array<'a>(env: Env, v: Val) -> R<(&'static str, &'a [u8])> {
    let mut t = 0;
    let mut n = 0usize;
    let mut data = ptr::null_mut();
    let mut ab = ptr::null_mut();
    let mut off = 0usize;
    ok(unsafe { sys::napi_get_typedarray_info(env, v, &mut t, &mut n, &mut data, &mut ab, &mut off) }, "typedarray info")?;
    let name = match t {
        sys::TypedarrayType::int8_array => "i8",
        sys::TypedarrayType::uint8_array | sys::TypedarrayType::uint8_clamped_array => "u8",
        sys::TypedarrayType::int16_array => "i16",
        sys::TypedarrayType::uint16_array => "u16",
        sys::TypedarrayType::int32_array => "i32",
        sys::TypedarrayType::uint32_array => "u32",
        sys::TypedarrayType::float32_array => "f32",
        sys::TypedarrayType::float64_array => "f64",
        sys::TypedarrayType::bigint64_array => "i64",
        sys::TypedarrayType::biguint64_array => "u64",
        _ => "?",
    };
    let len = n * element_size(t);
    Ok((name, if len == 0 || data.is_null() { &[] } else { unsafe { std::slice::from_raw_parts(data.cast(), len) } }))
}

// ------------------------------------------------------------------ making values

pub fn global(env: Env) -> R<Val> {
    let mut g = ptr::null_mut();
    ok(unsafe { sys::napi_get_global(env, &mut g) }, "global")?;
    Ok(g)
}

pub fn null(env: Env) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_get_null(env, &mut v) }, "null")?;
    Ok(v)
}

pub fn undefined(env: Env) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_get_undefined(env, &mut v) }, "undefined")?;
    Ok(v)
}

pub fn boolean(env: Env, b: bool) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_get_boolean(env, b, &mut v) }, "boolean")?;
    Ok(v)
}

pub fn number(env: Env, f: f64) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_double(env, f, &mut v) }, "double")?;
    Ok(v)
}

pub fn big_i128(env: Env, i: i128) -> R<Val> {
    if let Ok(x) = i64::try_from(i) {
        let mut v = ptr::null_mut();
        ok(unsafe { sys::napi_create_bigint_int64(env, x, &mut v) }, "bigint")?;
        return Ok(v);
    }
    let mag = i.unsigned_abs();
    big_words(env, i < 0, &[mag as u64, (mag >> 64) as u64])
}

pub fn big_u128(env: Env, u: u128) -> R<Val> {
    if let Ok(x) = u64::try_from(u) {
        let mut v = ptr::null_mut();
        ok(unsafe { sys::napi_create_bigint_uint64(env, x, &mut v) }, "bigint")?;
        return Ok(v);
    }
    big_words(env, false, &[u as u64, (u >> 64) as u64])
}

pub fn big_words(env: Env, neg: bool, words: &[u64]) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_bigint_words(env, neg as i32, words.len(), words.as_ptr(), &mut v) }, "bigint words")?;
    Ok(v)
}

pub fn str_val(env: Env, s: &str) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v) }, "string")?;
    Ok(v)
}

/// A string from bytes that may not be UTF-8 (invalid sequences become U+FFFD).
pub fn bytes_str(env: Env, b: &[u8]) -> R<Val> {
    match std::str::from_utf8(b) {
        Ok(s) => str_val(env, s),
        Err(_) => str_val(env, &String::from_utf8_lossy(b)),
    }
}

pub fn latin1(env: Env, b: &[u8]) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_string_latin1(env, b.as_ptr().cast(), b.len() as isize, &mut v) }, "latin1 string")?;
    Ok(v)
}

pub fn utf16(env: Env, b: &[u16]) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_string_utf16(env, b.as_ptr(), b.len() as isize, &mut v) }, "utf16 string")?;
    Ok(v)
}

pub fn date(env: Env, ms: f64) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_date(env, ms, &mut v) }, "date")?;
    Ok(v)
}

pub fn object(env: Env) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_object(env, &mut v) }, "object")?;
    Ok(v)
}

pub fn set(env: Env, obj: Val, name: &str, v: Val) -> R<()> {
    let key = str_val(env, name)?;
    ok(unsafe { sys::napi_set_property(env, obj, key, v) }, "set_property")
}

pub fn array(env: Env, n: usize) -> R<Val> {
    let mut v = ptr::null_mut();
    ok(unsafe { sys::napi_create_array_with_length(env, n, &mut v) }, "array")?;
    Ok(v)
}

pub fn push(env: Env, arr: Val, i: u32, v: Val) -> R<()> {
    ok(unsafe { sys::napi_set_element(env, arr, i, v) }, "set_element")
}

/// `new Map(entries)`.
pub fn new_map(env: Env, pairs: &[(Val, Val)]) -> R<Val> {
    let ctor = named(env, global(env)?, "Map")?;
    let mut m = ptr::null_mut();
    ok(unsafe { sys::napi_new_instance(env, ctor, 0, ptr::null(), &mut m) }, "new Map")?;
    let setter = named(env, m, "set")?;
    for (k, v) in pairs {
        let args = [*k, *v];
        let mut r = ptr::null_mut();
        ok(unsafe { sys::napi_call_function(env, m, setter, 2, args.as_ptr(), &mut r) }, "Map.set")?;
    }
    Ok(m)
}

/// A Buffer holding a copy of `b`.
pub fn buffer_copy(env: Env, b: &[u8]) -> R<Val> {
    let mut v = ptr::null_mut();
    let mut data = ptr::null_mut();
    ok(unsafe { sys::napi_create_buffer_copy(env, b.len(), b.as_ptr().cast(), &mut data, &mut v) }, "buffer copy")?;
    Ok(v)
}

// ------------------------------------------------------------------ buffers handed over

unsafe extern "C" fn drop_vec<T>(env: Env, _data: *mut std::ffi::c_void, hint: *mut std::ffi::c_void) {
    let v: Box<Vec<T>> = unsafe { Box::from_raw(hint.cast()) };
    let bytes = (v.capacity() * std::mem::size_of::<T>()) as i64;
    drop(v);
    let mut now = 0i64;
    unsafe { sys::napi_adjust_external_memory(env, -bytes, &mut now) };
}

/// A typed array over `v`'s memory: no copy; the `Vec` is freed when the array is collected, and
/// V8 is told of its size (`napi_adjust_external_memory`), so that a stream's garbage buffers
/// make it collect as if they were its own (without that, a W1 stream grew by gigabytes).
pub fn typed_vec<T: Copy + 'static>(env: Env, v: Vec<T>, t: sys::napi_typedarray_type) -> R<Val> {
    let len = v.len();
    let mut ab = ptr::null_mut();
    if len == 0 {
        ok(unsafe { sys::napi_create_arraybuffer(env, 0, ptr::null_mut(), &mut ab) }, "arraybuffer")?;
    } else {
        let bytes = v.capacity() * std::mem::size_of::<T>();
        let mut boxed = Box::new(v);
        let data = boxed.as_mut_ptr().cast::<std::ffi::c_void>();
        let hint = Box::into_raw(boxed);
        let status = unsafe {
            sys::napi_create_external_arraybuffer(env, data, len * std::mem::size_of::<T>(), Some(drop_vec::<T>), hint.cast(), &mut ab)
        };
        if status != sys::Status::napi_ok {
            // External buffers not allowed (a V8 sandbox): copy into a buffer of V8's own.
            let v = unsafe { Box::from_raw(hint) };
            let mut dst = ptr::null_mut();
            ok(unsafe { sys::napi_create_arraybuffer(env, len * std::mem::size_of::<T>(), &mut dst, &mut ab) }, "arraybuffer")?;
            unsafe { ptr::copy_nonoverlapping(v.as_ptr().cast::<u8>(), dst.cast::<u8>(), len * std::mem::size_of::<T>()) };
        } else {
            let mut now = 0i64;
            unsafe { sys::napi_adjust_external_memory(env, bytes as i64, &mut now) };
        }
    }
    let mut out = ptr::null_mut();
    ok(unsafe { sys::napi_create_typedarray(env, t, len, ab, 0, &mut out) }, "typedarray")?;
    Ok(out)
}

/// A Buffer over `v`'s memory (no copy), as [`typed_vec`].
pub fn buffer_vec(env: Env, v: Vec<u8>) -> R<Val> {
    let len = v.len();
    if len == 0 {
        return buffer_copy(env, &[]);
    }
    let bytes = v.capacity();
    let mut boxed = Box::new(v);
    let data = boxed.as_mut_ptr().cast::<std::ffi::c_void>();
    let hint = Box::into_raw(boxed);
    let mut out = ptr::null_mut();
    let status = unsafe { sys::napi_create_external_buffer(env, len, data, Some(drop_vec::<u8>), hint.cast(), &mut out) };
    if status != sys::Status::napi_ok {
        let v = unsafe { Box::from_raw(hint) };
        return buffer_copy(env, &v);
    }
    let mut now = 0i64;
    unsafe { sys::napi_adjust_external_memory(env, bytes as i64, &mut now) };
    Ok(out)
}

/// What an external ArrayBuffer keeps alive, and the bytes V8 was told of.
struct Kept<O> {
    _owner: O,
    bytes: i64,
}

unsafe extern "C" fn drop_kept<O>(env: Env, _data: *mut std::ffi::c_void, hint: *mut std::ffi::c_void) {
    let k: Box<Kept<O>> = unsafe { Box::from_raw(hint.cast()) };
    let bytes = k.bytes;
    drop(k);
    let mut now = 0i64;
    unsafe { sys::napi_adjust_external_memory(env, -bytes, &mut now) };
}

/// An ArrayBuffer over `bytes` (no copy), kept valid by `owner`, which is dropped when the
/// buffer is collected; V8 is told of its size as in [`typed_vec`].
///
/// # Safety
/// `bytes` must stay valid and unmoved for as long as `owner` lives.
pub unsafe fn external_arraybuffer<O: Send + 'static>(env: Env, owner: O, bytes: &[u8]) -> R<Val> {
    let mut ab = ptr::null_mut();
    if bytes.is_empty() {
        ok(unsafe { sys::napi_create_arraybuffer(env, 0, ptr::null_mut(), &mut ab) }, "arraybuffer")?;
        return Ok(ab);
    }
    let hint = Box::into_raw(Box::new(Kept { _owner: owner, bytes: bytes.len() as i64 }));
    let data = bytes.as_ptr().cast_mut().cast::<std::ffi::c_void>();
    let status = unsafe { sys::napi_create_external_arraybuffer(env, data, bytes.len(), Some(drop_kept::<O>), hint.cast(), &mut ab) };
    if status != sys::Status::napi_ok {
        // External buffers not allowed (a V8 sandbox): a copy in a buffer of V8's own.
        let mut dst = ptr::null_mut();
        let made = ok(unsafe { sys::napi_create_arraybuffer(env, bytes.len(), &mut dst, &mut ab) }, "arraybuffer");
        if made.is_ok() {
            unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), dst.cast::<u8>(), bytes.len()) };
        }
        drop(unsafe { Box::from_raw(hint) });
        return made.map(|_| ab);
    }
    let mut now = 0i64;
    unsafe { sys::napi_adjust_external_memory(env, bytes.len() as i64, &mut now) };
    Ok(ab)
}

// ------------------------------------------------------------------ classes of the TS layer

thread_local! {
    /// `PreciseDate` (lib/dates.ts) of this thread's environment, registered at load.
    static PRECISE_DATE: std::cell::Cell<sys::napi_ref> = const { std::cell::Cell::new(ptr::null_mut()) };
}

/// Keep `ctor` (the TS layer's `PreciseDate`) for [`precise_date`].
pub fn register_precise_date(env: Env, ctor: Val) -> R<()> {
    let mut r = ptr::null_mut();
    ok(unsafe { sys::napi_create_reference(env, ctor, 1, &mut r) }, "reference")?;
    let old = PRECISE_DATE.with(|p| p.replace(r));
    if !old.is_null() {
        unsafe { sys::napi_delete_reference(env, old) };
    }
    Ok(())
}

/// `new PreciseDate(ms, sub)`: milliseconds since the epoch and nanoseconds past them (a plain
/// `Date` when no class is registered).
pub fn precise_date(env: Env, ms: f64, sub: u32) -> R<Val> {
    let r = PRECISE_DATE.with(|p| p.get());
    if r.is_null() {
        return date(env, ms);
    }
    let mut ctor = ptr::null_mut();
    ok(unsafe { sys::napi_get_reference_value(env, r, &mut ctor) }, "reference value")?;
    let args = [number(env, ms)?, number(env, sub as f64)?];
    let mut out = ptr::null_mut();
    ok(unsafe { sys::napi_new_instance(env, ctor, 2, args.as_ptr(), &mut out) }, "new PreciseDate")?;
    Ok(out)
}
