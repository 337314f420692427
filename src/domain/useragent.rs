//! User-Agent classification for analytics: bots are not counted at all, everyone else
//! is a `mobile`, `tablet` or `desktop` visitor (product.md 1).

use serde::{Deserialize, Serialize};

/// Substrings (lowercase) of crawlers, link unfurlers, monitors and HTTP libraries.
const BOT_MARKERS: [&str; 36] = [
    "bot",
    "crawl",
    "spider",
    "slurp",
    "facebookexternalhit",
    "facebookcatalog",
    "embedly",
    "preview",
    "headless",
    "lighthouse",
    "pagespeed",
    "curl/",
    "wget",
    "python",
    "go-http-client",
    "java/",
    "okhttp",
    "libwww",
    "httpclient",
    "axios",
    "node-fetch",
    "undici",
    "ureq",
    "reqwest",
    "monitor",
    "uptime",
    "scan",
    "archiver",
    "whatsapp",
    "telegram",
    "skypeuripreview",
    "discord",
    "vkshare",
    "qwantify",
    "bingpreview",
    "feedfetcher",
];

pub fn is_bot(user_agent: &str) -> bool {
    let ua = user_agent.trim().to_ascii_lowercase();
    // A browser always sends a User-Agent; an empty one is a script.
    ua.is_empty() || BOT_MARKERS.iter().any(|m| ua.contains(m))
}

/// Serialized as [`Device::as_str`]: it travels in analytics events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    Mobile,
    Tablet,
    Desktop,
}

impl Device {
    pub fn as_str(self) -> &'static str {
        match self {
            Device::Mobile => "mobile",
            Device::Tablet => "tablet",
            Device::Desktop => "desktop",
        }
    }
}

pub fn device(user_agent: &str) -> Device {
    let ua = user_agent.to_ascii_lowercase();
    let android = ua.contains("android");
    if ua.contains("ipad")
        || ua.contains("tablet")
        || ua.contains("kindle")
        || ua.contains("silk/")
        || ua.contains("playbook")
        || (android && !ua.contains("mobile"))
    {
        Device::Tablet
    } else if android
        || ua.contains("mobi")
        || ua.contains("iphone")
        || ua.contains("ipod")
        || ua.contains("blackberry")
        || ua.contains("opera mini")
        || ua.contains("iemobile")
        || ua.contains("windows phone")
    {
        Device::Mobile
    } else {
        Device::Desktop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    pub const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    pub const ANDROID_PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
    pub const ANDROID_TABLET: &str = "Mozilla/5.0 (Linux; Android 14; SM-X910) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
    pub const DESKTOP: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

    #[test]
    fn devices() {
        assert_eq!(device(IPHONE), Device::Mobile);
        assert_eq!(device(ANDROID_PHONE), Device::Mobile);
        assert_eq!(device(IPAD), Device::Tablet);
        assert_eq!(device(ANDROID_TABLET), Device::Tablet);
        assert_eq!(device(DESKTOP), Device::Desktop);
        assert_eq!(
            device("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/120.0"),
            Device::Desktop
        );
    }

    #[test]
    fn device_json_is_its_name() {
        for d in [Device::Mobile, Device::Tablet, Device::Desktop] {
            assert_eq!(serde_json::to_value(d).unwrap(), d.as_str());
        }
    }

    #[test]
    fn bots() {
        for ua in [
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "facebookexternalhit/1.1",
            "Slackbot-LinkExpanding 1.0",
            "curl/8.4.0",
            "python-requests/2.31",
            "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/120.0",
            "WhatsApp/2.23",
            "",
            "   ",
        ] {
            assert!(is_bot(ua), "{ua}");
        }
        for ua in [IPHONE, IPAD, ANDROID_PHONE, ANDROID_TABLET, DESKTOP] {
            assert!(!is_bot(ua), "{ua}");
        }
    }
}
