//! Imports in `src/` run one way: down the layer table below, never up and never sideways.
//!
//! Handlers, storage and the pure domain build on each other in one direction only, so each
//! layer can be read, tested and changed knowing only what sits beneath it, and the next
//! features land on a clean structure instead of a tangle. A file may use only layers strictly
//! below its own: never one above, never another folder of its own layer (api and public are
//! both handlers). Files of one folder may use each other, but never in a cycle.
//!
//! The scanner is std only: comments, strings and char literals are skipped, then every
//! `crate::` path (grouped `use` trees included) and every `super::` path, resolved against
//! the module it is written in, is checked. Inline modules such as `#[cfg(test)] mod tests`
//! add a level, so their `super::*` is the file itself. Bare `self::`/child paths are a
//! module's own children and are not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, top to bottom, and the folders of `src/` in each. Every top-level `src/*.rs`
/// (`lib.rs`, `auth.rs`, ...) that is not a folder's module file is the entry layer, and so
/// are the entry folders (`router/`, the request's steps): the entry layer is one unit,
/// whose files and folders may use each other (never in a cycle). A new top-level folder
/// fails the check until it is given a place here on purpose.
const LAYERS: &[(&str, &[&str])] = &[
    ("entry", &["router"]),
    ("handlers", &["api", "area", "public"]),
    // What a change does, whichever handler asked: shared by the doors, never one's own.
    ("ops", &["ops"]),
    ("durable", &["durable"]),
    ("store", &["store"]),
    ("http", &["http"]),     // leaf plumbing: App, errors, responses, parameters
    ("db", &["db"]),         // the request's D1 session: where reads start, bookmarks, timing
    ("js", &["js"]),         // runtime values into Rust (long strings through the encoder)
    ("domain", &["domain"]), // pure rules, unit-tested natively
];

/// Layers only some layers above may use. The HTTP plumbing serves requests (operations
/// run within one, on its `App`): storage and Durable Objects take plain values (an
/// `Env`, ids) instead, so they never depend on it.
const ONLY_FROM: &[(&str, &[&str])] = &[("http", &["entry", "handlers", "ops"])];

/// Crates of worker and JS types: the domain must build and test natively without them.
const NOT_IN_DOMAIN: &[&str] = &["worker", "wasm_bindgen", "js_sys", "web_sys"];

/// A source file: its path under `src/` and its module path (`domain/card.rs` -> `domain::card`).
struct File {
    path: String,
    module: Vec<String>,
    text: String,
}

fn file(path: &str, text: &str) -> File {
    let stem = path.strip_suffix(".rs").unwrap_or(path);
    let mut module: Vec<String> = stem.split('/').map(String::from).collect();
    if module.last().is_some_and(|m| m == "mod") || module == ["lib"] {
        module.pop();
    }
    let (path, text) = (path.into(), text.into());
    File { path, module, text }
}

/// A token and its line.
type Tok = (String, usize);

/// A crate path used on a line, made absolute (without `crate::`), and how it was written.
type Ref = (usize, Vec<String>, &'static str);

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// Identifiers, `::` and single punctuation characters with their lines. Comments (nested
/// block comments too), strings (raw, byte and C strings too) and char literals are skipped.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize, s: &str| c.iter().skip(i).take(s.len()).copied().eq(s.chars());
    let (mut toks, mut line, mut i) = (vec![], 1, 0);
    while i < c.len() {
        let start = i;
        let r = i + usize::from(at(i, "b") || at(i, "c")); // b"", br"", c"", r#""#
        let hashes = c.iter().skip(r + 1).take_while(|&&ch| ch == '#').count();
        let raw = at(r, "r") && at(r + 1 + hashes, "\"") && !(i > 0 && is_ident(c[i - 1]));
        if at(i, "//") {
            i = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < c.len() && (i == start || depth > 0) {
                let step = i32::from(at(i, "/*")) - i32::from(at(i, "*/"));
                depth += step;
                i += if step == 0 { 1 } else { 2 };
            }
        } else if raw {
            let close = format!("\"{}", "#".repeat(hashes));
            let end = (r + 2 + hashes..c.len()).find(|&j| at(j, &close));
            i = end.map_or(c.len(), |j| j + 1 + hashes);
        } else if at(i, "\"") {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += 1 + usize::from(c[i] == '\\');
            }
            i += 1;
        } else if at(i, "'") && (at(i + 1, "\\") || at(i + 2, "'")) {
            let end = (i + 2 + usize::from(at(i + 1, "\\"))..c.len()).find(|&j| c[j] == '\'');
            i = end.map_or(c.len(), |j| j + 1);
        } else if is_ident(c[i]) {
            i += c[i..].iter().take_while(|&&ch| is_ident(ch)).count();
            toks.push((c[start..i].iter().collect(), line));
        } else {
            i += 1 + usize::from(at(i, "::"));
            if !c[start].is_whitespace() {
                toks.push((c[start..i].iter().collect(), line));
            }
        }
        i = i.min(c.len());
        line += c[start..i].iter().filter(|&&ch| ch == '\n').count();
    }
    toks
}

