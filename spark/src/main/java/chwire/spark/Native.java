package chwire.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The native side (crates/chwire-spark-jni): chwire's Rust core and the Spark rules shared with
 * the PySpark source. Loaded once per JVM from the jar (copied to a temporary file), or from
 * the path in the system property {@code chwire.spark.native}.
 *
 * <p>Plans, partitions, filters and write jobs cross as JSON text; data crosses as Arrow through
 * the C Data Interface (the addresses of {@code ArrowArray}/{@code ArrowSchema} structs).
 */
final class Native {
    private static final String RESOURCE = "/chwire/spark/native/linux-x86_64/libchwire_spark_jni.so";

    static {
        load();
    }

    private Native() {
    }

    private static void load() {
        String path = System.getProperty("chwire.spark.native");
        if (path != null && !path.isEmpty()) {
            System.load(path);
            return;
        }
        try (InputStream in = Native.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("chwire: no native library " + RESOURCE + " in the jar (built for "
                        + "linux-x86_64 only); os.name=" + System.getProperty("os.name") + ", os.arch="
                        + System.getProperty("os.arch"));
            }
            Path tmp = Files.createTempFile("chwire_spark_jni", ".so");
            tmp.toFile().deleteOnExit();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            System.load(tmp.toAbsolutePath().toString());
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("chwire: cannot extract the native library: " + e);
        }
    }

    /** Spark's options (a JSON object of strings) parsed by the shared rules (JSON). */
    static native String options(String optionsJson);

    /** A read's plan (JSON); {@code wantedJson} a JSON list of column names, or null for all. */
    static native String plan(String optionsJson, String wantedJson);

    /** The ClickHouse condition of a filter (JSON), or null when Spark keeps it. */
    static native String filterSql(String filterJson, String typesJson);

    /** The SELECT of one partition (for explain and tests). */
    static native String partitionSql(String planJson, String partJson, String wheresJson, long limit);

    /** The plan of an aggregation pushed whole, or null when Spark keeps it. */
    static native String aggregatePlan(String planJson, String groupsJson, String aggsJson, String typesJson);

    /** The plan with a top-N's ORDER BY (sort keys as JSON), or null when Spark keeps the sort. */
    static native String topNPlan(String planJson, String keysJson, String typesJson);

    /** Start reading a partition; {@code readSchemaJson} is Spark's StructType (JSON). */
    static native long openReader(String planJson, String partJson, String wheresJson, long limit,
            String readSchemaJson);

    /** 1: a batch was exported into the two C structs; 0: the end; 2: none within waitMillis. */
    static native int next(long reader, long arrowArray, long arrowSchema, int waitMillis);

    /** Close a reader: its query is cancelled on the server, its connection closed. */
    static native void closeReader(long reader);

    /**
     * Prepare a write job (driver): parsed options, the DataFrame schema (Spark JSON) → job JSON; with
     * {@code overwrite} the commit replaces the target's rows.
     */
    static native String prepareWrite(String optionsJson, String schemaJson, boolean overwrite);

    /**
     * A catalog operation: parsed options and the request (JSON, chwire-spark-core's
     * {@code catalog::Request}) → its outcome (JSON).
     */
    static native String catalog(String optionsJson, String requestJson);

    /** {@code `db`.`t`}: a catalog table as the option {@code table} names it (the core's quoting). */
    static native String quoteTable(String database, String table);

    /** Start a task attempt's writer (its staging table created, its INSERT started). */
    static native long openWriter(String jobJson, String tag);

    /** Insert one exported batch (a struct array of the columns). */
    static native void writeBatch(long writer, long arrowArray, long arrowSchema);

    /** End a task attempt's INSERT: its commit message as JSON ({"stage", "rows"}). */
    static native String commitWriter(long writer);

    /** Free a writer; with abort, its staging table is dropped. */
    static native void closeWriter(long writer, boolean abort);

    /** Move the tasks' staging tables (JSON list) into the target, drop the job's others. */
    static native void commitJob(String jobJson, String stagesJson);

    /** Mark the job aborted and drop its staging tables. */
    static native void abortJob(String jobJson);
}
