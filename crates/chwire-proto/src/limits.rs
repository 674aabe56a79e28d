//! Limits on what input (a server's answer, a Native file) may make the decoder accept.
//!
//! Every length or count read from input is checked against these limits, and against the
//! bytes that could possibly follow, before anything is allocated for it: a block claiming
//! 2^40 rows or a string claiming 2^60 bytes is an error (or a wait for bytes that must
//! arrive first), never an allocation of that size.
//!
//! The limits travel with the [`Reader`](crate::wire::Reader) (`Reader::with_limits`), so
//! every decoder below it sees the same ones; the [`PacketDecoder`](crate::PacketDecoder)
//! takes them with `with_limits`.

/// Configurable decoding limits. [`Limits::default`] is safe for untrusted input and large
/// enough for anything ClickHouse itself writes with default settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most rows one block may declare (default 2^27 = 134,217,728).
    pub max_block_rows: usize,
    /// Most bytes one block may take on the wire, after decompression (default 2 GiB).
    pub max_block_bytes: usize,
    /// Longest string (or FixedString, or aggregate state) in bytes (default 1 GiB, the
    /// server's own cap).
    pub max_string_len: usize,
    /// Most elements one array (or map) value may hold (default 2^30).
    pub max_array_len: usize,
    /// Deepest nesting of type names and of values inside values (default 64; at most
    /// [`Limits::MAX_DEPTH`], larger values are treated as that).
    pub max_depth: usize,
    /// Largest compressed frame in bytes, compressed or decompressed (default 1 GiB).
    pub max_frame_size: usize,
    /// Most columns one block may declare (default 65,536).
    pub max_columns: usize,
}

impl Limits {
    /// The defaults, usable in constants.
    pub const DEFAULT: Limits = Limits {
        max_block_rows: 1 << 27,
        max_block_bytes: 2 << 30,
        max_string_len: 1 << 30,
        max_array_len: 1 << 30,
        max_depth: 64,
        max_frame_size: 1 << 30,
        max_columns: 1 << 16,
    };

    /// The limits of the server's own blocks (Log and ProfileEvents: fixed schemas of 6 to 8
    /// flat columns), whatever the limits of the data are: a client that allows 3 columns or
    /// 10 rows per block still reads the 34-row ProfileEvents block a current server sends
    /// after every query.
    pub const SERVER_BLOCKS: Limits = Limits {
        max_block_rows: 1 << 20,
        max_block_bytes: 256 << 20,
        max_string_len: 16 << 20,
        max_array_len: 1 << 16,
        max_depth: 8,
        max_frame_size: 1 << 30,
        max_columns: 64,
    };

    /// The hard ceiling of [`Limits::max_depth`]: the parsers recurse once per level.
    pub const MAX_DEPTH: usize = 256;

    /// The nesting depth actually applied (`max_depth`, at most [`Limits::MAX_DEPTH`]).
    pub fn depth(&self) -> usize {
        self.max_depth.min(Self::MAX_DEPTH)
    }

    /// Set a limit by its name as used in URLs and on the command line (`max_block_rows`,
    /// `max_block_bytes`, `max_string_len`, `max_array_len`, `max_depth`, `max_frame_size`,
    /// `max_columns`). Returns `Err` with a message for an unknown name or a value that is
    /// not a positive integer.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let v: usize =
            value.trim().parse().ok().filter(|&v| v > 0).ok_or_else(|| format!("{name}: {value:?} is not a positive integer"))?;
        let slot = match name {
            "max_block_rows" => &mut self.max_block_rows,
            "max_block_bytes" => &mut self.max_block_bytes,
            "max_string_len" => &mut self.max_string_len,
            "max_array_len" => &mut self.max_array_len,
            "max_depth" => &mut self.max_depth,
            "max_frame_size" => &mut self.max_frame_size,
            "max_columns" => &mut self.max_columns,
            _ => return Err(format!("unknown limit {name:?}")),
        };
        if name == "max_depth" && v > Self::MAX_DEPTH {
            return Err(format!("max_depth: {v} is above the ceiling of {}", Self::MAX_DEPTH));
        }
        *slot = v;
        Ok(())
    }

    /// The names [`Limits::set`] accepts.
    pub const NAMES: [&'static str; 7] =
        ["max_block_rows", "max_block_bytes", "max_string_len", "max_array_len", "max_depth", "max_frame_size", "max_columns"];
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_by_name() {
        let mut l = Limits::default();
        for n in Limits::NAMES {
            l.set(n, "7").unwrap();
        }
        assert_eq!(
            l,
            Limits {
                max_block_rows: 7,
                max_block_bytes: 7,
                max_string_len: 7,
                max_array_len: 7,
                max_depth: 7,
                max_frame_size: 7,
                max_columns: 7
            }
        );
        assert!(l.set("max_rows", "1").is_err());
        assert!(l.set("max_depth", "0").is_err());
        assert!(l.set("max_depth", &(Limits::MAX_DEPTH + 1).to_string()).unwrap_err().contains("above the ceiling"));
        assert!(l.set("max_depth", "-1").is_err());
        l.set("max_depth", &Limits::MAX_DEPTH.to_string()).unwrap();
        assert_eq!(l.depth(), Limits::MAX_DEPTH);
        // A value set directly is still clamped where it is used.
        assert_eq!(Limits { max_depth: 100_000, ..Limits::DEFAULT }.depth(), Limits::MAX_DEPTH);
    }
}
