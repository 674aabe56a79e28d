//! Geo values from WKB (well-known binary), as ClickHouse 26.9 writes Point, LineString,
//! Polygon, MultiPoint, MultiLineString and MultiPolygon columns to Parquet (binary values
//! with a `geo` metadata key naming each column's geometry type) and reads them back.
//!
//! WKB: each geometry starts with its byte order (0 big-endian, 1 little-endian) and a u32
//! type (1 Point, 2 LineString, 3 Polygon, 4 MultiPoint, 5 MultiLineString, 6 MultiPolygon);
//! a Point is two f64 (x, y), a LineString a u32 count of points, a Polygon a u32 count of
//! rings (LineStrings without a header), and the Multi types a u32 count of whole geometries,
//! each with its own header. Only 2D geometries exist in ClickHouse.
//!
//! Every length is checked against the bytes left before anything is reserved, so a value
//! claiming 2^32 points costs nothing; a value of another geometry type than the column's is
//! an error naming its row.

use crate::mismatch;
use crate::strings::strings;
use crate::Result;
use arrow_array::Array;
use chwire_proto::column::{ArrayColumn, ColumnData, TupleColumn};
use chwire_proto::types::GeoKind;
use chwire_proto::DataType;

/// The column of geo kind `kind` (its storage: tuples of two Float64 in arrays) from WKB values.
pub(crate) fn geo_from_wkb(array: &dyn Array, ty: &DataType, kind: GeoKind) -> Result<ColumnData> {
    let values = strings(array, ty)?;
    let depth = match kind {
        GeoKind::Point => 0,
        GeoKind::Ring | GeoKind::LineString | GeoKind::MultiPoint => 1,
        GeoKind::Polygon | GeoKind::MultiLineString => 2,
        GeoKind::MultiPolygon => 3,
    };
    let mut out = Geo { x: Vec::new(), y: Vec::new(), offsets: vec![vec![0]; depth] };
    for (row, value) in values.iter().enumerate() {
        let mut r = Reader { bytes: value, at: 0 };
        out.geometry(&mut r, kind).map_err(|e| mismatch(array, ty, format!("row {row}: WKB {e}")))?;
        if r.at != value.len() {
            return Err(mismatch(array, ty, format!("row {row}: WKB with {} bytes after its geometry", value.len() - r.at)));
        }
    }
    Ok(out.into_column())
}

/// The storage being built: the points' coordinates and the offsets of each array level,
/// outermost first.
struct Geo {
    x: Vec<f64>,
    y: Vec<f64>,
    offsets: Vec<Vec<u64>>,
}

/// WKB geometry types.
const POINT: u32 = 1;
const LINE_STRING: u32 = 2;
const POLYGON: u32 = 3;
const MULTI_POINT: u32 = 4;
const MULTI_LINE_STRING: u32 = 5;
const MULTI_POLYGON: u32 = 6;

impl Geo {
    /// One row: a whole WKB geometry of the column's kind.
    fn geometry(&mut self, r: &mut Reader<'_>, kind: GeoKind) -> std::result::Result<(), String> {
        let expected = match kind {
            GeoKind::Point => POINT,
            GeoKind::Ring | GeoKind::LineString => LINE_STRING,
            GeoKind::Polygon => POLYGON,
            GeoKind::MultiPoint => MULTI_POINT,
            GeoKind::MultiLineString => MULTI_LINE_STRING,
            GeoKind::MultiPolygon => MULTI_POLYGON,
        };
        let little = r.header(expected)?;
        match expected {
            POINT => self.point(r, little),
            LINE_STRING => self.points(r, little, 0),
            POLYGON => self.rings(r, little, 0),
            MULTI_POINT => self.multi(r, little, 21, POINT, |g, r, little| g.point(r, little)),
            MULTI_LINE_STRING => self.multi(r, little, 9, LINE_STRING, |g, r, little| g.points(r, little, 1)),
            _ => self.multi(r, little, 9, POLYGON, |g, r, little| g.rings(r, little, 1)),
        }
    }

