package chwire.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;

/**
 * Pushdown: only the columns Spark uses are read, the predicates the shared rules translate run
 * in ClickHouse (the others stay with Spark), aggregations the rules can write run whole in
 * ClickHouse, and a limit or top-N caps each partition's query (Spark keeps its own over the
 * partitions). Which aggregates and sort keys, and how, is decided by chwire-spark-core
 * (aggregate.rs, plan.rs), not here.
 */
class ChwireScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters,
        SupportsPushDownLimit, SupportsPushDownTopN, SupportsPushDownAggregates {
    private final String optionsJson;
    private final StructType tableSchema;
    private StructType required;
    private final List<Predicate> pushed = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private long limit = -1;
    private ReadPlan base;
    private ReadPlan aggregated;
    private String aggregatedText;
    private List<ObjectNode> sortKeys;
    private Map<String, String> pushableTypes;
    /** What the last supportCompletePushDown answered (Spark asks it before pushAggregation). */
    private boolean complete = true;
    /** An AVG the rules refused that Spark's SUM/COUNT rewrite would change: the aggregation stays. */
    private boolean keepAggregation;

    ChwireScanBuilder(String optionsJson, StructType tableSchema) {
        this.optionsJson = optionsJson;
        this.tableSchema = tableSchema;
        this.required = tableSchema;
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        // The ClickHouse types of the columns as Spark sees them (a user's schema may differ).
        Map<String, String> types = pushable();
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

    /** The plan of every column of the table (planned once per builder). */
    private ReadPlan base() {
        if (base == null) {
            base = ReadPlan.make(optionsJson, Arrays.asList(tableSchema.fieldNames()));
        }
        return base;
    }

    private Map<String, String> pushable() {
        if (pushableTypes == null) {
            pushableTypes = base().pushable(tableSchema);
        }
        return pushableTypes;
    }

    /** The aggregation's plan from the shared rules, or null when it stays with Spark. */
    private String aggregatePlan(Aggregation aggregation) {
        ArrayNode[] d = describe(aggregation);
        if (d == null) {
            return null;
        }
        return Native.aggregatePlan(base().json, Json.write(d[0]), Json.write(d[1]), Json.object(pushable()));
    }

    /**
     * Complete: the rules compute every aggregate as Spark would. An AVG they leave of a
     * decimal (or of a UInt64 read as DecimalType(20, 0)) is then rewritten by Spark into SUM and
     * COUNT, which are pushed, and Spark divides with its own rounding over the (already
     * aggregated) rows; any other AVG they leave keeps the aggregation with Spark.
     */
    @Override
    public boolean supportCompletePushDown(Aggregation aggregation) {
        if (keepAggregation) {
            return false;
        }
        complete = aggregatePlan(aggregation) != null;
        if (!complete) {
            // Spark asks again with each refused AVG rewritten into SUM and COUNT. That is its own
            // decimal AVG (same sum type, same division), but not an integer's (Spark sums that in
            // double, the rewrite in a long, which can overflow) nor a long read from a UInt64:
            // then the whole aggregation stays with Spark.
            for (AggregateFunc f : aggregation.aggregateExpressions()) {
                if (f instanceof Avg && !(avgType((Avg) f) instanceof DecimalType)) {
                    keepAggregation = true;
                }
            }
        }
        return complete;
    }

    /** The Spark type of an AVG's column, or null when it is no column of the table. */
    private DataType avgType(Avg avg) {
        String col = column(avg.column());
        if (col == null || !Arrays.asList(tableSchema.fieldNames()).contains(col)) {
            return null;
        }
        return tableSchema.apply(col).dataType();
    }

    @Override
    public boolean pushAggregation(Aggregation aggregation) {
        if (keepAggregation) {
            return false;
        }
        if (!complete) {
            // Spark merges a partial aggregation's rows itself: never with DISTINCT, which it
            // would merge as if each row were one partition's.
            for (AggregateFunc f : aggregation.aggregateExpressions()) {
                if ((f instanceof Count && ((Count) f).isDistinct()) || (f instanceof Sum && ((Sum) f).isDistinct())
                        || (f instanceof Avg && ((Avg) f).isDistinct())) {
                    return false;
                }
            }
        }
        String plan = aggregatePlan(aggregation);
        if (plan == null) {
            return false;
        }
        aggregated = ReadPlan.of(plan);
        aggregatedText = Arrays.toString(aggregation.aggregateExpressions()) + " GROUP BY "
                + Arrays.toString(aggregation.groupByExpressions());
        return true;
    }

    /** Spark's aggregation in the shared rules' JSON (GROUP BY columns, aggregates), or null. */
    private ArrayNode[] describe(Aggregation aggregation) {
        ArrayNode groups = Json.MAPPER.createArrayNode();
        for (Expression g : aggregation.groupByExpressions()) {
            String col = column(g);
            if (col == null) {
                return null;
            }
            groups.add(col);
        }
        ArrayNode aggs = Json.MAPPER.createArrayNode();
        for (AggregateFunc f : aggregation.aggregateExpressions()) {
            ObjectNode a = aggs.addObject();
            if (f instanceof CountStar) {
                a.put("fn", "count_star");
            } else if (f instanceof Count && column(((Count) f).column()) != null) {
                a.put("fn", "count").put("col", column(((Count) f).column())).put("distinct", ((Count) f).isDistinct());
            } else if (f instanceof Sum && column(((Sum) f).column()) != null) {
                a.put("fn", "sum").put("col", column(((Sum) f).column())).put("distinct", ((Sum) f).isDistinct());
            } else if (f instanceof Avg && column(((Avg) f).column()) != null) {
                a.put("fn", "avg").put("col", column(((Avg) f).column())).put("distinct", ((Avg) f).isDistinct());
            } else if (f instanceof Min && column(((Min) f).column()) != null) {
                a.put("fn", "min").put("col", column(((Min) f).column()));
            } else if (f instanceof Max && column(((Max) f).column()) != null) {
                a.put("fn", "max").put("col", column(((Max) f).column()));
            } else {
                return null;
            }
        }
        return new ArrayNode[] {groups, aggs};
    }

    private static String column(Expression e) {
        if (e instanceof NamedReference && ((NamedReference) e).fieldNames().length == 1) {
            return ((NamedReference) e).fieldNames()[0];
        }
        return null;
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

    /**
     * {@code ORDER BY … LIMIT n} in each partition's query, when the shared rules order every
     * key as Spark does (plan.rs {@code order_by}); Spark sorts the partitions' rows again.
     */
    @Override
    public boolean pushTopN(SortOrder[] orders, int n) {
        if (aggregated != null) {
            return false; // Spark 4.3 does not offer one over a pushed aggregation
        }
        List<ObjectNode> keys = new ArrayList<>();
        for (SortOrder o : orders) {
            String col = column(o.expression());
            if (col == null) {
                return false;
            }
            ObjectNode k = Json.MAPPER.createObjectNode();
            k.put("col", col);
            k.put("descending", o.direction() == SortDirection.DESCENDING);
            k.put("nulls_first", o.nullOrdering() == NullOrdering.NULLS_FIRST);
            keys.add(k);
        }
        ArrayNode list = Json.MAPPER.createArrayNode();
        keys.forEach(list::add);
        if (Native.topNPlan(base().json, Json.write(list), Json.object(pushable())) == null) {
            return false;
        }
        sortKeys = keys;
        limit = n;
        return true;
    }

    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    /** {@code plan} with the pushed top-N's ORDER BY, if there is one. */
    private ReadPlan ordered(ReadPlan plan) {
        if (sortKeys == null) {
            return plan;
        }
        ArrayNode list = Json.MAPPER.createArrayNode();
        sortKeys.forEach(list::add);
        String out = Native.topNPlan(plan.json, Json.write(list), Json.object(pushable()));
        if (out == null) {
            throw new ChwireException("chwire: the pushed sort " + list + " no longer applies to "
                    + plan.columnNames());
        }
        return ReadPlan.of(out);
    }

    @Override
    public Scan build() {
        if (aggregated != null) {
            // The description shows the aggregation's own SQL (its one partition's query).
            ReadPlan plan = aggregated;
            String sql = Native.partitionSql(plan.json, plan.partitions().get(0), Json.strings(wheres), limit);
            return new ChwireScan(plan, aggregated.schema(), new ArrayList<>(wheres), limit,
                    pushed.toString() + " [aggregate: " + aggregatedText + " as " + sql + "]", Collections.emptyMap());
        }
        ReadPlan plan = ordered(ReadPlan.make(optionsJson, Arrays.asList(required.fieldNames())));
        return new ChwireScan(plan, required, new ArrayList<>(wheres), limit, pushed.toString(),
                plan.pushable(required));
    }
}
