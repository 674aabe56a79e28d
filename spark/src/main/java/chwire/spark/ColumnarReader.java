package chwire.spark;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * One partition's batches: chwire's native reader exports each batch through the C Data
 * Interface into structs allocated here, and it is imported as Arrow vectors (the buffers stay
 * where chwire decoded them; their release frees them on the native side). A fresh batch per
 * {@link #next()}, the previous one closed; the task's allocator is closed at the end and must
 * then hold nothing (a leak fails the task).
 */
final class ColumnarReader implements PartitionReader<ColumnarBatch> {
    /** Parent of every reader's allocator: what chwire's reads hold in this JVM. */
    static final BufferAllocator ALLOCATOR = ArrowUtils.rootAllocator().newChildAllocator("chwire", 0, Long.MAX_VALUE);
    private static final AtomicInteger OPEN = new AtomicInteger();
    private static final int WAIT_MILLIS = 100;

    private final BufferAllocator allocator;
    private long handle;
    private VectorSchemaRoot root;
    private ColumnarBatch batch;
    private boolean closed;

    ColumnarReader(String planJson, ChwirePartition part, long limit, String readSchemaJson) {
        allocator = ALLOCATOR.newChildAllocator("chwire-partition-" + part.index, 0, Long.MAX_VALUE);
        OPEN.incrementAndGet();
        try {
            handle = Native.openReader(planJson, part.json, part.wheresJson, limit, readSchemaJson);
        } catch (RuntimeException | Error e) {
            allocator.close();
            OPEN.decrementAndGet();
            throw e;
        }
    }

    /** Readers open in this JVM (tests: 0 after every read, whatever way it ended). */
    public static int openReaders() {
        return OPEN.get();
    }

    /** Bytes held by chwire's readers in this JVM (tests: 0 after every read). */
    public static long allocatedBytes() {
        return ALLOCATOR.getAllocatedMemory();
    }

    @Override
    public boolean next() {
        releaseBatch();
        TaskContext ctx = TaskContext.get();
        // The C structs of one batch: filled by the native side, emptied by the import (which
        // takes over the release of the buffers); closing them frees the structs themselves.
        try (ArrowArray array = ArrowArray.allocateNew(allocator);
                ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
            while (true) {
                int got = Native.next(handle, array.memoryAddress(), schema.memoryAddress(), WAIT_MILLIS);
                if (got == 0) {
                    return false;
                }
                if (got == 1) {
                    break;
                }
                // Nothing yet: a killed or cancelled task stops here (close() cancels the query).
                if (ctx != null) {
                    ctx.killTaskIfInterrupted();
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new ChwireException("the read was interrupted");
                }
            }
            root = Data.importVectorSchemaRoot(allocator, array, schema, null);
        }
        List<FieldVector> vectors = root.getFieldVectors();
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = new ArrowColumnVector(vectors.get(i));
        }
        batch = new ColumnarBatch(columns, root.getRowCount());
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    private void releaseBatch() {
        if (batch != null) {
            batch.close();
            batch = null;
        }
        if (root != null) {
            root.close();
            root = null;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            releaseBatch();
            Native.closeReader(handle);
            handle = 0;
        } finally {
            OPEN.decrementAndGet();
            // Throws when anything of this reader is still allocated: a leak fails the task.
            allocator.close();
        }
    }
}
