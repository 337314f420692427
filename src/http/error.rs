//! The one error type of the service and its mapping to the JSON bodies of spec section 7.

use serde_json::{Map, Value};
use worker::Response;

use super::json::{json_response, scim_response};
use crate::db::{EXTERNAL_ID_TAKEN, USER_NAME_TAKEN};
use crate::domain::event::EventType;
use crate::domain::principal::Denied;
use crate::domain::scim::ScimError;
use crate::domain::token::Scope;
use crate::domain::validation::{FieldErrors, Rule};
use crate::domain::webhook::{limit_message, REDELIVER_LIMIT};

#[derive(Debug)]
pub enum ApiError {
    /// 401: token missing, malformed, unknown or revoked.
    Unauthenticated,
    /// 403: the account's plan has no API access.
    NoApiAccess,
    /// 403: the token lacks the operation's scope.
    MissingScope,
    /// 403: the plan's card limit is reached.
    CardLimit,
    /// 403: the account has as many webhooks as it may.
    WebhookLimit,
    /// 409: a disabled webhook is sent nothing, redeliveries included.
    WebhookDisabled,
    /// 403: a webhook would carry events of this type, which the token may not read.
    UnreadableEvents(EventType),
    /// 429: an event was redelivered to a webhook as often as an hour allows.
    RedeliverLimit {
        retry_after: u64,
    },
    NotFound,
    /// 409: a request with the same Idempotency-Key is still running.
    Conflict,
    /// 410: the change feed no longer holds what the cursor points after.
    Gone,
    /// 405, with the methods the path answers (`Allow`, from its path table).
    MethodNotAllowed(String),
    PayloadTooLarge,
    /// 415: a body of a media type the endpoint does not take.
    UnsupportedMediaType,
    /// 403: a browser form post from another site.
    CrossSite,
    Validation(FieldErrors),
    TooManyRequests {
        retry_after: u64,
    },
    /// 503: the account is being moved between shards; its writes wait (regions.md 4).
    Moving,
    /// 409: a move of the account runs already.
    MoveRunning,
    /// 409: another card of the account has this SCIM userName (provisioning.md 2).
    UserNameTaken,
    /// 409: an upsert's card was made and deleted by others while it ran; nothing changed.
    Contended,
    /// A refusal of the account area, in the person's language (a passkey for another
    /// site, an invite used): its status and text.
    Area {
        status: u16,
        message: &'static str,
    },
    /// An error of the SCIM service's own (provisioning.md 2): a filter, a PATCH, a User.
    Scim(ScimError),
    /// 500 that names a configuration fault (a shard binding missing or unlisted), which
    /// only the operator can fix: logged and answered with the name.
    Misconfigured(String),
    /// 500: logged with its cause, answered without it.
    Internal(String),
}

/// Seconds a write of a moving account is asked to wait.
pub const MOVING_RETRY_AFTER: u64 = 30;

