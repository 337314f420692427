//! A tiny HTML builder that escapes by construction. Its escaping is also well-formed XML
//! (only the predefined entities and a numeric reference), so it lives in the domain, where
//! SVG is drawn too; the pages name it as `public::html::Html`.

/// An HTML fragment under construction.
///
/// Markup enters only as `&'static str`: [`raw`](Html::raw), tag names and attribute names.
/// Every other `&str` (text, attribute values) is escaped on the way in. No method accepts a
/// non-`'static` `&str` unescaped, and the signatures are the proof: a string built at run
/// time cannot be appended as markup without leaking it on purpose.
///
/// ```compile_fail,E0597
/// let name = String::from("<script>");
/// cardapi::public::html::Html::default().raw(&name);
/// ```
#[derive(Debug, Default)]
pub struct Html(String);

impl Html {
    pub fn with_capacity(capacity: usize) -> Self {
        Html(String::with_capacity(capacity))
    }

    /// Markup written in the source, e.g. `"<nav class=\"actions\">"`.
    pub fn raw(&mut self, markup: &'static str) -> &mut Self {
        self.0.push_str(markup);
        self
    }

    /// Text content, escaped.
    pub fn text(&mut self, text: &str) -> &mut Self {
        escape_into(&mut self.0, text);
        self
    }

    /// `<tag a="v" ...>` with every value escaped; also the whole of a void element.
    pub fn open(&mut self, tag: &'static str, attrs: &[(&'static str, &str)]) -> &mut Self {
        self.0.push('<');
        self.0.push_str(tag);
        for (name, value) in attrs {
            self.0.push(' ');
            self.0.push_str(name);
            self.0.push_str("=\"");
            escape_into(&mut self.0, value);
            self.0.push('"');
        }
        self.0.push('>');
        self
    }

    pub fn close(&mut self, tag: &'static str) -> &mut Self {
        self.0.push_str("</");
        self.0.push_str(tag);
        self.0.push('>');
        self
    }

    /// `<tag ...>text</tag>`.
    pub fn element(
        &mut self,
        tag: &'static str,
        attrs: &[(&'static str, &str)],
        text: &str,
    ) -> &mut Self {
        self.open(tag, attrs).text(text).close(tag)
    }

    /// Another fragment, already safe by the same construction.
    pub fn append(&mut self, other: &Html) -> &mut Self {
        self.0.push_str(&other.0);
        self
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Safe in text and in double- or single-quoted attribute values.
fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Html;

    const HOSTILE: &str = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>&amp;";
    const ESCAPED: &str = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;\
                           &lt;img src=x onerror=alert(1)&gt;&amp;amp;";

    #[test]
    fn text_is_escaped() {
        let mut h = Html::default();
        h.text(HOSTILE);
        assert_eq!(h.into_string(), ESCAPED);
    }

    #[test]
    fn escapes_as_the_page_always_did() {
        let mut h = Html::default();
        h.text("<a href=\"x\">'&'</a>");
        assert_eq!(
            h.into_string(),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn attribute_values_are_escaped() {
        let mut h = Html::default();
        h.open("a", &[("href", HOSTILE), ("title", "it's")]);
        assert_eq!(
            h.into_string(),
            format!("<a href=\"{ESCAPED}\" title=\"it&#39;s\">")
        );
    }

    #[test]
    fn elements_nest_and_append() {
        let mut inner = Html::default();
        inner.element("li", &[], "a & b");
        let mut h = Html::with_capacity(64);
        h.raw("<ul class=\"x\">")
            .append(&inner)
            .close("ul")
            .open("br", &[]);
        assert_eq!(
            h.into_string(),
            "<ul class=\"x\"><li>a &amp; b</li></ul><br>"
        );
    }

    #[test]
    fn plain_text_passes_unchanged() {
        let mut h = Html::default();
        h.text("Jürgen Groß · Straße 1, +49 (30) 123-45 / ok=1");
        assert_eq!(
            h.into_string(),
            "Jürgen Groß · Straße 1, +49 (30) 123-45 / ok=1"
        );
    }
}
