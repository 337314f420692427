//! `page` / `per_page` clamping and the `meta` object (spec 4.1, product.md 1).

use serde::Serialize;

pub const DEFAULT_PER_PAGE: i64 = 15;
pub const MAX_PER_PAGE: i64 = 100;
/// Highest page served: keeps the row offset far below 2^53, the largest integer D1 takes
/// exactly (it binds numbers as f64). Beyond the last page the list is empty anyway.
pub const MAX_PAGE: i64 = 10_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub page: i64,
    pub per_page: i64,
}

impl Page {
    /// Out-of-bounds values are clamped and non-numbers fall back to the default: listing
    /// never fails on paging input.
    pub fn from_query(page: Option<&str>, per_page: Option<&str>) -> Page {
        let num = |v: Option<&str>| v.and_then(|s| s.trim().parse::<i64>().ok());
        Page {
            page: num(page).unwrap_or(1).clamp(1, MAX_PAGE),
            per_page: num(per_page)
                .unwrap_or(DEFAULT_PER_PAGE)
                .clamp(1, MAX_PER_PAGE),
        }
    }

    /// Rows to skip; saturating so a huge `page` cannot overflow.
    pub fn offset(&self) -> i64 {
        (self.page - 1).saturating_mul(self.per_page)
    }

    pub fn meta(&self, total: i64) -> Meta {
        Meta {
            current_page: self.page,
            last_page: ((total + self.per_page - 1) / self.per_page).max(1),
            per_page: self.per_page,
            total,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Meta {
    pub current_page: i64,
    pub last_page: i64,
    pub per_page: i64,
    pub total: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_clamping() {
        let p = |a, b| Page::from_query(a, b);
        assert_eq!(
            p(None, None),
            Page {
                page: 1,
                per_page: 15
            }
        );
        assert_eq!(
            p(Some("0"), Some("0")),
            Page {
                page: 1,
                per_page: 1
            }
        );
        assert_eq!(
            p(Some("-4"), Some("500")),
            Page {
                page: 1,
                per_page: 100
            }
        );
        assert_eq!(
            p(Some("abc"), Some("1e3")),
            Page {
                page: 1,
                per_page: 15
            }
        );
        assert_eq!(
            p(Some("3"), Some("100")),
            Page {
                page: 3,
                per_page: 100
            }
        );
        assert_eq!(p(Some("99999999999999999999"), None).page, 1);
        // Found by schemathesis: a page whose offset D1 cannot bind exactly was a 500.
        assert_eq!(p(Some("844333073163995264"), None).page, MAX_PAGE);
        assert!(p(Some("844333073163995264"), Some("100")).offset() < 1 << 53);
    }

    #[test]
    fn meta_and_offset() {
        let p = Page {
            page: 3,
            per_page: 10,
        };
        assert_eq!(p.offset(), 20);
        assert_eq!(
            p.meta(21),
            Meta {
                current_page: 3,
                last_page: 3,
                per_page: 10,
                total: 21
            }
        );
        assert_eq!(p.meta(0).last_page, 1);
        assert_eq!(
            Page {
                page: i64::MAX,
                per_page: 100
            }
            .offset(),
            i64::MAX
        );
    }
}
