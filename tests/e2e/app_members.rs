//! The account area's Members page (account-area.md 1, 2): owners invite from the page
//! (the link shown once, working once) and remove members (their sessions end at once;
//! never the last owner); members see no such controls and their posts are refused;
//! everyone adds a passkey with a ceremony, signs in with it, renames and removes passkeys
//! (never the last one); in English and German.

use serde_json::{json, Value};

use crate::app::{join, owner, path_of, Authenticator, Browser};
use crate::harness::{server, Server};

/// The text between `start` and the next `end` after it.
fn between<'a>(body: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = body.find(start)? + start.len();
    let len = body[from..].find(end)?;
    Some(&body[from..from + len])
}

/// The ids in every `action="{prefix}{id}{suffix}"` of a page, in order.
fn actions(body: &str, prefix: &str, suffix: &str) -> Vec<i64> {
    let start = format!("action=\"{prefix}");
    body.match_indices(&start)
        .filter_map(|(i, _)| {
            let rest = &body[i + start.len()..];
            let id = &rest[..rest.find(suffix)?];
            id.parse().ok()
        })
        .collect()
}

/// An owner's invite from the Members page: the link shown on it.
fn invite_from_page(owner: &mut Browser, email: &str, role: &str) -> String {
    let form = format!("email={}&role={role}", email.replace('@', "%40"));
    let r = owner.post_form("/app/members", &form);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("class=\"secret\""), "{}", r.body);
    between(&r.body, "id=\"invite-link\">", "</code>")
        .expect("the link on the page")
        .to_string()
}

/// A member of an owner's account through the page's invite: their browser and passkey.
fn member_of<'a>(
    s: &'a Server,
    owner: &mut Browser,
    email: &str,
    role: &str,
    seed: u8,
) -> (Browser<'a>, Authenticator) {
    let url = invite_from_page(owner, email, role);
    join(s, &url, seed)
}

#[test]
fn an_owner_invites_from_the_page_and_the_link_works_once() {
    let s = server();
    let (_, mut owner, _) = owner(s, 41);
    let page = owner.get("/app/members");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("owner41@acme.example"));
    assert!(
        page.body
            .contains("method=\"post\" action=\"/app/members\""),
        "the invite form"
    );
    assert!(!page.body.contains("class=\"secret\""));

    let url = invite_from_page(&mut owner, "Bea@Acme.example", "member");
    assert!(
        url.starts_with(&format!("{}/app/invite/", s.base)),
        "a full link: {url}"
    );
    // Once: the page does not show it again.
    let again = owner.get("/app/members");
    assert!(!again.body.contains(&url) && !again.body.contains("class=\"secret\""));

    let (mut bea, _) = join(s, &url, 42);
    let home = bea.get("/app");
    assert_eq!(home.status, 200);
    assert!(home.body.contains("bea@acme.example"));
    // The link worked once.
    let used = Browser::new(s).post_json(&format!("{}/options", path_of(&url)), &json!({}));
    used.assert_error(410);

    let listed = owner.get("/app/members");
    assert!(listed.body.contains("bea@acme.example"), "{}", listed.body);
    // A member already, and an address that is none: the form says so.
    let r = owner.post_form("/app/members", "email=bea%40acme.example&role=owner");
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("a member of the account already"));
    assert!(!r.body.contains("class=\"secret\""));
    let r = owner.post_form("/app/members", "email=nope&role=member");
    assert_eq!(r.status, 422);
    assert!(r.body.contains("Enter a valid email address") && r.body.contains("value=\"nope\""));
    let r = owner.post_form("/app/members", "email=c%40acme.example&role=admin");
    assert_eq!(r.status, 422, "an unknown role is refused");
}

