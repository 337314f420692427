//! The leads CSV of the account area (account-area.md 2): RFC 4180 in UTF-8, CRLF line
//! ends, a header row, then one row per lead with the fields of the API's representation
//! (spec 2.2, without its `card`) in its order. The columns come from `lead_fields!`, so
//! the file and the API cannot name or order them differently.
//!
//! Rows are written into the caller's buffer one at a time, so the worker can send an
//! account's leads (there may be 100,000) a page at a time instead of building one string.
//!
//! Text cells are guarded against formula injection as OWASP advises: one that begins
//! with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, which makes a
//! spreadsheet read it as text. The `'` stays in the value: a phone `+49 30 1234` reads
//! `'+49 30 1234`, as the spec asks. Numbers and timestamps are written by us and are
//! never guarded.

use std::fmt::Write;

use super::lead::{lead_fields, Lead};
use super::time::iso8601;

/// The download's media type; `header=present` (RFC 4180, section 3) says the first row
/// names the columns.
pub const MEDIA_TYPE: &str = "text/csv; charset=utf-8; header=present";

/// The cells of one row, separated by commas as they are begun.
struct Cells<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Cells<'a> {
    fn new(out: &'a mut String) -> Self {
        Cells { out, first: true }
    }

    /// The buffer, positioned at the start of the next cell.
    fn next(&mut self) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out
    }

    fn end(self) {
        self.out.push_str("\r\n");
    }
}

/// The header cell of a field, if it is shown (`internal` and `hidden` fields are not).
macro_rules! column_name {
    ($cells:ident, $name:ident: internal) => {};
    ($cells:ident, $name:ident: hidden) => {};
    ($cells:ident, $name:ident: $kind:ident) => {
        $cells.next().push_str(stringify!($name))
    };
}

/// The cell of a field. Only the kinds a lead has are written: a new kind in
/// `lead_fields!` fails to compile here until it is given a form in the file.
macro_rules! cell {
    ($cells:ident, $lead:ident, $name:ident: internal) => {};
    ($cells:ident, $lead:ident, $name:ident: hidden) => {};
    ($cells:ident, $lead:ident, $name:ident: int) => {
        let _ = write!($cells.next(), "{}", $lead.$name);
    };
    ($cells:ident, $lead:ident, $name:ident: text) => {
        text($cells.next(), &$lead.$name)
    };
    ($cells:ident, $lead:ident, $name:ident: opt_text) => {
        let cell = $cells.next();
        if let Some(value) = &$lead.$name {
            text(cell, value);
        }
    };
    ($cells:ident, $lead:ident, $name:ident: time) => {
        $cells.next().push_str(&iso8601($lead.$name))
    };
    ($cells:ident, $lead:ident, $name:ident: opt_time) => {
        let cell = $cells.next();
        if let Some(ms) = $lead.$name {
            cell.push_str(&iso8601(ms));
        }
    };
}

