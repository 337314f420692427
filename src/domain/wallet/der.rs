//! The DER (X.690) the wallet needs: a writer for CMS SignedData and a reader for the
//! operator's certificates. Only what those use: one-byte tags, definite lengths; SET OF
//! sorted as DER demands (openssl sorts them too, so the signature is byte-identical).

/// Universal tags (constructed ones with their bit set), and the context tag `[0]`.
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const NULL: u8 = 0x05;
pub const OID: u8 = 0x06;
pub const UTC_TIME: u8 = 0x17;
pub const GENERALIZED_TIME: u8 = 0x18;
pub const SEQUENCE: u8 = 0x30;
pub const SET: u8 = 0x31;
pub const CONTEXT_0: u8 = 0xa0;

/// Object identifiers as whole DER elements (tag, length, arcs), so the writer copies them.
pub mod oid {
    /// 1.2.840.113549.1.7.1
    pub const DATA: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 7, 1];
    /// 1.2.840.113549.1.7.2
    pub const SIGNED_DATA: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 7, 2];
    /// 1.2.840.113549.1.9.3
    pub const CONTENT_TYPE: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 9, 3];
    /// 1.2.840.113549.1.9.4
    pub const MESSAGE_DIGEST: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 9, 4];
    /// 1.2.840.113549.1.9.5
    pub const SIGNING_TIME: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 9, 5];
    /// 2.16.840.1.101.3.4.2.1
    pub const SHA256: &[u8] = &[6, 9, 0x60, 0x86, 0x48, 1, 0x65, 3, 4, 2, 1];
    /// 1.2.840.113549.1.1.1
    pub const RSA: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 1];
    /// 1.2.840.10045.2.1
    pub const EC_PUBLIC_KEY: &[u8] = &[6, 7, 0x2a, 0x86, 0x48, 0xce, 0x3d, 2, 1];
    /// 1.2.840.10045.3.1.7 (P-256)
    pub const PRIME256V1: &[u8] = &[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 3, 1, 7];
    /// 1.2.840.10045.4.3.2
    pub const ECDSA_SHA256: &[u8] = &[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3, 2];
    /// 0.9.2342.19200300.100.1.1 (userId: a Pass Type ID certificate's pass type)
    pub const UID: &[u8] = &[6, 10, 9, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 1, 1];
    /// 2.5.4.3
    pub const COMMON_NAME: &[u8] = &[6, 3, 0x55, 4, 3];
    /// 2.5.4.11 (a Pass Type ID certificate's team)
    pub const ORGANIZATIONAL_UNIT: &[u8] = &[6, 3, 0x55, 4, 11];
}

/// One element: tag and the concatenated `parts` as its content.
pub fn element(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = Vec::with_capacity(len + 6);
    out.push(tag);
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = (len as u64).to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (8 - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}

/// A SET OF (or an IMPLICIT-tagged one): DER orders the elements by their encodings.
pub fn set_of(tag: u8, items: Vec<Vec<u8>>) -> Vec<u8> {
    // An insertion sort: there are two or three, and `sort` brings 3 KB of wasm.
    let mut sorted: Vec<&[u8]> = Vec::with_capacity(items.len());
    for item in &items {
        let at = sorted
            .iter()
            .position(|s| *s > item.as_slice())
            .unwrap_or(sorted.len());
        sorted.insert(at, item);
    }
    element(tag, &sorted)
}

/// A non-negative INTEGER from big-endian magnitude bytes (an ECDSA `r` or `s`): leading
/// zeros dropped, one put back where the top bit would make it negative.
pub fn unsigned_integer(magnitude: &[u8]) -> Vec<u8> {
    let start = magnitude
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(magnitude.len().saturating_sub(1));
    let digits = magnitude.get(start..).unwrap_or(&[]);
    if digits.first().is_none_or(|&b| b >= 0x80) {
        element(INTEGER, &[&[0], digits])
    } else {
        element(INTEGER, &[digits])
    }
}

/// A time as X.509 and CMS write it: UTCTime (`YYMMDDHHMMSSZ`) for 1950-2049,
/// GeneralizedTime (`YYYYMMDDHHMMSSZ`) outside (RFC 5280 4.1.2.5).
pub fn time(ms: i64) -> Vec<u8> {
    let secs = ms.div_euclid(1000);
    let (y, mo, d) = crate::domain::time::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let utc = (1950..2050).contains(&y);
    // Two digits each: century (GeneralizedTime only), year, month, day, hour, minute, second.
    let fields = [
        y / 100,
        y % 100,
        mo.into(),
        d.into(),
        s / 3600,
        s / 60 % 60,
        s % 60,
    ];
    let mut text = Vec::with_capacity(15);
    for n in &fields[usize::from(utc)..] {
        text.extend_from_slice(&[b'0' + (n / 10 % 10) as u8, b'0' + (n % 10) as u8]);
    }
    text.push(b'Z');
    element(if utc { UTC_TIME } else { GENERALIZED_TIME }, &[&text])
}

/// One element read from DER: its tag, its content, and the whole of it as encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tlv<'a> {
    pub tag: u8,
    pub content: &'a [u8],
    pub whole: &'a [u8],
}

