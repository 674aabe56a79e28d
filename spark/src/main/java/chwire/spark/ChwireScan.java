package chwire.spark;

import java.util.List;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/** A planned read: one input partition per partition of the shared planner. */
class ChwireScan implements Scan, Batch {
    private final ReadPlan plan;
    private final StructType readSchema;
    private final List<String> wheres;
    private final long limit;
    private final String pushedText;

    ChwireScan(ReadPlan plan, StructType readSchema, List<String> wheres, long limit, String pushedText) {
        this.plan = plan;
        this.readSchema = readSchema;
        this.wheres = wheres;
        this.limit = limit;
        this.pushedText = pushedText;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return "chwire [columns: " + String.join(", ", plan.columnNames()) + "] [pushed: " + pushedText
                + " as " + wheres + "]" + (limit >= 0 ? " [limit: " + limit + "]" : "")
                + " [partitions: " + plan.partitions().size() + "]";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<String> parts = plan.partitions();
        InputPartition[] out = new InputPartition[parts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new ChwirePartition(i, parts.get(i));
        }
        return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ChwireReaderFactory(plan.json, Json.strings(wheres), limit, readSchema.json());
    }
}
