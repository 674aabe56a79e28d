//! Shared helpers for the live-server tests.
#![allow(dead_code)]

use chwire::{Client, Compression, Options};

/// The rig's address (see scripts/server.sh), or CHWIRE_TEST_URL.
pub fn url() -> String {
    std::env::var("CHWIRE_TEST_URL").unwrap_or_else(|_| "tcp://default@127.0.0.1:19000/default".to_string())
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
        Err(e) => panic!("cannot reach the test server at {} ({e}); start it with `scripts/server.sh start` or set CHWIRE_TEST_URL", url()),
    }
}

pub async fn client_compressed(c: Compression) -> Client {
    client_with(options().compression(c)).await
}

pub const COMPRESSIONS: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Zstd(3)];

/// Whether the suite runs over the HTTP transport (CHWIRE_TEST_URL `http://` or `https://`).
pub fn is_http() -> bool {
    url().starts_with("http")
}
