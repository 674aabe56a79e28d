package chwire.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsRuntimeV2Filtering;
import org.apache.spark.sql.types.StructType;

/**
 * A planned read: one input partition per partition of the shared planner. Spark may add runtime
 * filters (dynamic partition pruning: the keys a join's other side holds, as an {@code IN} list)
 * before it plans the partitions; those the shared rules translate are added to every
 * partition's WHERE.
 */
class ChwireScan implements Scan, Batch, SupportsRuntimeV2Filtering {
    /**
     * Runtime conditions beyond this many characters are left out (Spark filters the rows
     * anyway; the whole query must stay within the server's max_query_size, 256 KiB by default).
     */
    static final int RUNTIME_SQL_LIMIT = 100_000;

    private final ReadPlan plan;
    private final StructType readSchema;
    private final List<String> wheres;
    private final long limit;
    private final String pushedText;
    /** The columns runtime filters may name, with their ClickHouse types (none: aggregated). */
    private final Map<String, String> filterable;
    private final List<String> runtime = new ArrayList<>();

    ChwireScan(ReadPlan plan, StructType readSchema, List<String> wheres, long limit, String pushedText,
            Map<String, String> filterable) {
        this.plan = plan;
        this.readSchema = readSchema;
        this.wheres = wheres;
        this.limit = limit;
        this.pushedText = pushedText;
        this.filterable = filterable;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return "chwire [columns: " + String.join(", ", plan.columnNames()) + "] [pushed: " + pushedText
                + " as " + wheres + "]" + (runtime.isEmpty() ? "" : " [runtime: " + runtime + "]")
                + plan.orderText() + (limit >= 0 ? " [limit: " + limit + "]" : "")
                + " [partitions: " + plan.partitions().size() + "]";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public NamedReference[] filterAttributes() {
        // Quoted: Expressions.column parses a dotted name (a Nested column's `n.x`) as a path.
        return filterable.keySet().stream()
                .map(name -> Expressions.column("`" + name.replace("`", "``") + "`"))
                .toArray(NamedReference[]::new);
    }

    @Override
    public void filter(Predicate[] predicates) {
        int size = 0;
        for (String w : runtime) {
            size += w.length();
        }
        for (Predicate p : predicates) {
            String sql = V2Filters.toSql(p, filterable);
            if (sql != null && size + sql.length() <= RUNTIME_SQL_LIMIT) {
                runtime.add(sql);
                size += sql.length();
            }
        }
    }

    /** The runtime conditions in force (tests). */
    List<String> runtimeFilters() {
        return new ArrayList<>(runtime);
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<String> parts = plan.partitions();
        List<String> all = new ArrayList<>(wheres);
        all.addAll(runtime);
        String allJson = Json.strings(all);
        InputPartition[] out = new InputPartition[parts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new ChwirePartition(i, parts.get(i), allJson);
        }
        return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ChwireReaderFactory(plan.json, limit, readSchema.json());
    }
}