macro_rules! rows {
    ($($name:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        /// Appends the header row: the shown fields' names, in the representation's order.
        pub fn header(out: &mut String) {
            let mut cells = Cells::new(out);
            $(column_name!(cells, $name: $kind);)*
            cells.end();
        }

        /// Appends one lead's row: null as an empty cell, timestamps in ISO 8601 UTC.
        pub fn row(out: &mut String, lead: &Lead) {
            let mut cells = Cells::new(out);
            $(cell!(cells, lead, $name: $kind);)*
            cells.end();
        }
    };
}

lead_fields!(rows);

/// A text cell: the formula guard, then quotes (inner ones doubled) when the value holds a
/// comma, a quote, CR or LF.
fn text(out: &mut String, value: &str) {
    let guard = value.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quote = value.contains([',', '"', '\r', '\n']);
    if quote {
        out.push('"');
    }
    if guard {
        out.push('\'');
    }
    if quote {
        for (i, part) in value.split('"').enumerate() {
            if i > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    } else {
        out.push_str(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead(name: Option<&str>, phone: Option<&str>, message: Option<&str>) -> Lead {
        Lead {
            id: 7,
            card_id: 3,
            name: name.map(Into::into),
            email: Some("ada@example.com".into()),
            phone: phone.map(Into::into),
            message: message.map(Into::into),
            note: None,
            source: Some("qr".into()),
            consent_at: None,
            created_at: 1_795_358_596_123,
            updated_at: 1_795_358_600_000,
        }
    }

    fn row_of(lead: &Lead) -> String {
        let mut out = String::new();
        row(&mut out, lead);
        out
    }

    /// The records of a file, read by the `csv` crate as RFC 4180 (the oracle).
    fn read(file: &str) -> Vec<Vec<String>> {
        ::csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(file.as_bytes())
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect()
    }

    /// A value as a spreadsheet gets it back: the guard's `'` is what it adds.
    fn guarded(value: &str) -> String {
        if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            format!("'{value}")
        } else {
            value.to_string()
        }
    }

    #[test]
    fn the_header_is_the_api_representation_in_order() {
        let mut out = String::new();
        header(&mut out);
        assert_eq!(
            out,
            "id,card_id,name,email,phone,message,note,source,consent_at,created_at,\
             updated_at\r\n"
        );
        // The same names as the API's JSON, in the order it writes them.
        let l = lead(Some("Ada"), None, None);
        let json = serde_json::to_string(&l.view(None)).unwrap();
        let keys = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&json)
            .unwrap()
            .len();
        let names: Vec<&str> = out.trim_end().split(',').collect();
        assert_eq!(names.len(), keys);
        let at: Vec<usize> = names
            .iter()
            .map(|n| json.find(&format!("\"{n}\":")).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{json}");
    }

    #[test]
    fn nulls_are_empty_and_timestamps_iso8601_utc() {
        let mut l = lead(None, None, None);
        l.email = None;
        l.source = None;
        assert_eq!(
            row_of(&l),
            "7,3,,,,,,,,2026-11-22T14:43:16.123Z,2026-11-22T14:43:20.000Z\r\n"
        );
        l.consent_at = Some(0);
        assert!(row_of(&l).starts_with("7,3,,,,,,,1970-01-01T00:00:00.000Z,"));
    }

    #[test]
    fn cells_are_quoted_only_when_they_must_be() {
        let l = lead(
            Some("Lovelace, Ada"),
            None,
            Some("She said \"hi\"\r\nthen left\nand\rcame back"),
        );
        assert_eq!(
            row_of(&l),
            "7,3,\"Lovelace, Ada\",ada@example.com,,\"She said \"\"hi\"\"\r\nthen left\n\
             and\rcame back\",,qr,,2026-11-22T14:43:16.123Z,2026-11-22T14:43:20.000Z\r\n"
        );
        let plain = row_of(&lead(
            Some("Ada Lovelace"),
            Some("030 1234"),
            Some("it's ok"),
        ));
        assert!(plain.starts_with("7,3,Ada Lovelace,ada@example.com,030 1234,it's ok,,qr,"));
        assert_eq!(read(&plain)[0][2], "Ada Lovelace");
    }

    #[test]
    fn formulas_are_guarded_by_every_prefix() {
        for (value, cell) in [
            (
                "=HYPERLINK(\"http://x\")",
                "\"'=HYPERLINK(\"\"http://x\"\")\"",
            ),
            ("=1+2", "'=1+2"),
            ("+49 30 1234567", "'+49 30 1234567"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tcmd", "'\tcmd"),
            ("\rcmd", "\"'\rcmd\""),
            ("=a,b", "\"'=a,b\""),
            // Only the first character counts.
            ("a=1", "a=1"),
            ("'quoted", "'quoted"),
            (" =1", " =1"),
        ] {
            let row = row_of(&lead(Some(value), None, None));
            assert!(
                row.starts_with(&format!("7,3,{cell},")),
                "{value:?}: {row:?}"
            );
            assert_eq!(read(&row)[0][2], guarded(value), "{value:?}");
        }
        let phone = row_of(&lead(None, Some("+49 (30) 123-45"), None));
        assert_eq!(read(&phone)[0][4], "'+49 (30) 123-45");
    }

    #[test]
    fn unicode_passes_through_unchanged() {
        let name = "Jürgen Groß 東京 مرحبا 👩‍💻";
        let row = row_of(&lead(Some(name), None, Some("Straße 1\nÖsterreich")));
        assert!(row.contains(name));
        let back = read(&row);
        assert_eq!(back[0][2], name);
        assert_eq!(back[0][5], "Straße 1\nÖsterreich");
    }

    #[test]
    fn every_awkward_value_round_trips_through_an_rfc_4180_reader() {
        let alphabet = [
            ",", "\"", "\r", "\n", "=", "+", "-", "@", "\t", "'", "a", "ü", " ",
        ];
        let mut values = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = values
                .iter()
                .flat_map(|v| alphabet.iter().map(move |c| format!("{v}{c}")))
                .collect();
            values.extend(longer);
        }
        values.sort();
        values.dedup();
        // One file, streamed: the header, then a row per value.
        let mut file = String::new();
        header(&mut file);
        for v in &values {
            row(&mut file, &lead(Some(v), Some(v), Some(v)));
        }
        let records = read(&file);
        assert_eq!(records.len(), values.len() + 1);
        assert_eq!(records[0][0], "id");
        for (record, v) in records[1..].iter().zip(&values) {
            assert_eq!(record.len(), 11);
            for cell in [2, 4, 5] {
                assert_eq!(record[cell], guarded(v), "{v:?}");
            }
            assert_eq!(record[9], "2026-11-22T14:43:16.123Z");
        }
        // Every line ends in CRLF: outside quotes there is no bare LF or CR.
        assert!(file.ends_with("\r\n"));
        let mut quoted = false;
        let bytes = file.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'"' => quoted = !quoted,
                b'\n' if !quoted => assert_eq!(bytes[i - 1], b'\r'),
                b'\r' if !quoted => assert_eq!(bytes.get(i + 1), Some(&b'\n')),
                _ => {}
            }
        }
    }
}
