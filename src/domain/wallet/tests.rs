//! The wallet held to openssl (native tests; openssl is on every machine here): the
//! identity `scripts/wallet-dev.sh` makes, certificates read as `openssl x509` reads
//! them, the CMS signature byte-identical to `openssl cms -sign`'s for the same key,
//! certificates and signing time and accepted by `openssl cms -verify`, the pass read back
//! by Python's zipfile, and the Google JWT verified with the public key.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rsa::pkcs8::DecodePrivateKey;
use sha2::{Digest, Sha256};

use super::der::{oid, Reader};
use super::x509::{Certificate, KeyKind};
use super::*;
use crate::domain::card::fixture;
use crate::domain::signing::{base64url_decode, hex};

/// The identity of `scripts/wallet-dev.sh`, made once per test run.
fn identity() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Beside the e2e tests' state: target/ is git-ignored and `make clean` empties it.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root
            .join("target/wallet-unit")
            .join(std::process::id().to_string());
        let script = root.join("scripts/wallet-dev.sh");
        let out = Command::new(script)
            .arg(&dir)
            .output()
            .expect("run wallet-dev.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

fn read(name: &str) -> String {
    std::fs::read_to_string(identity().join(name)).unwrap()
}

/// Runs openssl (or another tool) and returns its stdout; fails the test on an error.
fn run(program: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .current_dir(identity())
        .output()
        .expect("the tool runs");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn openssl(args: &[&str]) -> String {
    String::from_utf8(run("openssl", args)).unwrap()
}

/// The vars `wallet.vars` sets, as the configuration would read them.
fn settings(overrides: &[(&str, Option<&str>)]) -> Settings {
    let mut vars: Vec<(String, String)> = read("wallet.vars")
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
        .collect();
    for (name, value) in overrides {
        vars.retain(|(k, _)| k != name);
        if let Some(v) = value {
            vars.push((name.to_string(), v.to_string()));
        }
    }
    let bindings: Vec<String> = vars.iter().map(|(k, _)| k.clone()).collect();
    let get = |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    Settings::read(&get, &bindings)
}

fn apple() -> Apple {
    match settings(&[]).identities().apple.clone() {
        Ok(Some(apple)) => apple,
        other => panic!("{other:?}"),
    }
}

/// `openssl x509`'s date (`Nov 28 23:19:31 2026 GMT`) in Unix milliseconds.
fn openssl_date(text: &str) -> i64 {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = text.split_whitespace().collect();
    let month = MONTHS.iter().position(|m| *m == parts[0]).unwrap() as u32 + 1;
    let day: u32 = parts[1].parse().unwrap();
    let hms: Vec<i64> = parts[2].split(':').map(|n| n.parse().unwrap()).collect();
    let year: i64 = parts[3].parse().unwrap();
    let days = crate::domain::time::days_from_civil(year, month, day);
    ((days * 24 + hms[0]) * 60 + hms[1]) * 60_000 + hms[2] * 1000
}

#[test]
fn certificates_read_as_openssl_reads_them() {
    for file in ["pass.pem", "wwdr.pem", "root.pem", "expired-pass.pem"] {
        let cert = Certificate::parse(&pem::decode(&read(file), "CERTIFICATE").unwrap()).unwrap();
        let out = openssl(&[
            "x509",
            "-in",
            file,
            "-noout",
            "-serial",
            "-startdate",
            "-enddate",
        ]);
        let value = |key: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap()
                .to_string()
        };
        let serial = Reader(&cert.serial).any().unwrap().content;
        // Leading zero digits aside: a random serial whose first byte is below 0x10 is
        // `0C..` in our hex and `C..` in openssl's.
        assert_eq!(
            hex(der::magnitude(serial))
                .to_uppercase()
                .trim_start_matches('0'),
            value("serial=").trim_start_matches('0'),
            "{file}"
        );
        assert_eq!(
            cert.not_before_ms,
            openssl_date(&value("notBefore=")),
            "{file}"
        );
        assert_eq!(
            cert.not_after_ms,
            openssl_date(&value("notAfter=")),
            "{file}"
        );
        assert_eq!(cert.key, Some(KeyKind::Rsa));
        // The public key WebCrypto would import, as openssl extracts it.
        let spki = run(
            "sh",
            &[
                "-c",
                &format!(
                    "openssl x509 -in {file} -pubkey -noout | openssl pkey -pubin -outform DER"
                ),
            ],
        );
        assert_eq!(cert.spki, spki, "{file}");
        // The DER is the certificate as openssl writes it.
        assert_eq!(
            cert.der,
            run("openssl", &["x509", "-in", file, "-outform", "DER"])
        );
    }
    let pass = Certificate::parse(&pem::decode(&read("pass.pem"), "CERTIFICATE").unwrap()).unwrap();
    let wwdr = Certificate::parse(&pem::decode(&read("wwdr.pem"), "CERTIFICATE").unwrap()).unwrap();
    assert_eq!(pass.issuer, wwdr.subject);
    assert_eq!(
        pass.subject_value(oid::UID).as_deref(),
        Some("pass.dev.cardapi.local")
    );
    assert_eq!(
        pass.subject_value(oid::ORGANIZATIONAL_UNIT).as_deref(),
        Some("DEVTEAM123")
    );
    assert_eq!(pass.subject_name(), "Pass Type ID: pass.dev.cardapi.local");
    assert!(pass
        .issuer_name()
        .starts_with("Stand-in for Apple Worldwide Developer Relations"));
    // Anything cut short is no certificate, and says so without a panic.
    for n in [0, 1, 10, pass.der.len() / 2, pass.der.len() - 1] {
        assert_eq!(Certificate::parse(&pass.der[..n]), None);
    }
}

/// The signing time `openssl cms -sign` wrote into its signature.
fn signing_time_of(signature: &[u8]) -> i64 {
    // The attribute's OID is followed by its SET holding the time.
    let at = signature
        .windows(oid::SIGNING_TIME.len())
        .position(|w| w == oid::SIGNING_TIME)
        .unwrap();
    let mut rest = Reader(&signature[at + oid::SIGNING_TIME.len()..]);
    let mut set = rest.enter(der::SET).unwrap();
    der::read_time(set.any().unwrap()).unwrap()
}

fn rsa_sign(key_file: &str, message: &[u8]) -> Vec<u8> {
    let key = rsa::RsaPrivateKey::from_pkcs8_pem(&read(key_file)).unwrap();
    key.sign(rsa::Pkcs1v15Sign::new::<Sha256>(), &Sha256::digest(message))
        .unwrap()
}

/// `openssl cms -verify` of a detached signature of `content` against the test root.
fn cms_verify(signature: &[u8], content: &[u8]) -> String {
    let dir = identity();
    let name = format!("verify-{:x}", Sha256::digest(signature)[0]);
    std::fs::write(dir.join(format!("{name}.sig")), signature).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), content).unwrap();
    let out = Command::new("openssl")
        .args(["cms", "-verify", "-binary", "-inform", "DER", "-in"])
        .arg(format!("{name}.sig"))
        .arg("-content")
        .arg(format!("{name}.txt"))
        .args([
            "-CAfile",
            "root.pem",
            "-purpose",
            "any",
            "-out",
            "/dev/null",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn the_signature_is_byte_identical_to_openssls() {
    let apple = apple();
    let manifest = apple::manifest("0123456789abcdef0123456789abcdef01234567");
    std::fs::write(identity().join("manifest.json"), &manifest).unwrap();
    let theirs = run(
        "openssl",
        &[
            "cms",
            "-sign",
            "-binary",
            "-nosmimecap",
            "-md",
            "sha256",
            "-signer",
            "pass.pem",
            "-inkey",
            "pass.key",
            "-certfile",
            "wwdr.pem",
            "-in",
            "manifest.json",
            "-outform",
            "DER",
        ],
    );
    let time = signing_time_of(&theirs);
    let signature = rsa_sign("pass.key", &cms::to_sign(manifest.as_bytes(), time));
    let ours = cms::signed_data(
        &apple::signer(&apple),
        manifest.as_bytes(),
        time,
        &signature,
    );
    assert_eq!(ours, theirs);
    assert!(cms_verify(&ours, manifest.as_bytes()).contains("Verification successful"));
    // Another manifest does not verify with it.
    std::fs::write(identity().join("other.txt"), b"{}").unwrap();
    let out = Command::new("openssl")
        .args([
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "/dev/stdin",
        ])
        .args([
            "-content",
            "other.txt",
            "-CAfile",
            "root.pem",
            "-purpose",
            "any",
        ])
        .current_dir(identity())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&ours)?;
            child.wait()
        })
        .unwrap();
    assert!(!out.success());
}

