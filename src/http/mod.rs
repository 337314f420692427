//! HTTP plumbing every layer above may use: the per-request [`App`], the one error type,
//! JSON responses, request bodies and parameters. It holds no routing and no business
//! rules, and imports nothing but `db` (the request's D1 session) and `domain`.

pub mod body;
pub mod edge;
pub mod error;
pub mod json;
pub mod params;
pub mod paths;
pub mod response;

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use worker::{Context, Env, Request};

use crate::db::{Directory, Shard, Start};
use crate::domain::config::Config;
use crate::domain::region::{object_jurisdiction, Topology};
use crate::domain::weburl::parse_http;
use error::{ApiError, ApiResult};

/// Per-request environment handed to every handler.
pub struct App {
    pub env: Env,
    pub ctx: Context,
    /// The worker's vars and secrets, read once per isolate (`crate::config`).
    pub config: &'static Config,
    /// `req_` + 64 random bits: names the request in its answer, its error body and logs.
    pub request_id: String,
    pub now_ms: i64,
    /// `PUBLIC_BASE_URL`, or the request's origin when that var is empty.
    pub base_url: String,
    start: RefCell<Start>,
    /// The binding of the account's shard, once the request knows the account.
    shard: RefCell<Option<String>>,
    db: RefCell<Option<Rc<Shard>>>,
    directory: RefCell<Option<Rc<Directory>>>,
    /// Milliseconds spent reading KV, for `Server-Timing`; `None` when it read none.
    kv_ms: Cell<Option<f64>>,
    /// What the request's log line says beyond its status (filled as the request goes).
    pub trace: RefCell<Trace>,
    /// The runtime's request, for what is read of it only when needed ([`App::country`]).
    raw: worker::web_sys::Request,
    country: OnceCell<Option<String>>,
    /// A slug reserved while the gate was asked (`router::admission`), for the create
    /// that follows to take, else to give back (`ops::cards`).
    pub held: RefCell<Option<Held>>,
}

/// A slug reserved for `account`'s create of a card whose name makes `base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub account: i64,
    pub base: String,
    pub slug: String,
}

/// The parts of a request's log line that only its handling learns. Never a token, an
/// address, or anything a visitor typed.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    /// The operation (`getCard`), or the surface (`public`, `admin`).
    pub route: &'static str,
    pub account_id: Option<i64>,
    pub token_id: Option<i64>,
    pub gate_ms: Option<f64>,
}

impl App {
    pub fn new(
        req: &Request,
        env: Env,
        ctx: Context,
        config: &'static Config,
        request_id: String,
    ) -> App {
        let base_url = match &config.public_base_url {
            Some(url) => url.clone(),
            None => parse_http(&req.inner().url())
                .map(|u| u.origin())
                .unwrap_or_default(),
        };
        App {
            env,
            ctx,
            config,
            request_id,
            now_ms: js_sys::Date::now() as i64,
            base_url,
            start: RefCell::new(Start::Anywhere),
            shard: RefCell::new(None),
            db: RefCell::new(None),
            directory: RefCell::new(None),
            kv_ms: Cell::new(None),
            trace: RefCell::new(Trace::default()),
            // A handle of the same request (its `clone()` method would copy the body).
            raw: Clone::clone(req.inner()),
            country: OnceCell::new(),
            held: RefCell::new(None),
        }
    }

    /// The client's country (`request.cf.country`), read once and only when asked for:
    /// the security log's entries carry it.
    pub fn country(&self) -> Option<String> {
        self.country
            .get_or_init(|| params::country_of(&self.raw))
            .clone()
    }

    /// The shards and regions (`SHARDS`); a configuration fault is a 500 that names it.
    pub fn topology(&self) -> ApiResult<&'static Topology> {
        self.config
            .topology
            .as_ref()
            .map_err(|e| ApiError::Misconfigured(e.clone()))
    }

    /// The request works on this shard (the account's). A shard `SHARDS` does not name is
    /// a configuration fault.
    pub fn place(&self, shard: &str) -> ApiResult<()> {
        if self.topology()?.shard(shard).is_none() {
            return Err(ApiError::Misconfigured(format!(
                "an account is on the shard {shard}, which SHARDS does not name"
            )));
        }
        let mut current = self.shard.borrow_mut();
        if current.as_deref() != Some(shard) {
            *current = Some(shard.to_string());
            *self.db.borrow_mut() = None;
        }
        Ok(())
    }

    /// The jurisdiction the placed account's Durable Objects with personal data live in
    /// (its aggregator and card throttles): its shard's region's, unless switched off
    /// locally (`DURABLE_OBJECT_JURISDICTIONS=off`).
    pub fn jurisdiction(&self) -> Option<&'static str> {
        let topology = self.config.topology.as_ref().ok()?;
        let shard = self.shard.borrow();
        let region = topology.shard(shard.as_deref()?)?.region;
        object_jurisdiction(region, self.config.durable_object_jurisdictions)
    }

    /// The request's one session on the account's shard, opened on first use where
    /// [`App::start_reads`] said.
    pub fn db(&self) -> ApiResult<Rc<Shard>> {
        if let Some(db) = self.db.borrow().as_ref() {
            return Ok(db.clone());
        }
        let shard = self.shard.borrow().clone().ok_or_else(|| {
            ApiError::Internal("a shard was asked for before the account was known".into())
        })?;
        let db = Rc::new(Shard::open(&self.env, &shard, &self.start.borrow())?);
        *self.db.borrow_mut() = Some(db.clone());
        Ok(db)
    }

    /// The request's session on the directory, at its primary (what it holds changes
    /// rarely and is read once per token; a replica could miss a new token). A card page
    /// reads its routing row near first ([`App::directory_near`]).
    pub fn directory(&self) -> ApiResult<Rc<Directory>> {
        self.topology()?;
        if let Some(db) = self.directory.borrow().as_ref() {
            return Ok(db.clone());
        }
        let db = Rc::new(Directory::primary(&self.env)?);
        *self.directory.borrow_mut() = Some(db.clone());
        Ok(db)
    }

    /// A session on the directory at its nearest replica, for a card page's routing row
    /// (read most, and from everywhere): a replica that has not seen a new row sends the
    /// page to the name's object, and a row that led to no card (a replica behind a move
    /// or a delete) is read again at the primary (`public::live_card`).
    pub fn directory_near(&self) -> ApiResult<Directory> {
        self.topology()?;
        Ok(Directory::open(&self.env, &Start::Anywhere)?)
    }

    /// Where the session's reads start. Opened already, the session is dropped and the
    /// next [`App::db`] opens a new one there (a read that must start over).
    pub fn start_reads(&self, start: Start) {
        *self.start.borrow_mut() = start;
        *self.db.borrow_mut() = None;
    }

    /// Counts time spent on KV.
    pub fn spent_kv(&self, ms: f64) {
        self.kv_ms.set(Some(self.kv_ms.get().unwrap_or(0.0) + ms));
    }

    /// Milliseconds spent on KV so far, if the request read KV.
    pub fn kv_ms(&self) -> Option<f64> {
        self.kv_ms.get()
    }

    /// The shard's session, if the request used one.
    pub fn used_db(&self) -> Option<Rc<Shard>> {
        self.db.borrow().clone()
    }

    /// Milliseconds spent on D1 (shard and directory), if the request used it.
    pub fn db_ms(&self) -> Option<f64> {
        let shard = self.db.borrow().as_ref().map(|d| d.spent_ms());
        let directory = self.directory.borrow().as_ref().map(|d| d.spent_ms());
        match (shard, directory) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        }
    }
}
