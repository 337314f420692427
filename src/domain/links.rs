//! Targets of `/c/{slug}/go/{type}` (product.md 1, extensions.md 5). Only `http`,
//! `https`, `mailto` and `tel` targets are ever produced, and each leaves as a valid ASCII
//! URI: a stored value that would lead anywhere else is no target at all, and a social
//! link that resolves to nothing is not shown on the page.

use crate::domain::card::{Card, Platform, SocialLink};
use crate::domain::validation::is_email;
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

/// Percent-encodes what may not stand in a URI as is (non-ASCII bytes, controls, space),
/// leaving its structure alone: `https://bücher.de/` -> `https://b%C3%BCcher.de/`.
pub fn ascii_uri(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_graphic() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn http(url: Option<&str>) -> Option<String> {
    url.filter(|u| parse_http(u).is_some()).map(ascii_uri)
}

/// Every reserved character of the address is encoded, so it cannot add `?bcc=` or other
/// header fields (RFC 6068); the `@` between local part and domain stays.
fn mailto(email: &str) -> Option<String> {
    let (local, domain) = email.rsplit_once('@').filter(|_| is_email(email))?;
    Some(format!("mailto:{}@{}", encode(local), encode(domain)))
}

/// A leading `+` and the digits; `(0)` after a country code is a trunk prefix that is not
/// dialled from abroad: `+49 (0) 711 123456-0` -> `tel:+497111234560`.
fn tel(phone: &str) -> Option<String> {
    let phone = phone.trim();
    let international = phone.starts_with('+');
    let number = if international {
        phone.replacen("(0)", "", 1)
    } else {
        phone.to_string()
    };
    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    Some(format!(
        "tel:{}{digits}",
        if international { "+" } else { "" }
    ))
}

/// The digits of a phone number written as a handle (`+49 30 123456`), with at least six
/// of them and nothing but digits, spaces and `+ - ( ) .`.
fn phone_digits(handle: &str) -> Option<String> {
    let rest = handle.strip_prefix('+').unwrap_or(handle);
    if !rest
        .chars()
        .all(|c| c.is_ascii_digit() || " -().".contains(c))
    {
        return None;
    }
    let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
    (digits.len() >= 6).then_some(digits)
}

/// A user name as most platforms allow it in profile URLs.
fn username(handle: &str) -> Option<&str> {
    let h = handle.trim_start_matches('@');
    let ok = !h.is_empty()
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    ok.then_some(h)
}

/// A handle's profile URL on platforms that have one; `None` where a handle leads nowhere
/// on the web (Skype names, Discord user names, `other`).
fn profile(platform: Platform, handle: &str) -> Option<String> {
    let h = handle.trim();
    let user = |prefix: &str| username(h).map(|u| format!("{prefix}{u}"));
    match platform {
        Platform::Linkedin => user("https://www.linkedin.com/in/"),
        Platform::Xing => user("https://www.xing.com/profile/"),
        Platform::X => user("https://x.com/"),
        Platform::Facebook => user("https://www.facebook.com/"),
        Platform::Instagram => user("https://www.instagram.com/"),
        Platform::Youtube => user("https://www.youtube.com/@"),
        Platform::Tiktok => user("https://www.tiktok.com/@"),
        Platform::Github => user("https://github.com/"),
        Platform::Gitlab => user("https://gitlab.com/"),
        Platform::Behance => user("https://www.behance.net/"),
        Platform::Dribbble => user("https://dribbble.com/"),
        Platform::Pinterest => user("https://www.pinterest.com/"),
        Platform::Snapchat => user("https://www.snapchat.com/add/"),
        Platform::Threads => user("https://www.threads.net/@"),
        Platform::Bluesky => user("https://bsky.app/profile/"),
        Platform::Twitch => user("https://www.twitch.tv/"),
        Platform::Soundcloud => user("https://soundcloud.com/"),
        Platform::Vimeo => user("https://vimeo.com/"),
        Platform::Medium => user("https://medium.com/@"),
        Platform::Spotify => user("https://open.spotify.com/user/"),
        Platform::Telegram => match phone_digits(h).filter(|_| h.starts_with('+')) {
            Some(digits) => Some(format!("https://t.me/+{digits}")),
            None => user("https://t.me/"),
        },
        Platform::Whatsapp => phone_digits(h).map(|d| format!("https://wa.me/{d}")),
        Platform::Signal => phone_digits(h)
            .filter(|_| h.starts_with('+'))
            .map(|d| format!("https://signal.me/#p/+{d}")),
        // `@user@example.social` or `user@example.social` lives at `https://example.social/@user`.
        Platform::Mastodon => {
            let (name, host) = h.trim_start_matches('@').split_once('@')?;
            let home = format!("https://{host}");
            parse_http(&home)?;
            username(name).map(|u| format!("{home}/@{u}"))
        }
        // Discord links users by their numeric id only.
        Platform::Discord => {
            (h.len() >= 17 && h.len() <= 20 && h.bytes().all(|b| b.is_ascii_digit()))
                .then(|| format!("https://discord.com/users/{h}"))
        }
        // A bare host (`example.com/about`) is the site itself.
        Platform::Website => http(Some(&format!("https://{h}"))),
        Platform::Skype | Platform::Other => None,
    }
}

/// Where a social link leads, or `None` when it leads nowhere a browser can go.
pub fn social_url(link: &SocialLink) -> Option<String> {
    let lower = link.url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        http(Some(&link.url))
    } else {
        profile(link.platform, &link.url)
    }
}

