package chwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * An append or an overwrite through the shared staged write protocol (crates/chwire-spark-core
 * write.rs, the PySpark source's too): each task attempt inserts into its own staging table, the
 * driver's commit moves the staged tables into the target (an overwrite: into a copy of the
 * target, swapped in by one RENAME), its abort drops them. A failed, killed or retried task
 * never adds rows to the target (docs/SPARK.md, "Writes and their guarantee").
 */
final class ChwireWrite implements Write, BatchWrite {
    private final String optionsJson;
    private final StructType schema;
    private final boolean overwrite;
    private String jobJson;

    ChwireWrite(String optionsJson, StructType schema, boolean overwrite) {
        this.optionsJson = optionsJson;
        this.schema = schema;
        this.overwrite = overwrite;
    }

    @Override
    public String description() {
        return overwrite ? "chwire staged overwrite" : "chwire staged append";
    }

    @Override
    public BatchWrite toBatch() {
        jobJson = Native.prepareWrite(optionsJson, schema.json(), overwrite);
        return this;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        long blockRows = Json.parse(optionsJson).get("block_rows").asLong();
        return new Factory(jobJson, schema, blockRows);
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        List<String> stages = new ArrayList<>();
        for (WriterCommitMessage m : messages) {
            if (m instanceof Staged) {
                stages.add(((Staged) m).stage);
            }
        }
        Native.commitJob(jobJson, Json.strings(stages));
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        Native.abortJob(jobJson);
    }

    /** A task attempt's staging table and its rows. */
    static final class Staged implements WriterCommitMessage {
        private static final long serialVersionUID = 1L;
        final String stage;
        final long rows;

        Staged(String stage, long rows) {
            this.stage = stage;
            this.rows = rows;
        }
    }

    static final class Factory implements DataWriterFactory, Serializable {
        private static final long serialVersionUID = 1L;
        private final String jobJson;
        private final StructType schema;
        private final long blockRows;

        Factory(String jobJson, StructType schema, long blockRows) {
            this.jobJson = jobJson;
            this.schema = schema;
            this.blockRows = blockRows;
        }

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
            org.apache.spark.TaskContext ctx = org.apache.spark.TaskContext.get();
            int attempt = ctx == null ? 0 : ctx.attemptNumber();
            return new ArrowRowWriter(jobJson, partitionId + "_" + attempt + "_" + taskId, schema, blockRows);
        }
    }

    static Staged staged(String messageJson) {
        JsonNode m = Json.parse(messageJson);
        return new Staged(m.get("stage").asText(), m.get("rows").asLong());
    }
}
