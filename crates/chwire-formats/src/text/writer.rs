//! Text output of blocks: TSV, CSV, JSON lines and pretty tables, as ClickHouse prints them.

use chwire_proto::column::Value;
use chwire_proto::Block;
use chwire_text::{write_json_string, write_string, write_value, Style, TimeZone};
use std::io::{self, Write};

pub use super::TextFormat;

/// The CSV fields of a column, with their types: a Tuple's elements are fields of their own,
/// named `column.element` (by name, or 1-based position) and typed by element, nested tuples
/// further (a Point, a tuple of two Float64, too); a Nullable(Tuple) and an empty tuple are
/// one field (as ClickHouse 26.9 writes CSVWithNames and CSVWithNamesAndTypes).
pub fn csv_fields(name: &str, ty: &chwire_proto::DataType) -> Vec<(String, chwire_proto::DataType)> {
    match csv_tuple(ty) {
        Some(items) => items
            .iter()
            .enumerate()
            .flat_map(|(i, (el, t))| {
                let sub = el.clone().unwrap_or_else(|| (i + 1).to_string());
                csv_fields(&format!("{name}.{sub}"), t)
            })
            .collect(),
        None => vec![(name.to_string(), ty.clone())],
    }
}

/// The elements of a type CSV spreads over fields of their own: a non-empty Tuple, or a
/// type stored as one (Point). Arrays of them (Ring, Polygon) are one quoted field.
pub fn csv_tuple(ty: &chwire_proto::DataType) -> Option<Vec<(Option<String>, chwire_proto::DataType)>> {
    use chwire_proto::DataType as T;
    match ty {
        T::Tuple(items) if !items.is_empty() => Some(items.clone()),
        T::Geo(_) => match ty.storage() {
            Some(T::Tuple(items)) if !items.is_empty() => Some(items),
            _ => None,
        },
        _ => None,
    }
}

/// The header lines of a delimited format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Header {
    None,
    Names,
    NamesAndTypes,
}

impl TextFormat {
    /// A delimited format's separator, escaping style and header lines; `None` for the others.
    fn delimited(self) -> Option<(u8, Style, Header)> {
        Some(match self {
            TextFormat::Tsv => (b'\t', Style::Tsv, Header::None),
            TextFormat::TsvWithNames => (b'\t', Style::Tsv, Header::Names),
            TextFormat::TsvWithNamesAndTypes => (b'\t', Style::Tsv, Header::NamesAndTypes),
            TextFormat::Csv => (b',', Style::Csv, Header::None),
            TextFormat::CsvWithNames => (b',', Style::Csv, Header::Names),
            TextFormat::CsvWithNamesAndTypes => (b',', Style::Csv, Header::NamesAndTypes),
            TextFormat::Jsonl | TextFormat::Pretty => return None,
        })
    }
}

/// Rendered bytes are written out in chunks of about this size.
const CHUNK: usize = 1 << 16;

/// Renders blocks as text in one format (rows in chunks of about 64 KiB).
pub struct Writer {
    format: TextFormat,
    tz: TimeZone,
    wrote_header: bool,
    buf: Vec<u8>,
}

impl Writer {
    /// `server_tz` is used for DateTime columns without their own timezone.
    pub fn new(format: TextFormat, server_tz: Option<&str>) -> Writer {
        let tz = server_tz.and_then(|n| TimeZone::get(n).ok()).unwrap_or(TimeZone::UTC);
        Writer { format, tz, wrote_header: false, buf: Vec::with_capacity(1 << 16) }
    }

