//! Reading one partition, for both front ends: the partition's query on its server, each block
//! converted to Spark's Arrow batch (chwire-arrow's rich mapping, then [`to_spark`]: Spark's
//! types, checked, offset 0) and sent through a channel the front end drains (one batch
//! ahead: memory bounded by a block or two). The JVM connector exports each batch through the
//! C Data Interface, the PySpark source through an Arrow C stream.

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use chwire::Event;
use chwire_arrow::ArrowOptions;
use std::sync::Arc;
use tokio::sync::mpsc;

use crate::arrow::{field, spark_schema, to_spark};
use crate::plan::{Part, Plan};
use crate::{Error, Result};

/// The Arrow schema a read delivers: Spark's read schema (a StructType in Spark's JSON form:
/// the planned types, or a user's schema whose types each column is converted to, checked), or
/// the planned columns' without one.
pub fn read_schema(plan: &Plan, spark_json: Option<&str>) -> Result<SchemaRef> {
    let Some(text) = spark_json else { return spark_schema(&plan.columns) };
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::Invalid(format!("bad schema JSON: {e}")))?;
    let fields = v["fields"].as_array().cloned().unwrap_or_default();
    Ok(Arc::new(Schema::new(fields.iter().map(field).collect::<Result<Vec<_>>>()?)))
}

fn arrow_error(e: chwire_arrow::Error) -> Error {
    Error::Invalid(format!("Arrow conversion: {e}"))
}

/// Read partition `part` of `plan` with SELECT `sql` into `tx` as batches of `schema`; an error
/// is the channel's last item. Stops when the receiver is dropped; then, or at the end, the
/// query is settled (cancelled on the server if it still runs) and the connection closed.
pub async fn read_partition(
    plan: Plan,
    part: Part,
    sql: String,
    query_id: Option<String>,
    schema: SchemaRef,
    tx: mpsc::Sender<Result<RecordBatch>>,
) {
    let mut client = match plan.options.connect(Some(&part.url)).await {
        Ok(c) => c,
        Err(e) => {
            let _ = tx.send(Err(e)).await;
            return;
        }
    };
    let res = stream(&mut client, &plan, sql, query_id, &schema, &tx).await;
    let _ = client.settle().await;
    if let Err(e) = res {
        let _ = tx.send(Err(e)).await;
    }
}

async fn stream(
    client: &mut chwire::Client,
    plan: &Plan,
    sql: String,
    query_id: Option<String>,
    schema: &SchemaRef,
    tx: &mpsc::Sender<Result<RecordBatch>>,
) -> Result<()> {
    let mut q = client.query(sql);
    for (k, v) in plan.read_settings() {
        q = q.setting(k, v);
    }
    if let Some(id) = query_id {
        q = q.query_id(id);
    }
    let opts = ArrowOptions::rich();
    let mut s = q.stream().await?;
    let mut block_schema: Option<SchemaRef> = None;
    loop {
        let ev = tokio::select! {
            biased;
            _ = tx.closed() => return Ok(()),
            ev = s.next_event() => ev?,
        };
        let Some(ev) = ev else { return Ok(()) };
        let Event::Data(block) = ev else { continue };
        if block.rows() == 0 {
            continue;
        }
        let bs = match &block_schema {
            Some(s) => s.clone(),
            None => {
                let s = chwire_arrow::schema_of_block(&block, &opts).map_err(arrow_error)?;
                block_schema = Some(s.clone());
                s
            }
        };
        let batch = if schema.fields().is_empty() {
            // No column read (count()): the rows only.
            let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(block.rows()));
            RecordBatch::try_new_with_options(schema.clone(), vec![], &options).map_err(|e| Error::Invalid(e.to_string()))?
        } else {
            to_spark(&chwire_arrow::block_to_batch(block, &bs, &opts).map_err(arrow_error)?, schema)?
        };
        if tx.send(Ok(batch)).await.is_err() {
            return Ok(());
        }
    }
}
