//! Plans, features and the effective values after per-account overrides (product.md 2).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Free,
    Pro,
    Business,
    Enterprise,
}

impl Plan {
    pub const NAMES: [&'static str; 4] = ["free", "pro", "business", "enterprise"];

    pub fn parse(s: &str) -> Option<Plan> {
        match s {
            "free" => Some(Plan::Free),
            "pro" => Some(Plan::Pro),
            "business" => Some(Plan::Business),
            "enterprise" => Some(Plan::Enterprise),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn features(self) -> Features {
        let (api, adv, white, lead) = match self {
            Plan::Free => (false, false, false, false),
            Plan::Pro => (false, true, false, true),
            Plan::Business => (false, true, true, true),
            Plan::Enterprise => (true, true, true, true),
        };
        Features {
            api_access: api,
            advanced_analytics: adv,
            white_label: white,
            lead_form: lead,
        }
    }

    pub fn card_limit(self) -> i64 {
        match self {
            Plan::Free => 1,
            Plan::Pro => 5,
            Plan::Business => 25,
            Plan::Enterprise => 1000,
        }
    }
}

/// Effective feature switches of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Features {
    pub api_access: bool,
    pub advanced_analytics: bool,
    pub white_label: bool,
    pub lead_form: bool,
}

/// Per-account overrides; `None` falls back to the plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    pub card_limit: Option<i64>,
    pub api_access: Option<bool>,
    pub advanced_analytics: Option<bool>,
    pub white_label: Option<bool>,
    pub lead_form: Option<bool>,
}

impl Overrides {
    pub fn effective(&self, plan: Plan) -> (Features, i64) {
        let base = plan.features();
        (
            Features {
                api_access: self.api_access.unwrap_or(base.api_access),
                advanced_analytics: self.advanced_analytics.unwrap_or(base.advanced_analytics),
                white_label: self.white_label.unwrap_or(base.white_label),
                lead_form: self.lead_form.unwrap_or(base.lead_form),
            },
            self.card_limit.unwrap_or(plan.card_limit()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_enterprise_has_api_access() {
        for name in Plan::NAMES {
            let plan = Plan::parse(name).unwrap();
            assert_eq!(plan.as_str(), name);
            assert_eq!(plan.features().api_access, plan == Plan::Enterprise);
        }
        assert_eq!(Plan::parse("gold"), None);
    }

    #[test]
    fn overrides_win_over_plan() {
        let o = Overrides {
            card_limit: Some(20),
            api_access: Some(true),
            white_label: Some(false),
            ..Default::default()
        };
        let (f, limit) = o.effective(Plan::Pro);
        assert_eq!(limit, 20);
        assert!(f.api_access && f.advanced_analytics && f.lead_form && !f.white_label);
        assert_eq!(Overrides::default().effective(Plan::Free).1, 1);
    }
}
