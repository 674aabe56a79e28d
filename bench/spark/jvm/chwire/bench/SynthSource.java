package chwire.bench;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The read floor of bench/spark/bench.py --jvm: a DataSource V2 columnar source that does no IO.
 * Each partition builds one Arrow batch of W2's Spark types (number LONG, or DECIMAL(20, 0) with
 * {@code number=decimal}; s STRING; f DOUBLE; t TIMESTAMP) once, then hands it to Spark over and
 * over (fresh {@link ArrowColumnVector}s over its buffers each time), as the chwire connector
 * hands Spark its batches. What Spark costs any JVM columnar source for the same rows.
 *
 * <p>Options: {@code rows} (total), {@code parts} (partitions, default 3), {@code number}
 * ({@code long} or {@code decimal}), {@code batchRows} (default 65,536).
 */
public final class SynthSource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "chwire_bench_synth";
    }

    static StructType schemaOf(Map<String, String> options) {
        boolean decimal = "decimal".equals(options.getOrDefault("number", "long"));
        return new StructType()
                .add("number", decimal ? DataTypes.createDecimalType(20, 0) : DataTypes.LongType, false)
                .add("s", DataTypes.StringType, false)
                .add("f", DataTypes.DoubleType, false)
                .add("t", DataTypes.TimestampType, false);
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return schemaOf(options);
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        CaseInsensitiveStringMap o = new CaseInsensitiveStringMap(properties);
        return new SynthTable(schemaOf(o), Long.parseLong(o.get("rows")), Integer.parseInt(o.getOrDefault("parts", "3")),
                Integer.parseInt(o.getOrDefault("batchRows", "65536")));
    }

    static final class SynthTable implements SupportsRead, Scan, Batch, ScanBuilder {
        private final StructType schema;
        private final long rows;
        private final int parts;
        private final int batchRows;

        SynthTable(StructType schema, long rows, int parts, int batchRows) {
            this.schema = schema;
            this.rows = rows;
            this.parts = parts;
            this.batchRows = batchRows;
        }

        @Override
        public String name() {
            return "chwire_bench_synth";
        }

        @Override
        @SuppressWarnings("deprecation")
        public StructType schema() {
            return schema;
        }

        @Override
        public Set<TableCapability> capabilities() {
            return EnumSet.of(TableCapability.BATCH_READ);
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return this;
        }

        @Override
        public Scan build() {
            return this;
        }

        @Override
        public StructType readSchema() {
            return schema;
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            InputPartition[] out = new InputPartition[parts];
            for (int i = 0; i < parts; i++) {
                out[i] = new Part(rows / parts + (i < rows % parts ? 1 : 0));
            }
            return out;
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return new Factory(schema.json(), batchRows);
        }
    }

    static final class Part implements InputPartition {
        private static final long serialVersionUID = 1L;
        final long rows;

        Part(long rows) {
            this.rows = rows;
        }
    }

    static final class Factory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final String schemaJson;
        private final int batchRows;

        Factory(String schemaJson, int batchRows) {
            this.schemaJson = schemaJson;
            this.batchRows = batchRows;
        }

        @Override
        public boolean supportColumnarReads(InputPartition partition) {
            return true;
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            throw new UnsupportedOperationException("columnar only");
        }

        @Override
        public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
            return new Reader((StructType) StructType.fromJson(schemaJson), ((Part) partition).rows, batchRows);
        }
    }

    /** One ready-made batch, handed out until the partition's rows are given. */
    static final class Reader implements PartitionReader<ColumnarBatch> {
        private final BufferAllocator allocator;
        private final VectorSchemaRoot root;
        private ColumnarBatch batch;
        private final int batchRows;
        private long left;

        Reader(StructType schema, long rows, int batchRows) {
            this.batchRows = batchRows;
            this.left = rows;
            allocator = ArrowUtils.rootAllocator().newChildAllocator("chwire-bench-synth", 0, Long.MAX_VALUE);
            // The Arrow types of the chwire connector's batches (chwire-spark-core arrow.rs):
            // Int64 or Decimal128(20, 0), Utf8, Float64, Timestamp(µs, UTC).
            boolean decimal = schema.apply("number").dataType() instanceof DecimalType;
            Schema arrow = new Schema(List.of(
                    Field.notNullable("number", decimal ? new ArrowType.Decimal(20, 0, 128) : new ArrowType.Int(64, true)),
                    Field.notNullable("s", ArrowType.Utf8.INSTANCE),
                    Field.notNullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                    Field.notNullable("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))));
            root = VectorSchemaRoot.create(arrow, allocator);
            root.allocateNew();
            FieldVector number = root.getVector("number");
            VarCharVector s = (VarCharVector) root.getVector("s");
            Float8Vector f = (Float8Vector) root.getVector("f");
            TimeStampMicroTZVector t = (TimeStampMicroTZVector) root.getVector("t");
            for (int i = 0; i < batchRows; i++) {
                if (number instanceof BigIntVector) {
                    ((BigIntVector) number).setSafe(i, i);
                } else {
                    ((DecimalVector) number).setSafe(i, BigDecimal.valueOf(i));
                }
                s.setSafe(i, String.valueOf(i + 10_000_000).getBytes(StandardCharsets.UTF_8));
                f.setSafe(i, i);
                t.setSafe(i, i * 1_000_000L);
            }
            root.setRowCount(batchRows);
        }

        /**
         * A fresh batch per call, as the chwire connector's (Spark may close a batch it has
         * consumed): new vectors over the ready-made buffers (a slice of them, no copy).
         */
        @Override
        public boolean next() {
            releaseBatch();
            if (left <= 0) {
                return false;
            }
            int n = (int) Math.min(batchRows, left);
            List<FieldVector> vectors = root.getFieldVectors();
            ColumnVector[] columns = new ColumnVector[vectors.size()];
            for (int i = 0; i < columns.length; i++) {
                TransferPair slice = vectors.get(i).getTransferPair(allocator);
                slice.splitAndTransfer(0, n);
                columns[i] = new ArrowColumnVector((FieldVector) slice.getTo());
            }
            batch = new ColumnarBatch(columns, n);
            left -= n;
            return true;
        }

        private void releaseBatch() {
            if (batch != null) {
                batch.close();
                batch = null;
            }
        }

        @Override
        public ColumnarBatch get() {
            return batch;
        }

        @Override
        public void close() {
            releaseBatch();
            root.close();
            allocator.close();
        }
    }
}
