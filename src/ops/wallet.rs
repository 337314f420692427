//! Wallet passes' state in this isolate (wallet.md), shared by the doors that offer them:
//! the card page's buttons and routes (`public::wallet`) and the account area's Cards page.
//!
//! A wallet is offered when its configuration checks out now and WebCrypto has not refused
//! its key here. A configuration error is logged (once per isolate, `wallet: ...`, with what
//! to fix) by whichever of those first meets it, so an operator whose buttons vanished
//! finds why in the log even if no one ever asked a wallet route.

use std::cell::{Cell, RefCell};

use crate::domain::wallet::x509::KeyKind;
use crate::domain::wallet::{Apple, Google, Offered, APPLE_PASS_KEY};
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

/// The wallets a card can be added to now: what the configuration allows, less a key
/// WebCrypto refused here. A problem found on the way is logged.
pub fn offered(app: &App) -> Offered {
    Offered {
        apple: apple_identity(app).is_ok(),
        google: google_identity(app).is_ok(),
    }
}

/// The Apple identity, when passes can be signed with it now; its error logged otherwise.
pub fn apple_identity(app: &App) -> ApiResult<&'static Apple> {
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

/// The Google identity, when configured and its key not refused; its error logged otherwise.
pub fn google_identity(app: &App) -> ApiResult<&'static Google> {
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
/// off in this isolate (404, no buttons), logged once with what to fix.
pub async fn sign(
    app: &App,
    name: &str,
    key: KeyKind,
    spki: &[u8],
    data: &[u8],
) -> ApiResult<Vec<u8>> {
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
