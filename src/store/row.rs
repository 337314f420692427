//! Row decoding: every row type reads its columns as [`Cell`]s, by name, through one
//! non-generic reader, rather than through a serde visitor per row type (each was 1-4 KB
//! of wasm). The field list of [`impl_row!`] is also the `SELECT` list (`columns_of`).

use serde::{Deserialize, Deserializer};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use worker::{D1Result, Result};

/// One column's value: what D1 answers with (JSON snapshots have the same shape).
#[derive(Debug)]
pub enum Cell {
    Null,
    Int(i64),
    Text(String),
    /// A float, boolean, array or object: no column of ours; fits no field.
    Other,
}

pub trait FromCell: Sized {
    fn from_cell(cell: Cell) -> Option<Self>;
}

impl FromCell for i64 {
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Int(i) => Some(i),
            _ => None,
        }
    }
}

impl FromCell for String {
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// NULL (or a missing column) is `None`; a value of the wrong type is an error.
impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> Option<Self> {
        match cell {
            Cell::Null => Some(None),
            cell => T::from_cell(cell).map(Some),
        }
    }
}

/// A row type: its columns, and how it is built from their values in that order.
pub trait Row: Sized {
    const FIELDS: &'static [&'static str];
    /// Rows whose text is long (pages of JSON) read it through the runtime's encoder
    /// (`js::long_text`); short texts cross faster the usual way.
    const LONG_TEXT: bool = false;

    /// The error names the first column that is missing or of the wrong type.
    fn from_cells(cells: Vec<Cell>) -> std::result::Result<Self, &'static str>;
}

/// The next field's value; a default, with the column noted in `bad`, if it does not fit.
pub fn take<T: FromCell + Default>(
    cells: &mut impl Iterator<Item = (Cell, &'static &'static str)>,
    bad: &mut Option<&'static str>,
) -> T {
    match cells.next() {
        Some((cell, name)) => T::from_cell(cell).unwrap_or_else(|| {
            bad.get_or_insert(name);
            T::default()
        }),
        None => {
            bad.get_or_insert("?");
            T::default()
        }
    }
}

/// Implements [`Row`] for a struct from its field list (`field` or `field as "column"`).
/// The list builds the struct literal, so a field left out does not compile. A trailing
/// `, long_text` sets [`Row::LONG_TEXT`] (rows with texts of kilobytes).
macro_rules! impl_row {
    ($name:ty { $($field:ident $(as $column:literal)?),* $(,)? } $(, $long:ident)?) => {
        impl $crate::store::row::Row for $name {
            const FIELDS: &'static [&'static str] =
                &[$($crate::store::row::impl_row!(@column $field $($column)?)),*];
            $(const LONG_TEXT: bool = $crate::store::row::impl_row!(@long $long);)?

            fn from_cells(
                cells: Vec<$crate::store::row::Cell>,
            ) -> std::result::Result<Self, &'static str> {
                let mut cells = cells.into_iter().zip(Self::FIELDS);
                let mut bad = None;
                // No early return: one per field would drop the fields before it, each.
                let row = Self {
                    $($field: $crate::store::row::take(&mut cells, &mut bad),)*
                };
                bad.map_or(Ok(row), Err)
            }
        }
    };
    (@column $field:ident) => { stringify!($field) };
    (@column $field:ident $column:literal) => { $column };
    (@long long_text) => { true };
}
pub(crate) use impl_row;

fn bad_column(column: &str) -> worker::Error {
    worker::Error::RustError(format!("column `{column}` is missing or of the wrong type"))
}

/// A JavaScript value as a cell: integers only when exact (as serde_wasm_bindgen reads
/// them), `undefined` (a missing column) as NULL.
fn js_cell(value: JsValue, long_text: bool) -> Cell {
    if value.is_null() || value.is_undefined() {
        return Cell::Null;
    }
    let text = if long_text {
        crate::js::long_text(&value)
    } else {
        value.as_string()
    };
    if let Some(s) = text {
        return Cell::Text(s);
    }
    match value.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0 => Cell::Int(f as i64),
        _ => Cell::Other,
    }
}

