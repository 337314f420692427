//! The card and lead representations of the read endpoints (spec 2.1, 2.2), built by
//! SQLite as JSON text: a read row then crosses into wasm as one string instead of one
//! value per column, and is never decoded, rebuilt and serialised again (listCards 100
//! spent ~30 % of its CPU on that). The SQL is written from the same declarations as the
//! Rust records and their serialisation (`domain::representation`); `sql_check` holds
//! the two byte-for-byte equal on the same rows, special characters and plan masks
//! included.

use super::row::impl_row;
use super::SqlValue;
use crate::domain::card::card_fields;
use crate::domain::lead::lead_fields;
use crate::domain::plan::Features;

/// One row's representation, as JSON text.
pub struct JsonText {
    pub json: String,
}
// A page of cards is one string (`joined`), ~145 KB for 100 cards.
impl_row!(JsonText { json }, long_text);

impl AsRef<str> for JsonText {
    fn as_ref(&self) -> &str {
        &self.json
    }
}

/// What a card's representation depends on besides its row: bound as `?1` to `?4` of
/// every statement that uses [`card_object`]. The features are in the order of
/// `feature_param!`.
pub fn card_args(base_url: &str, features: Features) -> [SqlValue; 4] {
    [
        base_url.trim_end_matches('/').into(),
        features.lead_form.into(),
        features.white_label.into(),
        features.advanced_analytics.into(),
    ]
}

/// The parameter a plan mask's feature is bound to (by [`card_args`]).
macro_rules! feature_param {
    (lead_form) => {
        "?2"
    };
    (white_label) => {
        "?3"
    };
    (advanced_analytics) => {
        "?4"
    };
}

/// A masked field's value when the feature is off, in SQL.
macro_rules! off_value {
    (None) => {
        "NULL"
    };
    (true) => {
        "1"
    };
    (false) => {
        "0"
    };
}

/// [`crate::domain::time::iso8601`] of a millisecond column: UTC with milliseconds.
macro_rules! timestamp {
    ($($c:tt)*) => {
        concat!(
            "iif(",
            $($c)*,
            " IS NULL, NULL, strftime('%Y-%m-%dT%H:%M:%S', ",
            $($c)*,
            " / 1000, 'unixepoch') || printf('.%03dZ', ",
            $($c)*,
            " % 1000))"
        )
    };
}

/// A 0/1 condition as a JSON boolean. `json('true')` is a constant SQLite evaluates once
/// per statement; `json(iif(..))` parsed per row (~30 % more for the flags of 100 cards).
macro_rules! flag {
    ($($c:tt)*) => {
        concat!("iif(", $($c)*, ", json('true'), json('false'))")
    };
}

/// Stored JSON text as is; text that does not parse reads as `empty` (as `CardRow`'s).
/// A column that is `empty`, the usual case, skips the two parses (validate, embed).
macro_rules! embedded {
    ($empty:literal, $($c:tt)*) => {
        concat!(
            "iif(",
            $($c)*,
            " = '",
            $empty,
            "', json('",
            $empty,
            "'), ",
            "iif(json_valid(",
            $($c)*,
            "), json(",
            $($c)*,
            "), json('",
            $empty,
            "')))"
        )
    };
}

/// A field's value in SQL from its kind and its column expression (`[..]`, masked).
macro_rules! kind_sql {
    (flag [$($c:tt)*]) => { flag!($($c)*) };
    (json($empty:literal) [$($c:tt)*]) => { embedded!($empty, $($c)*) };
    (status($ty:ident) [$($c:tt)*]) => {
        concat!("iif(", $($c)*, " IN ('active', 'draft', 'archived'), ", $($c)*, ", 'draft')")
    };
    (time [$($c:tt)*]) => { timestamp!($($c)*) };
    (opt_time [$($c:tt)*]) => { timestamp!($($c)*) };
    (derived($rust:expr, $($sql:tt)*) [$($c:tt)*]) => { $($sql)* };
    // int, text, opt_text: the column.
    ($kind:ident [$($c:tt)*]) => { $($c)* };
}

/// `, 'name', value` of a field (`$sep` before the first is empty); nothing if not shown.
macro_rules! field_sql {
    ($sep:literal $name:ident: internal) => {
        ""
    };
    ($sep:literal $name:ident: hidden) => {
        ""
    };
    ($sep:literal $name:ident: $kind:ident $(($($arg:tt)*))? if $f:ident else $off:tt) => {
        concat!(
            $sep,
            "'",
            stringify!($name),
            "', ",
            kind_sql!($kind $(($($arg)*))? [concat!(
                "iif(", feature_param!($f), ", ", stringify!($name), ", ", off_value!($off), ")"
            )])
        )
    };
    ($sep:literal $name:ident: $kind:ident $(($($arg:tt)*))?) => {
        concat!(
            $sep,
            "'",
            stringify!($name),
            "', ",
            kind_sql!($kind $(($($arg)*))? [stringify!($name)])
        )
    };
}

/// The `json_object` of a field list, columns unqualified.
macro_rules! json_object {
    ($first:ident: $k0:ident $(($($a0:tt)*))? $(if $f0:ident else $o0:tt)?,
     $($name:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        concat!(
            "json_object(",
            field_sql!("" $first: $k0 $(($($a0)*))? $(if $f0 else $o0)?),
            $(field_sql!(", " $name: $kind $(($($arg)*))? $(if $f else $off)?),)*
            ")"
        )
    };
}

/// A card row's representation as a JSON object (`?1` base URL, `?2`-`?4` the features
/// of [`card_args`]), columns of `cards` unqualified.
pub fn card_object() -> &'static str {
    card_fields!(json_object)
}

/// A page of representations as one row: `items`, a `SELECT` of `json` with its sort keys
/// `k1`, `k2` (both descending, as every page here is ordered), joined with commas in that
/// order; no row for an empty page. One string crosses into wasm instead of one row per
/// item (JavaScript objects, `Object.values` and a string each).
pub fn joined(items: &str) -> String {
    format!(
        "SELECT group_concat(json, ',' ORDER BY k1 DESC, k2 DESC) AS json \
         FROM ({items}) HAVING count(*) > 0"
    )
}

/// A lead row's representation without its card, columns of `leads` unqualified.
pub fn lead_object() -> &'static str {
    lead_fields!(json_object)
}

/// A template row's representation (teams.md 1), columns of `templates t`: its counts of
/// the cards that use it and of those still to bring in line with its latest change.
pub fn template_object() -> &'static str {
    concat!(
        "json_object('id', t.id, 'name', t.name, 'layout', t.layout, 'values', json(t.fields), \
         'locked', json(t.locked), 'default', ",
        flag!("t.is_default"),
        ", 'cards', (SELECT COUNT(*) FROM cards c WHERE c.account_id = t.account_id \
         AND c.template_id = 'tpl_' || t.id), 'pending', (SELECT COUNT(*) FROM cards c \
         WHERE c.account_id = t.account_id AND c.template_id = 'tpl_' || t.id \
         AND IFNULL(c.template_rev, 0) < t.rev), 'created_at', ",
        timestamp!("t.created_at"),
        ", 'updated_at', ",
        timestamp!("t.updated_at"),
        ")"
    )
}
