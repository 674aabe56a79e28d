//! Raw-socket baselines ("floors") for the W1-W6 and W8 workloads of bench/PEERS.md.
//!
//! Not a client library and not a peer: the least work a client can do and still run the
//! workload. Blocking std sockets with TCP_NODELAY, requests encoded once before the clock
//! starts, one `write` per request, one receive buffer, and only as much parsing of the
//! answer as it takes to find where it ends (and to sum the values, for the check).
//!
//! - `native-floor`: the native protocol at revision 54412 (ClickHouse 18.16): Hello, wait for
//!   the server's Hello, then Query + the empty Data block in one write, then read packets up
//!   to EndOfStream. The same exchange, byte for byte in structure, as chwire's. For W1 (no
//!   compression) the values are summed where the socket's reads put them: the kernel's copy
//!   and one pass over the values, the least a client that looks at every value can do.
//!   W2 and W8 walk their String columns' length prefixes (and sum the lengths), the other
//!   columns are only received. With `--compression lz4` (W1-W4, W8) the query asks for
//!   LZ4 blocks (`network_compression_method`) and each frame is decompressed as chwire's
//!   are (lz4_flex, liblz4 for frames of long runs) without checking its CityHash checksum.
//!   W5 sends W5's 10M rows as Native blocks encoded before the clock starts (100 Data
//!   packets of 100,000 rows): the server's intake, and the socket's cost of the bytes.
//! - `native-floor-1rtt` (W6 only): Hello, Query and the empty Data block in ONE write, before
//!   the server's Hello has arrived. Only possible because the revision the Query is encoded
//!   for is fixed in advance (54412; the server's Hello is checked afterwards): a general client
//!   has to learn the server's revision first. Shows what the second round trip costs.
//! - `http-floor`: HTTP/1.1 `POST /?default_format=RowBinary` with the SQL as the body, as
//!   the `clickhouse` crate sends it; keep-alive for W4, `Connection: close` for W6 (the
//!   client still stops at the end of the chunked body and closes, as the crate does).
//!
//! Command line and output follow bench/PEERS.md:
//!
//!     chwire-bench-floor --client native-floor --workload W4 --compression none \
//!         --host 127.0.0.1 --port 19000 --http-port 18123

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::Instant;

const W3_SQL: &str = "SELECT number, number, number FROM system.numbers LIMIT 1000";
const W4_SQL: &str = "SELECT number, number, number, number, number, number, number, number, number, number FROM system.numbers LIMIT 100";
const W6_SQL: &str = "SELECT 1";
const W1_SQL: &str = "SELECT number FROM system.numbers LIMIT 100000000";
const W2_SQL: &str =
    "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000";
const W5_SQL: &str = "INSERT INTO chwire_bench_w5 (id, name, value, ts) VALUES";
const W5_TABLE: &str = "CREATE TABLE IF NOT EXISTS chwire_bench_w5 (id UInt64, name String, value Float64, ts DateTime) ENGINE = Null";
const W5_ROWS: u64 = 10_000_000;
const W5_BLOCK: u64 = 100_000;
const REPEATS: usize = 2000;
const CONNECTS: usize = 200;
/// The protocol revision announced in Hello: ClickHouse 18.16's own.
const REVISION: u64 = 54412;

struct Args {
    client: String,
    workload: String,
    compression: String,
    host: String,
    port: u16,
    http_port: u16,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        client: String::new(),
        workload: String::new(),
        compression: "none".into(),
        host: "127.0.0.1".into(),
        port: 19000,
        http_port: 18123,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--client" => a.client = value,
            "--workload" => a.workload = value,
            "--compression" => a.compression = value,
            "--host" => a.host = value,
            "--port" => a.port = value.parse().map_err(|_| format!("bad --port {value:?}"))?,
            "--http-port" => a.http_port = value.parse().map_err(|_| format!("bad --http-port {value:?}"))?,
            _ => return Err(format!("unknown option {flag:?}")),
        }
    }
    Ok(a)
}