    /// A Multi geometry: a count of whole geometries of WKB type `member` (each at least
    /// `min_size` bytes, with its own header), each read by `read`, as one array at level 0.
    fn multi(
        &mut self,
        r: &mut Reader<'_>,
        little: bool,
        min_size: usize,
        member: u32,
        read: fn(&mut Self, &mut Reader<'_>, bool) -> std::result::Result<(), String>,
    ) -> std::result::Result<(), String> {
        let n = r.count(little, min_size)?;
        for _ in 0..n {
            let little = r.header(member)?;
            read(self, r, little)?;
        }
        self.close(0, n)
    }

    fn point(&mut self, r: &mut Reader<'_>, little: bool) -> std::result::Result<(), String> {
        self.x.push(r.f64(little)?);
        self.y.push(r.f64(little)?);
        Ok(())
    }

    /// A count of points and the points, as one array at offsets level `level`.
    fn points(&mut self, r: &mut Reader<'_>, little: bool, level: usize) -> std::result::Result<(), String> {
        let n = r.count(little, 16)?;
        for _ in 0..n {
            self.point(r, little)?;
        }
        self.close(level, n)
    }

    /// A count of rings and the rings, as one array at offsets level `level`.
    fn rings(&mut self, r: &mut Reader<'_>, little: bool, level: usize) -> std::result::Result<(), String> {
        let n = r.count(little, 4)?;
        for _ in 0..n {
            self.points(r, little, level + 1)?;
        }
        self.close(level, n)
    }

    /// Ends an array of `n` items at offsets level `level`.
    fn close(&mut self, level: usize, n: usize) -> std::result::Result<(), String> {
        let offsets = self.offsets.get_mut(level).ok_or("nesting deeper than the column's type")?;
        let last = offsets.last().copied().unwrap_or(0);
        offsets.push(last + n as u64);
        Ok(())
    }

    fn into_column(self) -> ColumnData {
        let rows = self.x.len();
        let mut column = ColumnData::Tuple(TupleColumn { rows, elements: vec![ColumnData::Float64(self.x), ColumnData::Float64(self.y)] });
        for offsets in self.offsets.into_iter().rev() {
            column = ColumnData::Array(Box::new(ArrayColumn { offsets, values: column }));
        }
        column
    }
}

/// A cursor over one WKB value.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> std::result::Result<[u8; N], String> {
        let end = self.at.checked_add(N).ok_or("cut short")?;
        let out = self.bytes.get(self.at..end).and_then(|b| <[u8; N]>::try_from(b).ok()).ok_or("cut short")?;
        self.at = end;
        Ok(out)
    }

    /// A geometry's byte order and type, which must be `expected`; true for little-endian.
    fn header(&mut self, expected: u32) -> std::result::Result<bool, String> {
        let little = match self.take::<1>()? {
            [0] => false,
            [1] => true,
            [b] => return Err(format!("byte order {b}")),
        };
        let ty = self.u32(little)?;
        if ty != expected {
            return Err(format!("geometry type {ty} where the column's is {expected}"));
        }
        Ok(little)
    }

    fn u32(&mut self, little: bool) -> std::result::Result<u32, String> {
        let b = self.take::<4>()?;
        Ok(if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    }

    fn f64(&mut self, little: bool) -> std::result::Result<f64, String> {
        let b = self.take::<8>()?;
        Ok(if little { f64::from_le_bytes(b) } else { f64::from_be_bytes(b) })
    }

    /// A count of items of at least `min_size` bytes each, which the bytes left must hold.
    fn count(&mut self, little: bool, min_size: usize) -> std::result::Result<usize, String> {
        let n = self.u32(little)? as usize;
        if n.saturating_mul(min_size) > self.bytes.len() - self.at {
            return Err(format!("count of {n} in {} bytes", self.bytes.len() - self.at));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::BinaryArray;

    fn header(little: bool, ty: u32) -> Vec<u8> {
        let mut v = vec![u8::from(little)];
        v.extend(if little { ty.to_le_bytes() } else { ty.to_be_bytes() });
        v
    }

    fn u32b(little: bool, n: u32) -> [u8; 4] {
        if little {
            n.to_le_bytes()
        } else {
            n.to_be_bytes()
        }
    }

    fn point(little: bool, x: f64, y: f64) -> Vec<u8> {
        let mut v = Vec::new();
        for c in [x, y] {
            v.extend(if little { c.to_le_bytes() } else { c.to_be_bytes() });
        }
        v
    }

    fn line(little: bool, pts: &[(f64, f64)]) -> Vec<u8> {
        let mut v = u32b(little, pts.len() as u32).to_vec();
        for &(x, y) in pts {
            v.extend(point(little, x, y));
        }
        v
    }

    fn column(values: Vec<Vec<u8>>, kind: GeoKind) -> Result<ColumnData> {
        let a = BinaryArray::from_iter_values(values);
        geo_from_wkb(&a, &DataType::Geo(kind), kind)
    }

    fn floats(c: &ColumnData) -> (Vec<f64>, Vec<f64>) {
        match c {
            ColumnData::Tuple(t) => match (&t.elements[0], &t.elements[1]) {
                (ColumnData::Float64(x), ColumnData::Float64(y)) => (x.clone(), y.clone()),
                _ => panic!(),
            },
            ColumnData::Array(a) => floats(&a.values),
            _ => panic!(),
        }
    }

    fn offsets(c: &ColumnData) -> Vec<Vec<u64>> {
        match c {
            ColumnData::Array(a) => [vec![a.offsets.clone()], offsets(&a.values)].concat(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn points_in_both_byte_orders() {
        let values = vec![[header(true, 1), point(true, 1.5, -2.0)].concat(), [header(false, 1), point(false, f64::NAN, -0.0)].concat()];
        let c = column(values, GeoKind::Point).unwrap();
        let (x, y) = floats(&c);
        assert_eq!((x[0], y[0]), (1.5, -2.0));
        assert!(x[1].is_nan() && y[1] == 0.0 && y[1].is_sign_negative());
    }

    #[test]
    fn lines_polygons_and_their_multis() {
        let l = [header(true, 2), line(true, &[(0.0, 0.0), (1.0, 1.0)])].concat();
        let c = column(vec![l.clone(), [header(false, 2), line(false, &[])].concat()], GeoKind::LineString).unwrap();
        assert_eq!(offsets(&c), vec![vec![0, 2, 2]]);

        // Polygon [[(0,0),(1,0),(1,1),(0,0)], []].
        let ring = line(true, &[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]);
        let polygon = [header(true, 3), u32b(true, 2).to_vec(), ring.clone(), line(true, &[])].concat();
        let c = column(vec![polygon.clone()], GeoKind::Polygon).unwrap();
        assert_eq!(offsets(&c), vec![vec![0, 2], vec![0, 4, 4]]);
        assert_eq!(floats(&c).0, vec![0.0, 1.0, 1.0, 0.0]);

        // MultiLineString [[(0,0),(1,1)], [(2,2)]], the second line big-endian.
        let m = [header(true, 5), u32b(true, 2).to_vec(), l.clone(), header(false, 2), line(false, &[(2.0, 2.0)])].concat();
        let c = column(vec![m], GeoKind::MultiLineString).unwrap();
        assert_eq!(offsets(&c), vec![vec![0, 2], vec![0, 2, 3]]);
        assert_eq!(floats(&c).1, vec![0.0, 1.0, 2.0]);

        let mp = [header(true, 6), u32b(true, 1).to_vec(), polygon].concat();
        let c = column(vec![mp], GeoKind::MultiPolygon).unwrap();
        assert_eq!(offsets(&c), vec![vec![0, 1], vec![0, 2], vec![0, 4, 4]]);

        let pts = [header(true, 4), u32b(true, 2).to_vec(), header(true, 1), point(true, 0.0, 0.0), header(true, 1), point(true, 1.0, 1.0)]
            .concat();
        let c = column(vec![pts], GeoKind::MultiPoint).unwrap();
        assert_eq!(offsets(&c), vec![vec![0, 2]]);
        assert_eq!(floats(&c).0, vec![0.0, 1.0]);
    }

    #[test]
    fn bad_values_are_errors_naming_the_row() {
        let good = [header(true, 1), point(true, 1.0, 2.0)].concat();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 1].to_vec(), "cut short"),
            ([header(true, 2), line(true, &[])].concat(), "geometry type 2 where the column's is 1"),
            ([vec![7], good[1..].to_vec()].concat(), "byte order 7"),
            ([good.clone(), vec![0]].concat(), "1 bytes after"),
        ];
        for (bad, expected) in cases {
            let err = column(vec![good.clone(), bad], GeoKind::Point).unwrap_err().to_string();
            assert!(err.contains("row 1: WKB") && err.contains(expected), "{err}");
        }
        // A count of 2^32 - 1 points in a few bytes reserves nothing and fails.
        let huge = [header(true, 2), u32b(true, u32::MAX).to_vec(), point(true, 0.0, 0.0)].concat();
        let err = column(vec![huge], GeoKind::LineString).unwrap_err().to_string();
        assert!(err.contains("count of 4294967295 in 16 bytes"), "{err}");
    }
}