/// Reads elements one after another out of a byte string; every read is bounds-checked,
/// so bytes that are no DER give `None`, never a panic.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The next element, whatever its tag.
    pub fn any(&mut self) -> Option<Tlv<'a>> {
        let input = self.0;
        let tag = *input.first()?;
        // Multi-byte tags (low bits all set) occur in nothing the wallet reads.
        if tag & 0x1f == 0x1f {
            return None;
        }
        let first = *input.get(1)? as usize;
        let (len, head) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            // Indefinite lengths (0x80) are BER, not DER; 4 bytes of length is plenty.
            if n == 0 || n > 4 {
                return None;
            }
            let len = input
                .get(2..2 + n)?
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | b as usize);
            (len, 2 + n)
        };
        let end = head.checked_add(len)?;
        let whole = input.get(..end)?;
        self.0 = input.get(end..)?;
        Some(Tlv {
            tag,
            content: whole.get(head..)?,
            whole,
        })
    }

    /// The next element if it has `tag`.
    pub fn next(&mut self, tag: u8) -> Option<Tlv<'a>> {
        let mut ahead = *self;
        let tlv = ahead.any().filter(|t| t.tag == tag)?;
        *self = ahead;
        Some(tlv)
    }

    /// The next element's content as a reader, if it has `tag`.
    pub fn enter(&mut self, tag: u8) -> Option<Reader<'a>> {
        self.next(tag).map(|t| Reader(t.content))
    }
}

/// The contents of an INTEGER without the sign byte DER puts before a high bit.
pub fn magnitude(content: &[u8]) -> &[u8] {
    match content {
        [0, rest @ ..] if !rest.is_empty() => rest,
        _ => content,
    }
}

