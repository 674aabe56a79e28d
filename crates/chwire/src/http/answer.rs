//! What the server answers besides Native blocks: errors (an error status's text, an exception
//! in a body, hyper's and gzip's failures), the progress headers, small bodies read whole.

use crate::conn::within as timed;
use crate::error::{Error, ErrorKind, Result};
use chwire_proto::native::http_tagged_exception;
use chwire_proto::native::{http_exception, TaggedException};
use chwire_proto::{Progress, ServerException};
use hyper::body::{Body as _, Incoming};
use std::pin::Pin;
use std::time::Duration;

/// The longest exception text or error body read (a server's text is far shorter).
pub(super) const MAX_ERROR_BODY: usize = 1 << 20;

pub(super) fn hyper_error(e: hyper::Error) -> Error {
    let kind = if e.is_incomplete_message() || e.is_canceled() || e.is_closed() {
        std::io::ErrorKind::ConnectionReset
    } else {
        std::io::ErrorKind::Other
    };
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    Error::new(ErrorKind::Io(std::io::Error::new(kind, format!("HTTP: {msg}"))))
}

/// The exception in a ClickHouse error text (`Code: 60, e.displayText() = DB::Exception: …,
/// e.what() = DB::Exception` on 18.16, `Code: 60. DB::Exception: … (UNKNOWN_TABLE)` later).
pub(crate) fn parse_exception(text: &str, status: Option<u16>) -> ServerException {
    let text = text.trim_end();
    let (code, rest) = match http_exception(text.as_bytes()) {
        Some((code, _)) => {
            let after = text["Code: ".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
            (code, after.trim_start_matches([',', '.']).trim_start())
        }
        None => (0, text),
    };
    let rest = rest.strip_prefix("e.displayText() = ").unwrap_or(rest);
    let rest = rest.rsplit_once(", e.what() = ").map_or(rest, |(m, _)| m);
    // The server's version, which an HTTP answer adds and a native exception does not carry:
    // the same message over both transports.
    let rest = match rest.rsplit_once(" (version ") {
        Some((m, v)) if v.strip_suffix(')').is_some_and(|v| !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit() || c == b'.')) => m,
        _ => rest,
    };
    let message = match (code, status) {
        (0, Some(s)) => format!("HTTP status {s}: {rest}"),
        _ => rest.to_string(),
    };
    ServerException { code, class: "DB::Exception".into(), message, stack_trace: String::new(), nested: None }
}

/// An error status's answer: ClickHouse's exception when the body is one, else (a proxy or
/// another server answered) an error of the connection: 502, 503 and 504 as a server that
/// cannot be reached (`Io`, so that a read fails over to the next server), other statuses
/// as a protocol failure. Neither is "the server reported an error".
pub(super) fn error_answer(text: &[u8], status: u16, authority: &str) -> Result<ServerException> {
    let text = String::from_utf8_lossy(text);
    if chwire_proto::native::http_exception(text.trim_start().as_bytes()).is_some() {
        return Ok(parse_exception(&text, Some(status)));
    }
    let body: String = text.trim().chars().take(200).collect();
    let what = format!("{authority} answered HTTP status {status} without a ClickHouse exception: {body}");
    Err(match status {
        502..=504 => Error::new(crate::ErrorKind::Io(std::io::Error::new(std::io::ErrorKind::ConnectionRefused, what))),
        _ => Error::protocol(what),
    })
}

/// `X-ClickHouse-Summary` / `X-ClickHouse-Progress`: `{"read_rows":"1","read_bytes":"8",…}`.
pub(crate) fn parse_progress(v: &str) -> Option<Progress> {
    let mut p = Progress::default();
    let mut any = false;
    for part in v.trim().trim_start_matches('{').trim_end_matches('}').split(',') {
        let Some((k, val)) = part.split_once(':') else { continue };
        let Ok(n) = val.trim().trim_matches('"').parse::<u64>() else { continue };
        let slot = match k.trim().trim_matches('"') {
            "read_rows" => &mut p.read_rows,
            "read_bytes" => &mut p.read_bytes,
            "total_rows_to_read" => &mut p.total_rows_to_read,
            "written_rows" => &mut p.written_rows,
            "written_bytes" => &mut p.written_bytes,
            "elapsed_ns" => &mut p.elapsed_ns,
            _ => continue,
        };
        *slot = n;
        any = true;
    }
    any.then_some(p)
}

