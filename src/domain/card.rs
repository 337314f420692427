//! Cards: the typed create and update inputs (spec 4.3, 4.4, 8) with plan coercion (4.5),
//! the stored card record, and its output shape (2.1).

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::design;
use super::input::{self, put, Column, Field, Input, Mode, Writes};
use super::lang::{self, DEFAULT_LANGUAGE};
use super::plan::Features;
use super::representation::{masks, record, show, stored};
use super::validation::{self as v, FieldErrors, Rule};

/// Social platforms of spec 2.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Linkedin,
    Xing,
    X,
    Facebook,
    Instagram,
    Youtube,
    Tiktok,
    Github,
    Gitlab,
    Behance,
    Dribbble,
    Pinterest,
    Snapchat,
    Threads,
    Mastodon,
    Bluesky,
    Whatsapp,
    Telegram,
    Signal,
    Skype,
    Discord,
    Twitch,
    Spotify,
    Soundcloud,
    Vimeo,
    Medium,
    Website,
    Other,
}

impl Platform {
    pub const ALL: [Platform; 28] = [
        Platform::Linkedin,
        Platform::Xing,
        Platform::X,
        Platform::Facebook,
        Platform::Instagram,
        Platform::Youtube,
        Platform::Tiktok,
        Platform::Github,
        Platform::Gitlab,
        Platform::Behance,
        Platform::Dribbble,
        Platform::Pinterest,
        Platform::Snapchat,
        Platform::Threads,
        Platform::Mastodon,
        Platform::Bluesky,
        Platform::Whatsapp,
        Platform::Telegram,
        Platform::Signal,
        Platform::Skype,
        Platform::Discord,
        Platform::Twitch,
        Platform::Spotify,
        Platform::Soundcloud,
        Platform::Vimeo,
        Platform::Medium,
        Platform::Website,
        Platform::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Linkedin => "linkedin",
            Platform::Xing => "xing",
            Platform::X => "x",
            Platform::Facebook => "facebook",
            Platform::Instagram => "instagram",
            Platform::Youtube => "youtube",
            Platform::Tiktok => "tiktok",
            Platform::Github => "github",
            Platform::Gitlab => "gitlab",
            Platform::Behance => "behance",
            Platform::Dribbble => "dribbble",
            Platform::Pinterest => "pinterest",
            Platform::Snapchat => "snapchat",
            Platform::Threads => "threads",
            Platform::Mastodon => "mastodon",
            Platform::Bluesky => "bluesky",
            Platform::Whatsapp => "whatsapp",
            Platform::Telegram => "telegram",
            Platform::Signal => "signal",
            Platform::Skype => "skype",
            Platform::Discord => "discord",
            Platform::Twitch => "twitch",
            Platform::Spotify => "spotify",
            Platform::Soundcloud => "soundcloud",
            Platform::Vimeo => "vimeo",
            Platform::Medium => "medium",
            Platform::Website => "website",
            Platform::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<Platform> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// One entry of `social_links`, normalised to `{platform, url, label}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocialLink {
    pub platform: Platform,
    /// An `http(s)` URL or a handle.
    pub url: String,
    pub label: Option<String>,
}

pub const MAX_SOCIAL_LINKS: usize = 20;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    /// What a stored status that reads as none of these is taken for.
    #[default]
    Draft,
    Archived,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Draft => "draft",
            Status::Archived => "archived",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        [Status::Active, Status::Draft, Status::Archived]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// A validated update body (spec 4.4): only the fields it carries change. Nullable columns
/// are a [`Field`]; the others are `None` when absent (their `null` means "leave as is" or
/// is normalised, e.g. `social_links: null` is the empty list).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardPatch {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub job_title: Field<String>,
    pub company: Field<String>,
    pub bio: Field<String>,
    pub email: Field<String>,
    pub phone: Field<String>,
    pub website: Field<String>,
    pub booking_url: Field<String>,
    pub video_url: Field<String>,
    pub address: Field<String>,
    pub social_links: Option<Vec<SocialLink>>,
    pub design_config: Option<Map<String, Value>>,
    pub template_id: Field<String>,
    pub is_public: Option<bool>,
    pub show_branding: Option<bool>,
    pub show_lead_form: Option<bool>,
    pub seo_title: Field<String>,
    pub seo_description: Field<String>,
    /// One of the 19 codes of [`lang::LANGUAGES`].
    pub language: Option<String>,
    pub status: Option<Status>,
    /// provisioning.md 1: 1-255 printable ASCII characters.
    pub external_id: Field<String>,
    /// A SCIM User's userName, its key (`scim::user_name`: what the name is unique and
    /// found by) and its attributes as written, JSON (provisioning.md 2): set by SCIM only,
    /// the card API's bodies never carry them.
    pub scim_user_name: Field<String>,
    pub scim_user_key: Field<String>,
    pub scim_user: Field<String>,
    /// What the card's company template adds to the write (`domain::template::apply`).
    pub template: Option<Templated>,
}

