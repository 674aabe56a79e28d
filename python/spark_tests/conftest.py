"""A local Spark (local[2], 3 attempts per task) against the cluster rig (scripts/cluster.sh).

Run by `make spark-test` under scripts/with-cluster.sh, which exports CHWIRE_CLUSTER_NODE1..3,
CHWIRE_CLUSTER_SERVER and CHWIRE_CLUSTER_SCRIPT: the whole suite on the ClickHouse 26.9
cluster, then the tests marked `cluster18` or `both_servers` on the 18.16 cluster
(`-m "cluster18 or both_servers"`).

* `cluster18`: needs what only the 18.16 cluster has (native TLS listeners, replication
  through ZooKeeper; clickhouse-local has neither): skipped on 26.9 with the reason given;
* `both_servers`: behaviour that differs between the servers (18.16's NULL hashes, IN over
  NULLs, wrapped dates, listing races, HTTP cancellation...): run on both.
"""

import os
import sys

import pytest

import chwire

SERVER = os.environ.get("CHWIRE_CLUSTER_SERVER", "26.9")
OLD_SERVER = SERVER == "18.16"


def pytest_configure(config):
    config.addinivalue_line("markers", "cluster18(reason): needs the 18.16 cluster; skipped on the 26.9 one")
    config.addinivalue_line("markers", "both_servers: run on the 26.9 cluster and again on the 18.16 one")


def pytest_collection_modifyitems(config, items):
    for item in items:
        m = item.get_closest_marker("cluster18")
        if m is not None and not OLD_SERVER:
            why = m.args[0] if m.args else "replication and TLS"
            item.add_marker(pytest.mark.skip(
                reason=f"needs the 18.16 cluster's {why}; skipped on the {SERVER} cluster, run by make spark-test's 18.16 step"))


def node_url(n: int) -> str:
    return f"tcp://default@{os.environ[f'CHWIRE_CLUSTER_NODE{n}']}/default"


@pytest.fixture(scope="session")
def old_server():
    """Whether the cluster is of ClickHouse 18.16 (else 26.9)."""
    return OLD_SERVER


@pytest.fixture(scope="session")
def nodes():
    if "CHWIRE_CLUSTER_NODE1" not in os.environ:
        pytest.skip("needs the cluster rig: scripts/with-cluster.sh")
    return [node_url(n) for n in (1, 2, 3)]


@pytest.fixture(scope="session")
def spark(nodes):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from chwire.spark import ChwireDataSource

    s = (SparkSession.builder.master("local[2,3]").appName("chwire-spark-tests")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.memory", "1g")
         .config("spark.python.worker.reuse", "true")
         .getOrCreate())
    s.dataSource.register(ChwireDataSource)
    yield s
    s.stop()


@pytest.fixture()
def ch(nodes):
    with chwire.connect(nodes[0]) as c:
        yield c
