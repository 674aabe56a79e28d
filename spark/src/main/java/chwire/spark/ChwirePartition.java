package chwire.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition of a read: its JSON from the shared planner (URL, FROM, WHERE) and the pushed
 * conditions (a JSON list) it reads with: the scan's, and the runtime filters Spark gave the scan
 * before it planned the partitions (which may be after the reader factory was made).
 */
final class ChwirePartition implements InputPartition {
    private static final long serialVersionUID = 1L;

    final int index;
    final String json;
    final String wheresJson;

    ChwirePartition(int index, String json, String wheresJson) {
        this.index = index;
        this.json = json;
        this.wheresJson = wheresJson;
    }
}
