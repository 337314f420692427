//! The one way request bodies become typed inputs: cards, leads, accounts and tokens (and
//! the inputs still to come) read their fields through [`Input`], which records errors in
//! Laravel's wording with dotted field names, so integrators migrating from the PHP service
//! keep handling the messages they know.

use serde_json::{Map, Value};

use super::validation::{self as v, FieldErrors, Rule};

/// Whether a body creates a resource or changes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    Update,
}

/// One field of a write: left out (keep it, or use the default), explicitly null (clear
/// it, or reset it), or a value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Set(T),
}

/// What an input writes to one column; the store binds it (a flag as 0/1).
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Text(String),
    Flag(bool),
}

/// The columns an input writes, in order: each column's name and what the input does to
/// it (`Absent` leaves it alone, `Null` clears it).
pub type Writes = Vec<(&'static str, Field<Column>)>;

/// A write of a column that is set or left alone, never cleared.
pub fn put<T>(value: Option<T>, column: impl FnOnce(T) -> Column) -> Field<Column> {
    value.map_or(Field::Absent, |v| Field::Set(column(v)))
}

/// A write of a nullable text column.
pub fn text(value: &Field<String>) -> Field<Column> {
    match value {
        Field::Absent => Field::Absent,
        Field::Null => Field::Null,
        Field::Set(s) => Field::Set(Column::Text(s.clone())),
    }
}

impl<T> Field<T> {
    /// The value, when there is one.
    pub fn value(&self) -> Option<&T> {
        match self {
            Field::Set(t) => Some(t),
            _ => None,
        }
    }
}

/// A body being read field by field; errors accumulate in the order fields are read,
/// which is the order the first one (`message`) is chosen in.
pub struct Input<'a> {
    body: &'a Map<String, Value>,
    errors: FieldErrors,
}

impl<'a> Input<'a> {
    pub fn new(body: &'a Map<String, Value>) -> Self {
        Input {
            body,
            errors: FieldErrors::new(),
        }
    }

