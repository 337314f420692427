//! A CBOR (RFC 8949) decoder for what WebAuthn sends: the attestation object and the COSE
//! public key in authenticatorData. Definite lengths only (CTAP2's canonical form has no
//! others); integers, byte and text strings, arrays, maps, true, false and null. Tags,
//! floats and the other simple values are refused: WebAuthn's structures use none of them.
//!
//! Hostile input cannot make it allocate or recurse without bound: a length is checked
//! against the bytes left before anything is reserved (every item takes at least one
//! byte), and containers nest at most [`MAX_DEPTH`] deep. Integers and lengths written
//! longer than they need are read (as ciborium reads them): canonical form is the
//! authenticator's duty, and nothing here depends on it. `domain/oracle.rs` holds the
//! decoder to ciborium.

/// A decoded item; strings borrow from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// Major types 0 and 1: -2^64 ..= 2^64 - 1.
    Int(i128),
    Bytes(&'a [u8]),
    Text(&'a str),
    Array(Vec<Value<'a>>),
    /// Entries in the order sent, duplicates kept ([`Value::get`] refuses them).
    Map(Vec<(Value<'a>, Value<'a>)>),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The input ends inside an item.
    Truncated,
    /// CBOR this decoder does not take: an indefinite length, a tag, a float, a simple
    /// value other than false, true and null, or a reserved additional-information value.
    Unsupported,
    /// Containers nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A text string that is not UTF-8.
    NotUtf8,
}

/// WebAuthn's deepest structure (an attestation statement's certificate chain) nests
/// three containers; 16 leaves room and bounds the recursion.
pub const MAX_DEPTH: usize = 16;

/// The first item of `input` and how many bytes it took: authenticatorData's credential
/// public key is followed by more bytes.
pub fn decode(input: &[u8]) -> Result<(Value<'_>, usize), Error> {
    let mut r = Reader { input, pos: 0 };
    let value = r.item(0)?;
    Ok((value, r.pos))
}

impl<'a> Value<'a> {
    /// The value under `key` of a map; `None` if this is no map, or the key is missing or
    /// there twice (which of two would be guesswork, so neither is taken).
    pub fn get(&self, key: &Value) -> Option<&Value<'a>> {
        let Value::Map(entries) = self else {
            return None;
        };
        let mut found = entries.iter().filter(|(k, _)| k == key);
        match (found.next(), found.next()) {
            (Some((_, v)), None) => Some(v),
            _ => None,
        }
    }

    pub fn int(&self) -> Option<i128> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    pub fn bytes(&self) -> Option<&'a [u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    pub fn text(&self) -> Option<&'a str> {
        match self {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }
}

struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes, or `Truncated` if fewer are left.
    fn take(&mut self, n: u64) -> Result<&'a [u8], Error> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= rest.len())
            .ok_or(Error::Truncated)?;
        self.pos += n;
        Ok(&rest[..n])
    }

    /// `n` items of at least `bytes_each` bytes each, if that many bytes are left: the
    /// check that keeps a claimed length from reserving memory the input cannot fill.
    fn count(&self, n: u64, bytes_each: u64) -> Result<usize, Error> {
        let left = (self.input.len() - self.pos) as u64;
        match n.checked_mul(bytes_each) {
            Some(need) if need <= left => Ok(n as usize),
            _ => Err(Error::Truncated),
        }
    }

    /// One item, `depth` containers down.
    fn item(&mut self, depth: usize) -> Result<Value<'a>, Error> {
        let first = self.take(1)?[0];
        let (major, info) = (first >> 5, first & 31);
        if major == 7 {
            return match info {
                20 => Ok(Value::Bool(false)),
                21 => Ok(Value::Bool(true)),
                22 => Ok(Value::Null),
                _ => Err(Error::Unsupported),
            };
        }
        let arg = match info {
            0..=23 => u64::from(info),
            // The argument follows in 1, 2, 4 or 8 bytes, big-endian.
            24..=27 => {
                let bytes = self.take(1 << (info - 24))?;
                bytes.iter().fold(0, |n, &b| n << 8 | u64::from(b))
            }
            // 28-30 are reserved; 31 is an indefinite length.
            _ => return Err(Error::Unsupported),
        };
        if matches!(major, 4 | 5) && depth >= MAX_DEPTH {
            return Err(Error::TooDeep);
        }
        match major {
            0 => Ok(Value::Int(i128::from(arg))),
            1 => Ok(Value::Int(-1 - i128::from(arg))),
            2 => Ok(Value::Bytes(self.take(arg)?)),
            3 => std::str::from_utf8(self.take(arg)?)
                .map(Value::Text)
                .map_err(|_| Error::NotUtf8),
            4 => {
                let mut items = Vec::with_capacity(self.count(arg, 1)?);
                for _ in 0..arg {
                    items.push(self.item(depth + 1)?);
                }
                Ok(Value::Array(items))
            }
            5 => {
                let mut entries = Vec::with_capacity(self.count(arg, 2)?);
                for _ in 0..arg {
                    let key = self.item(depth + 1)?;
                    entries.push((key, self.item(depth + 1)?));
                }
                Ok(Value::Map(entries))
            }
            // 6: a tag.
            _ => Err(Error::Unsupported),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_major_type_and_says_how_much_it_took() {
        // {1: 2, -3: h'0102', "a": [true, false, null]} and one byte after it.
        let input = [
            0xa3, 0x01, 0x02, 0x22, 0x42, 0x01, 0x02, 0x61, b'a', 0x83, 0xf5, 0xf4, 0xf6, 0xff,
        ];
        let (value, used) = decode(&input).unwrap();
        assert_eq!(used, input.len() - 1);
        assert_eq!(value.get(&Value::Int(1)), Some(&Value::Int(2)));
        assert_eq!(value.get(&Value::Int(-3)), Some(&Value::Bytes(&[1, 2])));
        let list = vec![Value::Bool(true), Value::Bool(false), Value::Null];
        assert_eq!(value.get(&Value::Text("a")), Some(&Value::Array(list)));
        assert_eq!(value.get(&Value::Int(9)), None);
        // The extremes of both integer types.
        let max = [0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(decode(&max), Ok((Value::Int(u64::MAX.into()), 9)));
        let min = [0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(decode(&min), Ok((Value::Int(-(1i128 << 64)), 9)));
    }

    #[test]
    fn a_duplicate_key_answers_nothing() {
        let (value, _) = decode(&[0xa2, 0x03, 0x26, 0x03, 0x27]).unwrap();
        assert_eq!(value.get(&Value::Int(3)), None);
        assert_eq!(Value::Int(3).get(&Value::Int(3)), None);
    }

    #[test]
    fn refuses_what_webauthn_does_not_send() {
        for input in [
            &[0x5f, 0x41, 0x00, 0xff][..],   // indefinite byte string
            &[0x9f, 0xff],                   // indefinite array
            &[0xc2, 0x41, 0x01],             // tag 2 (bignum)
            &[0xf9, 0x3c, 0x00],             // half float
            &[0xfb, 0, 0, 0, 0, 0, 0, 0, 0], // double
            &[0xf7],                         // undefined
            &[0xf8, 0x14],                   // a simple value in the extra byte
            &[0x1c],                         // reserved additional information
        ] {
            assert_eq!(decode(input), Err(Error::Unsupported), "{input:x?}");
        }
        assert_eq!(decode(&[0x62, 0xc3, 0x28]), Err(Error::NotUtf8));
    }

    #[test]
    fn claimed_lengths_must_fit_in_the_input() {
        for input in [
            &[][..],
            &[0x18],                                                 // argument cut short
            &[0x43, 1, 2],                                           // 3 bytes claimed, 2 there
            &[0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // 2^64 - 1 bytes
            &[0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // 2^64 - 1 items
            &[0xbb, 0x80, 0, 0, 0, 0, 0, 0, 0],                      // 2^63 entries: 2^64 items
            &[0xa1, 0x01],                                           // a key without its value
        ] {
            assert_eq!(decode(input), Err(Error::Truncated), "{input:x?}");
        }
    }

    #[test]
    fn nesting_stops_at_the_limit() {
        let nested = |n: usize| {
            let mut input = vec![0x81; n];
            input.push(0x00);
            input
        };
        assert!(decode(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(decode(&nested(MAX_DEPTH + 1)), Err(Error::TooDeep));
        // A long run of containers is refused at the limit, not by running out of stack.
        assert_eq!(decode(&vec![0xa1; 100_000]), Err(Error::TooDeep));
    }
}