fn err(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

// ---------------------------------------------------------------------------------------
// Encoding (done once, outside the timed region)

fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_var(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// ClientHello: code 0, client name, version major/minor, revision, database, user, password.
fn native_hello() -> Vec<u8> {
    let mut out = Vec::new();
    put_var(&mut out, 0);
    put_str(&mut out, "chwire-floor");
    put_var(&mut out, 1);
    put_var(&mut out, 0);
    put_var(&mut out, REVISION);
    put_str(&mut out, "default");
    put_str(&mut out, "default");
    put_str(&mut out, "");
    out
}

/// Query (code 1) as revision 54412 frames it, then the empty Data block (code 2) that
/// ends the external tables. The query id is empty: the server makes one up. With `lz4` the
/// query asks for LZ4 blocks (at 54412 a String setting is its name, then its value) and the
/// empty block goes in a frame of its own.
fn native_query(sql: &str, lz4: bool) -> Vec<u8> {
    let mut out = Vec::new();
    put_var(&mut out, 1);
    put_str(&mut out, ""); // query id

    // ClientInfo (revision >= 54032)
    out.push(1); // initial query
    put_str(&mut out, ""); // initial user
    put_str(&mut out, ""); // initial query id
    put_str(&mut out, "0.0.0.0:0"); // initial address
    out.push(1); // interface: TCP
    put_str(&mut out, ""); // OS user
    put_str(&mut out, ""); // client hostname
    put_str(&mut out, "chwire-floor");
    put_var(&mut out, 1);
    put_var(&mut out, 0);
    put_var(&mut out, REVISION);
    put_str(&mut out, ""); // quota key (>= 54060)
    put_var(&mut out, 0); // version patch (>= 54401)
    if lz4 {
        put_str(&mut out, "network_compression_method");
        put_str(&mut out, "lz4");
    }
    put_str(&mut out, ""); // end of settings
    put_var(&mut out, 2); // stage: Complete
    put_var(&mut out, u64::from(lz4)); // compression
    put_str(&mut out, sql);
    // Data: table name, BlockInfo (1: is_overflows, 2: bucket_num, 0: end), 0 columns, 0 rows
    put_var(&mut out, 2);
    put_str(&mut out, "");
    let empty = [1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0];
    if lz4 {
        chwire_proto::compress::compress(chwire_proto::Compression::Lz4, &empty, &mut out);
    } else {
        out.extend_from_slice(&empty);
    }
    out
}

/// W5's rows as Data packets of 100,000 rows (id UInt64, name String, value Float64, ts
/// DateTime), then the empty block that ends the insert; and the sum of the ids.
fn w5_blocks() -> (Vec<Vec<u8>>, u64) {
    let (mut packets, mut check) = (Vec::new(), 0u64);
    for b in 0..W5_ROWS / W5_BLOCK {
        let ids = b * W5_BLOCK..(b + 1) * W5_BLOCK;
        let mut out = Vec::with_capacity(W5_BLOCK as usize * 40);
        put_var(&mut out, 2);
        put_str(&mut out, "");
        out.extend_from_slice(&[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0]);
        put_var(&mut out, 4);
        put_var(&mut out, W5_BLOCK);
        put_str(&mut out, "id");
        put_str(&mut out, "UInt64");
        for i in ids.clone() {
            out.extend_from_slice(&i.to_le_bytes());
            check = check.wrapping_add(i);
        }
        put_str(&mut out, "name");
        put_str(&mut out, "String");
        for i in ids.clone() {
            put_str(&mut out, &format!("name-{i}"));
        }
        put_str(&mut out, "value");
        put_str(&mut out, "Float64");
        for i in ids.clone() {
            out.extend_from_slice(&(i as f64 * 0.5).to_le_bytes());
        }
        put_str(&mut out, "ts");
        put_str(&mut out, "DateTime");
        for i in ids {
            out.extend_from_slice(&(1_600_000_000 + (i % 86_400) as u32).to_le_bytes());
        }
        packets.push(out);
    }
    let mut end = Vec::new();
    put_var(&mut end, 2);
    put_str(&mut end, "");
    end.extend_from_slice(&[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0]);
    packets.push(end);
    (packets, check)
}

fn http_request(a: &Args, sql: &str, close: bool) -> Vec<u8> {
    let connection = if close { "Connection: close\r\n" } else { "" };
    format!(
        "POST /?default_format=RowBinary HTTP/1.1\r\nHost: {}:{}\r\nX-ClickHouse-User: default\r\nContent-Length: {}\r\n{connection}\r\n{sql}",
        a.host,
        a.http_port,
        sql.len()
    )
    .into_bytes()
}

// ---------------------------------------------------------------------------------------
// Reading: one buffer, `need(n)` blocks until n unread bytes are there

struct Wire {
    s: TcpStream,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
}

impl Wire {
    fn connect(host: &str, port: u16) -> io::Result<Wire> {
        let s = TcpStream::connect((host, port))?;
        s.set_nodelay(true)?;
        Ok(Wire { s, buf: vec![0; 64 * 1024], pos: 0, end: 0 })
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.s.write_all(bytes)
    }

    fn need(&mut self, n: usize) -> io::Result<()> {
        if self.end - self.pos >= n {
            return Ok(());
        }
        if self.pos + n > self.buf.len() {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            if n > self.buf.len() {
                self.buf.resize(n.next_power_of_two(), 0);
            }
        }
        while self.end - self.pos < n {
            match self.s.read(&mut self.buf[self.end..])? {
                0 => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection")),
                k => self.end += k,
            }
        }
        Ok(())
    }

    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        self.need(n)?;
        self.pos += n;
        Ok(&self.buf[self.pos - n..self.pos])
    }

    /// Up to and including the next CRLF; returns the line without it.
    fn line(&mut self) -> io::Result<&[u8]> {
        let mut scanned = 0usize; // unread bytes already searched (offsets from `pos` survive `need`)
        loop {
            let from = scanned.saturating_sub(1);
            if let Some(i) = self.buf[self.pos + from..self.end].windows(2).position(|w| w == b"\r\n") {
                let start = self.pos;
                self.pos += from + i + 2;
                return Ok(&self.buf[start..start + from + i]);
            }
            scanned = self.end - self.pos;
            self.need(scanned + 1)?;
        }
    }
}

/// What a block is read from: the socket's buffer, or the decompressed frames of a block.
trait Src {
    fn take(&mut self, n: usize) -> io::Result<&[u8]>;

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn var(&mut self) -> io::Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(err("VarUInt longer than 10 bytes"))
    }

    fn str(&mut self) -> io::Result<&[u8]> {
        let n = self.var()? as usize;
        self.take(n)
    }
}

