//! Calendar arithmetic on Unix milliseconds, so timestamps and analytics windows need no
//! date crate in the wasm binary; held to chrono by `domain/oracle.rs`.

/// Milliseconds in one day.
pub const DAY_MS: i64 = 86_400_000;

/// Days since 1970-01-01 to a (year, month, day) civil date (proleptic Gregorian).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's algorithm: exact for the whole i64 range we use.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Inverse of [`civil_from_days`].
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The UTC day number (days since the epoch) of a timestamp.
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// `YYYY-MM-DD` of a UTC day number.
pub fn date_string(day: i64) -> String {
    let (y, m, d) = civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD` of a UTC day number as bytes, without allocating (years 0-9999).
pub fn date_bytes(day: i64) -> [u8; 10] {
    let (y, m, d) = civil_from_days(day);
    let y = y.clamp(0, 9999) as u32;
    let digit = |n: u32| b'0' + (n % 10) as u8;
    [
        digit(y / 1000),
        digit(y / 100),
        digit(y / 10),
        digit(y),
        b'-',
        digit(m / 10),
        digit(m),
        b'-',
        digit(d / 10),
        digit(d),
    ]
}

/// ISO 8601 UTC with milliseconds, e.g. `2026-11-22T14:43:16.123Z`.
pub fn iso8601(ms: i64) -> String {
    let day = day_of(ms);
    let rem = ms - day * DAY_MS;
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{}T{h:02}:{mi:02}:{s:02}.{milli:03}Z", date_string(day))
}

/// Parses an ISO 8601 date-time with an offset or `Z` (`2026-11-22T14:43:16Z`,
/// `2026-11-22T15:43:16.5+01:00`) into Unix milliseconds; `None` for anything else,
/// including a date-time without an offset, which names no instant.
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-') && at(7, b'-') && (at(10, b'T') || at(10, b't') || at(10, b' ')))
        || !(at(13, b':') && at(16, b':'))
    {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let days_in_month = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return None,
    };
    if d < 1 || d > days_in_month || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0;
    if at(i, b'.') || at(i, b',') {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        // Milliseconds from the first three digits; finer digits are dropped (floor).
        for k in 0..3 {
            millis = millis * 10
                + if k < digits {
                    i64::from(b[i + 1 + k] - b'0')
                } else {
                    0
                };
        }
        i += 1 + digits;
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && at(i + 3, b':') => {
            let (oh, om) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *sign == b'-' {
                -m
            } else {
                m
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo as u32, d as u32);
    let local = ((days * 24 + h) * 60 + mi) * 60_000 + sec.min(59) * 1000 + millis;
    Some(local - offset_min * 60_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_parses_what_it_prints_and_offsets() {
        for ms in [0, 1_763_822_596_123, 951_782_400_000] {
            assert_eq!(parse_iso8601(&iso8601(ms)), Some(ms));
        }
        let z = parse_iso8601("2026-11-22T14:43:16Z").unwrap();
        assert_eq!(parse_iso8601("2026-11-22T15:43:16+01:00"), Some(z));
        assert_eq!(parse_iso8601("2026-11-22T09:13:16-05:30"), Some(z));
        assert_eq!(parse_iso8601("2026-11-22T14:43:16.5Z"), Some(z + 500));
        assert_eq!(parse_iso8601("2026-11-22T14:43:16.123456Z"), Some(z + 123));
        for bad in [
            "",
            "2026-11-22",
            "2026-11-22T14:43:16",
            "2026-11-22T14:43Z",
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-22T24:00:00Z",
            "2026-11-22T14:43:16.Z",
            "2026-11-22T14:43:16+0100",
            "2026-11-22T14:43:16Zjunk",
            "yesterday",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_epoch_and_known_instants() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_795_358_596_123), "2026-11-22T14:43:16.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn civil_round_trips_over_centuries() {
        for day in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(day);
            assert_eq!(days_from_civil(y, m, d), day);
        }
        assert_eq!(date_string(days_from_civil(2024, 2, 29)), "2024-02-29");
    }

    #[test]
    fn day_of_negative_time_floors() {
        assert_eq!(day_of(-1), -1);
        assert_eq!(day_of(DAY_MS - 1), 0);
    }
}