/// What a shard's fence trigger raises for a write of an account that is moving
/// (migrations/shard/0008).
const FENCE: &str = "account_moving";

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn status(&self) -> u16 {
        match self {
            ApiError::Unauthenticated => 401,
            ApiError::NoApiAccess
            | ApiError::MissingScope
            | ApiError::CardLimit
            | ApiError::WebhookLimit
            | ApiError::UnreadableEvents(_) => 403,
            ApiError::NotFound => 404,
            ApiError::Conflict
            | ApiError::WebhookDisabled
            | ApiError::MoveRunning
            | ApiError::UserNameTaken
            | ApiError::Contended => 409,
            ApiError::Moving => 503,
            ApiError::Gone => 410,
            ApiError::MethodNotAllowed(_) => 405,
            ApiError::PayloadTooLarge => 413,
            ApiError::UnsupportedMediaType => 415,
            ApiError::CrossSite => 403,
            ApiError::Validation(_) => 422,
            ApiError::TooManyRequests { .. } | ApiError::RedeliverLimit { .. } => 429,
            ApiError::Internal(_) | ApiError::Misconfigured(_) => 500,
            ApiError::Scim(e) => e.status,
            ApiError::Area { status, .. } => *status,
        }
    }

    /// The `message` of the error body.
    fn message(&self) -> String {
        let text = match self {
            ApiError::Unauthenticated => "Unauthenticated.",
            ApiError::NoApiAccess => "API access is not available on your current plan. Upgrade to the Enterprise plan to use the API.",
            ApiError::MissingScope => "This token does not have the scope required for this operation.",
            ApiError::CardLimit => "You have reached the card limit of your current plan. Upgrade your plan to create more cards.",
            ApiError::WebhookLimit => return limit_message(),
            ApiError::WebhookDisabled => "The webhook is disabled. Enable it (PATCH status: enabled) before redelivering.",
            ApiError::UnreadableEvents(t) => {
                let needs = match t.scope() {
                    Scope::CardsRead => "cards:read or cards:write",
                    Scope::TemplatesRead => "templates:read or templates:write",
                    scope => scope.as_str(),
                };
                return format!(
                    "A webhook carries only events its token may read: {} events need {needs}.",
                    t.as_str()
                );
            }
            ApiError::RedeliverLimit { retry_after } => {
                return format!(
                    "This event was redelivered to this webhook {REDELIVER_LIMIT} times in the last hour. Retry in {retry_after} seconds."
                )
            }
            ApiError::NotFound => "Not found.",
            ApiError::Conflict => "A request with this Idempotency-Key is still being processed. Retry it later.",
            ApiError::Gone => "The cursor points before the events still kept. Run a full sync, then follow the feed from meta.next_cursor.",
            ApiError::MethodNotAllowed(_) => "Method not allowed.",
            ApiError::PayloadTooLarge => "The request body is too large.",
            ApiError::UnsupportedMediaType => "Send the form as application/x-www-form-urlencoded or application/json.",
            ApiError::CrossSite => "Forms of other sites cannot post to this card.",
            ApiError::Validation(errors) => return errors.summary(),
            ApiError::TooManyRequests { .. } => "Too many requests.",
            ApiError::Moving => return format!(
                "This account is moving to another data region; its data can be read but not changed until the move ends. Retry in {MOVING_RETRY_AFTER} seconds."
            ),
            ApiError::MoveRunning => "A move of this account is already running.",
            ApiError::UserNameTaken => "Another user of this account has this userName.",
            ApiError::Contended => "The card of this external id was changed by another request meanwhile; nothing was changed. Retry the request.",
            ApiError::Misconfigured(what) => {
                return format!("Server misconfigured: {what}.")
            }
            ApiError::Internal(_) => "Server error.",
            ApiError::Scim(e) => return e.detail.clone(),
            ApiError::Area { message, .. } => message,
        };
        text.to_string()
    }

    /// The JSON body of spec section 7: `{message}`, plus `errors` (422) or
    /// `retry_after` (429).
    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("message".into(), self.message().into());
        match self {
            ApiError::Validation(errors) => {
                body.insert("errors".into(), errors.to_json());
            }
            ApiError::TooManyRequests { retry_after }
            | ApiError::RedeliverLimit { retry_after } => {
                body.insert("retry_after".into(), (*retry_after).into());
            }
            _ => {}
        }
        Value::Object(body)
    }

    pub fn into_response(self) -> Response {
        let resp = json_response(self.status(), &self.body());
        self.with_headers(resp)
    }

    /// The error as the SCIM service answers it (RFC 7644 3.12): the SCIM error body,
    /// `application/scim+json`, the headers [`ApiError::into_response`] sets.
    pub fn into_scim_response(self) -> Response {
        let scim = match &self {
            ApiError::Scim(e) => e.clone(),
            // Another user has the userName, or another card the external id.
            ApiError::UserNameTaken => ScimError::uniqueness(self.message()),
            ApiError::Validation(e) if e.broke("external_id", Rule::Taken) => {
                ScimError::uniqueness("Another user of this account has this externalId.")
            }
            // A field the card's template locks (teams.md 1).
            ApiError::Validation(e) if e.entries().any(|(_, r, _)| r == Rule::Locked) => {
                ScimError::mutability(self.message())
            }
            // A body that is no JSON object.
            ApiError::Validation(e) if e.has("body") => ScimError::invalid_syntax(self.message()),
            ApiError::Validation(_) => ScimError::invalid_value(self.message()),
            _ => ScimError::new(self.status(), None, self.message()),
        };
        let resp = scim_response(scim.status, &scim.body());
        self.with_headers(resp)
    }

    /// Logs what only the operator can act on, and sets the headers the error calls for.
    fn with_headers(self, mut resp: Response) -> Response {
        match &self {
            ApiError::Internal(cause) => worker::console_error!("internal error: {cause}"),
            ApiError::Misconfigured(what) => worker::console_error!("misconfigured: {what}"),
            _ => {}
        }
        let headers = resp.headers_mut();
        match &self {
            ApiError::MethodNotAllowed(allow) => {
                let _ = headers.set("Allow", allow);
            }
            ApiError::TooManyRequests { retry_after }
            | ApiError::RedeliverLimit { retry_after } => {
                let _ = headers.set("Retry-After", &retry_after.to_string());
            }
            ApiError::Unauthenticated => {
                let _ = headers.set("WWW-Authenticate", "Bearer");
            }
            ApiError::Moving => {
                let _ = headers.set("Retry-After", &MOVING_RETRY_AFTER.to_string());
            }
            _ => {}
        }
        resp
    }

    pub fn validation(field: &str, message: String) -> ApiError {
        ApiError::Validation(FieldErrors::one(field, message))
    }
}

impl From<worker::Error> for ApiError {
    fn from(e: worker::Error) -> Self {
        let text = e.to_string();
        if text.contains(FENCE) {
            return ApiError::Moving;
        }
        if text.contains(EXTERNAL_ID_TAKEN) {
            return ApiError::Validation(FieldErrors::rule("external_id", Rule::Taken));
        }
        if text.contains(USER_NAME_TAKEN) {
            return ApiError::UserNameTaken;
        }
        ApiError::Internal(text)
    }
}

impl From<ScimError> for ApiError {
    fn from(e: ScimError) -> Self {
        ApiError::Scim(e)
    }
}

impl From<FieldErrors> for ApiError {
    fn from(e: FieldErrors) -> Self {
        ApiError::Validation(e)
    }
}

impl From<Denied> for ApiError {
    fn from(d: Denied) -> Self {
        match d {
            Denied::NoApiAccess => ApiError::NoApiAccess,
            Denied::MissingScope => ApiError::MissingScope,
        }
    }
}