/// Reads a path or `use` tree at `t[k..]` under `prefix`, pushes every path it names with
/// its line, and returns where it stopped.
fn tree(t: &[Tok], mut k: usize, prefix: &[String], out: &mut Vec<(Vec<String>, usize)>) -> usize {
    let tok = |k: usize| t.get(k).map_or("", |x| x.0.as_str());
    let (line, mut path) = (t.get(k).map_or(0, |x| x.1), prefix.to_vec());
    loop {
        match tok(k) {
            "{" => {
                k += 1;
                while !matches!(tok(k), "}" | "") {
                    match tok(k) {
                        "," => k += 1,
                        "as" => k += 2,
                        _ => k = tree(t, k, &path, out).max(k + 1),
                    }
                }
                return k + 1;
            }
            "self" => k += 1,
            id if id.starts_with(|ch: char| ch.is_alphabetic() || ch == '_') => {
                path.push(id.into());
                k += 1;
            }
            _ => break,
        }
        if tok(k) != "::" {
            break;
        }
        k += 1;
    }
    out.push((path, line));
    k
}

/// The crate paths a file uses, and the lines where it names a crate kept out of the domain.
fn uses(f: &File) -> (Vec<Ref>, Vec<Tok>) {
    let t = tokens(&f.text);
    let tok = |k: usize| t.get(k).map_or("", |x| x.0.as_str());
    let (mut refs, mut externs, mut inline) = (vec![], vec![], vec![]);
    let mut depth = 0usize;
    for k in 0..t.len() {
        let prev = if k > 0 { tok(k - 1) } else { "" };
        match tok(k) {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                inline.retain(|m: &(String, usize)| m.1 <= depth);
            }
            "mod" if tok(k + 2) == "{" => inline.push((tok(k + 1).to_string(), depth + 1)),
            "crate" | "super" if tok(k + 1) == "::" && prev != "::" => {
                let (mut base, mut j) = (f.module.clone(), k);
                base.extend(inline.iter().map(|m| m.0.clone()));
                while tok(j) == "super" && tok(j + 1) == "::" && base.pop().is_some() {
                    j += 2;
                }
                let via = if j == k { "" } else { " (via super::)" };
                if tok(k) == "crate" {
                    (base, j) = (vec![], k + 2);
                }
                let mut paths = vec![];
                tree(&t, j, &base, &mut paths);
                refs.extend(paths.into_iter().map(|(path, line)| (line, path, via)));
            }
            name if NOT_IN_DOMAIN.contains(&name)
                && !matches!(prev, "::" | ".")
                && (tok(k + 1) == "::" || matches!(prev, "use" | "crate" | "[")) =>
            {
                externs.push((name.to_string(), t[k].1));
            }
            _ => {}
        }
    }
    (refs, externs)
}

