//! The key leads are matched by address (`listLeads?email=`, erase by email; extensions.md
//! 8): two spellings of one address a person would call the same get the same key, in
//! every script, not only A-Z. Stored in `leads.email_key` (migrations/0006) and computed
//! from the query value, so the match is an indexed equality.
//!
//! The key is Unicode's compatibility caseless match (Unicode 3.13, D146): NFKD and full
//! default case folding, twice, so folds that produce decomposable text are folded again.
//! NFKC rather than NFC because an address is typed, not copied byte for byte: a
//! full-width `ＡＤＡ＠…` from an East Asian keyboard, a ligature `ﬁ` or a `ǅ` digraph is the
//! same address to the person, as UTS #46 treats it for domain names. Full folding (not
//! `to_lowercase`): `ß`, `ẞ` and `SS` are one key, as are `Σ`, `σ` and a final `ς`, and the
//! Kelvin sign is `k`. The default folding is language-neutral: nothing says which
//! language an address is in.
//!
//! One addition, for Turkish: the default folding sends `I` to `i` and `İ` to `i` with a
//! combining dot, and leaves `ı` alone, so `IŞIK` would not find `ışık` nor `İSTANBUL`
//! `istanbul`. Without a language, both readings of the i must hold, so the dotless `ı` is
//! `i` and a dot above right after `i` or `j` (their own dot) is dropped: all four i's are
//! one letter of the key.

use caseless::Caseless;

/// The Unicode normalisation forms the key is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Nfd,
    Nfkd,
    Nfc,
}

impl Form {
    /// The name `String.prototype.normalize` takes.
    pub fn name(self) -> &'static str {
        match self {
            Form::Nfd => "NFD",
            Form::Nfkd => "NFKD",
            Form::Nfc => "NFC",
        }
    }
}

/// The match key of an address, with `normalize` putting text into a [`Form`]. The worker
/// passes the runtime's own normaliser (`js::normalize`: ICU's, in every runtime), which
/// costs no wasm; native builds pass the `unicode-normalization` crate's. Pure ASCII folds
/// to its ASCII lower case (the migration's SQL backfill relies on it; tested below).
pub fn email_key(address: &str, normalize: impl Fn(&str, Form) -> String) -> String {
    let fold = |s: &str| -> String { s.chars().default_case_fold().collect() };
    let once = fold(&normalize(address, Form::Nfd));
    let twice = fold(&normalize(&once, Form::Nfkd));
    let folded = normalize(&twice, Form::Nfkd);
    let mut key = String::with_capacity(address.len());
    for c in folded.chars() {
        match c {
            'ı' => key.push('i'),
            '\u{307}' if key.ends_with(['i', 'j']) => {}
            c => key.push(c),
        }
    }
    // NFKD text composed canonically is its NFKC: the stored key is the short form.
    normalize(&key, Form::Nfc)
}

/// The `unicode-normalization` crate's normal forms, as native builds compute them, for
/// the domain's tests (the store's use `js::normalize`, which is this natively).
#[cfg(test)]
pub fn native(text: &str, form: Form) -> String {
    use unicode_normalization::UnicodeNormalization;
    match form {
        Form::Nfd => text.nfd().collect(),
        Form::Nfkd => text.nfkd().collect(),
        Form::Nfc => text.nfc().collect(),
    }
}

#[cfg(test)]
mod tests {
    /// The key with the `unicode-normalization` crate, as native builds compute it.
    fn email_key(address: &str) -> String {
        super::email_key(address, super::native)
    }

    /// Each of `forms` has the key of `lower`, and `other` (another address) does not.
    fn same(lower: &str, forms: &[&str], other: &str) {
        let key = email_key(lower);
        for form in forms {
            assert_eq!(email_key(form), key, "{form} is {lower}");
        }
        assert_ne!(email_key(other), key, "{other} is not {lower}");
        assert_eq!(email_key(&key), key, "a key is its own key");
    }

    // One case per card language (src/domain/lang.rs), with the letters of its alphabet
    // that A-Z folding misses.

    #[test]
    fn german_umlauts_and_sharp_s() {
        same(
            "ärzte@bücher.example",
            &["ÄRZTE@BÜCHER.example", "Ärzte@Bücher.Example"],
            "arzte@bucher.example",
        );
        same(
            "jürgen@bücher.example",
            &["jürgen@BÜCHER.example", "JÜRGEN@BÜCHER.EXAMPLE"],
            "jurgen@bücher.example",
        );
        // Full folding: ß, the capital ẞ and SS are one.
        same(
            "straße@köln.example",
            &[
                "STRASSE@KÖLN.example",
                "STRAẞE@köln.example",
                "strasse@köln.example",
            ],
            "strase@köln.example",
        );
    }