/// ECDSA (P-256) signatures, which are not deterministic: checked by openssl instead.
#[test]
fn an_ecdsa_pass_certificate_signs_what_openssl_verifies() {
    use p256::ecdsa::signature::Signer as _;
    run(
        "sh",
        &["-c", "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.key && \
                 openssl req -new -key ec.key -subj '/UID=pass.dev.cardapi.local/CN=EC pass/OU=DEVTEAM123' -out ec.csr && \
                 openssl x509 -req -in ec.csr -CA wwdr.pem -CAkey wwdr.key -set_serial 77 -days 2 -out ec.pem 2>/dev/null"],
    );
    let apple = match settings(&[("APPLE_PASS_CERT", Some(&read("ec.pem")))])
        .identities()
        .apple
        .clone()
    {
        Ok(Some(apple)) => apple,
        other => panic!("{other:?}"),
    };
    assert_eq!(apple.key, KeyKind::P256);
    let manifest = apple::manifest("ffffffffffffffffffffffffffffffffffffffff");
    let time = 1_795_907_979_000;
    let key = p256::ecdsa::SigningKey::from_pkcs8_pem(&read("ec.key")).unwrap();
    let raw: p256::ecdsa::Signature = key.sign(&cms::to_sign(manifest.as_bytes(), time));
    let signature = cms::ecdsa_der(&raw.to_bytes()).unwrap();
    let ours = cms::signed_data(
        &apple::signer(&apple),
        manifest.as_bytes(),
        time,
        &signature,
    );
    cms_verify(&ours, manifest.as_bytes());
}

