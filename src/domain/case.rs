//! Lower-casing for the scripts of the 19 card languages (Latin, Greek, Cyrillic). Rust's
//! `to_lowercase` carries Unicode's whole case table into the wasm binary; names and host
//! names here only need these ranges, and other characters are returned unchanged.

/// The lowercase form of `c` in Latin (with Latin-1 and Extended-A, and Romanian's
/// comma-below letters), Greek and Cyrillic.
pub fn lower(c: char) -> char {
    let n = c as u32;
    let to = |m: u32| char::from_u32(m).unwrap_or(c);
    match n {
        0x41..=0x5A => to(n + 0x20),
        // Latin-1 capitals, except the multiplication sign.
        0xC0..=0xDE if n != 0xD7 => to(n + 0x20),
        0x130 => 'i',
        0x178 => 'ÿ',
        // Latin Extended-A: capital then small, in pairs from an even or an odd start.
        0x100..=0x137 | 0x14A..=0x177 if n.is_multiple_of(2) => to(n + 1),
        0x139..=0x148 | 0x179..=0x17E if !n.is_multiple_of(2) => to(n + 1),
        // Ș, Ț (Romanian) and their cedilla forms above.
        0x218 | 0x21A => to(n + 1),
        0x386 => 'ά',
        0x388..=0x38A => to(n + 0x25),
        0x38C => 'ό',
        0x38E | 0x38F => to(n + 0x3F),
        0x391..=0x3A1 | 0x3A3..=0x3AB => to(n + 0x20),
        0x400..=0x40F => to(n + 0x50),
        0x410..=0x42F => to(n + 0x20),
        0x490 => 'ґ',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::lower;

    #[test]
    fn agrees_with_unicode_on_the_card_languages_scripts() {
        // Latin to Extended-A, Romanian's comma-below letters, modern Greek, Cyrillic.
        let ranges = [
            0x20..0x180u32,
            0x218..0x21C,
            0x386..0x3CF,
            0x400..0x450,
            0x490..0x492,
        ];
        for c in ranges.into_iter().flatten().filter_map(char::from_u32) {
            let unicode: Vec<char> = c.to_lowercase().collect();
            if unicode.len() == 1 {
                assert_eq!(lower(c), unicode[0], "{c} U+{:04X}", c as u32);
            }
        }
        assert_eq!(lower('İ'), 'i');
        assert_eq!(lower('Ж'), 'ж');
        assert_eq!(lower('Ω'), 'ω');
        assert_eq!(lower('中'), '中');
    }
}