#[test]
fn removing_a_member_ends_their_session_at_once() {
    let s = server();
    let (_, mut owner, _) = owner(s, 43);
    let (mut cleo, mut cleo_key) = member_of(s, &mut owner, "cleo@acme.example", "member", 44);
    assert_eq!(cleo.get("/app/members").status, 200);

    let page = owner.get("/app/members");
    let removable = actions(&page.body, "/app/members/", "/remove");
    assert_eq!(removable.len(), 1, "only Cleo: the owner is the last one");
    let r = owner.post_form(&format!("/app/members/{}/remove", removable[0]), "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("class=\"notice\"") && !r.body.contains("cleo@acme.example"));

    // Her next request is sent to sign in, and her passkey signs in no more.
    let next = cleo.get("/app/members");
    assert_eq!(
        (next.status, next.header("location")),
        (303, Some("/app/sign-in"))
    );
    Browser::new(s).sign_in(&mut cleo_key).assert_error(400);
    // Gone: a second removal finds nobody.
    let r = owner.post_form(&format!("/app/members/{}/remove", removable[0]), "");
    assert_eq!(r.status, 404);
}

#[test]
fn the_last_owner_cannot_be_removed() {
    let s = server();
    let (_, mut ada, _) = owner(s, 45);
    let page = ada.get("/app/members");
    assert!(actions(&page.body, "/app/members/", "/remove").is_empty());
    assert!(page.body.contains("last owner"), "{}", page.body);

    let (mut bo, _) = member_of(s, &mut ada, "bo@acme.example", "owner", 46);
    let page = ada.get("/app/members");
    let ids = actions(&page.body, "/app/members/", "/remove");
    assert_eq!(ids.len(), 2, "two owners: either may go");
    let (ada_id, bo_id) = (ids[0], ids[1]);
    assert!(
        page.body.contains("Leave this account?"),
        "her own row says so"
    );

    // Ada removes herself: her session ends with it.
    let r = ada.post_form(&format!("/app/members/{ada_id}/remove"), "");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/app/sign-in"))
    );
    assert_eq!(ada.get("/app").status, 303);

    // Bo is the last owner now.
    let page = bo.get("/app/members");
    assert!(actions(&page.body, "/app/members/", "/remove").is_empty());
    let r = bo.post_form(&format!("/app/members/{bo_id}/remove"), "");
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("The last owner cannot be removed"));
    assert_eq!(bo.get("/app").status, 200, "Bo is still signed in");
}

#[test]
fn a_member_sees_no_owner_controls_and_their_posts_are_refused() {
    let s = server();
    let (_, mut owner, _) = owner(s, 47);
    let (mut dan, _) = member_of(s, &mut owner, "dan@acme.example", "member", 48);
    let page = dan.get("/app/members");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("owner47@acme.example"),
        "members see who is in"
    );
    assert!(
        !page
            .body
            .contains("method=\"post\" action=\"/app/members\""),
        "no invite form"
    );
    assert!(actions(&page.body, "/app/members/", "/remove").is_empty());
    assert!(
        page.body.contains("data-options=\"/app/passkeys/options\""),
        "their own passkeys"
    );
    let owner_page = owner.get("/app/members");
    let ids = actions(&owner_page.body, "/app/members/", "/remove");
    for (path, form) in [
        (
            "/app/members",
            "email=eve%40acme.example&role=owner".to_string(),
        ),
        (&format!("/app/members/{}/remove", ids[0]), String::new()),
        ("/app/tokens", "name=x".to_string()),
    ] {
        let r = dan.post_form(path, &form);
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert!(r.body.contains("Only owners"), "{}", r.body);
    }
    assert!(owner.get("/app/members").body.contains("dan@acme.example"));
}