impl Src for Wire {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        Wire::take(self, n)
    }
}

/// The decompressed bytes of one compressed block: frames are read off the socket and
/// decompressed as the block's reading needs them (no checksum check).
struct Plain<'a> {
    w: &'a mut Wire,
    buf: &'a mut Vec<u8>,
    pos: usize,
}

impl Plain<'_> {
    fn frame(&mut self) -> io::Result<()> {
        let head = self.w.take(25)?;
        if head[16] != 0x82 {
            return Err(err(format!("frame method {:#x}, LZ4 (0x82) expected", head[16])));
        }
        let size = u32::from_le_bytes(head[17..21].try_into().unwrap()) as usize;
        let plain = u32::from_le_bytes(head[21..25].try_into().unwrap()) as usize;
        let payload = self.w.take(size.checked_sub(9).ok_or_else(|| err("frame shorter than its header"))?)?;
        let start = self.buf.len();
        self.buf.resize(start + plain, 0);
        let dst = &mut self.buf[start..];
        // chwire's rule (chwire-proto/src/compress.rs): liblz4 for frames of long runs.
        let n = if plain / payload.len().max(1) >= 4 {
            lz4::block::decompress_to_buffer(payload, Some(plain as i32), dst)?
        } else {
            lz4_flex::block::decompress_into(payload, dst).map_err(|e| err(format!("LZ4: {e}")))?
        };
        if n != plain {
            return Err(err("LZ4 frame size mismatch"));
        }
        Ok(())
    }
}

impl Src for Plain<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.buf.len() - self.pos < n {
            self.buf.drain(..self.pos);
            self.pos = 0;
            self.frame()?;
        }
        self.pos += n;
        Ok(&self.buf[self.pos - n..self.pos])
    }
}

