//! A SCIM `userName` (provisioning.md 2: unique per account, not case-exact): which
//! characters one may hold, and the key it is unique and found by. Two spellings of one
//! name a person would call the same get one key, in every script: `ÄRZTE-u@…` and
//! `ärzte-u@…`, composed and decomposed `ä`, a full-width `ＡＤＡ`, a pasted leading
//! space. Stored in `cards.scim_user_key` with a unique index per account
//! (migrations/shard/0011) and computed from a `userName` filter's value, so uniqueness and
//! lookups are one indexed equality. The User keeps the name as written; the key is never
//! shown.
//!
//! The key is the lead address key ([`email_key`]: Unicode full case folding and NFKC,
//! the Turkish i's as one letter) with white space at either end removed. NFKC, not NFC:
//! a user name is an identifier a person types and an identity provider copies, most often
//! an address; a full-width form from an East Asian input method, a ligature `ﬁ` or a
//! no-break space is the same name on screen, and as separate Users they are the look-alike
//! duplicates this key exists to refuse. RFC 8265's UsernameCaseMapped profile maps
//! full-width forms too and refuses the other compatibility characters; names are kept as
//! written here (not refused), so folding those characters into their plain forms is the
//! nearest rule, and the same one the address of the User's email gets. What NFKC merges
//! beyond that (`x²` and `x2`) no identity provider sends as two people.

use crate::domain::email_key::{email_key, Form};

/// The key a `userName` is unique and filtered by. Pure printable ASCII keys to its ASCII
/// lower case without the spaces at either end (migrations/shard/0011 keys such names in
/// SQL: `trim(lower(name))`; tested below).
pub fn user_name_key(name: &str, normalize: impl Fn(&str, Form) -> String) -> String {
    // After the key: NFKC turns the other spaces (U+3000, no-break ones) into U+0020 first.
    email_key(name, normalize).trim().to_string()
}

/// The key's folding without the trim, for the parts of a name that `co`, `sw` and `ew`
/// filters compare (a trailing space of `sw "ada "` is part of what is asked).
pub fn part_key(part: &str, normalize: impl Fn(&str, Form) -> String) -> String {
    email_key(part, normalize)
}

/// The first character a `userName` may not hold, if any: control characters (NUL, CR,
/// LF, TAB, ... C0, DEL and C1), which break the log lines, CSV rows and HTTP headers a
/// name ends up in, and the bidirectional controls (U+061C, U+200E/F, U+202A-U+202E,
/// U+2066-U+2069), which make a name display as another (`u@x\u{202E}moc.evil`).
pub fn refused_char(name: &str) -> Option<char> {
    name.chars().find(|c| {
        c.is_control()
            || matches!(
                c,
                '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::email_key::native;

    fn key(name: &str) -> String {
        user_name_key(name, native)
    }

    /// Each of `forms` has the key of `name`, and `other` does not.
    fn same(name: &str, forms: &[&str], other: &str) {
        let k = key(name);
        for form in forms {
            assert_eq!(key(form), k, "{form:?} is {name:?}");
        }
        assert_ne!(key(other), k, "{other:?} is not {name:?}");
        assert_eq!(key(&k), k, "a key is its own key");
    }

    #[test]
    fn case_composition_width_and_surrounding_space_are_one_name() {
        same(
            "ärzte-u@x.example",
            &[
                "ÄRZTE-u@x.example",
                "Ärzte-U@X.Example",
                // Decomposed (NFD), as macOS file names and some directories send it.
                "a\u{308}rzte-u@x.example",
                "A\u{308}RZTE-U@X.EXAMPLE",
                // Full-width, from an East Asian input method.
                "ä\u{FF32}\u{FF3A}\u{FF34}\u{FF25}\u{FF0D}\u{FF55}\u{FF20}x.example",
                " ärzte-u@x.example",
                "ärzte-u@x.example \u{3000}",
                "\u{A0}ärzte-u@x.example",
            ],
            "arzte-u@x.example",
        );
        same(
            "straße@köln.example",
            &["STRASSE@KÖLN.EXAMPLE", "strasse@ko\u{308}ln.example"],
            "strase@köln.example",
        );
        same("ﬁona", &["fiona", "FIONA", "ＦＩＯＮＡ"], "f iona");
        same("jürgen", &["JÜRGEN"], "jurgen");
    }

    #[test]
    fn space_inside_a_name_stays_part_of_it() {
        same(
            "ada lovelace",
            &["Ada Lovelace", " ADA LOVELACE "],
            "adalovelace",
        );
        assert_ne!(key("ada  lovelace"), key("ada lovelace"));
    }

    #[test]
    fn printable_ascii_keys_to_its_trimmed_ascii_lower_case() {
        // migrations/shard/0011 keys these with SQL's trim(lower(name)): exact only if this
        // holds for every character.
        let printable: String = (' '..='~').collect();
        assert_eq!(key(&printable), printable.trim().to_ascii_lowercase());
        for c in ' '..='~' {
            for s in [format!(" {c}{c}x@Y "), format!("{c}"), format!("A{c}  ")] {
                assert_eq!(key(&s), s.trim_matches(' ').to_ascii_lowercase(), "{s:?}");
            }
        }
    }

    #[test]
    fn agrees_with_unicode_compatibility_caseless_matching() {
        // Oracle: the caseless crate's own D146 comparison (NFKD, full case folding) of the
        // names without their surrounding spaces.
        let names = [
            "ÄRZTE-u@x",
            "ärzte-u@x",
            "a\u{308}rzte-u@x",
            "arzte-u@x",
            "ＡＤＡ@x",
            "ada@x",
            "ADA@X",
            "\u{212B}ngström",
            "ångström",
            "STRASSE",
            "straße",
            "ẞ",
            "ss",
            "ΣΊΣΥΦΟΣ",
            "σίσυφος",
            "ﬀ",
            "ff",
            "ǅ",
            "ǆ",
            "㎏",
            "kg",
            "x²",
            "x2",
        ];
        for a in names {
            for b in names {
                assert_eq!(
                    key(a) == key(b),
                    caseless::compatibility_caseless_match_str(a, b),
                    "{a} / {b}"
                );
            }
        }
    }

    #[test]
    fn control_and_bidirectional_characters_are_refused() {
        for c in [
            '\0', '\r', '\n', '\t', '\u{7}', '\u{1B}', '\u{7F}', '\u{85}', '\u{9F}', '\u{61C}',
            '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
            '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            let name = format!("ada{c}@x.example");
            assert_eq!(refused_char(&name), Some(c), "{c:?}");
        }
        for name in [
            "ada@x.example",
            "ärzte-u@x.example",
            "a\u{308}rzte",
            "ＡＤＡ",
            "ada lovelace",
            "אדה@x.example",
            "عائشة",
            "\u{200D}",
        ] {
            assert_eq!(refused_char(name), None, "{name:?}");
        }
    }
}
