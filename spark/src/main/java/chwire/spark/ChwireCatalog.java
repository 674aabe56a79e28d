package chwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * ClickHouse as a Spark catalog: {@code spark.sql.catalog.ch = chwire.spark.ChwireCatalog} with
 * {@code spark.sql.catalog.ch.url} (and any other option of the data source: user, password,
 * settings, TLS, timeouts, cluster, numPartitions...). Databases are namespaces and their
 * tables are read and written by the data source ({@code SELECT ... FROM ch.db.t},
 * {@code INSERT INTO} / {@code INSERT OVERWRITE}); {@code CREATE TABLE ... USING chwire
 * TBLPROPERTIES (engine = 'MergeTree', order_by = 'id')} creates a ClickHouse table of the
 * Spark schema. The rules (statements, the type mapping) are chwire-spark-core's catalog.rs;
 * DDL runs on the first host of the URL that answers (docs/SPARK.md, "The catalog").
 */
public class ChwireCatalog implements StagingTableCatalog, SupportsNamespaces {
    private String name;
    private Map<String, String> options;
    private String optionsJson;

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
        Map<String, String> lower = new HashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        lower.remove("table");
        lower.remove("query");
        this.options = Collections.unmodifiableMap(lower);
        // Checks the options now (a bad one fails the catalog's first use with its name).
        this.optionsJson = ChwireSource.parse(this.options);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * CTAS keeps the query's nullability: a column Spark knows has no NULL (an {@code id} of
     * {@code range}) becomes a plain ClickHouse column, which a sorting key may use.
     */
    @Override
    public boolean useNullableQuerySchema() {
        return false;
    }

    @Override
    public String[] defaultNamespace() {
        List<String> db = names(run(request("current_database")));
        return new String[] {db.isEmpty() ? "default" : db.get(0)};
    }

    private JsonNode run(ObjectNode request) {
        return Json.parse(Native.catalog(optionsJson, Json.write(request)));
    }

    private static ObjectNode request(String op) {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.put("op", op);
        return r;
    }

    private static String outcome(JsonNode o) {
        return o.get("outcome").asText();
    }

    private static String db(String[] namespace) throws NoSuchNamespaceException {
        if (namespace.length != 1) {
            throw new NoSuchNamespaceException(namespace);
        }
        return namespace[0];
    }

    private static ObjectNode tableRequest(String op, Identifier ident) throws NoSuchTableException {
        if (ident.namespace().length != 1) {
            throw new NoSuchTableException(ident);
        }
        ObjectNode r = request(op);
        r.put("db", ident.namespace()[0]);
        r.put("table", ident.name());
        return r;
    }

    private static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.get("names").forEach(n -> out.add(n.asText()));
        return out;
    }

    // ---- namespaces (ClickHouse databases) ----

    @Override
    public String[][] listNamespaces() {
        List<String> dbs = names(run(request("databases")));
        String[][] out = new String[dbs.size()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = new String[] {dbs.get(i)};
        }
        return out;
    }

    @Override
    public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
        if (namespace.length == 0) {
            return listNamespaces();
        }
        if (!namespaceExists(namespace)) {
            throw new NoSuchNamespaceException(namespace);
        }
        return new String[0][];
    }

    @Override
    public boolean namespaceExists(String[] namespace) {
        if (namespace.length != 1) {
            return false;
        }
        ObjectNode r = request("database_exists");
        r.put("db", namespace[0]);
        return run(r).get("value").asBoolean();
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
        if (!namespaceExists(namespace)) {
            throw new NoSuchNamespaceException(namespace);
        }
        return Collections.emptyMap();
    }

    @Override
    public void createNamespace(String[] namespace, Map<String, String> metadata)
            throws NamespaceAlreadyExistsException {
        if (namespace.length != 1) {
            throw new ChwireException("a ClickHouse database is a one-part namespace, not " + Arrays.toString(namespace));
        }
        ObjectNode r = request("create_database");
        r.put("db", namespace[0]);
        if (outcome(run(r)).equals("database_exists")) {
            throw new NamespaceAlreadyExistsException(namespace);
        }
    }

    @Override
    public void alterNamespace(String[] namespace, NamespaceChange... changes) {
        throw new UnsupportedOperationException("ClickHouse databases have no properties to alter");
    }

    @Override
    public boolean dropNamespace(String[] namespace, boolean cascade)
            throws NoSuchNamespaceException, NonEmptyNamespaceException {
        ObjectNode r = request("drop_database");
        r.put("db", db(namespace));
        r.put("cascade", cascade);
        switch (outcome(run(r))) {
            case "no_such_database":
                throw new NoSuchNamespaceException(namespace);
            case "database_not_empty":
                throw new NonEmptyNamespaceException(namespace);
            default:
                return true;
        }
    }

    // ---- tables ----

    @Override
    public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
        ObjectNode r = request("tables");
        r.put("db", db(namespace));
        JsonNode o = run(r);
        if (outcome(o).equals("no_such_database")) {
            throw new NoSuchNamespaceException(namespace);
        }
        return names(o).stream().map(t -> Identifier.of(namespace, t)).toArray(Identifier[]::new);
    }

    @Override
    public boolean tableExists(Identifier ident) {
        if (ident.namespace().length != 1) {
            return false;
        }
        try {
            return run(tableRequest("table_exists", ident)).get("value").asBoolean();
        } catch (NoSuchTableException e) {
            return false;
        }
    }

    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        // The table's engine and keys, as the properties CREATE TABLE takes (DESCRIBE EXTENDED
        // and SHOW CREATE TABLE show them); no such table is Spark's exception.
        JsonNode found = run(tableRequest("table_properties", ident));
        if (!outcome(found).equals("properties")) {
            throw new NoSuchTableException(ident);
        }
        Map<String, String> properties = new TreeMap<>();
        found.get("properties").fields().forEachRemaining(e -> properties.put(e.getKey(), e.getValue().asText()));
        Map<String, String> o = new HashMap<>(options);
        o.put("table", Native.quoteTable(ident.namespace()[0], ident.name()));
        String json = ChwireSource.parse(o);
        return new ChwireTable(json, ReadPlan.make(json, null).schema(), name + "." + ident, o, properties);
    }

    @Override
    public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        create(ident, ident, columns, partitions, properties);
        try {
            return loadTable(ident);
        } catch (NoSuchTableException e) {
            throw new ChwireException("table " + ident + " was created but cannot be found: " + e.getMessage());
        }
    }

    /** CREATE TABLE {@code physical} with the schema and properties Spark gave for {@code ident}. */
    private void create(Identifier ident, Identifier physical, Column[] columns, Transform[] partitions,
            Map<String, String> properties) throws TableAlreadyExistsException, NoSuchNamespaceException {
        ObjectNode r;
        try {
            r = tableRequest("create_table", physical);
        } catch (NoSuchTableException e) {
            throw new NoSuchNamespaceException(ident.namespace());
        }
        ArrayNode cols = r.putArray("columns");
        for (Column c : columns) {
            ObjectNode col = cols.addObject();
            col.put("name", c.name());
            col.set("type", Json.parse(c.dataType().json()));
            col.put("nullable", c.nullable());
            if (c.comment() != null) {
                col.put("comment", c.comment());
            }
            if (c.defaultValue() != null || c.generationExpression() != null) {
                throw new ChwireException("column " + c.name() + ": DEFAULT and GENERATED columns are not supported by "
                        + "the chwire catalog; create the table in ClickHouse");
            }
        }
        ArrayNode parts = r.putArray("partitioning");
        for (Transform t : partitions) {
            ObjectNode p = parts.addObject();
            p.put("name", t.name());
            ArrayNode refs = p.putArray("columns");
            for (NamedReference ref : t.references()) {
                refs.add(String.join(".", ref.fieldNames()));
            }
        }
        ObjectNode props = r.putObject("properties");
        properties.forEach(props::put);
        JsonNode o = run(r);
        switch (outcome(o)) {
            case "no_such_database":
                throw new NoSuchNamespaceException(ident.namespace());
            case "table_exists":
                throw new TableAlreadyExistsException(ident);
            default:
        }
    }

    // ---- staged CREATE / REPLACE ... AS SELECT (atomic: the new table is built under a
    // staging name, then renamed into place; a failed job drops it and leaves the old table) ----

    @Override
    public StagedTable stageCreate(Identifier ident, Column[] columns, Transform[] partitions,
            Map<String, String> properties) throws TableAlreadyExistsException, NoSuchNamespaceException {
        if (tableExists(ident)) {
            throw new TableAlreadyExistsException(ident);
        }
        return stage(ident, columns, partitions, properties, false);
    }

    @Override
    public StagedTable stageReplace(Identifier ident, Column[] columns, Transform[] partitions,
            Map<String, String> properties) throws NoSuchNamespaceException, NoSuchTableException {
        if (!tableExists(ident)) {
            throw new NoSuchTableException(ident);
        }
        try {
            return stage(ident, columns, partitions, properties, true);
        } catch (TableAlreadyExistsException e) {
            throw new ChwireException("a staging table for " + ident + " exists already: " + e.getMessage());
        }
    }

    @Override
    public StagedTable stageCreateOrReplace(Identifier ident, Column[] columns, Transform[] partitions,
            Map<String, String> properties) throws NoSuchNamespaceException {
        try {
            return stage(ident, columns, partitions, properties, true);
        } catch (TableAlreadyExistsException e) {
            throw new ChwireException("a staging table for " + ident + " exists already: " + e.getMessage());
        }
    }

    private StagedTable stage(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties,
            boolean replace) throws TableAlreadyExistsException, NoSuchNamespaceException {
        if (ident.namespace().length != 1) {
            throw new NoSuchNamespaceException(ident.namespace());
        }
        // The write protocol's prefix: hidden from listings, never a user's table.
        String staged = "chwire_stage_" + java.util.UUID.randomUUID().toString().replace("-", "") + "_table";
        Identifier physical = Identifier.of(ident.namespace(), staged);
        create(ident, physical, columns, partitions, properties);
        ChwireTable inner;
        try {
            inner = (ChwireTable) loadTable(physical);
        } catch (NoSuchTableException e) {
            throw new ChwireException("staging table " + physical + " was created but cannot be found");
        }
        return new Staged(ident, staged, replace, inner);
    }

    /** A table being created or replaced: written as its staging table, renamed at commit. */
    private final class Staged implements StagedTable, SupportsRead, SupportsWrite {
        private final Identifier ident;
        private final String staged;
        private final boolean replace;
        private final ChwireTable inner;

        Staged(Identifier ident, String staged, boolean replace, ChwireTable inner) {
            this.ident = ident;
            this.staged = staged;
            this.replace = replace;
            this.inner = inner;
        }

        @Override
        public String name() {
            return name + "." + ident;
        }

        @Override
        public org.apache.spark.sql.types.StructType schema() {
            return inner.schema();
        }

        @Override
        public java.util.Set<TableCapability> capabilities() {
            return inner.capabilities();
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            return inner.newScanBuilder(options);
        }

        @Override
        public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
            return inner.newWriteBuilder(info);
        }

        @Override
        public void commitStagedChanges() {
            ObjectNode r = request("commit_staged");
            r.put("db", ident.namespace()[0]);
            r.put("table", ident.name());
            r.put("staged", staged);
            r.put("replace", replace);
            if (outcome(run(r)).equals("table_exists")) {
                abortStagedChanges();
                throw new ChwireException("table " + ident + " was created by someone else while this job ran; "
                        + "its rows were not written");
            }
        }

        @Override
        public void abortStagedChanges() {
            dropTable(Identifier.of(ident.namespace(), staged));
        }
    }

    @Override
    public Table alterTable(Identifier ident, TableChange... changes) {
        throw new UnsupportedOperationException(
                "ALTER TABLE through the chwire catalog is not supported: run it in ClickHouse");
    }

    @Override
    public boolean dropTable(Identifier ident) {
        try {
            return run(tableRequest("drop_table", ident)).get("value").asBoolean();
        } catch (NoSuchTableException e) {
            return false;
        }
    }

    @Override
    public void renameTable(Identifier from, Identifier to) throws NoSuchTableException, TableAlreadyExistsException {
        ObjectNode r = tableRequest("rename_table", from);
        String[] ns = to.namespace();
        if (ns.length == 2 && ns[0].equals(name)) {
            // RENAME TO ch.db.t: the catalog's own name before the database.
            to = Identifier.of(new String[] {ns[1]}, to.name());
        }
        if (to.namespace().length != 1) {
            throw new ChwireException("a ClickHouse table is named db.table, not " + to);
        }
        r.put("to_db", to.namespace()[0]);
        r.put("to_table", to.name());
        switch (outcome(run(r))) {
            case "no_such_table":
                throw new NoSuchTableException(from);
            case "table_exists":
                throw new TableAlreadyExistsException(to);
            default:
        }
    }
}