fn sum_u64(sum: u64, bytes: &[u8]) -> u64 {
    bytes.chunks_exact(8).fold(sum, |s, c| s.wrapping_add(u64::from_le_bytes(c.try_into().unwrap())))
}

// ---------------------------------------------------------------------------------------
// Native protocol: ServerHello and the packets of one query

fn native_server_hello(w: &mut Wire) -> io::Result<u64> {
    match w.var()? {
        0 => {}
        2 => return Err(native_exception(w)),
        p => return Err(err(format!("expected Hello, got packet {p}"))),
    }
    w.str()?; // server name
    w.var()?; // major
    w.var()?; // minor
    let rev = w.var()?;
    let negotiated = rev.min(REVISION);
    if negotiated >= 54058 {
        w.str()?; // timezone
    }
    if negotiated >= 54372 {
        w.str()?; // display name
    }
    if negotiated >= 54401 {
        w.var()?; // version patch
    }
    Ok(rev)
}

fn native_exception(w: &mut Wire) -> io::Error {
    let parsed = (|| -> io::Result<String> {
        let code = i32::from_le_bytes(w.take(4)?.try_into().unwrap());
        let name = String::from_utf8_lossy(w.str()?).into_owned();
        let message = String::from_utf8_lossy(w.str()?).into_owned();
        Ok(format!("server exception {code} {name}: {message}"))
    })();
    err(parsed.unwrap_or_else(|e| format!("server exception (unreadable: {e})")))
}

/// One block's header and columns: (rows, wrapping sum of the UInt64/UInt8 values and of the
/// String values' lengths). Other columns are received, not looked at.
fn native_block(s: &mut impl Src, mut sum: u64) -> io::Result<(u64, u64)> {
    loop {
        match s.var()? {
            0 => break,
            1 => drop(s.take(1)?),
            2 => drop(s.take(4)?),
            f => return Err(err(format!("unknown BlockInfo field {f}"))),
        }
    }
    let (cols, n) = (s.var()?, s.var()? as usize);
    for _ in 0..cols {
        s.str()?; // column name
        let ty = s.str()?.to_vec();
        if n == 0 {
            continue;
        }
        match ty.as_slice() {
            b"UInt64" => sum = sum_u64(sum, s.take(n * 8)?),
            b"UInt8" => sum = s.take(n)?.iter().fold(sum, |a, &b| a.wrapping_add(u64::from(b))),
            b"Float64" => drop(s.take(n * 8)?),
            b"DateTime" => drop(s.take(n * 4)?),
            b"String" => {
                for _ in 0..n {
                    let len = s.str()?.len();
                    sum = sum.wrapping_add(len as u64);
                }
            }
            t => return Err(err(format!("type {} is not handled by the floor", String::from_utf8_lossy(t)))),
        }
    }
    Ok((n as u64, sum))
}

/// Reads the packets of one query up to EndOfStream: (rows, the blocks' sums). `plain`: the
/// buffer of decompressed bytes when the query asked for compression.
fn native_result(w: &mut Wire, mut plain: Option<&mut Vec<u8>>) -> io::Result<(u64, u64)> {
    let (mut rows, mut sum) = (0u64, 0u64);
    loop {
        match w.var()? {
            1 => {
                w.str()?; // table name
                let (r, s) = match plain.as_deref_mut() {
                    Some(buf) => {
                        buf.clear();
                        native_block(&mut Plain { w: &mut *w, buf, pos: 0 }, sum)?
                    }
                    None => native_block(w, sum)?,
                };
                rows += r;
                sum = s;
            }
            3 => {
                // Progress: rows, bytes, total rows (written rows/bytes start at 54420)
                w.var()?;
                w.var()?;
                w.var()?;
            }
            6 => {
                // ProfileInfo: rows, blocks, bytes, applied_limit, rows_before_limit, calculated
                w.var()?;
                w.var()?;
                w.var()?;
                w.u8()?;
                w.var()?;
                w.u8()?;
            }
            11 => {
                // TableColumns (an INSERT's, from 54410): table, columns' description
                w.str()?;
                w.str()?;
            }
            5 => return Ok((rows, sum)),
            2 => return Err(native_exception(w)),
            p => return Err(err(format!("unexpected server packet {p}"))),
        }
    }
}