/// Whether a body ends with a whole tagged exception (anywhere after its last block).
pub(super) fn contains_tagged_exception(buf: &[u8], tag: &[u8]) -> bool {
    const MARK: &[u8] = b"\r\n__exception__\r\n";
    buf.windows(MARK.len())
        .enumerate()
        .any(|(i, w)| w == MARK && matches!(http_tagged_exception(buf.get(i..).unwrap_or_default(), tag), TaggedException::Complete(..)))
}

/// Read a whole (small) body: error texts and /ping's answer.
pub(super) async fn read_to_end(body: &mut Incoming, timeout: Option<Duration>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let frame = timed(timeout, crate::Timeout::Receive, std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx))).await?;
        match frame {
            None => return Ok(out),
            Some(Ok(f)) => {
                if let Ok(d) = f.into_data() {
                    if out.len() + d.len() > MAX_ERROR_BODY {
                        return Err(Error::protocol(format!("the server's error text is longer than {MAX_ERROR_BODY} bytes")));
                    }
                    out.extend_from_slice(&d);
                }
            }
            Some(Err(e)) => return Err(hyper_error(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceptions_of_18_16_and_later() {
        let e = parse_exception(
            "Code: 60, e.displayText() = DB::Exception: Table default.nosuch doesn't exist., e.what() = DB::Exception\n",
            Some(404),
        );
        assert_eq!(e.code, 60);
        assert_eq!(e.message, "DB::Exception: Table default.nosuch doesn't exist.");
        let e = parse_exception("Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE) (version 24.3.1.1)", None);
        assert_eq!(e.code, 60);
        assert_eq!(e.message, "DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)");
        let e = parse_exception("Bad Gateway", Some(502));
        assert_eq!((e.code, e.message.as_str()), (0, "HTTP status 502: Bad Gateway"));
        // Not ClickHouse's answer: a proxy's 502-504 is a server out of reach (failover), other
        // statuses a protocol failure; ClickHouse's own exceptions stay server errors.
        for status in [502, 503, 504] {
            let e = error_answer(b"<html>Bad gateway</html>", status, "lb:80").unwrap_err();
            assert!(e.is_failover() && matches!(e.kind(), crate::ErrorKind::Io(_)), "{e}");
            assert!(e.to_string().contains("lb:80 answered HTTP status") && e.to_string().contains("Bad gateway"), "{e}");
        }
        let e = error_answer(b"Port 9000 is for clickhouse-client program.", 400, "h:9000").unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::Protocol(_)) && !e.is_failover(), "{e}");
        let e =
            error_answer(b"Code: 60, e.displayText() = DB::Exception: Table x doesn't exist., e.what() = DB::Exception", 404, "h").unwrap();
        assert_eq!(e.code, 60);
        let e =
            error_answer(b"Code: 202. DB::Exception: Too many simultaneous queries. (TOO_MANY_SIMULTANEOUS_QUERIES)", 503, "h").unwrap();
        assert_eq!(e.code, 202, "ClickHouse's own 503 is its exception");
    }

    #[test]
    fn progress_headers() {
        let p = parse_progress(r#"{"read_rows":"10","read_bytes":"80","written_rows":"0","written_bytes":"0","total_rows_to_read":"10"}"#)
            .unwrap();
        assert_eq!((p.read_rows, p.read_bytes, p.total_rows_to_read), (10, 80, 10));
        assert_eq!(parse_progress("nonsense"), None);
    }
}