fn card() -> Card {
    let mut card = fixture("[]");
    card.id = 4242;
    card.first_name = "Ada \"the first\"".into();
    card.last_name = "Lovelace".into();
    card.title = "Ada's card".into();
    card.job_title = Some("Engineer".into());
    card.company = Some("Engines Ltd".into());
    card.design_config =
        serde_json::value::RawValue::from_string(r##"{"accent_color":"#ffeb3b"}"##.into()).unwrap();
    card
}

#[test]
fn pass_json_holds_the_cards_fields() {
    let apple = apple();
    let pass: serde_json::Value = serde_json::from_str(&apple::pass_json(
        &apple,
        &card(),
        "https://x.example/c/ada",
    ))
    .unwrap();
    assert_eq!(
        pass,
        serde_json::json!({
            "formatVersion": 1,
            "passTypeIdentifier": "pass.dev.cardapi.local",
            "teamIdentifier": "DEVTEAM123",
            "serialNumber": "card-4242",
            "organizationName": "Engines Ltd",
            "description": "Ada's card",
            "logoText": "Engines Ltd",
            "backgroundColor": "rgb(255, 235, 59)",
            "foregroundColor": "rgb(0, 0, 0)",
            "labelColor": "rgb(0, 0, 0)",
            "barcodes": [{"format": "PKBarcodeFormatQR", "message": "https://x.example/c/ada?src=wallet",
                          "messageEncoding": "iso-8859-1"}],
            "generic": {
                "primaryFields": [{"key": "name", "value": "Ada \"the first\" Lovelace"}],
                "secondaryFields": [{"key": "title", "value": "Engineer"},
                                    {"key": "company", "value": "Engines Ltd"}]
            }
        })
    );
    // Without job title, company and accent: no secondary fields, the default colours.
    let mut bare = card();
    bare.job_title = None;
    bare.company = Some("  ".into());
    bare.design_config = serde_json::value::RawValue::from_string("{}".into()).unwrap();
    let pass: serde_json::Value =
        serde_json::from_str(&apple::pass_json(&apple, &bare, "u")).unwrap();
    assert_eq!(pass["generic"]["secondaryFields"], serde_json::json!([]));
    assert_eq!(pass["organizationName"], "Ada's card");
    assert_eq!(pass.get("logoText"), None);
    assert_eq!(pass["backgroundColor"], "rgb(37, 99, 235)");
    assert_eq!(pass["foregroundColor"], "rgb(255, 255, 255)");
}

fn sha1_hex(data: &[u8]) -> String {
    let path = identity().join(format!("sha1-{:x}", Sha256::digest(data)[0]));
    std::fs::write(&path, data).unwrap();
    let out = openssl(&["dgst", "-sha1", "-r", path.to_str().unwrap()]);
    out.split_whitespace().next().unwrap().to_string()
}

#[test]
fn the_image_digests_are_the_images() {
    for ((name, bytes), sha1) in apple::IMAGES.iter().zip(apple::IMAGE_SHA1) {
        assert_eq!(sha1_hex(bytes), sha1, "{name}");
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}");
    }
}

