//! The card's QR code (extensions.md 7): served at `/c/{slug}/qr.svg`, and the same markup
//! for the page to show inline. Written through [`Html`], so nothing in it is unescaped.

use super::html::Html;
use crate::domain::card::Card;
use crate::domain::qr;

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// What the code says: the card's public URL, marked so that a visit (and a lead) that
/// comes from a scan is attributed to the QR code (`src=qr`, product.md 1).
pub fn scan_url(card: &Card, base_url: &str) -> String {
    scan_url_of(&card.public_url(base_url))
}

/// [`scan_url`] of a public URL already at hand.
pub fn scan_url_of(public_url: &str) -> String {
    format!("{public_url}?src=qr")
}

/// The `<svg>` element of the card's QR code: a white square with one dark path, no fixed
/// size (it scales to its box; `crispEdges` keeps module edges sharp). With a `label`
/// it is an image for assistive technology (`role="img"`, `aria-label`), as the page
/// needs; the standalone file has none. `None` only if the URL were too long for a QR
/// code (about 2,300 bytes).
pub fn svg(card: &Card, base_url: &str, label: Option<&str>) -> Option<Html> {
    svg_of(&scan_url(card, base_url), label)
}

/// The `<svg>` of any text (see [`svg`]).
pub fn svg_of(text: &str, label: Option<&str>) -> Option<Html> {
    let symbol = qr::encode(text)?;
    let extent = symbol.extent().to_string();
    let view_box = format!("0 0 {extent} {extent}");
    let mut attrs = vec![
        ("xmlns", SVG_NS),
        ("viewBox", view_box.as_str()),
        ("shape-rendering", "crispEdges"),
    ];
    if let Some(label) = label {
        attrs.extend([("role", "img"), ("aria-label", label)]);
    }
    let mut h = Html::with_capacity(2300);
    h.open("svg", &attrs)
        // The quiet zone must be light even on a dark page.
        .open(
            "rect",
            &[("width", &extent), ("height", &extent), ("fill", "#fff")],
        )
        .close("rect")
        .open("path", &[("d", &symbol.path())])
        .close("path")
        .close("svg");
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::qr::tests::{cells, scan};
    use crate::public::links::tests::card;

    /// The value of attribute `name` in `markup`.
    fn attr<'a>(markup: &'a str, name: &str) -> &'a str {
        let start = markup.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        let len = markup[start..].find('"').expect("closing quote");
        &markup[start..start + len]
    }

    #[test]
    fn svg_is_one_path_in_a_square_that_decodes_to_the_scan_url() {
        let c = card("[]");
        let svg = svg(&c, "https://cards.example.com/", None)
            .unwrap()
            .into_string();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "));
        assert!(svg.ends_with("</path></svg>"));
        assert_eq!(svg.matches("<path").count(), 1);
        assert_eq!(attr(&svg, "shape-rendering"), "crispEdges");
        assert!(!svg.contains("aria-label"));
        let view: Vec<i32> = attr(&svg, "viewBox")
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(view[..2], [0, 0]);
        assert_eq!(view[2], view[3]);
        let (level, text) = scan(&cells(attr(&svg, "d"), view[2]));
        assert_eq!(text, "https://cards.example.com/c/ada?src=qr");
        assert_eq!(level, 0, "level M");
    }

    #[test]
    fn the_inline_form_is_labelled_and_escaped() {
        let c = card("[]");
        let svg = svg(&c, "https://x.example", Some("QR \"<code>\""))
            .unwrap()
            .into_string();
        assert!(svg.contains(" role=\"img\" aria-label=\"QR &quot;&lt;code&gt;&quot;\">"));
    }
}
