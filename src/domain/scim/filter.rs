//! SCIM filters (RFC 7644 3.4.2.2): parsed once, then either compiled to a parameterised
//! SQL condition over the card columns and, for `emails`, every email of the User as it
//! reads (the kept User JSON, `cards.scim_user`) (`GET /Users?filter=`), or evaluated on a
//! User's JSON (a PATCH path's value filter, `emails[type eq "work"]`). The grammar is the RFC's:
//! `eq ne co sw ew gt ge lt le pr`, `and` (binding tighter) and `or`, `not (...)`,
//! parentheses, value paths `attr[...]`, and the `attr[...].sub op value` form Entra ID
//! sends. Keywords and attribute names are case-insensitive.

use serde_json::Value;

use super::user::{canonical_name, strip_urn, PAIRS};
use super::user_name::{part_key, user_name_key};
use super::{ScimError, ENTERPRISE, USER};
use crate::domain::email_key::Form;
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
            return self.fail(&format!("expected an operator after \"{}\"", name(&path)));
        };
        if op.eq_ignore_ascii_case("pr") {
            self.at += 1;
            return Ok(Filter::Present(path));
        }
        let Some(op) = Op::parse(&op) else {
            return self.fail(&format!("\"{op}\" is no operator"));
        };
        self.at += 1;
        let value = match self.peek().cloned() {
            Some(Tok::Str(s)) => Value::String(s),
            Some(Tok::Word(w)) => match w.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" => Value::Null,
                // A JSON number (serde reads it: no "inf" or "nan" as f64 would).
                _ => match serde_json::from_str::<Value>(&w) {
                    Ok(n @ Value::Number(_)) => n,
                    _ => return self.fail(&format!("\"{w}\" is no value")),
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
    path.is("id", None)
        || path.attr.eq_ignore_ascii_case("meta")
        || PAIRS.iter().any(|p| p.case_exact && path.is(p.attr, p.sub))
}

/// An attribute of an object, its name in any case (RFC 7643 2.1).
fn get<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v.as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

fn has_values(v: &Value, attr: &str) -> bool {
    get(v, attr)
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

/// Whether `op` holds of two values in this order (`co`, `sw`, `ew` are no order).
fn order(op: Op, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        Op::Eq => o == Equal,
        Op::Ne => o != Equal,
        Op::Gt => o == Greater,
        Op::Ge => o != Less,
        Op::Lt => o == Less,
        Op::Le => o != Greater,
        Op::Co | Op::Sw | Op::Ew => false,
    }
}

/// The values a path reaches in a JSON resource: each value of a multi-valued attribute
/// (its `value`, or the named sub-attribute).
fn reach<'a>(resource: &'a Value, path: &AttrPath) -> Vec<&'a Value> {
    let Some(v) = get(resource, &path.attr) else {
        return vec![];
    };
    let sub = |v: &'a Value, name: &str| get(v, name);
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
        // Of the caseExact attributes, `meta`'s are date-times: "...05Z" and "...05.000Z"
        // are one instant, and text order is no time order across the two forms.
        (Value::String(h), Value::String(w))
            if exact && !matches!(op, Op::Co | Op::Sw | Op::Ew) =>
        {
            match (parse_iso8601(h), parse_iso8601(w)) {
                (Some(h), Some(w)) => order(op, h.cmp(&w)),
                _ => order(op, h.as_str().cmp(w.as_str())),
            }
        }
        (Value::String(h), Value::String(w)) => {
            let (h, w) = if exact {
                (h.clone(), w.clone())
            } else {
                // ASCII, as SQLite's NOCASE and lower() compare in the lists.
                (h.to_ascii_lowercase(), w.to_ascii_lowercase())
            };
            match op {
                Op::Co => h.contains(&w),
                Op::Sw => h.starts_with(&w),
                Op::Ew => h.ends_with(&w),
                _ => order(op, h.cmp(&w)),
            }
        }
        (Value::Number(h), Value::Number(w)) => {
            let (h, w) = (h.as_f64().unwrap_or(0.0), w.as_f64().unwrap_or(0.0));
            // NaN never comes from JSON; were it here, it would compare as nothing.
            h.partial_cmp(&w).is_some_and(|o| order(op, o))
        }
        // `active eq "False"`: a boolean as Entra ID writes them.
        (Value::Bool(h), w) => match (op, super::user::boolean(w)) {
            (Op::Eq, Some(w)) => *h == w,
            (Op::Ne, w) => w != Some(*h),
            _ => false,
        },
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
            // `emails pr`: some value, whether or not it has a `value`.
            Filter::Present(path) => {
                path.sub.is_none() && has_values(resource, &path.attr)
                    || reach(resource, path).iter().any(|v| match v {
                        Value::Null => false,
                        Value::String(s) => !s.is_empty(),
                        Value::Array(a) => !a.is_empty(),
                        Value::Object(o) => !o.is_empty(),
                        _ => true,
                    })
            }
            Filter::And(a, b) => a.matches(resource) && b.matches(resource),
            Filter::Or(a, b) => a.matches(resource) || b.matches(resource),
            Filter::Not(f) => !f.matches(resource),
            Filter::Within(attr, f) => match get(resource, attr) {
                Some(Value::Array(items)) => items.iter().any(|i| f.matches(i)),
                // A complex attribute of one value (`name[givenName sw "A"]`).
                Some(one @ Value::Object(_)) => f.matches(one),
                _ => false,
            },
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

/// Puts text into a normal form (`js::normalize` in the worker): for userName keys.
pub type Normalize<'a> = &'a dyn Fn(&str, Form) -> String;

/// What compiling needs besides the filter: the number of its first parameter, and the
/// normal forms of userName keys.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    first: usize,
    normalize: Normalize<'a>,
}