/// The whole pass, as the worker assembles it: Python's zipfile reads it, every manifest
/// digest matches its file, and openssl verifies the signature of the manifest.
#[test]
fn a_pass_unzips_and_verifies() {
    let apple = apple();
    let pass_json = apple::pass_json(&apple, &card(), "https://x.example/c/ada");
    let manifest = apple::manifest(&sha1_hex(pass_json.as_bytes()));
    let time = 1_795_907_979_000;
    let signature = rsa_sign("pass.key", &cms::to_sign(manifest.as_bytes(), time));
    let signature = cms::signed_data(
        &apple::signer(&apple),
        manifest.as_bytes(),
        time,
        &signature,
    );
    let pkpass = apple::pkpass(&pass_json, &manifest, &signature);
    std::fs::write(identity().join("card.pkpass"), &pkpass).unwrap();
    let script = "import hashlib, json, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        assert z.testzip() is None\n\
        names = z.namelist()\n\
        manifest = json.loads(z.read('manifest.json'))\n\
        assert sorted(manifest) == sorted(n for n in names if n not in ('manifest.json', 'signature')), names\n\
        for n, d in manifest.items():\n\
        \x20   assert hashlib.sha1(z.read(n)).hexdigest() == d, n\n\
        z.extract('signature', sys.argv[2]); z.extract('manifest.json', sys.argv[2])\n\
        print(' '.join(names))\n";
    let dir = identity().join("unzipped");
    let listing = run(
        "python3",
        &["-c", script, "card.pkpass", dir.to_str().unwrap()],
    );
    assert_eq!(
        String::from_utf8(listing).unwrap().trim(),
        "pass.json icon.png icon@2x.png logo.png manifest.json signature"
    );
    let extracted = |n: &str| std::fs::read(dir.join(n)).unwrap();
    cms_verify(&extracted("signature"), &extracted("manifest.json"));
}

#[test]
fn the_google_jwt_verifies_and_holds_the_claims() {
    let google = match settings(&[]).identities().google.clone() {
        Ok(Some(google)) => google,
        other => panic!("{other:?}"),
    };
    let now = 1_795_907_979_123;
    let claims = google::claims(
        &google,
        &card(),
        "https://x.example/c/ada",
        "https://x.example",
        now,
    );
    let input = google::signing_input(&claims);
    let signature = rsa_sign("google.key", input.as_bytes());
    let url = google::save_url(&input, &signature);
    let jwt = url
        .strip_prefix("https://pay.google.com/gp/v/save/")
        .unwrap();
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3);
    // openssl verifies RS256 with the public key over header.claims.
    std::fs::write(
        identity().join("jwt.txt"),
        format!("{}.{}", parts[0], parts[1]),
    )
    .unwrap();
    std::fs::write(
        identity().join("jwt.sig"),
        base64url_decode(parts[2]).unwrap(),
    )
    .unwrap();
    let verified = openssl(&[
        "dgst",
        "-sha256",
        "-verify",
        "google-public.pem",
        "-signature",
        "jwt.sig",
        "jwt.txt",
    ]);
    assert_eq!(verified.trim(), "Verified OK");
    let json = |part: &str| -> serde_json::Value {
        serde_json::from_slice(&base64url_decode(part).unwrap()).unwrap()
    };
    assert_eq!(
        json(parts[0]),
        serde_json::json!({"alg": "RS256", "typ": "JWT"})
    );
    let issuer = "3388000000022000000";
    assert_eq!(
        json(parts[1]),
        serde_json::json!({
            "iss": "wallet-dev@cardapi-local.iam.gserviceaccount.com",
            "aud": "google",
            "typ": "savetowallet",
            "iat": 1_795_907_979,
            "origins": ["https://x.example"],
            "payload": {
                "genericClasses": [{"id": format!("{issuer}.business_card")}],
                "genericObjects": [{
                    "id": format!("{issuer}.4242"),
                    "classId": format!("{issuer}.business_card"),
                    "state": "ACTIVE",
                    "cardTitle": {"defaultValue": {"language": "en", "value": "Engines Ltd"}},
                    "header": {"defaultValue": {"language": "en", "value": "Ada \"the first\" Lovelace"}},
                    "subheader": {"defaultValue": {"language": "en", "value": "Engineer"}},
                    "barcode": {"type": "QR_CODE", "value": "https://x.example/c/ada?src=wallet"},
                    "hexBackgroundColor": "#ffeb3b"
                }]
            }
        })
    );
}

