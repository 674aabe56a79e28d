package chwire.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("chwire")}: a DataSource V2 provider whose reads run in chwire's Rust
 * core (through JNI) and arrive as Arrow column batches. Options as the PySpark source's
 * (docs/SPARK.md), parsed by the same rules.
 */
public class ChwireSource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "chwire";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return ReadPlan.make(parse(options), null).schema();
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new ChwireTable(parse(properties), schema);
    }

    static String parse(Map<String, String> options) {
        return Native.options(Json.object(options));
    }
}
