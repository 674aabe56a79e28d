//! Building requests: URL parameters (database, query id, session, settings, query
//! parameters, `default_format=Native`), credentials in headers (never in the URL), and the
//! statement of an insert.

use super::body::ReqBody;
use crate::options::Options;
use bytes::Bytes;
use hyper::header::{HeaderValue, CONTENT_TYPE, HOST};
use hyper::{Method, Request};

/// The URL parameters of one request.
pub(crate) struct QueryRequest {
    params: Vec<(String, String)>,
}

impl QueryRequest {
    /// A query with the connection's database and session, answered in Native format.
    pub(crate) fn new(opts: &Options, query_id: &str) -> QueryRequest {
        let mut params = vec![("database".to_string(), opts.database.clone()), ("default_format".to_string(), "Native".to_string())];
        if !query_id.is_empty() {
            params.push(("query_id".into(), query_id.into()));
        }
        if let Some(s) = &opts.session_id {
            params.push(("session_id".into(), s.clone()));
        }
        if opts.compression.is_enabled() {
            // HTTP-level compression of the response (see docs/HTTP.md for compress=1): LZ4
            // frames or ZSTD, by the option, where the server has them, else gzip
            // (http/encoding.rs), at level 1 for lz4 (26.9's LZ4 at its default level 3 is
            // LZ4HC: W1 6.8 s against 1.5 s; 18.16's gzip 1.5x faster than at 3), at zstd's
            // level for zstd.
            params.push(("enable_http_compression".into(), "1".into()));
            let level = match opts.compression {
                chwire_proto::Compression::Zstd(l) => l.clamp(1, 9),
                _ => 1,
            };
            params.push(("http_zlib_compression_level".into(), level.to_string()));
        }
        QueryRequest { params }
    }

    /// The query's own settings and parameters (what a DESCRIBE of it needs), without what
    /// every request of the connection carries.
    pub(crate) fn query_params(&self) -> Vec<(String, String)> {
        const OWN: [&str; 7] = [
            "database",
            "default_format",
            "query_id",
            "session_id",
            "enable_http_compression",
            "http_zlib_compression_level",
            "client_protocol_version",
        ];
        self.params.iter().filter(|(k, _)| !OWN.contains(&k.as_str())).cloned().collect()
    }

    pub(crate) fn setting(&mut self, name: &str, value: &str) {
        self.params.push((name.into(), value.into()));
    }

    /// A server-side query parameter (`{name:Type}`).
    pub(crate) fn param(&mut self, name: &str, value: &str) {
        self.params.push((format!("param_{name}"), value.into()));
    }

    /// The statement in the URL (inserts, whose body is the data).
    pub(crate) fn query(&mut self, sql: &str) {
        self.params.push(("query".into(), sql.into()));
    }

    fn uri(&self, path: &str) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.params {
            s.append_pair(k, v);
        }
        format!("{path}?{}", s.finish())
    }

    fn request(&self, method: Method, path: &str, authority: &str, opts: &Options) -> hyper::http::request::Builder {
        let mut b = Request::builder().method(method).uri(self.uri(path)).header(HOST, authority);
        if opts.compression.is_enabled() {
            b = b.header(hyper::header::ACCEPT_ENCODING, super::encoding::accept(opts.compression));
        }
        if let Ok(v) = HeaderValue::from_str(&opts.user) {
            b = b.header("X-ClickHouse-User", v);
        }
        if !opts.password.is_empty() {
            if let Ok(mut v) = HeaderValue::from_str(&opts.password) {
                v.set_sensitive(true);
                b = b.header("X-ClickHouse-Key", v);
            }
        }
        if !opts.quota_key.is_empty() {
            if let Ok(v) = HeaderValue::from_str(&opts.quota_key) {
                b = b.header("X-ClickHouse-Quota", v);
            }
        }
        b
    }

    /// POST with the SQL as the body.
    pub(crate) fn build(&self, authority: &str, opts: &Options, sql: Bytes) -> Request<ReqBody> {
        self.request(Method::POST, "/", authority, opts)
            .header(CONTENT_TYPE, "text/plain; charset=UTF-8")
            .body(ReqBody::full(sql))
            .expect("valid request parts")
    }

    /// POST with a streamed body (chunked): an insert's data.
    pub(crate) fn build_streaming(&self, authority: &str, opts: &Options, body: ReqBody) -> Request<ReqBody> {
        self.request(Method::POST, "/", authority, opts)
            .header(CONTENT_TYPE, "application/octet-stream")
            .body(body)
            .expect("valid request parts")
    }

    /// GET /ping.
    pub(crate) fn ping(authority: &str, opts: &Options) -> Request<ReqBody> {
        QueryRequest { params: Vec::new() }
            .request(Method::GET, "/ping", authority, opts)
            .uri("/ping")
            .body(ReqBody::full(Bytes::new()))
            .expect("valid request parts")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_settings_and_credentials_go_where_they_belong() {
        let mut opts = Options::from_url("http://alice:s%40cret@h:8123/db1?session_id=s%201").unwrap();
        opts.quota_key = "q".into();
        let mut req = QueryRequest::new(&opts, "id-1");
        req.setting("max_threads", "2");
        req.param("x", "a&b=c\td");
        let r = req.build("h:8123", &opts, Bytes::from_static(b"SELECT {x:String}"));
        let uri = r.uri().to_string();
        assert_eq!(uri, "/?database=db1&default_format=Native&query_id=id-1&session_id=s+1&max_threads=2&param_x=a%26b%3Dc%09d");
        assert!(!uri.contains("cret"), "the password never goes into the URL");
        assert_eq!(r.headers()["X-ClickHouse-User"], "alice");
        assert_eq!(r.headers()["X-ClickHouse-Key"], "s@cret");
        assert!(r.headers()["X-ClickHouse-Key"].is_sensitive());
        assert_eq!(r.headers()["X-ClickHouse-Quota"], "q");
        assert!(r.headers().get(hyper::header::ACCEPT_ENCODING).is_none());
        let gz = Options::from_url("http://h?compression=lz4").unwrap();
        let r = QueryRequest::new(&gz, "").build("h:8123", &gz, Bytes::new());
        assert!(r.uri().to_string().contains("enable_http_compression=1&http_zlib_compression_level=1"), "{}", r.uri());
        assert_eq!(r.headers()[hyper::header::ACCEPT_ENCODING], "lz4, gzip");
        let zstd = Options::from_url("http://h?compression=zstd:5").unwrap();
        let r = QueryRequest::new(&zstd, "").build("h:8123", &zstd, Bytes::new());
        assert!(r.uri().to_string().contains("enable_http_compression=1&http_zlib_compression_level=5"), "{}", r.uri());
        assert_eq!(r.headers()[hyper::header::ACCEPT_ENCODING], "zstd, gzip");
    }
}
