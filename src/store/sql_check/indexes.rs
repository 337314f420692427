//! The lists range over their indexes.

use super::Stmt;
use super::*;
use crate::domain::event::EventType;
use crate::domain::pagination::Page;
use crate::store::cards::CardFilter;
use crate::store::erasure::LeadSet;
use crate::store::leads::LeadFilter;
use crate::store::views::card_args;
use crate::store::{cards, erasure, events, leads, outbox, webhooks};

#[test]
fn lists_range_over_their_indexes() {
    let mut db = Db::new();
    let page = Page::from_query(None, None);
    let plans = [
        cards::list_sql(1, &CardFilter::default(), page, card_args("", ALL)),
        cards::list_sql(
            1,
            &CardFilter {
                since: Some(5),
                external_id: None,
            },
            page,
            card_args("", ALL),
        ),
        cards::list_sql(
            1,
            &CardFilter {
                since: None,
                external_id: Some("crm-1".into()),
            },
            page,
            card_args("", ALL),
        ),
        vec![cards::id_by_external_sql(1, "crm-1")],
        vec![cards::one_sql(1, 2)],
        cards::users_sql(1, "1", vec![], 0, 100),
        cards::users_sql(1, "scim_user_key = ?2", vec!["a@b.example".into()], 0, 100),
        vec![cards::missing_user_keys_sql(1, 100)],
        vec![cards::set_user_key_sql(1, 2, "A@b.example", "a@b.example")],
        leads::list_sql(1, &LeadFilter::default(), page),
        leads::list_sql(
            1,
            &LeadFilter {
                since: Some(5),
                ..LeadFilter::default()
            },
            page,
        ),
        leads::list_sql(
            1,
            &LeadFilter {
                card: Some(2),
                ..LeadFilter::default()
            },
            page,
        ),
        leads::list_sql(
            1,
            &LeadFilter {
                email: Some("a@b.example".into()),
                ..LeadFilter::default()
            },
            page,
        ),
        leads::page_sql(1, &LeadFilter::default(), page),
        leads::page_sql(
            1,
            &LeadFilter {
                card: Some(2),
                email: Some("a@b.example".into()),
                ..LeadFilter::default()
            },
            page,
        ),
        vec![leads::export_sql(1, &LeadFilter::default(), None, 1000)],
        vec![leads::export_sql(
            1,
            &LeadFilter::default(),
            Some((5, 6)),
            1000,
        )],
        vec![leads::export_sql(
            1,
            &LeadFilter {
                card: Some(2),
                ..LeadFilter::default()
            },
            Some((5, 6)),
            1000,
        )],
        vec![leads::export_sql(
            1,
            &LeadFilter {
                email: Some("a@b.example".into()),
                ..LeadFilter::default()
            },
            Some((5, 6)),
            1000,
        )],
        cards::lines_sql(1, 25, 0),
        erasure::erase_sql(1, LeadSet::One(3), 5),
        erasure::erase_sql(1, LeadSet::Email("a@b.example"), 5),
        vec![leads::missing_keys_sql(Some(1), 100)],
        vec![leads::missing_keys_sql(None, 100)],
        vec![leads::set_key_sql(1, "a@b.example")],
        erasure::erase_sql(
            1,
            LeadSet::Expired {
                cutoff: 5,
                limit: 100,
            },
            5,
        ),
        events::list_sql(1, 0, &[EventType::CardCreated], 10),
        webhooks::list_sql(1, page),
        webhooks::deliveries_sql(1, 2, page),
        vec![outbox::overdue_sql(1_000_000, 60_000, 100)],
    ];
    for stmts in plans {
        for stmt in stmts {
            let (plan, text) = query_plan(&mut db, &stmt);
            assert!(
                // A scan of a subquery's own rows (the window of an erasure) is no
                // table scan.
                !plan.iter().any(|d| d.starts_with("SCAN ")
                    && !d.contains(" USING ")
                    && !d.contains("VIRTUAL TABLE")
                    && !d.starts_with("SCAN (subquery")),
                "a full scan:\n{}\n{text}",
                stmt.sql
            );
            assert!(
                text.contains("USING"),
                "no index used:\n{}\n{text}",
                stmt.sql
            );
        }
    }
}

