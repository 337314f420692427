//! The card row: the one place D1's card columns are decoded (0/1 booleans, JSON text),
//! shared by the card statements and the change feed's card snapshots. It decodes through
//! [`super::row`]: a derived visitor, inlined for every field, was ~10 KB of wasm.

use std::sync::OnceLock;

use serde_json::value::RawValue;

use super::columns_of;
use super::row::impl_row;
use crate::domain::card::card_fields;
use crate::domain::card::{Card, Status};
use crate::domain::representation::stored;

/// The row type of a kind of [`card_fields!`].
macro_rules! row_type {
    (flag) => {
        i64
    };
    (json($empty:literal)) => {
        String
    };
    (status($ty:ident)) => {
        String
    };
    ($kind:ident) => {
        $crate::domain::representation::record_type!($kind)
    };
}

/// A field of the row as the record's.
macro_rules! decoded {
    ($v:expr, flag) => {
        $v != 0
    };
    ($v:expr, json($empty:literal)) => {
        json($v, $empty)
    };
    // The schema's CHECK allows only the three; a card that reads as none of them is
    // kept off the public surface.
    ($v:expr, status($ty:ident)) => {
        $ty::parse(&$v).unwrap_or($ty::Draft)
    };
    ($v:expr, $kind:ident) => {
        $v
    };
}

/// Declares [`CardRow`] (whose field list is also its column list) and its decoding from
/// the stored fields of [`card_fields!`].
macro_rules! card_row {
    ($($field:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        /// A card row as D1 returns it: booleans are 0/1, timestamps Unix milliseconds, the
        /// free-form objects JSON text.
        #[derive(Debug, Clone)]
        pub struct CardRow {
            $(pub $field: row_type!($kind $(($($arg)*))?),)*
        }

        impl_row!(CardRow { $($field),* });

        impl CardRow {
            pub fn decode(self) -> Card {
                Card {
                    $($field: decoded!(self.$field, $kind $(($($arg)*))?),)*
                }
            }
        }
    };
}

card_fields!(stored card_row []);

/// JSON text from our own writes is kept as is; anything unparsable (a hand-edited row)
/// degrades to the empty value instead of failing the request.
fn json(text: String, empty: &'static str) -> Box<RawValue> {
    RawValue::from_string(text)
        .or_else(|_| RawValue::from_string(empty.to_string()))
        .unwrap_or_default()
}

/// The columns of [`CardRow`].
pub fn card_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<CardRow>(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::row::{from_json, Row};
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
        let card: CardRow = from_json(&r).unwrap();
        assert_eq!((card.id, card.slug.as_str()), (1, "x"));
        assert_eq!(card.bio.as_deref(), Some("hi"));
        assert_eq!((card.company, card.tagline), (None, None));
        assert_eq!(card.published_at, Some(1));
    }

    #[test]
    fn a_missing_or_mistyped_column_is_an_error() {
        let mut r = row();
        r.as_object_mut().unwrap().remove("slug");
        let e = from_json::<CardRow>(&r).unwrap_err();
        assert!(e.to_string().contains("`slug`"), "{e}");
        let mut r = row();
        r["id"] = json!("1");
        assert!(from_json::<CardRow>(&r).is_err());
        let mut r = row();
        r["bio"] = json!(2);
        assert!(from_json::<CardRow>(&r).is_err());
    }
}
