//! Wallet passes of a card (wallet.md): what the operator configured, checked before any
//! pass is made, and the passes' pure parts. Apple: `pass.json`, the manifest, the CMS
//! signature's DER and the ZIP ([`apple`], [`cms`], [`zip`]); Google: the JWT's claims
//! ([`google`]). The signatures themselves are WebCrypto's (`js::crypto`), which reads
//! the private keys from their secrets itself: they never enter wasm memory.
//!
//! A configuration a phone would refuse (a half-set one, a certificate that is not one,
//! a WWDR certificate that did not issue the pass certificate, a pass type or team the
//! certificate is not for, an expired certificate) is an error that says what to fix;
//! the routes then answer 404 and the page offers no button. A private key that does not
//! import, or does not match the certificate, is found by WebCrypto on first use.

pub mod apple;
pub mod cms;
pub mod der;
pub mod google;
mod json;
pub mod pem;
pub mod x509;
pub mod zip;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use super::card::Card;
use super::design::{text_on, Design, Rgb, DEFAULT_ACCENT};
use super::time::{date_string, day_of};
use der::oid;
use x509::{Certificate, KeyKind};

/// The secrets holding private keys: read by WebCrypto only, never by the configuration.
pub const APPLE_PASS_KEY: &str = "APPLE_PASS_KEY";
pub const GOOGLE_WALLET_KEY: &str = "GOOGLE_WALLET_KEY";

/// The wallet's vars and secrets as configured (`Config::wallet`), checked on first use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub apple_pass_type_id: Option<String>,
    pub apple_team_id: Option<String>,
    /// PEM texts of the pass certificate and of Apple's WWDR intermediate.
    pub apple_pass_cert: Option<String>,
    pub apple_wwdr_cert: Option<String>,
    /// Whether `APPLE_PASS_KEY` is set (its value is WebCrypto's alone).
    pub apple_pass_key: bool,
    pub google_issuer_id: Option<String>,
    pub google_service_account: Option<String>,
    /// Whether `GOOGLE_WALLET_KEY` is set.
    pub google_key: bool,
    checked: OnceLock<Identities>,
}

/// Each wallet's identity: `Ok(None)` when nothing of it is configured, an error saying
/// what to fix when it is configured wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identities {
    pub apple: Result<Option<Apple>, String>,
    pub google: Result<Option<Google>, String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Apple {
    pub pass_type_id: String,
    pub team_id: String,
    pub cert: Certificate,
    pub wwdr: Certificate,
    pub key: KeyKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Google {
    pub issuer_id: String,
    pub service_account: String,
}

/// Which wallets a card can be added to: the card page's buttons and the account area's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offered {
    pub apple: bool,
    pub google: bool,
}

/// Where a card's Apple pass is downloaded.
pub fn apple_path(slug: &str) -> String {
    format!("/c/{slug}/wallet.pkpass")
}

/// Where a card's Google Wallet button leads (a 302 to Google's save page).
pub fn google_path(slug: &str) -> String {
    format!("/c/{slug}/wallet/google")
}

impl Settings {
    /// The settings from the configuration's getter (trimmed, empty is unset) and the
    /// names of the worker's bindings (for the key secrets, which are not read here).
    pub fn read(get: &dyn Fn(&str) -> Option<String>, bindings: &[String]) -> Settings {
        let bound = |name: &str| bindings.iter().any(|b| b == name);
        Settings {
            apple_pass_type_id: get("APPLE_PASS_TYPE_ID"),
            apple_team_id: get("APPLE_TEAM_ID"),
            apple_pass_cert: get("APPLE_PASS_CERT"),
            apple_wwdr_cert: get("APPLE_WWDR_CERT"),
            apple_pass_key: bound(APPLE_PASS_KEY),
            google_issuer_id: get("GOOGLE_WALLET_ISSUER_ID"),
            google_service_account: get("GOOGLE_WALLET_SERVICE_ACCOUNT"),
            google_key: bound(GOOGLE_WALLET_KEY),
            checked: OnceLock::new(),
        }
    }

