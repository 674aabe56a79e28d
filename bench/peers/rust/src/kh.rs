//! `klickhouse` and its fork `nativeclick` (native TCP protocol, derived rows). nativeclick
//! keeps klickhouse's API, so one body serves both (`peer!`), each compiled against its crate.

macro_rules! peer {
    ($krate:ident, $name:literal, $why:literal) => {
        pub mod $krate {
            use crate::*;
            use futures_util::StreamExt;
            use std::hint::black_box;
            use $krate::bb8;
            use $krate::{
                Client, ClientOptions, ConnectionManager, Date, DateTime, DateTime64, FixedPoint64, IndexMap, Ipv6, Row, Tz, Uuid, Value,
            };

            #[derive(Row)]
            struct N1 {
                number: u64,
            }

            #[derive(Row)]
            struct Mixed {
                number: u64,
                s: String,
                f: f64,
                t: DateTime,
            }

            // Result columns are keyed by name (an IndexMap): the repeated `number` columns of
            // W3/W4 are aliased (the same bytes on the wire).
            const W3_SQL_ALIASED: &str = "SELECT number AS c0, number AS c1, number AS c2 FROM system.numbers LIMIT 1000";

            #[derive(Row)]
            struct N3 {
                c0: u64,
                c1: u64,
                c2: u64,
            }

            fn w4_sql_aliased() -> String {
                let cols: Vec<String> = (0..10).map(|i| format!("number AS c{i}")).collect();
                format!("SELECT {} FROM system.numbers LIMIT 100", cols.join(", "))
            }

            #[derive(Row)]
            struct N10 {
                c0: u64,
                c1: u64,
                c2: u64,
                c3: u64,
                c4: u64,
                c5: u64,
                c6: u64,
                c7: u64,
                c8: u64,
                c9: u64,
            }

            #[derive(Row)]
            struct W5Row {
                id: u64,
                name: String,
                value: f64,
                ts: DateTime,
            }

            #[derive(Row)]
            struct One {
                one: u8,
            }

            #[derive(Row)]
            struct Str {
                s: String,
            }

            /// W7's wide row (bench/PEERS.md); the Enum8 as the crate's dynamic Value (its i8
            /// takes Int8 only).
            #[derive(Row, Clone)]
            struct Wide {
                id: u64,
                ts: DateTime64<3>,
                user_id: u32,
                session: Uuid,
                ip: Ipv6,
                country: String,
                event: Value,
                url: String,
                referrer: Option<String>,
                tags: Vec<String>,
                props: IndexMap<String, u64>,
                price: FixedPoint64<4>,
                quantity: i32,
                score: f64,
                duration_ms: Option<u32>,
                is_bot: u8,
                device: String,
                latency: f32,
                day: Date,
                note: String,
            }

            async fn connect(a: &Args) -> AnyResult<Client> {
                Ok(Client::connect((a.host.as_str(), a.port), ClientOptions::default()).await?)
            }

            async fn select_one(c: &Client) -> AnyResult<u64> {
                let r: One = c.query_one("SELECT 1 AS one").await?;
                Ok(r.one as u64)
            }

            async fn select_n3(c: &Client) -> AnyResult<(u64, u64)> {
                let mut st = c.query::<N3, _>(W3_SQL_ALIASED).await?;
                let (mut rows, mut sum) = (0u64, 0u64);
                while let Some(r) = st.next().await {
                    let r = r?;
                    rows += 1;
                    sum = sum.wrapping_add(r.c0).wrapping_add(r.c1).wrapping_add(r.c2);
                }
                Ok((rows, sum))
            }

            fn w5_rows(b: u64) -> Vec<W5Row> {
                let mut name = String::new();
                (b * W5_BLOCK..(b + 1) * W5_BLOCK)
                    .map(|i| {
                        let (id, value, ts) = w5_row(i, &mut name);
                        W5Row { id, name: name.clone(), value, ts: DateTime(Tz::UTC, ts) }
                    })
                    .collect()
            }

            const W5_INSERT: &str = "INSERT INTO chwire_bench_w5 (id, name, value, ts) FORMAT Native";

            async fn insert_w5_block(c: &Client, b: u64) -> AnyResult<(u64, u64)> {
                c.insert_native(W5_INSERT, futures_util::stream::iter(std::iter::once(w5_rows(b)))).await?;
                Ok((W5_BLOCK, w5_block_sum(b)))
            }

            async fn pool(a: &Args) -> AnyResult<bb8::Pool<ConnectionManager>> {
                let m = ConnectionManager::new((a.host.as_str(), a.port), ClientOptions::default()).await?;
                Ok(bb8::Pool::builder().max_size(POOL_SIZE as u32).build(m).await?)
            }

            pub async fn run(a: &Args) -> Run {
                let server18 = std::env::var("CHWIRE_BENCH_SERVER").is_ok_and(|s| s.starts_with("18."));
                if a.compression != "lz4" {
                    return unsupported(a, concat!($name, " always uses LZ4 (compile-time `compression` feature", $why, ")"));
                }
                if $name == "nativeclick" && server18 {
                    // Tried: every query fails with code 115, "Unknown setting
                    // output_format_native_write_json_as_string" (its README: 25.11 to 26.9).
                    return unsupported(
                        a,
                        "nativeclick 0.26.9 sends the setting output_format_native_write_json_as_string, which 18.16 refuses \
                         (code 115); it supports ClickHouse 25.11 to 26.9",
                    );
                }
                if a.workload == "W6" {
                    let t0 = Instant::now();
                    let mut sum = 0u64;
                    for _ in 0..CONNECTS {
                        let c = connect(a).await?;
                        sum = sum.wrapping_add(select_one(&c).await?);
                        drop(c);
                    }
                    return Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), CONNECTS as u64, sum)));
                }
                if a.workload == "W10q" || a.workload == "W10i" {
                    let p = pool(a).await?;
                    let (tasks, total) = if a.workload == "W10q" { (W10Q_TASKS, W10Q_QUERIES) } else { (W10I_TASKS, W10I_BLOCKS) };
                    let q = a.workload == "W10q";
                    let o = concurrent(tasks, total, move |i| {
                        let p = p.clone();
                        async move {
                            let c = p.get().await.map_err(|e| e.to_string())?;
                            if q {
                                select_n3(&c).await
                            } else {
                                insert_w5_block(&c, i).await
                            }
                        }
                    })
                    .await?;
                    return Ok(Some(o));
                }

                let c = connect(a).await?;
                let block: Vec<Wide> = if a.workload == "W7i" {
                    let mut st = c.query::<Wide, _>(W7_BLOCK_SQL).await?;
                    let mut v = Vec::new();
                    while let Some(r) = st.next().await {
                        v.push(r?);
                    }
                    v
                } else {
                    Vec::new()
                };
                let t0 = Instant::now();
                let (rows, check) = match a.workload.as_str() {
                    "W1" => {
                        let mut st = c.query::<N1, _>(W1_SQL).await?;
                        let (mut rows, mut sum) = (0u64, 0u64);
                        while let Some(r) = st.next().await {
                            let r = r?;
                            rows += 1;
                            sum = sum.wrapping_add(r.number);
                        }
                        (rows, sum)
                    }
                    "W2" => {
                        let mut st = c.query::<Mixed, _>(W2_SQL).await?;
                        let (mut rows, mut sum) = (0u64, 0u64);
                        let (mut fsum, mut tsum) = (0f64, 0u64);
                        while let Some(r) = st.next().await {
                            let r = r?;
                            rows += 1;
                            sum = sum.wrapping_add(r.number).wrapping_add(r.s.len() as u64);
                            fsum += r.f;
                            tsum = tsum.wrapping_add(r.t.1 as u64);
                        }
                        black_box((fsum, tsum));
                        (rows, sum)
                    }
                    "W3" => {
                        let (mut rows, mut sum) = (0u64, 0u64);
                        for _ in 0..REPEATS {
                            let (r, s) = select_n3(&c).await?;
                            rows += r;
                            sum = sum.wrapping_add(s);
                        }
                        (rows, sum)
                    }
                    "W4" => {
                        let sql = w4_sql_aliased();
                        let (mut rows, mut sum) = (0u64, 0u64);
                        for _ in 0..REPEATS {
                            let mut st = c.query::<N10, _>(sql.as_str()).await?;
                            while let Some(r) = st.next().await {
                                let r = r?;
                                rows += 1;
                                for v in [r.c0, r.c1, r.c2, r.c3, r.c4, r.c5, r.c6, r.c7, r.c8, r.c9] {
                                    sum = sum.wrapping_add(v);
                                }
                            }
                        }
                        (rows, sum)
                    }
                    "W5" => {
                        // rows are generated lazily, block by block, inside the timed region
                        let blocks = futures_util::stream::iter((0..W5_ROWS / W5_BLOCK).map(w5_rows));
                        c.insert_native(W5_INSERT, blocks).await?;
                        (W5_ROWS, (0..W5_ROWS).fold(0u64, |s, i| s.wrapping_add(i)))
                    }
                    "W7" => {
                        let mut st = c.query::<Wide, _>(W7_SQL).await?;
                        let (mut rows, mut sum, mut touched) = (0u64, 0u64, 0usize);
                        while let Some(r) = st.next().await {
                            let r = r?;
                            rows += 1;
                            sum = sum.wrapping_add(r.id);
                            touched += r.tags.len() + r.props.len() + r.note.len();
                        }
                        black_box(touched);
                        (rows, sum)
                    }
                    "W7i" => {
                        // Rows are consumed by the insert: each repeat sends a clone of the block.
                        let sum = block.iter().fold(0u64, |s, r| s.wrapping_add(r.id));
                        let per = block.len() as u64;
                        let b = block.clone();
                        let blocks = futures_util::stream::iter((0..W7I_REPEATS).map(move |_| b.clone()));
                        c.insert_native(format!("INSERT INTO {W7_SINK} FORMAT Native").as_str(), blocks).await?;
                        (per * W7I_REPEATS as u64, sum.wrapping_mul(W7I_REPEATS as u64))
                    }
                    "W8" => {
                        let sql = w8_sql();
                        let mut st = c.query::<Str, _>(sql.as_str()).await?;
                        let (mut rows, mut bytes) = (0u64, 0u64);
                        while let Some(r) = st.next().await {
                            rows += 1;
                            bytes += r?.s.len() as u64;
                        }
                        (rows, bytes)
                    }
                    _ => unreachable!(),
                };
                Ok(Some(Outcome::new(t0.elapsed().as_secs_f64(), rows, check)))
            }
        }
    };
}

peer!(klickhouse, "klickhouse", "; the crate does not compile without it");
peer!(nativeclick, "nativeclick", ", its default, on in this build: one binary holds one build of a crate");