/// A write of a card that uses a template (teams.md 1): the template's `rev` the card is
/// brought in line with, and its unlocked values, which fill the card's empty fields when
/// the card starts using the template (its `template_id` was not `start` before).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Templated {
    pub id: i64,
    pub rev: i64,
    pub start: String,
    pub defaults: Writes,
}

impl CardPatch {
    /// The columns the patch writes, in the order of [`read`]: an input field's column is
    /// its line here, next to its field and its line in `read`.
    pub fn writes(&self) -> Writes {
        // Exhaustive: a field of the patch without its column does not compile.
        let CardPatch {
            first_name,
            last_name,
            job_title,
            company,
            bio,
            email,
            phone,
            website,
            booking_url,
            video_url,
            address,
            social_links,
            design_config,
            template_id,
            is_public,
            show_branding,
            show_lead_form,
            seo_title,
            seo_description,
            language,
            status,
            external_id,
            scim_user_name,
            scim_user_key,
            scim_user,
            // Not a column of its own: the store writes it (`store::cards`).
            template: _,
        } = self;
        let text = |s: &Option<String>| put(s.clone(), Column::Text);
        let flag = |b: Option<bool>| put(b, Column::Flag);
        vec![
            ("first_name", text(first_name)),
            ("last_name", text(last_name)),
            ("job_title", input::text(job_title)),
            ("company", input::text(company)),
            ("bio", input::text(bio)),
            ("email", input::text(email)),
            ("phone", input::text(phone)),
            ("website", input::text(website)),
            ("booking_url", input::text(booking_url)),
            ("video_url", input::text(video_url)),
            ("address", input::text(address)),
            ("social_links", put(social_links.as_ref(), json_text)),
            ("design_config", put(design_config.as_ref(), json_text)),
            ("template_id", input::text(template_id)),
            ("is_public", flag(*is_public)),
            ("show_branding", flag(*show_branding)),
            ("show_lead_form", flag(*show_lead_form)),
            ("seo_title", input::text(seo_title)),
            ("seo_description", input::text(seo_description)),
            ("language", text(language)),
            (
                "status",
                put(*status, |s: Status| Column::Text(s.as_str().into())),
            ),
            ("external_id", input::text(external_id)),
            ("scim_user_name", input::text(scim_user_name)),
            ("scim_user_key", input::text(scim_user_key)),
            ("scim_user", input::text(scim_user)),
        ]
    }
}

/// JSON text of a value the domain built (links, objects): those always serialise.
fn json_text<T: Serialize>(value: &T) -> Column {
    Column::Text(serde_json::to_string(value).unwrap_or_default())
}

/// The columns a SCIM User is kept in besides the card's fields: its userName, the
/// name's key and the other attributes as written (JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct ScimColumns {
    pub name: Field<String>,
    pub key: Field<String>,
    pub rest: Field<String>,
}

/// A validated create body (spec 4.3): a patch whose names are always set.
#[derive(Debug, Clone, PartialEq)]
pub struct CardInput(CardPatch);

impl CardPatch {
    /// Unknown and output-only keys are ignored.
    pub fn parse(body: &Map<String, Value>) -> Result<CardPatch, FieldErrors> {
        let mut input = Input::new(body);
        let patch = read(&mut input, Mode::Update);
        input.finish(patch)
    }

    /// Spec 4.5: plan-gated fields are coerced, never rejected.
    pub fn apply_plan(&mut self, features: Features) {
        if !features.advanced_analytics {
            self.video_url = Field::Absent;
        }
        if !features.white_label && self.show_branding.is_some() {
            self.show_branding = Some(true);
        }
        if !features.lead_form && self.show_lead_form.is_some() {
            self.show_lead_form = Some(false);
        }
    }
}

