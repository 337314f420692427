//! The card and lead representations (spec 2.1, 2.2), each declared once. A declaration
//! lists the fields in the representation's order; a field's kind fixes its stored type,
//! how it is shown and its SQL, and a plan mask (`if feature else value`) hides or forces
//! it when the account's plan lacks the feature. Everything else is built from the list:
//! the record (`domain::card::Card`, `domain::lead::Lead`) and its serialisation here,
//! the row decoding in `store::card_row` / `store::leads`, and the `json_object` SQLite
//! builds for reads in `store::views` (a read row then crosses into wasm as one string;
//! see bench/README.md). `sql_check` holds the SQL and the Rust output byte-for-byte equal.
//!
//! Kinds:
//!
//! | kind             | stored (record) | row          | shown as                 |
//! |------------------|-----------------|--------------|--------------------------|
//! | `int`            | `i64`           | `i64`        | a number                 |
//! | `internal`       | `i64`           | `i64`        | not shown                |
//! | `hidden`         | `Option<String>`| same         | not shown                |
//! | `text`           | `String`        | `String`     | a string                 |
//! | `opt_text`       | `Option<String>`| same         | a string or null         |
//! | `json("empty")`  | `Box<RawValue>` | JSON text    | embedded; `empty` if bad |
//! | `flag`           | `bool`          | 0/1          | a boolean                |
//! | `status(Type)`   | `Type`          | `String`     | its text; else `draft`   |
//! | `time`           | Unix ms `i64`   | `i64`        | ISO 8601 with ms (UTC)   |
//! | `opt_time`       | `Option<i64>`   | same         | ISO 8601 or null         |
//! | `derived(rust, sql)` | not stored  | not read     | `rust(&record, base_url)`; SQL `sql` |
//!
//! The declarations are `card_fields!` (domain/card.rs) and `lead_fields!`
//! (domain/lead.rs); they take a callback and tokens to put before the list, so each layer
//! builds its part where it belongs (the domain knows no rows, the store no records). This
//! file holds what the domain builds from a list.

/// Calls `$cb!` with the tokens in brackets followed by the stored fields of a list (its
/// `derived` fields dropped): the fields of the record and of the row.
macro_rules! stored {
    ($cb:ident [$($done:tt)*]) => {
        $cb! { $($done)* }
    };
    ($cb:ident [$($done:tt)*] $name:ident: derived $args:tt, $($rest:tt)*) => {
        $crate::domain::representation::stored! { $cb [$($done)*] $($rest)* }
    };
    ($cb:ident [$($done:tt)*]
     $name:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?, $($rest:tt)*) => {
        $crate::domain::representation::stored! {
            $cb [$($done)* $name: $kind $(($($arg)*))? $(if $f else $off)?,] $($rest)*
        }
    };
}
pub(crate) use stored;

/// The record type of a kind.
macro_rules! record_type {
    (int) => { i64 };
    (internal) => { i64 };
    (hidden) => { Option<String> };
    (text) => { String };
    (opt_text) => { Option<String> };
    (json($empty:literal)) => { Box<serde_json::value::RawValue> };
    (flag) => { bool };
    (status($ty:ident)) => { $ty };
    (time) => { i64 };
    (opt_time) => { Option<i64> };
}
pub(crate) use record_type;

/// `$(#[attr])* pub struct Name` with the stored fields of a list (through [`stored!`]).
macro_rules! record {
    ($(#[$attr:meta])* $name:ident;
     $($field:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        $(#[$attr])*
        pub struct $name {
            $(pub $field: $crate::domain::representation::record_type!($kind $(($($arg)*))?),)*
        }
    };
}
pub(crate) use record;

/// One shown field of a record, serialised into `$out`.
macro_rules! show_field {
    ($out:ident, $rec:ident, $base:ident, $name:ident: internal) => {};
    ($out:ident, $rec:ident, $base:ident, $name:ident: hidden) => {};
    ($out:ident, $rec:ident, $base:ident, $name:ident: derived($rust:expr, $($sql:tt)*)) => {
        $out.serialize_field(stringify!($name), &($rust)($rec, $base))?
    };
    ($out:ident, $rec:ident, $base:ident, $name:ident: time) => {
        $out.serialize_field(
            stringify!($name),
            &$crate::domain::time::iso8601($rec.$name),
        )?
    };
    ($out:ident, $rec:ident, $base:ident, $name:ident: opt_time) => {
        $out.serialize_field(
            stringify!($name),
            &$rec.$name.map($crate::domain::time::iso8601),
        )?
    };
    // int, text, opt_text, json (embedded as is), flag, status: as stored.
    ($out:ident, $rec:ident, $base:ident, $name:ident: $kind:ident $(($($arg:tt)*))?) => {
        $out.serialize_field(stringify!($name), &$rec.$name)?
    };
}
pub(crate) use show_field;

/// `impl $record { fn show_fields(..) }`: the shown fields of a list serialised into a
/// struct serialiser, in order (the view types add what is not a field of the record).
/// `base_url` is for the derived fields that need it.
macro_rules! show {
    ($record:ident;
     $($name:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        impl $record {
            /// How many fields [`Self::show_fields`] may write (a hint for the serialiser).
            pub const SHOWN: usize = [$(stringify!($name)),*].len();

            pub fn show_fields<M: serde::ser::SerializeStruct>(
                &self,
                base_url: &str,
                out: &mut M,
            ) -> Result<(), M::Error> {
                let _ = base_url;
                $($crate::domain::representation::show_field!(
                    out, self, base_url, $name: $kind $(($($arg)*))?
                );)*
                Ok(())
            }
        }
    };
}
pub(crate) use show;

/// `impl $record { fn show_as(..) }`: the plan masks of a list applied to a record.
macro_rules! masks {
    ($record:ident;
     $($name:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        impl $record {
            /// The record as the account's current features let it be shown
            /// (extensions.md 5): what a feature masks reads as its masked value.
            pub fn show_as(&mut self, features: $crate::domain::plan::Features) {
                $($(if !features.$f {
                    self.$name = $off;
                })?)*
            }
        }
    };
}
pub(crate) use masks;
