//! SCIM filters (RFC 7644 3.4.2.2): parsed once, then either compiled to a parameterised
//! SQL condition over the card columns (`GET /Users?filter=`), or evaluated on a User's
//! JSON (a PATCH path's value filter, `emails[type eq "work"]`). The grammar is the RFC's:
//! `eq ne co sw ew gt ge lt le pr`, `and` (binding tighter) and `or`, `not (...)`,
//! parentheses, value paths `attr[...]`, and the `attr[...].sub op value` form Entra ID
//! sends. Keywords and attribute names are case-insensitive.

use serde_json::Value;

use super::user::{canonical_name, strip_urn};
use super::{ScimError, ENTERPRISE, USER};
use crate::domain::time::parse_iso8601;

/// The longest filter read, and the deepest nesting: a filter is a lookup, not a program.
const MAX_LEN: usize = 1000;
const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Co,
    Sw,
    Ew,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn parse(word: &str) -> Option<Op> {
        const OPS: [(&str, Op); 9] = [
            ("eq", Op::Eq),
            ("ne", Op::Ne),
            ("co", Op::Co),
            ("sw", Op::Sw),
            ("ew", Op::Ew),
            ("gt", Op::Gt),
            ("ge", Op::Ge),
            ("lt", Op::Lt),
            ("le", Op::Le),
        ];
        OPS.iter()
            .find(|(w, _)| w.eq_ignore_ascii_case(word))
            .map(|(_, op)| *op)
    }
}

/// An attribute path: an attribute (its canonical name when this service keeps it, else
/// as written) and maybe a sub-attribute (`name.givenName`, `meta.created`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrPath {
    pub attr: String,
    pub sub: Option<String>,
}

impl AttrPath {
    /// Reads `name`, `name.sub`, and either with the User or enterprise schema's URN.
    pub fn parse(text: &str) -> Option<AttrPath> {
        let prefixed = |urn: &str| strip_urn(text, urn);
        if let Some(sub) = prefixed(ENTERPRISE) {
            return valid(sub).then(|| AttrPath {
                attr: ENTERPRISE.into(),
                sub: Some(sub.into()),
            });
        }
        if text.eq_ignore_ascii_case(ENTERPRISE) {
            return Some(AttrPath {
                attr: ENTERPRISE.into(),
                sub: None,
            });
        }
        let rest = prefixed(USER).unwrap_or(text);
        let (attr, sub) = match rest.split_once('.') {
            Some((a, s)) => (a, Some(s)),
            None => (rest, None),
        };
        if !valid(attr) || !sub.is_none_or(valid) {
            return None;
        }
        let attr = canonical_name(attr).map_or_else(|| attr.to_string(), str::to_string);
        Some(AttrPath {
            attr,
            sub: sub.map(str::to_string),
        })
    }

    fn is(&self, attr: &str, sub: Option<&str>) -> bool {
        self.attr.eq_ignore_ascii_case(attr)
            && match (&self.sub, sub) {
                (None, None) => true,
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                _ => false,
            }
    }
}

/// RFC 7643 2.1's ATTRNAME: a letter, then letters, digits, `_`, `-`, `$`.
fn valid(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-$".contains(c))
}

#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    Compare(AttrPath, Op, Value),
    Present(AttrPath),
    And(Box<Filter>, Box<Filter>),
    Or(Box<Filter>, Box<Filter>),
    Not(Box<Filter>),
    /// `attr[filter]`: some value of a multi-valued attribute matches the inner filter,
    /// whose paths are the value's sub-attributes.
    Within(String, Box<Filter>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    OpenBracket,
    CloseBracket,
    /// A word: a keyword, an attribute path, `true`/`false`/`null`, or a number.
    Word(String),
    Str(String),
    /// `].sub`: the sub-attribute after a value path.
    After(String),
}

