#![cfg_attr(not(test), deny(clippy::indexing_slicing, clippy::arithmetic_side_effects))]
//! Text input (TSV, CSV, their `WithNames` and `WithNamesAndTypes` forms, JSONEachRow) parsed
//! by the target columns' types into blocks, block by block: memory holds one block's text, its values and
//! the block being built. A value that does not parse is an error naming the line and the
//! column; nothing of its block is returned.

use super::parse::{self, Ctx};
use super::TextFormat;
use crate::io::{BlockLimits, Source};
use bumpalo::Bump;
use chwire_proto::column::ValuesError;
use chwire_proto::{Block, DataType, Value};
use jiff::tz::TimeZone;
use std::io::Read;

/// A row longer than this is an error (memory stays bounded).
const MAX_ROW_BYTES: usize = 256 << 20;

/// Blocks from text input (TSV, CSV, their `WithNames`/`WithNamesAndTypes` forms,
/// JSONEachRow), parsed by the target columns' types: those given to [`Source::bind`], or
/// those a `...WithNamesAndTypes` header declares.
pub struct TextSource {
    format: TextFormat,
    input: Box<dyn Read>,
    /// Bytes read and not yet consumed; starts at a row boundary.
    buf: Vec<u8>,
    eof: bool,
    /// The line the next row starts on (1-based).
    line: u64,
    /// Data rows to skip before the first block.
    skip: u64,
    /// The names line, once read (`...WithNames`).
    names: Option<Vec<String>>,
    /// The types line, once read (`...WithNamesAndTypes`).
    types: Option<Vec<String>>,
    names_read: bool,
    target: Option<Vec<(String, DataType)>>,
    /// For each input field, the target column it goes to.
    fields: Vec<usize>,
    tz: TimeZone,
    limits: BlockLimits,
    bump: Bump,
    /// JSONEachRow: members naming no column are left out.
    skip_unknown: bool,
}

/// The input without a leading UTF-8 byte order mark, which ClickHouse skips in text formats
/// (editors and Windows tools write one; it would be part of the first value or name).
struct SkipBom {
    inner: Box<dyn Read>,
    /// The first bytes read when they are no mark, handed out before the rest.
    head: Vec<u8>,
    checked: bool,
}

impl Read for SkipBom {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.checked {
            self.checked = true;
            let mut head = [0u8; 3];
            let mut n = 0;
            while let Some(free) = head.get_mut(n..).filter(|f| !f.is_empty()) {
                match self.inner.read(free)? {
                    0 => break,
                    k => n = n.saturating_add(k),
                }
            }
            let head = head.get(..n).unwrap_or_default();
            if head != b"\xEF\xBB\xBF" {
                self.head = head.to_vec();
            }
        }
        if !self.head.is_empty() {
            let k = buf.len().min(self.head.len());
            if let (Some(to), Some(from)) = (buf.get_mut(..k), self.head.get(..k)) {
                to.copy_from_slice(from);
            }
            self.head.drain(..k);
            return Ok(k);
        }
        self.inner.read(buf)
    }
}

/// One row of the input: its bytes in the buffer and the line it starts on.
struct RowSpan {
    start: usize,
    end: usize,
    line: u64,
}

impl TextSource {
    /// A reader of `format` from `input`: blocks of at most `limits`; DateTime columns without
    /// a zone of their own are read in `tz` (UTC when `None` or unknown).
    pub fn new(format: TextFormat, input: Box<dyn Read>, tz: Option<&str>, limits: BlockLimits) -> TextSource {
        let tz = tz.and_then(|n| TimeZone::get(n).ok()).unwrap_or(TimeZone::UTC);
        TextSource {
            format,
            input: Box::new(SkipBom { inner: input, head: Vec::new(), checked: false }),
            buf: Vec::new(),
            eof: false,
            line: 1,
            skip: 0,
            names: None,
            types: None,
            names_read: false,
            target: None,
            fields: Vec::new(),
            tz,
            limits,
            bump: Bump::new(),
            skip_unknown: false,
        }
    }

    /// `input_format_skip_unknown_fields` for JSONEachRow: members naming no column of the
    /// target are left out instead of being an error.
    pub fn skip_unknown_fields(mut self, on: bool) -> TextSource {
        self.skip_unknown = on;
        self
    }

