//! A Google Wallet "save" link of a card (wallet.md 2): an RS256 JWT (RFC 7519) whose
//! claims carry a generic pass object, signed by the issuer's service account key in
//! WebCrypto over [`signing_input`], then [`save_url`].

use super::json::{field, string};
use super::{scan_url, Face, Google};
use crate::domain::card::Card;
use crate::domain::signing::base64url;

/// `{"alg":"RS256","typ":"JWT"}`, base64url.
const HEADER: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9";

/// The generic class every card's object belongs to (created by the first save).
pub const CLASS_SUFFIX: &str = "business_card";

/// The JWT's claims: `iss` the service account, `aud` google, `typ` savetowallet, `iat`,
/// `origins` (the public origin), and one generic object: id `{issuer}.{card id}`, the
/// card's company (or title) as card title, its name as header, its job title as
/// subheader, the card URL (`?src=wallet`) as QR code, the accent as background.
pub fn claims(google: &Google, card: &Card, public_url: &str, origin: &str, now_ms: i64) -> String {
    let face = Face::of(card);
    let class = format!("{}.{CLASS_SUFFIX}", google.issuer_id);
    let mut j = String::with_capacity(1024);
    j.push_str("{\"iss\":");
    string(&mut j, &google.service_account);
    j.push_str(",\"aud\":\"google\",\"typ\":\"savetowallet\",\"iat\":");
    j.push_str(&now_ms.div_euclid(1000).to_string());
    j.push_str(",\"origins\":[");
    string(&mut j, origin);
    j.push_str("],\"payload\":{\"genericClasses\":[{\"id\":");
    string(&mut j, &class);
    j.push_str("}],\"genericObjects\":[{\"id\":");
    string(&mut j, &format!("{}.{}", google.issuer_id, card.id));
    field(&mut j, "classId", &class);
    field(&mut j, "state", "ACTIVE");
    let localized = |j: &mut String, key: &str, value: &str| {
        j.push(',');
        string(j, key);
        j.push_str(":{\"defaultValue\":{\"language\":");
        string(j, &card.language);
        field(j, "value", value);
        j.push_str("}}");
    };
    localized(
        &mut j,
        "cardTitle",
        face.company.as_deref().unwrap_or(&card.title),
    );
    localized(&mut j, "header", &face.name);
    if let Some(title) = &face.title {
        localized(&mut j, "subheader", title);
    }
    j.push_str(",\"barcode\":{\"type\":\"QR_CODE\"");
    field(&mut j, "value", &scan_url(public_url));
    j.push('}');
    field(&mut j, "hexBackgroundColor", &face.background.hex());
    j.push_str("}]}}");
    j
}

/// `base64url(header) "." base64url(claims)`: what RS256 signs.
pub fn signing_input(claims: &str) -> String {
    format!("{HEADER}.{}", base64url(claims.as_bytes()))
}

/// Where the card page's button leads: Google's save page for the signed JWT.
pub fn save_url(signing_input: &str, signature: &[u8]) -> String {
    format!(
        "https://pay.google.com/gp/v/save/{signing_input}.{}",
        base64url(signature)
    )
}
