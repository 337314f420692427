//! Data regions (regions.md): where an account's data lives. A region is a D1 location hint
//! or a jurisdiction; the worker var `SHARDS` lists the shard bindings with their regions.
//! Everything here is pure: the config layer hands in the var and the names of the
//! bindings the worker has, and gets back the topology or the error that names the fault.

use std::fmt;

/// A D1 location hint (`wrangler d1 create --location`) or a jurisdiction (`--jurisdiction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    Wnam,
    Enam,
    Weur,
    Eeur,
    Apac,
    Oc,
    Eu,
    Fedramp,
}

impl Region {
    pub const ALL: [Region; 8] = [
        Region::Wnam,
        Region::Enam,
        Region::Weur,
        Region::Eeur,
        Region::Apac,
        Region::Oc,
        Region::Eu,
        Region::Fedramp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Region::Wnam => "wnam",
            Region::Enam => "enam",
            Region::Weur => "weur",
            Region::Eeur => "eeur",
            Region::Apac => "apac",
            Region::Oc => "oc",
            Region::Eu => "eu",
            Region::Fedramp => "fedramp",
        }
    }

    pub fn parse(s: &str) -> Option<Region> {
        Region::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The jurisdiction data of this region is confined to, if it is one: D1 shards are
    /// created in it, and so are the account's Durable Objects that hold personal data
    /// (the analytics aggregator and the card throttles).
    pub fn jurisdiction(self) -> Option<&'static str> {
        match self {
            Region::Eu => Some("eu"),
            Region::Fedramp => Some("fedramp"),
            Region::Wnam
            | Region::Enam
            | Region::Weur
            | Region::Eeur
            | Region::Apac
            | Region::Oc => None,
        }
    }
}

/// The jurisdiction an account's Durable Objects that hold personal data (its analytics
/// aggregator, its cards' throttles) are created in: its region's, unless `enabled`
/// (`Config::durable_object_jurisdictions`) is off, as it is locally. `None`: anywhere.
pub fn object_jurisdiction(region: Region, enabled: bool) -> Option<&'static str> {
    region.jurisdiction().filter(|_| enabled)
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Bindings named `SHARD_*` are shards; `SHARDS` must name every one of them.
pub const SHARD_PREFIX: &str = "SHARD_";

/// One shard: its D1 binding and its region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    pub binding: String,
    pub region: Region,
}

/// The configured shards, in `SHARDS` order, and the region of accounts created without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    pub shards: Vec<Shard>,
    pub default_region: Region,
}

impl Topology {
    /// `shards` is the var `SHARDS` (`BINDING=region,...`), `default_region` the var
    /// `DEFAULT_DATA_REGION`, `bindings` the names of every binding the worker has. An error
    /// names what is wrong: the worker answers 500 with it and the preflight refuses it.
    pub fn parse(
        shards: Option<&str>,
        default_region: Option<&str>,
        bindings: &[String],
    ) -> Result<Topology, String> {
        let text = shards.map(str::trim).filter(|s| !s.is_empty()).ok_or(
            "SHARDS is not set: it lists the shard bindings and their regions, \
             e.g. SHARD_WNAM_1=wnam,SHARD_EU_1=eu",
        )?;
        let mut list: Vec<Shard> = vec![];
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (binding, region) = entry
                .split_once('=')
                .map(|(b, r)| (b.trim(), r.trim()))
                .ok_or_else(|| format!("SHARDS entry {entry:?} is not BINDING=region"))?;
            if !binding.starts_with(SHARD_PREFIX) || binding.len() == SHARD_PREFIX.len() {
                return Err(format!(
                    "SHARDS names {binding:?}: shard bindings are named {SHARD_PREFIX}*"
                ));
            }
            let region = Region::parse(region).ok_or_else(|| {
                format!(
                    "SHARDS gives {binding} the region {region:?}, which is none of {}",
                    region_names()
                )
            })?;
            if list.iter().any(|s| s.binding == binding) {
                return Err(format!("SHARDS names {binding} twice"));
            }
            if !bindings.iter().any(|b| b == binding) {
                return Err(format!(
                    "SHARDS names {binding}, but the worker has no such D1 binding"
                ));
            }
            list.push(Shard {
                binding: binding.to_string(),
                region,
            });
        }
        if list.is_empty() {
            return Err("SHARDS names no shard".into());
        }
        let mut unlisted: Vec<&String> = bindings
            .iter()
            .filter(|b| b.starts_with(SHARD_PREFIX) && !list.iter().any(|s| &s.binding == *b))
            .collect();
        unlisted.sort();
        if let Some(b) = unlisted.first() {
            return Err(format!(
                "the worker has the D1 binding {b}, which SHARDS does not name \
                 (add it with its region, or remove the binding)"
            ));
        }
        let default_region = match default_region.map(str::trim).filter(|s| !s.is_empty()) {
            None => list[0].region,
            Some(r) => Region::parse(r).ok_or_else(|| {
                format!("DEFAULT_DATA_REGION {r:?} is none of {}", region_names())
            })?,
        };
        let topology = Topology {
            shards: list,
            default_region,
        };
        if topology.in_region(default_region).next().is_none() {
            return Err(format!(
                "DEFAULT_DATA_REGION is {default_region}, but SHARDS has no shard there"
            ));
        }
        Ok(topology)
    }

    /// The shards of a region, in `SHARDS` order.
    pub fn in_region(&self, region: Region) -> impl Iterator<Item = &Shard> {
        self.shards.iter().filter(move |s| s.region == region)
    }

    /// The regions that have shards, in the order they first appear in `SHARDS`.
    pub fn regions(&self) -> Vec<Region> {
        let mut out: Vec<Region> = vec![];
        for s in &self.shards {
            if !out.contains(&s.region) {
                out.push(s.region);
            }
        }
        out
    }

    pub fn shard(&self, binding: &str) -> Option<&Shard> {
        self.shards.iter().find(|s| s.binding == binding)
    }

    /// Where a new (or moving) account of `region` goes: the region's shard with the fewest
    /// accounts (`accounts` gives each shard's count; missing is 0), the first listed on a
    /// tie. `None`: no shard in that region.
    pub fn place(&self, region: Region, accounts: impl Fn(&str) -> i64) -> Option<&Shard> {
        self.in_region(region)
            .enumerate()
            .min_by_key(|(i, s)| (accounts(&s.binding), *i))
            .map(|(_, s)| s)
    }
}

