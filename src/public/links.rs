//! Targets of `/c/{slug}/go/{type}` (product.md 1). Only `http`, `https`, `mailto` and
//! `tel` targets are ever produced: a stored value that would lead anywhere else is no
//! target at all.

use crate::domain::card::CardRow;
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
fn profile(platform: &str, handle: &str) -> Option<String> {
    let h = handle.trim().trim_start_matches('@');
    if h.is_empty()
        || !h
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return None;
    }
    let url = match platform {
        "linkedin" => format!("https://www.linkedin.com/in/{h}"),
        "xing" => format!("https://www.xing.com/profile/{h}"),
        "x" => format!("https://x.com/{h}"),
        "facebook" => format!("https://www.facebook.com/{h}"),
        "instagram" => format!("https://www.instagram.com/{h}"),
        "youtube" => format!("https://www.youtube.com/@{h}"),
        "tiktok" => format!("https://www.tiktok.com/@{h}"),
        "github" => format!("https://github.com/{h}"),
        "gitlab" => format!("https://gitlab.com/{h}"),
        "behance" => format!("https://www.behance.net/{h}"),
        "dribbble" => format!("https://dribbble.com/{h}"),
        "pinterest" => format!("https://www.pinterest.com/{h}"),
        "snapchat" => format!("https://www.snapchat.com/add/{h}"),
        "threads" => format!("https://www.threads.net/@{h}"),
        "bluesky" => format!("https://bsky.app/profile/{h}"),
        "telegram" => format!("https://t.me/{h}"),
        "twitch" => format!("https://www.twitch.tv/{h}"),
        "soundcloud" => format!("https://soundcloud.com/{h}"),
        "vimeo" => format!("https://vimeo.com/{h}"),
        "medium" => format!("https://medium.com/@{h}"),
        "whatsapp" => {
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
pub fn target(card: &CardRow, kind: &str) -> Option<String> {
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
            let platform = kind.strip_prefix("social_")?;
            let links: Vec<serde_json::Value> = serde_json::from_str(&card.social_links).ok()?;
            let url = links
                .iter()
                .find(|l| l["platform"] == platform)?
                .get("url")?
                .as_str()?;
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

    pub fn card(social_links: &str) -> CardRow {
        serde_json::from_value(serde_json::json!({
            "id": 1, "account_id": 1, "slug": "ada", "title": "Ada L", "first_name": "Ada",
            "last_name": "L", "job_title": null, "company": null, "bio": null,
            "email": "ada@example.com", "phone": "+49 (30) 123-45", "website": "https://ada.example",
            "booking_url": null, "video_url": "javascript:alert(1)", "address": "Main St 1, Berlin",
            "tagline": null, "company_registration": null, "vat_id": null,
            "social_links": social_links, "design_config": "{}", "section_visibility": "{}",
            "template_id": null, "card_type": null, "is_public": 1, "is_password_protected": 0,
            "show_branding": 1, "show_lead_form": 1, "seo_title": null, "seo_description": null,
            "seo_indexable": 1, "status": "active", "language": "en", "translations": "{}",
            "published_at": 0, "expires_at": null, "created_at": 0, "updated_at": 0
        }))
        .unwrap()
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