impl CardInput {
    pub fn parse(body: &Map<String, Value>) -> Result<CardInput, FieldErrors> {
        let mut input = Input::new(body);
        let patch = read(&mut input, Mode::Create);
        input.finish(CardInput(patch))
    }

    pub fn first_name(&self) -> &str {
        self.0.first_name.as_deref().unwrap_or_default()
    }

    pub fn last_name(&self) -> &str {
        self.0.last_name.as_deref().unwrap_or_default()
    }

    /// What a SCIM User adds to a card (provisioning.md 2): its userName, the name's key,
    /// its attributes as written (JSON) and its `active`, which the card API's create does
    /// not take.
    pub fn set_scim(&mut self, user: ScimColumns, status: Status) {
        (
            self.0.scim_user_name,
            self.0.scim_user_key,
            self.0.scim_user,
        ) = (user.name, user.key, user.rest);
        self.0.status = Some(status);
    }

    /// The columns to set, defaults included once [`CardInput::apply_plan`] ran.
    pub fn fields(&self) -> &CardPatch {
        &self.0
    }

    pub fn fields_mut(&mut self) -> &mut CardPatch {
        &mut self.0
    }

    /// Fills in the defaults, then coerces like an update, so the insert names every
    /// plan-dependent column it sets.
    pub fn apply_plan(&mut self, features: Features) {
        let p = &mut self.0;
        p.is_public.get_or_insert(true);
        p.show_branding.get_or_insert(true);
        p.show_lead_form.get_or_insert(features.lead_form);
        p.language.get_or_insert_with(|| DEFAULT_LANGUAGE.into());
        p.apply_plan(features);
    }
}

/// Reads every card field in the order of spec 4.3, which is the order errors are
/// reported in.
fn read(input: &mut Input, mode: Mode) -> CardPatch {
    let name = |input: &mut Input, field: &str| match (input.get(field), mode) {
        // Update names are "plain string" (spec 4.4): null is no string.
        (Field::Null, Mode::Update) => {
            input.fail(field, v::must_be_string(field));
            None
        }
        _ => input.required_text(field, 100, mode),
    };
    let url = |input: &mut Input, field: &str| input.text_as(field, 500, v::is_http_url, Rule::Url);
    CardPatch {
        first_name: name(input, "first_name"),
        last_name: name(input, "last_name"),
        job_title: input.text("job_title", 150),
        company: input.text("company", 150),
        bio: input.text("bio", 1000),
        email: input.text_as("email", 255, v::is_email, Rule::Email),
        phone: input.text_as("phone", 50, v::is_phone, Rule::Format),
        website: url(input, "website"),
        booking_url: url(input, "booking_url"),
        video_url: url(input, "video_url"),
        address: input.text("address", 500),
        social_links: social_links(input),
        design_config: design_config(input),
        template_id: input.text("template_id", 50),
        // null means "use the default" on create and "leave unchanged" on update.
        is_public: input.boolean("is_public").value().copied(),
        show_branding: input.boolean("show_branding").value().copied(),
        show_lead_form: input.boolean("show_lead_form").value().copied(),
        seo_title: input.text("seo_title", 100),
        seo_description: input.text("seo_description", 250),
        language: language(input),
        // Not accepted on create: ignored there like any unknown key.
        status: match mode {
            Mode::Create => None,
            Mode::Update => input.choice("status", Status::parse).value().copied(),
        },
        // An empty string is a 422, not null (provisioning.md 1: 1 to 255 characters).
        external_id: input.id_text_as("external_id", MAX_EXTERNAL_ID, is_external_id, Rule::Format),
        scim_user_name: Field::Absent,
        scim_user_key: Field::Absent,
        scim_user: Field::Absent,
        template: None,
    }
}

fn language(input: &mut Input) -> Option<String> {
    const FIELD: &str = "language";
    match input.get(FIELD) {
        Field::Absent => None,
        // An explicit null is a 422 (spec 4.3), not "use the default".
        Field::Null => {
            input.fail(FIELD, v::must_be_string(FIELD));
            None
        }
        Field::Set(_) => input
            .choice(FIELD, |s| lang::is_language(s).then(|| s.to_string()))
            .value()
            .cloned(),
    }
}

