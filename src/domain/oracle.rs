//! Oracle tests: every parser written here instead of taken from a crate (to keep the
//! wasm small) is held to that crate, a dev-dependency, on many generated inputs and the
//! edge cases below; each intended difference is written next to the assertion that
//! allows it. To add a case, add it to the edge list of its test; to add a parser, add a
//! test that draws from [`Gen`].

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat};

use super::signing::{base64, base64_decode, base64url, base64url_decode};
use super::time::{iso8601, parse_iso8601};
use super::weburl::{form_decode, form_pairs, parse_http};

/// A small deterministic generator (xorshift64*): the same inputs on every run, so a
/// failure names an input that fails again.
struct Gen(u64);

impl Gen {
    fn new(seed: u64) -> Self {
        Gen(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
    /// A string of `len` pieces drawn from `pieces`.
    fn text(&mut self, pieces: &[&str], len: usize) -> String {
        (0..len).map(|_| self.pick(pieces)).collect()
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

const RUNS: usize = 20_000;

#[test]
fn form_decoding_matches_form_urlencoded() {
    // Pieces that exercise escapes (valid, invalid, cut short), `+`, separators and UTF-8.
    let pieces = [
        "a",
        "Z",
        "0",
        "+",
        "%",
        "%2",
        "%20",
        "%2B",
        "%41",
        "%zz",
        "%C3",
        "%BC",
        "%FF",
        "%e2%82%ac",
        "=",
        "&",
        "&&",
        "ü",
        "€",
        " ",
        "%%",
        "%0",
        "%g1",
        ".",
        "-",
        "~",
        "%3D",
        "%26",
    ];
    let mut g = Gen::new(0x5eed_f0c5);
    let mut edge: Vec<String> = [
        "", "&", "=", "==", "a=b=c", "%", "%4", "a&&b", "+=+", "%ZZ=1",
    ]
    .map(String::from)
    .to_vec();
    edge.extend((0..RUNS).map(|_| {
        let len = g.below(12);
        g.text(&pieces, len)
    }));
    for s in &edge {
        let theirs: Vec<(String, String)> = url::form_urlencoded::parse(s.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        assert_eq!(form_pairs(s), theirs, "{s:?}");
        if !s.contains(['&', '=']) {
            // One value alone decodes as one key would.
            let one = url::form_urlencoded::parse(s.as_bytes()).next();
            assert_eq!(
                form_decode(s),
                one.map(|(k, _)| k.into_owned()).unwrap_or_default()
            );
        }
    }
}

#[test]
fn http_urls_match_the_url_crate() {
    let schemes = ["http", "https", "HTTP", "Https", "ftp", "http:", ""];
    let hosts = [
        "example.com",
        "Example.COM",
        "a.b.c",
        "xn--bcher-kva.de",
        "127.0.0.1",
        "8.8.8.8",
        "[::1]",
        "[2001:DB8::1]",
        "[::ffff:192.0.2.1]",
        "under_score.example.com",
        "a-b.c",
        "-a.com",
        "a-.com",
        "a..b",
        "",
        "[]",
        "[::1",
        "e.com.",
        "bücher.de",
        "ΑΒΓ.gr",
    ];
    let ports = [
        "", ":80", ":443", ":8443", ":0", ":65535", ":65536", ":", ":x", ":0080",
    ];
    let rests = [
        "", "/", "/a/b", "?x=1", "#f", "/p?q=1#f", "/%41", "?", "/a?b#c?d",
    ];
    let mut g = Gen::new(0x0441_7e11);
    let mut urls: Vec<String> = (0..RUNS)
        .map(|_| {
            format!(
                "{}://{}{}{}",
                g.pick(&schemes),
                g.pick(&hosts),
                g.pick(&ports),
                g.pick(&rests)
            )
        })
        .collect();
    urls.extend(
        [
            "https://user:pw@example.com/", // user info: we refuse it, url accepts it
            "https://exa mple.com/",
            " https://example.com", // url trims C0 and space; we refuse
            "https://e.com/\n",     // url removes tabs and newlines; we refuse
            "https://0x7f.1/",      // url reads IPv4 shorthands; our host is as written
            "http:/example.com",
            "https:\\\\example.com",
        ]
        .map(String::from),
    );
    for s in &urls {
        let Some(ours) = parse_http(s) else {
            continue;
        };
        // Whatever we accept is a URL to the WHATWG parser, with the same scheme, host,
        // port and path-query-fragment.
        let theirs = url::Url::parse(s).unwrap_or_else(|e| panic!("{s:?}: url refused: {e}"));
        assert_eq!(ours.scheme, theirs.scheme(), "{s:?}");
        let host = theirs.host_str().unwrap_or_default();
        if ours.host.is_ascii() {
            // The url crate compresses IPv6 and drops a trailing `.`-less difference; compare
            // IPv6 as addresses, names as text. (Ours keeps a non-ASCII name as written,
            // lowercased; url maps it to punycode: the webhook rules refuse such hosts.)
            let v6 = |h: &str| {
                h.strip_prefix('[')
                    .and_then(|h| h.strip_suffix(']'))
                    .and_then(|h| h.parse::<std::net::Ipv6Addr>().ok())
            };
            match (v6(&ours.host), v6(host), theirs.host()) {
                (Some(a), Some(b), _) => assert_eq!(a, b, "{s:?}"),
                // url reads IPv4 shorthands (`0x7f.1`, `2130706433`) as dotted decimal;
                // ours keeps them as written (a dotted-decimal host is kept as is). The
                // webhook rules classify the url crate's reading, not ours (webhook.rs,
                // `classifies_the_host_a_whatwg_parser_connects_to`).
                (_, _, Some(url::Host::Ipv4(_))) if ours.host != host => {
                    assert!(ours.host.parse::<std::net::Ipv4Addr>().is_err(), "{s:?}")
                }
                _ => assert_eq!(ours.host, host, "{s:?}"),
            }
        }
        // url drops a default port (`:80` on http); ours keeps it as written.
        let our_port = ours.port.map(|p| p.parse::<u16>().expect("a valid port"));
        assert_eq!(
            our_port.or(theirs.port_or_known_default()),
            theirs.port_or_known_default(),
            "{s:?}"
        );
        // Path, query and fragment: url normalises an empty path to `/`.
        let rest = &theirs[url::Position::BeforePath..];
        let ours_rest = if ours.rest.is_empty() || !ours.rest.starts_with('/') {
            format!("/{}", ours.rest)
        } else {
            ours.rest.to_string()
        };
        assert_eq!(ours_rest, rest, "{s:?}");
        assert_eq!(ours.query(), theirs.query(), "{s:?}");
    }
    // The refusals that are ours alone (the url crate accepts each).
    for s in [
        "https://user:pw@example.com/",
        " https://example.com",
        "https://e.com/\n",
    ] {
        assert!(
            parse_http(s).is_none() && url::Url::parse(s).is_ok(),
            "{s:?}"
        );
    }
}

#[test]
fn iso8601_matches_chrono() {
    let mut g = Gen::new(0x1508_8601);
    // Years 0000-9999 (the format's four digits), milliseconds.
    let max = 253_402_300_799_999i64;
    let min = -62_167_219_200_000i64;
    let mut times: Vec<i64> = vec![0, -1, 1, min, max, 951_782_400_000, 1_763_822_596_123];
    times.extend((0..RUNS).map(|_| min + (g.next() % (max - min + 1) as u64) as i64));
    for ms in times {
        let printed = iso8601(ms);
        let chrono = DateTime::from_timestamp_millis(ms).expect("in range");
        assert_eq!(
            printed,
            chrono.to_rfc3339_opts(SecondsFormat::Millis, true),
            "{ms}"
        );
        assert_eq!(parse_iso8601(&printed), Some(ms), "{printed}");
    }
    // Parsing: generated date-times, valid and not, against chrono's RFC 3339 parser.
    let pieces = |g: &mut Gen| {
        let year = g.pick(&[
            "2026", "2024", "1900", "2000", "0000", "9999", "20x6", "226",
        ]);
        let month = g.pick(&["01", "02", "04", "12", "13", "00", "1"]);
        let day = g.pick(&["01", "28", "29", "30", "31", "32", "00"]);
        let sep = g.pick(&["T", "t", " ", "_"]);
        let time = g.pick(&[
            "00:00:00", "23:59:59", "24:00:00", "12:60:00", "23:59:60", "1:00:00",
        ]);
        let frac = g.pick(&["", ".5", ".123", ".123456789", ".", ".12a"]);
        let zone = g.pick(&[
            "Z", "z", "+01:00", "-05:30", "+23:59", "+24:00", "+0100", "", "+01:60",
        ]);
        format!("{year}-{month}-{day}{sep}{time}{frac}{zone}")
    };
    for _ in 0..RUNS {
        let s = pieces(&mut g);
        let theirs = DateTime::parse_from_rfc3339(&s).ok();
        let ours = parse_iso8601(&s);
        match theirs {
            // A leap second (`:60`): chrono keeps it as the 1000th+ millisecond of :59; we
            // read it as :59 plus the fraction (the instant cannot be told apart).
            Some(t) if s.contains(":60") => {
                let t = t.timestamp_millis();
                assert!(ours.is_some_and(|o| o <= t && t - o <= 1000), "{s}");
            }
            _ => assert_eq!(ours, theirs.map(|t| t.timestamp_millis()), "{s}"),
        }
    }
    // Ours alone: a decimal comma (ISO 8601 allows it; RFC 3339 does not).
    assert_eq!(
        parse_iso8601("2026-11-22T14:43:16,5Z"),
        parse_iso8601("2026-11-22T14:43:16.5Z")
    );
}

#[test]
fn base64_matches_the_base64_crate() {
    let std = base64::engine::general_purpose::STANDARD;
    let lenient = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let mut g = Gen::new(0xba5e_0064);
    for _ in 0..RUNS {
        let len = g.below(70);
        let bytes = g.bytes(len);
        let encoded = base64(&bytes);
        assert_eq!(encoded, std.encode(&bytes));
        assert_eq!(base64_decode(&encoded), Some(bytes.clone()));
        assert_eq!(base64_decode(encoded.trim_end_matches('=')), Some(bytes));
    }
    // Decoding arbitrary text: ours is the lenient engine (padding optional, trailing bits
    // ignored), except that ours also takes any number of `=` at the end.
    let pieces = [
        "A", "Q", "z", "0", "+", "/", "=", "==", "-", "_", " ", "é", "Zg", "Zm9v",
    ];
    for _ in 0..RUNS {
        let len = g.below(10);
        let s = g.text(&pieces, len);
        let theirs = lenient.decode(s.trim_end_matches('=')).ok();
        assert_eq!(base64_decode(&s), theirs, "{s:?}");
    }
}

#[test]
fn base64url_matches_the_base64_crate() {
    // WebAuthn's spelling: the URL-safe alphabet, no padding, canonical trailing bits.
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut g = Gen::new(0xba5e_0075);
    for _ in 0..RUNS {
        let len = g.below(70);
        let bytes = g.bytes(len);
        let encoded = base64url(&bytes);
        assert_eq!(encoded, url.encode(&bytes));
        assert_eq!(base64url_decode(&encoded), Some(bytes));
    }
    // Decoding arbitrary text, trailing bits and `=` included: exactly the crate's engine.
    let pieces = [
        "A", "Q", "z", "0", "+", "/", "=", "==", "-", "_", " ", "é", "Zg", "Zh", "Zm9v", "-_",
    ];
    for _ in 0..RUNS {
        let len = g.below(10);
        let s = g.text(&pieces, len);
        assert_eq!(base64url_decode(&s), url.decode(&s).ok(), "{s:?}");
    }
}