fn lex(text: &str) -> Result<Vec<(usize, Tok)>, ScimError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let at = i;
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'(' => out.push((at, Tok::Open)),
            b')' => out.push((at, Tok::Close)),
            b'[' => out.push((at, Tok::OpenBracket)),
            b']' => {
                out.push((at, Tok::CloseBracket));
                if bytes.get(i + 1) == Some(&b'.') {
                    let start = i + 2;
                    let end = word_end(bytes, start);
                    out.push((start, Tok::After(text[start..end].to_string())));
                    i = end;
                    continue;
                }
            }
            b'"' => {
                // A JSON string: serde reads its escapes.
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let s = text
                    .get(i..=j)
                    .and_then(|lit| match serde_json::from_str(lit) {
                        Ok(Value::String(s)) => Some(s),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        ScimError::invalid_filter(format!("unterminated string at {at}"))
                    })?;
                out.push((at, Tok::Str(s)));
                i = j + 1;
                continue;
            }
            _ => {
                let end = word_end(bytes, i);
                if end == i {
                    return Err(ScimError::invalid_filter(format!(
                        "unexpected \"{}\" at {at}",
                        &text[i..].chars().next().unwrap_or(' ')
                    )));
                }
                out.push((at, Tok::Word(text[i..end].to_string())));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    Ok(out)
}

fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut j = start;
    while j < bytes.len() && !b" \t\r\n()[]\"".contains(&bytes[j]) {
        j += 1;
    }
    j
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    at: usize,
    len: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(_, t)| t)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(self.len, |(p, _)| *p)
    }

    fn keyword(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(k))
    }

    fn fail<T>(&self, what: &str) -> Result<T, ScimError> {
        Err(ScimError::invalid_filter(format!(
            "{what} at {}",
            self.pos()
        )))
    }

    fn or(&mut self, depth: usize) -> Result<Filter, ScimError> {
        if depth > MAX_DEPTH {
            return self.fail("nested too deeply");
        }
        let mut left = self.and(depth)?;
        while self.keyword("or") {
            self.at += 1;
            left = Filter::Or(Box::new(left), Box::new(self.and(depth)?));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Filter, ScimError> {
        let mut left = self.unary(depth)?;
        while self.keyword("and") {
            self.at += 1;
            left = Filter::And(Box::new(left), Box::new(self.unary(depth)?));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Filter, ScimError> {
        if self.keyword("not") {
            self.at += 1;
            if self.peek() != Some(&Tok::Open) {
                return self.fail("expected \"(\" after not");
            }
            return Ok(Filter::Not(Box::new(self.unary(depth + 1)?)));
        }
        if self.peek() == Some(&Tok::Open) {
            self.at += 1;
            let inner = self.or(depth + 1)?;
            if self.peek() != Some(&Tok::Close) {
                return self.fail("expected \")\"");
            }
            self.at += 1;
            return Ok(inner);
        }
        let Some(Tok::Word(word)) = self.peek().cloned() else {
            return self.fail("expected an attribute");
        };
        let Some(path) = AttrPath::parse(&word) else {
            return self.fail(&format!("\"{word}\" is no attribute path"));
        };
        self.at += 1;
        if self.peek() == Some(&Tok::OpenBracket) {
            self.at += 1;
            let inner = self.or(depth + 1)?;
            if self.peek() != Some(&Tok::CloseBracket) {
                return self.fail("expected \"]\"");
            }
            self.at += 1;
            // Entra ID's `emails[type eq "work"].value eq "x"`: the comparison joins the
            // value filter.
            if let Some(Tok::After(sub)) = self.peek().cloned() {
                self.at += 1;
                let Some(p) = AttrPath::parse(&sub).filter(|p| p.sub.is_none()) else {
                    return self.fail(&format!("\"{sub}\" is no sub-attribute"));
                };
                let tail = self.comparison(p)?;
                return Ok(Filter::Within(
                    path.attr,
                    Box::new(Filter::And(Box::new(inner), Box::new(tail))),
                ));
            }
            return Ok(Filter::Within(path.attr, Box::new(inner)));
        }
        self.comparison(path)
    }

    fn comparison(&mut self, path: AttrPath) -> Result<Filter, ScimError> {
        let Some(Tok::Word(op)) = self.peek().cloned() else {
            return self.fail("expected an operator");
        };
        self.at += 1;
        if op.eq_ignore_ascii_case("pr") {
            return Ok(Filter::Present(path));
        }
        let Some(op) = Op::parse(&op) else {
            return self.fail(&format!("\"{op}\" is no operator"));
        };
        let value = match self.peek().cloned() {
            Some(Tok::Str(s)) => Value::String(s),
            Some(Tok::Word(w)) => match w.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" => Value::Null,
                _ => match w.parse::<i64>() {
                    Ok(n) => Value::from(n),
                    Err(_) => return self.fail(&format!("\"{w}\" is no value")),
                },
            },
            _ => return self.fail("expected a value"),
        };
        self.at += 1;
        Ok(Filter::Compare(path, op, value))
    }
}

/// Reads a filter; `invalidFilter` with the place where it stopped making sense.
pub fn parse(text: &str) -> Result<Filter, ScimError> {
    if text.len() > MAX_LEN {
        return Err(ScimError::invalid_filter(format!(
            "a filter has at most {MAX_LEN} characters"
        )));
    }
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        at: 0,
        len: text.len(),
    };
    let f = p.or(0)?;
    if p.at < p.toks.len() {
        return p.fail("unexpected text");
    }
    Ok(f)
}

/// Attributes whose strings compare case-sensitively (RFC 7643 `caseExact`).
fn case_exact(path: &AttrPath) -> bool {
    path.is("id", None) || path.is("externalId", None) || path.attr.eq_ignore_ascii_case("meta")
}

/// The values a path reaches in a JSON resource: each value of a multi-valued attribute
/// (its `value`, or the named sub-attribute).
fn reach<'a>(resource: &'a Value, path: &AttrPath) -> Vec<&'a Value> {
    let Some(obj) = resource.as_object() else {
        return vec![];
    };
    let Some(v) = obj
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(&path.attr))
        .map(|(_, v)| v)
    else {
        return vec![];
    };
    let sub = |v: &'a Value, name: &str| -> Option<&'a Value> {
        v.as_object()?
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    };
    match (v, &path.sub) {
        (Value::Array(items), Some(s)) => items.iter().filter_map(|i| sub(i, s)).collect(),
        (Value::Array(items), None) => items
            .iter()
            .filter_map(|i| {
                if i.is_object() {
                    sub(i, "value")
                } else {
                    Some(i)
                }
            })
            .collect(),
        (v, Some(s)) => sub(v, s).into_iter().collect(),
        (v, None) => vec![v],
    }
}

