//! The account area (account-area.md): the operator's invite, the passkey ceremonies as a
//! browser drives them (a software authenticator here, signing with p256), sessions, the
//! `Origin` rule, the sign-in throttle, and the pages. Chromium drives the same flow with
//! a virtual authenticator in `tests/browser/app.mjs`.

use ciborium::Value as C;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::harness::{call, server, Resp, Server};
use cardapi::domain::conditional::strong_etag;
use cardapi::domain::signing::{base64url, base64url_decode, hex};

/// A passkey held by a test: an ES256 key, its credential id and its counter.
pub struct Authenticator {
    key: SigningKey,
    pub credential: Vec<u8>,
    pub count: u32,
    /// The user handle the registration gave it.
    pub user: Vec<u8>,
}

fn cbor(v: &C) -> Vec<u8> {
    let mut out = vec![];
    ciborium::into_writer(v, &mut out).expect("encodes");
    out
}

fn int(n: i64) -> C {
    C::Integer(n.into())
}

/// `authenticatorData`: the RP id's hash, flags (UP, UV, AT when a key is attested), the
/// counter, and the attested credential.
fn auth_data(rp_id: &str, count: u32, attested: Option<(&[u8], &[u8])>) -> Vec<u8> {
    let mut out = Sha256::digest(rp_id.as_bytes()).to_vec();
    out.push(0x05 | if attested.is_some() { 0x40 } else { 0 });
    out.extend(count.to_be_bytes());
    if let Some((id, cose)) = attested {
        out.extend([0; 16]);
        out.extend((id.len() as u16).to_be_bytes());
        out.extend(id);
        out.extend(cose);
    }
    out
}

fn client_data(kind: &str, challenge: &str, origin: &str) -> Vec<u8> {
    json!({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": false})
        .to_string()
        .into_bytes()
}

impl Authenticator {
    pub fn new(seed: u8) -> Authenticator {
        let key = SigningKey::from_slice(&[seed.max(1); 32]).expect("a valid scalar");
        let mut credential = b"e2e-credential-".to_vec();
        credential.extend(std::process::id().to_be_bytes());
        credential.push(seed);
        credential.extend(rand_bytes());
        Authenticator {
            key,
            credential,
            count: 0,
            user: vec![],
        }
    }

    fn cose(&self) -> Vec<u8> {
        let point = self.key.verifying_key().to_encoded_point(false);
        cbor(&C::Map(vec![
            (int(1), int(2)),
            (int(3), int(-7)),
            (int(-1), int(1)),
            (int(-2), C::Bytes(point.x().expect("x").to_vec())),
            (int(-3), C::Bytes(point.y().expect("y").to_vec())),
        ]))
    }

    /// A `RegistrationResponseJSON` for creation options, signed for `origin`.
    pub fn register(&mut self, options: &Value, origin: &str) -> Value {
        let rp = options["rp"]["id"].as_str().expect("rp.id");
        let challenge = options["challenge"].as_str().expect("challenge");
        self.user = base64url_decode(options["user"]["id"].as_str().expect("user.id"))
            .expect("base64url user id");
        let data = auth_data(rp, self.count, Some((&self.credential, &self.cose())));
        let attestation = cbor(&C::Map(vec![
            (C::Text("fmt".into()), C::Text("none".into())),
            (C::Text("attStmt".into()), C::Map(vec![])),
            (C::Text("authData".into()), C::Bytes(data)),
        ]));
        let client = client_data("webauthn.create", challenge, origin);
        json!({
            "id": base64url(&self.credential),
            "rawId": base64url(&self.credential),
            "type": "public-key",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": base64url(&client),
                "attestationObject": base64url(&attestation),
                "transports": ["internal"],
            },
        })
    }

    /// An `AuthenticationResponseJSON` for request options, signed for `origin`; the
    /// counter moves on.
    pub fn assert(&mut self, options: &Value, origin: &str) -> Value {
        self.count += 1;
        let rp = options["rpId"].as_str().expect("rpId");
        let challenge = options["challenge"].as_str().expect("challenge");
        let data = auth_data(rp, self.count, None);
        let client = client_data("webauthn.get", challenge, origin);
        let mut message = data.clone();
        message.extend(Sha256::digest(&client));
        let signature: Signature = self.key.sign(&message);
        json!({
            "id": base64url(&self.credential),
            "rawId": base64url(&self.credential),
            "type": "public-key",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": base64url(&client),
                "authenticatorData": base64url(&data),
                "signature": base64url(signature.to_der().as_bytes()),
                "userHandle": base64url(&self.user),
            },
        })
    }
}

fn rand_bytes() -> [u8; 8] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    (nanos as u64).to_be_bytes()
}

