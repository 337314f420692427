//! The authenticated caller of an API request.

use super::plan::{Features, Overrides, Plan};
use super::region::Region;
use super::token::{Scope, Scopes};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub token_id: i64,
    pub account_id: i64,
    pub scopes: Scopes,
    pub features: Features,
    pub card_limit: i64,
    /// Where the account's data lives (regions.md): the request's D1 session is on it.
    pub place: Place,
}

/// The account's shard and region, and whether a move of it runs (its writes answer 503).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub shard: String,
    pub region: Option<Region>,
    pub moving: bool,
}

/// Why a principal may not run an operation (spec 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// The account's plan has no API access, whatever the token's scopes.
    NoApiAccess,
    MissingScope,
}

impl Principal {
    pub fn new(
        token_id: i64,
        account_id: i64,
        scopes: Scopes,
        plan: Plan,
        overrides: Overrides,
    ) -> Principal {
        let (features, card_limit) = overrides.effective(plan);
        Principal {
            token_id,
            account_id,
            scopes,
            features,
            card_limit,
            place: Place::default(),
        }
    }

    pub fn placed(self, place: Place) -> Principal {
        Principal { place, ..self }
    }

    /// Plan first, then any one of `scopes`.
    pub fn may_any(&self, scopes: &[Scope]) -> Result<(), Denied> {
        if !self.features.api_access {
            return Err(Denied::NoApiAccess);
        }
        if !scopes.iter().any(|s| self.scopes.grants(*s)) {
            return Err(Denied::MissingScope);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_before_scope() {
        let p = |plan, scopes: Vec<Scope>| {
            Principal::new(1, 1, Scopes::new(scopes), plan, Overrides::default())
        };
        let free = p(Plan::Free, vec![Scope::CardsRead]);
        assert_eq!(free.may_any(&[Scope::CardsRead]), Err(Denied::NoApiAccess));
        assert_eq!(free.card_limit, 1);
        let ent = p(Plan::Enterprise, vec![Scope::CardsWrite]);
        assert_eq!(
            ent.may_any(&[Scope::CardsRead]),
            Ok(()),
            "write grants read"
        );
        assert_eq!(ent.may_any(&[Scope::LeadsRead]), Err(Denied::MissingScope));
        let pro_with_api = Principal::new(
            1,
            1,
            Scopes::new(vec![Scope::LeadsRead]),
            Plan::Pro,
            Overrides {
                api_access: Some(true),
                ..Overrides::default()
            },
        );
        assert_eq!(pro_with_api.may_any(&[Scope::LeadsRead]), Ok(()));
    }
}
