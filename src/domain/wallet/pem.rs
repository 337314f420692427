//! PEM (RFC 7468) as operators paste it into secrets: the first block with the given
//! label. Line breaks may be real or written as `\n` (a value copied out of JSON or a
//! `.dev.vars` line); anything around the block is ignored.

use crate::domain::signing::base64_decode;

/// Why a secret holds no usable block, for the log line that says what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PemError {
    /// No `-----BEGIN {label}-----` ... `-----END {label}-----`; the first label found.
    NoBlock { found: Option<String> },
    /// The block's body is not base64.
    NotBase64,
}

/// The bytes of the first `label` block of `text`.
pub fn decode(text: &str, label: &str) -> Result<Vec<u8>, PemError> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let Some(start) = text.find(&begin) else {
        let found = text.split("-----BEGIN ").nth(1).and_then(|rest| {
            rest.split_once("-----")
                .map(|(label, _)| label.chars().take(40).collect())
        });
        return Err(PemError::NoBlock { found });
    };
    let body_start = start + begin.len();
    let body = text
        .get(body_start..)
        .and_then(|rest| rest.find(&end).and_then(|stop| rest.get(..stop)))
        .ok_or(PemError::NoBlock {
            found: Some(label.to_string()),
        })?;
    let mut compact = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            // A line break written as the escape `\n` (or `\r`). Base64 has no backslash, so
            // any other one is kept, and the block is then no base64.
            '\\' => match chars.next() {
                Some('n' | 'r') => {}
                _ => compact.push('\\'),
            },
            c if c.is_ascii_whitespace() => {}
            c => compact.push(c),
        }
    }
    match base64_decode(&compact) {
        Some(bytes) if !bytes.is_empty() => Ok(bytes),
        _ => Err(PemError::NotBase64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &str =
        "junk\n-----BEGIN CERTIFICATE-----\nAAEC\r\nAwQ=\n-----END CERTIFICATE-----\nmore";

    #[test]
    fn reads_a_block_with_real_or_escaped_line_breaks() {
        assert_eq!(decode(CERT, "CERTIFICATE"), Ok(vec![0, 1, 2, 3, 4]));
        let escaped = "-----BEGIN CERTIFICATE-----\\nAAEC\\nAwQ=\\n-----END CERTIFICATE-----\\n";
        assert_eq!(decode(escaped, "CERTIFICATE"), Ok(vec![0, 1, 2, 3, 4]));
        // The first block of the label wins; another label before it is skipped.
        let two =
            format!("-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n{CERT}{CERT}");
        assert_eq!(decode(&two, "CERTIFICATE"), Ok(vec![0, 1, 2, 3, 4]));
    }

    #[test]
    fn says_what_it_found_instead() {
        assert_eq!(
            decode(CERT, "PRIVATE KEY"),
            Err(PemError::NoBlock {
                found: Some("CERTIFICATE".into())
            })
        );
        assert_eq!(
            decode("MIIB...", "CERTIFICATE"),
            Err(PemError::NoBlock { found: None })
        );
        assert_eq!(
            decode("-----BEGIN CERTIFICATE-----\nAAEC", "CERTIFICATE"),
            Err(PemError::NoBlock {
                found: Some("CERTIFICATE".into())
            })
        );
        assert_eq!(
            decode(
                "-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----",
                "CERTIFICATE"
            ),
            Err(PemError::NotBase64)
        );
        assert_eq!(
            decode(
                "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----",
                "CERTIFICATE"
            ),
            Err(PemError::NotBase64)
        );
        assert_eq!(
            decode(
                "-----BEGIN CERTIFICATE-----\\nAA\\xEC\\n-----END CERTIFICATE-----",
                "CERTIFICATE"
            ),
            Err(PemError::NotBase64)
        );
    }
}