    fn csv(&self) -> bool {
        self.format.csv()
    }

    fn err(&self, line: u64, what: impl std::fmt::Display) -> crate::Error {
        crate::Error::invalid_data(format!("{} input, line {line}: {what}", self.format))
    }

    /// The end of the row starting at `start` (the index of its newline, or the end of the
    /// input), reading more input as needed; `None` at the end of the input.
    fn row_end(&mut self, start: usize) -> crate::Result<Option<usize>> {
        // CSV: a quote opens a quoted field only at the field's start (as `split_fields` reads
        // it; elsewhere it is a character of the field, as ClickHouse reads `12" pipe`), and a
        // newline inside a quoted field belongs to the field. The state carries over when
        // more input is read.
        let (mut from, mut quoted, mut field_start, mut closed) = (start, false, true, false);
        loop {
            let hay = self.buf.get(from..).unwrap_or_default();
            let found = if self.csv() {
                let mut hit = None;
                for (i, &b) in hay.iter().enumerate() {
                    if quoted {
                        if b == b'"' {
                            (quoted, closed) = (false, true);
                        }
                        continue;
                    }
                    if closed && b == b'"' {
                        // `""` inside a quoted field: one quote, the field goes on.
                        (quoted, closed) = (true, false);
                        continue;
                    }
                    closed = false;
                    match b {
                        b'"' if field_start => (quoted, field_start) = (true, false),
                        b' ' | b'\t' if field_start => {} // before the field: not part of it
                        b',' => field_start = true,
                        b'\n' => {
                            hit = Some(i);
                            break;
                        }
                        _ => field_start = false,
                    }
                }
                hit
            } else {
                memchr::memchr(b'\n', hay)
            };
            if let Some(i) = found {
                let at = from.saturating_add(i);
                // TSV: a newline after an odd number of backslashes is an escaped one, part of
                // the field (ClickHouse reads `\` + newline as a newline).
                if !self.csv() && self.format != TextFormat::Jsonl {
                    let before = self.buf.get(start..at).unwrap_or_default();
                    let slashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
                    if slashes % 2 == 1 {
                        from = at.saturating_add(1);
                        continue;
                    }
                }
                return Ok(Some(at));
            }
            from = self.buf.len();
            if self.eof {
                return Ok((start < self.buf.len()).then_some(self.buf.len()));
            }
            if self.buf.len().saturating_sub(start) > MAX_ROW_BYTES {
                return Err(self.err(self.line, format!("a row longer than {} MiB", MAX_ROW_BYTES >> 20)));
            }
            let old = self.buf.len();
            self.buf.resize(old.saturating_add(1 << 20), 0);
            let n = match self.buf.get_mut(old..) {
                Some(free) => self.input.read(free)?,
                None => 0,
            };
            self.buf.truncate(old.saturating_add(n));
            self.eof = n == 0;
        }
    }

    /// Up to `max` rows (and about the byte limit) from the start of the buffer, and where
    /// the next row starts.
    fn take_rows(&mut self, max: usize) -> crate::Result<(Vec<RowSpan>, usize)> {
        let (mut rows, mut pos) = (Vec::new(), 0);
        while rows.len() < max && pos < self.limits.bytes {
            let Some(mut end) = self.row_end(pos)? else { break };
            let line = self.line;
            let text = self.buf.get(pos..end).unwrap_or_default();
            self.line = self.line.saturating_add(1).saturating_add(memchr::memchr_iter(b'\n', text).count() as u64);
            let start = pos;
            pos = end.saturating_add(1).min(self.buf.len());
            if end > start && text.last() == Some(&b'\r') {
                end = end.saturating_sub(1);
            }
            // Blank lines separate nothing in JSONEachRow; elsewhere they are rows.
            if self.format == TextFormat::Jsonl && self.buf.get(start..end).unwrap_or_default().iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            rows.push(RowSpan { start, end, line });
        }
        Ok((rows, pos))
    }

