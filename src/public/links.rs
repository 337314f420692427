//! Targets of `/c/{slug}/go/{type}` (product.md 1). Only `http`, `https`, `mailto` and
//! `tel` targets are ever produced: a stored value that would lead anywhere else is no
//! target at all.

use crate::domain::card::{Card, Platform};
use crate::domain::weburl::parse_http;

/// Percent-encodes everything but unreserved characters (RFC 3986).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn http(url: Option<&str>) -> Option<String> {
    url.filter(|u| parse_http(u).is_some()).map(str::to_string)
}

/// A handle's profile URL on platforms whose URL scheme is stable and public.
fn profile(platform: Platform, handle: &str) -> Option<String> {
    let h = handle.trim().trim_start_matches('@');
    if h.is_empty()
        || !h
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return None;
    }
    let url = match platform {
        Platform::Linkedin => format!("https://www.linkedin.com/in/{h}"),
        Platform::Xing => format!("https://www.xing.com/profile/{h}"),
        Platform::X => format!("https://x.com/{h}"),
        Platform::Facebook => format!("https://www.facebook.com/{h}"),
        Platform::Instagram => format!("https://www.instagram.com/{h}"),
        Platform::Youtube => format!("https://www.youtube.com/@{h}"),
        Platform::Tiktok => format!("https://www.tiktok.com/@{h}"),
        Platform::Github => format!("https://github.com/{h}"),
        Platform::Gitlab => format!("https://gitlab.com/{h}"),
        Platform::Behance => format!("https://www.behance.net/{h}"),
        Platform::Dribbble => format!("https://dribbble.com/{h}"),
        Platform::Pinterest => format!("https://www.pinterest.com/{h}"),
        Platform::Snapchat => format!("https://www.snapchat.com/add/{h}"),
        Platform::Threads => format!("https://www.threads.net/@{h}"),
        Platform::Bluesky => format!("https://bsky.app/profile/{h}"),
        Platform::Telegram => format!("https://t.me/{h}"),
        Platform::Twitch => format!("https://www.twitch.tv/{h}"),
        Platform::Soundcloud => format!("https://soundcloud.com/{h}"),
        Platform::Vimeo => format!("https://vimeo.com/{h}"),
        Platform::Medium => format!("https://medium.com/@{h}"),
        Platform::Whatsapp => {
            let digits: String = h.chars().filter(char::is_ascii_digit).collect();
            if digits.len() < 6 || digits.len() != h.trim_start_matches('+').len() {
                return None;
            }
            format!("https://wa.me/{digits}")
        }
        _ => return None,
    };
    Some(url)
}

/// The redirect target for a click type, or `None` (404) for an unknown type or empty value.
pub fn target(card: &Card, kind: &str) -> Option<String> {
    match kind {
        "email" => card
            .email
            .as_deref()
            .filter(|e| crate::domain::validation::is_email(e))
            .map(|e| format!("mailto:{e}")),
        "phone" => {
            let phone = card.phone.as_deref()?;
            let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
            if digits.is_empty() {
                return None;
            }
            let plus = if phone.trim_start().starts_with('+') {
                "+"
            } else {
                ""
            };
            Some(format!("tel:{plus}{digits}"))
        }
        "website" => http(card.website.as_deref()),
        "booking" => http(card.booking_url.as_deref()),
        "video" => http(card.video_url.as_deref()),
        "address" => card
            .address
            .as_deref()
            .filter(|a| !a.trim().is_empty())
            .map(|a| {
                format!(
                    "https://www.google.com/maps/search/?api=1&query={}",
                    encode(a)
                )
            }),
        _ => {
            let platform = Platform::parse(kind.strip_prefix("social_")?)?;
            let links = card.social_links();
            let url = &links.iter().find(|l| l.platform == platform)?.url;
            let lower = url.to_ascii_lowercase();
            if lower.starts_with("http://") || lower.starts_with("https://") {
                http(Some(url))
            } else {
                profile(platform, url)
            }
        }
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// The domain's card fixture; kept under this name for the page and vCard tests.
    pub fn card(social_links: &str) -> Card {
        crate::domain::card::fixture(social_links)
    }

    #[test]
    fn contact_targets() {
        let c = card("[]");
        assert_eq!(
            target(&c, "email").as_deref(),
            Some("mailto:ada@example.com")
        );
        assert_eq!(target(&c, "phone").as_deref(), Some("tel:+493012345"));
        assert_eq!(
            target(&c, "website").as_deref(),
            Some("https://ada.example")
        );
        assert_eq!(target(&c, "booking"), None, "empty value");
        assert_eq!(target(&c, "video"), None, "never a javascript: target");
        assert_eq!(
            target(&c, "address").as_deref(),
            Some("https://www.google.com/maps/search/?api=1&query=Main%20St%201%2C%20Berlin")
        );
        assert_eq!(target(&c, "fax"), None);
    }

    #[test]
    fn social_targets() {
        let c = card(
            r#"[{"platform":"linkedin","url":"@ada"},{"platform":"x","url":"javascript:alert(1)"},
                {"platform":"github","url":"https://github.com/ada"},{"platform":"other","url":"ada"},
                {"platform":"whatsapp","url":"+49 30 1234"},{"platform":"telegram","url":"ada_l"}]"#,
        );
        assert_eq!(
            target(&c, "social_linkedin").as_deref(),
            Some("https://www.linkedin.com/in/ada")
        );
        assert_eq!(target(&c, "social_x"), None);
        assert_eq!(
            target(&c, "social_github").as_deref(),
            Some("https://github.com/ada")
        );
        assert_eq!(target(&c, "social_other"), None);
        assert_eq!(
            target(&c, "social_whatsapp"),
            None,
            "spaces are not a wa.me number"
        );
        assert_eq!(
            target(&c, "social_telegram").as_deref(),
            Some("https://t.me/ada_l")
        );
        assert_eq!(target(&c, "social_facebook"), None);
    }
}
