//! A card in a phone's wallet (wallet.md): `GET /c/{slug}/wallet.pkpass` (an Apple pass
//! signed in WebCrypto) and `GET /c/{slug}/wallet/google` (a 302 to Google's save page
//! with an RS256 JWT). `domain::wallet` makes everything but the signatures.
//!
//! A wallet that is not configured, or configured so that a phone would refuse its passes,
//! answers 404 on both routes and offers no button; the first request that meets a
//! configuration error logs it (once per isolate) with what to fix.

use std::cell::{Cell, RefCell};

use worker::{Request, Response};

use super::{headers, live_card, redirect, tracking};
use crate::domain::signing::hex;
use crate::domain::wallet::x509::KeyKind;
use crate::domain::wallet::{
    apple, cms, google, Apple, Google, Offered, APPLE_PASS_KEY, GOOGLE_WALLET_KEY,
};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::js::crypto;

thread_local! {
    /// Configuration errors this isolate has logged: each is logged once.
    static LOGGED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The wallets whose key WebCrypto refused in this isolate (a refusal is final).
    static REFUSED: Cell<Offered> = const { Cell::new(Offered { apple: false, google: false }) };
}

fn log_once(problem: &str) {
    LOGGED.with(|logged| {
        let mut logged = logged.borrow_mut();
        if !logged.iter().any(|p| p == problem) {
            worker::console_error!("wallet: {problem}");
            logged.push(problem.to_string());
        }
    });
}

/// The wallets the card page offers: what the configuration allows now, less a key that
/// WebCrypto refused here.
pub fn offered(app: &App) -> Offered {
    let configured = app.config.wallet.offered(app.now_ms);
    let refused = REFUSED.get();
    Offered {
        apple: configured.apple && !refused.apple,
        google: configured.google && !refused.google,
    }
}

/// The Apple identity, when passes can be signed with it now; its error logged otherwise.
fn apple_identity(app: &App) -> ApiResult<&'static Apple> {
    let problem = match &app.config.wallet.identities().apple {
        Ok(Some(apple)) if !REFUSED.get().apple => match apple.problem_at(app.now_ms) {
            None => return Ok(apple),
            Some(problem) => problem,
        },
        Ok(_) => return Err(ApiError::NotFound),
        Err(problem) => problem.clone(),
    };
    log_once(&problem);
    Err(ApiError::NotFound)
}

fn google_identity(app: &App) -> ApiResult<&'static Google> {
    match &app.config.wallet.identities().google {
        Ok(Some(google)) if !REFUSED.get().google => Ok(google),
        Ok(_) => Err(ApiError::NotFound),
        Err(problem) => {
            log_once(problem);
            Err(ApiError::NotFound)
        }
    }
}

/// `data` signed with the key in secret `name`; a key WebCrypto refuses turns the wallet
/// off in this isolate (404), logged once with what to fix.
async fn sign(app: &App, name: &str, key: KeyKind, spki: &[u8], data: &[u8]) -> ApiResult<Vec<u8>> {
    let env: &wasm_bindgen::JsValue = app.env.as_ref();
    match crypto::wallet_sign(env, name, key.webcrypto(), spki, data).await {
        Ok(signature) => Ok(signature),
        Err(why) => {
            let mut refused = REFUSED.get();
            let (certificate, wallet) = if name == APPLE_PASS_KEY {
                refused.apple = true;
                ("the private key of APPLE_PASS_CERT", "Apple")
            } else {
                refused.google = true;
                (
                    "the service account's private key (private_key of its JSON key file)",
                    "Google",
                )
            };
            REFUSED.set(refused);
            log_once(&format!(
                "{name} cannot sign: {why}. Set it to {certificate} as unencrypted PKCS#8 PEM \
                 (-----BEGIN PRIVATE KEY-----; `openssl pkcs8 -topk8 -nocrypt` converts \
                 other forms); {wallet} passes answer 404 until then"
            ));
            Err(ApiError::NotFound)
        }
    }
}

/// `GET /c/{slug}/wallet.pkpass`: the card's pass, made and signed for this request.
pub async fn apple_pass(app: &App, req: &Request, slug: &str) -> ApiResult<Response> {
    let apple = apple_identity(app)?;
    let (card, _) = live_card(app, slug).await?.ok_or(ApiError::NotFound)?;
    let pass_json = apple::pass_json(apple, &card, &card.public_url(&app.base_url));
    let sha1 = crypto::sha1(pass_json.as_bytes())
        .await
        .map_err(|e| ApiError::Internal(format!("WebCrypto SHA-1: {e}")))?;
    let manifest = apple::manifest(&hex(&sha1));
    let to_sign = cms::to_sign(manifest.as_bytes(), app.now_ms);
    let signature = sign(app, APPLE_PASS_KEY, apple.key, &apple.cert.spki, &to_sign).await?;
    let signature = match apple.key {
        KeyKind::Rsa => signature,
        KeyKind::P256 => cms::ecdsa_der(&signature)
            .ok_or_else(|| ApiError::Internal("an ECDSA signature of the wrong length".into()))?,
    };
    let signed = cms::signed_data(
        &apple::signer(apple),
        manifest.as_bytes(),
        app.now_ms,
        &signature,
    );
    let body = apple::pkpass(&pass_json, &manifest, &signed);
    tracking::record_click(app, card.account_id, card.id, "wallet", req);
    // `no-store` (from `headers`): the pass is the card as it is now, so no cache may
    // keep one that a card change would make stale; the same URL always gives the
    // current fields, and the serial number makes Wallet replace the old pass.
    let h = headers("application/vnd.apple.pkpass");
    let _ = h.set(
        "Content-Disposition",
        &format!("attachment; filename=\"{}.pkpass\"", card.slug),
    );
    Ok(Response::builder().with_headers(h).fixed(body))
}

/// `GET /c/{slug}/wallet/google`: a 302 to Google's save page with the signed JWT.
pub async fn google_save(app: &App, req: &Request, slug: &str) -> ApiResult<Response> {
    let google = google_identity(app)?;
    let (card, _) = live_card(app, slug).await?.ok_or(ApiError::NotFound)?;
    let claims = google::claims(
        google,
        &card,
        &card.public_url(&app.base_url),
        &app.base_url,
        app.now_ms,
    );
    let input = google::signing_input(&claims);
    let signature = sign(app, GOOGLE_WALLET_KEY, KeyKind::Rsa, &[], input.as_bytes()).await?;
    tracking::record_click(app, card.account_id, card.id, "wallet", req);
    Ok(redirect(302, &google::save_url(&input, &signature)))
}
