package chwire.spark;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;

/**
 * A task attempt's rows into Arrow vectors (Spark's own {@link ArrowWriter}), exported every
 * {@code blockRows} rows through the C Data Interface to chwire, which inserts them into the
 * attempt's staging table as Native blocks.
 */
final class ArrowRowWriter implements DataWriter<InternalRow> {
    private final BufferAllocator allocator;
    private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
    private VectorSchemaRoot root;
    private ArrowWriter writer;
    private final long blockRows;
    private long handle;
    private long pending;

    ArrowRowWriter(String jobJson, String tag, StructType schema, long blockRows) {
        this.blockRows = blockRows;
        allocator = ColumnarReader.ALLOCATOR.newChildAllocator("chwire-write-" + tag, 0, Long.MAX_VALUE);
        arrowSchema = ArrowUtils.toArrowSchema(schema, "UTC", true);
        newBatch();
        handle = Native.openWriter(jobJson, tag);
    }

    @Override
    public void write(InternalRow row) {
        writer.write(row);
        if (++pending >= blockRows) {
            flush();
        }
    }

    /**
     * Fresh vectors for the next batch: an exported batch's buffers belong to chwire until it has
     * inserted them (its release gives them back), so they are never reused.
     */
    private void newBatch() {
        root = VectorSchemaRoot.create(arrowSchema, allocator);
        writer = ArrowWriter.create(root);
    }

    private void flush() {
        if (pending == 0) {
            return;
        }
        writer.finish();
        try (ArrowArray array = ArrowArray.allocateNew(allocator);
                ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
            Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
            Native.writeBatch(handle, array.memoryAddress(), schema.memoryAddress());
        }
        root.close();
        newBatch();
        pending = 0;
    }

    @Override
    public WriterCommitMessage commit() {
        flush();
        return ChwireWrite.staged(Native.commitWriter(handle));
    }

    @Override
    public void abort() {
        long h = handle;
        handle = 0;
        Native.closeWriter(h, true);
    }

    @Override
    public void close() {
        try {
            if (handle != 0) {
                Native.closeWriter(handle, false);
                handle = 0;
            }
        } finally {
            root.close();
            allocator.close();
        }
    }
}
