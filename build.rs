//! Two build-time facts for the crate:
//! - `OPENAPI_KEY`: the OpenAPI document's KV key, named by its content: `openapi:` and the
//!   first 16 hex digits of the SHA-256 of `openapi.json` (read by `api::openapi`). The
//!   document is not in the upload; `scripts/openapi-kv.sh` stores it under the same key
//!   (locally from `migrate-local.sh`, remotely from `deploy.py`, before the upload), so a
//!   version always finds its own document and a rollback finds the older one.
//! - The account area's stylesheet and script, minified into `OUT_DIR` (`area::assets`
//!   embeds and serves those bytes; the sources in `src/area/assets/` stay readable).

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// The account area's assets, in `src/area/assets/`.
const AREA_ASSETS: [&str; 2] = ["app.css", "app.js"];

fn main() {
    println!("cargo:rerun-if-changed=openapi.json");
    let doc = std::fs::read("openapi.json").expect("openapi.json at the crate root");
    let hex: String = Sha256::digest(&doc)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=OPENAPI_KEY=openapi:{hex}");

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let esbuild = esbuild();
    for name in AREA_ASSETS {
        let src = Path::new("src/area/assets").join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        let dst = out.join(name);
        match &esbuild {
            Some(bin) => minify(bin, &src, &dst),
            None => {
                std::fs::copy(&src, &dst).expect("copy an account area asset");
            }
        }
    }
}

/// The pinned esbuild: `ESBUILD_BIN` (the Makefile exports it for worker-build; set, it
/// must work, so a release never ships the sources by accident), else the npm tooling's
/// copy when it is installed. Without either (a fresh clone's plain `cargo test`) the
/// sources are embedded as they are, with a warning: same behaviour, more bytes.
fn esbuild() -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed=ESBUILD_BIN");
    let bin = match std::env::var_os("ESBUILD_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => {
            let local = Path::new("node_modules/.bin/esbuild");
            if !local.exists() {
                println!("cargo:warning=no esbuild (run `npm ci` or `make tools`): the account area's CSS and JS are embedded unminified");
                return None;
            }
            local.to_path_buf()
        }
    };
    // Another esbuild (an `npm ci` of a new version) minifies again.
    println!("cargo:rerun-if-changed={}", bin.display());
    Some(bin)
}

fn minify(esbuild: &Path, src: &Path, dst: &Path) {
    let run = Command::new(esbuild)
        .arg(src)
        .arg("--minify")
        .arg("--log-level=warning")
        .arg(format!("--outfile={}", dst.display()))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", esbuild.display()));
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "esbuild {}: {said}", src.display());
    for line in said.lines().filter(|l| !l.trim().is_empty()) {
        println!("cargo:warning=esbuild {}: {line}", src.display());
    }
}