/// A browser of the account area: its cookie jar (the session), its origin and language.
pub struct Browser<'a> {
    pub server: &'a Server,
    pub session: Option<String>,
    pub lang: &'static str,
}

impl<'a> Browser<'a> {
    pub fn new(server: &'a Server) -> Browser<'a> {
        Browser {
            server,
            session: None,
            lang: "en",
        }
    }

    fn send(&mut self, method: &str, path: &str, body: Option<(&str, &str)>) -> Resp {
        let cookie = self
            .session
            .as_ref()
            .map(|s| format!("__Host-session={s}"))
            .unwrap_or_default();
        let mut headers = vec![
            ("Origin", self.server.base.as_str()),
            ("Accept-Language", self.lang),
            ("Cookie", cookie.as_str()),
        ];
        if let Some((kind, _)) = body {
            headers.push(("Content-Type", kind));
        }
        let url = format!("{}{path}", self.server.base);
        let r = call(method, &url, None, body.map(|(_, b)| b), &headers);
        if let Some(set) = r.header("set-cookie") {
            if let Some(value) = set
                .strip_prefix("__Host-session=")
                .and_then(|v| v.split(';').next())
            {
                self.session = (!value.is_empty()).then(|| value.to_string());
            }
        }
        r
    }

    pub fn get(&mut self, path: &str) -> Resp {
        self.send("GET", path, None)
    }

    pub fn post_json(&mut self, path: &str, body: &Value) -> Resp {
        let text = body.to_string();
        self.send("POST", path, Some(("application/json", &text)))
    }

    /// A form post, as the pages' forms send (`a=1&b=2`, already encoded).
    pub fn post_form(&mut self, path: &str, form: &str) -> Resp {
        self.send(
            "POST",
            path,
            Some(("application/x-www-form-urlencoded", form)),
        )
    }

    /// Signs in with a passkey through the two sign-in calls.
    pub fn sign_in(&mut self, passkey: &mut Authenticator) -> Resp {
        let options = self.post_json("/app/sign-in/options", &json!({}));
        assert_eq!(options.status, 200, "{}", options.body);
        let answer = passkey.assert(&options.json(), &self.server.base);
        self.post_json("/app/sign-in", &answer)
    }
}

/// The operator's invite of `email` to `account`: its link.
pub fn invite(s: &Server, account: i64, email: &str, role: &str) -> String {
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/invites"),
        Some(json!({"email": email, "role": role})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["data"]["url"].as_str().expect("url").to_string()
}

/// The path of an invite link.
pub fn path_of(url: &str) -> &str {
    url.find("/app/").map_or(url, |i| &url[i..])
}

/// Accepts an invite as a browser would: the member signed in, and their passkey.
pub fn join<'a>(s: &'a Server, url: &str, seed: u8) -> (Browser<'a>, Authenticator) {
    let mut browser = Browser::new(s);
    let mut passkey = Authenticator::new(seed);
    let path = path_of(url);
    let options = browser.post_json(&format!("{path}/options"), &json!({}));
    assert_eq!(options.status, 200, "{}", options.body);
    let answer = passkey.register(&options.json(), &s.base);
    let r = browser.post_json(path, &answer);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(browser.session.is_some(), "a session cookie: {r:?}");
    (browser, passkey)
}

/// An enterprise account with a signed-in owner.
pub fn owner(s: &Server, seed: u8) -> (i64, Browser<'_>, Authenticator) {
    let account = s.account("enterprise", json!({}));
    let url = invite(s, account, &format!("owner{seed}@acme.example"), "owner");
    let (browser, passkey) = join(s, &url, seed);
    (account, browser, passkey)
}

#[test]
fn the_operator_invites_and_the_owner_registers_signs_out_and_in() {
    let s = server();
    let account = s.account("enterprise", json!({}));
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/invites"),
        Some(json!({"email": "Ada@Acme.example", "role": "owner"})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let data = r.json()["data"].clone();
    assert_eq!(data["email"], "ada@acme.example");
    assert_eq!(data["role"], "owner");
    let url = data["url"].as_str().expect("url").to_string();
    let code = url.rsplit('/').next().expect("a code");
    assert!(
        base64url_decode(code).is_some_and(|b| b.len() >= 16),
        "{url}"
    );
    assert!(data["expires_at"].is_string() && data["id"].is_i64());
    // The same address again while it is no member yet: another link.
    let again = s.admin(
        "POST",
        &format!("/accounts/{account}/invites"),
        Some(json!({"email": "ada@acme.example"})),
    );
    assert_eq!(again.status, 201, "{}", again.body);
    let bad = s.admin(
        "POST",
        &format!("/accounts/{account}/invites"),
        Some(json!({"email": "nope", "role": "admin"})),
    );
    let e = bad.assert_error(422);
    assert!(e["errors"]["email"].is_array() && e["errors"]["role"].is_array());
    assert_eq!(
        s.admin(
            "POST",
            "/accounts/999999/invites",
            Some(json!({"email": "a@b.example"}))
        )
        .status,
        404
    );

    let mut browser = Browser::new(s);
    let page = browser.get(path_of(&url));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("E2E account") && page.body.contains("ada@acme.example"));
    let options = browser.post_json(&format!("{}/options", path_of(&url)), &json!({}));
    assert_eq!(options.status, 200, "{}", options.body);
    let o = options.json();
    assert_eq!(o["rp"]["id"], "127.0.0.1");
    assert_eq!(o["user"]["name"], "ada@acme.example");
    assert_eq!(o["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(o["attestation"], "none");
    let algs: Vec<i64> = o["pubKeyCredParams"]
        .as_array()
        .expect("params")
        .iter()
        .filter_map(|p| p["alg"].as_i64())
        .collect();
    assert_eq!(algs, [-7, -257]);
    assert!(base64url_decode(o["challenge"].as_str().unwrap()).is_some_and(|c| c.len() >= 16));

    let mut passkey = Authenticator::new(11);
    let answer = passkey.register(&o, &s.base);
    let joined = browser.post_json(path_of(&url), &answer);
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.json(), json!({"data": {"redirect": "/app"}}));
    let cookie = joined
        .header("set-cookie")
        .expect("a session cookie")
        .to_string();
    for part in [
        "__Host-session=",
        "Path=/",
        "Secure",
        "HttpOnly",
        "SameSite=Lax",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let first = browser.session.clone().expect("session");
    let home = browser.get("/app");
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(home.body.contains("ada@acme.example"));
    assert_eq!(home.header("cache-control"), Some("no-store"));
    let csp = home.header("content-security-policy").expect("a CSP");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );

    // The link works once.
    let used = Browser::new(s).post_json(&format!("{}/options", path_of(&url)), &json!({}));
    used.assert_error(410);
    assert_eq!(Browser::new(s).get(path_of(&url)).status, 410);

    // Sign-out ends the session on the server: the old cookie no longer works.
    let out = browser.post_form("/app/sign-out", "");
    assert_eq!(out.status, 303);
    let mut stale = Browser::new(s);
    stale.session = Some(first.clone());
    let r = stale.get("/app");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/app/sign-in"))
    );

    // And a sign-in with the passkey makes a new one.
    let mut again = Browser::new(s);
    let r = again.sign_in(&mut passkey);
    assert_eq!(r.status, 200, "{}", r.body);
    let second = again.session.clone().expect("a new session");
    assert_ne!(second, first, "a new id at every sign-in");
    assert_eq!(again.get("/app").status, 200);
}

#[test]
fn a_failed_check_answers_400_sets_nothing_and_speaks_german() {
    let s = server();
    let (_, _, mut passkey) = owner(s, 21);
    let mut b = Browser::new(s);

    // Signed for another origin.
    let options = b.post_json("/app/sign-in/options", &json!({})).json();
    let answer = passkey.assert(&options, "https://evil.example");
    let r = b.post_json("/app/sign-in", &answer);
    r.assert_error(400);
    assert!(r.header("set-cookie").is_none() && b.session.is_none());

    // A challenge works once: replaying a good answer fails.
    let options = b.post_json("/app/sign-in/options", &json!({})).json();
    let answer = passkey.assert(&options, &s.base);
    assert_eq!(b.post_json("/app/sign-in", &answer).status, 200);
    let mut other = Browser::new(s);
    other.post_json("/app/sign-in", &answer).assert_error(400);

    // A changed signature, in German.
    let mut de = Browser::new(s);
    de.lang = "de-DE,de;q=0.9";
    let options = de.post_json("/app/sign-in/options", &json!({})).json();
    let mut answer = passkey.assert(&options, &s.base);
    let mut data =
        base64url_decode(answer["response"]["authenticatorData"].as_str().unwrap()).expect("bytes");
    data[36] ^= 0xff; // the counter: the signature no longer covers what is sent
    answer["response"]["authenticatorData"] = base64url(&data).into();
    let e = de.post_json("/app/sign-in", &answer).assert_error(400);
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Passkey") || message.contains("Anmeld") || message.contains("Signatur"),
        "German: {message}"
    );

