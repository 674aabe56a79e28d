//! Thrift's compact protocol, walked as parquet-rs (59) reads it, without building anything.
//!
//! The walker never trusts a count: every element of a list, set or map takes at least one
//! byte, so no collection may claim more elements than bytes are left, and nesting is limited.

/// The deepest nesting of structs and collections skipped (parquet-rs stops at 64 too;
/// Parquet's own structures need a handful).
pub(super) const MAX_THRIFT_DEPTH: u32 = 64;

/// A value's type in Thrift's compact protocol.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    /// A boolean struct field: its value is in the field header.
    FieldBool,
    /// A boolean inside a collection (a byte each).
    Bool,
    Byte,
    /// i16, i32 and i64: a zigzag varint.
    Varint,
    Double,
    Binary,
    List,
    Map,
    Struct,
    Uuid,
}

impl Kind {
    pub(super) fn of(code: u8, in_collection: bool) -> Result<Kind, String> {
        Ok(match code {
            1 | 2 if in_collection => Kind::Bool,
            1 | 2 => Kind::FieldBool,
            3 => Kind::Byte,
            4..=6 => Kind::Varint,
            7 => Kind::Double,
            8 => Kind::Binary,
            9 | 10 => Kind::List,
            11 => Kind::Map,
            12 => Kind::Struct,
            13 => Kind::Uuid,
            c => return Err(format!("an unknown Thrift type {c}")),
        })
    }
}

/// parquet-rs skips a boolean inside a collection without reading its byte, so it and this
/// walker would part ways after one (and a list claiming 2^31 booleans costs it 2^31 steps).
/// No structure of a Parquet footer or page header holds a collection of booleans: a non-empty
/// one is refused.
fn no_booleans(elements: &[Kind], n: u64) -> Result<(), String> {
    match n > 0 && elements.contains(&Kind::Bool) {
        true => Err(format!("a collection of {n} booleans")),
        false => Ok(()),
    }
}

/// The bytes of a Thrift compact-protocol value not yet walked.
pub(super) struct Thrift<'a> {
    pub(super) bytes: &'a [u8],
}

