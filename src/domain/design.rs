//! How a card page looks (extensions.md 7): the `design_config` keys the page honours,
//! `template_id`, and the colour arithmetic that keeps any accent readable.
//!
//! Writes are checked by [`validate`] (a wrong shape is a 422 naming the dotted key);
//! reads go through [`Design::read`], which ignores whatever it does not understand, so a
//! card stored before these rules still renders.

use serde_json::{Map, Value};

use super::validation::Rule;
use super::weburl;

/// Image URLs are links like the card's others (spec 2.5: 500 characters).
const MAX_URL: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Template {
    #[default]
    Classic,
    Modern,
    Minimal,
}

impl Template {
    /// An unknown or missing `template_id` renders `classic`.
    pub fn of(template_id: Option<&str>) -> Template {
        match template_id.map(str::trim) {
            Some("modern") => Template::Modern,
            Some("minimal") => Template::Minimal,
            _ => Template::Classic,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Template::Classic => "classic",
            Template::Modern => "modern",
            Template::Minimal => "minimal",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
    /// Follows the visitor's system setting.
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Font {
    #[default]
    System,
    Serif,
    Rounded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ButtonStyle {
    #[default]
    Filled,
    Outline,
}

fn theme(s: &str) -> Option<Theme> {
    match s {
        "light" => Some(Theme::Light),
        "dark" => Some(Theme::Dark),
        "auto" => Some(Theme::Auto),
        _ => None,
    }
}

fn font(s: &str) -> Option<Font> {
    match s {
        "system" => Some(Font::System),
        "serif" => Some(Font::Serif),
        "rounded" => Some(Font::Rounded),
        _ => None,
    }
}

fn button_style(s: &str) -> Option<ButtonStyle> {
    match s {
        "filled" => Some(ButtonStyle::Filled),
        "outline" => Some(ButtonStyle::Outline),
        _ => None,
    }
}

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// The accent of every template when `accent_color` is unset: a blue that reads on white
/// (the page's buttons, the wallet passes' background).
pub const DEFAULT_ACCENT: Rgb = Rgb(0x25, 0x63, 0xeb);

impl Rgb {
    pub const BLACK: Rgb = Rgb(0, 0, 0);
    pub const WHITE: Rgb = Rgb(255, 255, 255);

    /// `#rrggbb` exactly (either case); nothing else.
    pub fn parse(s: &str) -> Option<Rgb> {
        let hex = s.strip_prefix('#')?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        Some(Rgb(byte(0)?, byte(2)?, byte(4)?))
    }

    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// WCAG 2 relative luminance.
    pub fn luminance(self) -> f64 {
        0.2126 * linear(self.0) + 0.7152 * linear(self.1) + 0.0722 * linear(self.2)
    }

    /// `self` moved `t` (0..=1) of the way towards `to`.
    fn mix(self, to: Rgb, t: f64) -> Rgb {
        let m = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        Rgb(m(self.0, to.0), m(self.1, to.1), m(self.2, to.2))
    }
}

/// An 8-bit sRGB channel as linear light (IEC 61966-2-1, as WCAG 2 defines luminance).
fn linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// WCAG 2 contrast ratio, 1 to 21.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// WCAG AA for normal text.
pub const AA: f64 = 4.5;

/// Text on an accent-coloured surface: black or white, whichever reads better (one of
/// them always reaches 4.5:1).
pub fn text_on(accent: Rgb) -> Rgb {
    if contrast(accent, Rgb::BLACK) >= contrast(accent, Rgb::WHITE) {
        Rgb::BLACK
    } else {
        Rgb::WHITE
    }
}

/// The accent as text or border on the given surfaces: itself when it reads at 4.5:1 on
/// every one, else moved towards black (light surfaces) or white (dark ones) until it does.
pub fn readable_on(accent: Rgb, surfaces: &[Rgb]) -> Rgb {
    let dark = surfaces.iter().all(|s| s.luminance() < 0.18);
    let towards = if dark { Rgb::WHITE } else { Rgb::BLACK };
    let mut t = 0.0;
    loop {
        let c = accent.mix(towards, t);
        if t >= 1.0 || surfaces.iter().all(|s| contrast(c, *s) >= AA) {
            return c;
        }
        t += 0.05;
    }
}

/// What the page makes of a card's `design_config`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Design {
    pub theme: Theme,
    pub accent: Option<Rgb>,
    pub avatar_url: Option<String>,
    pub logo_url: Option<String>,
    pub cover_url: Option<String>,
    pub font: Font,
    pub button_style: ButtonStyle,
}

impl Design {
    /// Lenient: a key of the wrong shape is as good as absent.
    pub fn read(config: &Value) -> Design {
        let text = |key: &str| config.get(key).and_then(Value::as_str).map(str::trim);
        let image = |key: &str| {
            text(key)
                .filter(|u| u.chars().count() <= MAX_URL && weburl::parse_http(u).is_some())
                .map(str::to_string)
        };
        Design {
            theme: text("theme").and_then(theme).unwrap_or_default(),
            accent: text("accent_color").and_then(Rgb::parse),
            avatar_url: image("avatar_url"),
            logo_url: image("logo_url"),
            cover_url: image("cover_url"),
            font: text("font").and_then(font).unwrap_or_default(),
            button_style: text("button_style")
                .and_then(button_style)
                .unwrap_or_default(),
        }
    }

    /// The origins the page loads images from, for its `img-src`: only those a CSP
    /// host-source can name (ASCII letters, digits, dots and hyphens).
    pub fn image_origins(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for url in [&self.avatar_url, &self.logo_url, &self.cover_url]
            .into_iter()
            .flatten()
        {
            let Some(u) = weburl::parse_http(url) else {
                continue;
            };
            let plain = u
                .host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
            let origin = u.origin();
            if plain && !out.contains(&origin) {
                out.push(origin);
            }
        }
        out
    }
}

/// Checks the keys the page honours (others are kept and ignored); `null` or a blank
/// string unsets a key.
/// Errors name the dotted key (`design_config.accent_color`).
pub fn validate(config: &Map<String, Value>) -> Vec<(String, Rule)> {
    let mut errors = Vec::new();
    for (key, value) in config {
        let field = format!("design_config.{key}");
        let choice: Option<fn(&str) -> bool> = match key.as_str() {
            "theme" => Some(|s| theme(s).is_some()),
            "font" => Some(|s| font(s).is_some()),
            "button_style" => Some(|s| button_style(s).is_some()),
            _ => None,
        };
        let is_url = matches!(key.as_str(), "avatar_url" | "logo_url" | "cover_url");
        if choice.is_none() && !is_url && key != "accent_color" {
            continue;
        }
        let s = match value {
            Value::Null => continue,
            // Blank unsets a key, as it does the card's own URLs.
            Value::String(s) if s.trim().is_empty() => continue,
            Value::String(s) => s.as_str(),
            _ => {
                errors.push((field, Rule::String));
                continue;
            }
        };
        if let Some(valid) = choice {
            if !valid(s) {
                errors.push((field, Rule::Choice));
            }
        } else if is_url {
            if s.chars().count() > MAX_URL {
                errors.push((field, Rule::MaxChars(MAX_URL)));
            } else if weburl::parse_http(s).is_none() {
                errors.push((field, Rule::Url));
            }
        } else if Rgb::parse(s).is_none() {
            errors.push((field, Rule::Format));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::validation::FieldErrors;
    use serde_json::json;

    fn errors_of(config: Value) -> Value {
        let mut e = FieldErrors::new();
        for (field, rule) in validate(config.as_object().unwrap()) {
            e.add_rule(&field, rule);
        }
        e.to_json()
    }

    #[test]
    fn validation_names_the_dotted_key() {
        let e = errors_of(json!({
            "theme": "neon", "accent_color": "red", "avatar_url": "ftp://x",
            "logo_url": 5, "cover_url": format!("https://x.example/{}", "a".repeat(500)),
            "font": "comic", "button_style": "ghost", "other": {"kept": true}
        }));
        assert_eq!(
            e,
            json!({
                "design_config.theme": ["The selected design config.theme is invalid."],
                "design_config.accent_color": ["The design config.accent color field format is invalid."],
                "design_config.avatar_url": ["The design config.avatar url field must be a valid URL."],
                "design_config.logo_url": ["The design config.logo url field must be a string."],
                "design_config.cover_url": ["The design config.cover url field must not be greater than 500 characters."],
                "design_config.font": ["The selected design config.font is invalid."],
                "design_config.button_style": ["The selected design config.button style is invalid."],
            })
        );
    }

    #[test]
    fn valid_values_and_nulls_pass() {
        let e = errors_of(json!({
            "theme": "auto", "accent_color": "#0B5FFF", "avatar_url": "https://img.example/a.png",
            "logo_url": null, "cover_url": "http://img.example/c.jpg", "font": "rounded",
            "button_style": "outline", "color": 12
        }));
        assert_eq!(e, json!({}));
        let blank = errors_of(json!({"theme": " ", "avatar_url": "", "accent_color": ""}));
        assert_eq!(blank, json!({}));
    }

    #[test]
    fn reading_ignores_what_it_does_not_understand() {
        let d = Design::read(&json!({"theme": "dark", "accent_color": "#ff0000",
            "avatar_url": "javascript:alert(1)", "font": 3, "button_style": "outline"}));
        assert_eq!(d.theme, Theme::Dark);
        assert_eq!(d.accent, Some(Rgb(255, 0, 0)));
        assert_eq!(d.avatar_url, None);
        assert_eq!(d.font, Font::System);
        assert_eq!(d.button_style, ButtonStyle::Outline);
        assert_eq!(Design::read(&json!([])), Design::default());
        assert_eq!(Template::of(Some("modern")), Template::Modern);
        assert_eq!(Template::of(Some("fancy")), Template::Classic);
        assert_eq!(Template::of(None), Template::Classic);
    }

    #[test]
    fn image_origins_are_plain_and_unique() {
        let d = Design::read(&json!({
            "avatar_url": "https://img.example/a.png", "logo_url": "https://img.example/l.svg",
            "cover_url": "https://cdn.exämple.com/c.jpg"
        }));
        assert_eq!(d.image_origins(), vec!["https://img.example".to_string()]);
    }

    /// The linearisation (now `powf`, once a hand-written fifth root) against the sRGB
    /// values of reference levels, both segments and the threshold between them.
    #[test]
    fn linear_light_matches_srgb() {
        let reference = [
            (0, 0.0),
            (10, 0.003035269835488375),
            (11, 0.003346535763899161),
            (128, 0.21586050011389926),
            (188, 0.5028864580325687),
            (200, 0.5775804404296506),
            (255, 1.0),
        ];
        for (level, want) in reference {
            let got = linear(level);
            assert!((got - want).abs() < 1e-12, "{level}: {got} vs {want}");
        }
        for level in 1..=255u8 {
            assert!(linear(level) > linear(level - 1), "{level}");
        }
    }

    #[test]
    fn contrast_matches_wcag() {
        assert!((contrast(Rgb::BLACK, Rgb::WHITE) - 21.0).abs() < 1e-9);
        // #767676 on white is the classic just-passing grey.
        let grey = Rgb::parse("#767676").unwrap();
        assert!((contrast(grey, Rgb::WHITE) - 4.54).abs() < 0.01);
        // The old footer: #6b7280 on #f3f4f6.
        let r = contrast(
            Rgb::parse("#6b7280").unwrap(),
            Rgb::parse("#f3f4f6").unwrap(),
        );
        assert!((r - 4.39).abs() < 0.01, "{r}");
    }

    #[test]
    fn every_accent_gets_readable_text() {
        let light = [Rgb::WHITE, Rgb(0xf3, 0xf4, 0xf6)];
        let dark = [Rgb(0x0f, 0x17, 0x2a), Rgb(0x1e, 0x29, 0x3b)];
        for r in (0..=255).step_by(17) {
            for g in (0..=255).step_by(17) {
                for b in (0..=255).step_by(17) {
                    let accent = Rgb(r as u8, g as u8, b as u8);
                    assert!(contrast(accent, text_on(accent)) >= AA, "{accent:?}");
                    for surfaces in [&light[..], &dark[..]] {
                        let c = readable_on(accent, surfaces);
                        assert!(surfaces.iter().all(|s| contrast(c, *s) >= AA), "{accent:?}");
                    }
                }
            }
        }
        // A readable accent is kept as it is.
        let blue = Rgb::parse("#0b5fff").unwrap();
        assert_eq!(readable_on(blue, &light), blue);
    }
}
