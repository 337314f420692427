//! An Apple Wallet pass of a card (wallet.md 1): `pass.json` (a generic pass), the bundled
//! images, `manifest.json` (SHA-1 of each file) and the detached CMS `signature` of the
//! manifest, in a stored ZIP. The two digests and the signature that need WebCrypto are
//! inputs here, so the whole layout is pure and unit-tested.

use super::json::{field, string};
use super::{cms, scan_url, zip, Apple, Face};
use crate::domain::card::Card;

/// The service's default images (made for the pass: a card glyph on the default accent;
/// the logo on transparent). 29 and 58 px icons, 50 px logo.
pub const IMAGES: [(&str, &[u8]); 3] = [
    ("icon.png", include_bytes!("images/icon.png")),
    ("icon@2x.png", include_bytes!("images/icon@2x.png")),
    ("logo.png", include_bytes!("images/logo.png")),
];

/// SHA-1 of each of [`IMAGES`], hex, in their order: fixed, so only `pass.json` is hashed
/// per pass (a test recomputes them).
pub const IMAGE_SHA1: [&str; 3] = [
    "7583bf931066afeeae3895823201a56891005bbb",
    "dcd09e67186d369679d101e93b27b8337be6dbf5",
    "7c825952e712c5d48dd06d75bd446dc7d8192aef",
];

/// The pass's serial number: one per card, so a new download of a changed card replaces
/// the pass already in Wallet instead of adding a second.
pub fn serial_number(card: &Card) -> String {
    format!("card-{}", card.id)
}

/// `pass.json`: the name as primary field, job title and company as secondary ones, the
/// card URL (`?src=wallet`) as QR code, the card's colours.
pub fn pass_json(apple: &Apple, card: &Card, public_url: &str) -> String {
    let face = Face::of(card);
    let name = &face.name;
    let rgb = |c: crate::domain::design::Rgb| format!("rgb({}, {}, {})", c.0, c.1, c.2);
    let mut j = String::with_capacity(1024);
    j.push_str("{\"formatVersion\":1");
    field(&mut j, "passTypeIdentifier", &apple.pass_type_id);
    field(&mut j, "teamIdentifier", &apple.team_id);
    field(&mut j, "serialNumber", &serial_number(card));
    field(&mut j, "organizationName", &face.organization);
    field(&mut j, "description", &card.title);
    if let Some(company) = &face.company {
        field(&mut j, "logoText", company);
    }
    field(&mut j, "backgroundColor", &rgb(face.background));
    field(&mut j, "foregroundColor", &rgb(face.foreground));
    field(&mut j, "labelColor", &rgb(face.foreground));
    j.push_str(",\"barcodes\":[{\"format\":\"PKBarcodeFormatQR\"");
    field(&mut j, "message", &scan_url(public_url));
    field(&mut j, "messageEncoding", "iso-8859-1");
    j.push_str("}],\"generic\":{\"primaryFields\":[{\"key\":\"name\"");
    field(&mut j, "value", name);
    j.push_str("}],\"secondaryFields\":[");
    let mut first = true;
    for (key, value) in [("title", &face.title), ("company", &face.company)] {
        if let Some(value) = value {
            if !first {
                j.push(',');
            }
            first = false;
            j.push_str("{\"key\":");
            string(&mut j, key);
            field(&mut j, "value", value);
            j.push('}');
        }
    }
    j.push_str("]}}");
    j
}

/// `manifest.json`: the SHA-1 (hex) of every file but the signature.
pub fn manifest(pass_json_sha1: &str) -> String {
    let mut j = String::from("{\"pass.json\":");
    string(&mut j, pass_json_sha1);
    for ((name, _), sha1) in IMAGES.iter().zip(IMAGE_SHA1) {
        field(&mut j, name, sha1);
    }
    j.push('}');
    j
}

/// The `.pkpass`: `pass.json`, the images, the manifest and its signature (the CMS
/// SignedData of [`cms::signed_data`]).
pub fn pkpass(pass_json: &str, manifest: &str, signature: &[u8]) -> Vec<u8> {
    let mut files: Vec<(&str, &[u8])> = vec![("pass.json", pass_json.as_bytes())];
    files.extend(IMAGES);
    files.push(("manifest.json", manifest.as_bytes()));
    files.push(("signature", signature));
    zip::stored(&files)
}

/// The CMS signer of `apple`'s identity.
pub fn signer(apple: &Apple) -> cms::Signer<'_> {
    cms::Signer {
        issuer: &apple.cert.issuer,
        serial: &apple.cert.serial,
        key: apple.key,
        certificates: [&apple.cert.der, &apple.wwdr.der],
    }
}