impl Thrift<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let (&b, rest) = self.bytes.split_first().ok_or("it ends early")?;
        self.bytes = rest;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint of more than 10 bytes".into())
    }

    fn advance(&mut self, n: u64) -> Result<(), String> {
        let n = usize::try_from(n).map_err(|_| "a length beyond the footer")?;
        self.bytes = self.bytes.get(n..).ok_or("a length beyond the footer")?;
        Ok(())
    }

    /// A collection's element count, each element taking at least one byte.
    fn count(&mut self, n: u64, per_element: u64) -> Result<u64, String> {
        match n.checked_mul(per_element) {
            Some(bytes) if bytes <= self.bytes.len() as u64 => Ok(n),
            _ => Err(format!("a collection of {n} elements in {} bytes", self.bytes.len())),
        }
    }

    /// A zigzag-encoded integer (i16, i32, i64).
    fn int(&mut self) -> Result<i64, String> {
        let n = self.varint()?;
        Ok(((n >> 1) as i64) ^ ((n & 1) as i64).wrapping_neg())
    }

    /// A zigzag-encoded i32 as parquet-rs reads it: decoded as an i64, then cut to 32 bits.
    fn int32(&mut self) -> Result<i64, String> {
        Ok(i64::from(self.int()? as i32))
    }

    /// The fields of a struct, each given to `field` with its id and kind (which must read
    /// or skip its value), up to the struct's end — read as parquet-rs reads them: a field
    /// byte whose type is 0 ends the struct, ids are 16 bits. The caller bounds the nesting.
    pub(super) fn fields(&mut self, mut field: impl FnMut(&mut Self, i16, Kind) -> Result<(), String>) -> Result<(), String> {
        let mut id = 0i16;
        loop {
            let header = self.byte()?;
            if header & 0x0f == 0 {
                return Ok(());
            }
            id = match header >> 4 {
                0 => i16::try_from(self.int()?).map_err(|_| "a field id beyond 16 bits")?,
                delta => id.checked_add(i16::from(delta)).ok_or("a field id beyond 16 bits")?,
            };
            field(self, id, Kind::of(header & 0x0f, false)?)?;
        }
    }

    /// An i32 field as parquet-rs reads it (any integer type takes a varint).
    pub(super) fn int32_field(&mut self, kind: Kind) -> Result<i64, String> {
        match kind {
            Kind::Varint => self.int32(),
            k => Err(format!("an integer field of type {k:?}")),
        }
    }

    /// A list's header: its element kind and count (checked against the bytes left). As
    /// parquet-rs reads it, a header byte of 0 is an empty list (some writers write that).
    pub(super) fn list(&mut self) -> Result<(Kind, u64), String> {
        let header = self.byte()?;
        if header == 0 {
            return Ok((Kind::Byte, 0));
        }
        let n = match header >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        let element = Kind::of(header & 0x0f, true)?;
        no_booleans(&[element], n)?;
        Ok((element, self.count(n, 1)?))
    }

    /// Skip a value of `kind`, nested at most `depth` deep, as parquet-rs skips a field it
    /// does not know (by its declared type).
    pub(super) fn skip(&mut self, kind: Kind, depth: u32) -> Result<(), String> {
        let depth = depth.checked_sub(1).ok_or("nested too deep")?;
        match kind {
            Kind::FieldBool => Ok(()),
            Kind::Bool | Kind::Byte => self.advance(1),
            Kind::Varint => self.varint().map(drop),
            Kind::Double => self.advance(8),
            Kind::Uuid => self.advance(16),
            Kind::Binary => {
                let n = self.varint()?;
                self.advance(n)
            }
            Kind::List => {
                let (element, n) = self.list()?;
                (0..n).try_for_each(|_| self.skip(element, depth))
            }
            Kind::Map => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                let (key, value) = (Kind::of(types >> 4, true)?, Kind::of(types & 0x0f, true)?);
                no_booleans(&[key, value], n)?;
                for _ in 0..self.count(n, 2)? {
                    self.skip(key, depth)?;
                    self.skip(value, depth)?;
                }
                Ok(())
            }
            Kind::Struct => self.fields(|t, _, k| t.skip(k, depth)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(bytes: &[u8]) -> Result<(), String> {
        Thrift { bytes }.skip(Kind::Struct, MAX_THRIFT_DEPTH)
    }

    #[test]
    fn thrift_collections_may_not_claim_more_elements_than_bytes() {
        // struct { 1: list<i8> [1, 2] } and a bool field, then STOP.
        assert_eq!(walk(&[0x19, 0x23, 1, 2, 0x11, 0]), Ok(()));
        // Booleans in a collection: parquet-rs skips them without reading their bytes, so
        // these 7 "booleans" would be its next field (a list of 2^31-1 booleans).
        let err = walk(&[0x19, 0x71, 0x19, 0xf1, 0xff, 0xff, 0xff, 0xff, 0x07, 0]).unwrap_err();
        assert!(err.contains("a collection of 7 booleans"), "{err}");
        assert!(walk(&[0x1b, 1, 0x13, 1, 2, 0]).is_err(), "a map of booleans");
        assert_eq!(walk(&[0x19, 0x01, 0]), Ok(()), "an empty list of booleans");
        // As parquet-rs: a list header of 0 is an empty list; a field byte of type 0 ends a struct.
        assert_eq!(walk(&[0x19, 0x00, 0x10]), Ok(()));
        // A list claiming 2^31 booleans in a few bytes (what parquet-rs spun on), and 2^31
        // bytes.
        let err = walk(&[0x19, 0xf1, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 0]).unwrap_err();
        assert!(err.contains("a collection of 2147483648 booleans"), "{err}");
        let err = walk(&[0x19, 0xf3, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 0]).unwrap_err();
        assert!(err.contains("a collection of 2147483648 elements"), "{err}");
        // A map of 3 entries needs at least 6 bytes.
        assert!(walk(&[0x1b, 3, 0x33, 1, 2, 3, 4, 0]).is_err());
        assert_eq!(walk(&[0x1b, 2, 0x33, 1, 2, 3, 4, 0]), Ok(()));
        // Structs nested beyond the limit; a footer that ends early.
        let deep: Vec<u8> = std::iter::repeat_n(0x1c, 100).chain(std::iter::repeat_n(0, 101)).collect();
        assert_eq!(walk(&deep), Err("nested too deep".into()));
        assert_eq!(walk(&[0x15]), Err("it ends early".into()));
    }
}
