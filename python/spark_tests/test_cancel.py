"""A read task killed mid-read (its job cancelled) stops its query on the server: the query is
found in node 1's `system.processes` by a unique marker, the job is cancelled, and the query
must be gone within 15 s; it would run for a minute otherwise.

Spark kills the task's Python worker with SIGKILL (pyspark/daemon.py, after
`spark.python.task.killTimeout`), so no code of the worker runs: over the native protocol the
server sees the closed connection at its next check and stops the query. Over HTTP, 18.16
notices a closed connection only when it next writes, and this query writes too little: the
reader's watchdog process (chwire/spark/_watchdog.py), which outlives the worker, kills it."""

import os
import threading
import time
import uuid

import pytest

import chwire


def processes(ch, marker: str) -> int:
    return ch.command("SELECT count() FROM system.processes WHERE query LIKE {m:String} AND query NOT LIKE '%system.processes%'",
                      parameters={"m": f"%{marker}%"})


@pytest.mark.both_servers
@pytest.mark.parametrize("transport", ["native", "http"])
def test_a_killed_read_task_stops_its_query(spark, ch, nodes, transport):
    node = os.environ["CHWIRE_CLUSTER_NODE1"]
    if transport == "http":
        url = f"http://default@{os.environ['CHWIRE_CLUSTER_HTTP_NODE1']}/default"
    else:
        url = f"tcp://default@{node}/default"
    marker = f"cx-spark-{transport}-{uuid.uuid4().hex}"
    q = f"SELECT sleep(3) AS s, '{marker}' AS m FROM numbers(20)"
    df = (spark.read.format("chwire").option("url", url).option("query", q)
          .option("setting.max_block_size", "1").load())
    failed = []

    def run():
        spark.sparkContext.setJobGroup(marker, "a read to cancel", interruptOnCancel=True)
        try:
            df.collect()
        except Exception as e:  # the cancelled job
            failed.append(e)

    th = threading.Thread(target=run)
    th.start()
    deadline = time.monotonic() + 60
    while not processes(ch, marker):
        assert time.monotonic() < deadline, "the read never started"
        time.sleep(0.1)
    spark.sparkContext.cancelJobGroup(marker)
    th.join(60)
    assert failed, "the job was not cancelled"
    start = time.monotonic()
    while processes(ch, marker):
        assert time.monotonic() - start < 15, f"the cancelled read's query still runs ({transport})"
        time.sleep(0.2)


def test_a_read_over_http_ends_normally_with_its_watchdog(spark, nodes):
    url = f"http://default@{os.environ['CHWIRE_CLUSTER_HTTP_NODE1']}/default"
    q = "SELECT number AS n FROM system.numbers LIMIT 100000"
    df = (spark.read.format("chwire").option("url", url).option("query", q)
          .option("partitionColumn", "n").option("lowerBound", "0").option("upperBound", "100000")
          .option("numPartitions", "3").load())
    rows = sorted(r.n for r in df.collect())
    assert rows == list(range(100000))
