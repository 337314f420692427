//! vCard 4.0 (RFC 6350) of a card: CRLF lines, escaped values, folded at 75 octets.

use crate::domain::card::Card;

/// Escapes a text value: backslash, comma, semicolon and newlines (RFC 6350 3.4).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ',' => out.push_str("\\,"),
            ';' => out.push_str("\\;"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Folds a content line at 75 octets without splitting a UTF-8 character; continuation
/// lines start with a space (RFC 6350 3.2).
fn fold(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        let len = c.len_utf8();
        if width + len > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += len;
    }
    out.push_str("\r\n");
}

pub fn vcard(card: &Card, public_url: &str) -> String {
    let mut out = String::with_capacity(512);
    let mut line = |l: String| fold(&l, &mut out);
    line("BEGIN:VCARD".into());
    line("VERSION:4.0".into());
    line(format!(
        "FN:{}",
        escape(&format!("{} {}", card.first_name, card.last_name))
    ));
    line(format!(
        "N:{};{};;;",
        escape(&card.last_name),
        escape(&card.first_name)
    ));
    let opt = |v: &Option<String>| v.as_deref().filter(|s| !s.trim().is_empty()).map(escape);
    if let Some(v) = opt(&card.company) {
        line(format!("ORG:{v}"));
    }
    if let Some(v) = opt(&card.job_title) {
        line(format!("TITLE:{v}"));
    }
    if let Some(v) = opt(&card.email) {
        line(format!("EMAIL;TYPE=work:{v}"));
    }
    if let Some(v) = opt(&card.phone) {
        line(format!("TEL;TYPE=work,voice;VALUE=text:{v}"));
    }
    // A URL is a URI value, not text: no text escaping (it was validated as http(s)).
    if let Some(v) = card.website.as_deref().filter(|s| !s.trim().is_empty()) {
        line(format!("URL:{v}"));
    }
    if let Some(v) = opt(&card.address) {
        line(format!("ADR;TYPE=work:;;{v};;;;"));
    }
    if let Some(v) = opt(&card.bio) {
        line(format!("NOTE:{v}"));
    }
    line(format!("SOURCE:{}/vcard", escape(public_url)));
    line("END:VCARD".into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public::links::tests::card;

    #[test]
    fn escapes_and_crlf() {
        let mut c = card("[]");
        c.first_name = "Ada; <script>".into();
        c.company = Some("A, B\\C".into());
        c.bio = Some("line1\nline2".into());
        c.website = Some("https://a.example/x,y".into());
        c.address = Some("Main St 1, Berlin".into());
        let v = vcard(&c, "https://x.example/c/ada");
        assert!(v.starts_with("BEGIN:VCARD\r\nVERSION:4.0\r\n"));
        assert!(v.ends_with("END:VCARD\r\n"));
        assert!(v.contains("N:L;Ada\\; <script>;;;\r\n"));
        assert!(v.contains("ORG:A\\, B\\\\C\r\n"));
        assert!(v.contains("NOTE:line1\\nline2\r\n"));
        assert!(v.contains("URL:https://a.example/x,y\r\n"));
        assert!(v.contains("ADR;TYPE=work:;;Main St 1\\, Berlin;;;;\r\n"));
        assert!(!v.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn folds_long_lines_on_character_boundaries() {
        let mut c = card("[]");
        c.bio = Some("ü".repeat(100));
        let v = vcard(&c, "https://x.example/c/ada");
        for l in v.split("\r\n") {
            assert!(l.len() <= 75, "{} octets: {l}", l.len());
        }
        let unfolded = v.replace("\r\n ", "");
        assert!(unfolded.contains(&format!("NOTE:{}", "ü".repeat(100))));
    }
}
