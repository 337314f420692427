//! Just enough URL handling for this service: validating `http(s)` links, taking a URL
//! apart into origin, host and query, and decoding query strings. The `url` crate would do
//! it too, but its IDNA tables would be most of the wasm; it is the oracle these functions
//! are held to instead (`domain/oracle.rs`, where the differences are written down).

/// The parts of an absolute `http(s)` URL this service looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl<'a> {
    /// Lowercased scheme: `http` or `https`.
    pub scheme: String,
    /// Host as written (lowercased ASCII), without port.
    pub host: String,
    pub port: Option<&'a str>,
    /// Path, query and fragment, as written (may be empty).
    pub rest: &'a str,
}

impl HttpUrl<'_> {
    pub fn origin(&self) -> String {
        match self.port {
            Some(p) => format!("{}://{}:{p}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// The raw query string, without `?` and without the fragment.
    pub fn query(&self) -> Option<&str> {
        let before_fragment = self.rest.split('#').next().unwrap_or("");
        before_fragment.split_once('?').map(|(_, q)| q)
    }
}

fn valid_host(host: &str) -> bool {
    if host.is_empty() || host.len() > 253 {
        return false;
    }
    if let Some(ipv6) = host.strip_prefix('[') {
        // A real IPv6 address (RFC 4291 text forms, no zone), as every URL parser wants.
        return ipv6
            .strip_suffix(']')
            .is_some_and(|h| h.parse::<core::net::Ipv6Addr>().is_ok());
    }
    host.split('.').all(|label| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// Parses an absolute `http://` or `https://` URL with a valid host, optional port and no
/// user info; anything else (other schemes, whitespace, control characters) is `None`.
pub fn parse_http(s: &str) -> Option<HttpUrl<'_>> {
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (scheme, after) = s.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    if authority.contains('@') {
        return None;
    }
    // A bracketed IPv6 literal ends at its `]`; only a port may follow.
    let split = match authority.find(']') {
        Some(end) if authority.starts_with('[') => {
            let (h, after) = authority.split_at(end + 1);
            match after {
                "" => None,
                _ => Some((h, after.strip_prefix(':')?)),
            }
        }
        _ => authority.rsplit_once(':'),
    };
    let (host, port) = match split {
        // A bare IPv6 address without brackets is not a valid host anyway.
        Some((h, _)) if !h.ends_with(']') && h.contains(':') => (authority, None),
        Some((h, p)) => {
            // Past 65535 is no port (WHATWG URL parsers fail on it too).
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.parse::<u16>().is_err() {
                return None;
            }
            (h, Some(p))
        }
        None => (authority, None),
    };
    if !valid_host(host) {
        return None;
    }
    Some(HttpUrl {
        scheme,
        // Per character, as UTS 46 maps (no final-sigma rule).
        host: host.chars().flat_map(char::to_lowercase).collect(),
        port,
        rest,
    })
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte; invalid
/// escapes are kept as written and invalid UTF-8 is replaced, never an error.
pub fn form_decode(s: &str) -> String {
    unescape(s, true)
}

/// A path segment's percent-decoding (RFC 3986): as [`form_decode`], but `+` is itself.
pub fn percent_decode(s: &str) -> String {
    unescape(s, false)
}

fn unescape(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `application/x-www-form-urlencoded` encoding of a value: every byte but the unreserved
/// ones (`A-Z a-z 0-9 - . _ ~`) as `%XX`; [`form_decode`] reads it back.
pub fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decoded `key=value` pairs of a query string or form body, in order.
pub fn form_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_urls() {
        let u = parse_http("HTTPS://Example.com:8443/a/b?x=1&y=2#frag").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, "example.com");
        assert_eq!(u.port, Some("8443"));
        assert_eq!(u.origin(), "https://example.com:8443");
        assert_eq!(u.query(), Some("x=1&y=2"));
        assert_eq!(
            parse_http("http://127.0.0.1:8787").unwrap().origin(),
            "http://127.0.0.1:8787"
        );
        assert_eq!(parse_http("http://[::1]:80/").unwrap().host, "[::1]");
        let u = parse_http("https://[2001:DB8::1]:8443/x").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("[2001:db8::1]", Some("8443")));
        assert!(parse_http("http://[::ffff:192.0.2.1]/").is_some());
        // Brackets hold an IPv6 address or nothing valid; only a port may follow them.
        for bad in [
            "http://[95F7AD:eEE]",
            "https://[E07f:]:8443/x",
            "http://[99]",
            "http://[bd7d.0Bf409cB8c]",
            "http://[::1]x/",
            "http://[::1]:/",
            "http://[]/",
        ] {
            assert!(parse_http(bad).is_none(), "{bad}");
        }
        assert_eq!(parse_http("https://bücher.de/").unwrap().host, "bücher.de");
        assert_eq!(parse_http("https://e.com?q").unwrap().query(), Some("q"));
        assert_eq!(parse_http("https://e.com/#a?b").unwrap().query(), None);
    }

    #[test]
    fn rejects_everything_else() {
        for bad in [
            "javascript:alert(1)",
            "example.com",
            "ftp://example.com",
            "https://",
            "https:///path",
            "https://exa mple.com",
            "https://user:pw@example.com",
            "https://-bad.com",
            "https://a..b",
            "https://e.com:99999999",
            "https://e.com:65536",
            "https://e.com:",
            "data:text/html,hi",
            "https://e.com/\n",
        ] {
            assert!(parse_http(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn decodes_forms() {
        assert_eq!(form_decode("a+b%20c%2Bd"), "a b c+d");
        assert_eq!(form_decode("100%"), "100%");
        assert_eq!(form_decode("%zz%4"), "%zz%4");
        assert_eq!(form_decode("%C3%BC"), "ü");
        assert_eq!(form_decode("%FF"), "\u{FFFD}");
        for s in ["0000-00ab.~_", "a&b=c+d%e#f g", "Jürgen", ""] {
            assert_eq!(form_decode(&form_encode(s)), s);
        }
        assert_eq!(form_encode("0a-F.~_"), "0a-F.~_");
        assert_eq!(form_encode("a&=+ /"), "a%26%3D%2B%20%2F");
        assert_eq!(
            form_pairs("page=2&per_page=&x&name=J%C3%BCrgen+G"),
            vec![
                ("page".into(), "2".into()),
                ("per_page".into(), "".into()),
                ("x".into(), "".into()),
                ("name".into(), "Jürgen G".into())
            ]
        );
    }
}
