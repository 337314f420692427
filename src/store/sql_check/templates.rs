//! Company templates: made, listed, changed (rev, default) and deleted with their events.

use serde_json::{json, Value};

use super::*;
use crate::domain::event::EventType;
use crate::domain::input::Mode;
use crate::domain::pagination::Page;
use crate::domain::template::{TemplateInput, MAX_TEMPLATES};
use crate::store::change::Change;
use crate::store::events;
use crate::store::events::Source;
use crate::store::templates::{self, TemplateRow};
use crate::store::views::JsonText;

fn input(body: Value, mode: Mode) -> TemplateInput {
    TemplateInput::parse(&obj(body), mode, None).expect("valid")
}

fn made(db: &mut Db, acc: i64, t: &TemplateInput, now: i64) -> Option<i64> {
    let stmts = Change::new(acc, EventType::TemplateCreated, now)
        .expect("event id")
        .statements(
            Source::InsertedTemplate,
            vec![
                templates::clear_default_sql(acc, 0, t.default),
                templates::create_sql(acc, t, now),
            ],
            vec![],
        );
    let out = db.batch("templates::create_sql", &stmts);
    results_ids(&out[1]).first().copied()
}

fn json_of(db: &mut Db, acc: i64, id: i64) -> Value {
    let row: JsonText = one(
        "templates::get_sql",
        db.exec("templates::get_sql", &templates::get_sql(acc, id)),
    );
    serde_json::from_str(&row.json).expect("JSON")
}

