package chwire.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
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
        SupportsPushDownLimit, SupportsPushDownAggregates {
    private final String optionsJson;
    private final StructType tableSchema;
    private StructType required;
    private final List<Predicate> pushed = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private long limit = -1;
    private ReadPlan aggregated;
    private StructType aggregatedSchema;
    private String aggregatedText;
    private Map<String, String> pushableTypes;

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

    private Map<String, String> pushable() {
        if (pushableTypes == null) {
            pushableTypes = ReadPlan.make(optionsJson, Arrays.asList(tableSchema.fieldNames())).pushable(tableSchema);
        }
        return pushableTypes;
    }

    @Override
    public boolean supportCompletePushDown(Aggregation aggregation) {
        return describe(aggregation) != null;
    }

    @Override
    public boolean pushAggregation(Aggregation aggregation) {
        ArrayNode[] d = describe(aggregation);
        if (d == null) {
            return false;
        }
        ReadPlan base = ReadPlan.make(optionsJson, Arrays.asList(tableSchema.fieldNames()));
        String plan = Native.aggregatePlan(base.json, Json.write(d[0]), Json.write(d[1]), Json.object(pushable()));
        if (plan == null) {
            return false;
        }
        // The result's schema: the GROUP BY columns as Spark reads them, then each aggregate's
        // type as Spark defines it (COUNT: long; SUM of an integer: long; MIN/MAX: the column's).
        StructType out = new StructType();
        int i = 0;
        for (Expression g : aggregation.groupByExpressions()) {
            String col = ((NamedReference) g).fieldNames()[0];
            out = out.add("_chwire_agg_" + i++, tableSchema.apply(col).dataType(), true);
        }
        for (AggregateFunc f : aggregation.aggregateExpressions()) {
            DataType t;
            if (f instanceof CountStar || f instanceof Count || f instanceof Sum) {
                t = DataTypes.LongType;
            } else {
                Expression e = f instanceof Min ? ((Min) f).column() : ((Max) f).column();
                t = tableSchema.apply(((NamedReference) e).fieldNames()[0]).dataType();
            }
            out = out.add("_chwire_agg_" + i++, t, true);
        }
        aggregated = ReadPlan.of(plan);
        aggregatedSchema = out;
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
            } else if (f instanceof Count && !((Count) f).isDistinct() && column(((Count) f).column()) != null) {
                a.put("fn", "count").put("col", column(((Count) f).column()));
            } else if (f instanceof Sum && !((Sum) f).isDistinct() && column(((Sum) f).column()) != null) {
                a.put("fn", "sum").put("col", column(((Sum) f).column()));
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

    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    @Override
    public Scan build() {
        if (aggregated != null) {
            return new ChwireScan(aggregated, aggregatedSchema, new ArrayList<>(wheres), limit,
                    pushed.toString() + " [aggregate: " + aggregatedText + "]");
        }
        ReadPlan plan = ReadPlan.make(optionsJson, Arrays.asList(required.fieldNames()));
        return new ChwireScan(plan, required, new ArrayList<>(wheres), limit, pushed.toString());
    }
}