/// Every SCIM filter the service compiles (domain::scim::filter) is SQL SQLite takes with
/// the arguments bound, stays within the account's rows by an index, and a `userName`
/// lookup (what Entra ID and Okta send before every create) uses its unique index. An
/// `emails` filter also scans each of those cards' emails (the kept User JSON by
/// `json_each`, and rows made of it): one card's data, never a table.
#[test]
fn scim_filters_compile_to_indexed_sql() {
    use crate::domain::scim::filter::parse;
    use crate::domain::scim::user::PAIRS;
    let mut db = Db::new();
    let filters = [
        r#"userName eq "a@b.example""#,
        r#"userName ne "a" and userName co "b" or userName sw "c" or userName ew "d""#,
        r#"externalId eq "E" and not (externalId pr)"#,
        r#"emails.value eq "a@b.example" or emails[type eq "work" and value co "@b"]"#,
        r#"emails[type eq "work"].value eq "a@b.example""#,
        r#"emails.value ne "a@b.example" and emails.type ne "home" or emails.value co "b""#,
        r#"emails pr and emails.value pr and emails.primary eq true and emails.primary pr"#,
        r#"emails[not (type eq "work") and primary ne "False"]"#,
        r#"displayName eq "Ada" and name.givenName gt "A" and name.familyName le "Z""#,
        r#"title pr and active eq true and id eq "7" and id ne "x""#,
        r#"meta.created ge "2026-01-01T00:00:00Z" and meta.lastModified lt "2027-01-01T00:00:00.000Z""#,
    ];
    // And each card field a filter may name, on its column.
    let paired = PAIRS
        .iter()
        .filter(|p| p.filtered)
        .map(|p| format!("{} eq \"x\"", p.path()));
    for text in filters.map(String::from).into_iter().chain(paired) {
        let text = text.as_str();
        let f = parse(text)
            .and_then(|f| f.to_sql(cards::USERS_FIRST_PARAM, &crate::js::normalize))
            .unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let args = f.args.iter().map(SqlValue::from).collect();
        let stmts = cards::users_sql(1, &f.sql, args, 0, 100);
        db.batch("cards::users_sql", &stmts);
        for stmt in &stmts {
            let (plan, text) = query_plan(&mut db, stmt);
            assert!(
                !plan.iter().any(|d| d.starts_with("SCAN ")
                    && !d.contains(" USING ")
                    && !scans_one_card(d)),
                "a full scan:\n{}\n{text}",
                stmt.sql
            );
        }
        if text.starts_with("userName eq") {
            let (_, plan) = query_plan(&mut db, &stmts[1]);
            assert!(plan.contains("cards_account_user_key"), "{plan}");
        }
    }
}

/// A step of a filter's plan that reads one card's emails (`domain::scim::filter`'s
/// `EMAILS`: `json_each` over the card's JSON, the one-row `k` of the picked index, the
/// rows `em` made of them, and the constant row of an email SCIM never wrote).
fn scans_one_card(step: &str) -> bool {
    step.contains(" VIRTUAL TABLE INDEX ")
        || ["SCAN CONSTANT ROW", "SCAN k", "SCAN em"].contains(&step)
}

/// A move's pages, counts and deletions reach the account's rows by an index, and pages
/// need no sort of every row of the account (cards excepted: an account has few, and
/// their index is by update time).
#[test]
fn moves_range_over_their_indexes() {
    use crate::store::moves::{self, TABLES};
    let mut db = Db::new();
    let mut stmts = vec![moves::counts_sql(1)];
    for t in 0..TABLES.len() {
        stmts.push(moves::page_sql(t, 1, None, 100));
        stmts.push(moves::page_sql(t, 1, Some(SqlValue::Int(7)), 100));
        stmts.push(moves::empty_sql(t, 1, 500));
    }
    for stmt in stmts {
        let (plan, text) = query_plan(&mut db, &stmt);
        assert!(
            !plan.iter().any(|d| d.starts_with("SCAN ")
                && !d.contains(" USING ")
                && d != "SCAN CONSTANT ROW"),
            "a full scan:\n{}\n{text}",
            stmt.sql
        );
        if !stmt.sql.contains("FROM cards") {
            assert!(
                !text.contains("TEMP B-TREE"),
                "a sort:\n{}\n{text}",
                stmt.sql
            );
        }
    }
}

/// The steps of SQLite's plan for `stmt`, and them joined for messages.
fn query_plan(db: &mut Db, stmt: &Stmt) -> (Vec<String>, String) {
    let explained = Stmt::new(
        format!("EXPLAIN QUERY PLAN {}", stmt.sql),
        stmt.args.clone(),
    );
    let plan: Vec<String> = db
        .exec("plan", &explained)
        .iter()
        .filter_map(|r| r["detail"].as_str().map(str::to_string))
        .collect();
    let text = plan.join(" | ");
    (plan, text)
}
