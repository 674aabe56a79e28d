package chwire.bench;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The write floor of bench/spark/bench.py --jvm: a DataSource V2 writer that fills Arrow vectors
 * from Spark's rows with Spark's own {@link ArrowWriter} in batches of {@code blockRows} rows
 * (default 1,048,576, the chwire connector's), as the chwire connector's writer does, and then
 * drops each batch instead of sending it anywhere. What Spark costs any JVM writer that takes
 * its rows as Arrow batches (Spark's {@code noop} sink, measured beside it, builds no batches).
 */
public final class DiscardSink implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "chwire_bench_discard";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return new StructType();
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        long blockRows = Long.parseLong(new CaseInsensitiveStringMap(properties).getOrDefault("blockRows", "1048576"));
        return new DiscardTable(schema, blockRows);
    }

    static final class DiscardTable implements SupportsWrite {
        private final StructType schema;
        private final long blockRows;

        DiscardTable(StructType schema, long blockRows) {
            this.schema = schema;
            this.blockRows = blockRows;
        }

        @Override
        public String name() {
            return "chwire_bench_discard";
        }

        @Override
        @SuppressWarnings("deprecation")
        public StructType schema() {
            return schema;
        }

        @Override
        public Set<TableCapability> capabilities() {
            return EnumSet.of(TableCapability.BATCH_WRITE);
        }

        @Override
        public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
            StructType written = info.schema();
            return new WriteBuilder() {
                @Override
                public Write build() {
                    return new DiscardWrite(written.json(), blockRows);
                }
            };
        }
    }

    static final class Done implements WriterCommitMessage {
        private static final long serialVersionUID = 1L;
    }

    static final class DiscardWrite implements Write, BatchWrite {
        private final String schemaJson;
        private final long blockRows;

        DiscardWrite(String schemaJson, long blockRows) {
            this.schemaJson = schemaJson;
            this.blockRows = blockRows;
        }

        @Override
        public BatchWrite toBatch() {
            return this;
        }

        @Override
        public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
            String json = schemaJson;
            long rows = blockRows;
            return (DataWriterFactory) (partitionId, taskId) -> new Writer((StructType) StructType.fromJson(json), rows);
        }

        @Override
        public void commit(WriterCommitMessage[] messages) {}

        @Override
        public void abort(WriterCommitMessage[] messages) {}
    }

    /** Rows into Arrow vectors, every blockRows a batch finished and dropped. */
    static final class Writer implements DataWriter<InternalRow> {
        private final BufferAllocator allocator;
        private final Schema arrowSchema;
        private final long blockRows;
        private VectorSchemaRoot root;
        private ArrowWriter writer;
        private long pending;

        Writer(StructType schema, long blockRows) {
            this.blockRows = blockRows;
            allocator = ArrowUtils.rootAllocator().newChildAllocator("chwire-bench-discard", 0, Long.MAX_VALUE);
            arrowSchema = ArrowUtils.toArrowSchema(schema, "UTC", true);
            newBatch();
        }

        /** Fresh vectors per batch, as the chwire writer's (whose exported buffers it cannot reuse). */
        private void newBatch() {
            root = VectorSchemaRoot.create(arrowSchema, allocator);
            writer = ArrowWriter.create(root);
        }

        @Override
        public void write(InternalRow row) {
            writer.write(row);
            if (++pending >= blockRows) {
                drop();
            }
        }

        private void drop() {
            if (pending == 0) {
                return;
            }
            writer.finish();
            root.close();
            newBatch();
            pending = 0;
        }

        @Override
        public WriterCommitMessage commit() {
            drop();
            return new Done();
        }

        @Override
        public void abort() {}

        @Override
        public void close() {
            root.close();
            allocator.close();
        }
    }
}
