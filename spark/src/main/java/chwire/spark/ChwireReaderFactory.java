package chwire.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Columnar readers only: every partition arrives as Arrow column batches. */
final class ChwireReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final String planJson;
    private final long limit;
    private final String readSchemaJson;

    /** The pushed conditions travel with each partition (runtime filters come after this). */
    ChwireReaderFactory(String planJson, long limit, String readSchemaJson) {
        this.planJson = planJson;
        this.limit = limit;
        this.readSchemaJson = readSchemaJson;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        throw new UnsupportedOperationException("chwire reads columnar batches only");
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        ChwirePartition p = (ChwirePartition) partition;
        return new ColumnarReader(planJson, p, limit, readSchemaJson);
    }
}
