package chwire.spark;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A ClickHouse table or query, as the options name it. */
class ChwireTable implements SupportsRead, SupportsWrite {
    private final String optionsJson;
    private final StructType schema;
    /** A catalog's table: its name, and the catalog's options a read's own options add to. */
    private final String catalogName;
    private final Map<String, String> catalogOptions;

    ChwireTable(String optionsJson, StructType schema) {
        this(optionsJson, schema, null, null);
    }

    ChwireTable(String optionsJson, StructType schema, String catalogName, Map<String, String> catalogOptions) {
        this.optionsJson = optionsJson;
        this.schema = schema;
        this.catalogName = catalogName;
        this.catalogOptions = catalogOptions;
    }

    @Override
    public String name() {
        if (catalogName != null) {
            return catalogName;
        }
        com.fasterxml.jackson.databind.JsonNode o = Json.parse(optionsJson);
        return "chwire:" + (o.get("table").isNull() ? "query" : o.get("table").asText());
    }

    @Override
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        if (catalogOptions != null && !options.isEmpty()) {
            // A read of a catalog's table with options of its own (numPartitions, settings...).
            Map<String, String> merged = new HashMap<>(catalogOptions);
            options.forEach((k, v) -> merged.put(k.toLowerCase(java.util.Locale.ROOT), v));
            return new ChwireScanBuilder(ChwireSource.parse(merged), schema);
        }
        return new ChwireScanBuilder(optionsJson, schema);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new Builder(optionsJson, info.schema());
    }

    /** An append, or with {@code truncate()} (Spark's overwrite) a replacement of the rows. */
    private static final class Builder implements SupportsTruncate {
        private final String optionsJson;
        private final StructType schema;
        private boolean overwrite;

        Builder(String optionsJson, StructType schema) {
            this.optionsJson = optionsJson;
            this.schema = schema;
        }

        @Override
        public WriteBuilder truncate() {
            overwrite = true;
            return this;
        }

        @Override
        public Write build() {
            return new ChwireWrite(optionsJson, schema, overwrite);
        }
    }
}
