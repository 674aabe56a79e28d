//! JSON text split and unescaped: strings (with the surrogate marks that stand for bytes that
//! are not UTF-8, see [`mark_invalid_bytes`]) and objects' members in their order. Shared by
//! the typed reader (json.rs) and the inference of Dynamic values (infer.rs).

use crate::text::parse::Ctx;
use serde_json::value::RawValue;
use std::fmt::Write;

/// How a byte that is not UTF-8 is written in a marked line: `\uDC` and two hex digits.
pub(super) const MARK: &str = "\\uDC";

/// `line` (not UTF-8) with each byte outside a UTF-8 character written `\uDCxx`, in the arena.
pub(super) fn mark_invalid_bytes<'b>(line: &[u8], cx: &Ctx<'b>) -> Result<&'b str, String> {
    if has_surrogate_escape(line) {
        return Err("not UTF-8 (and with surrogate escapes of its own)".into());
    }
    let mut out = String::with_capacity(line.len().saturating_add(16));
    for chunk in line.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "{MARK}{b:02X}"); // writing to a String cannot fail
        }
    }
    Ok(cx.bump.alloc_str(&out))
}

/// Whether `line` has a `\uD800`–`\uDFFF` escape (or what looks like one).
fn has_surrogate_escape(line: &[u8]) -> bool {
    line.windows(4).any(|w| matches!(w, [b'\\', b'u', b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F']))
}

/// The bytes of a JSON string of a marked line: the parts between marks through serde_json,
/// each mark as its byte.
fn unmark(text: &str) -> Result<Vec<u8>, String> {
    let inner = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).ok_or("not a JSON string")?;
    let mut out = Vec::with_capacity(inner.len());
    let mut rest = inner;
    loop {
        let (part, next) = match rest.find(MARK) {
            Some(i) => (rest.get(..i).unwrap_or_default(), rest.get(i.saturating_add(MARK.len())..)),
            None => (rest, None),
        };
        let s: String = serde_json::from_str(&format!("\"{part}\"")).map_err(|e| format!("not a JSON string: {e}"))?;
        out.extend_from_slice(s.as_bytes());
        let Some(next) = next else { return Ok(out) };
        let byte = next.get(..2).and_then(|h| u8::from_str_radix(h, 16).ok()).filter(|b| *b >= 0x80);
        out.push(byte.ok_or("not a JSON string: a lone surrogate escape")?);
        rest = next.get(2..).unwrap_or_default();
    }
}

/// A JSON string's content (borrowed when it has no escapes). In a `marked` line (see
/// [`mark_invalid_bytes`]), each `\uDC80`–`\uDCFF` is the byte it stands for.
pub(super) fn string<'b>(text: &'b str, marked: bool, cx: &Ctx<'b>) -> Result<&'b [u8], String> {
    if let Ok(s) = serde_json::from_str::<&'b str>(text) {
        return Ok(s.as_bytes());
    }
    if marked && text.contains(MARK) {
        return unmark(text).map(|b| &*cx.bump.alloc_slice_copy(&b));
    }
    let s: String = serde_json::from_str(text).map_err(|e| format!("not a JSON string: {e}"))?;
    Ok(cx.bump.alloc_slice_copy(s.as_bytes()))
}

/// A JSON object's members in order, keys unescaped into the arena.
pub(super) fn object<'b>(text: &'b str, cx: &Ctx<'b>) -> Result<Vec<(&'b str, &'b RawValue)>, String> {
    let members = chwire_arrow::json_members(text).map_err(|e| format!("not a JSON object: {e}"))?;
    Ok(members.into_iter().map(|(k, v)| (&*cx.bump.alloc_str(&k), v)).collect())
}
