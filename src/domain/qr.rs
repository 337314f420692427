//! QR codes of card URLs (extensions.md 7): error correction level M, a quiet zone of 4
//! modules, drawn as one SVG path of horizontal runs. The symbol itself comes from
//! `qrcodegen`; this module fixes its parameters and turns it into path data.

use qrcodegen::{QrCode, QrCodeEcc, QrSegment, Version};

/// Light modules around the symbol on every side: the minimum ISO/IEC 18004 asks for, and
/// what scanners need to find the finder patterns on a busy background.
pub const QUIET_ZONE: i32 = 4;

/// An encoded symbol, ready to draw.
pub struct Symbol(QrCode);

/// `text` as a QR symbol at exactly level M, the smallest version that holds it; `None`
/// when it is too long for any version. The level is not raised even where the version
/// would have room: the spec names M, and a fixed level keeps the output predictable.
pub fn encode(text: &str) -> Option<Symbol> {
    // Byte mode only: the numeric and alphanumeric modes (digits, upper case) never fit a
    // URL with a lower-case path, and leaving them out keeps their code out of the wasm.
    let segments = [QrSegment::make_bytes(text.as_bytes())];
    QrCode::encode_segments_advanced(
        &segments,
        QrCodeEcc::Medium,
        Version::MIN,
        Version::MAX,
        None,
        false,
    )
    .ok()
    .map(Symbol)
}

impl Symbol {
    /// Modules per side of the symbol, quiet zone excluded.
    pub fn size(&self) -> i32 {
        self.0.size()
    }

    /// Modules per side of the drawing: the symbol and its quiet zone (the SVG viewBox).
    pub fn extent(&self) -> i32 {
        self.size() + 2 * QUIET_ZONE
    }

    /// Whether the module at (`x`, `y`) of the symbol (quiet zone excluded) is dark.
    pub fn dark(&self, x: i32, y: i32) -> bool {
        self.0.get_module(x, y)
    }

