//! The account area's languages (account-area.md 2: English and German, from
//! `Accept-Language`, with a switch) and its strings, declared with [`texts!`]: each string
//! stands with both its languages, and one missing a language does not compile.

/// A language of the account area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    De,
}

/// The cookie the language switch sets.
pub const LANG_COOKIE: &str = "app_lang";

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }

    pub fn parse(s: &str) -> Option<Lang> {
        match s.trim().to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "de" => Some(Lang::De),
            _ => None,
        }
    }

    /// The decimal mark: `2.5` in English, `2,5` in German.
    pub fn decimal(self) -> char {
        match self {
            Lang::En => '.',
            Lang::De => ',',
        }
    }

    /// The other one, for the switch.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::De,
            Lang::De => Lang::En,
        }
    }

    /// The first of `Accept-Language`'s ranges (by weight) that is one of ours; English
    /// when none is.
    pub fn accepted(header: &str) -> Lang {
        let mut best: Option<(Lang, u16)> = None;
        for part in header.split(',') {
            let mut pieces = part.split(';');
            let tag = pieces.next().unwrap_or_default().trim();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(1000, weight);
            let primary = tag.split('-').next().unwrap_or_default();
            if let Some(lang) = Lang::parse(primary) {
                if q > 0 && best.is_none_or(|(_, b)| q > b) {
                    best = Some((lang, q));
                }
            }
        }
        best.map_or(Lang::En, |(l, _)| l)
    }

    /// Dates and times as people of the language write them, in UTC.
    pub fn date_time(self, ms: i64) -> String {
        let iso = crate::domain::time::iso8601(ms);
        let (date, time) = (&iso[..10], &iso[11..16]);
        match self {
            Lang::En => format!("{date} {time} UTC"),
            Lang::De => format!("{}.{}.{} {time} UTC", &date[8..10], &date[5..7], &date[..4]),
        }
    }
}

/// A `q` value (`0`, `0.8`, `1.000`) in thousandths; anything else weighs nothing. (No
/// float parsing: it would bring its code into the module for this alone.)
fn weight(q: &str) -> u16 {
    let (whole, frac) = q.split_once('.').unwrap_or((q, ""));
    let digits = frac.bytes().take(3).chain(std::iter::repeat(b'0')).take(3);
    let thousandths = digits.fold(0u16, |n, d| n * 10 + u16::from(d.wrapping_sub(b'0') % 10));
    match whole {
        "1" => 1000,
        "0" if frac.bytes().all(|b| b.is_ascii_digit()) => thousandths,
        _ => 0,
    }
}

/// Declares a struct of strings with their English and German texts side by side, and
/// `of(lang)` giving one language's.
macro_rules! texts {
    ($(#[$doc:meta])* $name:ident { $($field:ident: $en:literal / $de:literal,)* }) => {
        $(#[$doc])*
        pub struct $name {
            $(pub $field: &'static str,)*
        }

        impl $name {
            pub fn of(lang: $crate::area::text::Lang) -> &'static $name {
                const EN: $name = $name { $($field: $en,)* };
                const DE: $name = $name { $($field: $de,)* };
                match lang {
                    $crate::area::text::Lang::En => &EN,
                    $crate::area::text::Lang::De => &DE,
                }
            }
        }
    };
}
pub(crate) use texts;

texts! {
    /// What every page shows: the navigation, the frame and the common answers.
    Common {
        area: "Account" / "Konto",
        overview: "Overview" / "Übersicht",
        tokens: "API tokens" / "API-Tokens",
        webhooks: "Webhooks" / "Webhooks",
        leads: "Leads" / "Leads",
        analytics: "Analytics" / "Analysen",
        cards: "Cards" / "Karten",
        members: "Members" / "Mitglieder",
        security: "Security log" / "Sicherheitsprotokoll",
        sign_out: "Sign out" / "Abmelden",
        signed_in_as: "Signed in as" / "Angemeldet als",
        language: "Deutsch" / "English",
        skip: "Skip to content" / "Zum Inhalt springen",
        menu: "Account menu" / "Kontomenü",
        owner: "Owner" / "Inhaber",
        member: "Member" / "Mitglied",
        read_only: "You are a member of this account: you can see everything, and only owners can change it." / "Sie sind Mitglied dieses Kontos: Sie sehen alles, ändern können es nur Inhaber.",
        not_found: "This page does not exist." / "Diese Seite gibt es nicht.",
        forbidden: "Only owners of the account can do this." / "Das dürfen nur Inhaber des Kontos.",
        cross_site: "This request did not come from this site and was refused." / "Diese Anfrage kam nicht von dieser Website und wurde abgelehnt.",
        moving: "The account is moving to another data region; changes wait until the move ends. Try again in a minute." / "Das Konto zieht in eine andere Datenregion um; Änderungen warten, bis der Umzug endet. Versuchen Sie es in einer Minute erneut.",
        failed: "Something went wrong on our side. Try again; if it keeps happening, tell us the request id:" / "Bei uns ist etwas schiefgegangen. Versuchen Sie es erneut; passiert es wieder, nennen Sie uns die Anfrage-ID:",
        too_many: "Too many attempts. Wait a minute and try again." / "Zu viele Versuche. Warten Sie eine Minute und versuchen Sie es erneut.",
        back: "Back" / "Zurück",
        copy: "Copy" / "Kopieren",
        copied: "Copied" / "Kopiert",
        cancel: "Cancel" / "Abbrechen",
        previous: "Previous" / "Zurück",
        next: "Next" / "Weiter",
        page_of: "Page" / "Seite",
        none_yet: "Nothing here yet." / "Hier ist noch nichts.",
        yes: "yes" / "ja",
        no: "no" / "nein",
        saved: "Saved." / "Gespeichert.",
        never: "never" / "nie",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_by_weight() {
        assert_eq!(Lang::accepted("de-DE,de;q=0.9,en;q=0.8"), Lang::De);
        assert_eq!(Lang::accepted("fr-FR,en;q=0.5,de;q=0.7"), Lang::De);
        assert_eq!(Lang::accepted("en-GB,de;q=0.9"), Lang::En);
        assert_eq!(Lang::accepted("fr, es"), Lang::En);
        assert_eq!(Lang::accepted(""), Lang::En);
        assert_eq!(Lang::accepted("de;q=0"), Lang::En);
        assert_eq!(Lang::accepted("en;q=0.3,de;q=0.35"), Lang::De);
        assert_eq!(weight("0.8"), 800);
        assert_eq!(weight("1.000"), 1000);
        assert_eq!(weight("0"), 0);
        assert_eq!(weight("x"), 0);
    }

    #[test]
    fn both_languages_of_every_string() {
        assert_eq!(Common::of(Lang::En).sign_out, "Sign out");
        assert_eq!(Common::of(Lang::De).sign_out, "Abmelden");
        assert_eq!(Lang::De.date_time(0), "01.01.1970 00:00 UTC");
        assert_eq!(Lang::En.date_time(0), "1970-01-01 00:00 UTC");
    }
}
