"""The JVM connector (build/spark/chwire-spark.jar, `make spark-jar`) on a local Spark
(pyspark's Spark 4.3.0, local[2] with 3 attempts per task) against the cluster rig, with the
PySpark source registered in the same session for the comparisons.

Run by `make spark-jvm-test` under scripts/with-cluster.sh (CHWIRE_CLUSTER_NODE1..3,
CHWIRE_CLUSTER_SERVER): the whole suite on the ClickHouse 26.9 cluster, then the tests marked
`both_servers` (behaviour that differs between the servers: types a table can have, 18.16's
IN over NULLs and wrapped dates, its sums) again on the 18.16 cluster. `make spark-jvm-test-40`
runs it with pyspark 4.0 (build/spark40-venv, the jar compiled against 4.3): the tests that
compare with the PySpark source (a Python Data Source needs PySpark 4.1) are skipped there.
"""

import os
import sys

import pytest

import chwire

SERVER = os.environ.get("CHWIRE_CLUSTER_SERVER", "26.9")
OLD_SERVER = SERVER == "18.16"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JAR = os.environ.get("CHWIRE_SPARK_JAR", os.path.join(ROOT, "build", "spark", "chwire-spark.jar"))


def pytest_configure(config):
    config.addinivalue_line("markers", "both_servers: run on the 26.9 cluster and again on the 18.16 one")


@pytest.fixture(scope="session")
def old_server():
    """Whether the cluster is of ClickHouse 18.16 (else 26.9)."""
    return OLD_SERVER


@pytest.fixture(scope="session")
def nodes():
    if "CHWIRE_CLUSTER_NODE1" not in os.environ:
        pytest.skip("needs the cluster rig: scripts/with-cluster.sh")
    return [f"tcp://default@{os.environ[f'CHWIRE_CLUSTER_NODE{n}']}/default" for n in (1, 2, 3)]


@pytest.fixture(scope="session")
def spark(nodes):
    if not os.path.exists(JAR):
        pytest.fail(f"no {JAR}: make spark-jar")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    s = (SparkSession.builder.master("local[2,3]").appName("chwire-spark-jvm-tests")
         .config("spark.jars", JAR)
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.memory", "1g")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.python.worker.reuse", "true")
         .getOrCreate())
    yield s
    s.stop()


@pytest.fixture()
def ch(nodes):
    with chwire.connect(nodes[0]) as c:
        yield c


@pytest.fixture()
def jvm(spark):
    """The JVM side's counters of open readers and allocated Arrow memory."""
    return spark._jvm.chwire.spark.ColumnarReader


@pytest.fixture(scope="session")
def python_source(spark):
    """The PySpark source beside the JVM one, under a name of its own (`format("chwire")` is the
    jar's: see test_both_sources_in_one_session); registered once per session."""
    import pyspark

    if tuple(int(x) for x in pyspark.__version__.split(".")[:2]) < (4, 1):
        pytest.skip(f"the PySpark source needs PySpark 4.1 or later (docs/SPARK.md); this is {pyspark.__version__}")
    from chwire.spark import ChwireDataSource

    name = "chwire.spark.python"

    class PythonChwire(ChwireDataSource):
        @classmethod
        def name(cls):
            return name

    spark.dataSource.register(PythonChwire)
    return name


@pytest.fixture()
def cat(request, spark, ch, nodes):
    """Catalog `ch` over node 1 (set at run time: Spark loads catalogs when first named), with
    a fresh database named by the test module's `DB`, dropped afterwards."""
    db = request.module.DB
    spark.conf.set("spark.sql.catalog.ch", "chwire.spark.ChwireCatalog")
    spark.conf.set("spark.sql.catalog.ch.url", nodes[0])
    ch.command(f"DROP DATABASE IF EXISTS {db}")
    ch.command(f"CREATE DATABASE {db}")
    yield "ch"
    ch.command(f"DROP DATABASE IF EXISTS {db}")
