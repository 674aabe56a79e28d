package chwire.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One partition of a read: its JSON from the shared planner (URL, FROM, WHERE). */
final class ChwirePartition implements InputPartition {
    private static final long serialVersionUID = 1L;

    final int index;
    final String json;

    ChwirePartition(int index, String json) {
        this.index = index;
        this.json = json;
    }
}