/// Now, in Unix milliseconds, once the identity exists (its certificates start when it
/// is made).
fn now() -> i64 {
    identity();
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
fn a_complete_identity_is_offered_and_nothing_is_not() {
    let now = now();
    let s = settings(&[]);
    assert_eq!(apple().problem_at(now), None);
    assert_eq!(
        s.offered(now),
        Offered {
            apple: true,
            google: true
        }
    );
    assert!(apple().problem_at(now).is_none());
    let none = Settings::read(&|_| None, &[]);
    assert_eq!(none.identities().apple, Ok(None));
    assert_eq!(none.identities().google, Ok(None));
    assert_eq!(none.offered(now), Offered::default());
}

/// Each misconfiguration is an error that names the variable and what to do.
#[test]
fn misconfigurations_say_what_to_fix() {
    let now = now();
    let apple_error = |overrides: &[(&str, Option<&str>)]| -> String {
        let s = settings(overrides);
        assert!(!s.offered(now).apple, "{overrides:?}");
        s.identities().apple.clone().unwrap_err()
    };
    let e = apple_error(&[("APPLE_WWDR_CERT", None), ("APPLE_PASS_KEY", None)]);
    assert!(e.contains("APPLE_PASS_KEY, APPLE_WWDR_CERT not set"), "{e}");
    let e = apple_error(&[("APPLE_PASS_CERT", Some(&read("pass.key")))]);
    assert!(
        e.starts_with("APPLE_PASS_CERT holds a PRIVATE KEY block, not a PEM certificate"),
        "{e}"
    );
    let e = apple_error(&[("APPLE_PASS_CERT", Some("MIIB"))]);
    assert!(e.contains("holds no PEM block"), "{e}");
    let e = apple_error(&[(
        "APPLE_PASS_CERT",
        Some("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"),
    )]);
    assert_eq!(e, "APPLE_PASS_CERT is not an X.509 certificate");
    let e = apple_error(&[("APPLE_WWDR_CERT", Some(&read("root.pem")))]);
    assert!(e.starts_with("APPLE_WWDR_CERT (Card API wallet test root (local only)) did not issue APPLE_PASS_CERT"), "{e}");
    let e = apple_error(&[("APPLE_PASS_TYPE_ID", Some("pass.other"))]);
    assert!(
        e.contains(
            "for the pass type pass.dev.cardapi.local, but APPLE_PASS_TYPE_ID is pass.other"
        ),
        "{e}"
    );
    let e = apple_error(&[("APPLE_TEAM_ID", Some("OTHER"))]);
    assert!(
        e.contains("for the team DEVTEAM123, but APPLE_TEAM_ID is OTHER"),
        "{e}"
    );

    // An expired certificate parses, and is refused at the time it is used.
    let s = settings(&[("APPLE_PASS_CERT", Some(&read("expired-pass.pem")))]);
    let Ok(Some(expired)) = s.identities().apple.clone() else {
        panic!()
    };
    let e = expired.problem_at(now).unwrap();
    assert!(
        e.starts_with(
            "APPLE_PASS_CERT (Pass Type ID: pass.dev.cardapi.local) expired on 2021-01-01"
        ),
        "{e}"
    );
    assert!(!s.offered(now).apple);
    assert!(s.offered(now).google);
    // In 2020 the pass certificate was valid (the local WWDR stand-in was not yet made).
    let in_2020 = expired.problem_at(1_590_000_000_000).unwrap();
    assert!(in_2020.starts_with("APPLE_WWDR_CERT"), "{in_2020}");
    assert!(in_2020.contains("is not valid before"), "{in_2020}");
    let early = expired.problem_at(1_500_000_000_000).unwrap();
    assert!(
        early.starts_with(
            "APPLE_PASS_CERT (Pass Type ID: pass.dev.cardapi.local) is not valid before 2020-01-01"
        ),
        "{early}"
    );

    let google_error = |overrides: &[(&str, Option<&str>)]| -> String {
        let s = settings(overrides);
        assert!(!s.offered(now).google, "{overrides:?}");
        assert!(s.offered(now).apple, "Apple is not affected");
        s.identities().google.clone().unwrap_err()
    };
    let e = google_error(&[("GOOGLE_WALLET_KEY", None)]);
    assert!(
        e.starts_with("Google passes are half configured: GOOGLE_WALLET_KEY not set; set it"),
        "{e}"
    );
    let e = google_error(&[("GOOGLE_WALLET_ISSUER_ID", Some("issuer"))]);
    assert!(e.contains("is not an issuer id"), "{e}");
    let e = google_error(&[("GOOGLE_WALLET_SERVICE_ACCOUNT", Some("robot"))]);
    assert!(e.contains("is not a service account's email"), "{e}");
}
