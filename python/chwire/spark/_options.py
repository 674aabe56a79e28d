"""The data source's options, parsed by chwire's shared Spark rules (Rust: chwire-spark-core's
options, the same code the JVM connector uses)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

from .._chwire import spark_options, spark_shard_port


class Options:
    """Spark's options (case-insensitive keys) read once on the driver; picklable."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # ValueError naming the option for a bad value (from the Rust rules).
        self.json: str = spark_options([(str(k), str(v)) for k, v in options.items()])
        o = json.loads(self.json)
        self.url: str = o["url"]
        self.table: Optional[str] = o["table"]
        self.query: Optional[str] = o["query"]
        self.cluster: Optional[str] = o["cluster"]
        self.columns: Optional[List[str]] = o["columns"]
        self.num_partitions: int = o["num_partitions"]
        self.partition_column: Optional[str] = o["partition_column"]
        self.lower_bound: Optional[int] = o["lower_bound"]
        self.upper_bound: Optional[int] = o["upper_bound"]
        self.push_filters: bool = o["push_filters"]
        self.uint64_long: bool = o["uint64_long"]
        self.block_rows: int = o["block_rows"]
        self.settings: Dict[str, str] = o["settings"]
        self.connect: Dict[str, str] = o["connect"]

    def shard_port(self, port: int) -> int:
        """The port to reach a shard's replica on, from the native port `system.clusters` gives."""
        return spark_shard_port(self.json, port)

    def client(self, url: Optional[str] = None) -> Any:
        import chwire

        return chwire.connect(url or self.url, settings=self.settings, **self.connect)


__all__ = ["Options"]