/// A row read from a JSON object (natively: tests and the snapshot decoder off wasm).
pub fn from_json<T: Row>(row: &serde_json::Value) -> Result<T> {
    use serde_json::Value;
    let cells = T::FIELDS
        .iter()
        .map(|f| match row.get(f) {
            None | Some(Value::Null) => Cell::Null,
            Some(Value::String(s)) => Cell::Text(s.clone()),
            Some(Value::Number(n)) => n.as_i64().map_or(Cell::Other, Cell::Int),
            Some(_) => Cell::Other,
        })
        .collect();
    T::from_cells(cells).map_err(bad_column)
}

/// A D1 row as the JavaScript object it is.
struct Js(JsValue);

impl<'de> Deserialize<'de> for Js {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        serde_wasm_bindgen::preserve::deserialize(d).map(Js)
    }
}

/// The row objects of a result, untouched; non-generic, so once in the binary.
fn js_rows(result: &D1Result) -> Result<Vec<JsValue>> {
    Ok(result.results::<Js>()?.into_iter().map(|r| r.0).collect())
}

/// The rows of a result as JSON objects (column name to value), for statements whose
/// columns are not known in advance (a move copies every column there is). Each row goes
/// through `JSON.stringify` and serde_json, not serde's JsValue deserializer: the binary
/// has the first already, the second would add its any-value machinery.
pub fn json_rows(result: &D1Result) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    js_rows(result)?
        .iter()
        .map(|row| {
            let text = js_sys::JSON::stringify(row)
                .map_err(|_| worker::Error::RustError("a row is no JSON".into()))?;
            let text = String::from(text);
            serde_json::from_str(&text).map_err(|e| worker::Error::RustError(e.to_string()))
        })
        .collect()
}

/// The rows of a result, decoded. The column names are read once, from the first row
/// (every row of a result has the same columns in the same order); each row is then one
/// `Object.values` and indexed reads, instead of a property lookup by a freshly made
/// JavaScript string per column (3,700 of them for a page of 100 cards).
pub fn decode<T: Row>(result: &D1Result) -> Result<Vec<T>> {
    let rows = js_rows(result)?;
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    let keys: Vec<String> = js_sys::Object::keys(first.unchecked_ref::<js_sys::Object>())
        .iter()
        .map(|k| k.as_string().unwrap_or_default())
        .collect();
    let positions: Vec<Option<u32>> = T::FIELDS
        .iter()
        .map(|f| keys.iter().position(|k| k == f).map(|p| p as u32))
        .collect();
    rows.iter()
        .map(|row| {
            let values = js_sys::Object::values(row.unchecked_ref::<js_sys::Object>());
            let cells = positions
                .iter()
                .map(|p| p.map_or(Cell::Null, |i| js_cell(values.get(i), T::LONG_TEXT)))
                .collect();
            T::from_cells(cells).map_err(bad_column)
        })
        .collect()
}

/// How many rows a result has.
pub fn count(result: &D1Result) -> Result<usize> {
    Ok(js_rows(result)?.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, PartialEq)]
    struct R {
        id: i64,
        kind: String,
        note: Option<String>,
    }
    impl_row!(R { id, kind as "type", note });

    struct Page {
        json: String,
    }
    impl_row!(Page { json }, long_text);

    #[test]
    fn long_text_is_declared_per_row_type() {
        assert!(Page::LONG_TEXT && !R::LONG_TEXT);
        let p: Page = from_json(&json!({"json": "[]"})).unwrap();
        assert_eq!(p.json, "[]");
    }

    #[test]
    fn decodes_by_column_name() {
        assert_eq!(R::FIELDS, &["id", "type", "note"]);
        let r: R = from_json(&json!({"note": null, "type": "a", "id": 2, "x": [1]})).unwrap();
        assert_eq!(
            r,
            R {
                id: 2,
                kind: "a".into(),
                note: None
            }
        );
        let r: R = from_json(&json!({"id": 2, "type": "a"})).unwrap();
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_missing_or_mistyped_column_is_an_error() {
        let e = from_json::<R>(&json!({"id": 2})).unwrap_err();
        assert!(e.to_string().contains("`type`"), "{e}");
        assert!(from_json::<R>(&json!({"id": 2.5, "type": "a"})).is_err());
        assert!(from_json::<R>(&json!({"id": "2", "type": "a"})).is_err());
        assert!(from_json::<R>(&json!({"id": 2, "type": "a", "note": 1})).is_err());
        assert!(from_json::<R>(&json!({"id": 2, "type": true})).is_err());
    }
}
