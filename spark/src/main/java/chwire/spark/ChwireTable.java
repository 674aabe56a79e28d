package chwire.spark;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
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
    /** A catalog's table: its name, and the catalog's options a read's or write's own options add to. */
    private final String catalogName;
    private final Map<String, String> catalogOptions;
    /** A catalog's table: its engine and keys, as the properties CREATE TABLE takes. */
    private final Map<String, String> properties;

    ChwireTable(String optionsJson, StructType schema) {
        this(optionsJson, schema, null, null, Map.of());
    }

    ChwireTable(String optionsJson, StructType schema, String catalogName, Map<String, String> catalogOptions,
            Map<String, String> properties) {
        this.optionsJson = optionsJson;
        this.schema = schema;
        this.catalogName = catalogName;
        this.catalogOptions = catalogOptions;
        this.properties = properties;
    }

    @Override
    public Map<String, String> properties() {
        return properties;
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
        return new ChwireScanBuilder(withOptions(options), schema);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new Builder(withOptions(info.options()), info.schema());
    }

    /** Options naming another table or a query: a catalog's table is the one its name says. */
    private static final List<String> OWN = Arrays.asList("table", "dbtable", "query");

    /**
     * The options of one read or write: a catalog's table takes options of its own
     * (numPartitions, settings, blockRows...) over the catalog's; one that names another table,
     * a query or another server is refused (it would read or write other rows under this
     * table's name).
     */
    private String withOptions(CaseInsensitiveStringMap options) {
        if (catalogOptions == null || options.isEmpty()) {
            return optionsJson;
        }
        Map<String, String> merged = new HashMap<>(catalogOptions);
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey().toLowerCase(java.util.Locale.ROOT);
            if (OWN.contains(key)) {
                throw new ChwireException("option '" + e.getKey() + "' names what to read or write, which a catalog's table "
                        + catalogName + " already says: drop the option, or use format(\"chwire\") for another table or a query");
            }
            if (key.equals("url") && !e.getValue().equals(catalogOptions.get("url"))) {
                // The catalog's table is on the catalog's server: another URL would read or
                // write a table of the same name elsewhere.
                throw new ChwireException("option 'url' differs from catalog " + catalogName.split("\\.")[0]
                        + "'s: a catalog's table is on the catalog's server (use format(\"chwire\") for another)");
            }
            merged.put(key, e.getValue());
        }
        return ChwireSource.parse(merged);
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
