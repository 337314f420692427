//! `Syncer`: one object per company template (teams.md 1) that brings the template's cards
//! in line with its latest change, a bounded batch of cards per step, as account moves
//! do (`durable::mover`): the job and the alarm are stored with the object, so a restart
//! of the runtime loses nothing, and each card records the template rev it is in line
//! with in the batch of its write, so a step run again writes nothing twice.

pub mod client;

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::db::Shard;
use crate::store::{outbox, templates};

const JOB: &str = "job";
/// Cards one step brings in line: 4 statements each in one D1 batch.
const STEP_CARDS: i64 = 25;
/// Steps one alarm takes, within this much time (see `durable::mover`: a long alarm holds
/// the worker's other requests locally).
const ALARM_BUDGET_MS: f64 = 500.0;

#[durable_object(alarm)]
pub struct Syncer {
    state: State,
    env: Env,
}

impl DurableObject for Syncer {
    fn new(state: State, env: Env) -> Self {
        Self { state, env }
    }

    /// `POST` the job (`{shard} {account} {template}`): kept, and a step scheduled now.
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let job = req.text().await?;
        self.state.storage().put(JOB, job).await?;
        if self.state.storage().get_alarm().await?.is_none() {
            self.state.storage().set_alarm(0).await?;
        }
        Ok(Response::empty()?.with_status(204))
    }

    async fn alarm(&self) -> Result<Response> {
        let Some(job) = self.state.storage().get::<String>(JOB).await? else {
            return Response::empty();
        };
        let mut parts = job.split(' ');
        let (shard, account, template) = (
            parts.next().unwrap_or_default(),
            parts.next().and_then(|a| a.parse().ok()).unwrap_or(0),
            parts.next().and_then(|t| t.parse().ok()).unwrap_or(0),
        );
        let db = Shard::primary(&self.env, shard)?;
        let started = js_sys::Date::now();
        loop {
            let now = js_sys::Date::now() as i64;
            let (looked, sent) =
                match templates::align(&db, account, template, STEP_CARDS, now).await {
                    Ok(done) => done,
                    Err(e) => {
                        // Retried: the cards still behind are found again.
                        worker::console_error!("template {template}: step failed: {e}");
                        self.state.storage().set_alarm(1_000).await?;
                        return Response::empty();
                    }
                };
            if let Err(e) = outbox::send(&self.env, outbox::QUEUE, &sent, 0).await {
                // The sweeper finds the attempts within a minute.
                worker::console_error!("webhook queue send failed: {e}");
            }
            if looked < STEP_CARDS as usize {
                self.state.storage().delete(JOB).await?;
                return Response::empty();
            }
            if js_sys::Date::now() - started > ALARM_BUDGET_MS {
                self.state.storage().set_alarm(1).await?;
                return Response::empty();
            }
        }
    }
}
