//! The card row: the one place D1's card columns are decoded (0/1 booleans, JSON text),
//! shared by the card statements and the change feed's card snapshots.

use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::columns_of;
use crate::domain::card::{Card, Status};

/// Declares [`CardRow`] and its column list from one field list, so the two cannot drift.
macro_rules! card_row {
    ($($field:ident: $ty:ty,)*) => {
        /// A card row as D1 returns it: booleans are 0/1, timestamps Unix milliseconds, the
        /// free-form objects JSON text.
        #[derive(Debug, Clone)]
        pub struct CardRow {
            $(pub $field: $ty,)*
        }

        impl CardRow {
            /// The columns, in field order: what `columns_of` and `json_object_of` read.
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The error names the first column that is missing or of the wrong type.
            fn from_cells(cells: Vec<Cell>) -> Result<CardRow, &'static str> {
                let mut cells = cells.into_iter().zip(CardRow::FIELDS);
                let mut bad = None;
                // No early return: one per field would drop the fields before it, each.
                let row = CardRow {
                    $($field: take(&mut cells, &mut bad),)*
                };
                bad.map_or(Ok(row), Err)
            }
        }
    };
}

card_row! {
    id: i64,
    account_id: i64,
    slug: String,
    title: String,
    first_name: String,
    last_name: String,
    job_title: Option<String>,
    company: Option<String>,
    bio: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    website: Option<String>,
    booking_url: Option<String>,
    video_url: Option<String>,
    address: Option<String>,
    tagline: Option<String>,
    company_registration: Option<String>,
    vat_id: Option<String>,
    social_links: String,
    design_config: String,
    section_visibility: String,
    template_id: Option<String>,
    card_type: Option<String>,
    is_public: i64,
    is_password_protected: i64,
    show_branding: i64,
    show_lead_form: i64,
    seo_title: Option<String>,
    seo_description: Option<String>,
    seo_indexable: i64,
    status: String,
    language: String,
    translations: String,
    published_at: Option<i64>,
    expires_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

/// One column's value. The row decodes through this small type rather than a derived
/// visitor: the derived one, inlined for every field, was ~10 KB of wasm.
enum Cell {
    Null,
    Int(i64),
    Text(String),
}

trait FromCell: Sized {
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

/// The next field's value; a default, with the column noted in `bad`, if it does not fit.
fn take<T: FromCell + Default>(
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

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CellVisitor)
    }
}

struct CellVisitor;

