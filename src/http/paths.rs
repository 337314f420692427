//! Path tables: each surface lists its paths once, with the methods each path answers and
//! the operation each method is. Routing and a 405's `Allow` are both read from that one
//! table, so a method can neither route without being allowed nor be allowed without
//! routing.

use super::error::{ApiError, ApiResult};

/// One segment of a path pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// This exact text.
    Lit(&'static str),
    /// Any one segment (an id, a slug), handed to the operation to parse.
    Hole,
}

/// Makes a route of a path's holes (in order); it decides itself what a hole that does not
/// parse means.
pub type Make<R> = fn(&[&str]) -> R;

/// A path and what its methods do. `R` is the surface's route enum.
pub struct Path<R: 'static> {
    pub segs: &'static [Seg],
    /// In the order `Allow` lists them, each with the route it makes.
    pub methods: &'static [(&'static str, Make<R>)],
}

impl<R> Path<R> {
    fn fits(&self, segments: &[&str]) -> bool {
        self.segs.len() == segments.len()
            && self.segs.iter().zip(segments).all(|(seg, s)| match seg {
                Seg::Lit(lit) => lit == s,
                Seg::Hole => true,
            })
    }

    /// The methods this path answers, as a 405's `Allow` lists them.
    pub fn allow(&self) -> String {
        let names: Vec<&str> = self.methods.iter().map(|(m, _)| *m).collect();
        names.join(", ")
    }
}

/// The route of `method` on `segments`: the first path of `table` whose pattern fits, else
/// 404; a method that path does not answer is a 405 with the methods it does.
pub fn find<R>(table: &'static [Path<R>], method: &str, segments: &[&str]) -> ApiResult<R> {
    let path = table
        .iter()
        .find(|p| p.fits(segments))
        .ok_or(ApiError::NotFound)?;
    let (_, make) = path
        .methods
        .iter()
        .find(|(m, _)| *m == method)
        .ok_or_else(|| ApiError::MethodNotAllowed(path.allow()))?;
    let holes: Vec<&str> = path
        .segs
        .iter()
        .zip(segments)
        .filter(|(seg, _)| **seg == Seg::Hole)
        .map(|(_, s)| *s)
        .collect();
    Ok(make(&holes))
}

#[cfg(test)]
/// An example of the paths a pattern fits, its holes filled by `hole` (for tests).
pub fn example<R>(path: &Path<R>, hole: &str) -> Vec<String> {
    let fill = |seg: &Seg| match seg {
        Seg::Lit(lit) => lit.to_string(),
        Seg::Hole => hole.to_string(),
    };
    path.segs.iter().map(fill).collect()
}

#[cfg(test)]
/// Every method a table may use: tests probe each path with each of these.
pub const METHODS: [&str; 8] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "QUERY",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum R {
        List,
        Make,
        One(Option<i64>),
        Special,
    }

    const TABLE: &[Path<R>] = &[
        Path {
            segs: &[Seg::Lit("things")],
            methods: &[("GET", |_| R::List), ("POST", |_| R::Make)],
        },
        Path {
            segs: &[Seg::Lit("things"), Seg::Lit("special")],
            methods: &[("PUT", |_| R::Special)],
        },
        Path {
            segs: &[Seg::Lit("things"), Seg::Hole],
            methods: &[("GET", |h| R::One(h[0].parse().ok()))],
        },
    ];

    #[test]
    fn first_fitting_path_wins_and_allow_is_its_methods() {
        assert_eq!(find(TABLE, "GET", &["things"]).unwrap(), R::List);
        assert_eq!(find(TABLE, "POST", &["things"]).unwrap(), R::Make);
        assert_eq!(
            find(TABLE, "GET", &["things", "7"]).unwrap(),
            R::One(Some(7))
        );
        assert_eq!(find(TABLE, "GET", &["things", "x"]).unwrap(), R::One(None));
        assert_eq!(
            find(TABLE, "PUT", &["things", "special"]).unwrap(),
            R::Special
        );
        let allow = |m, p: &[&str]| match find(TABLE, m, p) {
            Err(ApiError::MethodNotAllowed(allow)) => allow,
            other => panic!("{other:?}"),
        };
        assert_eq!(allow("DELETE", &["things"]), "GET, POST");
        // `special` is its own path: a GET there is not the hole's GET.
        assert_eq!(allow("GET", &["things", "special"]), "PUT");
        assert!(matches!(find(TABLE, "GET", &[]), Err(ApiError::NotFound)));
        assert!(matches!(
            find(TABLE, "GET", &["things", "1", "2"]),
            Err(ApiError::NotFound)
        ));
        assert_eq!(example(&TABLE[2], "1"), ["things", "1"]);
    }
}

#[cfg(test)]
/// Asserts, for `segments` (an example of `path`), that each method of [`METHODS`] routes
/// exactly when `path`'s `Allow` lists it (and then to a route `valid` accepts), and that a
/// 405 carries that `Allow`: the property each surface's table test checks.
pub fn assert_allow_matches_routing<R: std::fmt::Debug>(
    path: &Path<R>,
    segments: &[&str],
    route: impl Fn(&str, &[&str]) -> ApiResult<R>,
    valid: impl Fn(&R) -> bool,
) {
    let allow = path.allow();
    for m in METHODS {
        let allowed = allow.split(", ").any(|a| a == m);
        match route(m, segments) {
            Ok(r) => assert!(
                allowed && valid(&r),
                "{m} {segments:?} routes to {r:?}; Allow is {allow}"
            ),
            Err(ApiError::MethodNotAllowed(a)) => {
                assert!(!allowed, "{m} {segments:?} is in Allow but does not route");
                assert_eq!(a, allow, "{m} {segments:?}");
            }
            Err(e) => panic!("{m} {segments:?}: {e:?}"),
        }
    }
}