    fn read_names(&mut self) -> crate::Result<()> {
        if self.names_read {
            return Ok(());
        }
        self.names_read = true;
        if !self.format.names_line() {
            return Ok(());
        }
        self.names = self.header_line()?;
        if self.format.types_line() && self.names.is_some() {
            self.types = self.header_line()?;
            if self.types.is_none() {
                return Err(self.err(2, "the names line is not followed by a types line"));
            }
            let (names, types) = (self.names.as_ref().map_or(0, Vec::len), self.types.as_ref().map_or(0, Vec::len));
            if names != types {
                return Err(self.err(2, format!("{types} types for {names} names")));
            }
        }
        Ok(())
    }

    /// The next line's fields as text (a header line: names or types).
    fn header_line(&mut self) -> crate::Result<Option<Vec<String>>> {
        let (rows, next) = self.take_rows(1)?;
        let Some(row) = rows.first() else { return Ok(None) };
        let bump = Bump::new();
        let fields = split_fields(self.buf.get(row.start..row.end).unwrap_or_default(), self.csv(), &bump)
            .map_err(|e| self.err(row.line, e))?
            .into_iter()
            .map(|f| String::from_utf8_lossy(if self.csv() { f.text } else { parse::unescape(f.text, &bump) }).into_owned())
            .collect();
        self.buf.drain(..next);
        Ok(Some(fields))
    }

    /// The columns a `...WithNamesAndTypes` header declares (for a conversion without
    /// `--structure`): each field a column of the type its types line gives.
    fn declared_columns(&self) -> Option<crate::Result<Vec<(String, DataType)>>> {
        let (names, types) = (self.names.as_ref()?, self.types.as_ref()?);
        Some(
            names
                .iter()
                .zip(types)
                .map(|(n, t)| match DataType::parse(t) {
                    Ok(DataType::Unsupported(name)) => Err(self.err(2, format!("column {n}: no type {name} that chwire knows"))),
                    Ok(ty) => Ok((n.clone(), ty)),
                    Err(e) => Err(self.err(2, format!("column {n}: {e}"))),
                })
                .collect(),
        )
    }

    /// The types line against the fields it describes (`expected`: each field's name and its
    /// target column's type; in CSV a tuple element's field its element's type), as ClickHouse
    /// checks with `input_format_with_types_use_header`.
    fn check_types(&self, expected: &[(String, DataType)]) -> crate::Result<()> {
        let Some(types) = &self.types else { return Ok(()) };
        for ((name, want), given) in expected.iter().zip(types) {
            let given_type = DataType::parse(given).map_err(|e| self.err(2, format!("column {name}: {e}")))?;
            if given_type.to_string() != want.to_string() {
                return Err(self.err(2, format!("column {name}: the types line says {given}, the target column is {want}")));
            }
        }
        Ok(())
    }
}

/// One field of a TSV or CSV row: its text (CSV: unquoted) and whether it was quoted.
struct Field<'b> {
    text: &'b [u8],
    quoted: bool,
}

/// A row's fields: TSV splits at tabs (escapes stay, for the type's parser); CSV unquotes.
fn split_fields<'b>(row: &'b [u8], csv: bool, bump: &'b Bump) -> Result<Vec<Field<'b>>, String> {
    if !csv {
        return Ok(row.split(|&b| b == b'\t').map(|text| Field { text, quoted: false }).collect());
    }
    let mut out = Vec::new();
    let mut i = 0;
    // Spaces and tabs around a field are not part of it, as ClickHouse reads CSV
    // (`input_format_csv_trim_whitespaces`, on by default; 18.16 trims too).
    let blank = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t'));
    loop {
        while blank(row.get(i)) {
            i = i.saturating_add(1);
        }
        if row.get(i) == Some(&b'"') {
            // Indexes stay within the row (at most one past its end): the sums cannot wrap.
            let (mut j, mut escaped) = (i.saturating_add(1), false);
            loop {
                match row.get(j) {
                    None => return Err("a quoted CSV field does not end".into()),
                    Some(b'"') if row.get(j.saturating_add(1)) == Some(&b'"') => {
                        escaped = true;
                        j = j.saturating_add(2);
                    }
                    Some(b'"') => break,
                    Some(_) => j = j.saturating_add(1),
                }
            }
            let raw = row.get(i.saturating_add(1)..j).unwrap_or_default();
            let text = if escaped {
                // `""` stands for one quote.
                let mut v = bumpalo::collections::Vec::with_capacity_in(raw.len(), bump);
                let mut rest = raw;
                while let Some((&b, tail)) = rest.split_first() {
                    v.push(b);
                    rest = if b == b'"' { tail.get(1..).unwrap_or_default() } else { tail };
                }
                v.into_bump_slice()
            } else {
                raw
            };
            out.push(Field { text, quoted: true });
            i = j.saturating_add(1);
            while blank(row.get(i)) {
                i = i.saturating_add(1);
            }
            match row.get(i) {
                None => return Ok(out),
                Some(b',') => i = i.saturating_add(1),
                Some(_) => return Err(format!("unexpected text after a quoted field at byte {i}")),
            }
        } else {
            let rest = row.get(i..).unwrap_or_default();
            let end = memchr::memchr(b',', rest).map_or(row.len(), |k| i.saturating_add(k));
            let mut text = row.get(i..end).unwrap_or_default();
            while let Some(init) = text.strip_suffix(b" ").or_else(|| text.strip_suffix(b"\t")) {
                text = init;
            }
            out.push(Field { text, quoted: false });
            if end == row.len() {
                return Ok(out);
            }
            i = end.saturating_add(1);
        }
    }
}

