package chwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * A read's plan as the shared rules made it (crates/chwire-spark-core plan.rs): the columns with
 * their Spark fields, and one partition per (URL, FROM, WHERE). Serializable: its JSON goes to
 * the executors.
 */
final class ReadPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    final String json;
    private transient JsonNode node;

    private ReadPlan(String json) {
        this.json = json;
    }

    /** A plan made elsewhere (an aggregation's). */
    static ReadPlan of(String json) {
        return new ReadPlan(json);
    }

    /** Plan a read of the parsed options; {@code wanted} null reads every column. */
    static ReadPlan make(String optionsJson, List<String> wanted) {
        return new ReadPlan(Native.plan(optionsJson, wanted == null ? null : Json.strings(wanted)));
    }

    private JsonNode node() {
        if (node == null) {
            node = Json.parse(json);
        }
        return node;
    }

    /** Spark's schema of the planned columns. */
    StructType schema() {
        ArrayNode fields = Json.MAPPER.createArrayNode();
        for (JsonNode c : node().get("columns")) {
            fields.add(c.get("field"));
        }
        return (StructType) DataType.fromJson("{\"type\":\"struct\",\"fields\":" + Json.write(fields) + "}");
    }

    /** The partitions, each as its JSON. */
    List<String> partitions() {
        List<String> out = new ArrayList<>();
        for (JsonNode p : node().get("partitions")) {
            out.add(Json.write(p));
        }
        return out;
    }

    /** The shard of each partition (null for a partition of a plain table or query). */
    List<String> shards() {
        List<String> out = new ArrayList<>();
        for (JsonNode p : node().get("partitions")) {
            out.add(p.has("shard") ? p.get("shard").asText() : null);
        }
        return out;
    }

    /**
     * The ClickHouse type of each column Spark reads as it was planned (no conversion on the
     * server, the planned Spark type): the columns filters may be pushed on.
     */
    Map<String, String> pushable(StructType readSchema) {
        StructType planned = schema();
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode c : node().get("columns")) {
            String name = c.get("name").asText();
            boolean same = i < readSchema.fields().length && readSchema.fields()[i].name().equals(name)
                    && readSchema.fields()[i].dataType().equals(planned.fields()[i].dataType());
            if (!c.get("converted").asBoolean() && same) {
                out.put(name, c.get("ch_type").asText());
            }
            i++;
        }
        return out;
    }

    /** The ORDER BY of a pushed top-N, for the scan's description ("" without one). */
    String orderText() {
        JsonNode o = node().get("order_by");
        return o == null || o.isNull() ? "" : " [order by: " + o.asText() + "]";
    }

    List<String> columnNames() {
        List<String> out = new ArrayList<>();
        for (JsonNode c : node().get("columns")) {
            out.add(c.get("name").asText());
        }
        return out;
    }
}
