//! Elixir terms as JSON text, for JSON columns and `{p:JSON}` parameters: maps (string or atom
//! keys) as objects, lists and tuples as arrays, binaries as strings, integers of any width up
//! to 256 bits, floats, `true`/`false`/`nil`, `%Date{}` as its ISO text and `%Chwire.Decimal{}`
//! as a number. A JSON value read from ClickHouse (a map of path to value, dotted paths
//! included: ClickHouse splits keys at dots) is taken back as it came.

use crate::terms::{decode_list, deep, int_text, MAX_DEPTH};
use rustler::{Binary, Term, TermType};

/// The JSON text of `t`.
pub fn encode(t: Term<'_>) -> Result<String, String> {
    let mut out = String::new();
    write(t, &mut out, 0)?;
    Ok(out)
}

fn write(t: Term<'_>, out: &mut String, depth: u32) -> Result<(), String> {
    deep(|| write_here(t, out, depth))
}

fn write_here(t: Term<'_>, out: &mut String, depth: u32) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
    }
    match t.get_type() {
        TermType::Atom => match t.atom_to_string().unwrap_or_default().as_str() {
            "nil" => out.push_str("null"),
            "true" => out.push_str("true"),
            "false" => out.push_str("false"),
            a => return Err(format!("the atom :{a} has no JSON form")),
        },
        TermType::Integer => out.push_str(&int_text(t).ok_or("an integer beyond 256 bits has no JSON form here")?),
        TermType::Float => {
            let f: f64 = t.decode().map_err(|_| "bad float")?;
            // Debug prints the shortest text that reads back as f (1.5, 1e300): a JSON number.
            out.push_str(&format!("{f:?}"));
        }
        TermType::Binary => string(t.decode::<Binary<'_>>().map_err(|_| "bad binary")?.as_slice(), out)?,
        TermType::List => {
            let items: Vec<Term<'_>> = decode_list(t).map_err(|_| "an improper list has no JSON form")?;
            array(&items, out, depth)?;
        }
        TermType::Tuple => array(&rustler::types::tuple::get_tuple(t).map_err(|_| "bad tuple")?, out, depth)?,
        TermType::Map => {
            if let Some(name) = struct_name(t) {
                return special(t, &name, out);
            }
            out.push('{');
            for (i, (k, v)) in rustler::types::map::MapIterator::new(t).ok_or("bad map")?.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match k.get_type() {
                    TermType::Binary => string(k.decode::<Binary<'_>>().map_err(|_| "bad binary")?.as_slice(), out)?,
                    TermType::Atom => string(k.atom_to_string().map_err(|_| "bad atom")?.as_bytes(), out)?,
                    _ => return Err("a JSON object's keys are strings (or atoms)".into()),
                }
                out.push(':');
                write(v, out, depth + 1)?;
            }
            out.push('}');
        }
        other => return Err(format!("a {other:?} has no JSON form")),
    }
    Ok(())
}

fn array(items: &[Term<'_>], out: &mut String, depth: u32) -> Result<(), String> {
    out.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(*x, out, depth + 1)?;
    }
    out.push(']');
    Ok(())
}

fn struct_name(t: Term<'_>) -> Option<String> {
    t.map_get(crate::atoms::__struct__()).ok()?.atom_to_string().ok()
}

fn field<'a>(t: Term<'a>, name: &str) -> Result<Term<'a>, String> {
    let key = rustler::Atom::from_str(t.get_env(), name).map_err(|_| "bad atom")?;
    t.map_get(key).map_err(|_| format!("a struct without the field {name}"))
}

/// `%Date{}` as "YYYY-MM-DD" (ClickHouse infers a Date from it), `%Chwire.Decimal{}` as a
/// number; other structs have no JSON form of their own.
fn special(t: Term<'_>, name: &str, out: &mut String) -> Result<(), String> {
    let int = |f: &str| field(t, f).and_then(|v| v.decode::<i64>().map_err(|_| format!("the field {f} is not an integer")));
    match name {
        "Elixir.Date" => out.push_str(&format!("\"{:04}-{:02}-{:02}\"", int("year")?, int("month")?, int("day")?)),
        "Elixir.Chwire.Decimal" => {
            let coef = int_text(field(t, "coef")?).ok_or("the coefficient is no integer of up to 256 bits")?;
            let scale = usize::try_from(int("scale")?).map_err(|_| "a negative decimal scale")?;
            out.push_str(&decimal_text(&coef, scale));
        }
        other => {
            return Err(format!("a %{}{{}} has no JSON form (pass its text)", other.trim_start_matches("Elixir.")));
        }
    }
    Ok(())
}

/// `coef / 10^scale` as decimal text ("-1.25", "0.005").
pub fn decimal_text(coef: &str, scale: usize) -> String {
    let (sign, digits) = coef.strip_prefix('-').map_or(("", coef), |d| ("-", d));
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// A JSON string of `bytes` (UTF-8; quotes, backslashes and control characters escaped).
fn string(bytes: &[u8], out: &mut String) -> Result<(), String> {
    let s = std::str::from_utf8(bytes).map_err(|_| "a JSON string must be UTF-8")?;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}
