//! Cancel safety against the real server: every public async method of the client is
//! dropped after 1, 2, 3, ... polls (each cut lands at another await point: mid-connect,
//! mid-write, mid-read, mid-drain) until it completes, and after every cut the same client
//! must answer a fresh query with the right data (and an insert is either whole or absent).

mod common;

use chwire::{Block, Client, Column, ErrorKind, Row, Value};
use common::*;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Polls `fut` at most `polls` times, then drops it (right after its last `Pending`).
struct Cut<F> {
    fut: Pin<Box<F>>,
    left: usize,
}

impl<F: Future> Future for Cut<F> {
    type Output = Option<F::Output>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        self.left -= 1;
        match self.fut.as_mut().poll(cx) {
            Poll::Ready(v) => Poll::Ready(Some(v)),
            Poll::Pending => {
                if self.left == 0 {
                    // Come back at once to drop it here, at this await point.
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
        }
    }
}

fn cut<F: Future>(fut: F, polls: usize) -> Cut<F> {
    Cut { fut: Box::pin(fut), left: polls }
}

/// The client must be usable and in step: a Ping, then a query whose answer depends on `salt`.
async fn verify(c: &mut Client, salt: u64) {
    c.ping().await.unwrap_or_else(|e| panic!("ping after cut {salt}: {e}"));
    let n = 1000 + salt;
    let (sum, count): (u64, u64) = c
        .query("SELECT sum(number), count() FROM numbers({n:UInt64})")
        .param("n", n)
        .fetch_one()
        .await
        .unwrap_or_else(|e| panic!("query after cut {salt}: {e}"));
    assert_eq!((sum, count), (n * (n - 1) / 2, n), "wrong answer after cut {salt}");
}

/// Run `$op` (an expression using the client `$c`) cut after 1, 2, ... polls until it
/// completes; verify the client after every cut. `$after` runs after each attempt with the
/// attempt number and whether the op completed (for inserts: whole or absent).
macro_rules! every_cut {
    ($name:expr, $c:ident, $op:expr) => {
        every_cut!($name, $c, $op, |_k: u64, _done: bool| async {})
    };
    ($name:expr, $c:ident, $op:expr, $after:expr) => {{
        let mut $c = client().await;
        let mut k = 1usize;
        loop {
            let out = cut(async { $op }, k).await;
            let done = out.is_some();
            if let Some(Err(e)) = out {
                panic!("{} failed after {k} polls: {e}", $name);
            }
            verify(&mut $c, k as u64).await;
            ($after)(k as u64, done).await;
            if done {
                eprintln!("{}: cut after 1..{} polls, completed after {k}", $name, k - 1);
                break;
            }
            k += 1;
            assert!(k < 3000, "{} never completed", $name);
        }
        k
    }};
}

/// 200 rows in 20 blocks that the server produces a few milliseconds apart, so that the
/// client waits between them (each wait is an await point to cut at).
const Q: &str = "SELECT number, toString(number) AS s FROM numbers(200) WHERE sleepEachRow(0.0003) = 0 \
                 SETTINGS max_block_size = 10";
const N: u64 = 200;

fn check_sum(blocks: &[Block]) -> chwire::Result<()> {
    let sum: u64 = blocks.iter().map(|b| b.column("number").unwrap().as_u64().unwrap().iter().sum::<u64>()).sum();
    assert_eq!(sum, N * (N - 1) / 2);
    Ok(())
}

#[derive(Row, Debug, PartialEq)]
struct NumRow {
    number: u64,
    s: String,
}

#[tokio::test]
async fn connect_ping_execute() {
    let polls = every_cut!("Client::connect", c, Client::connect(options()).await.map(|_| ()));
    assert!(polls > 1, "connect completed in one poll");
    every_cut!("Client::connect_url", c, Client::connect_url(&url()).await.map(|_| ()));
    every_cut!("Client::ping", c, c.ping().await);
    every_cut!("Client::execute", c, c.execute("SELECT sum(number) FROM numbers(100000)").await.map(|_| ()));
    every_cut!("Query::execute", c, c.query("SELECT 1").setting("max_threads", "1").execute().await.map(|_| ()));
}

#[tokio::test]
async fn reads() {
    every_cut!("Query::stream + QueryStream::next_event", c, {
        let mut s = c.query(Q).stream().await?;
        let mut sum = 0u64;
        while let Some(ev) = s.next_event().await? {
            if let chwire::Event::Data(b) = ev {
                sum += b.column("number").unwrap().as_u64().unwrap().iter().sum::<u64>();
            }
        }
        assert_eq!(sum, N * (N - 1) / 2);
        Ok::<(), chwire::Error>(())
    });
    every_cut!("QueryStream::next_block", c, {
        let mut s = c.query(Q).stream().await?;
        let mut blocks = Vec::new();
        while let Some(b) = s.next_block().await? {
            blocks.push(b);
        }
        check_sum(&blocks)
    });
    every_cut!("QueryStream::cancel", c, {
        let mut s = c.query("SELECT number FROM system.numbers").stream().await?;
        s.next_block().await?;
        s.cancel().await
    });
    every_cut!("Query::fetch_blocks", c, check_sum(&c.query(Q).fetch_blocks().await?));
    every_cut!("Query::fetch_all", c, {
        let rows: Vec<(u64, String)> = c.query(Q).fetch_all().await?;
        assert_eq!(rows.len() as u64, N);
        assert!(rows.iter().enumerate().all(|(i, (n, s))| *n == i as u64 && *s == i.to_string()));
        Ok::<(), chwire::Error>(())
    });
    every_cut!("Query::fetch_one", c, {
        let (n,): (u64,) = c.query("SELECT count() FROM numbers(77)").fetch_one().await?;
        assert_eq!(n, 77);
        Ok::<(), chwire::Error>(())
    });
    every_cut!("Query::fetch_optional", c, {
        let r: Option<(u64,)> = c.query("SELECT number FROM numbers(10) WHERE number = 3").fetch_optional().await?;
        assert_eq!(r, Some((3,)));
        Ok::<(), chwire::Error>(())
    });
    every_cut!("Query::fetch + RowCursor::next", c, {
        let mut rows = c.query(Q).fetch::<NumRow>().await?;
        let mut i = 0u64;
        while let Some(r) = rows.next().await? {
            assert_eq!((r.number, r.s.as_str()), (i, i.to_string().as_str()));
            i += 1;
        }
        assert_eq!(i, N);
        Ok::<(), chwire::Error>(())
    });
    every_cut!("RowCursor::cancel", c, {
        let mut rows = c.query(Q).fetch::<NumRow>().await?;
        rows.next().await?;
        rows.cancel().await
    });
    every_cut!("Query::fetch_dynamic + DynRowCursor::next", c, {
        let mut rows = c.query(Q).fetch_dynamic().await?;
        let mut i = 0u64;
        while let Some(r) = rows.next().await? {
            assert_eq!(r.get(0), Some(Value::UInt(i)));
            i += 1;
        }
        assert_eq!(i, N);
        Ok::<(), chwire::Error>(())
    });
}

/// A table for the insert cuts; each attempt writes rows marked with its number.
async fn insert_table(name: &str) -> String {
    let table = format!("chwire_cancel_{name}");
    let mut c = client().await;
    c.execute(format!("DROP TABLE IF EXISTS {table}")).await.unwrap();
    c.execute(format!("CREATE TABLE {table} (k UInt64, i UInt64, s String) ENGINE = Memory")).await.unwrap();
    table
}

const ROWS: u64 = 20000;

fn rows_block(k: u64, from: u64, to: u64) -> Block {
    Block::new()
        .with("k", Column::from(vec![k; (to - from) as usize]))
        .unwrap()
        .with("i", Column::from((from..to).collect::<Vec<u64>>()))
        .unwrap()
        .with("s", Column::from((from..to).map(|i| format!("row {i}")).collect::<Vec<_>>()))
        .unwrap()
}

/// The rows of attempt `k`: all of them, or (if cut) none.
async fn whole_or_absent(table: &str, k: u64, done: bool) {
    let mut c = client().await;
    let (n, sum): (u64, u64) = c.query(format!("SELECT count(), sum(i) FROM {table} WHERE k = {k}")).fetch_one().await.expect("count");
    if done {
        assert_eq!((n, sum), (ROWS, ROWS * (ROWS - 1) / 2), "attempt {k} completed but its rows are not all there");
    } else {
        assert!(n == 0 || (n, sum) == (ROWS, ROWS * (ROWS - 1) / 2), "attempt {k} was cut and left {n} rows");
    }
}

#[derive(Row, Debug)]
struct Ins<'a> {
    k: u64,
    i: u64,
    s: &'a str,
}