pub(super) fn templates_and_their_events(db: &mut Db, acc: i64, now: i64) {
    let a = input(
        json!({"name": "Acme", "layout": "modern", "values": {"address": "Main St 1"},
               "locked": ["address"], "default": true}),
        Mode::Create,
    );
    db.exec(
        "templates::clear_default_sql",
        &templates::clear_default_sql(acc, 0, None),
    );
    let first = made(db, acc, &a, now).expect("made");
    let b = input(
        json!({"name": "Acme", "layout": "minimal", "default": true}),
        Mode::Create,
    );
    let second = made(db, acc, &b, now).expect("made");
    assert!(second > first);
    let t = json_of(db, acc, first);
    assert_eq!(t["default"], false, "the second default clears the first");
    // A create that has not read the default template is refused while there is one.
    let plain = crate::domain::card::CardInput::parse(&obj(
        json!({"first_name": "No", "last_name": "Default"}),
    ))
    .expect("valid");
    let refused = crate::store::cards::create_sql(acc, &plain, "no-default", 100, true, now);
    assert!(
        db.exec("cards::create_sql", &refused).is_empty(),
        "refused while the account has a default template"
    );
    assert_eq!(t["values"]["address"], "Main St 1");
    assert_eq!(t["locked"], json!(["address"]));
    assert_eq!(
        (t["cards"].clone(), t["pending"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(t["created_at"], "2025-10-09T08:53:20.000Z");
    // The limit: 50 at most, a default sent beyond it clears nothing.
    for _ in 2..MAX_TEMPLATES {
        made(db, acc, &b, now).expect("under the limit");
    }
    assert_eq!(made(db, acc, &b, now), None);
    let [count, page] = <[Vec<Value>; 2]>::try_from(db.batch(
        "templates::list_sql",
        &templates::list_sql(
            acc,
            Page {
                page: 1,
                per_page: 3,
            },
        ),
    ))
    .expect("two statements");
    assert_eq!(count[0]["n"], MAX_TEMPLATES);
    let ids: Vec<i64> = decode::<JsonText>("templates::list_sql", page)
        .iter()
        .map(|j| {
            serde_json::from_str::<Value>(&j.json).expect("JSON")["id"]
                .as_i64()
                .expect("id")
        })
        .collect();
    assert_eq!(ids[..2], [first, second], "by name, then id");
    // A change of values raises rev; one of the name only does not.
    let stored = |db: &mut Db| -> TemplateRow {
        one(
            "templates::stored_sql",
            db.exec("templates::stored_sql", &templates::stored_sql(acc, first)),
        )
    };
    let rev = stored(db).rev;
    let update = |db: &mut Db, body: Value| {
        let t = input(body, Mode::Update);
        let stmts = Change::new(acc, EventType::TemplateUpdated, now)
            .expect("event id")
            .statements(
                Source::UpdatedTemplate(first),
                vec![
                    templates::clear_default_sql(acc, first, t.default),
                    templates::update_sql(acc, first, &t, now),
                ],
                vec![],
            );
        db.batch("templates::update_sql", &stmts);
    };
    update(db, json!({"name": "Acme Ltd"}));
    assert_eq!(stored(db).rev, rev);
    update(
        db,
        json!({"values": {"address": "Main St 2"}, "default": true}),
    );
    assert_eq!(stored(db).rev, rev + 1);
    assert_eq!(json_of(db, acc, first)["default"], true);
    assert_eq!(json_of(db, acc, second)["default"], false);
    let stmts = Change::new(acc, EventType::TemplateDeleted, now)
        .expect("event id")
        .statements(
            Source::DeletingTemplate(second),
            vec![],
            vec![templates::delete_sql(acc, second)],
        );
    let out = db.batch("templates::delete_sql", &stmts);
    assert_eq!(results_ids(out.last().expect("delete")), [second]);
    let kinds = [
        EventType::TemplateCreated,
        EventType::TemplateUpdated,
        EventType::TemplateDeleted,
    ];
    let rows = db.exec(
        "events::list_sql",
        &events::list_sql(acc, 0, &kinds, 100)[1],
    );
    let ev: Vec<events::EventRow> = decode("events::list_sql", rows);
    // 50 made (the 51st was refused), 2 changes, 1 delete.
    assert_eq!(ev.len(), MAX_TEMPLATES as usize + 2 + 1);
    let ev = &ev[ev.len() - 1..];
    assert_eq!(ev[0].kind, "template.deleted");
    assert_eq!(
        serde_json::from_str::<Value>(&ev[0].object).expect("JSON"),
        json!({"id": second, "deleted": true})
    );
    db.exec("templates::get_sql", &templates::get_sql(acc, second))
        .is_empty()
        .then_some(())
        .expect("gone");
}

/// A card made with a template, changed (defaults where empty), found behind a change of
/// the template and brought in line with its event, once.
pub(super) fn cards_in_line(db: &mut Db, acc: i64, now: i64) {
    use crate::domain::card::{CardInput, CardPatch};
    use crate::domain::template;
    use crate::store::card_row::CardRow;
    use crate::store::cards;
    let t = input(
        json!({"name": "Line", "layout": "minimal", "values": {"address": "Main St 1",
               "company": "Acme", "bio": "Hi"}, "locked": ["address"]}),
        Mode::Create,
    );
    let id = made(db, acc, &t, now).expect("made");
    let row: TemplateRow = one(
        "templates::for_write_sql",
        db.exec(
            "templates::for_write_sql",
            &templates::for_write_sql(acc, Some(id), None),
        ),
    );
    let stored = (row.id, row.fields.as_str(), row.locked.as_str(), row.rev);
    let mut card = CardInput::parse(&obj(json!({"first_name": "A", "last_name": "B",
        "template_id": format!("tpl_{id}"), "bio": "Mine"})))
    .expect("valid");
    template::apply(card.fields_mut(), stored, &[], true).expect("applies");
    card.apply_plan(ALL);
    let rows = db.exec(
        "cards::create_sql",
        &cards::create_sql(acc, &card, &slot(7700, "in-line"), 100, false, now),
    );
    let c = one::<CardRow>("cards::create_sql", rows).decode();
    assert_eq!(c.address.as_deref(), Some("Main St 1"));
    assert_eq!(
        (c.company.as_deref(), c.bio.as_deref()),
        (Some("Acme"), Some("Mine"))
    );
    // A card that starts using the template by an update: empty fields filled, not others.
    let plain = CardInput::parse(&obj(
        json!({"first_name": "C", "last_name": "D", "bio": "Own"}),
    ))
    .expect("valid");
    let rows = db.exec(
        "cards::create_sql",
        &cards::create_sql(acc, &plain, &slot(7701, "joins"), 100, false, now),
    );
    let joined = one::<CardRow>("cards::create_sql", rows).decode();
    let mut patch =
        CardPatch::parse(&obj(json!({"template_id": format!("tpl_{id}")}))).expect("valid");
    template::apply(&mut patch, stored, &[], false).expect("applies");
    let rows = db.exec(
        "cards::update_sql",
        &cards::update_sql(acc, joined.id, &patch, None, now),
    );
    let j = one::<CardRow>("cards::update_sql", rows).decode();
    assert_eq!(
        (j.company.as_deref(), j.bio.as_deref()),
        (Some("Acme"), Some("Own"))
    );
    assert_eq!(j.address.as_deref(), Some("Main St 1"));
    // A patch that applies no template lands only on a card that uses none: a write that
    // has not read the card's template (`ops::cards::change`) is refused, then reads it.
    let bare = CardPatch::parse(&obj(json!({"address": "Elsewhere 9"}))).expect("valid");
    let refused = db.exec(
        "cards::update_sql",
        &cards::update_sql(acc, joined.id, &bare, None, now),
    );
    assert!(
        refused.is_empty(),
        "a templated card took a bare patch: {refused:?}"
    );
    // The template changes its locked address: both cards are behind, brought in line
    // once (a second step finds none), each with its card.updated event.
    let change = input(
        json!({"values": {"address": "Main St 2"}, "locked": ["address"]}),
        Mode::Update,
    );
    db.exec(
        "templates::update_sql",
        &templates::update_sql(acc, id, &change, now),
    );
    let row: TemplateRow = one(
        "templates::stored_sql",
        db.exec("templates::stored_sql", &templates::stored_sql(acc, id)),
    );
    let pending = |db: &mut Db| {
        ids(
            "templates::pending_sql",
            db.exec(
                "templates::pending_sql",
                &templates::pending_sql(acc, id, row.rev, 10),
            ),
        )
    };
    assert_eq!(pending(db), [c.id, j.id]);
    let rows = db.exec("templates::behind_sql", &templates::behind_sql());
    assert!(rows.iter().any(|r| r["id"] == id), "{rows:?}");
    let before = db
        .exec(
            "events::list_sql",
            &events::list_sql(acc, 0, &[EventType::CardUpdated], 100)[1],
        )
        .len();
    let locked = super::super::templates::locked_columns_for_test(&row);
    for card in [c.id, j.id] {
        let [write, mark] = templates::align_sql(acc, card, &row, &locked, now);
        let stmts = Change::new(acc, EventType::CardUpdated, now)
            .expect("event id")
            .statements(Source::UpdatedCard(card), vec![write], vec![mark]);
        db.batch("templates::align_sql", &stmts);
        db.batch("templates::align_sql", &stmts);
    }
    assert!(pending(db).is_empty());
    let after = db
        .exec(
            "events::list_sql",
            &events::list_sql(acc, 0, &[EventType::CardUpdated], 100)[1],
        )
        .len();
    assert_eq!(
        after - before,
        2,
        "one event a card, none for the step run again"
    );
    // A deleted template's cards leave it, values kept.
    let rows = db.exec(
        "templates::unlink_sql",
        &templates::unlink_sql(acc, j.id, id, now),
    );
    assert!(rows.is_empty());
    let rows = db.exec("cards::one_sql", &cards::one_sql(acc, j.id));
    let left = one::<CardRow>("cards::one_sql", rows).decode();
    assert_eq!(
        (left.template_id, left.address.as_deref()),
        (None, Some("Main St 2"))
    );
    let rows = db.exec("cards::one_sql", &cards::one_sql(acc, c.id));
    assert_eq!(
        one::<CardRow>("cards::one_sql", rows)
            .decode()
            .address
            .as_deref(),
        Some("Main St 2")
    );
}