    /// The raw state of a key.
    pub fn get(&self, field: &str) -> Field<&'a Value> {
        match self.body.get(field) {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(value) => Field::Set(value),
        }
    }

    /// A message of no particular rule.
    pub fn fail(&mut self, field: &str, message: String) {
        self.errors.add(field, message);
    }

    pub fn fail_rule(&mut self, field: &str, rule: Rule) {
        self.errors.add_rule(field, rule);
    }

    pub fn has_error(&self, field: &str) -> bool {
        self.errors.has(field)
    }

    /// The typed value when nothing failed, else every error found.
    pub fn finish<T>(self, value: T) -> Result<T, FieldErrors> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(self.errors)
        }
    }

    /// A string, trimmed; anything else is "must be a string" and reads as absent.
    pub fn string(&mut self, field: &str) -> Field<String> {
        self.string_at(field, self.body.get(field))
    }

    /// [`Input::string`] for a value that is not a top-level key (`social_links.0.url`).
    pub fn string_at(&mut self, field: &str, value: Option<&Value>) -> Field<String> {
        match value {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(Value::String(s)) => Field::Set(s.trim().to_string()),
            Some(_) => {
                self.fail_rule(field, Rule::String);
                Field::Absent
            }
        }
    }

    /// At most `max` characters (as users count them), else an error and `None`.
    pub fn max_chars(&mut self, field: &str, s: String, max: usize) -> Option<String> {
        if v::char_len(&s) > max {
            self.fail_rule(field, Rule::MaxChars(max));
            None
        } else {
            Some(s)
        }
    }

    /// A nullable text: an empty string counts as null, as Laravel's default middleware
    /// has it; integrators migrating from it rely on that.
    pub fn text(&mut self, field: &str, max: usize) -> Field<String> {
        self.text_as(field, max, |_| true, Rule::Format)
    }

    /// [`Input::text`] with a format check; length and format errors are both reported.
    pub fn text_as(
        &mut self,
        field: &str,
        max: usize,
        valid: fn(&str) -> bool,
        invalid: Rule,
    ) -> Field<String> {
        match self.string(field) {
            Field::Set(s) if s.is_empty() => Field::Null,
            Field::Set(s) => self.checked(field, s, max, valid, invalid),
            other => other,
        }
    }

    /// [`Input::text_as`] for an identifier (an external id, provisioning.md 1): only
    /// `null` clears it. An empty string (after trimming) is no id, and reading it as null
    /// would silently unlink the record it names, so it is an error ("at least 1").
    pub fn id_text_as(
        &mut self,
        field: &str,
        max: usize,
        valid: fn(&str) -> bool,
        invalid: Rule,
    ) -> Field<String> {
        match self.string(field) {
            Field::Set(s) if s.is_empty() => {
                self.fail_rule(field, Rule::MinChars(1));
                Field::Absent
            }
            Field::Set(s) => self.checked(field, s, max, valid, invalid),
            other => other,
        }
    }

    /// A non-empty text held to `max` characters and `valid`; both errors are reported.
    fn checked(
        &mut self,
        field: &str,
        s: String,
        max: usize,
        valid: fn(&str) -> bool,
        invalid: Rule,
    ) -> Field<String> {
        let too_long = v::char_len(&s) > max;
        if too_long {
            self.fail_rule(field, Rule::MaxChars(max));
        }
        if !valid(&s) {
            self.fail_rule(field, invalid);
            return Field::Absent;
        }
        if too_long {
            Field::Absent
        } else {
            Field::Set(s)
        }
    }

    /// A text that may not be empty: a missing key on create, null and the empty string
    /// are "required".
    pub fn required_text(&mut self, field: &str, max: usize, mode: Mode) -> Option<String> {
        match self.string(field) {
            Field::Absent if mode == Mode::Update || self.has_error(field) => None,
            Field::Absent | Field::Null => {
                self.fail_rule(field, Rule::Required);
                None
            }
            Field::Set(s) if s.is_empty() => {
                self.fail_rule(field, Rule::Required);
                None
            }
            Field::Set(s) => self.max_chars(field, s, max),
        }
    }

    /// Laravel's `boolean` rule: true, false, 1, 0, "1", "0" (and "true", "false").
    pub fn boolean(&mut self, field: &str) -> Field<bool> {
        match self.get(field) {
            Field::Set(value) => match laravel_bool(value) {
                Some(b) => Field::Set(b),
                None => {
                    self.fail_rule(field, Rule::Boolean);
                    Field::Absent
                }
            },
            Field::Null => Field::Null,
            Field::Absent => Field::Absent,
        }
    }

    /// A JSON `true` or `false` only.
    pub fn strict_bool_at(&mut self, field: &str, value: Option<&Value>) -> Field<bool> {
        match value {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(Value::Bool(b)) => Field::Set(*b),
            Some(_) => {
                self.fail_rule(field, Rule::Boolean);
                Field::Absent
            }
        }
    }

    /// One of a fixed set of names: an unknown string is "The selected X is invalid.",
    /// anything but a string "must be a string".
    pub fn choice<T>(&mut self, field: &str, parse: fn(&str) -> Option<T>) -> Field<T> {
        self.choice_at(field, self.body.get(field), parse)
    }

    pub fn choice_at<T>(
        &mut self,
        field: &str,
        value: Option<&Value>,
        parse: fn(&str) -> Option<T>,
    ) -> Field<T> {
        match value {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(Value::String(s)) => match parse(s) {
                Some(t) => Field::Set(t),
                None => {
                    self.fail_rule(field, Rule::Choice);
                    Field::Absent
                }
            },
            Some(_) => {
                self.fail_rule(field, Rule::String);
                Field::Absent
            }
        }
    }

    /// An integer in `min..=max`; `too_big` words the upper-bound message.
    pub fn integer(&mut self, field: &str, min: i64, max: i64, too_big: &str) -> Field<i64> {
        match self.get(field) {
            Field::Set(Value::Number(n)) => match n.as_i64() {
                Some(i) if i < min => {
                    self.fail_rule(field, Rule::Min(min));
                    Field::Absent
                }
                Some(i) if i > max => {
                    self.fail(field, too_big.to_string());
                    Field::Absent
                }
                Some(i) => Field::Set(i),
                None => {
                    self.fail_rule(field, Rule::Integer);
                    Field::Absent
                }
            },
            Field::Set(_) => {
                self.fail_rule(field, Rule::Integer);
                Field::Absent
            }
            Field::Null => Field::Null,
            Field::Absent => Field::Absent,
        }
    }
}

