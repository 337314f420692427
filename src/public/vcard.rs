//! The vCard of a card (extensions.md 7): 3.0 (RFC 2426) by default, which every phone's
//! contacts app imports, 4.0 (RFC 6350) on request. CRLF lines, escaped text values,
//! lines folded at 75 octets.

use serde_json::Value;

use super::links::{ascii_uri, social_url, target};
use crate::domain::card::Card;
use crate::domain::weburl::parse_http;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V3,
    V4,
}

impl Version {
    /// `?version=4` (or `4.0`) asks for 4.0. Any other value gets 3.0, as no value does:
    /// the spec names no error for it, and a "save contact" link should never fail.
    pub fn asked(param: Option<&str>) -> Version {
        match param.map(str::trim) {
            Some("4" | "4.0") => Version::V4,
            _ => Version::V3,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Version::V3 => "3.0",
            Version::V4 => "4.0",
        }
    }
}

/// Escapes a text value: backslash, comma, semicolon and newlines (RFC 2426 4, RFC 6350
/// 3.4: the same rules).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ',' => out.push_str("\\,"),
            ';' => out.push_str("\\;"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Folds a content line at 75 octets without splitting a UTF-8 character; continuation
/// lines start with a space (RFC 6350 3.2; RFC 2425 5.8.1 for 3.0).
fn fold(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        let len = c.len_utf8();
        if width + len > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += len;
    }
    out.push_str("\r\n");
}

