//! The account area's charts (account-area.md 2): views and clicks per day as lines;
//! devices, countries, referrers and clicks by type as horizontal bars. Each is an inline
//! `<svg>` drawn from the report's figures (the page puts the same numbers in a table
//! beside it), written through [`Html`], so every label is escaped. No script, no external
//! reference, no font of its own: text takes the page's font.
//!
//! A chart has a fixed `viewBox` 400 units wide and `width="100%"`, so it scales with its
//! box (its height follows); text is 11 units, about 10 px in a 390 px phone's column. The
//! stylesheet should cap a chart's width (about 36rem) so text stays near the page's size
//! at 1280 px.
//!
//! Everything is drawn in `currentColor`; these classes let the stylesheet restyle it:
//!
//! | class | element |
//! |---|---|
//! | `chart` | the `<svg>`, with `chart-line` or `chart-bars` |
//! | `grid` | the gridlines, the baseline and the date ticks (one `<path>`) |
//! | `ticks` | the y-axis labels (a `<g>` of `<text>`) |
//! | `dates` | the x-axis labels (a `<g>` of `<text>`) |
//! | `line` | the series (a `<polyline>`) |
//! | `bar` | one bar (a `<rect>`) |
//! | `label` | a bar's label (`<text>`) |
//! | `value` | a bar's value (`<text>`) |
//! | `empty` | what a chart with nothing to draw says (`<text>`) |

use std::fmt::Write;

use super::html::Html;

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// Width of every chart, in viewBox units.
const WIDTH: u64 = 400;
/// Height of a line chart.
const LINE_HEIGHT: u64 = 200;
/// Font size, in viewBox units (the root's `font-size`).
const FONT: u64 = 11;
/// Space kept between two labels side by side.
const GAP: u64 = 8;
/// At most this many dates under a line chart.
const MAX_DATES: usize = 8;
/// Labels are cut (with `…`) to these widths, in tenths: twelve ASCII characters under a
/// line chart, 40% of the width beside bars. An odd or hostile label cannot push a chart
/// out of its box.
const MAX_DATE_WIDTH: u64 = 12 * FONT * 6;
const MAX_BAR_LABEL_WIDTH: u64 = WIDTH * 4;
/// One bar's row and the bar in it.
const ROW: u64 = 24;
const BAR: u64 = 14;
/// Counts above this (no day has them) are drawn as this, so the axis stays in `u64`
/// tenths.
const MAX_DRAWN: u64 = 100_000_000_000_000_000;

/// What a chart says, in the page's language, and the id its parts are known by.
#[derive(Debug, Clone, Copy)]
pub struct Caption<'a> {
    /// Unique on the page: the `<title>` is `{id}-title` and the `<desc>` `{id}-desc`.
    pub id: &'a str,
    pub title: &'a str,
    /// The word before the sum in the description, e.g. `Total` gives `Total: 1234`.
    pub total: &'a str,
    /// What a chart with no points or no items says, e.g. `No data`.
    pub empty: &'a str,
    /// The decimal mark of the page's language in the labels: `.` (`2.5`, `1.5k`) or `,`.
    pub decimal: char,
}