    // An unknown passkey.
    let mut stranger = Authenticator::new(99);
    stranger.user = b"nobody".to_vec();
    let options = b.post_json("/app/sign-in/options", &json!({})).json();
    let answer = stranger.assert(&options, &s.base);
    Browser::new(s)
        .post_json("/app/sign-in", &answer)
        .assert_error(400);

    // A counter that goes back (a cloned authenticator).
    passkey.count = 0;
    let options = b.post_json("/app/sign-in/options", &json!({})).json();
    let answer = passkey.assert(&options, &s.base);
    Browser::new(s)
        .post_json("/app/sign-in", &answer)
        .assert_error(400);
}

#[test]
fn pages_need_a_session_and_posts_our_origin() {
    let s = server();
    let mut nobody = Browser::new(s);
    for page in ["/app", "/app/tokens", "/app/leads", "/app/security"] {
        let r = nobody.get(page);
        assert_eq!(
            (r.status, r.header("location")),
            (303, Some("/app/sign-in")),
            "{page}"
        );
    }
    let sign_in = nobody.get("/app/sign-in");
    assert_eq!(sign_in.status, 200);
    assert!(sign_in.body.contains("data-ceremony=\"get\""));
    let (_, mut owner, _) = owner(s, 31);
    // A POST from another site, or with no Origin, is refused.
    let url = format!("{}/app/sign-out", s.base);
    let cookie = format!("__Host-session={}", owner.session.clone().unwrap());
    for origin in [Some("https://evil.example"), None] {
        let mut headers = vec![("Cookie", cookie.as_str())];
        headers.extend(origin.map(|o| ("Origin", o)));
        let r = call("POST", &url, None, Some(""), &headers);
        assert_eq!(r.status, 403, "{origin:?}: {}", r.body);
    }
    assert_eq!(owner.get("/app").status, 200, "the session still stands");
    // German from Accept-Language, and the switch.
    owner.lang = "de";
    assert!(owner.get("/app").body.contains("Übersicht"));
    let switched = owner.get("/app?lang=en");
    assert!(switched.body.contains("Overview"));
    assert!(switched
        .header("set-cookie")
        .is_some_and(|c| c.starts_with("app_lang=en")));
}

