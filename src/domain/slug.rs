//! Public slugs: lowercase ASCII from the name, accents folded (product.md 1).

/// ASCII folding of the Latin letters used by the 19 card languages; other characters
/// become separators. Cyrillic and Greek are transliterated so such names still get a
/// readable slug.
fn fold(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' | 'ĉ' | 'ċ' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' | 'ģ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ķ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ř' => "r",
        'ß' => "ss",
        'ś' | 'ş' | 'š' | 'ș' => "s",
        'ţ' | 'ť' | 'ț' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        // The dot above that lower-casing leaves after `İ` (`i̇`): part of the `i`.
        '\u{307}' => "",
        'ź' | 'ż' | 'ž' => "z",
        'а' => "a",
        'б' => "b",
        'в' => "v",
        'г' | 'ґ' => "g",
        'д' => "d",
        'е' | 'ё' | 'є' | 'э' => "e",
        'ж' => "zh",
        'з' => "z",
        'и' | 'і' | 'ї' | 'ы' | 'й' => "i",
        'к' => "k",
        'л' => "l",
        'м' => "m",
        'н' => "n",
        'о' => "o",
        'п' => "p",
        'р' => "r",
        'с' => "s",
        'т' => "t",
        'у' => "u",
        'ф' => "f",
        'х' => "h",
        'ц' => "ts",
        'ч' => "ch",
        'ш' => "sh",
        'щ' => "sht",
        'ъ' | 'ь' => "",
        'ю' => "yu",
        'я' => "ya",
        'α' | 'ά' => "a",
        'β' => "v",
        'γ' => "g",
        'δ' => "d",
        'ε' | 'έ' => "e",
        'ζ' => "z",
        'η' | 'ή' => "i",
        'θ' => "th",
        'ι' | 'ί' | 'ϊ' | 'ΐ' => "i",
        'κ' => "k",
        'λ' => "l",
        'μ' => "m",
        'ν' => "n",
        'ξ' => "x",
        'ο' | 'ό' => "o",
        'π' => "p",
        'ρ' => "r",
        'σ' | 'ς' => "s",
        'τ' => "t",
        'υ' | 'ύ' | 'ϋ' | 'ΰ' => "y",
        'φ' => "f",
        'χ' => "ch",
        'ψ' => "ps",
        'ω' | 'ώ' => "o",
        _ => return None,
    })
}

/// Longest base slug kept; room is left for a `-NNN` collision suffix.
pub const MAX_BASE_LEN: usize = 80;

/// `Jürgen Groß` -> `jurgen-gross`. Never empty: falls back to `card`.
pub fn base_slug(first_name: &str, last_name: &str) -> String {
    let mut out = String::new();
    let mut pending_dash = false;
    // Per character: `str::to_lowercase`'s final-sigma rule brings two more Unicode tables
    // into the wasm, and `σ` and `ς` fold alike here.
    let name = format!("{first_name} {last_name}");
    for lc in name.chars().flat_map(char::to_lowercase) {
        let piece: Option<String> = if lc.is_ascii_alphanumeric() {
            Some(lc.to_string())
        } else {
            fold(lc).map(str::to_string)
        };
        match piece {
            Some(p) if !p.is_empty() => {
                if pending_dash && !out.is_empty() {
                    out.push('-');
                }
                pending_dash = false;
                out.push_str(&p);
            }
            Some(_) => {}
            None => pending_dash = true,
        }
    }
    if out.len() > MAX_BASE_LEN {
        out.truncate(MAX_BASE_LEN);
        while out.ends_with('-') {
            out.pop();
        }
    }
    if out.is_empty() {
        "card".to_string()
    } else {
        out
    }
}

/// The name a slug is a form of, and the rest: trailing `-<digits>` parts go
/// (`anna-2-3` -> `anna`, `-2-3`). Every slug has one root, so the one object of a root
/// (regions.md 6) hands out every slug that could collide: `anna-2` from `Anna` and from
/// `Anna 2` alike.
pub fn root_of(slug: &str) -> (&str, &str) {
    let mut root = slug;
    while let Some((head, tail)) = root.rsplit_once('-') {
        if head.is_empty() || tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        root = head;
    }
    (root, &slug[root.len()..])
}

