//! A small client of toxiproxy's HTTP API (scripts/toxiproxy.sh runs the server): one
//! HTTP/1.1 request per connection over a tokio `TcpStream`, JSON written by hand.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The toxiproxy server: `CHWIRE_TOXIPROXY_URL` (`http://127.0.0.1:18730`, set by
/// `scripts/with-cluster.sh --toxiproxy`).
#[derive(Clone, Debug)]
pub struct Toxiproxy {
    addr: String,
}

/// Which way a toxic acts: on bytes from the server to the client, or the other way.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Downstream,
    Upstream,
}

/// One proxy: listens on `listen`, forwards to `upstream`; removed on drop (best effort).
#[derive(Debug)]
pub struct Proxy {
    api: Toxiproxy,
    pub name: String,
    pub listen: String,
}

impl Toxiproxy {
    pub fn from_env() -> Toxiproxy {
        let url = std::env::var("CHWIRE_TOXIPROXY_URL")
            .unwrap_or_else(|_| panic!("CHWIRE_TOXIPROXY_URL is not set: run under `scripts/with-cluster.sh --toxiproxy`"));
        let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
        Toxiproxy { addr }
    }

    /// Sends one request; returns the status code and the body.
    async fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let fut = async {
            let mut s = TcpStream::connect(&self.addr).await?;
            let req = format!(
                "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                self.addr,
                body.len()
            );
            s.write_all(req.as_bytes()).await?;
            let mut resp = Vec::new();
            s.read_to_end(&mut resp).await?;
            std::io::Result::Ok(resp)
        };
        let resp = tokio::time::timeout(Duration::from_secs(10), fut)
            .await
            .unwrap_or_else(|_| panic!("toxiproxy at {} did not answer {method} {path}", self.addr))
            .unwrap_or_else(|e| panic!("toxiproxy at {}: {method} {path}: {e}", self.addr));
        let text = String::from_utf8_lossy(&resp).into_owned();
        let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("bad HTTP answer: {text:?}"));
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        (status, body)
    }

    async fn expect(&self, method: &str, path: &str, body: &str, ok: &[u16]) -> String {
        let (status, resp) = self.request(method, path, body).await;
        assert!(ok.contains(&status), "toxiproxy {method} {path} {body}: HTTP {status} {resp}");
        resp
    }

    /// Creates (or re-creates) the proxy `name` from `listen` to `upstream`.
    pub async fn proxy(&self, name: &str, listen: &str, upstream: &str) -> Proxy {
        self.request("DELETE", &format!("/proxies/{name}"), "").await;
        let body = format!(r#"{{"name":"{name}","listen":"{listen}","upstream":"{upstream}","enabled":true}}"#);
        self.expect("POST", "/proxies", &body, &[201]).await;
        Proxy { api: self.clone(), name: name.to_string(), listen: listen.to_string() }
    }
}

impl Proxy {
    /// Adds a toxic (`attributes` as a JSON object's members, e.g. `"latency":300`) acting on
    /// every connection of this proxy, existing ones included.
    pub async fn add_toxic(&self, kind: &str, stream: Stream, attributes: &str) -> String {
        let stream = match stream {
            Stream::Downstream => "downstream",
            Stream::Upstream => "upstream",
        };
        let toxic = format!("{kind}_{stream}");
        let body = format!(r#"{{"name":"{toxic}","type":"{kind}","stream":"{stream}","toxicity":1.0,"attributes":{{{attributes}}}}}"#);
        self.api.expect("POST", &format!("/proxies/{}/toxics", self.name), &body, &[200]).await;
        toxic
    }

    pub async fn remove_toxic(&self, toxic: &str) {
        self.api.expect("DELETE", &format!("/proxies/{}/toxics/{toxic}", self.name), "", &[204]).await;
    }

    /// Disabled, the proxy closes its connections and refuses new ones.
    pub async fn set_enabled(&self, enabled: bool) {
        self.api.expect("POST", &format!("/proxies/{}", self.name), &format!(r#"{{"enabled":{enabled}}}"#), &[200]).await;
    }

    pub fn port(&self) -> u16 {
        self.listen.rsplit(':').next().and_then(|p| p.parse().ok()).expect("listen address has a port")
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // Blocking, as drop cannot await: a plain std socket.
        use std::io::{Read, Write};
        if let Ok(mut s) = std::net::TcpStream::connect(&self.api.addr) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = write!(s, "DELETE /proxies/{} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.name, self.api.addr);
            let _ = s.read_to_end(&mut Vec::new());
        }
    }
}