/// Unix milliseconds of a UTCTime or GeneralizedTime element (`Z` form only, as RFC 5280
/// requires of certificates).
pub fn read_time(t: Tlv) -> Option<i64> {
    let digits = t.content.strip_suffix(b"Z")?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // The two digits at `i`, as a number.
    let two = |i: usize| -> Option<i64> {
        let pair = digits.get(i..i + 2)?;
        Some(i64::from(pair[0] - b'0') * 10 + i64::from(pair[1] - b'0'))
    };
    let (year, at) = match (t.tag, digits.len()) {
        (UTC_TIME, 12) => {
            let yy = two(0)?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, 2)
        }
        (GENERALIZED_TIME, 14) => (two(0)? * 100 + two(2)?, 4),
        _ => return None,
    };
    let n = |i: usize| two(at + i);
    let (month, day) = (n(0)?, n(2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = crate::domain::time::days_from_civil(year, month as u32, day as u32);
    Some(((days * 24 + n(4)?) * 60 + n(6)?) * 60_000 + n(8)? * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_take_the_shortest_form() {
        assert_eq!(element(OCTET_STRING, &[]), [4, 0]);
        assert_eq!(element(OCTET_STRING, &[&[7; 127]])[..2], [4, 127]);
        assert_eq!(element(OCTET_STRING, &[&[7; 128]])[..3], [4, 0x81, 128]);
        assert_eq!(element(OCTET_STRING, &[&[7; 256]])[..4], [4, 0x82, 1, 0]);
        assert_eq!(
            element(OCTET_STRING, &[&[7; 70_000]])[..5],
            [4, 0x83, 1, 0x11, 0x70]
        );
        assert_eq!(element(SEQUENCE, &[&[1], &[2, 3]]), [0x30, 3, 1, 2, 3]);
    }

    #[test]
    fn sets_are_sorted_by_encoding() {
        let set = set_of(SET, vec![vec![4, 1, 9], vec![2, 1, 1], vec![4, 1, 2]]);
        assert_eq!(set, [0x31, 9, 2, 1, 1, 4, 1, 2, 4, 1, 9]);
    }

    #[test]
    fn unsigned_integers_are_minimal_and_positive() {
        assert_eq!(unsigned_integer(&[0, 0, 5]), [2, 1, 5]);
        assert_eq!(unsigned_integer(&[0x80, 1]), [2, 3, 0, 0x80, 1]);
        assert_eq!(unsigned_integer(&[0, 0x7f]), [2, 1, 0x7f]);
        assert_eq!(unsigned_integer(&[0, 0]), [2, 1, 0]);
        assert_eq!(unsigned_integer(&[]), [2, 1, 0]);
    }

    #[test]
    fn times_switch_to_generalized_in_2050() {
        // 2026-11-28T23:19:39Z
        let ms = 1_795_907_979_000;
        assert_eq!(time(ms), [&[0x17, 13][..], b"261128231939Z"].concat());
        assert_eq!(read_time(Reader(&time(ms)).any().unwrap()), Some(ms));
        // 2050-01-01T00:00:00Z and 1949-12-31T23:59:59Z
        for (ms, text) in [
            (2_524_608_000_000, &b"20500101000000Z"[..]),
            (-631_152_001_000, b"19491231235959Z"),
        ] {
            assert_eq!(time(ms), [&[0x18, 15][..], text].concat());
            assert_eq!(read_time(Reader(&time(ms)).any().unwrap()), Some(ms));
        }
        assert_eq!(
            read_time(Reader(b"\x17\x0d4912312359 9Z").any().unwrap()),
            None
        );
        assert_eq!(
            read_time(Reader(b"\x17\x0b491231235959").any().unwrap()),
            None
        );
    }

    #[test]
    fn the_reader_refuses_what_is_not_der() {
        let data = element(SEQUENCE, &[&element(INTEGER, &[&[5]]), &element(NULL, &[])]);
        let mut r = Reader(&data);
        let mut seq = r.enter(SEQUENCE).unwrap();
        assert!(r.is_empty());
        assert_eq!(seq.next(NULL), None, "wrong tag: nothing consumed");
        assert_eq!(seq.next(INTEGER).unwrap().content, [5]);
        assert_eq!(seq.next(NULL).unwrap().whole, [5, 0]);
        assert!(seq.is_empty());
        for bad in [
            &[][..],
            &[0x30],
            &[0x30, 5, 1],
            &[0x30, 0x80, 0, 0],
            &[0x30, 0x85, 0, 0, 0, 0, 1],
            &[0x1f, 1, 0],
            &[0x30, 0x84, 0xff, 0xff, 0xff, 0xff],
        ] {
            assert_eq!(Reader(bad).any(), None, "{bad:?}");
        }
        // Every cut of a real element fails cleanly.
        for n in 0..data.len() {
            assert_eq!(Reader(&data[..n]).any(), None);
        }
    }
}