#[test]
fn a_second_passkey_signs_in_is_renamed_and_removed_but_never_the_last() {
    let s = server();
    let (_, mut owner, mut first) = owner(s, 49);
    let options = owner.post_json("/app/passkeys/options", &json!({"name": "Phone"}));
    assert_eq!(options.status, 200, "{}", options.body);
    let o = options.json();
    let excluded: Vec<&str> = o["excludeCredentials"]
        .as_array()
        .expect("an exclude list")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(
        excluded,
        [cardapi::domain::signing::base64url(&first.credential)]
    );
    assert_eq!(
        o["user"]["id"].as_str(),
        Some(cardapi::domain::signing::base64url(&first.user).as_str()),
        "the same member"
    );
    assert_eq!(o["user"]["name"], "owner49@acme.example");

    let mut phone = Authenticator::new(50);
    let mut answer = phone.register(&o, &s.base);
    answer["name"] = "Phone".into();
    let r = owner.post_json("/app/passkeys", &answer);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({"data": {"redirect": "/app/members"}}));
    // The challenge worked once; the same passkey again is refused.
    owner.post_json("/app/passkeys", &answer).assert_error(400);
    let o = owner.post_json("/app/passkeys/options", &json!({})).json();
    let again = phone.register(&o, &s.base);
    let e = owner.post_json("/app/passkeys", &again).assert_error(400);
    assert!(e["message"]
        .as_str()
        .is_some_and(|m| m.contains("registered already")));
    // Signed for another site.
    let o = owner.post_json("/app/passkeys/options", &json!({})).json();
    let forged = Authenticator::new(51).register(&o, "https://evil.example");
    owner.post_json("/app/passkeys", &forged).assert_error(400);

    // The new passkey signs in.
    let mut other = Browser::new(s);
    let r = other.sign_in(&mut phone);
    assert_eq!(r.status, 200, "{}", r.body);
    let page = other.get("/app/members");
    assert!(page.body.contains("<td>Phone</td>"), "{}", page.body);
    let keys = actions(&page.body, "/app/passkeys/", "/rename");
    assert_eq!(keys.len(), 2);
    assert_eq!(actions(&page.body, "/app/passkeys/", "/remove"), keys);

    // Rename: 1 to 60 characters.
    let r = other.post_form(
        &format!("/app/passkeys/{}/rename", keys[1]),
        "name=Work+phone",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<td>Work phone</td>") && r.body.contains("class=\"notice\""));
    let r = other.post_form(&format!("/app/passkeys/{}/rename", keys[1]), "name=+");
    assert_eq!(r.status, 422);
    // Another member's passkey is not theirs to touch.
    let (_, mut stranger, _) = crate::app::owner(s, 52);
    let r = stranger.post_form(&format!("/app/passkeys/{}/rename", keys[1]), "name=Mine");
    assert_eq!(r.status, 404);
    assert_eq!(
        stranger
            .post_form(&format!("/app/passkeys/{}/remove", keys[1]), "")
            .status,
        404
    );

    // Remove the first; the last one stays.
    let r = other.post_form(&format!("/app/passkeys/{}/remove", keys[0]), "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(actions(&r.body, "/app/passkeys/", "/remove").is_empty());
    assert!(r.body.contains("your only passkey"));
    Browser::new(s).sign_in(&mut first).assert_error(400);
    let r = other.post_form(&format!("/app/passkeys/{}/remove", keys[1]), "");
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("Your last passkey cannot be removed"));
    assert_eq!(Browser::new(s).sign_in(&mut phone).status, 200);
}

#[test]
fn the_members_page_speaks_german() {
    let s = server();
    let (_, mut owner, _) = owner(s, 53);
    owner.lang = "de-DE,de;q=0.9";
    let page = owner.get("/app/members");
    for text in [
        "<h1>Mitglieder</h1>",
        "Personen in diesem Konto",
        "Jemanden einladen",
        "Ihre Passkeys",
        "Passkey hinzufügen",
        "letzter Inhaber",
        "Ihr einziger Passkey",
    ] {
        assert!(page.body.contains(text), "{text}: {}", page.body);
    }
    let r = owner.post_form("/app/members", "email=nope");
    assert_eq!(r.status, 422);
    assert!(r
        .body
        .contains("Geben Sie eine gültige E-Mail-Adresse ein."));
    let url = invite_from_page(&mut owner, "fritz@acme.example", "member");
    assert!(url.contains("/app/invite/"));
    let key = actions(&page.body, "/app/passkeys/", "/rename")[0];
    let r = owner.post_form(&format!("/app/passkeys/{key}/remove"), "");
    assert_eq!(r.status, 409);
    assert!(r
        .body
        .contains("Ihren letzten Passkey können Sie nicht entfernen"));
    // The ceremony's refusals too.
    let o = owner.post_json("/app/passkeys/options", &json!({})).json();
    let answer: Value = Authenticator::new(54).register(&o, &s.base);
    assert_eq!(owner.post_json("/app/passkeys", &answer).status, 200);
    let e = owner.post_json("/app/passkeys", &answer).assert_error(400);
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("Das Hinzufügen des Passkeys")),
        "{e}"
    );
}