/// A line chart of daily counts (`YYYY-MM-DD`, count), oldest first, as a report's
/// `views_per_day` / `clicks_per_day` gives them (7 to 365 points). The y axis runs from 0
/// to a nice maximum ([`scale`]) with 3 to 5 gridlines; the first, the last and evenly
/// spaced dates are labelled, as many as fit. The labels are drawn as given, so a page
/// may pass shorter ones.
pub fn line(points: &[(String, u64)], caption: &Caption) -> Html {
    if points.is_empty() {
        return empty("chart chart-line", caption);
    }
    let labels: Vec<String> = points
        .iter()
        .map(|(l, _)| clean(l, MAX_DATE_WIDTH))
        .collect();
    let sum = points.iter().fold(0u64, |s, (_, n)| s.saturating_add(*n));
    let mut desc = summary(caption, sum);
    desc.push_str(", ");
    desc.push_str(&labels[0]);
    let last_index = points.len() - 1;
    if last_index > 0 {
        desc.push_str(" – ");
        desc.push_str(&labels[last_index]);
    }
    let mut h = svg("chart chart-line", LINE_HEIGHT, caption, &desc);

    let max = points.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let (top, step) = scale(max);
    let ticks: Vec<(u64, String)> = (0..=top / step)
        .map(|i| (i * step, marked(tick_text(i * step), caption.decimal)))
        .collect();
    // Plot area, in tenths of a unit: y tick labels to the left, dates below.
    let widest_tick = ticks.iter().map(|(_, t)| width(t)).max().unwrap_or(0);
    let (left, right) = (widest_tick + 80, (WIDTH - 4) * 10);
    let (plot_top, bottom) = (80, (LINE_HEIGHT - 22) * 10);
    let y_of = |tenths: u64| -> u64 {
        // A ratio of the axis: floats keep the product in range; the result is rounded.
        let ratio = (tenths as f64 / top as f64).min(1.0);
        bottom.saturating_sub((ratio * (bottom - plot_top) as f64 + 0.5) as u64)
    };
    let x_of = |i: usize| -> u64 {
        if last_index == 0 {
            (left + right) / 2
        } else {
            left + (right - left) * i as u64 / last_index as u64
        }
    };
    let shown = date_labels(&labels, &x_of);

    let mut grid = String::with_capacity(256);
    for (tenths, _) in &ticks {
        grid.push('M');
        push_dec(&mut grid, left);
        grid.push(' ');
        push_dec(&mut grid, y_of(*tenths));
        grid.push('H');
        push_dec(&mut grid, right);
    }
    // A short tick under each labelled date ties it to its point.
    for &i in &shown {
        grid.push('M');
        push_dec(&mut grid, x_of(i));
        grid.push(' ');
        push_dec(&mut grid, bottom);
        grid.push_str("v4");
    }
    h.open(
        "path",
        &[
            ("class", "grid"),
            ("d", &grid),
            ("fill", "none"),
            ("stroke", "currentColor"),
            ("stroke-opacity", ".25"),
        ],
    )
    .close("path");

    h.open("g", &[("class", "ticks"), ("text-anchor", "end")]);
    let tick_x = dec(left - 40);
    for (tenths, text) in &ticks {
        // +4 units: the label's middle, not its baseline, on the gridline.
        h.element(
            "text",
            &[("x", &tick_x), ("y", &dec(y_of(*tenths) + 40))],
            text,
        );
    }
    h.close("g");

    h.open("g", &[("class", "dates")]);
    let date_y = dec((LINE_HEIGHT - 6) * 10);
    for (k, &i) in shown.iter().enumerate() {
        let anchor = anchor(k, shown.len());
        h.element(
            "text",
            &[
                ("x", &dec(x_of(i))),
                ("y", &date_y),
                ("text-anchor", anchor),
            ],
            &labels[i],
        );
    }
    h.close("g");

    let mut at = String::with_capacity(points.len() * 12);
    for (i, (_, n)) in points.iter().enumerate() {
        if i > 0 {
            at.push(' ');
        }
        push_dec(&mut at, x_of(i));
        at.push(',');
        push_dec(&mut at, y_of(n.min(&MAX_DRAWN) * 10));
    }
    h.open(
        "polyline",
        &[
            ("class", "line"),
            ("points", &at),
            ("fill", "none"),
            ("stroke", "currentColor"),
            // A year's days are a unit apart: a thinner line keeps them apart.
            ("stroke-width", if points.len() > 120 { "1" } else { "2" }),
            ("stroke-linejoin", "round"),
        ],
    )
    .close("polyline")
    .close("svg");
    h
}

/// A horizontal bar chart of (label, count) items in the given order: labels on the left,
/// each count (compact, [`compact`]) right of its bar, the longest bar the full width.
/// Callers pass the items worth a row (a report's top ones); the chart grows one row each.
pub fn bars(items: &[(String, u64)], caption: &Caption) -> Html {
    if items.is_empty() {
        return empty("chart chart-bars", caption);
    }
    let sum = items.iter().fold(0u64, |s, (_, n)| s.saturating_add(*n));
    let height = 8 + items.len() as u64 * ROW;
    let mut h = svg("chart chart-bars", height, caption, &summary(caption, sum));

    let labels: Vec<String> = items
        .iter()
        .map(|(l, _)| clean(l, MAX_BAR_LABEL_WIDTH))
        .collect();
    let values: Vec<String> = items
        .iter()
        .map(|(_, n)| marked(compact(*n), caption.decimal))
        .collect();
    let label_width = labels.iter().map(|l| width(l)).max().unwrap_or(0);
    let value_width = values.iter().map(|v| width(v)).max().unwrap_or(0);
    // In tenths: the labels' column, then the bars, then room for the longest value.
    let start = label_width + GAP * 10;
    let room = (WIDTH * 10).saturating_sub(start + value_width + 40);
    let max = items.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let left = dec(0);
    for (i, (_, n)) in items.iter().enumerate() {
        let row = 40 + i as u64 * ROW * 10;
        let length = (*n as f64 / max as f64 * room as f64 + 0.5) as u64;
        let text_y = dec(row + (ROW / 2 + 4) * 10);
        h.element(
            "text",
            &[("class", "label"), ("x", &left), ("y", &text_y)],
            &labels[i],
        )
        .open(
            "rect",
            &[
                ("class", "bar"),
                ("x", &dec(start)),
                ("y", &dec(row + (ROW - BAR) * 5)),
                ("width", &dec(length)),
                ("height", &dec(BAR * 10)),
            ],
        )
        .close("rect")
        .element(
            "text",
            &[
                ("class", "value"),
                ("x", &dec(start + length + 40)),
                ("y", &text_y),
            ],
            &values[i],
        );
    }
    h.close("svg");
    h
}