    #[test]
    fn english_ascii_and_the_kelvin_sign() {
        same(
            "ada.lovelace@example.com",
            &["Ada.Lovelace@Example.COM", "ADA.LOVELACE@EXAMPLE.COM"],
            "ada.lovelace@example.co",
        );
        same(
            "kelvin@lab.example",
            &["\u{212A}ELVIN@lab.example"],
            "celvin@lab.example",
        );
        // Full-width forms from an East Asian keyboard.
        same(
            "ada@example.com",
            &["ＡＤＡ＠ＥＸＡＭＰＬＥ．ＣＯＭ"],
            "adb@example.com",
        );
    }

    #[test]
    fn bulgarian_cyrillic() {
        same(
            "йордан@пример.бг",
            &["ЙОРДАН@ПРИМЕР.БГ", "Йордан@Пример.бг"],
            "иордан@пример.бг",
        );
        same("щастлив@ъгъл.бг", &["ЩАСТЛИВ@ЪГЪЛ.БГ"], "шастлив@ъгъл.бг");
    }

    #[test]
    fn czech_hacek_and_ring() {
        same(
            "řehoř.můj@česko.example",
            &["ŘEHOŘ.MŮJ@ČESKO.EXAMPLE", "Řehoř.Můj@Česko.example"],
            "rehor.muj@cesko.example",
        );
    }

    #[test]
    fn danish_ae_o_slash_and_a_ring() {
        same(
            "søren.ærø@gård.example",
            // Å also as the Ångström sign, canonically the letter.
            &["SØREN.ÆRØ@GÅRD.EXAMPLE", "Søren.Ærø@g\u{212B}rd.example"],
            "soren.aero@gard.example",
        );
    }

    #[test]
    fn greek_sigma_final_sigma_and_tonos() {
        // Σ, σ and the final ς are one letter of the key; to_lowercase would keep ς.
        same(
            "νίκος@ελλάδα.example",
            &[
                "ΝΊΚΟΣ@ΕΛΛΆΔΑ.EXAMPLE",
                "νίκοσ@ελλάδα.example",
                "Νίκος@Ελλάδα.example",
            ],
            "νικος@ελλάδα.example",
        );
        same(
            "οδυσσέας@ιθάκη.example",
            &["ΟΔΥΣΣΈΑΣ@ΙΘΆΚΗ.EXAMPLE", "Οδυσσέας@Ιθάκη.example"],
            "οδυσεας@ιθάκη.example",
        );
    }

    #[test]
    fn spanish_enye_and_acute() {
        same(
            "ñandú.josé@españa.example",
            &[
                "ÑANDÚ.JOSÉ@ESPAÑA.EXAMPLE",
                "N\u{303}andu\u{301}.José@España.example",
            ],
            "nandu.jose@espana.example",
        );
    }

    #[test]
    fn french_accents_and_oe() {
        same(
            "éloïse.cœur@français.example",
            &[
                "ÉLOÏSE.CŒUR@FRANÇAIS.EXAMPLE",
                "Éloïse.Cœur@Français.example",
            ],
            "eloise.coeur@francais.example",
        );
    }

    #[test]
    fn croatian_d_stroke_and_digraphs() {
        // The digraph letters Ǆ ǅ ǆ are d and ž, as typed.
        same(
            "đurđa.džamija@župa.example",
            &[
                "ĐURĐA.DŽAMIJA@ŽUPA.EXAMPLE",
                "Đurđa.\u{1C5}amija@Župa.example",
                "đurđa.\u{1C4}AMIJA@župa.example",
            ],
            "durda.dzamija@zupa.example",
        );
    }

    #[test]
    fn hungarian_double_acute() {
        same(
            "őrség.ügyfél@szőlő.example",
            &["ŐRSÉG.ÜGYFÉL@SZŐLŐ.EXAMPLE"],
            "örség.ügyfél@szőlő.example",
        );
    }

    #[test]
    fn italian_grave() {
        same(
            "niccolò@città.example",
            &["NICCOLÒ@CITTÀ.EXAMPLE", "Niccolò@Città.example"],
            "niccolo@citta.example",
        );
    }

    #[test]
    fn dutch_ij_ligature() {
        same(
            "ijssel.één@ijmuiden.example",
            &[
                "IJSSEL.ÉÉN@IJMUIDEN.EXAMPLE",
                "\u{132}ssel.één@\u{133}muiden.example",
            ],
            "yssel.één@ijmuiden.example",
        );
    }