fn region_names() -> String {
    Region::ALL.map(Region::as_str).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: &str =
        "SHARD_WNAM_1=wnam,SHARD_WNAM_2=wnam,SHARD_WEUR_1=weur,SHARD_EU_1=eu,SHARD_APAC_1=apac";

    fn bindings(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn local_bindings() -> Vec<String> {
        bindings(&[
            "DIRECTORY",
            "SHARD_WNAM_1",
            "SHARD_WNAM_2",
            "SHARD_WEUR_1",
            "SHARD_EU_1",
            "SHARD_APAC_1",
            "ANALYTICS",
        ])
    }

    #[test]
    fn regions_round_trip_and_only_two_are_jurisdictions() {
        for r in Region::ALL {
            assert_eq!(Region::parse(r.as_str()), Some(r));
        }
        assert_eq!(Region::parse("EU"), None);
        let jurisdictions: Vec<_> = Region::ALL
            .iter()
            .filter_map(|r| r.jurisdiction())
            .collect();
        assert_eq!(jurisdictions, ["eu", "fedramp"]);
    }

    #[test]
    fn objects_go_to_the_jurisdiction_only_when_enabled() {
        for r in Region::ALL {
            let expected = match r {
                Region::Eu => Some("eu"),
                Region::Fedramp => Some("fedramp"),
                _ => None,
            };
            assert_eq!(object_jurisdiction(r, true), expected, "{r} enabled");
            assert_eq!(object_jurisdiction(r, false), None, "{r} disabled");
        }
    }

    #[test]
    fn the_local_topology_parses() {
        let t = Topology::parse(Some(LOCAL), Some("wnam"), &local_bindings()).unwrap();
        assert_eq!(t.shards.len(), 5);
        assert_eq!(t.default_region, Region::Wnam);
        assert_eq!(
            t.regions(),
            [Region::Wnam, Region::Weur, Region::Eu, Region::Apac]
        );
        assert_eq!(t.shard("SHARD_EU_1").map(|s| s.region), Some(Region::Eu));
    }

    #[test]
    fn configuration_errors_name_the_binding() {
        let cases: [(&str, &[&str], &str); 7] = [
            ("", &["SHARD_A"], "SHARDS is not set"),
            (
                "SHARD_A=wnam",
                &[],
                "SHARD_A, but the worker has no such D1 binding",
            ),
            (
                "SHARD_A=wnam",
                &["SHARD_A", "SHARD_B"],
                "binding SHARD_B, which SHARDS does not name",
            ),
            ("SHARD_A=mars", &["SHARD_A"], "region \"mars\""),
            ("SHARD_A=wnam,SHARD_A=eu", &["SHARD_A"], "SHARD_A twice"),
            ("DB=wnam", &["DB"], "shard bindings are named SHARD_*"),
            ("SHARD_A", &["SHARD_A"], "is not BINDING=region"),
        ];
        for (shards, names, expected) in cases {
            let err = Topology::parse(Some(shards), None, &bindings(names)).unwrap_err();
            assert!(err.contains(expected), "{shards:?}: {err}");
        }
        let err =
            Topology::parse(Some("SHARD_A=wnam"), Some("eu"), &bindings(&["SHARD_A"])).unwrap_err();
        assert!(err.contains("no shard there"), "{err}");
    }

    #[test]
    fn the_default_region_is_the_first_listed_when_unset() {
        let t = Topology::parse(
            Some("SHARD_E=eu,SHARD_W=wnam"),
            None,
            &bindings(&["SHARD_E", "SHARD_W"]),
        )
        .unwrap();
        assert_eq!(t.default_region, Region::Eu);
    }

    #[test]
    fn placement_takes_the_emptiest_shard_and_the_first_on_a_tie() {
        let t = Topology::parse(Some(LOCAL), None, &local_bindings()).unwrap();
        let count = |n1: i64, n2: i64| {
            move |b: &str| match b {
                "SHARD_WNAM_1" => n1,
                "SHARD_WNAM_2" => n2,
                _ => 99,
            }
        };
        assert_eq!(
            t.place(Region::Wnam, count(0, 0)).unwrap().binding,
            "SHARD_WNAM_1"
        );
        assert_eq!(
            t.place(Region::Wnam, count(3, 2)).unwrap().binding,
            "SHARD_WNAM_2"
        );
        assert_eq!(
            t.place(Region::Wnam, count(2, 3)).unwrap().binding,
            "SHARD_WNAM_1"
        );
        assert_eq!(
            t.place(Region::Eu, count(0, 0)).unwrap().binding,
            "SHARD_EU_1"
        );
        assert!(t.place(Region::Oc, count(0, 0)).is_none());
    }
}
