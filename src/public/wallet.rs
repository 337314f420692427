//! A card in a phone's wallet (wallet.md): `GET /c/{slug}/wallet.pkpass` (an Apple pass
//! signed in WebCrypto) and `GET /c/{slug}/wallet/google` (a 302 to Google's save page
//! with an RS256 JWT). `domain::wallet` makes everything but the signatures.
//!
//! A wallet that is not configured, or configured so that a phone would refuse its passes,
//! answers 404 on both routes and offers no button; `ops::wallet` keeps that state and logs
//! each configuration error once per isolate with what to fix.

use worker::{Request, Response};

use super::{headers, live_card, redirect, tracking};
use crate::domain::signing::hex;
use crate::domain::wallet::x509::KeyKind;
use crate::domain::wallet::{apple, cms, google, APPLE_PASS_KEY, GOOGLE_WALLET_KEY};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::js::crypto;
use crate::ops::wallet::{apple_identity, google_identity, sign};

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
    tracking::record_click(app, card.account_id, card.id, "wallet", req).await;
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
    tracking::record_click(app, card.account_id, card.id, "wallet", req).await;
    Ok(redirect(302, &google::save_url(&input, &signature)))
}
