package chwire.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

/**
 * Spark's V2 predicates described in the shared rules' filter JSON (crates/chwire-spark-core
 * filters.rs, the translation the PySpark source uses too): which are pushed, and how, is decided
 * there, not here.
 */
final class V2Filters {
    private V2Filters() {
    }

    /** The ClickHouse condition of {@code p} over the columns {@code types}, or null. */
    static String toSql(Predicate p, Map<String, String> types) {
        return Native.filterSql(Json.write(describe(p)), Json.object(types));
    }

    static ObjectNode describe(Predicate p) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        Expression[] c = p.children();
        switch (p.name()) {
            case "NOT":
                if (c.length == 1 && c[0] instanceof Predicate) {
                    out.put("op", "not");
                    out.set("child", describe((Predicate) c[0]));
                    return out;
                }
                break;
            case "IS_NULL":
            case "IS_NOT_NULL":
                if (c.length == 1 && column(c[0]) != null) {
                    out.put("op", p.name().equals("IS_NULL") ? "is_null" : "is_not_null");
                    out.put("col", column(c[0]));
                    return out;
                }
                break;
            case "IN":
                if (c.length >= 1 && column(c[0]) != null) {
                    out.put("op", "in");
                    out.put("col", column(c[0]));
                    ArrayNode values = out.putArray("values");
                    for (int i = 1; i < c.length; i++) {
                        values.add(literal(c[i]));
                    }
                    return out;
                }
                break;
            case "<>":
                if (c.length == 2) {
                    // Spark's a <> b is NOT (a = b), NULL for a NULL a, as in ClickHouse.
                    out.put("op", "not");
                    out.set("child", describe(new Predicate("=", c)));
                    return out;
                }
                break;
            case "=":
            case ">":
            case ">=":
            case "<":
            case "<=":
                if (c.length == 2) {
                    boolean flipped = column(c[0]) == null && column(c[1]) != null;
                    Expression col = flipped ? c[1] : c[0];
                    Expression lit = flipped ? c[0] : c[1];
                    if (column(col) != null && lit instanceof Literal) {
                        out.put("op", op(p.name(), flipped));
                        out.put("col", column(col));
                        out.set("value", literal(lit));
                        return out;
                    }
                }
                break;
            case "STARTS_WITH":
            case "ENDS_WITH":
            case "CONTAINS":
                if (c.length == 2 && column(c[0]) != null && c[1] instanceof Literal) {
                    out.put("op", p.name().toLowerCase(java.util.Locale.ROOT));
                    out.put("col", column(c[0]));
                    out.set("value", literal(c[1]));
                    return out;
                }
                break;
            default:
                break;
        }
        out.put("op", "other");
        return out;
    }

    private static String op(String name, boolean flipped) {
        switch (name) {
            case "=":
                return "eq";
            case ">":
                return flipped ? "lt" : "gt";
            case ">=":
                return flipped ? "le" : "ge";
            case "<":
                return flipped ? "gt" : "lt";
            default:
                return flipped ? "ge" : "le";
        }
    }

    /** A top-level column's name, or null (nested fields and expressions are not columns). */
    private static String column(Expression e) {
        if (e instanceof NamedReference) {
            String[] names = ((NamedReference) e).fieldNames();
            return names.length == 1 ? names[0] : null;
        }
        return null;
    }

    private static ObjectNode literal(Expression e) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        if (!(e instanceof Literal)) {
            out.put("kind", "other");
            return out;
        }
        Literal<?> lit = (Literal<?>) e;
        Object v = lit.value();
        DataType t = lit.dataType();
        if (v == null) {
            out.put("kind", "other");
        } else if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType
                || t instanceof LongType) {
            out.put("kind", "int");
            out.put("v", ((Number) v).longValue());
        } else if (t instanceof StringType) {
            out.put("kind", "str");
            out.put("v", v.toString());
        } else if (t instanceof DateType) {
            out.put("kind", "date");
            out.put("v", ((Number) v).longValue());
        } else {
            out.put("kind", "other");
        }
        return out;
    }
}