/// The layer index and folder of a module's first segment; `None` if it is not in the table.
fn place(first: Option<&String>, files: &[File]) -> Option<(usize, &'static str)> {
    let Some(first) = first else {
        return Some((0, ""));
    }; // the crate root
    for (i, (_, dirs)) in LAYERS.iter().enumerate() {
        if let Some(dir) = dirs.iter().find(|d| **d == first.as_str()) {
            // The entry layer is one unit: its folders are its files' neighbours.
            return Some((i, if i == 0 { "" } else { *dir }));
        }
    }
    let top_file = |f: &File| !f.path.contains('/') && f.module.first() == Some(first);
    files.iter().any(top_file).then_some((0, ""))
}

/// Whether layer `to` is kept from layer `from` by [`ONLY_FROM`].
fn reserved(from: usize, to: usize) -> bool {
    ONLY_FROM
        .iter()
        .any(|(l, users)| *l == LAYERS[to].0 && !users.contains(&LAYERS[from].0))
}

/// Every import that runs up or crosses sideways, every worker crate named in the domain, and
/// every module outside the layer table; one finding per line and target folder.
fn layer_violations(files: &[File]) -> Vec<String> {
    let name = |(l, dir): (usize, &str)| {
        let dir = if dir.is_empty() { "entry" } else { dir };
        format!("{dir} (layer {}, {})", l + 1, LAYERS[l].0)
    };
    let mut out = vec![];
    for f in files {
        let (file, top) = (&f.path, f.module.first());
        let Some(from) = place(top, files) else {
            let top = top.unwrap();
            out.push(format!("src/{file}: folder `{top}` is not in LAYERS"));
            continue;
        };
        let (refs, externs) = uses(f);
        for (krate, line) in externs.iter().filter(|_| LAYERS[from.0].0 == "domain") {
            let why = "in domain (no worker types)";
            out.push(format!("src/{file}:{line}: `{krate}` {why}"));
        }
        let mut seen = BTreeSet::new();
        for (line, path, via) in refs
            .iter()
            .filter(|r| seen.insert((r.0, r.1.first().cloned())))
        {
            let here = format!("src/{file}:{line}: crate::{}{via}", path.join("::"));
            let (verb, to) = match place(path.first(), files) {
                None => {
                    out.push(format!("{here}: `{}` is not in LAYERS", path[0]));
                    continue;
                }
                Some(to) if to.1 == from.1 => continue,
                Some(to) if to.0 > from.0 && !reserved(from.0, to.0) => continue,
                Some(to) if to.0 > from.0 => ("reaches for request plumbing", to),
                Some(to) if to.0 < from.0 => ("runs up", to),
                Some(to) => ("crosses sideways", to),
            };
            out.push(format!("{here} {verb} from {} to {}", name(from), name(to)));
        }
    }
    out
}

/// Cycles between files of one folder, each listed with the uses that close it.
fn cycles(files: &[File]) -> Vec<String> {
    let find = |p: &[String]| files.iter().position(|f| f.module == p);
    let owner = |p: &[String]| (0..=p.len()).rev().find_map(|n| find(&p[..n]));
    let mut edges: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        for (line, path, _) in uses(f).0 {
            let Some(j) = owner(&path) else { continue };
            let same_dir = place(files[j].module.first(), files) == place(f.module.first(), files);
            // A module using itself or its own children is structure, not a dependency.
            if same_dir && !files[j].module.starts_with(&f.module) {
                edges.entry((i, j)).or_insert(line);
            }
        }
    }
    let reach = |from: usize| {
        let (mut seen, mut todo) = (BTreeSet::new(), vec![from]);
        while let Some(n) = todo.pop() {
            let next: Vec<usize> = edges.keys().filter(|e| e.0 == n).map(|e| e.1).collect();
            todo.extend(next.into_iter().filter(|&m| seen.insert(m)));
        }
        seen
    };
    let reaches: Vec<BTreeSet<usize>> = (0..files.len()).map(reach).collect();
    let mutual = |i: usize| {
        reaches[i]
            .iter()
            .filter(|j| reaches[**j].contains(&i))
            .collect()
    };
    let sccs: BTreeSet<Vec<&usize>> = (0..files.len()).map(mutual).collect();
    let src = |j: &usize| format!("src/{}", files[*j].path);
    let mut out = vec![];
    for scc in sccs.iter().filter(|scc| scc.len() > 1) {
        let names: Vec<String> = scc.iter().map(|j| src(j)).collect();
        let mut msg = format!("cycle between {}:", names.join(", "));
        for ((a, b), line) in edges
            .iter()
            .filter(|(e, _)| scc.contains(&&e.0) && scc.contains(&&e.1))
        {
            msg += &format!("\n    {}:{line} uses {}", src(a), src(b));
        }
        out.push(msg);
    }
    out
}