    /// Render a block and write it out, in chunks of about `CHUNK` bytes (rows are
    /// rendered into the internal buffer, which is written out whenever it fills).
    pub fn write_block(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        self.buf.clear();
        match self.format {
            TextFormat::Jsonl => self.jsonl(block, out)?,
            TextFormat::Pretty => self.pretty(block, out)?,
            delimited => {
                if let Some((sep, style, header)) = delimited.delimited() {
                    self.delimited(block, sep, style, header, out)?
                }
            }
        }
        out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Write the buffer out once it holds a chunk.
    fn spill(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// The header lines of the `...WithNames` and `...WithNamesAndTypes` formats, once: before
    /// the first block, or alone for a result without rows (as ClickHouse writes them).
    pub fn write_header(&mut self, columns: &[(String, chwire_proto::DataType)], out: &mut impl Write) -> io::Result<()> {
        let Some((sep, style, header)) = self.format.delimited() else { return Ok(()) };
        self.header(columns.iter().map(|(n, t)| (n.as_str(), t)), sep, style, header);
        out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Render the header lines into the buffer unless they were written already.
    fn header<'a>(&mut self, columns: impl Iterator<Item = (&'a str, &'a chwire_proto::DataType)>, sep: u8, style: Style, header: Header) {
        if header == Header::None || self.wrote_header {
            return;
        }
        self.wrote_header = true;
        // CSV: a tuple's elements are fields of their own, named (and typed) as ClickHouse does.
        let fields: Vec<(String, chwire_proto::DataType)> =
            columns.flat_map(|(n, t)| if style == Style::Csv { csv_fields(n, t) } else { vec![(n.to_string(), t.clone())] }).collect();
        let types = header == Header::NamesAndTypes;
        for line in [Some(false), types.then_some(true)].into_iter().flatten() {
            for (i, (name, ty)) in fields.iter().enumerate() {
                if i > 0 {
                    self.buf.push(sep);
                }
                let text = if line { ty.to_string() } else { name.clone() };
                write_string(&mut self.buf, text.as_bytes(), style);
            }
            self.buf.push(b'\n');
        }
    }

    fn delimited(&mut self, block: &Block, sep: u8, style: Style, header: Header, out: &mut impl Write) -> io::Result<()> {
        self.header(block.columns().iter().map(|(n, c)| (n.as_str(), c.data_type())), sep, style, header);
        let cols = block.columns();
        for row in 0..block.rows() {
            for (i, (_, c)) in cols.iter().enumerate() {
                if i > 0 {
                    self.buf.push(sep);
                }
                match style {
                    Style::Csv => write_csv(&mut self.buf, &c.value(row), c.data_type(), &self.tz),
                    _ => write_value(&mut self.buf, &c.value(row), style, &self.tz),
                }
            }
            self.buf.push(b'\n');
            self.spill(out)?;
        }
        Ok(())
    }

    fn jsonl(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        let cols = block.columns();
        for row in 0..block.rows() {
            self.buf.push(b'{');
            for (i, (name, c)) in cols.iter().enumerate() {
                if i > 0 {
                    self.buf.push(b',');
                }
                write_json_string(&mut self.buf, name.as_bytes());
                self.buf.push(b':');
                write_value(&mut self.buf, &c.value(row), Style::Json, &self.tz);
            }
            self.buf.extend_from_slice(b"}\n");
            self.spill(out)?;
        }
        Ok(())
    }

    fn pretty(&mut self, block: &Block, out: &mut impl Write) -> io::Result<()> {
        let cols = block.columns();
        let mut cells: Vec<Vec<String>> = Vec::with_capacity(cols.len());
        let mut widths = Vec::with_capacity(cols.len());
        let mut tmp = Vec::new();
        for (name, c) in cols {
            let mut col = Vec::with_capacity(block.rows());
            let mut w = name.chars().count();
            for row in 0..block.rows() {
                tmp.clear();
                write_value(&mut tmp, &c.value(row), Style::Pretty, &self.tz);
                let s = String::from_utf8_lossy(&tmp).into_owned();
                w = w.max(s.chars().count());
                col.push(s);
            }
            widths.push(w);
            cells.push(col);
        }
        let right: Vec<bool> = cols.iter().map(|(_, c)| is_numeric(c.data_type())).collect();
        let line = |l: &str, m: &str, r: &str, buf: &mut Vec<u8>| {
            buf.extend_from_slice(l.as_bytes());
            for (i, w) in widths.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(m.as_bytes());
                }
                buf.extend_from_slice("─".repeat(w + 2).as_bytes());
            }
            buf.extend_from_slice(r.as_bytes());
            buf.push(b'\n');
        };
        line("┌", "┬", "┐", &mut self.buf);
        self.buf.extend_from_slice("│".as_bytes());
        for (i, (name, _)) in cols.iter().enumerate() {
            let pad = widths[i] - name.chars().count();
            self.buf.extend_from_slice(format!(" {name}{} │", " ".repeat(pad)).as_bytes());
        }
        self.buf.push(b'\n');
        line("├", "┼", "┤", &mut self.buf);
        for row in 0..block.rows() {
            self.buf.extend_from_slice("│".as_bytes());
            for (i, col) in cells.iter().enumerate() {
                let s = &col[row];
                let pad = " ".repeat(widths[i] - s.chars().count());
                let cell = if right[i] { format!(" {pad}{s} │") } else { format!(" {s}{pad} │") };
                self.buf.extend_from_slice(cell.as_bytes());
            }
            self.buf.push(b'\n');
            self.spill(out)?;
        }
        line("└", "┴", "┘", &mut self.buf);
        Ok(())
    }
}