/// Reads an INSERT's answer up to the header block (the table's columns, no rows).
fn native_insert_header(w: &mut Wire) -> io::Result<()> {
    loop {
        match w.var()? {
            1 => {
                w.str()?;
                native_block(w, 0)?;
                return Ok(());
            }
            3 => {
                w.var()?;
                w.var()?;
                w.var()?;
            }
            11 => {
                w.str()?;
                w.str()?;
            }
            2 => return Err(native_exception(w)),
            p => return Err(err(format!("unexpected server packet {p} before the INSERT's header"))),
        }
    }
}

fn native_connect(a: &Args, hello: &[u8]) -> io::Result<Wire> {
    let mut w = Wire::connect(&a.host, a.port)?;
    w.send(hello)?;
    native_server_hello(&mut w)?;
    Ok(w)
}

// ---------------------------------------------------------------------------------------
// HTTP: status line, headers, then a chunked (or Content-Length) RowBinary body

fn http_result(w: &mut Wire, body: &mut Vec<u8>, row_width: usize) -> io::Result<(u64, u64)> {
    let status = w.line()?;
    if !status.starts_with(b"HTTP/1.1 200") {
        return Err(err(format!("HTTP status {}", String::from_utf8_lossy(status))));
    }
    let (mut chunked, mut length) = (false, None);
    loop {
        let h = w.line()?;
        if h.is_empty() {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if lower.starts_with(b"transfer-encoding:") && lower.ends_with(b"chunked") {
            chunked = true;
        } else if let Some(v) = lower.strip_prefix(b"content-length:") {
            length = Some(String::from_utf8_lossy(v).trim().parse::<usize>().map_err(|_| err("bad Content-Length"))?);
        }
    }
    body.clear();
    if chunked {
        loop {
            let line = w.line()?;
            let hex = line.split(|&b| b == b';').next().unwrap_or_default();
            let size = usize::from_str_radix(std::str::from_utf8(hex).map_err(|_| err("bad chunk size"))?.trim(), 16)
                .map_err(|_| err("bad chunk size"))?;
            if size == 0 {
                if !w.line()?.is_empty() {
                    return Err(err("trailers are not expected"));
                }
                break;
            }
            body.extend_from_slice(w.take(size)?);
            w.take(2)?;
        }
    } else if let Some(n) = length {
        body.extend_from_slice(w.take(n)?);
    } else {
        return Err(err("response without Content-Length or chunked encoding"));
    }
    let sum = if row_width == 1 { body.iter().fold(0u64, |s, &b| s.wrapping_add(u64::from(b))) } else { sum_u64(0, body) };
    Ok(((body.len() / row_width) as u64, sum))
}

// ---------------------------------------------------------------------------------------

fn run(a: &Args) -> io::Result<Option<(f64, u64, u64)>> {
    let (rows, sum, t0) = match (a.client.as_str(), a.workload.as_str()) {
        ("native-floor", "W3" | "W4") => {
            let lz4 = a.compression == "lz4";
            let query = native_query(if a.workload == "W3" { W3_SQL } else { W4_SQL }, lz4);
            let mut plain = Vec::with_capacity(if lz4 { 1 << 20 } else { 0 });
            let mut w = native_connect(a, &native_hello())?;
            let t0 = Instant::now();
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..REPEATS {
                w.send(&query)?;
                let (r, s) = native_result(&mut w, lz4.then_some(&mut plain))?;
                rows += r;
                sum = sum.wrapping_add(s);
            }
            (rows, sum, t0)
        }
        ("native-floor", "W1" | "W2" | "W8") => {
            let sql = match a.workload.as_str() {
                "W1" => W1_SQL.to_string(),
                "W2" => W2_SQL.to_string(),
                _ => format!("SELECT substring('{}', 1, number % 200 + 1) AS s FROM system.numbers LIMIT 10000000", "x".repeat(200)),
            };
            let lz4 = a.compression == "lz4";
            let query = native_query(&sql, lz4);
            let mut plain = Vec::with_capacity(if lz4 { 1 << 21 } else { 0 });
            let mut w = native_connect(a, &native_hello())?;
            let t0 = Instant::now();
            w.send(&query)?;
            let (rows, sum) = native_result(&mut w, lz4.then_some(&mut plain))?;
            (rows, sum, t0)
        }
        ("native-floor", "W5") => {
            let query = native_query(W5_SQL, false);
            let (blocks, check) = w5_blocks();
            let mut w = native_connect(a, &native_hello())?;
            w.send(&native_query(W5_TABLE, false))?;
            native_result(&mut w, None)?;
            let t0 = Instant::now();
            w.send(&query)?;
            native_insert_header(&mut w)?;
            for b in &blocks {
                w.send(b)?;
            }
            native_result(&mut w, None)?;
            (W5_ROWS, check, t0)
        }
        ("native-floor", "W6") => {
            let (hello, query) = (native_hello(), native_query(W6_SQL, false));
            let t0 = Instant::now();
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..CONNECTS {
                let mut w = native_connect(a, &hello)?;
                w.send(&query)?;
                let (r, s) = native_result(&mut w, None)?;
                rows += r;
                sum = sum.wrapping_add(s);
            }
            (rows, sum, t0)
        }
        ("native-floor-1rtt", "W6") => {
            let mut both = native_hello();
            both.extend_from_slice(&native_query(W6_SQL, false));
            let t0 = Instant::now();
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..CONNECTS {
                let mut w = Wire::connect(&a.host, a.port)?;
                w.send(&both)?;
                let rev = native_server_hello(&mut w)?;
                if rev < REVISION {
                    return Err(err(format!("server revision {rev} is below {REVISION}: the pipelined Query was framed wrongly")));
                }
                let (r, s) = native_result(&mut w, None)?;
                rows += r;
                sum = sum.wrapping_add(s);
            }
            (rows, sum, t0)
        }
        ("http-floor", "W4") => {
            let request = http_request(a, W4_SQL, false);
            let mut body = Vec::with_capacity(64 * 1024);
            let mut w = Wire::connect(&a.host, a.http_port)?;
            let t0 = Instant::now();
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..REPEATS {
                w.send(&request)?;
                let (r, s) = http_result(&mut w, &mut body, 80)?;
                rows += r;
                sum = sum.wrapping_add(s);
            }
            (rows, sum, t0)
        }
        ("http-floor", "W6") => {
            let request = http_request(a, W6_SQL, true);
            let mut body = Vec::with_capacity(64);
            let t0 = Instant::now();
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..CONNECTS {
                let mut w = Wire::connect(&a.host, a.http_port)?;
                w.send(&request)?;
                let (r, s) = http_result(&mut w, &mut body, 1)?;
                rows += r;
                sum = sum.wrapping_add(s);
            }
            (rows, sum, t0)
        }
        _ => return Ok(None),
    };
    Ok(Some((t0.elapsed().as_secs_f64(), rows, sum)))
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if !matches!(a.client.as_str(), "native-floor" | "native-floor-1rtt" | "http-floor") {
        eprintln!("error: unknown client {:?} (native-floor, native-floor-1rtt, http-floor)", a.client);
        return ExitCode::from(2);
    }
    let unsupported = |reason: &str| {
        println!("UNSUPPORTED client={} workload={} compression={} reason={reason}", a.client, a.workload, a.compression);
        ExitCode::SUCCESS
    };
    let lz4_reads = a.client == "native-floor" && matches!(a.workload.as_str(), "W1" | "W2" | "W3" | "W4" | "W8");
    if a.compression != "none" && !(a.compression == "lz4" && lz4_reads) {
        return unsupported("the raw-socket floors read LZ4 for W1-W4 and W8 (native-floor) and are uncompressed otherwise");
    }
    match run(&a) {
        Ok(Some((wall, rows, check))) => {
            println!(
                "RESULT client={} workload={} compression={} wall_s={wall:.6} rows={rows} check={check}",
                a.client, a.workload, a.compression
            );
            ExitCode::SUCCESS
        }
        Ok(None) => unsupported("the raw-socket floors cover W1-W5, W8 (native-floor), W4 and W6 only"),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
