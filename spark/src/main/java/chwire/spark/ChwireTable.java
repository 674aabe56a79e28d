package chwire.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A ClickHouse table or query, as the options name it. */
class ChwireTable implements SupportsRead, SupportsWrite {
    private final String optionsJson;
    private final StructType schema;

    ChwireTable(String optionsJson, StructType schema) {
        this.optionsJson = optionsJson;
        this.schema = schema;
    }

    @Override
    public String name() {
        com.fasterxml.jackson.databind.JsonNode o = Json.parse(optionsJson);
        return "chwire:" + (o.get("table").isNull() ? "query" : o.get("table").asText());
    }

    @Override
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new ChwireScanBuilder(optionsJson, schema);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new WriteBuilder() {
            @Override
            public org.apache.spark.sql.connector.write.Write build() {
                return new ChwireWrite(optionsJson, info.schema());
            }
        };
    }
}
