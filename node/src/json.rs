//! JSON text of JavaScript values, for JSON columns and `{p:JSON}` parameters.

use crate::error::{Error, Result};
use crate::js::{self, Env, Kind, Val};

/// JSON text of a JS value (for JSON columns and `{p:JSON}` parameters): `JSON.stringify`,
/// with bigints as their digits.
pub fn json_text(env: Env, v: Val) -> Result<String> {
    fn walk(env: Env, v: Val, out: &mut String, depth: u32) -> Result<()> {
        if depth > 128 {
            return Err(Error::Type("JSON nested deeper than 128 levels".into()));
        }
        match js::kind(env, v)? {
            Kind::Null | Kind::Undefined => out.push_str("null"),
            Kind::Boolean => out.push_str(if js::bool_of(env, v)? { "true" } else { "false" }),
            Kind::Number => {
                let f = js::f64_of(env, v)?;
                out.push_str(&if f.is_finite() { js::js_number_text(f) } else { "null".into() });
            }
            Kind::BigInt => out.push_str(&crate::params::scalar_text(env, v)?),
            Kind::String => out.push_str(&serde_json::Value::String(js::string(env, v)?).to_string()),
            Kind::Object if js::is_array(env, v)? => {
                out.push('[');
                for (i, x) in js::elements(env, v)?.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    walk(env, x, out, depth + 1)?;
                }
                out.push(']');
            }
            Kind::Object if js::is_date(env, v)? => {
                let ms = js::date_ms(env, v)?;
                out.push_str(&serde_json::Value::String(crate::params::scalar_text(env, js::number(env, ms)?)?).to_string());
            }
            Kind::Object => {
                let pairs = if js::is_map(env, v)? {
                    js::map_entries(env, v)?
                        .into_iter()
                        .map(|(k, x)| Ok((crate::params::scalar_text(env, k)?, x)))
                        .collect::<Result<Vec<_>>>()?
                } else {
                    js::entries(env, v)?
                };
                out.push('{');
                for (i, (k, x)) in pairs.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(k).to_string());
                    out.push(':');
                    walk(env, x, out, depth + 1)?;
                }
                out.push('}');
            }
            _ => return Err(Error::Type(format!("{} has no JSON form", js::describe(env, v)))),
        }
        Ok(())
    }
    let mut out = String::new();
    walk(env, v, &mut out, 0)?;
    Ok(out)
}