fn compare(have: &Value, op: Op, want: &Value, exact: bool) -> bool {
    match (have, want) {
        (Value::String(h), Value::String(w)) => {
            let (h, w) = if exact {
                (h.clone(), w.clone())
            } else {
                // ASCII, as SQLite's NOCASE and lower() compare in the lists.
                (h.to_ascii_lowercase(), w.to_ascii_lowercase())
            };
            match op {
                Op::Eq => h == w,
                Op::Ne => h != w,
                Op::Co => h.contains(&w),
                Op::Sw => h.starts_with(&w),
                Op::Ew => h.ends_with(&w),
                Op::Gt => h > w,
                Op::Ge => h >= w,
                Op::Lt => h < w,
                Op::Le => h <= w,
            }
        }
        (Value::Number(h), Value::Number(w)) => {
            let (h, w) = (h.as_f64().unwrap_or(0.0), w.as_f64().unwrap_or(0.0));
            match op {
                Op::Eq => h == w,
                Op::Ne => h != w,
                Op::Gt => h > w,
                Op::Ge => h >= w,
                Op::Lt => h < w,
                Op::Le => h <= w,
                Op::Co | Op::Sw | Op::Ew => false,
            }
        }
        (h, w) => match op {
            Op::Eq => h == w,
            Op::Ne => h != w,
            _ => false,
        },
    }
}

impl Filter {
    /// Whether a JSON resource (a User, or one value of a multi-valued attribute)
    /// matches.
    pub fn matches(&self, resource: &Value) -> bool {
        match self {
            Filter::Compare(path, op, want) => {
                let values = reach(resource, path);
                let exact = case_exact(path);
                match op {
                    // Not equal: no value equals (none present included).
                    Op::Ne => !values.iter().any(|v| compare(v, Op::Eq, want, exact)),
                    _ => values.iter().any(|v| compare(v, *op, want, exact)),
                }
            }
            Filter::Present(path) => reach(resource, path).iter().any(|v| match v {
                Value::Null => false,
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
                _ => true,
            }),
            Filter::And(a, b) => a.matches(resource) && b.matches(resource),
            Filter::Or(a, b) => a.matches(resource) || b.matches(resource),
            Filter::Not(f) => !f.matches(resource),
            Filter::Within(attr, f) => resource
                .as_object()
                .and_then(|o| o.iter().find(|(k, _)| k.eq_ignore_ascii_case(attr)))
                .and_then(|(_, v)| v.as_array())
                .is_some_and(|items| items.iter().any(|i| f.matches(i))),
        }
    }
}

