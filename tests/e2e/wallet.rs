//! Wallet passes (wallet.md): the Apple pass unzipped, its manifest digests checked and its
//! signature verified by `openssl cms -verify` against the local root; the Google JWT
//! verified with the local public key; both 404 without configuration and with one a
//! phone would refuse (logged once). The servers here get the signing identity that
//! `scripts/wallet-dev.sh` makes, as `make dev` does.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::app::owner;
use crate::harness::{call, post_lead, server, Lead, Server, Tenant, ADMIN_TOKEN, BROWSER};

/// The identity (certificates, keys and `wallet.vars`), made once per test run.
fn identity() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root
            .join("target/e2e")
            .join(format!("wallet-identity-{}", std::process::id()));
        let out = Command::new(root.join("scripts/wallet-dev.sh"))
            .arg(&dir)
            .output()
            .expect("run scripts/wallet-dev.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

/// The PEM of an identity file as `wallet.vars` writes PEMs (`\n` escapes).
fn pem(name: &str) -> String {
    std::fs::read_to_string(identity().join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\\n"))
        .collect()
}

/// `wallet.vars` with some values replaced: the vars of a server.
fn vars(replace: &[(&str, String)]) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(identity().join("wallet.vars")).unwrap();
    let mut vars: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
        .collect();
    for (name, value) in replace {
        for (k, v) in vars.iter_mut() {
            if k == name {
                *v = value.clone();
            }
        }
    }
    vars.push(("ADMIN_TOKEN".into(), ADMIN_TOKEN.into()));
    vars
}

fn start(name: &str, vars: &[(String, String)]) -> Server {
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Server::start(name, &vars)
}

/// The server with a complete identity.
fn wallet_server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| start("wallet", &vars(&[])))
}

/// A response with its body as bytes (a pass is binary).
struct Got {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn get(s: &Server, path: &str) -> Got {
    let agent = ureq::AgentBuilder::new()
        .redirects(0)
        .timeout(Duration::from_secs(60))
        .build();
    let resp = match agent
        .get(&format!("{}{path}", s.base))
        .set("User-Agent", BROWSER)
        .call()
    {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("GET {path}: {e}"),
    };
    let headers = resp
        .headers_names()
        .into_iter()
        .filter_map(|n| resp.header(&n).map(|v| (n.clone(), v.to_string())))
        .collect();
    let status = resp.status();
    let mut body = Vec::new();
    resp.into_reader().read_to_end(&mut body).unwrap();
    Got {
        status,
        headers,
        body,
    }
}

fn tenant(s: &Server) -> Tenant<'_> {
    s.tenant(&["cards:write", "leads:read", "analytics:read"])
}

fn ada(t: &Tenant, extra: Value) -> Value {
    let mut body = json!({
        "first_name": "Ada", "last_name": "Lovelace", "job_title": "Engineer",
        "company": "Engines Ltd", "email": "ada@example.com", "show_lead_form": true,
        "design_config": {"accent_color": "#1e3a8a"}
    });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    t.card(body)
}

/// Runs a tool in `dir`; its stdout, or the test fails with its stderr.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the tool runs");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Unzips a pass into a fresh directory with Python's zipfile, checking every CRC and
/// every manifest digest; its `pass.json`.
fn unzip_and_check(pkpass: &[u8], name: &str) -> (PathBuf, Value) {
    let dir = identity().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("card.pkpass"), pkpass).unwrap();
    let script = "import hashlib, json, zipfile\n\
        z = zipfile.ZipFile('card.pkpass')\n\
        assert z.testzip() is None\n\
        names = z.namelist()\n\
        manifest = json.loads(z.read('manifest.json'))\n\
        listed = sorted(n for n in names if n not in ('manifest.json', 'signature'))\n\
        assert sorted(manifest) == listed, (manifest, names)\n\
        for n, digest in manifest.items():\n\
        \x20   assert hashlib.sha1(z.read(n)).hexdigest() == digest, n\n\
        z.extractall('.')\n\
        print(' '.join(names))\n";
    let names = run(&dir, "python3", &["-c", script]);
    assert_eq!(
        names.trim(),
        "pass.json icon.png icon@2x.png logo.png manifest.json signature"
    );
    let pass = serde_json::from_slice(&std::fs::read(dir.join("pass.json")).unwrap()).unwrap();
    (dir, pass)
}

