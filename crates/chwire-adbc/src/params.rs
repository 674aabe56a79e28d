//! Bound parameters: rows of Arrow data given to `{name:Type}` placeholders, by name (the
//! fields name the placeholders) or by position (field i is the i-th placeholder of the SQL).
//!
//! Each column is converted to its placeholder's declared type with chwire-arrow's lossless
//! conversion (`batch_to_block`), and each value is rendered as ClickHouse's text formats print
//! it (chwire-text): the escaped TSV text for server-side parameters, the quoted literal for
//! servers that have none (18.16), where chwire binds `CAST(literal AS Type)`. No type rule of
//! its own here.

use crate::error::{invalid_arg, ChResult};
use adbc_core::error::Result;
use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema};
use chwire::{DataType, QueryParam, Value};
use chwire_text::{write_value, Style, TimeZone};
use std::sync::Arc;

/// One value: its parameter text and its SQL literal.
#[derive(Debug, Clone)]
pub struct TextParam {
    text: String,
    literal: String,
}

impl QueryParam for TextParam {
    fn param_text(&self) -> String {
        self.text.clone()
    }
    fn sql_literal(&self) -> String {
        self.literal.clone()
    }
}

pub type ParamSet = Vec<(String, TextParam)>;

fn render(v: &Value<'_>, style: Style) -> String {
    let mut out = Vec::new();
    write_value(&mut out, v, style, &TimeZone::UTC);
    String::from_utf8_lossy(&out).into_owned()
}

/// The SQL's placeholders, in order of first appearance, with their declared types.
pub fn placeholders(sql: &str) -> Vec<(String, String)> {
    chwire::placeholder_types(sql)
}

/// One parameter set per row of `batch`.
pub fn bind_rows(sql: &str, batch: &RecordBatch, by_name: Option<bool>) -> Result<Vec<ParamSet>> {
    let ph = placeholders(sql);
    let fields = batch.schema().fields().clone();
    let names_match = fields.iter().all(|f| ph.iter().any(|(n, _)| n == f.name()));
    let by_name = by_name.unwrap_or(names_match && !fields.is_empty());
    // (placeholder, its type, the column bound to it)
    let mut bound: Vec<(String, DataType, usize)> = Vec::new();
    if by_name {
        for (i, f) in fields.iter().enumerate() {
            let Some((n, t)) = ph.iter().find(|(n, _)| n == f.name()) else {
                let names: Vec<&str> = ph.iter().map(|(n, _)| n.as_str()).collect();
                return Err(invalid_arg(format!("parameter {:?} names no placeholder of the query (it has {names:?})", f.name())));
            };
            bound.push((n.clone(), parse(n, t)?, i));
        }
    } else {
        if fields.len() != ph.len() {
            return Err(invalid_arg(format!(
                "{} parameters bound by position for {} placeholders ({{name:Type}}) in the query",
                fields.len(),
                ph.len()
            )));
        }
        for (i, (n, t)) in ph.iter().enumerate() {
            bound.push((n.clone(), parse(n, t)?, i));
        }
    }
    if let Some((n, _, _)) = ph.iter().find(|(n, _)| !bound.iter().any(|(b, _, _)| b == n)).map(|(n, t)| (n, t, 0)) {
        return Err(invalid_arg(format!("no value bound for the query's placeholder {n:?}")));
    }
    // The bound columns renamed to their placeholders, converted to the declared types.
    let renamed = Schema::new(bound.iter().map(|(n, _, i)| Field::new(n, fields[*i].data_type().clone(), true)).collect::<Vec<_>>());
    let columns = bound.iter().map(|(_, _, i)| batch.column(*i).clone()).collect();
    let renamed = RecordBatch::try_new(Arc::new(renamed), columns)?;
    let target: Vec<(String, DataType)> = bound.iter().map(|(n, t, _)| (n.clone(), t.clone())).collect();
    let block = chwire_arrow::batch_to_block(&renamed, &target).ch()?;
    let mut rows = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        let mut set = Vec::with_capacity(target.len());
        for (name, col) in block.columns() {
            let v = col.value(r);
            let composite = matches!(v, Value::Array(_) | Value::Tuple(_) | Value::Map(_));
            let text = render(&v, if composite { Style::Quoted } else { Style::Tsv });
            set.push((name.clone(), TextParam { text, literal: render(&v, Style::Quoted) }));
        }
        rows.push(set);
    }
    Ok(rows)
}

fn parse(name: &str, ty: &str) -> Result<DataType> {
    DataType::parse(ty).map_err(|e| invalid_arg(format!("placeholder {name:?}: cannot read its type {ty:?}: {e}")))
}

/// The parameter schema of `sql`: one field per placeholder, of its declared type's Arrow
/// type (rich mapping), or null when chwire cannot read the type.
pub fn parameter_schema(sql: &str, opts: &chwire_arrow::ArrowOptions) -> Schema {
    let fields: Vec<Field> = placeholders(sql)
        .into_iter()
        .map(|(n, t)| match DataType::parse(&t).ok().and_then(|ty| chwire_arrow::field_for(&n, &ty, opts).ok()) {
            Some(f) => f,
            None => Field::new(n, arrow_schema::DataType::Null, true),
        })
        .collect();
    Schema::new(fields)
}