fn laravel_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) if n.as_i64() == Some(1) => Some(true),
        Value::Number(n) if n.as_i64() == Some(0) => Some(false),
        Value::String(s) if s == "1" || s == "true" => Some(true),
        Value::String(s) if s == "0" || s == "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn text_states() {
        let b = body(json!({"a": " x ", "b": "", "c": null, "d": 5, "e": "toolong"}));
        let mut i = Input::new(&b);
        assert_eq!(i.text("a", 10), Field::Set("x".into()));
        assert_eq!(i.text("b", 10), Field::Null, "empty is null");
        assert_eq!(i.text("c", 10), Field::Null);
        assert_eq!(i.text("d", 10), Field::Absent);
        assert_eq!(i.text("e", 3), Field::Absent);
        assert_eq!(i.text("missing", 3), Field::Absent);
        let e = i.finish(()).unwrap_err().to_json();
        assert_eq!(e["d"][0], "The d field must be a string.");
        assert_eq!(
            e["e"][0],
            "The e field must not be greater than 3 characters."
        );
    }

    #[test]
    fn text_reports_length_and_format_together() {
        let b = body(json!({"email": "x".repeat(12)}));
        let mut i = Input::new(&b);
        assert_eq!(
            i.text_as("email", 10, v::is_email, Rule::Email),
            Field::Absent
        );
        let e = i.finish(()).unwrap_err().to_json();
        assert_eq!(e["email"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn an_id_is_never_cleared_by_an_empty_string() {
        let b = body(json!({"e": "", "w": "  ", "n": null, "x": " x ", "bad": "\u{e9}"}));
        let mut i = Input::new(&b);
        let ascii = |s: &str| s.is_ascii();
        assert_eq!(i.id_text_as("e", 5, ascii, Rule::Format), Field::Absent);
        assert_eq!(i.id_text_as("w", 5, ascii, Rule::Format), Field::Absent);
        assert_eq!(i.id_text_as("n", 5, ascii, Rule::Format), Field::Null);
        assert_eq!(
            i.id_text_as("x", 5, ascii, Rule::Format),
            Field::Set("x".into()),
            "trimmed like every text"
        );
        assert_eq!(i.id_text_as("bad", 5, ascii, Rule::Format), Field::Absent);
        assert_eq!(
            i.id_text_as("missing", 5, ascii, Rule::Format),
            Field::Absent
        );
        let e = i.finish(()).unwrap_err().to_json();
        assert_eq!(
            e["e"],
            json!(["The e field must be at least 1 characters."])
        );
        assert_eq!(
            e["w"],
            json!(["The w field must be at least 1 characters."])
        );
        assert_eq!(e["bad"], json!(["The bad field format is invalid."]));
        assert!(e.get("n").is_none() && e.get("missing").is_none());
    }

    #[test]
    fn required_text_by_mode() {
        let b = body(json!({"n": null, "e": " ", "w": 1}));
        let mut i = Input::new(&b);
        assert_eq!(i.required_text("missing", 5, Mode::Update), None);
        assert!(!i.has_error("missing"));
        assert_eq!(i.required_text("missing", 5, Mode::Create), None);
        assert_eq!(i.required_text("n", 5, Mode::Update), None);
        assert_eq!(i.required_text("e", 5, Mode::Update), None);
        assert_eq!(i.required_text("w", 5, Mode::Create), None);
        let e = i.finish(()).unwrap_err().to_json();
        assert_eq!(e["missing"][0], "The missing field is required.");
        assert_eq!(e["n"][0], "The n field is required.");
        assert_eq!(e["e"][0], "The e field is required.");
        assert_eq!(e["w"], json!(["The w field must be a string."]));
    }

    #[test]
    fn booleans_choices_and_integers() {
        let b = body(
            json!({"t": "1", "f": 0, "bad": "yes", "c": "pro", "x": "gold",
                            "i": 5, "neg": -1, "big": 9, "frac": 1.5}),
        );
        let mut i = Input::new(&b);
        assert_eq!(i.boolean("t"), Field::Set(true));
        assert_eq!(i.boolean("f"), Field::Set(false));
        assert_eq!(i.boolean("bad"), Field::Absent);
        let parse = |s: &str| (s == "pro").then_some(1);
        assert_eq!(i.choice("c", parse), Field::Set(1));
        assert_eq!(i.choice("x", parse), Field::Absent);
        assert_eq!(i.integer("i", 0, 8, "big"), Field::Set(5));
        assert_eq!(i.integer("neg", 0, 8, "big"), Field::Absent);
        assert_eq!(i.integer("big", 0, 8, "too big"), Field::Absent);
        assert_eq!(i.integer("frac", 0, 8, "big"), Field::Absent);
        let e = i.finish(()).unwrap_err().to_json();
        assert_eq!(e["bad"][0], "The bad field must be true or false.");
        assert_eq!(e["x"][0], "The selected x is invalid.");
        assert_eq!(e["neg"][0], "The neg field must be at least 0.");
        assert_eq!(e["big"][0], "too big");
        assert_eq!(e["frac"][0], "The frac field must be an integer.");
    }
}
