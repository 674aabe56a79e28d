//! `Variant`, `Dynamic` and `JSON` containers.

use super::*;

/// `JSON`: typed paths (one column each, in the type's sorted order), dynamic paths (a
/// Dynamic column each, sorted by path) and the shared data of paths beyond
/// `max_dynamic_paths` (`Array(Tuple(path String, value String))`, binary-encoded values,
/// decoded in `shared_values`). With the STRING serialization only `text` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonColumn {
    /// The serialization version it arrived in (0 = V1, 1 = string, 2 = V2, 3 = flattened),
    /// re-encoded the same way.
    pub version: u64,
    /// The number of rows.
    pub rows: usize,
    /// The rows as JSON text, with the string serialization (every other field is then empty).
    pub text: Option<StringColumn>,
    /// One column per typed path, in the type's order.
    pub typed: Vec<ColumnData>,
    /// The dynamic paths and their columns, sorted by path.
    pub dynamic: Vec<(String, DynamicColumn)>,
    /// The shared data (`Array(Tuple(path String, value String))`), when there is any.
    pub shared: Option<ColumnData>,
    /// Version 0's `max_dynamic_paths` field, as received.
    pub max_dynamic_paths: Option<u64>,
    /// The shared data's values decoded, one per element of `shared` (empty without shared data).
    pub shared_values: BinaryValues,
}

impl JsonColumn {
    /// The shared data's paths (the first element of `shared`'s tuples), if any.
    pub fn shared_paths(&self) -> Option<(&[u64], &StringColumn)> {
        match &self.shared {
            Some(ColumnData::Array(a)) => match &a.values {
                ColumnData::Tuple(t) => match t.elements.first() {
                    Some(ColumnData::String(paths)) => Some((&a.offsets, paths)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// Checks that the decoded shared values match the shared data.
    pub(super) fn check_shared(&self) -> Result<(), String> {
        let n = self.shared_paths().map_or(0, |(_, p)| p.len());
        if self.shared_values.len() != n {
            return Err(format!("{} decoded shared values for {n} shared paths", self.shared_values.len()));
        }
        if let Some((_, paths)) = self.shared_paths() {
            if paths.iter().any(|p| std::str::from_utf8(p).is_err()) {
                return Err("a JSON shared data path is not UTF-8".into());
            }
        }
        Ok(())
    }
}

/// `Dynamic`: the types this block holds (from the column's prefix) and the rows as a
/// variant of them. `shared` is the position of ClickHouse's `SharedVariant` (values of
/// types beyond `max_types`, kept binary-encoded as strings), when the block has one; its
/// values decoded are `shared_values`.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicColumn {
    /// The types of this block's rows, the SharedVariant included when there is one.
    pub types: Vec<DataType>,
    /// The position of `SharedVariant` in `types`, when there is one.
    pub shared: Option<usize>,
    /// The rows, as a variant of `types`.
    pub values: VariantColumn,
    /// The serialization version it arrived in (re-encoded the same way).
    pub version: u64,
    /// Version 1's `max_dynamic_types` field, as received.
    pub max_types: Option<u64>,
    /// The SharedVariant's values decoded, one per row of its column (empty without one).
    pub shared_values: BinaryValues,
}

impl DynamicColumn {
    /// Checks the columns against the types, and the decoded shared values against the
    /// SharedVariant's column.
    pub(super) fn check(&self) -> Result<(), String> {
        self.values.check_types(&self.types)?;
        let n = match self.shared {
            Some(s) => match self.values.variants.get(s) {
                Some(ColumnData::String(c)) => c.len(),
                _ => return Err("SharedVariant must be a String column".into()),
            },
            None => 0,
        };
        if self.shared_values.len() != n {
            return Err(format!("{} decoded shared values for {n} SharedVariant rows", self.shared_values.len()));
        }
        Ok(())
    }
}

/// `Variant(T...)` in the layout of an Arrow dense union: per row a discriminator (the
/// index of its type, [`VariantColumn::NULL`] for NULL) and its position in that type's column.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantColumn {
    /// One per row: the index of the row's type, or [`VariantColumn::NULL`].
    pub discriminators: Vec<u8>,
    /// One per row: the row's position in its type's column (0 for NULL rows).
    pub offsets: Vec<u32>,
    /// One column per type, holding the rows of that type.
    pub variants: Vec<ColumnData>,
}

impl VariantColumn {
    /// The discriminator of a NULL row.
    pub const NULL: u8 = 255;

    /// Build from discriminators and the per-type columns, computing the offsets; checks
    /// that every type's column has as many rows as discriminators point at it.
    pub fn try_new(discriminators: Vec<u8>, variants: Vec<ColumnData>) -> Result<VariantColumn, String> {
        let offsets = Self::offsets_of(&discriminators, &variants)?;
        Ok(VariantColumn { discriminators, offsets, variants })
    }

    /// Each row's position in its type's column, and the number of rows of each type;
    /// checks that every discriminator names one of `n_types` types (or NULL).
    pub(crate) fn layout(discriminators: &[u8], n_types: usize) -> Result<(Vec<u32>, Vec<u32>), String> {
        let mut counts = vec![0u32; n_types];
        let mut offsets = Vec::with_capacity(discriminators.len());
        for &d in discriminators {
            if d == Self::NULL {
                offsets.push(0);
                continue;
            }
            let c = counts.get_mut(d as usize).ok_or_else(|| format!("discriminator {d} for a variant of {n_types} types"))?;
            offsets.push(*c);
            *c += 1;
        }
        Ok((offsets, counts))
    }

    /// [`VariantColumn::layout`], plus a check that each type's column has its rows.
    fn offsets_of(discriminators: &[u8], variants: &[ColumnData]) -> Result<Vec<u32>, String> {
        let (offsets, counts) = Self::layout(discriminators, variants.len())?;
        for (i, (c, v)) in counts.iter().zip(variants).enumerate() {
            if *c as usize != v.len() {
                return Err(format!("variant {i} has {} rows, the discriminators point at {c}", v.len()));
            }
        }
        Ok(offsets)
    }

    /// Checks the columns against `types` and that the offsets are the ones the
    /// discriminators imply.
    pub(crate) fn check_types(&self, types: &[DataType]) -> Result<(), String> {
        if types.len() != self.variants.len() {
            return Err(format!("{} variant columns for {} types", self.variants.len(), types.len()));
        }
        for (t, c) in types.iter().zip(&self.variants) {
            c.check(t)?;
        }
        if Self::offsets_of(&self.discriminators, &self.variants)? != self.offsets {
            return Err("variant offsets do not follow the discriminators".into());
        }
        Ok(())
    }
}