/// A value in CSV as ClickHouse 26.9 writes it: a (non-empty) tuple's elements are fields of
/// their own, nested tuples further (named by [`csv_fields`]); a Nullable(Tuple), at any depth,
/// is one field holding its TSV text.
fn write_csv(out: &mut Vec<u8>, v: &Value<'_>, ty: &chwire_proto::DataType, tz: &TimeZone) {
    use chwire_proto::DataType as T;
    match (csv_tuple(ty), v) {
        (Some(items), Value::Tuple(values)) => {
            for (i, ((_, t), (_, v))) in items.iter().zip(values).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_csv(out, v, t, tz);
            }
        }
        (None, Value::Tuple(_)) if matches!(ty, T::Nullable(t) if matches!(**t, T::Tuple(_))) => {
            let mut text = Vec::new();
            write_value(&mut text, v, Style::Tsv, tz);
            write_string(out, &text, Style::Csv);
        }
        _ => write_value(out, v, Style::Csv, tz),
    }
}

/// Numbers are right-aligned in Pretty tables.
fn is_numeric(t: &chwire_proto::DataType) -> bool {
    use chwire_proto::DataType as T;
    matches!(
        t.strip_nullable(),
        T::UInt8 | T::UInt16 | T::UInt32 | T::UInt64 | T::Int8 | T::Int16 | T::Int32 | T::Int64 | T::Float32 | T::Float64
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chwire_proto::{Column, StringColumn};

    fn render(format: TextFormat, block: &Block) -> String {
        let mut w = Writer::new(format, Some("UTC"));
        let mut out = Vec::new();
        w.write_block(block, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_per_format() {
        let s: StringColumn = ["a\tb", "q\"'\\", "line\nnext"].into_iter().collect();
        let block = Block::new().with("s", Column::from(s)).unwrap().with("n", Column::from(vec![1u64, 2, 3])).unwrap();
        assert_eq!(render(TextFormat::Tsv, &block), "a\\tb\t1\nq\"\\'\\\\\t2\nline\\nnext\t3\n");
        assert_eq!(render(TextFormat::Csv, &block), "\"a\tb\",1\n\"q\"\"'\\\",2\n\"line\nnext\",3\n");
        assert_eq!(
            render(TextFormat::Jsonl, &block),
            "{\"s\":\"a\\tb\",\"n\":1}\n{\"s\":\"q\\\"'\\\\\",\"n\":2}\n{\"s\":\"line\\nnext\",\"n\":3}\n"
        );
    }

    /// Composite values as ClickHouse 26.9 writes them: TSV keeps their quoted text as it is,
    /// CSV quotes arrays and maps but writes a tuple's elements as fields of their own; QBit
    /// vectors are not quoted; AggregateFunction states are their raw bytes.
    #[test]
    fn composites_in_tsv_and_csv() {
        use chwire_proto::column::decode_column;
        use chwire_proto::wire::Reader;
        let decoded = |ty: &str, wire: &[u8]| {
            let ty = chwire_proto::DataType::parse(ty).unwrap();
            let data = decode_column(&ty, 1, &mut Reader::new(wire)).unwrap();
            Column::new(ty, data).unwrap()
        };
        let arr = decoded("Array(String)", b"\x01\0\0\0\0\0\0\0\x04x\\'y");
        let tup = decoded("Tuple(String, Array(UInt8), Tuple(UInt8, String))", b"\x03a\tb\x01\0\0\0\0\0\0\0\x01\x02\x01c");
        let mut qbit = vec![0u8; 32];
        qbit[1] = 0x02;
        qbit[2..9].fill(0x01);
        let q = decoded("QBit(Float32, 2)", &qbit);
        let state = decoded("AggregateFunction(count)", b"\x0a");
        let block = Block::new().with("a", arr).unwrap().with("t", tup).unwrap().with("q", q).unwrap().with("s", state).unwrap();
        assert_eq!(render(TextFormat::Tsv, &block), "['x\\\\\\'y']\t('a\\tb',[1],(2,'c'))\t[1,2]\t\\n\n");
        assert_eq!(render(TextFormat::Csv, &block), "\"['x\\\\\\'y']\",\"a\tb\",\"[1]\",2,\"c\",[1,2],\"\n\"\n");
        assert_eq!(render(TextFormat::Jsonl, &block), "{\"a\":[\"x\\\\'y\"],\"t\":[\"a\\tb\",[1],[2,\"c\"]],\"q\":[1,2],\"s\":\"\\n\"}\n");
    }

    #[test]
    fn dates_in_timezones() {
        let dt = Column::with_type_name("DateTime('Asia/Tokyo')", chwire_proto::ColumnData::UInt32(vec![0])).unwrap();
        let d = Column::with_type_name("Date", chwire_proto::ColumnData::UInt16(vec![18262])).unwrap();
        let block = Block::new().with("t", dt).unwrap().with("d", d).unwrap();
        assert_eq!(render(TextFormat::Tsv, &block), "1970-01-01 09:00:00\t2020-01-01\n");
        assert_eq!(render(TextFormat::Csv, &block), "\"1970-01-01 09:00:00\",\"2020-01-01\"\n");
    }
}
