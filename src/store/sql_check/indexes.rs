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
        cards::users_sql(
            1,
            "scim_user_name = ?2 COLLATE NOCASE",
            vec!["a@b.example".into()],
            0,
            100,
        ),
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