/// How a filterable attribute is stored.
#[derive(Clone, Copy)]
enum Column {
    /// Text compared in any case (SQLite's NOCASE and lower(): ASCII).
    Text(&'static str),
    /// Text compared by its key (`user_name`: any case of any script, one normal form), in
    /// a column of keys beside the text's own (which `pr` asks).
    Key {
        text: &'static str,
        key: &'static str,
    },
    /// Text compared exactly.
    Exact(&'static str),
    /// An integer (the card id).
    Id,
    /// Unix milliseconds compared with an ISO 8601 value.
    Time(&'static str),
    /// `status = 'active'`, compared with a boolean.
    Active,
    /// A boolean as SQLite reads JSON's: 1, 0, or NULL when absent.
    Flag(&'static str),
}

/// The column a filter's attribute is, where it is one: a card column, or within
/// `emails[...]` a column of one of the User's emails ([`EMAILS`]).
fn column(path: &AttrPath, within: Option<&str>) -> Option<Column> {
    if let Some(attr) = within {
        if !attr.eq_ignore_ascii_case("emails") || path.sub.is_some() {
            return None;
        }
        const EMAIL: [(&str, Column); 3] = [
            ("value", Column::Text("em.value")),
            ("type", Column::Text("em.type")),
            ("primary", Column::Flag("em.is_primary")),
        ];
        return EMAIL
            .iter()
            .find(|(n, _)| path.attr.eq_ignore_ascii_case(n))
            .map(|(_, c)| *c);
    }
    // Attributes with columns of their own; the card fields' come from [`PAIRS`].
    const COLUMNS: [(&str, Option<&str>, Column); 6] = [
        ("id", None, Column::Id),
        (
            "userName",
            None,
            Column::Key {
                text: "scim_user_name",
                key: "scim_user_key",
            },
        ),
        (
            "displayName",
            None,
            Column::Text("iif(scim_user IS NULL, title, json_extract(scim_user, '$.displayName'))"),
        ),
        ("active", None, Column::Active),
        ("meta", Some("created"), Column::Time("created_at")),
        ("meta", Some("lastModified"), Column::Time("updated_at")),
    ];
    if let Some((_, _, c)) = COLUMNS.iter().find(|(a, s, _)| path.is(a, *s)) {
        return Some(*c);
    }
    let p = PAIRS
        .iter()
        .find(|p| p.filtered && path.is(p.attr, p.sub))?;
    Some(if p.case_exact {
        Column::Exact(p.field)
    } else {
        Column::Text(p.field)
    })
}

fn name(path: &AttrPath) -> String {
    match &path.sub {
        Some(s) => format!("{}.{s}", path.attr),
        None => path.attr.clone(),
    }
}

impl Filter {
    /// Whether the filter compares `userName`: a list keys the account's names first
    /// (`store::cards::fill_user_keys`), so none without a key yet is missed.
    pub fn compares_user_name(&self) -> bool {
        match self {
            Filter::Compare(path, _, _) => path.is("userName", None),
            Filter::Present(_) | Filter::Within(..) => false,
            Filter::And(a, b) | Filter::Or(a, b) => {
                a.compares_user_name() || b.compares_user_name()
            }
            Filter::Not(f) => f.compares_user_name(),
        }
    }

    /// The condition, its parameters numbered from `?{first}`; `normalize` makes the keys
    /// a `userName` value is compared by. A filter on what the cards do not keep is an
    /// `invalidFilter` naming it.
    pub fn to_sql(&self, first: usize, normalize: Normalize) -> Result<SqlFilter, ScimError> {
        let mut args = Vec::new();
        let sql = self.sql(Ctx { first, normalize }, None, &mut args)?;
        Ok(SqlFilter { sql, args })
    }

    fn sql(
        &self,
        cx: Ctx,
        within: Option<&str>,
        args: &mut Vec<SqlArg>,
    ) -> Result<String, ScimError> {
        Ok(match self {
            Filter::And(a, b) => format!(
                "({} AND {})",
                a.sql(cx, within, args)?,
                b.sql(cx, within, args)?
            ),
            Filter::Or(a, b) => format!(
                "({} OR {})",
                a.sql(cx, within, args)?,
                b.sql(cx, within, args)?
            ),
            // A comparison with NULL is NULL, whose NOT is NULL again: false, where
            // "not (title eq x)" must keep a card without a title.
            Filter::Not(f) => format!("NOT coalesce({}, 0)", f.sql(cx, within, args)?),
            Filter::Within(attr, f) => {
                if within.is_some() {
                    return Err(ScimError::invalid_filter("value filters do not nest"));
                }
                let inner = f.sql(cx, Some(attr), args)?;
                some_email(&inner)
            }
            // `emails pr`: the User has an email, with a value or not.
            Filter::Present(path) if within.is_none() && is_emails(path) && path.sub.is_none() => {
                some_email("1")
            }
            Filter::Present(path) if within.is_none() && is_emails(path) => {
                some_email(&Filter::Present(each_email(path)).sql(cx, Some("emails"), args)?)
            }
            Filter::Present(path) => {
                let col = column(path, within).ok_or_else(|| unsupported(path, within))?;
                match col {
                    Column::Text(c) | Column::Exact(c) | Column::Key { text: c, .. } => {
                        format!("({c} IS NOT NULL AND {c} <> '')")
                    }
                    Column::Flag(c) => format!("{c} IS NOT NULL"),
                    Column::Id | Column::Active | Column::Time(_) => "1".into(),
                }
            }
            Filter::Compare(path, op, value) if within.is_none() && is_emails(path) => {
                emails_sql(path, *op, value, cx, args)?
            }
            Filter::Compare(path, op, value) => {
                let col = column(path, within).ok_or_else(|| unsupported(path, within))?;
                compare_sql(path, col, *op, value, (cx, within), args)?
            }
        })
    }
}

/// Whether a path outside a value filter is `emails` or one of its sub-attributes.
fn is_emails(path: &AttrPath) -> bool {
    path.attr.eq_ignore_ascii_case("emails")
}

/// `emails.type` as a path within `emails[...]`: `type`; `emails` itself is its `value`
/// (RFC 7644 3.4.2.2: a multi-valued attribute's value).
fn each_email(path: &AttrPath) -> AttrPath {
    AttrPath {
        attr: path.sub.clone().unwrap_or_else(|| "value".into()),
        sub: None,
    }
}

/// `emails.value eq x` and its kin outside a value filter, on every email of the User as
/// it reads (RFC 7644 3.4.2.2: a multi-valued attribute matches when any value does): as
/// `emails[value eq x]`, and `ne` as no email being equal (`not (emails[value eq x])`),
/// as on JSON. An `eq` on the value first asks the card's own email (a column, no JSON
/// read), which is always one of the User's (`user::to_user`).
fn emails_sql(
    path: &AttrPath,
    op: Op,
    value: &Value,
    cx: Ctx,
    args: &mut Vec<SqlArg>,
) -> Result<String, ScimError> {
    let each = each_email(path);
    let is_value = each.attr.eq_ignore_ascii_case("value");
    Ok(match (op, value) {
        (Op::Eq, Value::String(s)) if is_value => {
            args.push(SqlArg::Text(s.clone()));
            let p = format!("?{}", cx.first + args.len() - 1);
            let any = some_email(&format!("em.value = {p} COLLATE NOCASE"));
            format!("(email = {p} COLLATE NOCASE OR {any})")
        }
        (Op::Ne, _) => {
            let eq = Filter::Compare(each, Op::Eq, value.clone());
            format!("NOT {}", some_email(&eq.sql(cx, Some("emails"), args)?))
        }
        _ => {
            let f = Filter::Compare(each, op, value.clone());
            some_email(&f.sql(cx, Some("emails"), args)?)
        }
    })
}

/// The condition that some email of the User holds `cond` (over [`EMAILS`]' columns).
fn some_email(cond: &str) -> String {
    format!("EXISTS (SELECT 1 FROM {EMAILS} AS em WHERE {cond})")
}

/// The index in the kept User's `emails` (`cards.scim_user`) of the one the card's
/// `email` is: the primary one, else the first `work` one, else the first (`user::pick`).
macro_rules! picked {
    () => {
        "coalesce(\
         (SELECT min(p.key) FROM json_each(cards.scim_user, '$.emails') AS p \
         WHERE json_type(p.value, '$.primary') = 'true'), \
         (SELECT min(p.key) FROM json_each(cards.scim_user, '$.emails') AS p \
         WHERE json_extract(p.value, '$.type') = 'work' COLLATE NOCASE), 0)"
    };
}

/// The emails of the User a card reads as (`user::to_user`), one row each: `value`, `type`
/// and `is_primary` (1, 0 or NULL). The kept emails as written, but the picked one
/// ([`picked`]) has the card's `email` as its value, or is gone when the card has none
/// (the API removed it); a card without kept emails (never written by SCIM, or written
/// without) has its `email` as one `work`, primary email. No parameter: a constant text.
const EMAILS: &str = concat!(
    "(SELECT CASE WHEN e.key = k.at THEN nullif(cards.email, '') \
     ELSE json_extract(e.value, '$.value') END AS value, \
     json_extract(e.value, '$.type') AS type, \
     json_extract(e.value, '$.primary') AS is_primary \
     FROM (SELECT ",
    picked!(),
    " AS at) AS k \
     JOIN json_each(cards.scim_user, '$.emails') AS e \
     WHERE e.key <> k.at OR nullif(cards.email, '') IS NOT NULL \
     OR json_type(e.value, '$.value') IS NULL \
     UNION ALL SELECT cards.email, 'work', 1 \
     WHERE nullif(cards.email, '') IS NOT NULL \
     AND coalesce(json_array_length(cards.scim_user, '$.emails'), 0) = 0)"
);

fn unsupported(path: &AttrPath, within: Option<&str>) -> ScimError {
    let prefix = within.map_or_else(String::new, |w| format!("{w}."));
    ScimError::invalid_filter(format!(
        "filtering on {prefix}{} is not supported",
        name(path)
    ))
}

fn compare_sql(
    path: &AttrPath,
    col: Column,
    op: Op,
    value: &Value,
    (cx, within): (Ctx, Option<&str>),
    args: &mut Vec<SqlArg>,
) -> Result<String, ScimError> {
    let wrong = |what: &str| {
        let prefix = within.map_or_else(String::new, |w| format!("{w}."));
        Err(ScimError::invalid_filter(format!(
            "{prefix}{} compares with {what}",
            name(path)
        )))
    };
    let mut bind = |arg: SqlArg| {
        args.push(arg);
        format!("?{}", cx.first + args.len() - 1)
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
        // Keys compare as they are: both sides are folded already. A whole name is keyed
        // as the stored one is (surrounding spaces dropped), a part (`co`, `sw`, `ew`)
        // only folded, so `sw "ada "` still asks for the space.
        Column::Key { text: _, key: c } => {
            let Value::String(s) = value else {
                return wrong("a string");
            };
            let key = match op {
                Op::Co | Op::Sw | Op::Ew => part_key(s, cx.normalize),
                _ => user_name_key(s, cx.normalize),
            };
            let p = bind(SqlArg::Text(key));
            Ok(match op {
                // `=` on the key column: the unique index (account_id, scim_user_key).
                Op::Eq => format!("{c} = {p}"),
                Op::Ne => format!("({c} IS NULL OR {c} <> {p})"),
                Op::Co => format!("instr({c}, {p}) > 0"),
                Op::Sw => format!("substr({c}, 1, length({p})) = {p}"),
                Op::Ew => format!("({p} = '' OR substr({c}, -length({p})) = {p})"),
                Op::Gt | Op::Ge | Op::Lt | Op::Le => format!("{c} {} {p}", order(op)),
            })
        }
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
        Column::Flag(c) => match (super::user::boolean(value), op) {
            (Some(b), Op::Eq) => Ok(format!("{c} = {}", bind(SqlArg::Int(b as i64)))),
            // As on JSON: a value without the flag is unequal to either boolean.
            (Some(b), Op::Ne) => Ok(format!(
                "({c} IS NULL OR {c} <> {})",
                bind(SqlArg::Int(b as i64))
            )),
            _ => wrong("eq or ne and a boolean"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::email_key::native;
    use crate::domain::time::iso8601;
    use rusqlite::{types::Value as Sql, Connection};
    use serde_json::json;

    fn sql(text: &str) -> SqlFilter {
        parse(text)
            .and_then(|f| f.to_sql(2, &native))
            .unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn path(attr: &str, sub: Option<&str>) -> AttrPath {
        AttrPath {
            attr: attr.into(),
            sub: sub.map(Into::into),
        }
    }

    #[test]
    fn parses_the_grammar() {
        let f = parse(
            r#"userName Eq "a" and not (title pr) OR emails[type eq "work" and value co "@x"]"#,
        )
        .unwrap();
        assert!(matches!(f, Filter::Or(..)), "{f:?}");
        // `and` binds tighter than `or`, on either side.
        let f = parse("title pr or userName pr AND active pr").unwrap();
        let Filter::Or(_, right) = f else {
            panic!("{f:?}")
        };
        assert!(matches!(*right, Filter::And(..)));
        let f =
            parse("urn:ietf:params:scim:schemas:core:2.0:User:name.givenName SW \"A\"").unwrap();
        assert_eq!(
            f,
            Filter::Compare(path("name", Some("givenName")), Op::Sw, json!("A"))
        );
        let f = parse("USERNAME pr").unwrap();
        assert_eq!(f, Filter::Present(path("userName", None)), "canonical");
        let f = parse(&format!("{ENTERPRISE}:organization eq \"O\"")).unwrap();
        assert_eq!(
            f,
            Filter::Compare(path(ENTERPRISE, Some("organization")), Op::Eq, json!("O"))
        );
        let f = parse(r#"emails[type eq "work"].value eq "x@y.example""#).unwrap();
        assert!(
            matches!(f, Filter::Within(ref a, _) if a == "emails"),
            "{f:?}"
        );
        let f = parse(r#"displayName eq "say \"hi\" \u00e9\\""#).unwrap();
        assert_eq!(
            f,
            Filter::Compare(path("displayName", None), Op::Eq, json!("say \"hi\" é\\"))
        );
        for (text, value) in [
            ("x eq 42", json!(42)),
            ("x eq -1.5e2", json!(-150.0)),
            ("x eq TRUE", json!(true)),
            ("x eq false", json!(false)),
            ("x eq null", json!(null)),
        ] {
            assert_eq!(
                parse(text).unwrap(),
                Filter::Compare(path("x", None), Op::Eq, value),
                "{text}"
            );
        }
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
            ("userName", "expected an operator after \"userName\" at 8"),
            ("userName xx \"a\"", "\"xx\" is no operator at 9"),
            ("userName eq", "expected a value at 11"),
            ("(userName eq \"a\"", "expected \")\" at 16"),
            ("userName eq \"a", "unterminated string at 12"),
            ("userName eq \"a\\", "unterminated string"),
            ("userName eq \"a\" junk", "unexpected text at 16"),
            ("1abc eq \"a\"", "no attribute path"),
            ("not userName eq \"a\"", "expected \"(\""),
            ("userName eq nan", "\"nan\" is no value"),
            ("userName eq inf", "\"inf\" is no value"),
            ("emails[type eq \"work\"", "expected \"]\""),
            ("emails[type eq \"work\"]. eq \"x\"", "no sub-attribute"),
            ("urn:x:y eq \"a\"", "no attribute path"),
            ("", "expected an attribute at 0"),
            ("é eq \"a\"", "no attribute path"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.scim_type, Some("invalidFilter"));
            assert!(e.detail.contains(says), "{text}: {}", e.detail);
        }
        let deep = format!("{}userName pr{}", "(".repeat(40), ")".repeat(40));
        assert!(parse(&deep).unwrap_err().detail.contains("deeply"));
        let deep = format!("{}userName pr{}", "not (".repeat(20), ")".repeat(20));
        assert!(parse(&deep).unwrap_err().detail.contains("deeply"));
        assert!(parse(&format!("{}userName pr{}", "(".repeat(15), ")".repeat(15))).is_ok());
        assert!(parse(&"a".repeat(1001)).is_err());
    }

    #[test]
    fn what_sql_cannot_filter_is_named() {
        for (text, says) in [
            (
                "nickName eq \"x\"",
                "filtering on nickName is not supported",
            ),
            (
                "phoneNumbers[type eq \"work\"]",
                "filtering on phoneNumbers.type is not supported",
            ),
            ("emails[display eq \"x\"]", "filtering on emails.display"),
            ("emails[value pr and emails[value pr]]", "do not nest"),
            (
                "active eq \"maybe\"",
                "active compares with eq or ne and a boolean",
            ),
            ("active gt true", "active compares with eq or ne"),
            ("meta.created gt \"yesterday\"", "ISO 8601"),
            ("userName eq 5", "userName compares with a string"),
            ("id gt \"abc\"", "id compares"),
            (
                "emails.primary eq \"x\"",
                "emails.primary compares with eq or ne and a boolean",
            ),
            ("emails[primary gt true]", "emails.primary compares"),
        ] {
            let e = parse(text).unwrap().to_sql(2, &native).unwrap_err();
            assert_eq!(e.scim_type, Some("invalidFilter"));
            assert!(e.detail.contains(says), "{text}: {}", e.detail);
        }
    }

    #[test]
    fn compiles_to_parameters_only() {
        let f = sql(r#"userName eq "Bob'); DROP TABLE cards; --""#);
        assert_eq!(f.sql, "scim_user_key = ?2");
        assert_eq!(f.args, [SqlArg::Text("bob'); drop table cards; --".into())]);
        let f = sql(r#"externalId eq "E" or emails.value co "x" and active eq "False""#);
        assert_eq!(
            f.sql,
            format!(
                "(external_id = ?2 OR (EXISTS (SELECT 1 FROM {EMAILS} AS em WHERE \
                 instr(lower(em.value), lower(?3)) > 0) AND (status = 'active') = ?4))"
            )
        );
        assert_eq!(f.args[2], SqlArg::Int(0));
        let f = sql(r#"emails[type eq "work"].value eq "a@x.example""#);
        assert_eq!(
            f.sql,
            format!(
                "EXISTS (SELECT 1 FROM {EMAILS} AS em WHERE \
                 (em.type = ?2 COLLATE NOCASE AND em.value = ?3 COLLATE NOCASE))"
            )
        );
        // The card's own email first, then the User's others; one parameter for both.
        let f = sql(r#"emails.value eq "a@x.example""#);
        assert_eq!(
            f.sql,
            format!(
                "(email = ?2 COLLATE NOCASE OR EXISTS (SELECT 1 FROM {EMAILS} AS em WHERE \
                 em.value = ?2 COLLATE NOCASE))"
            )
        );
        assert_eq!(f.args, [SqlArg::Text("a@x.example".into())]);
        assert!(!EMAILS.contains('?'), "the emails' rows bind nothing");
        assert_eq!(sql(r#"id eq "abc""#).sql, "0");
        assert_eq!(sql(r#"id eq "12""#).args, [SqlArg::Int(12)]);
        let f = sql(r#"meta.lastModified gt "2026-01-02T03:04:05.250Z""#);
        assert_eq!(f.sql, "updated_at > ?2");
        assert_eq!(f.args, [SqlArg::Int(1_767_323_045_250)]);
        // Numbered on from the first parameter given, in the order they appear.
        let f = parse(r#"title sw "a" and not (name.familyName ew "b")"#)
            .unwrap()
            .to_sql(5, &native)
            .unwrap();
        assert!(f.sql.contains("?5") && f.sql.contains("?6") && !f.sql.contains("?7"));
    }

    /// Cards as rows of a `cards` table with the columns filters read (the card's
    /// own migration adds the SCIM columns and their indexes), and each as the User JSON
    /// `matches` reads: one filter, one answer either way.
    fn db() -> (Connection, Vec<(i64, Value)>) {
        let conn = schema();
        let t = |s: &str| parse_iso8601(s).unwrap();
        #[allow(clippy::type_complexity)]
        let rows: [(
            i64,
            &str,
            &str,
            Option<&str>,
            Option<&str>,
            Option<&str>,
            &str,
            &str,
            Option<&str>,
        ); 5] = [
            (
                1,
                "Ada",
                "Lovelace",
                Some("Engineer"),
                Some("Ada@Example.com"),
                Some("ada@example.com"),
                "active",
                "2026-01-01T00:00:00Z",
                Some("E-1"),
            ),
            (
                2,
                "Bob",
                "Brown",
                None,
                None,
                Some("bob"),
                "archived",
                "2026-02-01T00:00:00.500Z",
                Some("e-1"),
            ),
            (
                3,
                "Cy",
                "O'Neil",
                Some(""),
                Some(""),
                None,
                "active",
                "2026-03-01T00:00:00Z",
                None,
            ),
            (
                4,
                "Dee",
                "Ng",
                Some("CTO"),
                Some("dee@corp.example"),
                Some("DEE"),
                "draft",
                "2026-04-01T00:00:00Z",
                None,
            ),
            (
                12,
                "Él",
                "Zed%_\\",
                Some("a%b_c"),
                Some("x@y.example"),
                Some("z%_\\"),
                "active",
                "2026-05-01T00:00:00Z",
                Some("12"),
            ),
        ];
        let mut users = Vec::new();
        for (id, first, last, job, email, user_name, status, at, ext) in rows {
            let display = format!("{first} {last}");
            let scim = (id != 4).then(|| json!({"displayName": display}).to_string());
            conn.execute(
                "INSERT INTO cards (id, account_id, title, first_name, last_name, job_title, email,
                    status, created_at, updated_at, scim_user_name, scim_user, external_id,
                    scim_user_key)
                 VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10, ?11, ?12)",
                rusqlite::params![
                    id,
                    "Generated title",
                    first,
                    last,
                    job,
                    email,
                    status,
                    t(at),
                    user_name,
                    scim,
                    ext,
                    user_name.map(|n| user_name_key(n, native))
                ],
            )
            .unwrap();
            // Another account's card like it: the account condition keeps it out.
            let mut u = json!({"id": id.to_string(),
                "name": {"givenName": first, "familyName": last},
                "displayName": if id == 4 { "Generated title".to_string() } else { display },
                "active": status == "active",
                "meta": {"created": at, "lastModified": iso8601(t(at))}});
            let o = u.as_object_mut().unwrap();
            for (k, v) in [("userName", user_name), ("externalId", ext), ("title", job)] {
                if let Some(v) = v {
                    o.insert(k.into(), v.into());
                }
            }
            if let Some(e) = email.filter(|e| !e.is_empty()) {
                o.insert(
                    "emails".into(),
                    json!([{"value": e, "type": "work", "primary": true}]),
                );
            }
            users.push((id, u));
        }
        conn.execute(
            "INSERT INTO cards (id, account_id, title, first_name, last_name, email, status,
                created_at, updated_at, scim_user_name, scim_user_key, external_id)
             VALUES (99, 2, 't', 'Ada', 'L', 'ada@example.com', 'active', 0, 0,
                'ada@example.com', 'ada@example.com', 'E-1')",
            [],
        )
        .unwrap();
        (conn, users)
    }

    /// A `cards` table with the columns filters read (the card's own migrations add the
    /// SCIM columns, the userName key and their indexes).
    fn schema() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE cards (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL,
                title TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
                job_title TEXT, email TEXT, status TEXT NOT NULL,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);",
        )
        .unwrap();
        conn.execute_batch(include_str!(
            "../../../migrations/shard/0009_provisioning.sql"
        ))
        .unwrap();
        conn.execute_batch(include_str!(
            "../../../migrations/shard/0011_user_name_key.sql"
        ))
        .unwrap();
        conn
    }

    /// Cards whose Users have several emails, some changed through the API since SCIM
    /// wrote them: each as a row, and as the User it reads as (`user::to_user`).
    fn email_db() -> (Connection, Vec<(i64, Value)>) {
        let conn = schema();
        // (id, the card's email, the kept emails: None is a card SCIM never wrote)
        let rows: [(i64, Option<&str>, Option<Value>); 8] = [
            // Written so; the card's is the first work one.
            (
                21,
                Some("w@x.example"),
                Some(json!([{"value": "h@x.example", "type": "home"},
                            {"value": "w@x.example", "type": "work"}])),
            ),
            // The API changed the card's (the primary one's value) since.
            (
                22,
                Some("new@x.example"),
                Some(
                    json!([{"value": "old@x.example", "type": "work", "primary": true},
                            {"value": "o2@x.example", "type": "other"}]),
                ),
            ),
            // The API removed the card's: the other stays.
            (
                23,
                None,
                Some(json!([{"value": "a@x.example", "type": "work"},
                            {"value": "b@x.example", "type": "home"}])),
            ),
            // Never written by SCIM.
            (24, Some("c@x.example"), None),
            // Written without emails; the API gave the card one.
            (25, Some("d@x.example"), Some(json!(null))),
            // Written without emails, none since.
            (26, None, Some(json!(null))),
            // An email with a type and no value.
            (27, None, Some(json!([{"type": "work"}]))),
            // The primary is a home one, and a work one besides.
            (
                28,
                Some("h2@x.example"),
                Some(
                    json!([{"value": "h2@x.example", "type": "home", "primary": true},
                            {"value": "w2@x.example", "type": "work"}]),
                ),
            ),
        ];
        let mut users = Vec::new();
        for (id, email, kept) in rows {
            let kept = kept.map(|emails| {
                let mut u = json!({"name": {"givenName": "Ada", "familyName": "L"},
                    "active": true});
                if !emails.is_null() {
                    u["emails"] = emails;
                }
                u.to_string()
            });
            let mut card = crate::domain::card::fixture("[]");
            card.id = id;
            card.email = email.map(str::to_string);
            (card.phone, card.address) = (None, None);
            card.scim_user_name = Some(format!("u{id}"));
            card.scim_user = kept.clone();
            conn.execute(
                "INSERT INTO cards (id, account_id, title, first_name, last_name, email,
                    status, created_at, updated_at, scim_user_name, scim_user, scim_user_key)
                 VALUES (?1, 1, ?2, ?3, ?4, ?5, 'active', 0, 0, ?6, ?7, ?6)",
                rusqlite::params![
                    id,
                    card.title,
                    card.first_name,
                    card.last_name,
                    card.email,
                    card.scim_user_name,
                    kept
                ],
            )
            .unwrap();
            let user = super::super::user::to_user(&card, "https://x.example/scim/v2");
            users.push((id, Value::Object(user)));
        }
        (conn, users)
    }

    /// RFC 7644 3.4.2.2 (issue 44): a filter on `emails` matches when any email of the
    /// User matches, the ones the card's `email` is not included, and sees them as the
    /// User reads (a value the API changed since is the card's, one it removed is gone).
    #[test]
    fn email_filters_see_every_email_of_the_user_as_read() {
        let (conn, users) = email_db();
        let by_value = users
            .iter()
            .map(|(id, u)| (*id, u["emails"].clone()))
            .collect::<Vec<_>>();
        assert_eq!(
            by_value[1].1,
            json!([{"value": "new@x.example", "type": "work", "primary": true},
                   {"value": "o2@x.example", "type": "other"}]),
            "the User as it reads"
        );
        for (text, want) in [
            (r#"emails.value eq "h@x.example""#, vec![21]),
            (r#"emails[value eq "h@x.example"]"#, vec![21]),
            (r#"emails eq "W@X.example""#, vec![21]),
            (r#"emails.value eq "old@x.example""#, vec![]),
            (r#"emails.value eq "new@x.example""#, vec![22]),
            (r#"emails.value eq "o2@x.example""#, vec![22]),
            (r#"emails.value eq "a@x.example""#, vec![]),
            (r#"emails.value eq "b@x.example""#, vec![23]),
            (r#"emails.value eq "c@x.example""#, vec![24]),
            (r#"emails.value eq "d@x.example""#, vec![25]),
            (r#"emails.value eq "w2@x.example""#, vec![28]),
            (
                r#"emails.value ne "h@x.example""#,
                vec![22, 23, 24, 25, 26, 27, 28],
            ),
            (r#"emails pr"#, vec![21, 22, 23, 24, 25, 27, 28]),
            (r#"not (emails pr)"#, vec![26]),
            (r#"emails.value pr"#, vec![21, 22, 23, 24, 25, 28]),
            (r#"emails.type pr"#, vec![21, 22, 23, 24, 25, 27, 28]),
            (r#"emails.primary pr"#, vec![22, 24, 25, 28]),
            (r#"emails[type eq "home"]"#, vec![21, 23, 28]),
            (r#"emails.type eq "other""#, vec![22]),
            (r#"emails.type ne "work""#, vec![23, 26]),
            (r#"emails.primary eq true"#, vec![22, 24, 25, 28]),
            (r#"emails.primary ne "True""#, vec![21, 23, 26, 27]),
            (r#"emails[primary eq false]"#, vec![]),
            (r#"emails[primary ne true]"#, vec![21, 22, 23, 27, 28]),
            (
                r#"emails[type eq "work"].value eq "w2@x.example""#,
                vec![28],
            ),
            (r#"emails[type eq "work"].value eq "h2@x.example""#, vec![]),
            (
                r#"emails[type eq "work" and value pr]"#,
                vec![21, 22, 24, 25, 28],
            ),
            (r#"emails[not (type eq "work")]"#, vec![21, 22, 23, 28]),
            (r#"emails.value co "2@""#, vec![22, 28]),
            (
                r#"emails.value ew "@X.EXAMPLE""#,
                vec![21, 22, 23, 24, 25, 28],
            ),
            (
                r#"emails.value eq "h@x.example" or emails.value eq "c@x.example""#,
                vec![21, 24],
            ),
        ] {
            assert_eq!(query(&conn, text), want, "SQL: {text}");
            let f = parse(text).unwrap();
            let json: Vec<i64> = users
                .iter()
                .filter(|(_, u)| f.matches(u))
                .map(|(id, _)| *id)
                .collect();
            assert_eq!(json, want, "JSON: {text}");
        }
    }

    fn bound(f: &SqlFilter) -> Vec<Sql> {
        let mut args = vec![Sql::Integer(1)];
        args.extend(f.args.iter().map(|a| match a {
            SqlArg::Text(t) => Sql::Text(t.clone()),
            SqlArg::Int(i) => Sql::Integer(*i),
        }));
        args
    }

    fn query(conn: &Connection, text: &str) -> Vec<i64> {
        let f = sql(text);
        let q = format!(
            "SELECT id FROM cards WHERE account_id = ?1 AND ({}) ORDER BY id",
            f.sql
        );
        let mut stmt = conn
            .prepare(&q)
            .unwrap_or_else(|e| panic!("{text}: {q}: {e}"));
        let ids = stmt
            .query_map(rusqlite::params_from_iter(bound(&f)), |r| r.get(0))
            .unwrap()
            .collect::<Result<Vec<i64>, _>>()
            .unwrap();
        ids
    }

    #[test]
    fn sql_and_json_agree_on_the_cards() {
        let (conn, users) = db();
        for (text, want) in [
            (r#"userName eq "ADA@example.com""#, vec![1]),
            (r#"userName eq "dee""#, vec![4]),
            (r#"userName ne "bob""#, vec![1, 3, 4, 12]),
            (r#"userName sw "b""#, vec![2]),
            (r#"userName ew "E""#, vec![4]),
            (r#"userName co "%_""#, vec![12]),
            (r#"userName co "\\""#, vec![12]),
            (r#"userName sw """#, vec![1, 2, 4, 12]),
            (r#"userName gt "c""#, vec![4, 12]),
            (r#"userName le "BOB""#, vec![1, 2]),
            (r#"userName pr"#, vec![1, 2, 4, 12]),
            (r#"not (userName pr)"#, vec![3]),
            (r#"externalId eq "E-1""#, vec![1]),
            (r#"externalId eq "e-1""#, vec![2]),
            (r#"externalId ne "E-1""#, vec![2, 3, 4, 12]),
            (r#"id eq "12""#, vec![12]),
            (r#"id eq "x""#, vec![]),
            (r#"id ne "x""#, vec![1, 2, 3, 4, 12]),
            (r#"emails.value eq "ada@EXAMPLE.com""#, vec![1]),
            (r#"emails eq "ada@example.com""#, vec![1]),
            (r#"emails.value ew ".EXAMPLE""#, vec![4, 12]),
            (r#"emails.value ne "ada@example.com""#, vec![2, 3, 4, 12]),
            (r#"emails pr"#, vec![1, 4, 12]),
            (r#"emails[type eq "work"]"#, vec![1, 4, 12]),
            (r#"emails[type eq "home"]"#, vec![]),
            (r#"emails.type ne "work""#, vec![2, 3]),
            (r#"emails.primary eq true"#, vec![1, 4, 12]),
            (r#"emails[value eq "x@y.example"]"#, vec![12]),
            (r#"emails[type eq "work" and value co "@corp"]"#, vec![4]),
            (r#"emails[type eq "work"].value sw "ada""#, vec![1]),
            (r#"emails[not (value sw "ada")]"#, vec![4, 12]),
            (r#"name.givenName eq "ada""#, vec![1]),
            (r#"name.familyName co "'""#, vec![3]),
            (r#"title pr"#, vec![1, 4, 12]),
            (r#"title ne "cto""#, vec![1, 2, 3, 12]),
            (r#"not (title eq "CTO")"#, vec![1, 2, 3, 12]),
            (r#"title co "%""#, vec![12]),
            (r#"title sw "a%b_""#, vec![12]),
            (r#"displayName eq "ada lovelace""#, vec![1]),
            (r#"displayName sw "generated""#, vec![4]),
            (r#"active eq true"#, vec![1, 3, 12]),
            (r#"active eq "False""#, vec![2, 4]),
            (r#"active ne true"#, vec![2, 4]),
            (r#"meta.created eq "2026-02-01T00:00:00.500Z""#, vec![2]),
            (
                r#"meta.created gt "2026-02-01T00:00:00.5Z""#,
                vec![3, 4, 12],
            ),
            (
                r#"meta.lastModified le "2026-03-01T01:00:00+01:00""#,
                vec![1, 2, 3],
            ),
            (
                r#"meta.created ge "2026-02-01T00:00:00Z" and meta.created lt "2026-04-01T00:00:00Z""#,
                vec![2, 3],
            ),
            (
                r#"userName eq "bob" or emails.value co "corp" and active eq false"#,
                vec![2, 4],
            ),
            (
                r#"(userName eq "bob" or emails.value co "corp") and not (active eq false)"#,
                vec![],
            ),
            (
                r#"urn:ietf:params:scim:schemas:core:2.0:User:userName Eq "ada@example.com""#,
                vec![1],
            ),
        ] {
            assert_eq!(query(&conn, text), want, "SQL: {text}");
            let f = parse(text).unwrap();
            let json: Vec<i64> = users
                .iter()
                .filter(|(_, u)| f.matches(u))
                .map(|(id, _)| *id)
                .collect();
            assert_eq!(json, want, "JSON: {text}");
        }
    }

    #[test]
    fn a_user_name_is_found_by_its_index() {
        let (conn, _) = db();
        for (text, index) in [
            (r#"userName eq "ada@example.com""#, "cards_account_user_key"),
            (r#"externalId eq "E-1""#, "cards_account_external_id"),
        ] {
            let f = sql(text);
            let q = format!(
                "EXPLAIN QUERY PLAN SELECT id FROM cards WHERE account_id = ?1 AND ({})",
                f.sql
            );
            let mut stmt = conn.prepare(&q).unwrap();
            let plan: Vec<String> = stmt
                .query_map(rusqlite::params_from_iter(bound(&f)), |r| r.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                plan.iter()
                    .any(|p| p.starts_with("SEARCH") && p.contains(&format!("INDEX {index}"))),
                "{text}: {plan:?}"
            );
        }
    }

    /// Issue 46, 4: a userName is compared by its key, so every spelling of one name finds
    /// it (case in any script, composed or not, full-width, surrounding spaces), and parts
    /// (`sw`, `co`, `ew`) are folded the same way.
    #[test]
    fn user_names_compare_by_their_keys_in_any_script() {
        let conn = schema();
        for (id, name) in [(1, "ÄRZTE-u@x.example"), (2, "Straße@köln.example")] {
            conn.execute(
                "INSERT INTO cards (id, account_id, title, first_name, last_name, status,
                    created_at, updated_at, scim_user_name, scim_user_key)
                 VALUES (?1, 1, 't', 'f', 'l', 'active', 0, 0, ?2, ?3)",
                rusqlite::params![id, name, user_name_key(name, native)],
            )
            .unwrap();
        }
        for (text, want) in [
            (r#"userName eq "ärzte-u@x.example""#, vec![1]),
            ("userName eq \"a\u{308}rzte-U@X.example\"", vec![1]),
            (
                "userName eq \"ä\u{FF32}\u{FF3A}\u{FF34}\u{FF25}-u@x.example\"",
                vec![1],
            ),
            (r#"userName eq "  ÄRZTE-U@X.EXAMPLE ""#, vec![1]),
            (r#"userName eq "arzte-u@x.example""#, vec![]),
            (r#"userName ne "ärzte-u@x.example""#, vec![2]),
            (r#"userName eq "STRASSE@KÖLN.EXAMPLE""#, vec![2]),
            (r#"userName sw "STRASS""#, vec![2]),
            (r#"userName sw "Ä""#, vec![1]),
            (r#"userName co "KÖLN""#, vec![2]),
            ("userName ew \"KO\u{308}LN.EXAMPLE\"", vec![2]),
            (r#"userName sw " ä""#, vec![]),
            // Keys order by code point: `ä` after every ASCII letter.
            (r#"userName lt "T""#, vec![2]),
            (r#"userName gt "z""#, vec![1]),
        ] {
            assert_eq!(query(&conn, text), want, "{text}");
        }
    }

    /// Each of [`PAIRS`] a filter may name compares its own card column, by its case rule,
    /// on SQL and on JSON alike; one it may not is refused by name.
    #[test]
    fn each_pair_filters_its_column() {
        for p in &PAIRS {
            let eq = |v: &str| format!("{} eq \"{v}\"", p.path());
            let f = parse(&eq("Paired")).unwrap();
            let user = match p.sub {
                Some(s) => json!({ (p.attr): { (s): "PAIRED" } }),
                None => json!({ (p.attr): "PAIRED" }),
            };
            assert_eq!(f.matches(&user), !p.case_exact, "{}", p.field);
            if !p.filtered {
                let e = f.to_sql(1, &native).unwrap_err();
                assert!(e.detail.ends_with("is not supported"), "{}", e.detail);
                continue;
            }
            let conn = schema();
            conn.execute(
                "INSERT INTO cards (id, account_id, title, first_name, last_name, status,
                    created_at, updated_at) VALUES (1, 1, 't', 'f', 'l', 'active', 0, 0)",
                [],
            )
            .unwrap();
            conn.execute(&format!("UPDATE cards SET {} = 'PAIRED'", p.field), [])
                .unwrap();
            assert_eq!(query(&conn, &eq("PAIRED")), [1], "{}", p.field);
            let found: &[i64] = if p.case_exact { &[] } else { &[1] };
            assert_eq!(query(&conn, &eq("Paired")), found, "{}", p.field);
        }
    }

    #[test]
    fn matches_json_resources() {
        let user = json!({"userName": "Ada", "id": "7", "externalId": "E1",
            "emails": [{"value": "a@x.example", "type": "home"}, {"value": "b@y.example", "type": "work"}],
            "phoneNumbers": [{"type": "mobile"}],
            "active": true, "name": {"givenName": "Ada"}, "count": 3});
        for (text, want) in [
            (r#"username eq "ada""#, true),
            (r#"ID eq "7""#, true),
            (r#"externalId eq "e1""#, false),
            (r#"externalId eq "E1""#, true),
            (r#"emails.value ew "@y.example""#, true),
            (r#"emails eq "a@x.example""#, true),
            (r#"EMAILS.VALUE eq "B@Y.EXAMPLE""#, true),
            (r#"emails[type eq "work" and value sw "b"]"#, true),
            (r#"emails[type eq "work" and value sw "a"]"#, false),
            (r#"emails[type eq "other"]"#, false),
            (r#"emails[type eq "work"].value eq "b@y.example""#, true),
            (r#"emails[type eq "home"].value eq "b@y.example""#, false),
            (r#"phoneNumbers pr"#, true),
            (r#"phoneNumbers.value pr"#, false),
            (r#"name[givenName sw "a"]"#, true),
            (r#"title pr"#, false),
            (r#"not (title eq "x")"#, true),
            (r#"title ne "x""#, true),
            (r#"active eq true and name.givenName pr"#, true),
            (r#"active eq false or count ge 3"#, true),
            (r#"count gt 3.5"#, false),
            (r#"count co 3"#, false),
        ] {
            assert_eq!(parse(text).unwrap().matches(&user), want, "{text}");
        }
        let email = json!({"value": "b@y.example", "type": "work"});
        assert!(parse(r#"type eq "WORK""#).unwrap().matches(&email));
        assert!(!parse(r#"type pr"#).unwrap().matches(&json!("work")));
    }
}