/// A count in at most four characters: `999`, `1.2k`, `12k`, `2.5M`, `1G` (SI prefixes,
/// which read the same in English and German; one decimal below ten of a unit).
pub fn compact(n: u64) -> String {
    let mut out = String::with_capacity(6);
    if n < 1000 {
        let _ = write!(out, "{n}");
        return out;
    }
    let mut unit: u64 = 1000;
    for (k, suffix) in ["k", "M", "G", "T", "P", "E"].iter().enumerate() {
        let whole = n.saturating_add(unit / 2) / unit;
        // 999.5k is 1M, not 1000k; E is the last unit u64 reaches.
        if whole >= 1000 && k < 5 {
            unit *= 1000;
            continue;
        }
        let tenths = n.saturating_add(unit / 20) / (unit / 10);
        if tenths < 100 {
            let _ = write!(out, "{}", tenths / 10);
            push_tenth(&mut out, tenths);
        } else {
            let _ = write!(out, "{whole}");
        }
        out.push_str(suffix);
        break;
    }
    out
}

/// The y axis of a largest count, in tenths: its top, the smallest 1, 2 or 5 × 10^n at or
/// above the count, and the step between gridlines that gives 3 to 5 of them: 1 by halves,
/// 2 by halves, 5 by 2.5; up to 5, whole numbers (2, 4 or 6; 2 when every count is 0, so
/// nothing divides by zero).
fn scale(max: u64) -> (u64, u64) {
    let max = max.min(MAX_DRAWN);
    // Counts are whole: up to 5 the ticks are whole numbers too (no "0.5 views").
    match max {
        0..=2 => return (20, 10),
        3 | 4 => return (40, 10),
        5 => return (60, 20),
        _ => {}
    }
    let mut unit = 1;
    loop {
        for (d, step) in [(1, 5), (2, 5), (5, 25)] {
            if d * unit >= max {
                return (d * unit * 10, step * unit);
            }
        }
        unit *= 10;
    }
}

/// A label with the language's decimal mark (the SVG's own numbers keep `.`).
fn marked(label: String, decimal: char) -> String {
    if decimal == '.' {
        label
    } else {
        label.replace('.', decimal.encode_utf8(&mut [0; 4]))
    }
}

/// A tick's label from its value in tenths: `0.5`, `2.5`, `250`, `1.5k`.
fn tick_text(tenths: u64) -> String {
    let mut text = compact(tenths / 10);
    push_tenth(&mut text, tenths);
    text
}

/// The points whose dates are labelled: the first, the last and evenly spaced ones between,
/// as many (at most [`MAX_DATES`]) as sit side by side without touching at their estimated
/// widths. The first label starts at its point and the last ends at its point, so both stay
/// inside the chart; the others are centred.
fn date_labels(labels: &[String], x_of: &dyn Fn(usize) -> u64) -> Vec<usize> {
    let n = labels.len();
    if n < 2 {
        return (0..n).collect();
    }
    for k in (2..=n.min(MAX_DATES)).rev() {
        let picked: Vec<usize> = (0..k)
            .map(|j| (j * (n - 1) + (k - 1) / 2) / (k - 1))
            .collect();
        let span = |j: usize| {
            let (x, w) = (x_of(picked[j]), width(&labels[picked[j]]));
            match anchor(j, k) {
                "start" => (x, x + w),
                "end" => (x.saturating_sub(w), x),
                _ => (x.saturating_sub(w / 2), x + w / 2),
            }
        };
        if (1..k).all(|j| span(j - 1).1 + GAP * 10 <= span(j).0) {
            return picked;
        }
    }
    // Two cut labels always fit the plot; only a chart far narrower than this one would
    // get here.
    vec![0]
}

