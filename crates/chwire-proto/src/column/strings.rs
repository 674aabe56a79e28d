//! `StringColumn`: N + 1 offsets into one byte buffer.

use super::*;

/// Strings (or any byte sequences): N + 1 offsets into one buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringColumn {
    pub(super) offsets: Vec<u64>,
    pub(super) data: Vec<u8>,
}

impl Default for StringColumn {
    fn default() -> Self {
        StringColumn { offsets: vec![0], data: Vec::new() }
    }
}

impl StringColumn {
    /// An empty column.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty column with room for `rows` values of `bytes` bytes in total.
    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        StringColumn { offsets, data: Vec::with_capacity(bytes) }
    }

    /// Build from parts, checking that offsets start at 0, never decrease and end at
    /// `data.len()`.
    pub fn try_from_parts(offsets: Vec<u64>, data: Vec<u8>) -> Result<Self, EncodeError> {
        check_offsets(&offsets, data.len()).map_err(EncodeError::Invalid)?;
        Ok(StringColumn { offsets, data })
    }

    /// Append one value.
    #[inline]
    pub fn push(&mut self, v: impl AsRef<[u8]>) {
        self.data.extend_from_slice(v.as_ref());
        self.offsets.push(self.data.len() as u64);
    }

    /// Append one value given in parts (e.g. a prefix and digits), without a temporary.
    #[inline]
    pub fn push_parts(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.data.extend_from_slice(p);
        }
        self.offsets.push(self.data.len() as u64);
    }

    /// Remove every value, keeping the capacity.
    pub fn clear(&mut self) {
        self.offsets.truncate(1);
        self.data.clear();
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no values.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of row `i` (no copy). Panics if `i >= len()`, like slice indexing.
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Row `i` as UTF-8 text, if it is valid UTF-8.
    pub fn get_str(&self, i: usize) -> Option<&str> {
        self.str_at(i).ok()
    }

    /// Row `i` as UTF-8 text. Short ASCII values (the common case) take an inlined check
    /// instead of a call to `from_utf8`, whose result goes through memory: a third of a row's
    /// cost in the W2 rows benchmark.
    #[inline]
    pub fn str_at(&self, i: usize) -> Result<&str, std::str::Utf8Error> {
        let b = self.get(i);
        if b.is_ascii() {
            // SAFETY: ASCII is valid UTF-8.
            return Ok(unsafe { std::str::from_utf8_unchecked(b) });
        }
        std::str::from_utf8(b)
    }

    /// The values in order (no copies).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.offsets.windows(2).map(|w| &self.data[w[0] as usize..w[1] as usize])
    }

    /// The N + 1 offsets: value `i` is `data()[offsets[i]..offsets[i + 1]]`.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Every value's bytes, back to back.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The offsets and the bytes, by value.
    pub fn into_parts(self) -> (Vec<u64>, Vec<u8>) {
        (self.offsets, self.data)
    }

    pub(crate) fn parts_mut(&mut self) -> (&mut Vec<u64>, &mut Vec<u8>) {
        (&mut self.offsets, &mut self.data)
    }
}

impl<S: AsRef<[u8]>> FromIterator<S> for StringColumn {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut c = StringColumn::new();
        for s in iter {
            c.push(s);
        }
        c
    }
}

/// Checks an offsets buffer: N + 1 entries, starting at 0, non-decreasing, ending at `len`.
pub(crate) fn check_offsets(offsets: &[u64], len: usize) -> Result<(), String> {
    if offsets.first() != Some(&0) {
        return Err("offsets must start with 0".into());
    }
    if offsets.windows(2).any(|w| w[1] < w[0]) {
        return Err("offsets must not decrease".into());
    }
    let last = offsets.last().copied().unwrap_or(0);
    if last != len as u64 {
        return Err(format!("last offset {last} does not match the {len} inner values"));
    }
    Ok(())
}