fn design_config(input: &mut Input) -> Option<Map<String, Value>> {
    const FIELD: &str = "design_config";
    match input.get(FIELD) {
        Field::Absent => None,
        Field::Null => Some(Map::new()),
        Field::Set(Value::Object(map)) => {
            for (field, rule) in design::validate(map) {
                input.fail_rule(&field, rule);
            }
            Some(map.clone())
        }
        // PHP cannot tell `[]` from `{}`; accept the empty array as an empty object.
        Field::Set(Value::Array(a)) if a.is_empty() => Some(Map::new()),
        Field::Set(_) => {
            input.fail(FIELD, v::must_be_object(FIELD));
            None
        }
    }
}

/// Spec 2.5: at most 20 entries of `{platform, url, label}`; errors name the entry
/// (`social_links.3.url`).
fn social_links(input: &mut Input) -> Option<Vec<SocialLink>> {
    const FIELD: &str = "social_links";
    let items = match input.get(FIELD) {
        Field::Absent => return None,
        Field::Null => return Some(Vec::new()),
        Field::Set(Value::Array(items)) => items,
        Field::Set(_) => {
            input.fail(FIELD, v::must_be_array(FIELD));
            return None;
        }
    };
    if items.len() > MAX_SOCIAL_LINKS {
        input.fail(FIELD, v::max_items(FIELD, MAX_SOCIAL_LINKS));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut valid = true;
    for (i, item) in items.iter().enumerate() {
        let key = |name: &str| format!("{FIELD}.{i}.{name}");
        let Some(obj) = item.as_object() else {
            let field = format!("{FIELD}.{i}");
            input.fail(&field, v::must_be_object(&field));
            valid = false;
            continue;
        };
        let platform = match obj.get("platform") {
            None | Some(Value::Null) => {
                input.fail(&key("platform"), v::required(&key("platform")));
                None
            }
            value => input
                .choice_at(&key("platform"), value, Platform::parse)
                .value()
                .copied(),
        };
        let url = match input.string_at(&key("url"), obj.get("url")) {
            Field::Set(u) if !u.is_empty() => {
                let max = v::char_len(&u) > 500;
                if max {
                    input.fail(&key("url"), v::max_chars(&key("url"), 500));
                    None
                } else if !is_link_or_handle(&u) {
                    input.fail(&key("url"), v::invalid_format(&key("url")));
                    None
                } else {
                    Some(u)
                }
            }
            Field::Absent if input.has_error(&key("url")) => None,
            _ => {
                input.fail(&key("url"), v::required(&key("url")));
                None
            }
        };
        let label = match input.string_at(&key("label"), obj.get("label")) {
            Field::Set(l) if l.is_empty() => Some(None),
            Field::Set(l) => input.max_chars(&key("label"), l, 100).map(Some),
            Field::Null => Some(None),
            Field::Absent if input.has_error(&key("label")) => None,
            Field::Absent => Some(None),
        };
        match (platform, url, label) {
            (Some(platform), Some(url), Some(label)) => out.push(SocialLink {
                platform,
                url,
                label,
            }),
            _ => valid = false,
        }
    }
    valid.then_some(out)
}

/// The longest external id (provisioning.md 1).
pub const MAX_EXTERNAL_ID: usize = 255;

/// provisioning.md 1: printable ASCII (0x20 to 0x7E) only; the length is checked apart.
pub fn is_external_id(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// product.md: an `http(s)://` URI, or a handle of 1-500 characters without whitespace.
pub fn is_link_or_handle(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        v::is_http_url(s)
    } else {
        !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control())
    }
}

