//! IP address text as ClickHouse reads it: its text formats (TSV, CSV, …) and query
//! parameters accept what Rust's `FromStr` refuses (leading zeros in IPv4 numbers, IPv4 text
//! for an IPv6), so chwire reads addresses with these rules wherever it turns text into an
//! address (inserts of text, the file formats, parameter checks).
//!
//! Checked against ClickHouse 26.9: `format(TSV, 'c IPv4', '010.0.0.1')` and `{p:IPv4}` are
//! 10.0.0.1, `0001.2.3.4` is 1.2.3.4, `00001.2.3.4` and `256.0.0.1` are refused; for IPv6,
//! `1.2.3.4` is `::ffff:1.2.3.4` and so are `1.02.3.0004` and `::ffff:001.002.003.004`, while
//! `010.0.0.1` and `1000.2.3.4` are refused.

use std::net::{Ipv4Addr, Ipv6Addr};

/// IPv4 text: four dot-separated decimal numbers of 1 to 4 digits, each up to 255 (leading
/// zeros allowed: `010.0.0.1` is 10.0.0.1, not an octal number).
pub fn parse_ipv4(text: &str) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = text.split('.');
    for octet in &mut octets {
        let part = parts.next()?;
        if !(1..=4).contains(&part.len()) || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *octet = part.parse::<u16>().ok().and_then(|n| u8::try_from(n).ok())?;
    }
    parts.next().is_none().then_some(Ipv4Addr::from(octets))
}

/// IPv6 text: an IPv6 address, IPv4 text (the IPv4-mapped address: its first number without
/// leading zeros, as ClickHouse first reads it as an IPv6 group; the others as in
/// [`parse_ipv4`]), or an IPv6 address whose last 32 bits are IPv4 text (leading zeros
/// allowed there).
pub fn parse_ipv6(text: &str) -> Option<Ipv6Addr> {
    if let Ok(a) = text.parse::<Ipv6Addr>() {
        return Some(a);
    }
    if !text.contains(':') {
        let first = text.split('.').next()?;
        if first.len() > 3 || (first.len() > 1 && first.starts_with('0')) {
            return None;
        }
        return parse_ipv4(text).map(|a| a.to_ipv6_mapped());
    }
    let colon = text.rfind(':')?;
    let (head, tail) = text.split_at(colon + 1);
    if !tail.contains('.') {
        return None;
    }
    let v4 = parse_ipv4(tail)?;
    let mut segments = format!("{head}0.0.0.0").parse::<Ipv6Addr>().ok()?.segments();
    let [a, b, c, d] = v4.octets();
    segments[6] = u16::from_be_bytes([a, b]);
    segments[7] = u16::from_be_bytes([c, d]);
    Some(Ipv6Addr::from(segments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_text_as_clickhouse_reads_it() {
        for (text, want) in [
            ("1.2.3.4", Some([1, 2, 3, 4])),
            ("010.0.0.1", Some([10, 0, 0, 1])),
            ("0001.2.3.04", Some([1, 2, 3, 4])),
            ("255.255.255.255", Some([255; 4])),
            ("0.0.0.0", Some([0; 4])),
        ] {
            assert_eq!(parse_ipv4(text), want.map(Ipv4Addr::from), "{text}");
        }
        for bad in ["", "1.2.3", "1.2.3.4.5", "00001.2.3.4", "256.0.0.1", " 1.2.3.4", "1.2.3.4 ", "1..3.4", "+1.2.3.4", "1.2.3.x"] {
            assert_eq!(parse_ipv4(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ipv6_text_as_clickhouse_reads_it() {
        let mapped: Ipv6Addr = "::ffff:1.2.3.4".parse().unwrap();
        for (text, want) in [
            ("2001:db8::1", "2001:db8::1".parse().unwrap()),
            ("2001:db8::0001", "2001:db8::1".parse().unwrap()),
            ("1.2.3.4", mapped),
            ("::ffff:001.002.003.004", mapped),
            ("::ffff:1.2.3.4", mapped),
            ("64:ff9b::010.0.0.1", "64:ff9b::10.0.0.1".parse().unwrap()),
            ("1.02.3.0004", mapped),
            ("0.1.2.3", "::ffff:0.1.2.3".parse().unwrap()),
        ] {
            assert_eq!(parse_ipv6(text), Some(want), "{text}");
        }
        for bad in [
            "",
            "010.0.0.1",
            "00.1.2.3",
            "1000.2.3.4",
            "1.2.3.00004",
            "256.1.2.3",
            "::ffff:256.0.0.1",
            "::.1.2.3",
            "2001:db8::1::2",
            "::ffff:1.2.3",
            "x::1",
            "1:2:3:4:5:6:7:1.2.3.4",
        ] {
            assert_eq!(parse_ipv6(bad), None, "{bad:?}");
        }
    }
}
