//! JSON text written directly: `pass.json`, the manifest and the Google claims are a few
//! fixed members, and text costs less wasm than building `serde_json` maps for them.

/// Appends `s` as a JSON string (RFC 8259 7: quote, backslash and controls escaped).
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends `,"key":"value"`: a member after the first.
pub fn field(out: &mut String, key: &str, value: &str) {
    out.push(',');
    string(out, key);
    out.push(':');
    string(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json reads back every string exactly.
    #[test]
    fn strings_read_back_as_written() {
        for s in [
            "",
            "plain",
            "quote \" back \\ slash",
            "ctl \u{0}\u{1f}\n\t\r",
            "ü € 😀 \u{2028}",
        ] {
            let mut out = String::new();
            string(&mut out, s);
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s, "{out}");
        }
        let mut out = String::from("{\"a\":1");
        field(&mut out, "b\"", "c");
        out.push('}');
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["b\""], "c");
    }
}