/// How many CSV fields a column takes: a tuple's elements are fields of their own.
fn csv_width(ty: &DataType) -> usize {
    // An empty tuple is one (empty) field, as ClickHouse writes it.
    super::writer::csv_tuple(ty).map_or(1, |items| items.iter().map(|(_, t)| csv_width(t)).sum())
}

/// A value of `ty` from the next fields of a CSV or TSV row.
fn field_value<'b>(ty: &DataType, fields: &mut std::slice::Iter<'_, Field<'b>>, csv: bool, cx: &Ctx<'b>) -> Result<Value<'b>, String> {
    if let (true, DataType::Tuple(items)) = (csv, ty) {
        if items.is_empty() {
            let f = fields.next().ok_or("missing field")?;
            if !f.text.is_empty() {
                return Err("an empty tuple's field must be empty".into());
            }
            return Ok(Value::Tuple(Vec::new()));
        }
    }
    // A tuple (or a Point) spans fields of its own in CSV; its quoted text in one field is
    // refused, as the server refuses it.
    if let (true, Some(items)) = (csv, super::writer::csv_tuple(ty)) {
        let values = items.iter().map(|(_, t)| field_value(t, fields, csv, cx).map(|v| (None, v))).collect::<Result<_, _>>()?;
        return Ok(Value::Tuple(values));
    }
    let f = fields.next().ok_or("missing field")?;
    if !f.quoted && f.text == b"\\N" {
        return Ok(Value::Null);
    }
    if csv {
        // An empty unquoted field is the column's default (`input_format_csv_empty_as_default`):
        // NULL for every Nullable, strings included (a quoted "" is the empty string).
        if f.text.is_empty() && !f.quoted && !matches!(ty, DataType::String | DataType::FixedString(_)) {
            return parse::default_value(ty);
        }
        if f.text.is_empty() && f.quoted {
            if let Some(number) = integer_or_decimal(ty) {
                return parse::default_value(number);
            }
        }
        return parse::scalar(ty, f.text, cx);
    }
    // TSV: composites keep their quoted text; scalars are unescaped first.
    if parse::is_composite(ty) || !f.text.contains(&b'\\') {
        parse::scalar(ty, f.text, cx)
    } else {
        parse::scalar(ty, parse::unescape(f.text, cx.bump), cx)
    }
}

/// The integer or decimal type under `ty`'s LowCardinality and Nullable, if that is what it
/// is: ClickHouse 26.9 reads a quoted empty CSV field of those as 0, even for a Nullable (its
/// number parser reads nothing as zero), and refuses it for every other type but strings.
fn integer_or_decimal(ty: &DataType) -> Option<&DataType> {
    use DataType as T;
    let ty = match ty {
        T::LowCardinality(t) => t,
        t => t,
    };
    let ty = match ty {
        T::Nullable(t) => t,
        t => t,
    };
    (ty.is_integer() || matches!(ty, T::Decimal { .. })).then_some(ty)
}