impl<'de> Visitor<'de> for CellVisitor {
    type Value = Cell;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("null, an integer or a string")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Cell, D::Error> {
        Cell::deserialize(d)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
        Ok(Cell::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
        i64::try_from(v)
            .map(Cell::Int)
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
        Ok(Cell::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cell, E> {
        Ok(Cell::Text(v))
    }
}

/// A column name as its index in [`CardRow::FIELDS`]; `None` for a column the row does
/// not have.
struct Column;

impl<'de> DeserializeSeed<'de> for Column {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Column {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a column name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(CardRow::FIELDS.iter().position(|f| *f == v))
    }
}

struct RowVisitor;

impl<'de> Visitor<'de> for RowVisitor {
    type Value = CardRow;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a card row")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CardRow, A::Error> {
        let mut cells: Vec<Cell> = CardRow::FIELDS.iter().map(|_| Cell::Null).collect();
        while let Some(column) = map.next_key_seed(Column)? {
            match column {
                Some(i) => cells[i] = map.next_value()?,
                None => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        // A missing column reads as NULL: fine for an `Option`, an error otherwise.
        CardRow::from_cells(cells).map_err(|column| {
            de::Error::custom(format_args!(
                "column `{column}` is missing or of the wrong type"
            ))
        })
    }
}

impl<'de> Deserialize<'de> for CardRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("CardRow", CardRow::FIELDS, RowVisitor)
    }
}

/// JSON text from our own writes is kept as is; anything unparsable (a hand-edited row)
/// degrades to the empty value instead of failing the request.
fn json(text: String, empty: &'static str) -> Box<RawValue> {
    RawValue::from_string(text)
        .or_else(|_| RawValue::from_string(empty.to_string()))
        .unwrap_or_default()
}

impl CardRow {
    pub fn decode(self) -> Card {
        Card {
            id: self.id,
            account_id: self.account_id,
            slug: self.slug,
            title: self.title,
            first_name: self.first_name,
            last_name: self.last_name,
            job_title: self.job_title,
            company: self.company,
            bio: self.bio,
            email: self.email,
            phone: self.phone,
            website: self.website,
            booking_url: self.booking_url,
            video_url: self.video_url,
            address: self.address,
            tagline: self.tagline,
            company_registration: self.company_registration,
            vat_id: self.vat_id,
            social_links: json(self.social_links, "[]"),
            design_config: json(self.design_config, "{}"),
            section_visibility: json(self.section_visibility, "{}"),
            template_id: self.template_id,
            card_type: self.card_type,
            is_public: self.is_public != 0,
            is_password_protected: self.is_password_protected != 0,
            show_branding: self.show_branding != 0,
            show_lead_form: self.show_lead_form != 0,
            seo_title: self.seo_title,
            seo_description: self.seo_description,
            seo_indexable: self.seo_indexable != 0,
            // The schema's CHECK allows only the three; a card that reads as none of them
            // is kept off the public surface.
            status: Status::parse(&self.status).unwrap_or(Status::Draft),
            language: self.language,
            translations: json(self.translations, "{}"),
            published_at: self.published_at,
            expires_at: self.expires_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// The columns of [`CardRow`].
pub fn card_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<CardRow>(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn row() -> Value {
        let mut row = serde_json::Map::new();
        for f in CardRow::FIELDS {
            row.insert(f.to_string(), Value::Null);
        }
        for f in [
            "id",
            "account_id",
            "published_at",
            "created_at",
            "updated_at",
        ] {
            row.insert(f.to_string(), json!(1));
        }
        for f in [
            "is_public",
            "is_password_protected",
            "show_branding",
            "show_lead_form",
        ] {
            row.insert(f.to_string(), json!(0));
        }
        row.insert("seo_indexable".into(), json!(1));
        for f in [
            "slug",
            "title",
            "first_name",
            "last_name",
            "status",
            "language",
        ] {
            row.insert(f.to_string(), json!("x"));
        }
        for f in [
            "social_links",
            "design_config",
            "section_visibility",
            "translations",
        ] {
            row.insert(f.to_string(), json!("{}"));
        }
        row.insert("bio".into(), json!("hi"));
        row.insert("company".into(), Value::Null);
        row.insert("not_a_column".into(), json!([1, {"a": 2}]));
        Value::Object(row)
    }

    #[test]
    fn decodes_nulls_missing_options_and_ignores_other_columns() {
        let mut r = row();
        r.as_object_mut().unwrap().remove("tagline");
        let card: CardRow = serde_json::from_value(r).unwrap();
        assert_eq!((card.id, card.slug.as_str()), (1, "x"));
        assert_eq!(card.bio.as_deref(), Some("hi"));
        assert_eq!((card.company, card.tagline), (None, None));
        assert_eq!(card.published_at, Some(1));
    }

    #[test]
    fn a_missing_or_mistyped_column_is_an_error() {
        let mut r = row();
        r.as_object_mut().unwrap().remove("slug");
        let e = serde_json::from_value::<CardRow>(r).unwrap_err();
        assert!(e.to_string().contains("`slug`"), "{e}");
        let mut r = row();
        r["id"] = json!("1");
        assert!(serde_json::from_value::<CardRow>(r).is_err());
        let mut r = row();
        r["bio"] = json!(2);
        assert!(serde_json::from_value::<CardRow>(r).is_err());
    }
}