/// The card representation (spec 2.1) in its field order, with `account_id` (stored, not
/// shown). In SQL, `?1` is the base URL and the masks' features are bound by
/// `store::views::card_args`.
macro_rules! card_fields {
    ($cb:ident $($pre:tt)*) => {
        $cb! {
            $($pre)*
            id: int,
            account_id: internal,
            // provisioning.md 1: the integrator's own id, unique within the account.
            external_id: opt_text,
            slug: text,
            title: text,
            first_name: text,
            last_name: text,
            job_title: opt_text,
            company: opt_text,
            bio: opt_text,
            email: opt_text,
            phone: opt_text,
            website: opt_text,
            booking_url: opt_text,
            video_url: opt_text if advanced_analytics else None,
            address: opt_text,
            tagline: opt_text,
            company_registration: opt_text,
            vat_id: opt_text,
            social_links: json("[]"),
            design_config: json("{}"),
            section_visibility: json("{}"),
            template_id: opt_text,
            card_type: opt_text,
            is_public: flag,
            is_password_protected: flag,
            show_branding: flag if white_label else true,
            show_lead_form: flag if lead_form else false,
            seo_title: opt_text,
            seo_description: opt_text,
            seo_indexable: flag,
            status: status(Status),
            language: text,
            // `[language]` and the translation keys that are language codes, sorted,
            // unique; without translations (most cards) just `[language]`, not two
            // `json_each`, a UNION and a sort (a fifth of the SQLite time of a page of cards).
            available_languages: derived(
                |card: &Card, _: &str| {
                    $crate::domain::lang::available_languages(&card.language, &card.translations())
                },
                concat!(
                    "iif(translations = '{}', json_array(language), ",
                    "json((SELECT json_group_array(code) FROM (",
                    "SELECT value AS code FROM json_each(json_array(language)) UNION ",
                    "SELECT key FROM json_each(iif(json_valid(translations), translations, '{}')) ",
                    "WHERE key IN (",
                    $crate::domain::lang::language_codes_sql!(),
                    ") ORDER BY code))))"
                )
            ),
            translations: json("{}"),
            public_url: derived(
                |card: &Card, base_url: &str| card.public_url(base_url),
                "?1 || '/c/' || slug"
            ),
            // provisioning.md 2: a SCIM User's userName, and its attributes as SCIM last
            // wrote them (JSON), shown by SCIM only.
            scim_user_name: hidden,
            scim_user: hidden,
            published_at: opt_time,
            expires_at: opt_time,
            created_at: time,
            updated_at: time,
        }
    };
}
pub(crate) use card_fields;

card_fields!(stored record [
    /// A card as stored. JSON columns stay JSON text (checked to parse) so the API embeds
    /// them as they are. Its fields are those of [`card_fields!`].
    #[derive(Debug, Clone, Default)]
    Card;
]);
card_fields!(show Card;);
card_fields!(masks Card;);

impl Card {
    pub fn public_url(&self, base_url: &str) -> String {
        format!("{}/c/{}", base_url.trim_end_matches('/'), self.slug)
    }

    /// Whether the public page may be shown at `now_ms` (product.md 4).
    pub fn is_live(&self, now_ms: i64) -> bool {
        self.is_public
            && self.status == Status::Active
            && self.expires_at.is_none_or(|e| e > now_ms)
    }

    /// The card as the account's current features let it be shown (extensions.md 5): the
    /// stored values are kept, so an upgrade brings them back.
    pub fn effective(mut self, features: Features) -> Card {
        self.show_as(features);
        self
    }

    /// The links as the page uses them; an entry that does not read as one is skipped.
    pub fn social_links(&self) -> Vec<SocialLink> {
        let items: Vec<Value> = serde_json::from_str(self.social_links.get()).unwrap_or_default();
        items
            .into_iter()
            .filter_map(|item| serde_json::from_value(item).ok())
            .collect()
    }

    pub fn translations(&self) -> Value {
        serde_json::from_str(self.translations.get()).unwrap_or_default()
    }

    pub fn view<'a>(&'a self, base_url: &'a str) -> CardView<'a> {
        CardView {
            card: self,
            base_url,
        }
    }
}

/// Spec 2.1: a card as shown, in the order of [`card_fields!`].
#[derive(Debug)]
pub struct CardView<'a> {
    card: &'a Card,
    base_url: &'a str,
}

impl Serialize for CardView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_struct("Card", Card::SHOWN)?;
        self.card.show_fields(self.base_url, &mut out)?;
        out.end()
    }
}

