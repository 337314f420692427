//! The 19 content languages of spec 2.5.

pub const LANGUAGES: [&str; 19] = [
    "de", "en", "bg", "cs", "da", "el", "es", "fr", "hr", "hu", "it", "nl", "pl", "pt", "ro", "sk",
    "sl", "sv", "uk",
];

/// [`LANGUAGES`] as an SQL list, for the representation's SQL (a unit test holds them
/// equal). A macro, so `concat!` takes it and the statement stays one literal.
macro_rules! language_codes_sql {
    () => {
        "'de','en','bg','cs','da','el','es','fr','hr','hu','it','nl','pl','pt','ro','sk','sl','sv','uk'"
    };
}
pub(crate) use language_codes_sql;

/// Default `language` of a new card (product.md 1).
pub const DEFAULT_LANGUAGE: &str = "en";

pub fn is_language(code: &str) -> bool {
    LANGUAGES.contains(&code)
}

/// `[language]` plus the translation keys that are language codes, sorted, unique.
pub fn available_languages(language: &str, translations: &serde_json::Value) -> Vec<String> {
    let codes = translations.as_object().into_iter().flat_map(|m| m.keys());
    let mut langs: Vec<String> = std::iter::once(language)
        .chain(codes.map(String::as_str).filter(|k| is_language(k)))
        .map(str::to_string)
        .collect();
    langs.sort_unstable();
    langs.dedup();
    langs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_sql_language_list_is_the_domains() {
        let listed: Vec<&str> = language_codes_sql!()
            .split(',')
            .map(|c| c.trim_matches('\''))
            .collect();
        assert_eq!(listed, LANGUAGES);
    }

    #[test]
    fn available_languages_include_base_and_known_translations() {
        let t = json!({"fr": {}, "de": {}, "xx": {}, "en": {}});
        assert_eq!(available_languages("en", &t), ["de", "en", "fr"]);
        assert_eq!(available_languages("sv", &json!({})), ["sv"]);
        assert_eq!(available_languages("sv", &json!(null)), ["sv"]);
    }
}
