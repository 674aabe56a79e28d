//! TLS against the 18.16 rig's `tcp_port_secure` (scripts/server-18.sh: TCP port + 40,
//! certificates from scripts/tls-certs.sh under build/clickhouse/tls; ClickHouse 26.9's
//! clickhouse-local has no TLS listener): a verified connection, refusals with typed errors
//! (unknown CA, wrong name, bad files, an expired certificate on a second 18.16 instance) and
//! client certificates, which the server verifies when offered.

mod common;

use chwire::{Block, Client, Column, Compression, ErrorKind, Options, TlsOptions};
use common::*;
use std::path::PathBuf;

pub fn tls_dir() -> PathBuf {
    match std::env::var("CHWIRE_TEST_TLS_DIR") {
        Ok(d) => d.into(),
        Err(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/clickhouse/tls"),
    }
}

fn tls_port() -> u16 {
    match std::env::var("CHWIRE_TEST_TLS_PORT") {
        Ok(p) => p.parse().expect("CHWIRE_TEST_TLS_PORT is a port"),
        Err(_) => options_18().port + 40,
    }
}

fn secure(tls: TlsOptions) -> Options {
    options_18().port(tls_port()).tls(tls)
}

fn trusted() -> TlsOptions {
    TlsOptions::new().ca_file(tls_dir().join("ca.pem"))
}

/// The configuration error of connecting with these TLS options.
async fn misconfigured(opts: Options) -> String {
    match Client::connect(opts).await {
        Ok(_) => panic!("the connection was made"),
        Err(e) => match e.kind() {
            ErrorKind::Config(m) => {
                assert!(m.starts_with("TLS: "), "{e}");
                m.clone()
            }
            _ => panic!("expected a configuration error, got {e:?}"),
        },
    }
}

/// The TLS error of connecting with these options.
async fn refused(opts: Options) -> String {
    match Client::connect(opts).await {
        Ok(mut c) => match c.query("SELECT 1").fetch_blocks().await {
            Ok(_) => panic!("the connection was accepted"),
            Err(e) => match e.kind() {
                ErrorKind::Tls(m) => m.clone(),
                _ => panic!("expected a TLS error, got {e:?}"),
            },
        },
        Err(e) => match e.kind() {
            ErrorKind::Tls(m) => {
                assert!(e.to_string().starts_with("TLS: "), "{e}");
                m.clone()
            }
            _ => panic!("expected a TLS error, got {e:?}"),
        },
    }
}

#[tokio::test]
async fn verified_connection_runs_queries_and_inserts() {
    for compression in [Compression::None, Compression::Lz4] {
        let mut c = Client::connect(secure(trusted()).compression(compression)).await.expect("TLS connection");
        assert!(c.is_tls());
        let (n, sum): (u64, u64) = c.query("SELECT count(), sum(number) FROM numbers(2000000)").fetch_one().await.expect("query over TLS");
        assert_eq!((n, sum), (2_000_000, 2_000_000 * 1_999_999 / 2));
        // Big results stream through TLS records.
        let blocks = c.query("SELECT number, toString(number) FROM numbers(500000)").fetch_blocks().await.unwrap();
        assert_eq!(blocks.iter().map(|b| b.rows()).sum::<usize>(), 500_000);
        let t = format!("chwire_tls_{}", compression.is_enabled());
        c.execute(format!("DROP TABLE IF EXISTS {t}")).await.unwrap();
        c.execute(format!("CREATE TABLE {t} (i UInt64, s String) ENGINE = Memory")).await.unwrap();
        let mut ins = c.insert_blocks(t.as_str(), Some(&["i", "s"])).await.unwrap();
        let ids: Vec<u64> = (0..300_000).collect();
        let names: Vec<String> = ids.iter().map(|i| format!("name {i}")).collect();
        ins.send(&Block::new().with("i", Column::from(ids)).unwrap().with("s", Column::from(names)).unwrap()).await.unwrap();
        ins.end().await.unwrap();
        let (n, l): (u64, u64) = c.query(format!("SELECT count(), sum(length(s)) FROM {t}")).fetch_one().await.unwrap();
        let want_len: u64 = (0..300_000u64).map(|i| format!("name {i}").len() as u64).sum();
        assert_eq!((n, l), (300_000, want_len));
        // A stream dropped mid-result is cancelled and drained over TLS as well.
        let mut s = c.query("SELECT number FROM system.numbers").stream().await.unwrap();
        s.next_block().await.unwrap();
        drop(s);
        c.ping().await.unwrap();
        let (x,): (u8,) = c.query("SELECT 7").fetch_one().await.unwrap();
        assert_eq!(x, 7);
    }
}

#[tokio::test]
async fn url_and_server_name() {
    let ca = tls_dir().join("ca.pem");
    let o = options_18();
    let url = format!("tcp://{}@127.0.0.1:{}/default?secure=true&ca_file={}", o.user, tls_port(), ca.display());
    let mut c = Client::connect_url(&url).await.expect("secure URL");
    assert!(c.is_tls());
    c.ping().await.unwrap();
    // The certificate names DNS:localhost too: verified as that name over 127.0.0.1 (SNI).
    let mut c = Client::connect(secure(trusted().server_name("localhost"))).await.expect("server name localhost");
    c.ping().await.unwrap();
    // Plain TCP on the TLS port fails (the server expects a TLS handshake), it does not hang.
    let plain = tokio::time::timeout(std::time::Duration::from_secs(20), Client::connect(options_18().port(tls_port()))).await;
    assert!(matches!(plain, Ok(Err(_))), "plain TCP to the TLS port: {plain:?}");
}

#[tokio::test]
async fn wrong_ca_is_refused() {
    let m = refused(secure(TlsOptions::new().ca_file(tls_dir().join("other-ca.pem")))).await;
    assert!(m.contains("UnknownIssuer") && m.contains("certificate was refused"), "{m}");
    // Without a CA file the system's roots are used, which do not know the test CA (or,
    // on a machine without any, that is a configuration error).
    match Client::connect(secure(TlsOptions::new())).await.map(|_| ()).unwrap_err().kind() {
        ErrorKind::Tls(m) => assert!(m.contains("UnknownIssuer"), "{m}"),
        ErrorKind::Config(m) => assert!(m.contains("no system root certificates"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn wrong_host_name_is_refused() {
    let m = refused(secure(trusted().server_name("wrong.example"))).await;
    assert!(m.contains("not valid for name \"wrong.example\""), "{m}");
    assert!(m.contains("127.0.0.1"), "the message names the server: {m}");
}

#[tokio::test]
async fn bad_files_are_typed_errors() {
    let d = tls_dir();
    let m = misconfigured(secure(TlsOptions::new().ca_file(d.join("missing.pem")))).await;
    assert!(m.contains("missing.pem"), "{m}");
    let m = misconfigured(secure(TlsOptions::new().ca_file(d.join("server.key")))).await;
    assert!(m.contains("no certificate"), "{m}");
    let mut half = trusted();
    half.cert_file = Some(d.join("client.pem"));
    let m = misconfigured(secure(half)).await;
    assert!(m.contains("needs both"), "{m}");
    let m = misconfigured(secure(trusted().client_cert(d.join("client.pem"), d.join("ca.pem")))).await;
    assert!(m.contains("private key"), "{m}");
}

/// 18.16 verifies a client certificate when one is offered (verificationMode relaxed in
/// the rig): ours, signed by the test CA, is accepted; one of another CA is refused by the
/// server — which shows the certificate is sent. 18.16 cannot require one on the native
/// port without refusing every client that has none, so "no certificate" is accepted too.
#[tokio::test]
async fn client_certificates() {
    let d = tls_dir();
    let mut c = Client::connect(secure(trusted().client_cert(d.join("client.pem"), d.join("client.key")))).await.expect("mTLS");
    let (x,): (u8,) = c.query("SELECT 1").fetch_one().await.unwrap();
    assert_eq!(x, 1);
    let m = refused(secure(trusted().client_cert(d.join("other-client.pem"), d.join("other-client.key")))).await;
    assert!(m.contains("UnknownCA") || m.contains("alert"), "{m}");
    let url = format!(
        "tcp://default@127.0.0.1:{}/default?ca_file={}&cert_file={}&key_file={}",
        tls_port(),
        d.join("ca.pem").display(),
        d.join("client.pem").display(),
        d.join("client.key").display()
    );
    Client::connect_url(&url).await.expect("mTLS by URL").ping().await.unwrap();
}

/// A second 18.16 instance showing the expired test certificate: the handshake is refused
/// with a TLS error naming it.
#[tokio::test]
async fn an_expired_certificate_is_refused() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tcp = options_18().port + 2;
    let script = |cmd: &str| {
        std::process::Command::new(repo.join("scripts/server-18.sh"))
            .arg(cmd)
            .env("CHWIRE_CH18_DIR", repo.join("build/clickhouse-expired"))
            .env("CHWIRE_CH18_NAME", "expired-certificate server")
            .env("CHWIRE_CH18_TCP_PORT", tcp.to_string())
            .env("CHWIRE_CH18_HTTP_PORT", (tcp - 900).to_string())
            // Its TLS ports beside those (not the rig's, which a caller's environment may set).
            .env("CHWIRE_CH18_TLS_PORT", (tcp + 40).to_string())
            .env("CHWIRE_CH18_HTTPS_PORT", (tcp - 900 + 40).to_string())
            .env("CHWIRE_CH18_TLS_CERT", "expired")
            .env("CHWIRE_CH18_TLS_DIR", tls_dir())
            .status()
            .expect("run scripts/server-18.sh")
            .success()
    };
    struct Stop<F: Fn(&str) -> bool>(F);
    impl<F: Fn(&str) -> bool> Drop for Stop<F> {
        fn drop(&mut self) {
            (self.0)("stop");
        }
    }
    assert!(script("start"), "the expired-certificate server did not start");
    let _stop = Stop(script);
    let err = Client::connect(options_18().port(tcp + 40).tls(trusted())).await.unwrap_err();
    match err.kind() {
        ErrorKind::Tls(m) => assert!(m.contains("expired"), "{m}"),
        _ => panic!("expected a TLS error for the expired certificate, got {err:?}"),
    }
}