    /// SVG path data of the dark modules, in drawing coordinates (the quiet zone is the
    /// offset): one closed rectangle per horizontal run, each placed relative to the last
    /// (`m`): about 3 KB for the version 3 or 4 code of a short card URL.
    pub fn path(&self) -> String {
        let size = self.size();
        let mut d = String::with_capacity(2048);
        let mut at: Option<(i32, i32)> = None;
        for y in 0..size {
            let mut x = 0;
            while x < size {
                if !self.dark(x, y) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < size && self.dark(x, y) {
                    x += 1;
                }
                let (left, top) = (start + QUIET_ZONE, y + QUIET_ZONE);
                // After `z` the pen is back at the run's start: the next move is from there.
                match at {
                    None => d.push_str(&format!("M{left} {top}")),
                    Some((px, py)) => d.push_str(&format!("m{} {}", left - px, top - py)),
                }
                let width = x - start;
                d.push_str(&format!("h{width}v1h-{width}z"));
                at = Some((left, top));
            }
        }
        d
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    const URL: &str = "https://cards.example.com/c/ada-lovelace?src=qr";

    /// The dark cells a path of `M`/`m`/`h`/`v`/`H`/`V`/`z` commands fills, read as a
    /// renderer would: each closed subpath must be an axis-aligned rectangle.
    pub fn cells(d: &str, extent: i32) -> Vec<Vec<bool>> {
        let mut grid = vec![vec![false; extent as usize]; extent as usize];
        let mut tokens = Vec::new();
        let mut num = String::new();
        for c in d.chars() {
            if c.is_ascii_digit() || (c == '-' && num.is_empty()) {
                num.push(c);
                continue;
            }
            if !num.is_empty() {
                tokens.push(num.clone());
                num.clear();
            }
            if c == '-' {
                num.push(c);
            } else if c.is_ascii_alphabetic() {
                tokens.push(c.to_string());
            }
        }
        if !num.is_empty() {
            tokens.push(num);
        }
        let mut it = tokens.into_iter();
        let int = |t: Option<String>| t.and_then(|t| t.parse::<i32>().ok()).expect("number");
        let (mut x, mut y, mut start) = (0, 0, (0, 0));
        let mut corners: Vec<(i32, i32)> = vec![];
        while let Some(cmd) = it.next() {
            match cmd.as_str() {
                "M" | "m" => {
                    let (dx, dy) = (int(it.next()), int(it.next()));
                    (x, y) = if cmd == "M" {
                        (dx, dy)
                    } else {
                        (x + dx, y + dy)
                    };
                    start = (x, y);
                    corners = vec![(x, y)];
                }
                "h" => x += int(it.next()),
                "H" => x = int(it.next()),
                "v" => y += int(it.next()),
                "V" => y = int(it.next()),
                "z" => {
                    let xs = corners.iter().map(|c| c.0);
                    let ys = corners.iter().map(|c| c.1);
                    let (x0, x1) = (xs.clone().min().unwrap(), xs.max().unwrap());
                    let (y0, y1) = (ys.clone().min().unwrap(), ys.max().unwrap());
                    assert_eq!(corners.len(), 4, "a rectangle: {corners:?}");
                    for row in grid.iter_mut().take(y1 as usize).skip(y0 as usize) {
                        for cell in row.iter_mut().take(x1 as usize).skip(x0 as usize) {
                            *cell = true;
                        }
                    }
                    (x, y) = start;
                    continue;
                }
                other => panic!("unexpected path command {other}"),
            }
            if !matches!(cmd.as_str(), "M" | "m") {
                corners.push((x, y));
            }
        }
        grid
    }

    /// Decodes a module grid as a scanner would: drawn 4 pixels per module, then read by
    /// `rqrr`. Returns the level field of the format information (M is 0) and the text.
    pub fn scan(grid: &[Vec<bool>]) -> (u16, String) {
        let px = grid.len() * 4;
        let mut img = rqrr::PreparedImage::prepare_from_bitmap(px, px, |x, y| grid[y / 4][x / 4]);
        let found = img.detect_grids();
        assert_eq!(found.len(), 1, "one code in the picture");
        let (meta, text) = found[0].decode().expect("decodes");
        (meta.ecc_level, text)
    }

    #[test]
    fn the_path_decodes_to_the_exact_text() {
        let s = encode(URL).unwrap();
        let grid = cells(&s.path(), s.extent());
        let (level, text) = scan(&grid);
        assert_eq!(text, URL);
        assert_eq!(level, 0, "level M");
    }

    #[test]
    fn the_path_draws_exactly_the_dark_modules_inside_a_4_module_quiet_zone() {
        let s = encode(URL).unwrap();
        assert_eq!(s.size(), 33, "47 bytes at level M: version 4");
        assert_eq!(s.extent(), 33 + 8);
        let grid = cells(&s.path(), s.extent());
        for (y, row) in grid.iter().enumerate() {
            for (x, &cell) in row.iter().enumerate() {
                let (mx, my) = (x as i32 - QUIET_ZONE, y as i32 - QUIET_ZONE);
                let inside = (0..s.size()).contains(&mx) && (0..s.size()).contains(&my);
                assert_eq!(cell, inside && s.dark(mx, my), "({x}, {y})");
            }
        }
        // The finder patterns sit in three corners, so the dark area touches the quiet
        // zone on all four sides: the zone is exactly 4 modules wide, not more.
        let dark_rows: Vec<usize> = (0..grid.len())
            .filter(|&y| grid[y].contains(&true))
            .collect();
        let dark_cols: Vec<usize> = (0..grid.len())
            .filter(|&x| grid.iter().any(|row| row[x]))
            .collect();
        for lines in [dark_rows, dark_cols] {
            assert_eq!(lines.first(), Some(&4));
            assert_eq!(lines.last(), Some(&(grid.len() - 5)));
        }
    }

    /// Reads the 15-bit format information next to the top-left finder pattern (ISO/IEC
    /// 18004 7.9) straight from the modules, independent of any decoder: its first two
    /// bits, after the fixed mask, are the level (L 01, M 00, Q 11, H 10).
    #[test]
    fn format_information_says_level_m() {
        for text in [URL, "x", &"a".repeat(500)] {
            let s = encode(text).unwrap();
            // Bit 14 first: along row 8 from the left, skipping the timing pattern, then
            // up column 8 (qrcodegen's `draw_format_bits`, first copy).
            let cells = (0..=5)
                .map(|x| (x, 8))
                .chain([(7, 8), (8, 8), (8, 7)])
                .chain((0..=5).rev().map(|y| (8, y)));
            let bits = cells.fold(0u16, |acc, (x, y)| acc << 1 | u16::from(s.dark(x, y)));
            let format = bits ^ 0b101_0100_0001_0010;
            assert_eq!(format >> 13, 0b00, "level M for {} bytes", text.len());
        }
    }

    #[test]
    fn level_m_is_kept_where_a_higher_one_would_fit() {
        // One byte fits version 1 at level H; the generator's default would raise it.
        let s = encode("x").unwrap();
        assert_eq!(s.size(), 21);
        let (level, text) = scan(&cells(&s.path(), s.extent()));
        assert_eq!((level, text.as_str()), (0, "x"));
    }

    #[test]
    fn too_long_is_none_not_a_panic() {
        assert!(
            encode(&"a".repeat(2331)).is_some(),
            "version 40 at M holds 2331 bytes"
        );
        assert!(encode(&"a".repeat(2332)).is_none());
    }
}