    /// The identities, checked once (the certificates parsed) when first asked for.
    pub fn identities(&self) -> &Identities {
        self.checked.get_or_init(|| Identities {
            apple: check_apple(self),
            google: check_google(self),
        })
    }

    /// The wallets a pass can be had from at `now_ms`: configured, and every certificate
    /// valid now. Pure: the account area's Cards page asks this too.
    pub fn offered(&self, now_ms: i64) -> Offered {
        let ids = self.identities();
        Offered {
            apple: matches!(&ids.apple, Ok(Some(a)) if a.problem_at(now_ms).is_none()),
            google: matches!(ids.google, Ok(Some(_))),
        }
    }
}

impl Apple {
    /// Why no pass can be signed at `now_ms` (a certificate expired or not yet valid).
    pub fn problem_at(&self, now_ms: i64) -> Option<String> {
        for (name, cert) in [
            ("APPLE_PASS_CERT", &self.cert),
            ("APPLE_WWDR_CERT", &self.wwdr),
        ] {
            let what = match name {
                "APPLE_PASS_CERT" => {
                    "create a new Pass Type ID certificate in Apple's developer account"
                }
                _ => {
                    "download the current WWDR certificate from Apple's certificate authority page"
                }
            };
            if now_ms >= cert.not_after_ms {
                return Some(format!(
                    "{name} ({}) expired on {}: {what} and set it with `wrangler secret put {name}`; \
                     Apple passes answer 404 until then",
                    cert.subject_name(),
                    date_string(day_of(cert.not_after_ms))
                ));
            }
            if now_ms < cert.not_before_ms {
                return Some(format!(
                    "{name} ({}) is not valid before {}: check the clock of whoever made it; \
                     Apple passes answer 404 until then",
                    cert.subject_name(),
                    date_string(day_of(cert.not_before_ms))
                ));
            }
        }
        None
    }
}

/// Every name of a group set, or none of them; otherwise an error naming the missing.
fn all_or_none(group: &str, names: &[(&str, bool)]) -> Result<bool, String> {
    let missing: Vec<&str> = names
        .iter()
        .filter(|(_, set)| !set)
        .map(|(n, _)| *n)
        .collect();
    match missing.len() {
        0 => Ok(true),
        n if n == names.len() => Ok(false),
        _ => Err(format!(
            "{group} are half configured: {} not set; set {} too (README, \"Wallet passes\") \
             or unset the others; {group} answer 404 until then",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" }
        )),
    }
}

fn certificate(name: &str, text: &str) -> Result<Certificate, String> {
    let der = pem::decode(text, "CERTIFICATE").map_err(|e| {
        let found = match e {
            pem::PemError::NoBlock { found: Some(label) } => format!("a {label} block"),
            pem::PemError::NoBlock { found: None } => "no PEM block".into(),
            pem::PemError::NotBase64 => "a CERTIFICATE block that is not base64".into(),
        };
        format!(
            "{name} holds {found}, not a PEM certificate (-----BEGIN CERTIFICATE-----): \
             convert a .cer with `openssl x509 -inform DER -in file.cer -out file.pem`"
        )
    })?;
    Certificate::parse(&der).ok_or_else(|| format!("{name} is not an X.509 certificate"))
}

