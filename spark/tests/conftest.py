"""The JVM connector (build/spark/chwire-spark.jar, `make spark-jar`) on a local Spark
(pyspark's Spark 4.3.0, local[2] with 3 attempts per task) against the cluster rig, with the
PySpark source registered in the same session for the comparisons.

Run by `make spark-jvm-test` under scripts/with-cluster.sh (CHWIRE_CLUSTER_NODE1..3).
"""

import os
import sys

import pytest

import chwire

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JAR = os.environ.get("CHWIRE_SPARK_JAR", os.path.join(ROOT, "build", "spark", "chwire-spark.jar"))


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