/// How the `k`-th of `count` date labels sits on its point.
fn anchor(k: usize, count: usize) -> &'static str {
    match k {
        _ if count == 1 => "middle",
        0 => "start",
        k if k + 1 == count => "end",
        _ => "middle",
    }
}

/// The estimated width of a label, in tenths of a unit.
fn width(text: &str) -> u64 {
    text.chars().map(char_width).sum()
}

/// 0.6 em for an ASCII character (digits and most Latin letters are narrower), a full em
/// for any other (CJK is that wide): estimates err wide, so labels never touch.
fn char_width(c: char) -> u64 {
    if c.is_ascii() {
        FONT * 6
    } else {
        FONT * 10
    }
}

/// A label as drawn: control characters (not allowed in XML even escaped) dropped, and cut
/// to `max` tenths of width, a cut one ending in `…`.
fn clean(label: &str, max: u64) -> String {
    let kept = label.chars().filter(|c| !c.is_control());
    if kept.clone().map(char_width).sum::<u64>() <= max {
        return kept.collect();
    }
    let mut out = String::with_capacity(max as usize / 10);
    let mut used = char_width('…');
    for c in kept {
        used += char_width(c);
        if used > max {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// `{total}: {sum}`, the start of a chart's description.
fn summary(caption: &Caption, sum: u64) -> String {
    let mut desc = String::with_capacity(64);
    desc.push_str(caption.total);
    let _ = write!(desc, ": {sum}");
    desc
}

/// The opened `<svg>` with its title and description.
fn svg(class: &'static str, height: u64, caption: &Caption, desc: &str) -> Html {
    let (title_id, desc_id) = (id(caption, "-title"), id(caption, "-desc"));
    let mut view_box = String::from("0 0 ");
    let _ = write!(view_box, "{WIDTH} {height}");
    let mut h = Html::with_capacity(4096);
    h.open(
        "svg",
        &[
            ("xmlns", SVG_NS),
            ("class", class),
            ("viewBox", &view_box),
            ("width", "100%"),
            ("role", "img"),
            ("aria-labelledby", &title_id),
            ("aria-describedby", &desc_id),
            ("font-size", "11"),
            ("fill", "currentColor"),
        ],
    )
    .element("title", &[("id", &title_id)], caption.title)
    .element("desc", &[("id", &desc_id)], desc);
    h
}

/// A chart with nothing to draw: its title and the caption's `empty` text.
fn empty(class: &'static str, caption: &Caption) -> Html {
    let mut h = svg(class, 32, caption, caption.empty);
    h.element(
        "text",
        &[("class", "empty"), ("x", "0"), ("y", "20")],
        caption.empty,
    )
    .close("svg");
    h
}

fn id(caption: &Caption, suffix: &str) -> String {
    let mut id = String::with_capacity(caption.id.len() + suffix.len());
    id.push_str(caption.id);
    id.push_str(suffix);
    id
}

/// Tenths of a unit as a coordinate: `123.4`, or `123` for a whole one.
fn push_dec(out: &mut String, tenths: u64) {
    let _ = write!(out, "{}", tenths / 10);
    push_tenth(out, tenths);
}

/// `.d`, the tenths digit of `tenths`, unless it is 0.
fn push_tenth(out: &mut String, tenths: u64) {
    let digit = tenths % 10;
    if digit != 0 {
        let _ = write!(out, ".{digit}");
    }
}

fn dec(tenths: u64) -> String {
    let mut out = String::with_capacity(8);
    push_dec(&mut out, tenths);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::{date_string, days_from_civil};

    const CAPTION: Caption = Caption {
        id: "views",
        title: "Views per day",
        total: "Total",
        empty: "No data",
        decimal: '.',
    };

    /// `n` days up to 2026-11-22 with the counts `count(i)`.
    fn days(n: usize, count: impl Fn(usize) -> u64) -> Vec<(String, u64)> {
        let today = days_from_civil(2026, 11, 22);
        (0..n)
            .map(|i| (date_string(today - (n - 1 - i) as i64), count(i)))
            .collect()
    }

    /// Checks that `svg` is one well-formed XML element: tags balanced and properly
    /// nested, attributes `name="value"` and not repeated, and `&` only in the predefined
    /// entities and numeric references. Returns the elements by name, in document order,
    /// each with its attributes and its text.
    fn parse(svg: &str) -> Vec<Element> {
        fn text_ok(t: &str) {
            for (i, _) in t.match_indices('&') {
                let entity = &t[i..t[i..].find(';').map_or(t.len(), |e| i + e + 1)];
                let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity)
                    || (entity.starts_with("&#")
                        && entity.len() > 3
                        && entity[2..entity.len() - 1]
                            .bytes()
                            .all(|b| b.is_ascii_digit()));
                assert!(known, "bad entity {entity:?} in {t:?}");
            }
            assert!(!t.chars().any(|c| c.is_control() && c != '\n'), "{t:?}");
        }
        let mut elements: Vec<Element> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut rest = svg;
        let mut roots = 0;
        while let Some(lt) = rest.find('<') {
            let text = &rest[..lt];
            text_ok(text);
            match open.last() {
                Some(&e) => elements[e].text.push_str(text),
                None => assert!(text.trim().is_empty(), "text outside the root: {text:?}"),
            }
            rest = &rest[lt + 1..];
            let gt = rest.find('>').expect("an unclosed tag");
            let mut tag = &rest[..gt];
            rest = &rest[gt + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let e = open.pop().expect("a close tag without an open one");
                assert_eq!(elements[e].name, name, "misnested");
                continue;
            }
            let empty = tag.ends_with('/');
            tag = tag.trim_end_matches('/');
            let (name, mut attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            assert!(
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric()),
                "tag name {name:?}"
            );
            let mut element = Element {
                name: name.into(),
                attrs: Vec::new(),
                text: String::new(),
            };
            loop {
                attrs = attrs.trim_start();
                if attrs.is_empty() {
                    break;
                }
                let (key, value) = attrs.split_once("=\"").expect("an unquoted attribute");
                assert!(
                    key.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b':'),
                    "attribute name {key:?}"
                );
                let end = value.find('"').expect("an unterminated attribute");
                text_ok(&value[..end]);
                assert!(!value[..end].contains('<'));
                assert!(element.attr(key).is_none(), "repeated {key}");
                element.attrs.push((key.into(), value[..end].into()));
                attrs = &value[end + 1..];
                assert!(attrs.is_empty() || attrs.starts_with(' '), "{attrs:?}");
            }
            if open.is_empty() {
                roots += 1;
            }
            elements.push(element);
            if !empty {
                open.push(elements.len() - 1);
            }
        }
        assert!(
            rest.trim().is_empty() && open.is_empty(),
            "unclosed elements"
        );
        assert_eq!(roots, 1, "one root");
        elements
    }

    struct Element {
        name: String,
        attrs: Vec<(String, String)>,
        text: String,
    }

    impl Element {
        fn attr(&self, key: &str) -> Option<&str> {
            self.attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        }

        fn num(&self, key: &str) -> f64 {
            self.attr(key).unwrap().parse().unwrap()
        }
    }

    fn named<'a>(elements: &'a [Element], name: &str) -> Vec<&'a Element> {
        elements.iter().filter(|e| e.name == name).collect()
    }

    /// The texts of the `<g class="...">` group.
    fn group_texts(svg: &str, class: &str) -> Vec<Element> {
        let start = svg.find(&format!("<g class=\"{class}\"")).unwrap();
        let end = start + svg[start..].find("</g>").unwrap() + 4;
        parse(&svg[start..end])
            .into_iter()
            .filter(|e| e.name == "text")
            .collect()
    }

    /// The line's points.
    fn points(svg: &str) -> Vec<(f64, f64)> {
        let elements = parse(svg);
        let line = named(&elements, "polyline")[0];
        line.attr("points")
            .unwrap()
            .split(' ')
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    fn nice_max(max: u64) -> u64 {
        scale(max).0 / 10
    }

    fn tick_labels(max: u64) -> Vec<String> {
        let (top, step) = scale(max);
        (0..=top / step).map(|i| tick_text(i * step)).collect()
    }

    #[test]
    fn the_axis_tops_at_a_nice_number_with_3_to_5_gridlines() {
        for (max, top) in [
            (0, 2),
            (1, 2),
            (2, 2),
            (3, 4),
            (5, 6),
            (6, 10),
            (7, 10),
            (10, 10),
            (11, 20),
            (99, 100),
            (1234, 2000),
            (4999, 5000),
            (1_000_000_000, 1_000_000_000),
            (1_000_000_001, 2_000_000_000),
        ] {
            assert_eq!(nice_max(max), top, "{max}");
        }
        assert_eq!(tick_labels(0), ["0", "1", "2"]);
        assert_eq!(tick_labels(2), ["0", "1", "2"]);
        assert_eq!(tick_labels(4), ["0", "1", "2", "3", "4"]);
        assert_eq!(tick_labels(5), ["0", "2", "4", "6"]);
        assert_eq!(tick_labels(7), ["0", "5", "10"]);
        assert_eq!(tick_labels(99), ["0", "50", "100"]);
        assert_eq!(tick_labels(1234), ["0", "500", "1k", "1.5k", "2k"]);
        assert_eq!(tick_labels(30_000), ["0", "25k", "50k"]);
        assert_eq!(tick_labels(1_000_000_000), ["0", "500M", "1G"]);
        for max in (0..2000).chain([u64::MAX / 3, u64::MAX]) {
            let (top, step) = scale(max);
            assert!((3..=5).contains(&(top / step + 1)), "{max}");
            assert_eq!(top % step, 0);
            assert!(top / 10 >= max.min(MAX_DRAWN));
            assert!(tick_labels(max).iter().all(|t| t.len() <= 4), "{max}");
        }
    }

    #[test]
    fn compact_numbers() {
        for (n, text) in [
            (0, "0"),
            (7, "7"),
            (999, "999"),
            (1000, "1k"),
            (1049, "1k"),
            (1050, "1.1k"),
            (1234, "1.2k"),
            (9_949, "9.9k"),
            (9_950, "10k"),
            (12_345, "12k"),
            (999_499, "999k"),
            (999_500, "1M"),
            (2_500_000, "2.5M"),
            (1_000_000_000, "1G"),
            (u64::MAX, "18E"),
        ] {
            assert_eq!(compact(n), text, "{n}");
        }
    }

    #[test]
    fn a_line_has_one_point_a_day_and_is_well_formed() {
        for n in [1, 2, 7, 30, 90, 365] {
            let data = days(n, |i| (i as u64 * 7919) % 100);
            let svg = line(&data, &CAPTION).into_string();
            let pts = points(&svg);
            assert_eq!(pts.len(), n);
            // Left to right, one step a day, inside the viewBox.
            assert!(pts.windows(2).all(|w| w[0].0 < w[1].0));
            assert!(pts
                .iter()
                .all(|&(x, y)| (0.0..=400.0).contains(&x) && (0.0..=200.0).contains(&y)));
            // The highest count is drawn highest.
            let top = data.iter().map(|d| d.1).max().unwrap();
            let highest = pts.iter().map(|p| p.1).fold(f64::MAX, f64::min);
            for (p, d) in pts.iter().zip(&data) {
                assert_eq!(p.1 == highest, d.1 == top, "{n}");
            }
        }
    }

    #[test]
    fn dates_are_thinned_to_fit_first_and_last_always_shown() {
        for (n, expected) in [(7, 4), (30, 4), (90, 4), (365, 4)] {
            let data = days(n, |_| 3);
            let svg = line(&data, &CAPTION).into_string();
            let dates = group_texts(&svg, "dates");
            assert_eq!(dates.len(), expected, "{n} days");
            assert_eq!(dates[0].text, data[0].0);
            assert_eq!(dates[dates.len() - 1].text, data[n - 1].0);
            // Every label is one of the dates, evenly spaced (within a day's rounding).
            let index: Vec<usize> = dates
                .iter()
                .map(|d| data.iter().position(|(l, _)| *l == d.text).unwrap())
                .collect();
            let gaps: Vec<usize> = index.windows(2).map(|w| w[1] - w[0]).collect();
            let (lo, hi) = (gaps.iter().min().unwrap(), gaps.iter().max().unwrap());
            assert!(hi - lo <= 1, "{n}: {index:?}");
            assert_no_overlap(&dates);
        }
        // Shorter labels fit more, never more than 8.
        let short: Vec<(String, u64)> = days(30, |_| 1)
            .into_iter()
            .map(|(d, n)| (d[8..].to_string(), n))
            .collect();
        let svg = line(&short, &CAPTION).into_string();
        let dates = group_texts(&svg, "dates");
        assert_eq!(dates.len(), 8);
        assert_no_overlap(&dates);
        // One point: its one date, centred.
        let svg = line(&days(1, |_| 1), &CAPTION).into_string();
        let dates = group_texts(&svg, "dates");
        assert_eq!(dates.len(), 1);
        assert_eq!(dates[0].attr("text-anchor"), Some("middle"));
    }

    /// The labels' spans, by the text anchors and estimated widths, are apart, and inside
    /// the chart.
    fn assert_no_overlap(dates: &[Element]) {
        let span = |e: &Element| {
            let (x, w) = (e.num("x"), width(&e.text) as f64 / 10.0);
            match e.attr("text-anchor") {
                Some("start") => (x, x + w),
                Some("end") => (x - w, x),
                _ => (x - w / 2.0, x + w / 2.0),
            }
        };
        for pair in dates.windows(2) {
            assert!(span(&pair[0]).1 + GAP as f64 <= span(&pair[1]).0);
        }
        for d in dates {
            let (a, b) = span(d);
            assert!(a >= 0.0 && b <= WIDTH as f64, "{a} {b}");
        }
    }

    #[test]
    fn all_zero_days_draw_a_flat_line_at_zero_under_a_top_of_2() {
        let svg = line(&days(30, |_| 0), &CAPTION).into_string();
        let pts = points(&svg);
        assert_eq!(pts.len(), 30);
        assert!(pts.iter().all(|p| p.1 == 178.0), "on the baseline");
        let ticks: Vec<String> = group_texts(&svg, "ticks")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(ticks, ["0", "1", "2"]);
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(svg.contains("<desc id=\"views-desc\">Total: 0, 2026-10-24 – 2026-11-22</desc>"));
    }

    #[test]
    fn one_huge_day_keeps_labels_short() {
        let svg = line(
            &days(30, |i| if i == 12 { 1_000_000_000 } else { i as u64 }),
            &CAPTION,
        )
        .into_string();
        let ticks: Vec<String> = group_texts(&svg, "ticks")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(ticks, ["0", "500M", "1G"]);
        let pts = points(&svg);
        assert_eq!(pts[12].1, 8.0, "at the top");
        assert!(pts.iter().enumerate().all(|(i, p)| i == 12 || p.1 == 178.0));
        // The description has the exact sum.
        assert!(svg.contains("Total: 1000000423,"));
        // Beyond any real count: drawn at the top, nothing overflows.
        let svg = line(&days(7, |i| u64::MAX - i as u64), &CAPTION).into_string();
        assert!(points(&svg).iter().all(|p| p.1 == 8.0));
        assert!(svg.contains(&format!("Total: {},", u64::MAX)));
    }

    #[test]
    fn labels_take_the_languages_decimal_mark_and_coordinates_do_not() {
        let german = Caption {
            decimal: ',',
            ..CAPTION
        };
        let svg = line(&days(7, |i| if i == 6 { 1234 } else { 0 }), &german).into_string();
        assert!(svg.contains(">1,5k<"), "{svg}");
        assert!(!svg.contains(">1.5k<"), "{svg}");
        // Coordinates stay SVG numbers.
        assert!(svg.contains('.'), "{svg}");
        let svg = bars(&[("mobile".into(), 1_500)], &german).into_string();
        assert!(svg.contains(">1,5k<"), "{svg}");
        let svg = bars(&[("mobile".into(), 1_500)], &CAPTION).into_string();
        assert!(svg.contains(">1.5k<"), "{svg}");
    }

    #[test]
    fn hostile_labels_and_captions_are_escaped() {
        let hostile = "<script>alert(1)</script>\"'&";
        let caption = Caption {
            id: "x\"><script>",
            title: hostile,
            total: hostile,
            empty: hostile,
            decimal: '.',
        };
        let items = vec![(hostile.to_string(), 3), ("ok".to_string(), 1)];
        let mut dated = days(7, |_| 1);
        dated[0].0 = hostile.into();
        for svg in [
            bars(&items, &caption).into_string(),
            bars(&[], &caption).into_string(),
            line(&dated, &caption).into_string(),
            line(&[], &caption).into_string(),
        ] {
            parse(&svg);
            assert!(!svg.contains("<script"), "{svg}");
            assert!(svg.contains("&lt;script&gt;"), "{svg}");
        }
        // Control characters are no XML, even escaped: dropped.
        let svg = bars(&[("a\u{0}b\u{1b}[31m".into(), 1)], &CAPTION).into_string();
        assert!(parse(&svg).iter().any(|e| e.text == "ab[31m"));
    }

    #[test]
    fn bars_keep_the_order_and_scale_to_the_longest() {
        let items: Vec<(String, u64)> = [("mobile", 50), ("desktop", 200), ("tablet", 0)]
            .iter()
            .map(|(l, n)| (l.to_string(), *n))
            .collect();
        let svg = bars(&items, &CAPTION).into_string();
        let elements = parse(&svg);
        let rects = named(&elements, "rect");
        assert_eq!(rects.len(), 3);
        let widths: Vec<f64> = rects.iter().map(|r| r.num("width")).collect();
        assert_eq!(widths[2], 0.0);
        assert!((widths[1] / widths[0] - 4.0).abs() < 0.01, "{widths:?}");
        let labels: Vec<&str> = elements
            .iter()
            .filter(|e| e.attr("class") == Some("label"))
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(labels, ["mobile", "desktop", "tablet"]);
        let values: Vec<&Element> = elements
            .iter()
            .filter(|e| e.attr("class") == Some("value"))
            .collect();
        assert_eq!(values[1].text, "200");
        // Each value right of its bar, inside the chart; rows below each other.
        for (v, r) in values.iter().zip(&rects) {
            assert!(v.num("x") > r.num("x") + r.num("width"));
            assert!(v.num("x") + width(&v.text) as f64 / 10.0 <= 400.0);
        }
        assert!(rects.windows(2).all(|w| w[0].num("y") < w[1].num("y")));
        assert!(svg.contains(">Total: 250</desc>"));
        // All zero, or huge: no division by zero, no overflow.
        let zero = bars(&[("a".into(), 0), ("b".into(), 0)], &CAPTION).into_string();
        assert!(named(&parse(&zero), "rect")
            .iter()
            .all(|r| r.num("width") == 0.0));
        let huge = bars(&[("a".into(), u64::MAX), ("b".into(), 1)], &CAPTION).into_string();
        assert!(huge.contains(">18E</text>"));
    }

    #[test]
    fn long_labels_are_cut_to_their_column() {
        let long = "a-very-long-referrer.subdomain.example.co.uk";
        let cjk = "東京都千代田区丸の内一丁目二番三号四階五号室六号";
        let svg = bars(&[(long.into(), 2), (cjk.into(), 1)], &CAPTION).into_string();
        let elements = parse(&svg);
        let labels: Vec<&Element> = elements
            .iter()
            .filter(|e| e.attr("class") == Some("label"))
            .collect();
        let bar_x = named(&elements, "rect")[0].num("x");
        for label in labels {
            assert!(label.text.ends_with('…'));
            assert!(width(&label.text) as f64 / 10.0 + GAP as f64 <= bar_x);
            assert!(width(&label.text) <= MAX_BAR_LABEL_WIDTH);
        }
        assert_eq!(clean("short", 1000), "short");
        assert_eq!(clean("twelve chars", MAX_DATE_WIDTH), "twelve chars");
        assert_eq!(clean("thirteen char", MAX_DATE_WIDTH), "thirteen c…");
    }

    #[test]
    fn charts_are_accessible_images_without_scripts_or_references() {
        let svg = line(&days(30, |i| i as u64), &CAPTION).into_string();
        let elements = parse(&svg);
        let root = &elements[0];
        assert_eq!(root.name, "svg");
        assert_eq!(root.attr("role"), Some("img"));
        assert_eq!(root.attr("viewBox"), Some("0 0 400 200"));
        assert_eq!(root.attr("width"), Some("100%"));
        assert_eq!(root.attr("height"), None, "the viewBox gives the height");
        assert_eq!(root.attr("aria-labelledby"), Some("views-title"));
        assert_eq!(root.attr("aria-describedby"), Some("views-desc"));
        assert_eq!(elements[1].name, "title");
        assert_eq!(elements[1].attr("id"), Some("views-title"));
        assert_eq!(elements[1].text, "Views per day");
        assert_eq!(elements[2].name, "desc");
        assert_eq!(elements[2].text, "Total: 435, 2026-10-24 – 2026-11-22");
        for svg in [svg, bars(&[("a".into(), 1)], &CAPTION).into_string()] {
            for banned in ["script", "href", "url(", "<style", "<image", "font-family"] {
                assert!(!svg.contains(banned), "{banned}");
            }
        }
    }

    #[test]
    fn nothing_to_draw_says_so() {
        for svg in [bars(&[], &CAPTION), line(&[], &CAPTION)] {
            let svg = svg.into_string();
            let elements = parse(&svg);
            assert!(named(&elements, "rect").is_empty() && named(&elements, "polyline").is_empty());
            let said: Vec<&Element> = elements
                .iter()
                .filter(|e| e.attr("class") == Some("empty"))
                .collect();
            assert_eq!(said.len(), 1);
            assert_eq!(said[0].text, "No data");
            assert_eq!(elements[0].attr("viewBox"), Some("0 0 400 32"));
        }
    }
}