impl Source for TextSource {
    fn names(&mut self) -> crate::Result<Option<Vec<String>>> {
        self.read_names()?;
        Ok(self.names.clone())
    }

    fn bind(&mut self, target: &[(String, DataType)]) -> crate::Result<()> {
        self.read_names()?;
        self.fields = match &self.names {
            Some(names) => {
                let fields = fields_of_names(self.format, names, target)?;
                self.check_types(&fields.iter().flat_map(|(_, f)| f.iter().cloned()).collect::<Vec<_>>())?;
                fields.into_iter().map(|(c, _)| c).collect()
            }
            None => (0..target.len()).collect(),
        };
        self.target = Some(target.to_vec());
        Ok(())
    }

    fn skip_rows(&mut self, rows: u64) -> crate::Result<()> {
        self.skip = rows;
        Ok(())
    }

    fn next_block(&mut self) -> crate::Result<Option<Block>> {
        self.read_names()?;
        if self.target.is_none() {
            if let Some(columns) = self.declared_columns() {
                self.bind(&columns?)?;
            }
        }
        let Some(target) = self.target.take() else {
            return Err(crate::Error::options(format!("{} input needs the columns' types (convert: --structure)", self.format)));
        };
        let res = self.block(&target);
        self.target = Some(target);
        res
    }

    fn columns(&self) -> Option<Vec<(String, DataType)>> {
        self.target.clone()
    }
}

impl TextSource {
    fn block(&mut self, target: &[(String, DataType)]) -> crate::Result<Option<Block>> {
        while self.skip > 0 {
            let (rows, next) = self.take_rows(usize::try_from(self.skip).unwrap_or(usize::MAX))?;
            if rows.is_empty() {
                self.skip = 0;
                return Ok(None);
            }
            self.skip = self.skip.saturating_sub(rows.len() as u64);
            self.buf.drain(..next);
        }
        self.bump.reset();
        let (spans, next) = self.take_rows(self.limits.rows)?;
        if spans.is_empty() {
            return Ok(None);
        }
        let cx = Ctx::new(&self.bump, self.tz.clone());
        let mut rows: Vec<Vec<Value<'_>>> = Vec::with_capacity(spans.len());
        for span in &spans {
            let text = self.buf.get(span.start..span.end).unwrap_or_default();
            let row = self.row(text, target, &cx).map_err(|e| self.err(span.line, e))?;
            rows.push(row);
        }
        let cols: Vec<(&str, DataType)> = target.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
        let block =
            chwire_proto::column::block_from_values(&cols, rows.iter().map(Vec::as_slice)).map_err(|e| self.value_error(e, &spans))?;
        drop(rows);
        self.buf.drain(..next);
        Ok(Some(block))
    }

    /// A value that parsed but does not fit its column (a number out of range, an unknown
    /// enum name): the builder names the row within the block, which becomes the row's line.
    fn value_error(&self, e: ValuesError, spans: &[RowSpan]) -> crate::Error {
        match &e {
            ValuesError::Value { row, column, ty, message } => match spans.get(*row) {
                Some(span) => self.err(span.line, format!("column `{column}` ({ty}): {message}")),
                None => e.into(),
            },
            _ => e.into(),
        }
    }