fn fail_on(found: &[String], what: &str) {
    let layer = |(l, dirs): &(&str, &[&str])| match dirs.len() {
        0 => format!("{l} [top-level src/*.rs]"),
        _ => format!("{l} [{}]", dirs.join(", ")),
    };
    let order: Vec<String> = LAYERS.iter().map(layer).collect();
    let (n, list, order) = (found.len(), found.join("\n  "), order.join(" > "));
    assert!(
        found.is_empty(),
        "{n} {what}:\n  {list}\n\nLayers, top to bottom: {order}.\nA file may use only layers \
         strictly below its own (http only from entry, handlers and ops); the folders of one layer \
         must not use each other, and files of one folder not in a cycle; domain names no worker, wasm_bindgen, js_sys or web_sys.\n\
         Move code down to the lowest layer that needs it, or pass values in from the caller; a \
         new top-level folder gets its place in LAYERS (tests/layers.rs) on purpose.\n"
    );
}

fn load(dir: &Path, under: &str, files: &mut Vec<File>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let p = entry.expect("a directory entry").path();
        let rel = format!("{under}{}", p.file_name().unwrap().to_string_lossy());
        if p.is_dir() {
            load(&p, &format!("{rel}/"), files);
        } else if rel.ends_with(".rs") {
            let text = std::fs::read_to_string(&p).expect("a readable file");
            files.push(file(&rel, &text));
        }
    }
}

fn source_tree() -> Vec<File> {
    let mut files = vec![];
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut files,
    );
    files.sort_by(|a, b| a.path.cmp(&b.path));
    assert!(
        files.iter().any(|f| f.path == "lib.rs"),
        "no src/lib.rs found"
    );
    files
}

#[test]
fn imports_run_one_way() {
    let found = layer_violations(&source_tree());
    fail_on(&found, "import(s) break the layering");
}

#[test]
fn no_cycles_within_a_layer() {
    let found = cycles(&source_tree());
    fail_on(&found, "cycle(s) between files of one folder");
}

// The checker checks itself: a rule that cannot fail is a defect.

fn fake(files: &[(&str, &str)]) -> Vec<File> {
    files.iter().map(|(p, t)| file(p, t)).collect()
}

/// Layer findings for fake files, each cut to `file:line: path verb`.
fn check(files: &[(&str, &str)]) -> Vec<String> {
    let cut = |m: &String| m.split(" from ").next().unwrap().to_string();
    layer_violations(&fake(files)).iter().map(cut).collect()
}

#[test]
fn catches_an_upward_use_in_domain() {
    let found = check(&[("domain/card.rs", "use crate::http::App;")]);
    assert_eq!(found, ["src/domain/card.rs:1: crate::http::App runs up"]);
}

#[test]
fn catches_a_grouped_use_across_lines() {
    let store = "use crate::{\n    domain::x,\n    api::{y, z::{self, W}},\n    http::App,\n    durable::D,\n};";
    let found = check(&[("store/mod.rs", store)]);
    let up = [
        "src/store/mod.rs:3: crate::api::y runs up",
        "src/store/mod.rs:4: crate::http::App reaches for request plumbing",
        "src/store/mod.rs:5: crate::durable::D runs up",
    ];
    assert_eq!(found, up);
    let api = check(&[("api/cards.rs", "use crate::http::App;")]);
    assert!(api.is_empty(), "handlers may use the plumbing: {api:?}");
}

