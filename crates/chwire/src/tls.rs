//! TLS (rustls with the ring provider): server verification, custom CAs, client
//! certificates, SNI, and the stream type that carries either plain TCP or TLS.

use crate::error::{Error, ErrorKind, Result};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

/// TLS settings of a connection ([`crate::Options::tls`]). Certificates and the server's
/// host name are always verified.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// PEM file of the certificate authorities to trust. Without it, the system's roots are
    /// trusted.
    pub ca_file: Option<PathBuf>,
    /// Also trust the system's roots when `ca_file` is given.
    pub system_roots: bool,
    /// PEM file of the client certificate (chain) for mutual TLS; needs `key_file`.
    pub cert_file: Option<PathBuf>,
    /// PEM file of the client certificate's private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: Option<PathBuf>,
    /// The name to verify the server's certificate against and to send as SNI (default:
    /// the host being connected to; an IP address is verified as an IP address).
    pub server_name: Option<String>,
}

impl TlsOptions {
    /// The defaults: the system's roots, no client certificate.
    pub fn new() -> Self {
        Self::default()
    }
    /// [`TlsOptions::ca_file`]: a PEM file of the certificate authorities to trust.
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }
    /// [`TlsOptions::system_roots`]: whether to trust the system's roots besides `ca_file`.
    pub fn system_roots(mut self, on: bool) -> Self {
        self.system_roots = on;
        self
    }
    /// A client certificate and its key (mutual TLS).
    pub fn client_cert(mut self, cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        self.cert_file = Some(cert.into());
        self.key_file = Some(key.into());
        self
    }
    /// [`TlsOptions::server_name`]: the name to verify and send as SNI.
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = Some(name.into());
        self
    }

    /// Read the files and build the rustls configuration (done once per [`crate::Client`]
    /// or [`crate::Pool`], shared by its connections).
    pub(crate) fn connector(&self) -> Result<TlsConnector> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = RootCertStore::empty();
        if let Some(path) = &self.ca_file {
            let certs = read_certs(path)?;
            if certs.is_empty() {
                return Err(tls_config(format!("no certificate in the CA file {}", path.display())));
            }
            for c in certs {
                roots.add(c).map_err(|e| tls_config(format!("bad CA certificate in {}: {e}", path.display())))?;
            }
        }
        if self.ca_file.is_none() || self.system_roots {
            let found = rustls_native_certs::load_native_certs();
            // Unreadable or odd system certificates are skipped, as browsers do.
            let (added, _ignored) = roots.add_parsable_certificates(found.certs);
            if added == 0 && self.ca_file.is_none() {
                return Err(tls_config("no system root certificates found; give a CA file (ca_file / --ca-file)"));
            }
        }
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_config(e.to_string()))?
            .with_root_certificates(roots);
        let config = match (&self.cert_file, &self.key_file) {
            (Some(cert), Some(key)) => {
                let chain = read_certs(cert)?;
                if chain.is_empty() {
                    return Err(tls_config(format!("no certificate in {}", cert.display())));
                }
                let key = PrivateKeyDer::from_pem_file(key)
                    .map_err(|e| tls_config(format!("cannot read the private key {}: {e}", key.display())))?;
                builder.with_client_auth_cert(chain, key).map_err(|e| tls_config(format!("client certificate: {e}")))?
            }
            (None, None) => builder.with_no_client_auth(),
            _ => return Err(tls_config("a client certificate needs both cert_file and key_file")),
        };
        Ok(TlsConnector::from(Arc::new(config)))
    }

    /// The name to verify and send as SNI when connecting to `host`.
    pub(crate) fn server_name_for(&self, host: &str) -> Result<ServerName<'static>> {
        let name = self.server_name.as_deref().unwrap_or(host);
        ServerName::try_from(name.to_string()).map_err(|_| tls_config(format!("invalid TLS server name {name:?}")))
    }
}

fn read_certs(path: &std::path::Path) -> Result<Vec<CertificateDer<'static>>> {
    CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| tls_config(format!("cannot read certificates from {}: {e}", path.display())))
}

/// A TLS setting that cannot be used (a file missing or holding no certificate, a key
/// without its certificate, an invalid server name): a configuration error, which no
/// connection attempt or other host can fix, unlike the handshake errors below.
fn tls_config(msg: impl Into<String>) -> Error {
    Error::config(format!("TLS: {}", msg.into()))
}

/// A failed TLS handshake as a typed error that says why (unknown issuer, expired, wrong
/// name, ... as rustls words it).
pub(crate) fn handshake_error(e: io::Error, host: &str, port: u16, name: &ServerName<'_>) -> Error {
    let name = name.to_str();
    let why = match e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
        Some(rustls::Error::InvalidCertificate(c)) => format!("the server's certificate was refused: {c}"),
        Some(other) => other.to_string(),
        None => e.to_string(),
    };
    Error::new(ErrorKind::Tls(format!("TLS handshake with {host}:{port} (server name {name:?}) failed: {why}"))).caused_by(e)
}

/// A socket error; TLS errors (e.g. the server's alert refusing our client certificate,
/// which TLS 1.3 delivers after the handshake) become [`ErrorKind::Tls`].
pub(crate) fn io_error(e: io::Error) -> Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
        Some(t) => Error::new(ErrorKind::Tls(format!("the TLS connection failed: {t}"))).caused_by(e),
        None => Error::from(e),
    }
}

/// Plain TCP or TLS over TCP.
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
