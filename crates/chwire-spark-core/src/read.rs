//! Reading one partition, for both front ends: the partition's query on its server, each block
//! converted to Spark's Arrow batch (the core's Arrow stream in the rich mapping, DateTime
//! without a zone in the server's, then [`to_spark`]: Spark's
//! types, checked, offset 0) and sent through a channel the front end drains (one batch
//! ahead: memory bounded by a block or two). The JVM connector exports each batch through the
//! C Data Interface, the PySpark source through an Arrow C stream.

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
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
    // The core's Arrow stream: DateTime without a zone in the server's, as in every front end.
    let mut s = q.fetch_arrow(ArrowOptions::rich()).await?;
    loop {
        let batch = tokio::select! {
            biased;
            _ = tx.closed() => return Ok(()),
            b = s.next_batch() => b?,
        };
        let Some(batch) = batch else { return Ok(()) };
        if batch.num_rows() == 0 {
            continue;
        }
        let batch = if schema.fields().is_empty() {
            // No column read (count()): the rows only.
            let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            RecordBatch::try_new_with_options(schema.clone(), vec![], &options).map_err(|e| Error::Invalid(e.to_string()))?
        } else {
            to_spark(&batch, schema)?
        };
        if tx.send(Ok(batch)).await.is_err() {
            return Ok(());
        }
    }
}