fn check_apple(s: &Settings) -> Result<Option<Apple>, String> {
    let configured = all_or_none(
        "Apple passes",
        &[
            ("APPLE_PASS_TYPE_ID", s.apple_pass_type_id.is_some()),
            ("APPLE_TEAM_ID", s.apple_team_id.is_some()),
            ("APPLE_PASS_CERT", s.apple_pass_cert.is_some()),
            (APPLE_PASS_KEY, s.apple_pass_key),
            ("APPLE_WWDR_CERT", s.apple_wwdr_cert.is_some()),
        ],
    )?;
    let (Some(pass_type_id), Some(team_id), Some(cert), Some(wwdr), true) = (
        s.apple_pass_type_id.clone(),
        s.apple_team_id.clone(),
        s.apple_pass_cert.as_deref(),
        s.apple_wwdr_cert.as_deref(),
        configured,
    ) else {
        return Ok(None);
    };
    let cert = certificate("APPLE_PASS_CERT", cert)?;
    let wwdr = certificate("APPLE_WWDR_CERT", wwdr)?;
    let key = cert.key.ok_or_else(|| {
        "APPLE_PASS_CERT's key is neither RSA nor EC P-256, which are the keys passes are \
         signed with here: request the certificate with an RSA key"
            .to_string()
    })?;
    if cert.issuer != wwdr.subject {
        return Err(format!(
            "APPLE_WWDR_CERT ({}) did not issue APPLE_PASS_CERT (issued by {}): set the WWDR \
             certificate named in the pass certificate's issuer (G4 for current ones)",
            wwdr.subject_name(),
            cert.issuer_name()
        ));
    }
    // Apple's Pass Type ID certificates name their pass type (UID) and team (OU); a pass
    // whose pass.json says otherwise does not install.
    for (what, attribute, var, value) in [
        ("pass type", oid::UID, "APPLE_PASS_TYPE_ID", &pass_type_id),
        ("team", oid::ORGANIZATIONAL_UNIT, "APPLE_TEAM_ID", &team_id),
    ] {
        if let Some(named) = cert.subject_value(attribute).filter(|n| n != value) {
            return Err(format!(
                "APPLE_PASS_CERT is for the {what} {named}, but {var} is {value}: set {var} to \
                 {named}, or the certificate of {value}"
            ));
        }
    }
    Ok(Some(Apple {
        pass_type_id,
        team_id,
        cert,
        wwdr,
        key,
    }))
}

fn check_google(s: &Settings) -> Result<Option<Google>, String> {
    let configured = all_or_none(
        "Google passes",
        &[
            ("GOOGLE_WALLET_ISSUER_ID", s.google_issuer_id.is_some()),
            (
                "GOOGLE_WALLET_SERVICE_ACCOUNT",
                s.google_service_account.is_some(),
            ),
            (GOOGLE_WALLET_KEY, s.google_key),
        ],
    )?;
    let (Some(issuer_id), Some(service_account), true) = (
        s.google_issuer_id.clone(),
        s.google_service_account.clone(),
        configured,
    ) else {
        return Ok(None);
    };
    if !issuer_id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "GOOGLE_WALLET_ISSUER_ID {issuer_id:?} is not an issuer id (the digits the Google \
             Pay & Wallet Console shows); Google passes answer 404 until it is"
        ));
    }
    if !service_account.contains('@') {
        return Err(format!(
            "GOOGLE_WALLET_SERVICE_ACCOUNT {service_account:?} is not a service account's \
             email (client_email of its key file); Google passes answer 404 until it is"
        ));
    }
    Ok(Some(Google {
        issuer_id,
        service_account,
    }))
}

/// What both passes show of a card, and in which colours.
struct Face {
    name: String,
    title: Option<String>,
    company: Option<String>,
    /// Apple's `organizationName`: the company, else the card's title.
    organization: String,
    background: Rgb,
    foreground: Rgb,
}

impl Face {
    fn of(card: &Card) -> Face {
        let filled = |v: &Option<String>| v.clone().filter(|s| !s.trim().is_empty());
        let design = serde_json::from_str(card.design_config.get())
            .map(|config: serde_json::Value| Design::read(&config))
            .unwrap_or_default();
        let background = design.accent.unwrap_or(DEFAULT_ACCENT);
        let company = filled(&card.company);
        Face {
            name: format!("{} {}", card.first_name, card.last_name),
            title: filled(&card.job_title),
            organization: company.clone().unwrap_or_else(|| card.title.clone()),
            company,
            background,
            foreground: text_on(background),
        }
    }
}

/// The card URL a pass's QR code holds: a lead from a visitor who scanned it has the
/// source `wallet`.
pub fn scan_url(public_url: &str) -> String {
    format!("{public_url}?src=wallet")
}