#[test]
fn failed_sign_ins_are_limited_per_address() {
    let s = Server::start(
        "app-throttle",
        &[("ADMIN_TOKEN", crate::harness::ADMIN_TOKEN)],
    );
    let mut b = Browser::new(&s);
    let mut stranger = Authenticator::new(77);
    stranger.user = b"nobody".to_vec();
    for i in 0..10 {
        let options = b.post_json("/app/sign-in/options", &json!({})).json();
        let answer = stranger.assert(&options, &s.base);
        let r = b.post_json("/app/sign-in", &answer);
        assert_eq!(r.status, 400, "attempt {i}: {}", r.body);
    }
    let options = b.post_json("/app/sign-in/options", &json!({})).json();
    let answer = stranger.assert(&options, &s.base);
    let r = b.post_json("/app/sign-in", &answer);
    assert_eq!(r.status, 429, "{}", r.body);
}

/// The area's stylesheet and script as the build embeds them: minified (one line, smaller
/// than their sources in src/area/assets/), named in the pages by a digest of the bytes
/// served and tagged by those bytes, so a cached copy is never stale.
#[test]
fn assets_are_served_minified_under_a_digest_of_their_bytes() {
    let s = server();
    let page = Browser::new(s).get("/app/sign-in").body;
    let mut versions = vec![];
    let mut served = vec![];
    for (name, kind) in [("app.css", "text/css"), ("app.js", "text/javascript")] {
        let at = page
            .find(&format!("/app/assets/{name}?v="))
            .unwrap_or_else(|| panic!("{name} in the page: {page}"));
        let href = page[at..].split('"').next().unwrap_or_default();
        versions.push(href.rsplit('=').next().unwrap_or_default().to_string());
        let url = format!("{}{href}", s.base);
        let r = call("GET", &url, None, None, &[]);
        assert_eq!(r.status, 200, "{href}");
        assert!(r
            .header("content-type")
            .is_some_and(|t| t.starts_with(kind)));
        let source = std::fs::read_to_string(format!("src/area/assets/{name}")).expect(name);
        assert!(
            r.body.len() < source.len(),
            "{name} not smaller than its source"
        );
        assert_eq!(r.body.trim_end().lines().count(), 1, "{name} not minified");
        let tag = strong_etag(r.body.as_bytes());
        assert_eq!(r.header("etag"), Some(tag.as_str()), "{name}");
        let again = call("GET", &url, None, None, &[("If-None-Match", &tag)]);
        assert_eq!(again.status, 304, "{name}");
        served.push(r.body);
    }
    let digest = Sha256::new()
        .chain_update(&served[0])
        .chain_update(&served[1])
        .finalize();
    assert_eq!(versions, [hex(&digest[..6]), hex(&digest[..6])]);
}