/// A platform's name as people write it.
pub fn platform_label(p: &str) -> String {
    match p {
        "linkedin" => "LinkedIn".into(),
        "x" => "X".into(),
        "github" => "GitHub".into(),
        "gitlab" => "GitLab".into(),
        "youtube" => "YouTube".into(),
        "tiktok" => "TikTok".into(),
        "whatsapp" => "WhatsApp".into(),
        _ => {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        }
    }
}

/// Platform and label of the social links a card shows, one entry per platform:
/// `/go/social_<platform>` leads to the first of them (the page and the email signature).
pub fn social(links: &[SocialLink]) -> Vec<(&'static str, String)> {
    let mut shown: Vec<(&'static str, String)> = Vec::new();
    for link in links {
        let p = link.platform.as_str();
        // Only links that lead somewhere: `/go/social_<platform>` takes the first of these.
        if shown.iter().any(|(seen, _)| *seen == p) || social_url(link).is_none() {
            continue;
        }
        let label = link
            .label
            .as_deref()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| platform_label(p));
        shown.push((p, label));
    }
    shown
}

/// The redirect target for a click type, or `None` (404) for an unknown type or empty value.
pub fn target(card: &Card, kind: &str) -> Option<String> {
    match kind {
        "email" => card.email.as_deref().and_then(mailto),
        "phone" => card.phone.as_deref().and_then(tel),
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
            card.social_links()
                .iter()
                .filter(|l| l.platform == platform)
                .find_map(social_url)
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
            target(&c, "social_whatsapp").as_deref(),
            Some("https://wa.me/49301234"),
            "a number written with spaces is still a number"
        );
        assert_eq!(
            target(&c, "social_telegram").as_deref(),
            Some("https://t.me/ada_l")
        );
        assert_eq!(target(&c, "social_facebook"), None);
    }

    #[test]
    fn links_leave_as_ascii_uris() {
        let mut c = card("[]");
        c.email = Some("victim?bcc=attacker%40evil.example&x@example.com".into());
        assert!(
            is_email(c.email.as_deref().unwrap()),
            "it passes validation"
        );
        assert_eq!(
            target(&c, "email").as_deref(),
            Some("mailto:victim%3Fbcc%3Dattacker%2540evil.example%26x@example.com")
        );
        c.email = Some("jürgen@bücher.de".into());
        assert_eq!(
            target(&c, "email").as_deref(),
            Some("mailto:j%C3%BCrgen@b%C3%BCcher.de")
        );
        c.website = Some("https://bücher.de/straße?q=1".into());
        assert_eq!(
            target(&c, "website").as_deref(),
            Some("https://b%C3%BCcher.de/stra%C3%9Fe?q=1")
        );
    }

    #[test]
    fn phone_numbers_dial_as_written_abroad() {
        let mut c = card("[]");
        for (written, dialled) in [
            ("+49 (0) 711 123456-0", Some("tel:+497111234560")),
            ("+44 (0)20 7946 0958", Some("tel:+442079460958")),
            ("(030) 123 456", Some("tel:030123456")),
            ("+1 (212) 555-0100", Some("tel:+12125550100")),
            ("()", None),
        ] {
            c.phone = Some(written.into());
            assert_eq!(target(&c, "phone").as_deref(), dialled, "{written}");
        }
    }

    #[test]
    fn handles_resolve_where_the_platform_has_profile_urls() {
        let link = |platform: &str, url: &str| SocialLink {
            platform: Platform::parse(platform).unwrap(),
            url: url.into(),
            label: None,
        };
        for (platform, handle, url) in [
            ("whatsapp", "+4930123456", Some("https://wa.me/4930123456")),
            ("whatsapp", "call me", None),
            (
                "mastodon",
                "@ada@social.example",
                Some("https://social.example/@ada"),
            ),
            ("mastodon", "ada", None),
            (
                "signal",
                "+4930123456",
                Some("https://signal.me/#p/+4930123456"),
            ),
            ("signal", "ada", None),
            ("telegram", "+4930123456", Some("https://t.me/+4930123456")),
            ("spotify", "ada", Some("https://open.spotify.com/user/ada")),
            ("discord", "ada", None),
            (
                "discord",
                "123456789012345678",
                Some("https://discord.com/users/123456789012345678"),
            ),
            ("skype", "live:ada", None),
            (
                "website",
                "ada.example/about",
                Some("https://ada.example/about"),
            ),
            ("website", "not a host", None),
            ("other", "ada", None),
            ("other", "https://ada.example", Some("https://ada.example")),
            ("x", "javascript:alert(1)", None),
        ] {
            assert_eq!(
                social_url(&link(platform, handle)).as_deref(),
                url,
                "{platform} {handle}"
            );
        }
    }

    #[test]
    fn a_platform_leads_to_its_first_link_that_resolves() {
        let c = card(
            r#"[{"platform":"skype","url":"live:ada"},{"platform":"website","url":"bad host!"},
                {"platform":"website","url":"ada.example"}]"#,
        );
        assert_eq!(target(&c, "social_skype"), None);
        assert_eq!(
            target(&c, "social_website").as_deref(),
            Some("https://ada.example")
        );
    }
}
