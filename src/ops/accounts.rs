//! Account changes by the operator (product.md 3, regions.md 2 and 4): create, update,
//! delete and move. Each touches the directory, the account's shard and the cached auth
//! records of its tokens, in the order that leaves nothing half-done after a crash.

use crate::db::Start;
use crate::domain::account::{Account, AccountPatch};
use crate::domain::moving::Plan;
use crate::domain::region::Region;
use crate::durable::mover::client as mover;
use crate::durable::names::client::{self as names, Op};
use crate::durable::rate_limiter::client as gate;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::moves::{self, MoveRow};
use crate::store::outbox;
use crate::store::{accounts, cards, tokens, webhooks};

/// The account, placed in the shard of its region with the fewest accounts (regions.md
/// 2): the directory's row, then the shard's copy.
pub async fn create(app: &App, patch: &AccountPatch) -> ApiResult<Account> {
    let dir = app.directory()?;
    let topology = app.topology()?;
    let region = patch.data_region.unwrap_or(topology.default_region);
    let counts = accounts::per_shard(&dir).await?;
    let shard = topology.place(region, |b| counts.of(b)).ok_or_else(|| {
        let names: Vec<&str> = topology.regions().iter().map(|r| r.as_str()).collect();
        ApiError::validation(
            "data_region",
            format!("The data region must be one of: {}.", names.join(", ")),
        )
    })?;
    let account = accounts::create(&dir, patch, region.as_str(), &shard.binding, app.now_ms)
        .await?
        .ok_or_else(|| ApiError::Internal("account insert returned no row".into()))?;
    app.place(&shard.binding)?;
    app.start_reads(Start::Primary);
    if let Err(e) = accounts::copy(&*app.db()?, &account).await {
        // No account without its shard's copy: undo the directory's row.
        let _ = accounts::delete(&dir, account.id).await;
        return Err(e.into());
    }
    Ok(account)
}

/// Plan, features, limits and the rest, at once everywhere they are read (extensions.md 5).
pub async fn update(app: &App, id: i64, patch: &AccountPatch) -> ApiResult<Account> {
    let dir = app.directory()?;
    let current = accounts::get(&dir, id).await?.ok_or(ApiError::NotFound)?;
    let place = current.placement.as_ref().ok_or(ApiError::NotFound)?;
    if place.moving.is_some() {
        return Err(ApiError::Moving);
    }
    let shard = place.shard.clone();
    let found = accounts::update(&dir, id, patch)
        .await?
        .ok_or(ApiError::NotFound)?;
    app.place(&shard)?;
    let db = app.db()?;
    // The shard's copy follows (an upsert: a retried PATCH repairs a copy an interrupted
    // one missed).
    accounts::copy(&db, &found).await?;
    // Plan, features and limit are cached with each token: void them all.
    gate::invalidate_all(&app.env, &tokens::hashes(&dir, id).await?).await?;
    // With API access (back), webhook attempts that waited for it go now.
    if found.api_access() {
        let waiting = webhooks::resume(&db, id, app.now_ms).await?;
        outbox::dispatch(&app.env, &app.ctx, waiting, app.config.webhooks_fault);
    }
    Ok(found)
}

/// The account and everything of it, shard first: a crash after it leaves an account to
/// delete again, never data without an account.
pub async fn delete(app: &App, id: i64) -> ApiResult<()> {
    let dir = app.directory()?;
    let current = accounts::get(&dir, id).await?.ok_or(ApiError::NotFound)?;
    let place = current.placement.as_ref().ok_or(ApiError::NotFound)?;
    if place.moving.is_some() {
        return Err(ApiError::Moving);
    }
    let hashes = tokens::hashes(&dir, id).await?;
    app.place(&place.shard)?;
    let named = cards::slugs_of(&*app.db()?, id).await?;
    accounts::delete_data(&*app.db()?, id).await?;
    if !accounts::delete(&dir, id).await? {
        return Err(ApiError::NotFound);
    }
    // Its cards' slugs are retired in their names' objects (regions.md 1 and 6). One that
    // fails stays in use: never given away, only not freed after its year.
    for c in &named {
        let retired = names::ask(&app.env, super::cards::keys(app), Op::Retire, &c.slug, id);
        if let Err(e) = retired.await {
            worker::console_error!("account {id}: retiring card {}'s slug failed: {e}", c.id);
        }
    }
    // Done once no cached record of its tokens remains.
    gate::invalidate_all(&app.env, &hashes).await?;
    Ok(())
}

/// Starts moving the account to a shard of `region`, one of `SHARDS`' (regions.md 4). A
/// move while another runs is a conflict whatever region it names; a move to the
/// account's own region is refused.
pub async fn start_move(app: &App, id: i64, region: Region) -> ApiResult<MoveRow> {
    let dir = app.directory()?;
    let current = accounts::get(&dir, id).await?.ok_or(ApiError::NotFound)?;
    let place = current.placement.as_ref().ok_or(ApiError::NotFound)?;
    if place.moving.is_some() {
        return Err(ApiError::MoveRunning);
    }
    if region.as_str() == place.data_region {
        return Err(ApiError::validation(
            "data_region",
            format!("The account is in {} already.", place.data_region),
        ));
    }
    let counts = accounts::per_shard(&dir).await?;
    let target = app
        .topology()?
        .place(region, |b| counts.of(b))
        .ok_or_else(|| ApiError::Internal("a listed region has no shard".into()))?;
    let started = moves::start(
        &dir,
        id,
        &place.shard,
        &target.binding,
        region.as_str(),
        app.now_ms,
    )
    .await?
    .ok_or(ApiError::MoveRunning)?;
    // Its tokens learn that it moves before this answers: its writes wait (503).
    gate::invalidate_all(&app.env, &tokens::hashes(&dir, id).await?).await?;
    mover::start(&app.env, &plan_of(app, &started)).await?;
    Ok(started)
}

/// The mover's plan of a recorded move, with this deployment's pacing.
fn plan_of(app: &App, m: &MoveRow) -> Plan {
    Plan::new(m.id, m.account_id, &m.from_shard, &m.to_shard, &m.to_region).paced(app.config)
}