/// A filter as a condition on the `cards` table: SQL text with `?N` parameters only
/// (never a client's text), and the values they are bound to, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlFilter {
    pub sql: String,
    pub args: Vec<SqlArg>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SqlArg {
    Text(String),
    Int(i64),
}

/// How a filterable attribute is stored.
#[derive(Clone, Copy)]
enum Column {
    /// Text compared in any case (SQLite's NOCASE and lower(): ASCII).
    Text(&'static str),
    /// Text compared exactly.
    Exact(&'static str),
    /// An integer (the card id).
    Id,
    /// Unix milliseconds compared with an ISO 8601 value.
    Time(&'static str),
    /// `status = 'active'`, compared with a boolean.
    Active,
    /// A value only one value of the card's can have (the type of its one email is
    /// `work`, and it is primary): compared as a constant.
    Constant(&'static str),
}

/// The card column a filter's attribute is, where it is one. The value filter of
/// `emails[...]` reads the card's one email (`within`).
fn column(path: &AttrPath, within: Option<&str>) -> Option<Column> {
    if let Some(attr) = within {
        if !attr.eq_ignore_ascii_case("emails") {
            return None;
        }
        let sub = AttrPath {
            attr: "emails".into(),
            sub: Some(path.attr.clone()),
        };
        return column(&sub, None);
    }
    const COLUMNS: [(&str, Option<&str>, Column); 13] = [
        ("id", None, Column::Id),
        ("userName", None, Column::Text("scim_user_name")),
        ("externalId", None, Column::Exact("external_id")),
        ("emails", None, Column::Text("email")),
        ("emails", Some("value"), Column::Text("email")),
        ("emails", Some("type"), Column::Constant("work")),
        (
            "displayName",
            None,
            Column::Text("iif(scim_user IS NULL, title, json_extract(scim_user, '$.displayName'))"),
        ),
        ("name", Some("givenName"), Column::Text("first_name")),
        ("name", Some("familyName"), Column::Text("last_name")),
        ("title", None, Column::Text("job_title")),
        ("active", None, Column::Active),
        ("meta", Some("created"), Column::Time("created_at")),
        ("meta", Some("lastModified"), Column::Time("updated_at")),
    ];
    COLUMNS
        .iter()
        .find(|(a, s, _)| path.is(a, *s))
        .map(|(_, _, c)| *c)
}

fn name(path: &AttrPath) -> String {
    match &path.sub {
        Some(s) => format!("{}.{s}", path.attr),
        None => path.attr.clone(),
    }
}

impl Filter {
    /// The condition, its parameters numbered from `?{first}`. A filter on what the cards
    /// do not keep is an `invalidFilter` naming it.
    pub fn to_sql(&self, first: usize) -> Result<SqlFilter, ScimError> {
        let mut args = Vec::new();
        let sql = self.sql(first, None, &mut args)?;
        Ok(SqlFilter { sql, args })
    }

    fn sql(
        &self,
        first: usize,
        within: Option<&str>,
        args: &mut Vec<SqlArg>,
    ) -> Result<String, ScimError> {
        Ok(match self {
            Filter::And(a, b) => format!(
                "({} AND {})",
                a.sql(first, within, args)?,
                b.sql(first, within, args)?
            ),
            Filter::Or(a, b) => format!(
                "({} OR {})",
                a.sql(first, within, args)?,
                b.sql(first, within, args)?
            ),
            // A comparison with NULL is NULL, whose NOT is NULL again: false, where
            // "not (title eq x)" must keep a card without a title.
            Filter::Not(f) => format!("NOT coalesce({}, 0)", f.sql(first, within, args)?),
            Filter::Within(attr, f) => {
                if within.is_some() {
                    return Err(ScimError::invalid_filter("value filters do not nest"));
                }
                f.sql(first, Some(attr), args)?
            }
            Filter::Present(path) => {
                let col = column(path, within).ok_or_else(|| unsupported(path))?;
                match col {
                    Column::Text(c) | Column::Exact(c) => {
                        format!("({c} IS NOT NULL AND {c} <> '')")
                    }
                    Column::Id | Column::Active | Column::Time(_) | Column::Constant(_) => {
                        "1".into()
                    }
                }
            }
            Filter::Compare(path, op, value) => {
                let col = column(path, within).ok_or_else(|| unsupported(path))?;
                compare_sql(path, col, *op, value, first, args)?
            }
        })
    }
}

fn unsupported(path: &AttrPath) -> ScimError {
    ScimError::invalid_filter(format!("filtering on {} is not supported", name(path)))
}

fn compare_sql(
    path: &AttrPath,
    col: Column,
    op: Op,
    value: &Value,
    first: usize,
    args: &mut Vec<SqlArg>,
) -> Result<String, ScimError> {
    let wrong = |what: &str| {
        Err(ScimError::invalid_filter(format!(
            "{} compares with {what}",
            name(path)
        )))
    };
    let mut bind = |arg: SqlArg| {
        args.push(arg);
        format!("?{}", first + args.len() - 1)
    };
    let order = |op: Op| match op {
        Op::Eq => "=",
        Op::Ne => "<>",
        Op::Gt => ">",
        Op::Ge => ">=",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Co | Op::Sw | Op::Ew => "",
    };
    match col {
        Column::Text(c) | Column::Exact(c) => {
            let Value::String(s) = value else {
                return wrong("a string");
            };
            let exact = matches!(col, Column::Exact(_));
            let p = bind(SqlArg::Text(s.clone()));
            let (l, r) = if exact {
                (c.to_string(), p.clone())
            } else {
                (format!("lower({c})"), format!("lower({p})"))
            };
            let collate = if exact { "" } else { " COLLATE NOCASE" };
            Ok(match op {
                // `=` with NOCASE on the column keeps userName's index in use.
                Op::Eq => format!("{c} = {p}{collate}"),
                Op::Ne => format!("({c} IS NULL OR {c} <> {p}{collate})"),
                Op::Co => format!("instr({l}, {r}) > 0"),
                Op::Sw => format!("substr({l}, 1, length({r})) = {r}"),
                Op::Ew => format!("({r} = '' OR substr({l}, -length({r})) = {r})"),
                Op::Gt | Op::Ge | Op::Lt | Op::Le => format!("{c} {} {p}{collate}", order(op)),
            })
        }
        Column::Id => {
            let id = match value {
                Value::String(s) => s.parse::<i64>().ok(),
                Value::Number(n) => n.as_i64(),
                _ => None,
            };
            match (id, op) {
                (Some(id), Op::Eq | Op::Ne | Op::Gt | Op::Ge | Op::Lt | Op::Le) => {
                    Ok(format!("id {} {}", order(op), bind(SqlArg::Int(id))))
                }
                // No card has an id that is no number.
                (None, Op::Eq) => Ok("0".into()),
                (None, Op::Ne) => Ok("1".into()),
                _ => wrong("eq or ne and an id"),
            }
        }
        Column::Time(c) => {
            let ms = value.as_str().and_then(parse_iso8601);
            match (ms, op) {
                (Some(ms), Op::Eq | Op::Ne | Op::Gt | Op::Ge | Op::Lt | Op::Le) => {
                    Ok(format!("{c} {} {}", order(op), bind(SqlArg::Int(ms))))
                }
                _ => wrong("eq, ne, gt, ge, lt or le and an ISO 8601 date-time"),
            }
        }
        Column::Active => {
            let b = super::user::boolean(value);
            match (b, op) {
                (Some(b), Op::Eq) => Ok(format!(
                    "(status = 'active') = {}",
                    bind(SqlArg::Int(b as i64))
                )),
                (Some(b), Op::Ne) => Ok(format!(
                    "(status = 'active') <> {}",
                    bind(SqlArg::Int(b as i64))
                )),
                _ => wrong("eq or ne and a boolean"),
            }
        }
        Column::Constant(k) => {
            let Value::String(s) = value else {
                return wrong("a string");
            };
            let holds = compare(
                &Value::String(k.into()),
                op,
                &Value::String(s.clone()),
                false,
            );
            Ok(if holds { "1" } else { "0" }.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sql(text: &str) -> SqlFilter {
        parse(text)
            .and_then(|f| f.to_sql(2))
            .unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    #[test]
    fn parses_the_grammar() {
        let f = parse(
            r#"userName Eq "a" and not (title pr) OR emails[type eq "work" and value co "@x"]"#,
        )
        .unwrap();
        assert!(matches!(f, Filter::Or(..)), "{f:?}");
        let f =
            parse("urn:ietf:params:scim:schemas:core:2.0:User:name.givenName sw \"A\"").unwrap();
        assert_eq!(
            f,
            Filter::Compare(
                AttrPath {
                    attr: "name".into(),
                    sub: Some("givenName".into())
                },
                Op::Sw,
                json!("A")
            )
        );
        let f = parse(r#"emails[type eq "work"].value eq "x@y.example""#).unwrap();
        assert!(
            matches!(f, Filter::Within(ref a, _) if a == "emails"),
            "{f:?}"
        );
        assert!(parse(r#"displayName eq "say \"hi\"""#).is_ok());
    }

    #[test]
    fn bad_filters_say_where() {
        // Client text of any UTF-8 where a schema's URN would end is no panic.
        for text in [
            "urn:ietf:params:scim:schemas:core:2.0:Us\u{e9} eq \"x\"",
            "urn:ietf:params:scim:schemas:core:2.0:Use\u{20ac}:title eq \"x\"",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:Use\u{e9} pr",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
        for (text, says) in [
            ("userName", "expected an operator at 8"),
            ("userName xx \"a\"", "\"xx\" is no operator"),
            ("userName eq", "expected a value"),
            ("(userName eq \"a\"", "expected \")\""),
            ("userName eq \"a", "unterminated string"),
            ("userName eq \"a\" junk", "unexpected text"),
            ("1abc eq \"a\"", "no attribute path"),
            ("not userName eq \"a\"", "expected \"(\""),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.scim_type, Some("invalidFilter"));
            assert!(e.detail.contains(says), "{text}: {}", e.detail);
        }
        let deep = format!("{}userName pr{}", "(".repeat(40), ")".repeat(40));
        assert!(parse(&deep).unwrap_err().detail.contains("deeply"));
        assert!(parse(&"a".repeat(1001)).is_err());
        let e = parse("nickName eq \"x\"").unwrap().to_sql(2).unwrap_err();
        assert_eq!(e.detail, "filtering on nickName is not supported");
        assert!(parse("active eq \"maybe\"").unwrap().to_sql(2).is_err());
        assert!(parse("meta.created gt \"yesterday\"")
            .unwrap()
            .to_sql(2)
            .is_err());
    }

    #[test]
    fn compiles_to_parameters_only() {
        let f = sql(r#"userName eq "Bob'); DROP TABLE cards; --""#);
        assert_eq!(f.sql, "scim_user_name = ?2 COLLATE NOCASE");
        assert_eq!(f.args, [SqlArg::Text("Bob'); DROP TABLE cards; --".into())]);
        let f = sql(r#"externalId eq "E" or emails.value co "x" and active eq "False""#);
        assert_eq!(
            f.sql,
            "(external_id = ?2 OR (instr(lower(email), lower(?3)) > 0 AND (status = 'active') = ?4))"
        );
        assert_eq!(f.args[2], SqlArg::Int(0));
        let f = sql(r#"emails[type eq "work"].value eq "a@x.example""#);
        assert_eq!(f.sql, "(1 AND email = ?2 COLLATE NOCASE)");
        assert_eq!(sql(r#"id eq "abc""#).sql, "0");
        assert_eq!(sql(r#"id eq "12""#).args, [SqlArg::Int(12)]);
        let f = sql(r#"meta.lastModified gt "2026-01-02T03:04:05Z""#);
        assert_eq!(f.sql, "updated_at > ?2");
    }

    #[test]
    fn matches_json_resources() {
        let user = json!({"userName": "Ada", "id": "7", "externalId": "E1",
            "emails": [{"value": "a@x.example", "type": "home"}, {"value": "b@y.example", "type": "work"}],
            "active": true, "name": {"givenName": "Ada"}});
        for (text, want) in [
            (r#"username eq "ada""#, true),
            (r#"externalId eq "e1""#, false),
            (r#"emails.value ew "@y.example""#, true),
            (r#"emails eq "a@x.example""#, true),
            (r#"emails[type eq "work" and value sw "b"]"#, true),
            (r#"emails[type eq "other"]"#, false),
            (r#"title pr"#, false),
            (r#"not (title eq "x")"#, true),
            (r#"title ne "x""#, true),
            (r#"active eq true and name.givenName pr"#, true),
        ] {
            assert_eq!(parse(text).unwrap().matches(&user), want, "{text}");
        }
        let email = json!({"value": "b@y.example", "type": "work"});
        assert!(parse(r#"type eq "WORK""#).unwrap().matches(&email));
    }
}