    #[test]
    fn polish_ogonek_and_stroke() {
        same(
            "łukasz.żółć@gęś.example",
            &["ŁUKASZ.ŻÓŁĆ@GĘŚ.EXAMPLE", "Łukasz.Żółć@Gęś.example"],
            "lukasz.zolc@ges.example",
        );
    }

    #[test]
    fn portuguese_tilde_and_cedilla() {
        same(
            "joão.coração@açores.example",
            &["JOÃO.CORAÇÃO@AÇORES.EXAMPLE", "João.Coração@Açores.example"],
            "joao.coracao@acores.example",
        );
    }

    #[test]
    fn romanian_comma_below() {
        // Comma below (Ș) and cedilla (Ş) are distinct letters: no confusable merging.
        same(
            "ștefan.țară@brașov.example",
            &["ȘTEFAN.ȚARĂ@BRAȘOV.EXAMPLE", "Ștefan.Țară@Brașov.example"],
            "ştefan.ţară@braşov.example",
        );
    }

    #[test]
    fn slovak_caron_acute_and_circumflex() {
        same(
            "ľuboš.ťahač@kôň.example",
            &["ĽUBOŠ.ŤAHAČ@KÔŇ.EXAMPLE", "Ľuboš.Ťahač@Kôň.example"],
            "lubos.tahac@kon.example",
        );
    }

    #[test]
    fn slovene_caron() {
        same(
            "žiga.čebela@šola.example",
            &["ŽIGA.ČEBELA@ŠOLA.EXAMPLE", "Žiga.Čebela@Šola.example"],
            "ziga.cebela@sola.example",
        );
    }

    #[test]
    fn swedish_ring_and_diaeresis_composed_or_not() {
        same(
            "åsa.öberg@örebro.example",
            // Decomposed input (as some keyboards and file systems send it) is the same.
            &[
                "ÅSA.ÖBERG@ÖREBRO.EXAMPLE",
                "A\u{30A}sa.O\u{308}berg@o\u{308}rebro.example",
            ],
            "asa.oberg@orebro.example",
        );
    }

    #[test]
    fn ukrainian_cyrillic() {
        same(
            "євгенія.їжак@ґанок.example",
            &["ЄВГЕНІЯ.ЇЖАК@ҐАНОК.EXAMPLE", "Євгенія.Їжак@Ґанок.example"],
            // Ukrainian і is not Latin i, nor ї.
            "євгенiя.іжак@ґанок.example",
        );
    }

    #[test]
    fn turkish_dotted_and_dotless_i_are_one_letter() {
        same(
            "istanbul@ışık.example",
            &[
                "İSTANBUL@IŞIK.EXAMPLE",
                "I\u{307}stanbul@ışık.example",
                "ıstanbul@işik.example",
                "ISTANBUL@İŞİK.example",
            ],
            "ıstanbul@isık.example",
        );
    }

    #[test]
    fn ascii_folds_to_its_ascii_lower_case() {
        // migrations/0006 keys pure-ASCII addresses with SQL's lower(): exact only if this holds.
        let printable: String = (' '..='~').collect();
        assert_eq!(email_key(&printable), printable.to_ascii_lowercase());
        for c in ' '..='~' {
            let s = format!("{c}{c}x@Y.example");
            assert_eq!(email_key(&s), s.to_ascii_lowercase(), "{c:?}");
        }
    }

    #[test]
    fn agrees_with_unicode_compatibility_caseless_matching() {
        // Oracle: the crate's own D146 comparison, on pairs without the Turkish i's (the
        // one place the key departs from it, on purpose).
        let words = [
            "ärzte",
            "ÄRZTE",
            "A\u{308}RZTE",
            "straße",
            "STRASSE",
            "strase",
            "ΣΊΣΥΦΟΣ",
            "σίσυφος",
            "σίσυφοσ",
            "ǅ",
            "dž",
            "ǆ",
            "ﬁ",
            "fi",
            "FI",
            "ＡＢ",
            "ab",
            "Å",
            "\u{212B}",
            "å",
            "ŉ",
            "ʼn",
            "\u{390}",
            "\u{1FD3}",
            "Ꭰ",
            "ꭰ",
            "ſ",
            "s",
            "µ",
            "μ",
            "Μ",
            "ẞ",
            "ss",
            "ǰ",
            "J\u{30C}",
            "ᾳ",
            "ΑΙ",
            "ᾼ",
            "αι",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    email_key(a) == email_key(b),
                    caseless::compatibility_caseless_match_str(a, b),
                    "{a} / {b}"
                );
            }
        }
    }
}