    /// One row's values, in target order.
    fn row<'b>(&self, text: &'b [u8], target: &[(String, DataType)], cx: &Ctx<'b>) -> Result<Vec<Value<'b>>, String> {
        let mut values: Vec<Option<Value<'b>>> = vec![None; target.len()];
        if self.format == TextFormat::Jsonl {
            // ClickHouse takes any bytes in a String; serde_json only UTF-8 (see json.rs).
            let (text, marked) = match std::str::from_utf8(text) {
                Ok(t) => (t, false),
                Err(_) => (jsontext::mark_invalid_bytes(text, cx)?, true),
            };
            for (key, raw) in jsontext::object(text.trim(), cx)? {
                let Some((slot, (_, ty))) = values.iter_mut().zip(target).find(|(_, (n, _))| n == key) else {
                    if self.skip_unknown {
                        continue;
                    }
                    return Err(format!("no column {key:?} in the target (input_format_skip_unknown_fields=1 leaves such members out)"));
                };
                if slot.is_some() {
                    // As ClickHouse: which of the two was meant is not for chwire to guess.
                    return Err(format!("column {key:?} appears twice in the object"));
                }
                *slot = Some(json::value(ty, raw, marked, cx).map_err(|e| format!("column `{key}` ({ty}): {e}: {}", short(raw.get())))?);
            }
        } else {
            let fields = split_fields(text, self.csv(), cx.bump)?;
            let width: usize = if self.csv() {
                self.fields.iter().filter_map(|&i| target.get(i)).map(|(_, ty)| csv_width(ty)).fold(0, usize::saturating_add)
            } else {
                self.fields.len()
            };
            if fields.len() != width {
                return Err(format!("{} fields, expected {width}", fields.len()));
            }
            let mut it = fields.iter();
            for &i in &self.fields {
                // `fields` index the target they were made for (`columns_of_names`).
                let (Some((name, ty)), Some(slot)) = (target.get(i), values.get_mut(i)) else {
                    return Err(format!("no column {i} in the target"));
                };
                let before = it.as_slice();
                let v = field_value(ty, &mut it, self.csv(), cx).map_err(|e| {
                    let text = before.first().map(|f| String::from_utf8_lossy(f.text).into_owned()).unwrap_or_default();
                    format!("column `{name}` ({ty}): cannot parse {}: {e}", short(&text))
                })?;
                *slot = Some(v);
            }
        }
        values
            .into_iter()
            .zip(target)
            .map(|(v, (name, ty))| match v {
                Some(v) => Ok(v),
                None => parse::default_value(ty).map_err(|e| format!("column `{name}` is missing: {e}")),
            })
            .collect()
    }
}

/// A value's text for an error message, cut at 80 characters.
fn short(s: &str) -> String {
    let cut: String = s.chars().take(80).collect();
    if cut.len() < s.len() {
        format!("{cut:?}...")
    } else {
        format!("{cut:?}")
    }
}

/// The target column of each column a names line names. In CSV a Tuple column spans several
/// names (`t.1`, `t.2` or `t.a`, `t.b`: [`super::writer::csv_fields`]), as ClickHouse 26.9
/// writes CSVWithNames.
pub fn columns_of_names(format: TextFormat, names: &[String], target: &[(String, DataType)]) -> crate::Result<Vec<usize>> {
    Ok(fields_of_names(format, names, target)?.into_iter().map(|(c, _)| c).collect())
}

/// A target column's index and the fields (names and types) it takes in the text: itself, or
/// in CSV a tuple's element fields ([`super::writer::csv_fields`]).
type Span = (usize, Vec<(String, DataType)>);

/// As [`columns_of_names`], with each column's [`Span`].
fn fields_of_names(format: TextFormat, names: &[String], target: &[(String, DataType)]) -> crate::Result<Vec<Span>> {
    let csv = format.csv();
    let mut columns = Vec::new();
    let mut i = 0;
    while let Some(n) = names.get(i) {
        // A column of exactly this name first, then a tuple whose element fields start here.
        let exact = target.iter().enumerate().find(|(_, (t, _))| t == n).map(|(c, column)| (c, vec![column.clone()]));
        let spans = exact.or_else(|| {
            target.iter().enumerate().find_map(|(c, (t, ty))| {
                let parts = if csv { super::writer::csv_fields(t, ty) } else { return None };
                // (An empty tuple has no fields: it cannot be named.)
                let tuple = super::writer::csv_tuple(ty).is_some() && !parts.is_empty();
                let named = names.get(i..i.saturating_add(parts.len())).is_some_and(|given| given.iter().eq(parts.iter().map(|(p, _)| p)));
                (tuple && named).then_some((c, parts))
            })
        });
        let Some((c, fields)) = spans else {
            return Err(crate::Error::invalid_data(format!(
                "{format} input: no column {n:?} in {}",
                target.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
            )));
        };
        if columns.iter().any(|(seen, _)| *seen == c) {
            return Err(crate::Error::invalid_data(format!("{format} input: column {n:?} is named twice in the header")));
        }
        i = i.saturating_add(fields.len());
        columns.push((c, fields));
    }
    Ok(columns)
}

mod infer;
mod json;
mod jsontext;
#[cfg(test)]
mod tests;