#[test]
fn the_apple_pass_unzips_verifies_and_shows_the_card() {
    let s = wallet_server();
    let t = tenant(s);
    let c = ada(&t, json!({}));
    let (id, slug) = (c["id"].as_i64().unwrap(), c["slug"].as_str().unwrap());
    let r = get(s, &format!("/c/{slug}/wallet.pkpass"));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.apple.pkpass")
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(
        r.header("content-disposition"),
        Some(format!("attachment; filename=\"{slug}.pkpass\"").as_str())
    );
    let (dir, pass) = unzip_and_check(&r.body, "pass-1");

    // The detached signature of the manifest verifies against the local root, through the
    // intermediate it carries; it has a signing time.
    let root = identity().join("root.pem");
    let verified = Command::new("openssl")
        .args([
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "signature",
        ])
        .args(["-content", "manifest.json", "-CAfile"])
        .arg(&root)
        .args(["-purpose", "any", "-out", "/dev/null"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    assert!(String::from_utf8_lossy(&verified.stderr).contains("Verification successful"));
    let printed = run(
        &dir,
        "openssl",
        &[
            "cms",
            "-cmsout",
            "-print",
            "-inform",
            "DER",
            "-in",
            "signature",
        ],
    );
    assert!(printed.contains("object: signingTime"), "{printed}");
    assert!(printed.contains("Stand-in for Apple Worldwide Developer Relations"));
    assert!(printed.contains("Pass Type ID: pass.dev.cardapi.local"));
    // Without the intermediate in the signature, the root alone would not verify it.
    let no_chain = Command::new("openssl")
        .args([
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "signature",
        ])
        .args(["-content", "manifest.json", "-CAfile"])
        .arg(&root)
        .args(["-purpose", "any", "-nointern", "-out", "/dev/null"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        !no_chain.status.success(),
        "the intermediate comes from the signature"
    );

    let base = &s.base;
    assert_eq!(pass["formatVersion"], 1);
    assert_eq!(pass["passTypeIdentifier"], "pass.dev.cardapi.local");
    assert_eq!(pass["teamIdentifier"], "DEVTEAM123");
    assert_eq!(pass["serialNumber"], format!("card-{id}"));
    assert_eq!(pass["organizationName"], "Engines Ltd");
    assert_eq!(pass["backgroundColor"], "rgb(30, 58, 138)");
    assert_eq!(pass["foregroundColor"], "rgb(255, 255, 255)");
    assert_eq!(
        pass["barcodes"],
        json!([{"format": "PKBarcodeFormatQR", "message": format!("{base}/c/{slug}?src=wallet"),
                "messageEncoding": "iso-8859-1"}])
    );
    assert_eq!(
        pass["generic"],
        json!({"primaryFields": [{"key": "name", "value": "Ada Lovelace"}],
               "secondaryFields": [{"key": "title", "value": "Engineer"},
                                   {"key": "company", "value": "Engines Ltd"}]})
    );

    // A change of the card shows in the next download from the same URL, same serial.
    let changed = t.send(
        "PATCH",
        &format!("/cards/{id}"),
        &json!({"job_title": "Chief Engineer", "company": "Analytical Engines"}),
    );
    assert_eq!(changed.status, 200, "{}", changed.body);
    let r = get(s, &format!("/c/{slug}/wallet.pkpass"));
    assert_eq!(r.status, 200);
    let (_, pass) = unzip_and_check(&r.body, "pass-2");
    assert_eq!(pass["serialNumber"], format!("card-{id}"));
    assert_eq!(
        pass["generic"]["secondaryFields"][0]["value"],
        "Chief Engineer"
    );
    assert_eq!(
        pass["generic"]["secondaryFields"][1]["value"],
        "Analytical Engines"
    );
    assert_eq!(pass["organizationName"], "Analytical Engines");
}

#[test]
fn the_google_link_carries_a_jwt_that_verifies() {
    let s = wallet_server();
    let t = tenant(s);
    let c = ada(&t, json!({"language": "de"}));
    let (id, slug) = (c["id"].as_i64().unwrap(), c["slug"].as_str().unwrap());
    let r = get(s, &format!("/c/{slug}/wallet/google"));
    assert_eq!(r.status, 302);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let location = r.header("location").unwrap();
    let jwt = location
        .strip_prefix("https://pay.google.com/gp/v/save/")
        .unwrap_or_else(|| panic!("{location}"));
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    let decode = |part: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap()
    };
    let dir = identity().join(format!("jwt-{id}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("input"), format!("{}.{}", parts[0], parts[1])).unwrap();
    std::fs::write(dir.join("signature"), decode(parts[2])).unwrap();
    let public = identity().join("google-public.pem");
    let verified = run(
        &dir,
        "openssl",
        &[
            "dgst",
            "-sha256",
            "-verify",
            public.to_str().unwrap(),
            "-signature",
            "signature",
            "input",
        ],
    );
    assert_eq!(verified.trim(), "Verified OK");
    let header: Value = serde_json::from_slice(&decode(parts[0])).unwrap();
    assert_eq!(header, json!({"alg": "RS256", "typ": "JWT"}));
    let claims: Value = serde_json::from_slice(&decode(parts[1])).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let iat = claims["iat"].as_i64().unwrap();
    assert!((now - iat).abs() < 120, "iat {iat}, now {now}");
    let issuer = "3388000000022000000";
    assert_eq!(
        claims,
        json!({
            "iss": "wallet-dev@cardapi-local.iam.gserviceaccount.com",
            "aud": "google",
            "typ": "savetowallet",
            "iat": iat,
            "origins": [s.base],
            "payload": {
                "genericClasses": [{"id": format!("{issuer}.business_card")}],
                "genericObjects": [{
                    "id": format!("{issuer}.{id}"),
                    "classId": format!("{issuer}.business_card"),
                    "state": "ACTIVE",
                    "cardTitle": {"defaultValue": {"language": "de", "value": "Engines Ltd"}},
                    "header": {"defaultValue": {"language": "de", "value": "Ada Lovelace"}},
                    "subheader": {"defaultValue": {"language": "de", "value": "Engineer"}},
                    "barcode": {"type": "QR_CODE", "value": format!("{}/c/{slug}?src=wallet", s.base)},
                    "hexBackgroundColor": "#1e3a8a"
                }]
            }
        })
    );
}

/// The page's buttons in the page's language; a download and a redirect each count as a
/// `wallet` click; a lead from the pass's QR code has the source `wallet`.
#[test]
fn buttons_clicks_and_the_lead_source() {
    let s = wallet_server();
    let t = tenant(s);
    let c = ada(&t, json!({"language": "de"}));
    let (id, slug) = (c["id"].as_i64().unwrap(), c["slug"].as_str().unwrap());
    let page = String::from_utf8(get(s, &format!("/c/{slug}")).body).unwrap();
    assert!(
        page.contains(&format!(
            "<p class=\"wallet\"><a href=\"/c/{slug}/wallet.pkpass\" rel=\"nofollow\">Zu Apple \
             Wallet hinzufügen</a><a href=\"/c/{slug}/wallet/google\" rel=\"nofollow\">Zu Google \
             Wallet hinzufügen</a></p>"
        )),
        "{page}"
    );
    assert_eq!(get(s, &format!("/c/{slug}/wallet.pkpass")).status, 200);
    assert_eq!(get(s, &format!("/c/{slug}/wallet/google")).status, 302);
    let started = Instant::now();
    let clicks = loop {
        let r = t.get(&format!("/analytics/clicks?card_id={id}"));
        assert_eq!(r.status, 200, "{}", r.body);
        let data = r.json()["data"].clone();
        if data["total_clicks"] == 2 || started.elapsed() > Duration::from_secs(15) {
            break data;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(clicks["clicks_by_type"], json!({"wallet": 2}));

    let lead = json!({"name": "Scanner", "email": "scan@example.com"});
    let form = "name=Scanner&email=scan%40example.com&src=wallet&lang=de";
    let r = post_lead(s, slug, Some("198.51.100.41"), Lead::Form(form), &[]);
    assert_eq!(r.status, 303, "{}", r.body);
    let leads = t.get(&format!("/leads?card_id={id}")).json();
    assert_eq!(leads["data"][0]["source"], "wallet", "{leads}");
    assert_eq!(leads["data"][0]["email"], lead["email"]);
}

#[test]
fn without_configuration_both_routes_are_404() {
    let s = server();
    let t = s.tenant(&["cards:write"]);
    let c = t.card(json!({"first_name": "No", "last_name": "Wallet"}));
    let slug = c["slug"].as_str().unwrap();
    for path in [
        format!("/c/{slug}/wallet.pkpass"),
        format!("/c/{slug}/wallet/google"),
    ] {
        let r = call(
            "GET",
            &format!("{}{path}", s.base),
            None,
            None,
            &[("User-Agent", BROWSER)],
        );
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    }
    let page = call(
        "GET",
        &format!("{}/c/{slug}", s.base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    );
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("class=\"wallet\""));
    // A card the public may not see has no pass either, even where wallets are configured.
    let w = wallet_server();
    let t = tenant(w);
    let hidden = ada(&t, json!({"is_public": false}));
    let slug = hidden["slug"].as_str().unwrap();
    assert_eq!(get(w, &format!("/c/{slug}/wallet.pkpass")).status, 404);
    assert_eq!(get(w, &format!("/c/{slug}/wallet/google")).status, 404);
    assert_eq!(get(w, "/c/no-such-card-here/wallet.pkpass").status, 404);
}

/// An owner signed in to the account area of `s`, with an API token for their cards.
fn area_owner(s: &Server, seed: u8) -> (Tenant<'_>, crate::app::Browser<'_>) {
    let (account, browser, _) = owner(s, seed);
    let token = s.token(account, &["cards:write", "analytics:read"]);
    let tenant = Tenant {
        server: s,
        account,
        token,
    };
    (tenant, browser)
}

/// The account area's Cards page offers both wallets for an active card (not for a
/// draft, whose pass would be 404), in English and German; its links give the pass.
/// Without configuration it offers none.
#[test]
fn the_account_areas_cards_page_offers_the_wallets() {
    let s = wallet_server();
    let (t, mut b) = area_owner(s, 141);
    let c = ada(&t, json!({}));
    let slug = c["slug"].as_str().unwrap();
    let draft = ada(&t, json!({"first_name": "Draft"}));
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", draft["id"]),
        &json!({"status": "draft"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = b.get("/app/cards");
    assert_eq!(page.status, 200, "{}", page.body);
    for link in [
        format!(
            "<a href=\"/c/{slug}/wallet.pkpass\" aria-label=\"Add to Apple Wallet: Ada \
             Lovelace\">Add to Apple Wallet</a>"
        ),
        format!(
            "<a href=\"/c/{slug}/wallet/google\" aria-label=\"Add to Google Wallet: Ada \
             Lovelace\">Add to Google Wallet</a>"
        ),
    ] {
        assert!(page.body.contains(&link), "{link}\n{}", page.body);
    }
    let draft_slug = draft["slug"].as_str().unwrap();
    assert!(!page.body.contains(&format!("/c/{draft_slug}/wallet")));
    assert_eq!(
        get(s, &format!("/c/{draft_slug}/wallet.pkpass")).status,
        404
    );
    b.lang = "de-DE,de;q=0.9";
    let de = b.get("/app/cards").body;
    assert!(de.contains(">Zu Apple Wallet hinzufügen</a>"), "{de}");
    assert!(de.contains(">Zu Google Wallet hinzufügen</a>"), "{de}");
    let pass = get(s, &format!("/c/{slug}/wallet.pkpass"));
    assert_eq!(pass.status, 200);
    unzip_and_check(&pass.body, "pass-area");
    assert_eq!(get(s, &format!("/c/{slug}/wallet/google")).status, 302);

    let (t, mut b) = area_owner(server(), 142);
    ada(&t, json!({}));
    let page = b.get("/app/cards");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("/vcard\""), "the card is listed");
    assert!(!page.body.contains("Wallet"), "{}", page.body);
}

/// The lines of a server's log that contain `needle` (waiting up to 10 s for the first).
fn log_lines(s: &Server, needle: &str) -> Vec<String> {
    let started = Instant::now();
    loop {
        let mut lines = Vec::new();
        for entry in std::fs::read_dir(&s.state).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("wrangler-") && name.ends_with(".log") {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                lines.extend(
                    text.lines()
                        .filter(|l| l.contains(needle))
                        .map(str::to_string),
                );
            }
        }
        if !lines.is_empty() || started.elapsed() > Duration::from_secs(10) {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A pass certificate that expired, and a Google key that is a certificate: 404 on every
/// try, no button, one log line each saying what to fix.
#[test]
fn an_expired_certificate_and_a_malformed_key_are_404_and_logged_once() {
    let s = start(
        "wallet-expired",
        &vars(&[
            ("APPLE_PASS_CERT", pem("expired-pass.pem")),
            ("GOOGLE_WALLET_KEY", pem("root.pem")),
        ]),
    );
    let t = tenant(&s);
    let c = ada(&t, json!({}));
    let slug = c["slug"].as_str().unwrap();
    for _ in 0..3 {
        assert_eq!(get(&s, &format!("/c/{slug}/wallet.pkpass")).status, 404);
        assert_eq!(get(&s, &format!("/c/{slug}/wallet/google")).status, 404);
    }
    let page = String::from_utf8(get(&s, &format!("/c/{slug}")).body).unwrap();
    assert!(!page.contains("wallet.pkpass"), "no Apple button");
    assert!(
        !page.contains("wallet/google"),
        "no Google button after the refusal"
    );
    let (t, mut b) = area_owner(&s, 143);
    ada(&t, json!({}));
    let cards = b.get("/app/cards").body;
    assert!(
        cards.contains("/vcard\"") && !cards.contains("Wallet"),
        "{cards}"
    );
    let expired = log_lines(&s, "wallet: APPLE_PASS_CERT");
    assert_eq!(expired.len(), 1, "{expired:?}");
    assert!(
        expired[0].contains("(Pass Type ID: pass.dev.cardapi.local) expired on 2021-01-01"),
        "{}",
        expired[0]
    );
    let malformed = log_lines(&s, "wallet: GOOGLE_WALLET_KEY");
    assert_eq!(malformed.len(), 1, "{malformed:?}");
    assert!(
        malformed[0].contains("it holds a CERTIFICATE block, not PRIVATE KEY (PKCS#8)"),
        "{}",
        malformed[0]
    );
    s.stop();
}

/// A key that is not the certificate's: WebCrypto's check finds it on the first pass;
/// 404 from then on, one log line, and the page stops offering the button.
#[test]
fn a_key_that_does_not_match_the_certificate_is_404_and_logged_once() {
    let s = start(
        "wallet-mismatch",
        &vars(&[("APPLE_PASS_KEY", pem("other.key"))]),
    );
    let t = tenant(&s);
    let c = ada(&t, json!({}));
    let slug = c["slug"].as_str().unwrap();
    let page = String::from_utf8(get(&s, &format!("/c/{slug}")).body).unwrap();
    assert!(
        page.contains("wallet.pkpass"),
        "offered until the key is tried"
    );
    for _ in 0..3 {
        assert_eq!(get(&s, &format!("/c/{slug}/wallet.pkpass")).status, 404);
    }
    assert_eq!(
        get(&s, &format!("/c/{slug}/wallet/google")).status,
        302,
        "Google is fine"
    );
    let page = String::from_utf8(get(&s, &format!("/c/{slug}")).body).unwrap();
    assert!(
        !page.contains("wallet.pkpass"),
        "no Apple button once refused"
    );
    assert!(page.contains("wallet/google"));
    let (t, mut b) = area_owner(&s, 144);
    ada(&t, json!({}));
    let cards = b.get("/app/cards").body;
    assert!(
        cards.contains("Add to Google Wallet") && !cards.contains("Apple"),
        "{cards}"
    );
    let lines = log_lines(&s, "wallet: APPLE_PASS_KEY");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("it is not the key of the certificate"),
        "{}",
        lines[0]
    );
    s.stop();
}
