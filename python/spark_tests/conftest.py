"""A local Spark (local[2], 3 attempts per task) against the cluster rig (scripts/cluster.sh).

Run by `make spark-test` under scripts/with-cluster.sh, which exports CHWIRE_CLUSTER_NODE1..3
and CHWIRE_CLUSTER_SCRIPT.
"""

import os
import sys

import pytest

import chwire


def node_url(n: int) -> str:
    return f"tcp://default@{os.environ[f'CHWIRE_CLUSTER_NODE{n}']}/default"


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
