//! The email signature's social icons (teams.md 2), drawn by `scripts/signature_icons.py`:
//! served by the worker itself, so a signature's images never depend on a third party,
//! and cacheable for a year (an icon changes only with a new name).

use worker::{Headers, Response};

use crate::domain::card::Platform;
use crate::http::error::{ApiError, ApiResult};

/// One PNG per platform, in the order of [`Platform::ALL`].
const ICONS: [&[u8]; Platform::ALL.len()] = [
    include_bytes!("signature/linkedin.png"),
    include_bytes!("signature/xing.png"),
    include_bytes!("signature/x.png"),
    include_bytes!("signature/facebook.png"),
    include_bytes!("signature/instagram.png"),
    include_bytes!("signature/youtube.png"),
    include_bytes!("signature/tiktok.png"),
    include_bytes!("signature/github.png"),
    include_bytes!("signature/gitlab.png"),
    include_bytes!("signature/behance.png"),
    include_bytes!("signature/dribbble.png"),
    include_bytes!("signature/pinterest.png"),
    include_bytes!("signature/snapchat.png"),
    include_bytes!("signature/threads.png"),
    include_bytes!("signature/mastodon.png"),
    include_bytes!("signature/bluesky.png"),
    include_bytes!("signature/whatsapp.png"),
    include_bytes!("signature/telegram.png"),
    include_bytes!("signature/signal.png"),
    include_bytes!("signature/skype.png"),
    include_bytes!("signature/discord.png"),
    include_bytes!("signature/twitch.png"),
    include_bytes!("signature/spotify.png"),
    include_bytes!("signature/soundcloud.png"),
    include_bytes!("signature/vimeo.png"),
    include_bytes!("signature/medium.png"),
    include_bytes!("signature/website.png"),
    include_bytes!("signature/other.png"),
];

/// `/assets/signature/{platform}.png` (GET or HEAD).
pub fn icon(method: &str, name: &str) -> ApiResult<Response> {
    if method != "GET" && method != "HEAD" {
        return Err(ApiError::MethodNotAllowed("GET, HEAD".into()));
    }
    let i = name
        .strip_suffix(".png")
        .and_then(|p| Platform::ALL.iter().position(|a| a.as_str() == p))
        .ok_or(ApiError::NotFound)?;
    let h = Headers::new();
    let _ = h.set("Content-Type", "image/png");
    let _ = h.set("X-Content-Type-Options", "nosniff");
    let _ = h.set("Cache-Control", "public, max-age=31536000, immutable");
    Ok(Response::builder().with_headers(h).fixed(ICONS[i].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::ICONS;
    use crate::domain::card::Platform;

    /// Each platform's slot holds its own file, a 32x32 PNG.
    #[test]
    fn every_platform_has_its_icon() {
        for (p, icon) in Platform::ALL.iter().zip(ICONS) {
            let path = format!(
                "{}/src/public/signature/{}.png",
                env!("CARGO_MANIFEST_DIR"),
                p.as_str()
            );
            assert_eq!(std::fs::read(&path).unwrap(), icon, "{path}");
            assert_eq!(&icon[..8], b"\x89PNG\r\n\x1a\n");
            assert_eq!(
                &icon[16..24],
                &[0, 0, 0, 32, 0, 0, 0, 32],
                "{path} is 32x32"
            );
        }
    }
}
