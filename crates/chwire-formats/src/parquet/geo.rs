//! GeoParquet's `geo` metadata, as ClickHouse 26.9 reads it: ClickHouse writes Point,
//! LineString, Polygon, MultiPoint, MultiLineString and MultiPolygon columns to Parquet as WKB
//! in STRING columns, naming each column's encoding and geometry type under the file's `geo`
//! key, and infers the geo type back from it. So does chwire, for a WKB column of exactly one
//! geometry type that ClickHouse has (the values are read by `chwire_arrow`'s WKB reader).
//! Anything else (WKT, several or unknown geometry types, metadata that is not such JSON) leaves
//! the column as the bytes it holds, a String, where ClickHouse refuses the file.

use chwire_proto::types::GeoKind;
use std::collections::HashMap;

/// The columns the file's `geo` metadata types, by name.
pub(super) fn geo_columns(metadata: &HashMap<String, String>) -> HashMap<String, GeoKind> {
    let Some(geo) = metadata.get("geo").and_then(|g| serde_json::from_str::<serde_json::Value>(g).ok()) else {
        return HashMap::new();
    };
    let Some(columns) = geo.get("columns").and_then(|c| c.as_object()) else { return HashMap::new() };
    columns
        .iter()
        .filter_map(|(name, column)| {
            if column.get("encoding")?.as_str()? != "WKB" {
                return None;
            }
            let [kind] = column.get("geometry_types")?.as_array()?.as_slice() else { return None };
            let kind = match kind.as_str()? {
                "Point" => GeoKind::Point,
                "LineString" => GeoKind::LineString,
                "Polygon" => GeoKind::Polygon,
                "MultiPoint" => GeoKind::MultiPoint,
                "MultiLineString" => GeoKind::MultiLineString,
                "MultiPolygon" => GeoKind::MultiPolygon,
                _ => return None,
            };
            Some((name.clone(), kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo(json: &str) -> HashMap<String, GeoKind> {
        geo_columns(&HashMap::from([("geo".to_string(), json.to_string())]))
    }

    #[test]
    fn wkb_columns_of_one_type_are_typed() {
        // As ClickHouse 26.9 writes it for `SELECT p, m` of a Point and a MultiPolygon.
        let g = geo(r#"{"columns": {"p": {"crs": "EPSG:4326", "encoding": "WKB", "geometry_types": ["Point"]},
                            "m": {"encoding": "WKB", "geometry_types": ["MultiPolygon"]}},
                "primary_column": "p", "version": "1.0.0"}"#);
        assert_eq!(g, HashMap::from([("p".to_string(), GeoKind::Point), ("m".to_string(), GeoKind::MultiPolygon)]));
    }

    #[test]
    fn anything_else_stays_bytes() {
        for json in [
            r#"{"columns": {"p": {"encoding": "WKT", "geometry_types": ["Point"]}}}"#,
            r#"{"columns": {"p": {"encoding": "WKB", "geometry_types": ["Point", "Polygon"]}}}"#,
            r#"{"columns": {"p": {"encoding": "WKB", "geometry_types": []}}}"#,
            r#"{"columns": {"p": {"encoding": "WKB", "geometry_types": ["GeometryCollection"]}}}"#,
            r#"{"columns": ["p"]}"#,
            "not json",
        ] {
            assert!(geo(json).is_empty(), "{json}");
        }
        assert!(geo_columns(&HashMap::new()).is_empty());
    }
}