/// The `n`th slug of a base, as the rest after its root: `rest`, then `rest-2`, ...
pub fn nth(rest: &str, n: u32) -> String {
    if n <= 1 {
        rest.to_string()
    } else {
        format!("{rest}-{n}")
    }
}

/// What stores outside a slug's region hold instead of it (regions.md 6): a keyed hash,
/// 128 bits of HMAC-SHA-256 under the worker's pepper. `kind` keeps a root's object name
/// and a slug's routing key apart.
pub fn keyed(pepper: &str, kind: &str, s: &str) -> String {
    let mac = crate::domain::signing::hmac_sha256_parts(
        pepper.as_bytes(),
        &[kind.as_bytes(), b":", s.as_bytes()],
    );
    format!("k:{}", crate::domain::signing::hex(&mac[..16]))
}

/// A slug as it can appear in a public URL; anything else is rejected before any query.
pub fn is_valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_BASE_LEN + 21
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_accents_and_separators() {
        assert_eq!(base_slug("Jürgen", "Groß"), "jurgen-gross");
        assert_eq!(base_slug("  Ana-María ", "O'Neill"), "ana-maria-o-neill");
        assert_eq!(base_slug("Łukasz", "Żółć"), "lukasz-zolc");
        assert_eq!(base_slug("Иван", "Петров"), "ivan-petrov");
        assert_eq!(base_slug("Νίκος", "Παππάς"), "nikos-pappas");
        assert_eq!(base_slug("ÆSA", "Øre"), "aesa-ore");
        assert_eq!(base_slug("李", "王"), "card");
        assert_eq!(base_slug("<script>", "x"), "script-x");
        assert_eq!(base_slug("İpek", "Şahin"), "ipek-sahin");
        assert_eq!(base_slug("ΣΟΦΊΑ", "ΟΔΥΣΣΈΑΣ"), "sofia-odysseas");
    }

    #[test]
    fn long_names_are_cut_without_trailing_dash() {
        let s = base_slug(&"a".repeat(79), "bbbb");
        assert_eq!(s.len(), 79);
        assert!(is_valid_slug(&s));
    }

    #[test]
    fn slug_shape() {
        assert!(is_valid_slug("jurgen-gross-2"));
        assert!(!is_valid_slug("Jurgen"));
        assert!(!is_valid_slug(""));
        assert!(!is_valid_slug("a/b"));
    }

    #[test]
    fn every_slug_has_one_root() {
        assert_eq!(root_of("anna"), ("anna", ""));
        assert_eq!(root_of("anna-2"), ("anna", "-2"));
        assert_eq!(root_of("anna-2-3"), ("anna", "-2-3"));
        assert_eq!(root_of("anna-b2"), ("anna-b2", ""));
        assert_eq!(root_of("2024"), ("2024", ""));
        assert_eq!(root_of("card-2024-7"), ("card", "-2024-7"));
        // `Anna 2`'s slugs and `Anna`'s second are one root's: one object hands them out.
        let base = base_slug("Anna", "2");
        let (root, rest) = root_of(&base);
        assert_eq!((root, rest), ("anna", "-2"));
        assert_eq!(format!("{root}{}", nth(rest, 2)), "anna-2-2");
        assert_eq!(format!("{root}{}", nth("", 1)), "anna");
        assert_eq!(format!("{root}{}", nth("", 3)), "anna-3");
    }

    #[test]
    fn keyed_names_hide_the_name_and_keep_kinds_apart() {
        let a = keyed("pepper", "root", "jurgen-gross");
        assert_eq!(a.len(), 34);
        assert!(a.starts_with("k:") && !a.contains("jurgen"));
        assert_eq!(a, keyed("pepper", "root", "jurgen-gross"));
        assert_ne!(a, keyed("pepper", "slug", "jurgen-gross"));
        assert_ne!(a, keyed("other", "root", "jurgen-gross"));
        // A routing key is never a valid slug, so it cannot shadow one.
        assert!(!is_valid_slug(&a));
    }
}