#[tokio::test]
async fn inserts() {
    let t = insert_table("blocks").await;
    every_cut!(
        "Client::insert_blocks + Insert::send + Insert::end",
        c,
        {
            let k = K.with(|k| k.get());
            let mut ins = c.insert_blocks(t.as_str(), Some(&["k", "i", "s"])).await?;
            ins.send(&rows_block(k, 0, ROWS / 2)).await?;
            ins.send(&rows_block(k, ROWS / 2, ROWS)).await?;
            ins.end().await.map(|_| ())
        },
        |k: u64, done: bool| {
            let t = t.clone();
            async move {
                whole_or_absent(&t, k, done).await;
                K.with(|c| c.set(k + 1));
            }
        }
    );
    K.with(|k| k.set(1));
    let t = insert_table("rows").await;
    every_cut!(
        "Client::insert_rows + Inserter::write/write_all/flush/end",
        c,
        {
            let k = K.with(|k| k.get());
            let names: Vec<String> = (0..ROWS).map(|i| format!("row {i}")).collect();
            let mut ins = c.insert_rows::<Ins>(&t).await?.with_limits(chwire::row::InsertLimits { max_rows: 6000, ..Default::default() });
            for i in 0..ROWS / 2 {
                ins.write(&Ins { k, i, s: &names[i as usize] }).await?;
            }
            ins.flush().await?;
            let rest: Vec<Ins> = (ROWS / 2..ROWS).map(|i| Ins { k, i, s: &names[i as usize] }).collect();
            ins.write_all(rest.iter()).await?;
            ins.end().await.map(|_| ())
        },
        |k: u64, done: bool| {
            let t = t.clone();
            async move {
                whole_or_absent(&t, k, done).await;
                K.with(|c| c.set(k + 1));
            }
        }
    );
    K.with(|k| k.set(1));
    let t = insert_table("dynamic").await;
    every_cut!(
        "Query::insert_dynamic + DynInserter::write/end",
        c,
        {
            let k = K.with(|k| k.get());
            let mut ins = c.query(format!("INSERT INTO {t} (k, i, s) VALUES")).insert_dynamic().await?;
            for i in 0..ROWS {
                let s = format!("row {i}");
                ins.write(&[Value::UInt(k), Value::UInt(i), Value::String(s.as_bytes())]).await?;
            }
            ins.end().await.map(|_| ())
        },
        |k: u64, done: bool| {
            let t = t.clone();
            async move {
                whole_or_absent(&t, k, done).await;
                K.with(|c| c.set(k + 1));
            }
        }
    );
}