/// A card for unit tests of the layers above: the fields they read set, `social_links` as
/// given; the others are their defaults (so a new field needs no line here).
#[cfg(test)]
pub fn fixture(social_links: &str) -> Card {
    let json = |s: &str| serde_json::value::RawValue::from_string(s.to_string()).unwrap();
    Card {
        id: 1,
        account_id: 1,
        slug: "ada".into(),
        title: "Ada L".into(),
        first_name: "Ada".into(),
        last_name: "L".into(),
        email: Some("ada@example.com".into()),
        phone: Some("+49 (30) 123-45".into()),
        website: Some("https://ada.example".into()),
        video_url: Some("javascript:alert(1)".into()),
        address: Some("Main St 1, Berlin".into()),
        social_links: json(social_links),
        design_config: json("{}"),
        section_visibility: json("{}"),
        is_public: true,
        show_branding: true,
        show_lead_form: true,
        seo_indexable: true,
        status: Status::Active,
        language: "en".into(),
        translations: json("{}"),
        published_at: Some(0),
        ..Card::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn validate(v: &Map<String, Value>, mode: Mode) -> Result<CardPatch, FieldErrors> {
        match mode {
            Mode::Create => CardInput::parse(v).map(|c| c.0),
            Mode::Update => CardPatch::parse(v),
        }
    }

    fn errs(v: Value, mode: Mode) -> Value {
        validate(&obj(v), mode).unwrap_err().to_json()
    }

    const ALL: Features = Features {
        api_access: true,
        advanced_analytics: true,
        white_label: true,
        lead_form: true,
    };
    const NONE: Features = Features {
        api_access: true,
        advanced_analytics: false,
        white_label: false,
        lead_form: false,
    };

    #[test]
    fn create_requires_names() {
        let e = validate(&obj(json!({})), Mode::Create).unwrap_err();
        assert_eq!(
            e.summary(),
            "The first name field is required. (and 1 more error)"
        );
        assert_eq!(
            errs(json!({"first_name": null, "last_name": "  "}), Mode::Create),
            json!({"first_name": ["The first name field is required."],
                   "last_name": ["The last name field is required."]})
        );
        assert_eq!(
            errs(json!({"first_name": 5, "last_name": "B"}), Mode::Create),
            json!({"first_name": ["The first name field must be a string."]})
        );
        assert_eq!(
            errs(json!({"first_name": null}), Mode::Update),
            json!({"first_name": ["The first name field must be a string."]})
        );
        assert_eq!(
            validate(&obj(json!({})), Mode::Update).unwrap(),
            CardPatch::default()
        );
        let c = CardInput::parse(&obj(json!({"first_name": " Ada ", "last_name": "L"}))).unwrap();
        assert_eq!((c.first_name(), c.last_name()), ("Ada", "L"));
    }

    #[test]
    fn lengths_at_and_over_the_limit() {
        let limits = [
            ("first_name", 100),
            ("last_name", 100),
            ("job_title", 150),
            ("company", 150),
            ("bio", 1000),
            ("address", 500),
            ("template_id", 50),
            ("seo_title", 100),
            ("seo_description", 250),
        ];
        for (field, max) in limits {
            let ok = json!({"first_name": "A", "last_name": "B", field: "é".repeat(max)});
            assert!(validate(&obj(ok), Mode::Create).is_ok(), "{field} at {max}");
            let bad = json!({field: "é".repeat(max + 1)});
            let e = errs(bad, Mode::Update);
            assert_eq!(
                e[field][0],
                format!(
                    "The {} field must not be greater than {max} characters.",
                    field.replace('_', " ")
                )
            );
        }
        let url = format!("https://e.com/{}", "a".repeat(500 - 14));
        assert!(validate(&obj(json!({"website": url})), Mode::Update).is_ok());
        assert!(validate(&obj(json!({"website": format!("{url}a")})), Mode::Update).is_err());
        let mail = format!(
            "{}@{}.{}.{}.com",
            "a".repeat(64),
            "b".repeat(60),
            "c".repeat(61),
            "d".repeat(63)
        );
        assert_eq!(mail.len(), 255);
        assert!(validate(&obj(json!({"email": mail})), Mode::Update).is_ok());
        let phone = "1".repeat(50);
        assert!(validate(&obj(json!({"phone": phone})), Mode::Update).is_ok());
        assert!(validate(&obj(json!({"phone": "1".repeat(51)})), Mode::Update).is_err());
    }

    #[test]
    fn formats_and_types() {
        let e = errs(
            json!({"email": "nope", "phone": "abc", "website": "javascript:alert(1)",
                   "company": 5, "is_public": "yes", "design_config": [1],
                   "language": "xx", "status": "gone"}),
            Mode::Update,
        );
        assert_eq!(
            e["email"][0],
            "The email field must be a valid email address."
        );
        assert_eq!(e["phone"][0], "The phone field format is invalid.");
        assert_eq!(e["website"][0], "The website field must be a valid URL.");
        assert_eq!(e["company"][0], "The company field must be a string.");
        assert_eq!(
            e["is_public"][0],
            "The is public field must be true or false."
        );
        assert_eq!(
            e["design_config"][0],
            "The design config field must be an object."
        );
        assert_eq!(e["language"][0], "The selected language is invalid.");
        assert_eq!(e["status"][0], "The selected status is invalid.");
    }

    #[test]
    fn language_null_is_rejected_and_status_null_accepted() {
        let e = errs(json!({"language": null}), Mode::Update);
        assert!(e.get("language").is_some());
        let c = validate(&obj(json!({"status": null})), Mode::Update).unwrap();
        assert_eq!(c, CardPatch::default());
        let c = validate(&obj(json!({"status": "archived"})), Mode::Update).unwrap();
        assert_eq!(c.status, Some(Status::Archived));
        // status is not accepted on create: ignored like any unknown key
        let c = validate(
            &obj(json!({"first_name": "a", "last_name": "b", "status": "draft"})),
            Mode::Create,
        )
        .unwrap();
        assert_eq!(c.status, None);
    }

    #[test]
    fn empty_optional_strings_become_null_and_strings_are_trimmed() {
        let c = validate(&obj(json!({"company": "", "bio": "  hi  "})), Mode::Update).unwrap();
        assert_eq!(c.company, Field::Null);
        assert_eq!(c.bio, Field::Set("hi".into()));
        assert_eq!(c.job_title, Field::Absent);
    }

    /// provisioning.md 1 (issue 44): an external id is 1 to 255 characters or null; an
    /// empty string is a 422 in every write, never a silent null.
    #[test]
    fn an_empty_external_id_is_refused_not_cleared() {
        let names = json!({"first_name": "A", "last_name": "B"});
        for empty in ["", "   "] {
            let mut body = obj(names.clone());
            body.insert("external_id".into(), empty.into());
            for mode in [Mode::Create, Mode::Update] {
                let e = validate(&body, mode).unwrap_err().to_json();
                assert_eq!(
                    e,
                    json!({"external_id": ["The external id field must be at least 1 characters."]}),
                    "{empty:?} {mode:?}"
                );
            }
        }
        let c = validate(&obj(json!({"external_id": null})), Mode::Update).unwrap();
        assert_eq!(c.external_id, Field::Null, "null clears it");
        let c = validate(&obj(json!({"external_id": " crm-1 "})), Mode::Update).unwrap();
        assert_eq!(c.external_id, Field::Set("crm-1".into()));
    }

    #[test]
    fn output_only_and_unknown_fields_are_ignored() {
        let c = validate(
            &obj(
                json!({"tagline": "x", "vat_id": "y", "id": 9, "slug": "s", "foo": 1,
                        "translations": {"de": {}}, "seo_indexable": false}),
            ),
            Mode::Update,
        )
        .unwrap();
        assert_eq!(c, CardPatch::default());
    }

    #[test]
    fn design_config_forms() {
        let c = validate(
            &obj(json!({"design_config": {"b": 1, "a": [2]}})),
            Mode::Update,
        )
        .unwrap();
        assert_eq!(
            Value::Object(c.design_config.unwrap()),
            json!({"a": [2], "b": 1})
        );
        for empty in [json!(null), json!([])] {
            let c = validate(&obj(json!({"design_config": empty})), Mode::Update).unwrap();
            assert_eq!(c.design_config, Some(Map::new()));
        }
    }

    #[test]
    fn social_links_rules() {
        let ok = json!({"social_links": [
            {"platform": "linkedin", "url": "https://linkedin.com/in/x", "label": "Me"},
            {"platform": "mastodon", "url": "@me@social.example"}]});
        let c = validate(&obj(ok), Mode::Update).unwrap();
        assert_eq!(
            serde_json::to_value(c.social_links.unwrap()).unwrap(),
            json!([{"platform": "linkedin", "url": "https://linkedin.com/in/x", "label": "Me"},
                   {"platform": "mastodon", "url": "@me@social.example", "label": null}])
        );
        let many: Vec<Value> = (0..21)
            .map(|_| json!({"platform": "x", "url": "h"}))
            .collect();
        assert_eq!(
            errs(json!({"social_links": many}), Mode::Update)["social_links"][0],
            "The social links field must not have more than 20 items."
        );
        let twenty: Vec<Value> = (0..20)
            .map(|_| json!({"platform": "x", "url": "h"}))
            .collect();
        assert!(validate(&obj(json!({"social_links": twenty})), Mode::Update).is_ok());
        let e = errs(
            json!({"social_links": [
                {"platform": "myspace", "url": "has space"},
                {"platform": "x", "url": "a".repeat(501), "label": "l".repeat(101)},
                "str",
                {"url": "https://"},
                {"platform": 5, "url": 5, "label": 5}]}),
            Mode::Update,
        );
        assert_eq!(
            e["social_links.0.platform"][0],
            "The selected social links.0.platform is invalid."
        );
        assert_eq!(
            e["social_links.0.url"][0],
            "The social links.0.url field format is invalid."
        );
        assert!(e.get("social_links.1.url").is_some());
        assert!(e.get("social_links.1.label").is_some());
        assert!(e.get("social_links.2").is_some());
        assert_eq!(
            e["social_links.3.platform"][0],
            "The social links.3.platform field is required."
        );
        assert!(e.get("social_links.3.url").is_some());
        for f in ["platform", "url", "label"] {
            assert_eq!(
                e[format!("social_links.4.{f}")],
                json!([format!("The social links.4.{f} field must be a string.")])
            );
        }
        let c = validate(&obj(json!({"social_links": null})), Mode::Update).unwrap();
        assert_eq!(c.social_links, Some(vec![]));
        // A label that is empty or null is no label.
        let c = validate(
            &obj(json!({"social_links": [{"platform": "x", "url": "h", "label": " "}]})),
            Mode::Update,
        )
        .unwrap();
        assert_eq!(c.social_links.unwrap()[0].label, None);
    }

    #[test]
    fn plan_coercion() {
        let body = obj(json!({"first_name": "a", "last_name": "b",
            "video_url": "https://v.example/1", "show_branding": false, "show_lead_form": true}));
        let mut c = CardInput::parse(&body).unwrap();
        c.apply_plan(NONE);
        let f = c.fields();
        assert_eq!(f.video_url, Field::Absent);
        assert_eq!(f.show_branding, Some(true));
        assert_eq!(f.show_lead_form, Some(false));
        assert_eq!(f.language.as_deref(), Some("en"));
        let mut c = CardInput::parse(&body).unwrap();
        c.apply_plan(ALL);
        let f = c.fields();
        assert_eq!(f.video_url, Field::Set("https://v.example/1".into()));
        assert_eq!(f.show_branding, Some(false));
        assert_eq!(f.show_lead_form, Some(true));
        assert_eq!(f.is_public, Some(true));
        let mut c = CardPatch::parse(&obj(json!({"bio": "x"}))).unwrap();
        c.apply_plan(NONE);
        assert_eq!(
            c,
            CardPatch {
                bio: Field::Set("x".into()),
                ..CardPatch::default()
            },
            "update leaves unprovided gated fields alone"
        );
    }

    #[test]
    fn booleans_accept_laravel_forms() {
        for (input, expect) in [
            (json!(true), true),
            (json!(0), false),
            (json!("1"), true),
            (json!("false"), false),
        ] {
            let c = validate(&obj(json!({"is_public": input})), Mode::Update).unwrap();
            assert_eq!(c.is_public, Some(expect));
        }
    }

    #[test]
    fn platforms_round_trip() {
        for p in Platform::ALL {
            assert_eq!(Platform::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), json!(p.as_str()));
        }
        assert_eq!(Platform::parse("myspace"), None);
    }

    #[test]
    fn live_means_public_active_and_not_expired() {
        let mut c = fixture("[]");
        assert!(c.is_live(1_000));
        c.expires_at = Some(1_000);
        assert!(!c.is_live(1_000), "expired at that instant");
        assert!(c.is_live(999));
        c.expires_at = None;
        c.status = Status::Draft;
        assert!(!c.is_live(1_000));
        c.status = Status::Active;
        c.is_public = false;
        assert!(!c.is_live(1_000));
    }

    #[test]
    fn current_features_decide_what_shows() {
        let mut c = fixture("[]");
        c.show_branding = false;
        c.video_url = Some("https://v.example/1".into());
        let all = c.clone().effective(ALL);
        assert!(all.show_lead_form && !all.show_branding && all.video_url.is_some());
        let none = c.effective(NONE);
        assert!(!none.show_lead_form, "no lead_form: no form");
        assert!(none.show_branding, "no white_label: branding shows");
        assert_eq!(none.video_url, None, "no advanced_analytics: no video");
    }

    #[test]
    fn social_links_read_leniently() {
        let c = fixture(
            r#"[{"platform":"x","url":"h","label":null},{"platform":"myspace","url":"h"},7]"#,
        );
        assert_eq!(
            c.social_links(),
            vec![SocialLink {
                platform: Platform::X,
                url: "h".into(),
                label: None
            }]
        );
    }
}
