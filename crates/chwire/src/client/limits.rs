//! [`ResultLimits`]: bounds of a result that a caller collects whole (a binding's table, rows
//! or columns call), counted by the query's stream as blocks arrive. Past a bound the query is
//! cancelled on the server and drained, and the stream's error says which bound it was
//! ([`ErrorKind::ResultTooLarge`]); streams a caller reads block by block are not bounded.

use crate::error::{Error, ErrorKind, Result};
use crate::options::keys::{self, Scope};
use chwire_proto::Block;

/// Bounds of a result collected whole (`None`: no bound). The options `max_collected_rows`
/// and `max_collected_bytes` of docs/OPTIONS.md, the same names in every binding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultLimits {
    /// Most rows.
    pub max_rows: Option<u64>,
    /// Most bytes of decoded column data, as [`row::approx_bytes`](crate::row::approx_bytes)
    /// counts them (fixed-width values at their width, strings their bytes plus 8 per value).
    pub max_bytes: Option<u64>,
}

/// The bound a result went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultLimit {
    /// `max_collected_rows`: more rows than this.
    Rows(u64),
    /// `max_collected_bytes`: more bytes than this.
    Bytes(u64),
}

impl ResultLimit {
    /// The option that set the bound.
    pub fn option(self) -> &'static str {
        match self {
            ResultLimit::Rows(_) => "max_collected_rows",
            ResultLimit::Bytes(_) => "max_collected_bytes",
        }
    }
}

impl std::fmt::Display for ResultLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultLimit::Rows(n) => write!(f, "the result has more than {n} rows ({})", self.option()),
            ResultLimit::Bytes(n) => write!(f, "the result has more than {n} bytes of column data ({})", self.option()),
        }
    }
}

impl ResultLimits {
    /// No bound.
    pub fn none() -> ResultLimits {
        ResultLimits::default()
    }

    /// Whether neither bound is set.
    pub fn is_unbounded(&self) -> bool {
        self.max_rows.is_none() && self.max_bytes.is_none()
    }

    /// Set one bound by its key (the options table's, in any host's spelling): a whole number,
    /// `0` for no bound. Another key is an error.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let k = keys::of_scope(key, Scope::Result)?;
        let n: u64 = keys::count(k.name, value)?;
        let bound = (n > 0).then_some(n);
        match k.name {
            "max_collected_rows" => self.max_rows = bound,
            "max_collected_bytes" => self.max_bytes = bound,
            other => return Err(Error::config(format!("{other:?} is no bound of results (a chwire bug)"))),
        }
        Ok(())
    }

    /// The bounds among a binding's `key = value` options, taken out of `pairs` (the rest are
    /// left for [`Options`](crate::Options)). A bad value, or one bound given twice (in two
    /// spellings), is an error.
    pub fn take(pairs: &mut Vec<(String, String)>) -> Result<ResultLimits> {
        let mut limits = ResultLimits::none();
        crate::options::take_scope(pairs, Scope::Result, |k, v| limits.set(k, v))?;
        Ok(limits)
    }
}

/// What a bounded stream has received so far.
#[derive(Debug)]
pub(crate) struct Tally {
    limits: ResultLimits,
    rows: u64,
    bytes: u64,
}

impl Tally {
    pub(crate) fn new(limits: ResultLimits) -> Option<Box<Tally>> {
        (!limits.is_unbounded()).then(|| Box::new(Tally { limits, rows: 0, bytes: 0 }))
    }

    /// Count `block`; the bound it goes over, if any.
    pub(crate) fn add(&mut self, block: &Block) -> std::result::Result<(), ResultLimit> {
        self.rows = self.rows.saturating_add(block.rows() as u64);
        if let Some(max) = self.limits.max_rows.filter(|&m| self.rows > m) {
            return Err(ResultLimit::Rows(max));
        }
        if let Some(max) = self.limits.max_bytes {
            let bytes: u64 = block.columns().iter().map(|(_, c)| crate::row::approx_bytes(c.data()) as u64).sum();
            self.bytes = self.bytes.saturating_add(bytes);
            if self.bytes > max {
                return Err(ResultLimit::Bytes(max));
            }
        }
        Ok(())
    }
}

impl From<ResultLimit> for Error {
    fn from(l: ResultLimit) -> Error {
        Error::new(ErrorKind::ResultTooLarge(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_in_any_spelling_zero_for_none_other_keys_left() {
        let mut pairs: Vec<(String, String)> =
            [("maxCollectedRows", "10"), ("compression", "lz4"), ("max_collected_bytes", "0"), ("max_result_rows", "5")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into();
        let l = ResultLimits::take(&mut pairs).unwrap();
        assert_eq!(l, ResultLimits { max_rows: Some(10), max_bytes: None });
        // ClickHouse's own setting of a like name stays a setting.
        assert_eq!(pairs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["compression", "max_result_rows"]);
        let mut twice = vec![("max_collected_rows".into(), "1".into()), ("maxCollectedRows".into(), "2".into())];
        let e = ResultLimits::take(&mut twice).unwrap_err();
        assert!(e.to_string().contains("are the same option"), "{e}");
        let e = ResultLimits::take(&mut vec![("max_collected_rows".into(), "-1".into())]).unwrap_err();
        assert!(e.to_string().contains("whole number"), "{e}");
        let e = ResultLimits::none().set("max_size", "3").unwrap_err();
        assert!(e.to_string().contains("a pool option"), "{e}");
        let e = ResultLimits::none().set("max_colected_rows", "3").unwrap_err();
        assert!(e.to_string().contains("did you mean max_collected_rows"), "{e}");
    }

    #[test]
    fn tally_counts_rows_then_bytes() {
        use chwire_proto::{Column, ColumnData, DataType};
        let mut b = Block::new();
        b.push("n", Column::new(DataType::UInt64, ColumnData::UInt64(vec![1, 2, 3])).unwrap()).unwrap();
        assert!(Tally::new(ResultLimits::none()).is_none());
        let mut t = Tally::new(ResultLimits { max_rows: Some(6), max_bytes: None }).unwrap();
        assert_eq!(t.add(&b), Ok(()));
        assert_eq!(t.add(&b), Ok(()));
        assert_eq!(t.add(&b), Err(ResultLimit::Rows(6)));
        let mut t = Tally::new(ResultLimits { max_rows: None, max_bytes: Some(47) }).unwrap();
        assert_eq!(t.add(&b), Ok(()));
        assert_eq!(t.add(&b), Err(ResultLimit::Bytes(47)));
        assert_eq!(ResultLimit::Bytes(47).to_string(), "the result has more than 47 bytes of column data (max_collected_bytes)");
    }
}
