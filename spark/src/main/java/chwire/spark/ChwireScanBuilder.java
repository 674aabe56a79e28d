package chwire.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * Pushdown: only the columns Spark uses are read, the predicates the shared rules translate run
 * in ClickHouse (the others stay with Spark), and a limit caps each partition's query.
 */
class ChwireScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters,
        SupportsPushDownLimit {
    private final String optionsJson;
    private final StructType tableSchema;
    private StructType required;
    private final List<Predicate> pushed = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private long limit = -1;

    ChwireScanBuilder(String optionsJson, StructType tableSchema) {
        this.optionsJson = optionsJson;
        this.tableSchema = tableSchema;
        this.required = tableSchema;
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        // The ClickHouse types of the columns as Spark sees them (a user's schema may differ).
        Map<String, String> types = ReadPlan.make(optionsJson, Arrays.asList(tableSchema.fieldNames()))
                .pushable(tableSchema);
        List<Predicate> kept = new ArrayList<>();
        for (Predicate p : predicates) {
            String sql = V2Filters.toSql(p, types);
            if (sql == null) {
                kept.add(p);
            } else {
                pushed.add(p);
                wheres.add(sql);
            }
        }
        return kept.toArray(new Predicate[0]);
    }

    @Override
    public Predicate[] pushedPredicates() {
        return pushed.toArray(new Predicate[0]);
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    @Override
    public boolean pushLimit(int n) {
        this.limit = n;
        return true;
    }

    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    @Override
    public Scan build() {
        ReadPlan plan = ReadPlan.make(optionsJson, Arrays.asList(required.fieldNames()));
        return new ChwireScan(plan, required, new ArrayList<>(wheres), limit, pushed.toString());
    }
}
