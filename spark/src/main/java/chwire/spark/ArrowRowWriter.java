package chwire.spark;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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
        arrowSchema = toArrowSchema(schema);
        newBatch();
        handle = Native.openWriter(jobJson, tag);
    }

    /**
     * {@code ArrowUtils.toArrowSchema} of the Spark in use, found once: Spark 4.0 has only
     * {@code (schema, timeZoneId, errorOnDuplicatedFieldNames, largeVarTypes)}, 4.3 has
     * {@code (schema, timeZoneId, errorOnDuplicatedFieldNames)} and a form of five, without the
     * four (a direct call compiled against one Spark is a NoSuchMethodError on the other).
     */
    private static final MethodHandle TO_ARROW_SCHEMA = toArrowSchemaHandle();

    private static MethodHandle toArrowSchemaHandle() {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> out = org.apache.arrow.vector.types.pojo.Schema.class;
        try {
            MethodHandle four = lookup.findStatic(ArrowUtils.class, "toArrowSchema",
                    MethodType.methodType(out, StructType.class, String.class, boolean.class, boolean.class));
            // largeVarTypes false: Spark's ArrowWriter writes strings and binaries as Utf8/Binary.
            return MethodHandles.insertArguments(four, 3, false);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            try {
                return lookup.findStatic(ArrowUtils.class, "toArrowSchema",
                        MethodType.methodType(out, StructType.class, String.class, boolean.class));
            } catch (NoSuchMethodException | IllegalAccessException e2) {
                throw new ChwireException("this Spark's ArrowUtils has no toArrowSchema chwire knows: " + e2);
            }
        }
    }

    /** Spark's Arrow schema of {@code schema} (timestamps in UTC, duplicated names refused). */
    static org.apache.arrow.vector.types.pojo.Schema toArrowSchema(StructType schema) {
        try {
            return (org.apache.arrow.vector.types.pojo.Schema) TO_ARROW_SCHEMA.invoke(schema, "UTC", true);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new ChwireException("ArrowUtils.toArrowSchema failed: " + e);
        }
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
