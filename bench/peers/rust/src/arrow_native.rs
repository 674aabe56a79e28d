//! `clickhouse-arrow` (native TCP protocol, results as Arrow record batches, inserts from them).

use crate::arrow_util::a57::{string_bytes, sum_all, sum_u64, w5_batch};
use crate::*;
use arrow_array_57::RecordBatch;
use clickhouse_arrow::{bb8, ArrowFormat, Client, ClientBuilder, CompressionMethod, ConnectionManager};
use futures_util::StreamExt;

fn builder(a: &Args) -> ClientBuilder {
    let compression = match a.compression.as_str() {
        "lz4" => CompressionMethod::LZ4,
        "zstd" => CompressionMethod::ZSTD,
        _ => CompressionMethod::None,
    };
    ClientBuilder::new().with_endpoint(format!("{}:{}", a.host, a.port)).with_username("default").with_compression(compression)
}

async fn connect(a: &Args) -> AnyResult<Client<ArrowFormat>> {
    Ok(builder(a).build_arrow().await?)
}

/// Streams `sql` and folds each batch with `f` (rows, check).
async fn scan(c: &Client<ArrowFormat>, sql: &str, mut f: impl FnMut(&RecordBatch) -> AnyResult<u64>) -> AnyResult<(u64, u64)> {
    let mut st = c.query(sql, None).await?;
    let (mut rows, mut check) = (0u64, 0u64);
    while let Some(b) = st.next().await {
        let b = b?;
        rows += b.num_rows() as u64;
        check = check.wrapping_add(f(&b)?);
    }
    Ok((rows, check))
}

async fn batches(c: &Client<ArrowFormat>, sql: &str) -> AnyResult<Vec<RecordBatch>> {
    let mut st = c.query(sql, None).await?;
    let mut out = Vec::new();
    while let Some(b) = st.next().await {
        out.push(b?);
    }
    Ok(out)
}

async fn insert(c: &Client<ArrowFormat>, table: &str, batch: RecordBatch) -> AnyResult<()> {
    let mut st = c.insert(format!("INSERT INTO {table} FORMAT Native").as_str(), batch, None).await?;
    while let Some(r) = st.next().await {
        r?;
    }
    Ok(())
}

async fn insert_w5_block(c: &Client<ArrowFormat>, b: u64) -> AnyResult<(u64, u64)> {
    insert(c, W5_TABLE, w5_batch(b)?).await?;
    Ok((W5_BLOCK, w5_block_sum(b)))
}

pub async fn run(a: &Args) -> Run {
    if std::env::var("CHWIRE_BENCH_SERVER").is_ok_and(|s| s.starts_with("18.")) {
        // Tried: a W3 against 18.16 printed nothing and had not finished after 30 s (on 26.9: 2-3 s).
        return unsupported(a, "clickhouse-arrow 0.2.1 gets no answer from ClickHouse 18.16 (W3 still waiting after 30 s)");
    }
    if a.workload == "W6" {
        let t0 = Instant::now();
        let mut sum = 0u64;
        for _ in 0..CONNECTS {
            let c = connect(a).await?;
            let (_, s) = scan(&c, "SELECT toUInt64(1) AS one", sum_all).await?;
            sum = sum.wrapping_add(s);
            c.shutdown().await?;
        }
        return Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
    }
    if a.workload == "W10q" || a.workload == "W10i" {
        let m: ConnectionManager<ArrowFormat> = builder(a).build_pool_manager(false).await?;
        let p = bb8::Pool::builder().max_size(POOL_SIZE as u32).build(m).await?;
        let q = a.workload == "W10q";
        let (tasks, total) = if q { (W10Q_TASKS, W10Q_QUERIES) } else { (W10I_TASKS, W10I_BLOCKS) };
        let o = concurrent(tasks, total, move |i| {
            let p = p.clone();
            async move {
                let c = p.get().await.map_err(|e| e.to_string())?;
                if q {
                    scan(&c, W3_SQL, sum_all).await
                } else {
                    insert_w5_block(&c, i).await
                }
            }
        })
        .await?;
        return Ok(Some(o));
    }
    let c = connect(a).await?;
    let block = if a.workload == "W7i" { batches(&c, W7_BLOCK_SQL).await? } else { Vec::new() };
    let t0 = Instant::now();
    let (rows, check) = match a.workload.as_str() {
        "W1" | "W3" | "W4" => {
            let (sql, n) = match a.workload.as_str() {
                "W1" => (W1_SQL, 1),
                "W3" => (W3_SQL, REPEATS),
                _ => (W4_SQL, REPEATS),
            };
            let (mut rows, mut check) = (0u64, 0u64);
            for _ in 0..n {
                let (r, s) = scan(&c, sql, sum_all).await?;
                rows += r;
                check = check.wrapping_add(s);
            }
            (rows, check)
        }
        "W2" => scan(&c, W2_SQL, |b| Ok(sum_u64(b.column(0))?.wrapping_add(string_bytes(b.column(1))?))).await?,
        "W5" => {
            let mut sum = 0u64;
            for b in 0..W5_ROWS / W5_BLOCK {
                sum = sum.wrapping_add(insert_w5_block(&c, b).await?.1);
            }
            (W5_ROWS, sum)
        }
        "W7" => scan(&c, W7_SQL, |b| sum_u64(b.column(0))).await?,
        "W7i" => {
            let (mut rows, mut sum) = (0u64, 0u64);
            for _ in 0..W7I_REPEATS {
                // The insert takes its batch by value: a clone shares the buffers (Arc).
                for b in &block {
                    insert(&c, W7_SINK, b.clone()).await?;
                    rows += b.num_rows() as u64;
                    sum = sum.wrapping_add(sum_u64(b.column(0))?);
                }
            }
            (rows, sum)
        }
        "W8" => scan(&c, &w8_sql(), |b| string_bytes(b.column(0))).await?,
        _ => unreachable!(),
    };
    Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), rows, check)))
}