/// A URI as a vCard value: ASCII, like the page's links, and with `,`, `;` and `\`
/// percent-encoded. Many readers unescape every value as text and cut it at a bare comma
/// (vobject does), while a strict reader would keep a backslash escape as part of the URI;
/// percent-encoded, both read the same URL.
fn uri(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in ascii_uri(s).chars() {
        match c {
            ',' => out.push_str("%2C"),
            ';' => out.push_str("%3B"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out
}

/// `design_config.avatar_url` when it is an http(s) URL, as an ASCII URI. Read leniently:
/// any other shape is no avatar.
fn avatar(card: &Card) -> Option<String> {
    let design: Value = serde_json::from_str(card.design_config.get()).ok()?;
    let url = design.get("avatar_url")?.as_str()?;
    parse_http(url).map(|_| uri(url))
}

pub fn vcard(card: &Card, public_url: &str, version: Version) -> String {
    let v4 = version == Version::V4;
    let mut out = String::with_capacity(1024);
    let mut line = |l: String| fold(&l, &mut out);
    line("BEGIN:VCARD".into());
    line(format!("VERSION:{}", version.text()));
    line(format!(
        "FN:{}",
        escape(&format!("{} {}", card.first_name, card.last_name))
    ));
    line(format!(
        "N:{};{};;;",
        escape(&card.last_name),
        escape(&card.first_name)
    ));
    let opt = |v: &Option<String>| v.as_deref().filter(|s| !s.trim().is_empty()).map(escape);
    if let Some(v) = opt(&card.company) {
        line(format!("ORG:{v}"));
    }
    if let Some(v) = opt(&card.job_title) {
        line(format!("TITLE:{v}"));
    }
    // Type names are case-insensitive; each version's examples' spelling is kept.
    if let Some(v) = opt(&card.email) {
        let params = if v4 {
            "TYPE=work"
        } else {
            "TYPE=INTERNET,WORK"
        };
        line(format!("EMAIL;{params}:{v}"));
    }
    if let Some(v) = opt(&card.phone) {
        // 4.0's default value is a `tel:` URI; the number as written is text.
        let params = if v4 {
            "TYPE=work,voice;VALUE=text"
        } else {
            "TYPE=WORK,VOICE"
        };
        line(format!("TEL;{params}:{v}"));
    }
    if let Some(v) = opt(&card.address) {
        let params = if v4 { "TYPE=work" } else { "TYPE=WORK" };
        line(format!("ADR;{params}:;;{v};;;;"));
    }
    if let Some(v) = opt(&card.bio) {
        line(format!("NOTE:{v}"));
    }
    // URIs come through the click targets, so they are http(s) only, like the page's links.
    if let Some(url) = target(card, "website").as_deref().map(uri) {
        let params = if v4 { "TYPE=work" } else { "TYPE=WORK" };
        line(format!("URL;{params}:{url}"));
    }
    // Labelled URLs: a group ties each to its `X-ABLabel`, the label Apple's and Google's
    // contacts apps show.
    let labelled = [
        (target(card, "booking"), "Booking"),
        (target(card, "video"), "Video"),
        (Some(public_url.to_string()), "Card"),
    ];
    for (n, (url, label)) in labelled
        .into_iter()
        .filter_map(|(url, label)| Some((url?, label)))
        .enumerate()
    {
        line(format!("item{}.URL:{}", n + 1, uri(&url)));
        line(format!("item{}.X-ABLabel:{label}", n + 1));
    }
    for link in card.social_links() {
        if let Some(url) = social_url(&link) {
            line(format!(
                "X-SOCIALPROFILE;TYPE={}:{}",
                link.platform.as_str(),
                uri(&url)
            ));
        }
    }
    // 3.0's PHOTO is inline binary unless told otherwise; 4.0's is a URI.
    if let Some(url) = avatar(card) {
        let name = if v4 { "PHOTO" } else { "PHOTO;VALUE=URI" };
        line(format!("{name}:{url}"));
    }
    // Where this vCard is fetched again: the same version.
    let again = if v4 { "/vcard?version=4" } else { "/vcard" };
    line(format!("SOURCE:{}{again}", uri(public_url)));
    line("END:VCARD".into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public::links::tests::card;
    use serde_json::value::RawValue;

    const URL: &str = "https://x.example/c/ada";

    /// Every line unfolded, without its CRLF.
    fn lines(v: &str) -> Vec<String> {
        v.replace("\r\n ", "")
            .trim_end_matches("\r\n")
            .split("\r\n")
            .map(String::from)
            .collect()
    }

    #[test]
    fn version_3_by_default_4_on_request() {
        for (asked, version) in [
            (None, Version::V3),
            (Some("4"), Version::V4),
            (Some("4.0"), Version::V4),
            (Some(" 4 "), Version::V4),
            (Some("3"), Version::V3),
            (Some("5"), Version::V3),
            (Some(""), Version::V3),
            (Some("<x>"), Version::V3),
        ] {
            assert_eq!(Version::asked(asked), version, "{asked:?}");
        }
        let c = card("[]");
        assert!(vcard(&c, URL, Version::V3).starts_with("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:"));
        assert!(vcard(&c, URL, Version::V4).starts_with("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:"));
    }

    #[test]
    fn escapes_and_crlf() {
        let mut c = card("[]");
        c.first_name = "Ada; <script>".into();
        c.company = Some("A, B\\C".into());
        c.bio = Some("line1\nline2".into());
        c.website = Some("https://a.example/x,y".into());
        c.address = Some("Main St 1, Berlin".into());
        for version in [Version::V3, Version::V4] {
            let v = vcard(&c, URL, version);
            assert!(v.ends_with("END:VCARD\r\n"));
            assert!(v.contains("\r\nFN:Ada\\; <script> L\r\n"));
            assert!(v.contains("\r\nN:L;Ada\\; <script>;;;\r\n"));
            assert!(v.contains("\r\nORG:A\\, B\\\\C\r\n"));
            assert!(v.contains("\r\nNOTE:line1\\nline2\r\n"));
            assert!(
                v.contains("\r\nURL;TYPE=") && v.contains(":https://a.example/x%2Cy\r\n"),
                "a comma in a URI is percent-encoded, not a value separator"
            );
            assert!(v.contains(":;;Main St 1\\, Berlin;;;;\r\n"));
            assert!(!v.replace("\r\n", "").contains('\n'));
            assert!(!v.replace("\r\n", "").contains('\r'));
        }
    }

    #[test]
    fn each_version_spells_its_parameters() {
        let mut c = card("[]");
        c.design_config = RawValue::from_string(
            r#"{"avatar_url": "https://img.example/ada.png", "theme": "dark"}"#.into(),
        )
        .unwrap();
        let v3 = lines(&vcard(&c, URL, Version::V3));
        for l in [
            "EMAIL;TYPE=INTERNET,WORK:ada@example.com",
            "TEL;TYPE=WORK,VOICE:+49 (30) 123-45",
            "ADR;TYPE=WORK:;;Main St 1\\, Berlin;;;;",
            "URL;TYPE=WORK:https://ada.example",
            "PHOTO;VALUE=URI:https://img.example/ada.png",
            "SOURCE:https://x.example/c/ada/vcard",
        ] {
            assert!(v3.iter().any(|x| x == l), "3.0: {l} in {v3:?}");
        }
        let v4 = lines(&vcard(&c, URL, Version::V4));
        for l in [
            "EMAIL;TYPE=work:ada@example.com",
            "TEL;TYPE=work,voice;VALUE=text:+49 (30) 123-45",
            "ADR;TYPE=work:;;Main St 1\\, Berlin;;;;",
            "URL;TYPE=work:https://ada.example",
            "PHOTO:https://img.example/ada.png",
            "SOURCE:https://x.example/c/ada/vcard?version=4",
        ] {
            assert!(v4.iter().any(|x| x == l), "4.0: {l} in {v4:?}");
        }
    }

    #[test]
    fn labelled_urls_social_profiles_and_the_card() {
        let mut c = card(
            r#"[{"platform":"linkedin","url":"@ada"},{"platform":"x","url":"javascript:alert(1)"},
                {"platform":"github","url":"https://github.com/ada"},{"platform":"skype","url":"live:ada"}]"#,
        );
        c.booking_url = Some("https://cal.example/ada".into());
        c.video_url = Some("https://video.example/ada".into());
        let v = lines(&vcard(&c, URL, Version::V3));
        let from = v.iter().position(|l| l.starts_with("item1.")).unwrap();
        assert_eq!(
            v[from..from + 9],
            [
                "item1.URL:https://cal.example/ada",
                "item1.X-ABLabel:Booking",
                "item2.URL:https://video.example/ada",
                "item2.X-ABLabel:Video",
                "item3.URL:https://x.example/c/ada",
                "item3.X-ABLabel:Card",
                "X-SOCIALPROFILE;TYPE=linkedin:https://www.linkedin.com/in/ada",
                "X-SOCIALPROFILE;TYPE=github:https://github.com/ada",
                "SOURCE:https://x.example/c/ada/vcard",
            ]
        );
        // No booking, a video that is no web URL (the fixture's `javascript:`): the card
        // URL is the first labelled one.
        let v = lines(&vcard(&card("[]"), URL, Version::V4));
        assert!(v.contains(&"item1.URL:https://x.example/c/ada".to_string()));
        assert!(!v
            .iter()
            .any(|l| l.contains("javascript") || l.starts_with("item2")));
        assert!(!v.iter().any(|l| l.starts_with("X-SOCIALPROFILE")));
    }

    #[test]
    fn uris_carry_no_vcard_separators() {
        assert_eq!(
            uri("https://cal.example/a,b;c\\d?q=ü x"),
            "https://cal.example/a%2Cb%3Bc%5Cd?q=%C3%BC%20x"
        );
        let mut c = card(r#"[{"platform":"github","url":"https://github.com/a,b"}]"#);
        c.booking_url = Some("https://cal.example/ada?slots=1,2;3".into());
        let v = lines(&vcard(&c, "https://x.example/c/ada", Version::V4));
        assert!(v.contains(&"item1.URL:https://cal.example/ada?slots=1%2C2%3B3".to_string()));
        assert!(v.contains(&"X-SOCIALPROFILE;TYPE=github:https://github.com/a%2Cb".to_string()));
    }

    #[test]
    fn avatar_only_when_it_is_a_web_url() {
        for design in [
            r#"{}"#,
            r#"{"avatar_url": null}"#,
            r#"{"avatar_url": 7}"#,
            r#"{"avatar_url": "javascript:alert(1)"}"#,
            r#"{"avatar_url": "data:image/png;base64,AAAA"}"#,
            r#"[]"#,
        ] {
            let mut c = card("[]");
            c.design_config = RawValue::from_string(design.into()).unwrap();
            for version in [Version::V3, Version::V4] {
                assert!(!vcard(&c, URL, version).contains("PHOTO"), "{design}");
            }
        }
        let mut c = card("[]");
        c.design_config =
            RawValue::from_string(r#"{"avatar_url": "https://img.example/jürgen.png"}"#.into())
                .unwrap();
        assert!(
            vcard(&c, URL, Version::V4).contains("PHOTO:https://img.example/j%C3%BCrgen.png\r\n")
        );
    }

    #[test]
    fn folds_long_lines_on_character_boundaries() {
        let mut c = card("[]");
        c.bio = Some("ü".repeat(100));
        c.booking_url = Some(format!("https://cal.example/{}", "a".repeat(200)));
        for version in [Version::V3, Version::V4] {
            let v = vcard(&c, URL, version);
            for l in v.split("\r\n") {
                assert!(l.len() <= 75, "{} octets: {l}", l.len());
            }
            let unfolded = lines(&v);
            assert!(unfolded.contains(&format!("NOTE:{}", "ü".repeat(100))));
            assert!(unfolded.contains(&format!(
                "item1.URL:https://cal.example/{}",
                "a".repeat(200)
            )));
        }
    }
}
