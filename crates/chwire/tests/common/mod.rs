//! Shared helpers for the live-server tests.
#![allow(dead_code)]

use chwire::{Client, Compression, Options};

/// The rig's address (ClickHouse 26.9, see scripts/server.sh), or CHWIRE_TEST_URL.
pub fn url() -> String {
    std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".to_string())
}

/// The port of the rig's HTTP interface (CHWIRE_TEST_HTTP_PORT, set by scripts/with-server.sh).
pub fn http_port() -> u16 {
    std::env::var("CHWIRE_TEST_HTTP_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(18123)
}

/// The oldest supported server's native address (ClickHouse 18.16, scripts/server-18.sh), or
/// CHWIRE_TEST_URL_18.
pub fn url_18() -> String {
    std::env::var("CHWIRE_TEST_URL_18").unwrap_or_else(|_| "tcp://default@127.0.0.1:19100/default".to_string())
}

pub fn options_18() -> Options {
    Options::from_url(&url_18()).expect("CHWIRE_TEST_URL_18 is a valid URL")
}

pub async fn client_18() -> Client {
    match Client::connect(options_18()).await {
        Ok(c) => c,
        Err(e) => panic!(
            "cannot reach the 18.16 test server at {} ({e}); start it with `scripts/server-18.sh start` or set CHWIRE_TEST_URL_18",
            url_18()
        ),
    }
}

/// Whether `c` talks to a server older than ClickHouse 20 (the rig's 18.16).
pub fn is_old_server(c: &Client) -> bool {
    c.server_info().is_some_and(|s| s.version.0 < 20)
}

pub fn options() -> Options {
    Options::from_url(&url()).expect("CHWIRE_TEST_URL is a valid URL")
}

pub async fn client() -> Client {
    client_with(options()).await
}

pub async fn client_with(opts: Options) -> Client {
    match Client::connect(opts).await {
        Ok(c) => c,
        Err(e) => unreachable_server(&url(), e),
    }
}

/// Fails a test that found no server at `url`, saying how to start the rig's (a bare
/// `cargo test` runs with none: `scripts/with-server.sh --both cargo test` starts both).
pub fn unreachable_server(url: &str, e: impl std::fmt::Display) -> ! {
    panic!(
        "cannot reach the test server at {url} ({e}); start it with `scripts/server.sh start` (or run the tests under \
         `scripts/with-server.sh --both`), or point CHWIRE_TEST_URL / CHWIRE_TEST_HTTP_URL at one"
    )
}

pub async fn client_compressed(c: Compression) -> Client {
    client_with(options().compression(c)).await
}

pub const COMPRESSIONS: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Zstd(3)];

/// Whether the suite runs over the HTTP transport (CHWIRE_TEST_URL `http://` or `https://`).
pub fn is_http() -> bool {
    url().starts_with("http")
}
