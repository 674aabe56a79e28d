//! `QBit(element, dimension)`: each vector is stored bit-transposed. The column is a tuple of
//! one `FixedString(ceil(dimension / 8))` per bit of the element type, the most significant
//! bit's plane first. A plane is a big-endian bit set: element `i` of the vector is bit
//! `i % 8` of byte `bytes - 1 - i / 8`.

use super::ColumnData;

/// The element bit patterns of row `row` (low `bits` bits of each `u64`).
pub(crate) fn row(planes: &[ColumnData], dimension: usize, row: usize) -> Vec<u64> {
    let bits = planes.len();
    let mut out = vec![0u64; dimension];
    for (p, plane) in planes.iter().enumerate() {
        let ColumnData::Fixed { width, data } = plane else { continue };
        let bytes = &data[row * width..(row + 1) * width];
        let bit = 1u64 << (bits - 1 - p);
        for (i, v) in out.iter_mut().enumerate() {
            if bytes[width - 1 - i / 8] >> (i % 8) & 1 != 0 {
                *v |= bit;
            }
        }
    }
    out
}

/// Append one vector (element bit patterns) to the planes.
pub(crate) fn push(planes: &mut [ColumnData], values: &[u64]) {
    let bits = planes.len();
    for (p, plane) in planes.iter_mut().enumerate() {
        let ColumnData::Fixed { width, data } = plane else { continue };
        let start = data.len();
        data.resize(start + *width, 0);
        let shift = bits - 1 - p;
        for (i, v) in values.iter().enumerate() {
            if v >> shift & 1 != 0 {
                data[start + *width - 1 - i / 8] |= 1 << (i % 8);
            }
        }
    }
}

/// Append one vector to a QBit column of `element`s (its storage: a tuple of bit planes),
/// from the element values' bit patterns (BFloat16 as its 16 bits, Float32 its 32, Float64 its
/// 64); the vector must have the type's dimension.
pub fn push_qbit(element: &crate::types::DataType, dimension: usize, planes: &mut ColumnData, bits: &[u64]) -> Result<(), String> {
    let ColumnData::Tuple(t) = planes else { return Err("a QBit column's storage is its bit planes (a tuple)".into()) };
    if bits.len() != dimension {
        return Err(format!("a vector of {} elements for QBit({element}, {dimension})", bits.len()));
    }
    if t.elements.len() != crate::types::qbit_bits(element) {
        return Err(format!("{} bit planes for QBit({element}, {dimension})", t.elements.len()));
    }
    push(&mut t.elements, bits);
    t.rows = t.rows.saturating_add(1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float32_vector_as_clickhouse_lays_it_out() {
        // [1., 2., 3.]::QBit(Float32, 3): 32 one-byte planes, as ClickHouse 26.9 writes them.
        let mut planes: Vec<ColumnData> = (0..32).map(|_| ColumnData::Fixed { width: 1, data: Vec::new() }).collect();
        let v = [1f32, 2., 3.].map(|f| u64::from(f.to_bits()));
        push(&mut planes, &v);
        let bytes: Vec<u8> = planes.iter().map(|p| if let ColumnData::Fixed { data, .. } = p { data[0] } else { 0 }).collect();
        let mut expect = vec![0u8; 32];
        expect[1] = 0x06;
        expect[2..9].fill(0x01);
        expect[9] = 0x04;
        assert_eq!(bytes, expect);
        assert_eq!(row(&planes, 3, 0), v);
        // Nine elements take two bytes a plane; the first eight are in the last byte.
        let mut planes: Vec<ColumnData> = (0..32).map(|_| ColumnData::Fixed { width: 2, data: Vec::new() }).collect();
        let v: Vec<u64> = (0..9).map(|i| if i == 8 { 1 << 31 } else { 1 << 30 }).collect();
        push(&mut planes, &v);
        assert_eq!(planes[0], ColumnData::Fixed { width: 2, data: vec![0x01, 0x00] });
        assert_eq!(planes[1], ColumnData::Fixed { width: 2, data: vec![0x00, 0xff] });
        assert_eq!(row(&planes, 9, 0), v);
    }
}