#[test]
fn resolves_super_across_folders() {
    let found = check(&[
        (
            "api/cards.rs",
            "fn f() {\n    super::super::public::page::render();\n}",
        ),
        ("store/mod.rs", "use super::durable::Gate;"), // in a folder's mod.rs, super is its parent
        (
            "durable/a/b.rs",
            "use super::c::E;\nuse super::super::super::{store::x, api::h};",
        ),
    ]);
    let expected = [
        "src/api/cards.rs:2: crate::public::page::render (via super::) crosses sideways",
        "src/store/mod.rs:1: crate::durable::Gate (via super::) runs up",
        "src/durable/a/b.rs:2: crate::api::h (via super::) runs up",
    ];
    assert_eq!(found, expected);
}

#[test]
fn catches_worker_types_in_domain_only() {
    let code =
        "use worker::Env;\nfn now() -> f64 { js_sys::Date::now() }\n#[wasm_bindgen]\nfn g() {}";
    let expected = [
        "src/domain/time.rs:1: `worker` in domain (no worker types)",
        "src/domain/time.rs:2: `js_sys` in domain (no worker types)",
        "src/domain/time.rs:3: `wasm_bindgen` in domain (no worker types)",
    ];
    assert_eq!(
        check(&[("domain/time.rs", code), ("http/mod.rs", code)]),
        expected
    );
}

#[test]
fn catches_a_two_file_cycle_but_not_a_folder_using_its_children() {
    let found = cycles(&fake(&[
        ("domain/card.rs", "use super::lead::Lead;"),
        ("domain/lead.rs", "\nuse crate::domain::card::CardSummary;"),
        ("domain/time.rs", "use super::card::Card;"),
        (
            "store/mod.rs",
            "pub mod cards;\npub use cards::X;\nuse crate::store::cards::Y;",
        ),
        ("store/cards.rs", "use super::{first, int};"),
    ]));
    let expected = "cycle between src/domain/card.rs, src/domain/lead.rs:\n    \
                    src/domain/card.rs:1 uses src/domain/lead.rs\n    \
                    src/domain/lead.rs:2 uses src/domain/card.rs";
    assert_eq!(found, [expected]);
}

#[test]
fn ignores_comments_strings_and_test_supers() {
    let code = r##"//! See crate::http for the App.
/// Unlike crate::api, this is pure.
/* crate::store /* nested: crate::durable */ still a comment: crate::api */
fn f<'a>(s: &'a str) -> char {
    let _ = ("crate::http::App", r#"use crate::api; "q""#, b"crate::store", '"', '\'');
    '{'
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lead::x;
}
use crate::http::App;
"##;
    // In a folder's mod.rs, a test module's `super::*` is the folder, not the crate root.
    let store = "#[cfg(test)]\nmod tests {\n    use super::*;\n}";
    let found = check(&[("domain/card.rs", code), ("store/mod.rs", store)]);
    assert_eq!(found, ["src/domain/card.rs:13: crate::http::App runs up"]);
}

#[test]
fn places_entry_files_and_refuses_unknown_folders() {
    let found = check(&[
        (
            "lib.rs",
            "use crate::router::f;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}",
        ),
        ("router/mod.rs", "use crate::auth::x;\nuse crate::api::y;"),
        (
            "router/route.rs",
            "use super::admission::a;\nuse crate::upkeep::u;",
        ),
        ("auth.rs", "use crate::router::route::Route;"),
        ("upkeep.rs", ""),
        ("api/mod.rs", "use crate::router::z;\nuse crate::jobs::J;"),
        ("jobs/mod.rs", ""),
    ]);
    let expected = [
        "src/api/mod.rs:1: crate::router::z runs up",
        "src/api/mod.rs:2: crate::jobs::J: `jobs` is not in LAYERS",
        "src/jobs/mod.rs: folder `jobs` is not in LAYERS",
    ];
    assert_eq!(found, expected);
    // One unit, but still no cycles: router/ and auth.rs using each other is one.
    let cycle = cycles(&fake(&[
        ("router/mod.rs", "use crate::auth::x;"),
        ("auth.rs", "use crate::router::route::Route;"),
    ]));
    assert_eq!(cycle.len(), 1, "{cycle:?}");
}