thread_local! {
    /// The attempt number of the running insert cut (current-thread runtime).
    static K: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// The bug of the issue: a `send` dropped mid-write and called again must not write the
/// block's bytes a second time. Now the insert is over: the next `send` and `end` say so,
/// nothing of it is committed, and the client's next insert and query are fine.
#[tokio::test]
async fn send_dropped_mid_write_aborts_the_insert() {
    let t = insert_table("midwrite").await;
    let mut c = client().await;
    // Big enough that the socket cannot take it in one go.
    let big = rows_block(1, 0, 1_000_000);
    let mut ins = c.insert_blocks(t.as_str(), Some(&["k", "i", "s"])).await.unwrap();
    let out = cut(ins.send(&big), 1).await;
    assert!(out.is_none(), "a 20 MB block went out in one poll");
    let again = ins.send(&rows_block(1, 0, 10)).await.expect_err("send after a cancelled send");
    assert!(matches!(again.kind(), ErrorKind::InvalidInput(m) if m.contains("cancelled")), "{again}");
    let end = ins.end().await.expect_err("end after a cancelled send");
    assert!(matches!(end.kind(), ErrorKind::InvalidInput(_)), "{end}");
    verify(&mut c, 1).await;
    let mut ins = c.insert_blocks(t.as_str(), Some(&["k", "i", "s"])).await.unwrap();
    ins.send(&rows_block(2, 0, 100)).await.unwrap();
    ins.end().await.unwrap();
    let (n1, n2): (u64, u64) = c.query(format!("SELECT countIf(k = 1), countIf(k = 2) FROM {t}")).fetch_one().await.unwrap();
    assert_eq!((n1, n2), (0, 100));
}

/// A ping dropped after its flush leaves a Pong in flight: the next query must not see it.
#[tokio::test]
async fn ping_dropped_after_flush() {
    let mut c = client().await;
    for _ in 0..20 {
        assert!(cut(c.ping(), 1).await.is_none(), "ping answered within one poll");
        let (x,): (u8,) = c.query("SELECT 42").fetch_one().await.unwrap();
        assert_eq!(x, 42);
    }
}

/// An `Insert` dropped before `end` ends on the server at once (its socket is shut down),
/// not when the client is next used: the client stays idle here while another one watches
/// the INSERT leave `system.processes`; nothing of it is committed.
#[tokio::test]
async fn a_dropped_insert_ends_on_the_server_at_once() {
    let t = insert_table("dropped_now").await;
    let mut c = client().await;
    let id = format!("chwire-dropped-insert-{}", std::process::id());
    let mut ins = c.query(format!("INSERT INTO {t} (k, i, s) VALUES")).query_id(id.clone()).insert_blocks().await.unwrap();
    ins.send(&rows_block(1, 0, 100)).await.unwrap();
    let mut watch = client().await;
    async fn running(w: &mut Client, id: &str) -> u64 {
        let sql = format!("SELECT count() FROM system.processes WHERE query_id = '{id}'");
        w.query(sql).fetch_one::<(u64,)>().await.unwrap().0
    }
    assert_eq!(running(&mut watch, &id).await, 1, "the insert runs before it is dropped");
    drop(ins);
    let start = std::time::Instant::now();
    while running(&mut watch, &id).await > 0 {
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "the dropped insert still runs on the server");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (n,): (u64,) = watch.query(format!("SELECT count() FROM {t}")).fetch_one().await.unwrap();
    assert_eq!(n, 0, "a dropped insert committed rows");
    // The client reconnects for its next query.
    verify(&mut c, 7).await;
}
