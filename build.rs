//! Names the OpenAPI document's KV key by its content: `openapi:` and the first 16 hex
//! digits of the SHA-256 of `openapi.json` (`OPENAPI_KEY`, read by `api::openapi`). The
//! document is not in the upload; `scripts/openapi-kv.sh` stores it under the same key
//! (locally from `migrate-local.sh`, remotely from `deploy.py`, before the upload), so a
//! version always finds its own document and a rollback finds the older one.

use sha2::{Digest, Sha256};

fn main() {
    println!("cargo:rerun-if-changed=openapi.json");
    let doc = std::fs::read("openapi.json").expect("openapi.json at the crate root");
    let hex: String = Sha256::digest(&doc)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=OPENAPI_KEY=openapi:{hex}");
}
