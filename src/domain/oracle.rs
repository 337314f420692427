//! Oracle tests: every parser written here instead of taken from a crate (to keep the
//! wasm small) is held to that crate, a dev-dependency, on many generated inputs and the
//! edge cases below; each intended difference is written next to the assertion that
//! allows it. To add a case, add it to the edge list of its test; to add a parser, add a
//! test that draws from [`Gen`].

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat};

use super::signing::{base64, base64_decode, base64url, base64url_decode};
use super::time::{iso8601, parse_iso8601};
use super::webauthn::cbor;
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

/// Ours as ciborium's value, to compare the two.
fn ciborium_value(v: &cbor::Value) -> ciborium::Value {
    use ciborium::Value as C;
    match v {
        cbor::Value::Int(n) => C::Integer((*n).try_into().expect("CBOR's integer range")),
        cbor::Value::Bytes(b) => C::Bytes(b.to_vec()),
        cbor::Value::Text(t) => C::Text(t.to_string()),
        cbor::Value::Array(items) => C::Array(items.iter().map(ciborium_value).collect()),
        cbor::Value::Map(entries) => C::Map(
            entries
                .iter()
                .map(|(k, v)| (ciborium_value(k), ciborium_value(v)))
                .collect(),
        ),
        cbor::Value::Bool(b) => C::Bool(*b),
        cbor::Value::Null => C::Null,
    }
}

/// A value of the types WebAuthn uses, containers at most `depth` deep.
fn random_cbor(g: &mut Gen, depth: usize) -> ciborium::Value {
    use ciborium::Value as C;
    // Each integer head size on both sides of its bounds, and the extremes.
    const INTS: [i128; 22] = [
        0,
        1,
        23,
        24,
        255,
        256,
        65_535,
        65_536,
        u32::MAX as i128,
        u32::MAX as i128 + 1,
        u64::MAX as i128,
        -1,
        -24,
        -25,
        -256,
        -257,
        -65_537,
        -7,
        -257,
        -(u32::MAX as i128) - 2,
        i64::MIN as i128,
        -(1 << 64),
    ];
    let int = |n: i128| C::Integer(n.try_into().expect("in range"));
    match g.below(if depth == 0 { 6 } else { 9 }) {
        0 => int(INTS[g.below(INTS.len())]),
        1 => int(g.next() as i64 as i128),
        2 => {
            // Lengths around the head sizes, now and then one in the 4-byte range.
            let len = [0, 1, 23, 24, 32, 255, 256, 300, 70_000][g.below(9)];
            let len = if len == 70_000 && g.below(8) != 0 {
                5
            } else {
                len
            };
            C::Bytes(g.bytes(len))
        }
        3 => {
            let len = g.below(30);
            C::Text(g.text(&["a", "Z", " ", "é", "€", "😀", "\u{0}", "fmt"], len))
        }
        4 => [C::Bool(true), C::Bool(false), C::Null][g.below(3)].clone(),
        5 => int(g.below(30) as i128 - 15),
        6 | 7 => {
            let len = [0, 1, 2, 5, 24][g.below(5)];
            C::Array((0..len).map(|_| random_cbor(g, depth - 1)).collect())
        }
        _ => {
            let len = [0, 1, 3, 5, 24][g.below(5)];
            C::Map(
                (0..len)
                    .map(|_| (random_cbor(g, depth - 1), random_cbor(g, depth - 1)))
                    .collect(),
            )
        }
    }
}

/// ciborium's reading of `input`: the value and how many bytes it took.
fn ciborium_decode(input: &[u8]) -> Option<(ciborium::Value, usize)> {
    let mut rest = input;
    let value = ciborium::from_reader(&mut rest).ok()?;
    Some((value, input.len() - rest.len()))
}

/// Whatever ours makes of `input` (never a panic), ciborium makes the same of.
fn agrees_with_ciborium(input: &[u8]) {
    match cbor::decode(input) {
        Ok((ours, used)) => {
            let theirs = ciborium_decode(&input[..used]);
            assert_eq!(theirs, Some((ciborium_value(&ours), used)), "{input:02x?}");
        }
        // Input that ends inside an item, or text that is not UTF-8, is no CBOR at all.
        Err(cbor::Error::Truncated | cbor::Error::NotUtf8) => {
            assert_eq!(ciborium_decode(input), None, "{input:02x?}")
        }
        // ciborium reads tags, floats and indefinite lengths; ours refuses them.
        Err(cbor::Error::Unsupported | cbor::Error::TooDeep) => {}
    }
}

#[test]
fn cbor_matches_ciborium() {
    let mut g = Gen::new(0xc0b0_8949);
    for run in 0..RUNS / 4 {
        let value = random_cbor(&mut g, 4);
        let mut input = vec![];
        ciborium::into_writer(&value, &mut input).expect("encodes");
        let (ours, used) = cbor::decode(&input).unwrap_or_else(|e| panic!("{value:?}: {e:?}"));
        assert_eq!((ciborium_value(&ours), used), (value, input.len()));
        // What follows the item is not read.
        input.push(0xff);
        assert_eq!(cbor::decode(&input).map(|(_, used)| used), Ok(used));
        input.pop();
        // Every strict prefix (a sample of them for long items) ends inside the item.
        let cuts: Vec<usize> = if input.len() <= 300 {
            (0..input.len()).collect()
        } else {
            (0..20).map(|_| g.below(input.len())).collect()
        };
        for cut in cuts {
            assert_eq!(
                cbor::decode(&input[..cut]).map(|_| ()),
                Err(cbor::Error::Truncated)
            );
        }
        // A byte changed: refused, or read as ciborium reads it.
        if input.len() < 2_000 || run % 16 == 0 {
            for _ in 0..4 {
                let mut changed = input.clone();
                let at = g.below(changed.len());
                changed[at] = g.next() as u8;
                agrees_with_ciborium(&changed);
            }
        }
    }
    // Lengths and integers written longer than they need: both read them.
    for input in [
        &[0x18, 0x01][..],
        &[0x19, 0x00, 0x01],
        &[0x3b, 0, 0, 0, 0, 0, 0, 0, 0x06],
        &[0x59, 0x00, 0x01, 0xaa],
        &[0x98, 0x01, 0x00],
        &[0xba, 0, 0, 0, 1, 0x01, 0x02],
    ] {
        assert!(cbor::decode(input).is_ok(), "{input:02x?}");
        agrees_with_ciborium(input);
    }
    // Garbage.
    for _ in 0..RUNS {
        let len = g.below(40);
        agrees_with_ciborium(&g.bytes(len));
    }
}
