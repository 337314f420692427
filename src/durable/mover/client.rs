//! The worker's side of [`Mover`](super::Mover): its binding and the one call it takes.

use worker::{Env, Result};

use crate::domain::moving::Plan;

/// The Durable Object binding in wrangler.toml.
pub const BINDING: &str = "MOVER";

const START_URL: &str = "https://mover/start";

/// Starts the move's mover with `plan`, or wakes it if it runs already (a lost alarm):
/// the object keeps the plan it has and goes on from where it stands.
pub async fn start(env: &Env, plan: &Plan) -> Result<()> {
    let body = serde_json::to_string(plan)?;
    let name = plan.move_id.to_string();
    match crate::durable::call(env, BINDING, &name, START_URL, Some(&body)).await? {
        (204, _) => Ok(()),
        (s, text) => Err(worker::Error::RustError(format!(
            "mover answered {s}: {text}"
        ))),
    }
}
