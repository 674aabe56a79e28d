"""The data source's options: connection URLs, settings, and the multi-host URLs of shards."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

# Options passed on to chwire.connect as URL options (TLS and timeouts); the value is the
# option's chwire name.
_CONNECT = {
    "secure": "secure",
    "ca_file": "ca_file",
    "cafile": "ca_file",
    "cert_file": "cert_file",
    "key_file": "key_file",
    "server_name": "server_name",
    "compression": "compression",
    "connect_timeout": "connect_timeout",
    "read_timeout": "read_timeout",
    "write_timeout": "write_timeout",
    "query_timeout": "query_timeout",
    "retries": "retries",
    "load_balancing": "load_balancing",
}


def _int(opts: Mapping[str, str], key: str, name: str, default: Optional[str] = None) -> Any:
    """An integer option (None when absent without a default); anything else names the option."""
    v = opts.get(key, default)
    if v is None:
        return None
    try:
        return int(str(v).strip())
    except ValueError:
        raise ValueError(f"option {name} must be an integer, not {v!r}") from None


class Options:
    """Spark's options (case-insensitive keys) read once on the driver; picklable."""

    def __init__(self, options: Mapping[str, str]) -> None:
        opts = {k.lower(): v for k, v in options.items()}
        self.url: str = opts.get("url") or ""
        if not self.url:
            raise ValueError("the chwire data source needs option 'url' (tcp://user@host:9000/db)")
        self.table: Optional[str] = opts.get("table") or opts.get("dbtable")
        self.query: Optional[str] = opts.get("query")
        self.cluster: Optional[str] = opts.get("cluster")
        self.columns: Optional[List[str]] = (
            [c.strip() for c in opts["columns"].split(",") if c.strip()] if opts.get("columns") else None)
        if self.columns:
            twice = sorted({c for c in self.columns if self.columns.count(c) > 1})
            if twice:
                raise ValueError(f"option columns names {', '.join(twice)} more than once")
        self.num_partitions: int = _int(opts, "numpartitions", "numPartitions", "1")
        if self.num_partitions < 1:
            raise ValueError("numPartitions must be at least 1")
        self.partition_column: Optional[str] = opts.get("partitioncolumn")
        self.lower_bound: Optional[int] = _int(opts, "lowerbound", "lowerBound")
        self.upper_bound: Optional[int] = _int(opts, "upperbound", "upperBound")
        self.push_filters: bool = opts.get("pushfilters", "false").lower() in ("true", "1", "yes")
        u64 = opts.get("uint64", "decimal").lower()
        if u64 not in ("decimal", "long"):
            raise ValueError("option uint64 is 'decimal' (DecimalType(20, 0), the default) or 'long'")
        self.uint64_long: bool = u64 == "long"
        self.block_rows: int = _int(opts, "blockrows", "blockRows", "1048576")
        if self.block_rows < 1:
            raise ValueError("blockRows must be at least 1")
        self.settings: Dict[str, str] = _settings(opts.get("settings"))
        for k, v in opts.items():
            if k.startswith("setting."):
                self.settings[k[len("setting."):]] = v
        self.connect: Dict[str, str] = {name: opts[k] for k, name in _CONNECT.items() if k in opts}
        if "user" in opts:
            self.connect["user"] = opts["user"]
        if "password" in opts:
            self.connect["password"] = opts["password"]
        if "database" in opts:
            self.connect["database"] = opts["database"]
        self.shard_ports: Dict[int, int] = _port_map(opts.get("shardports"))

    @property
    def secure(self) -> bool:
        """Whether connections use TLS (an option, or the URL's `secure`, `ca_file` or `cert_file`)."""
        flags = {**{k.lower(): v for k, v in parse_qsl(urlsplit(self.url).query)}, **self.connect}
        on = str(flags.get("secure", "")).lower() in ("1", "true", "yes")
        return on or any(flags.get(k) for k in ("ca_file", "cafile", "cert_file"))

    @property
    def default_port(self) -> int:
        """ClickHouse's default native port: 9440 over TLS, else 9000."""
        return 9440 if self.secure else 9000

    def shard_port(self, port: int) -> int:
        """The port to reach a shard's replica on, from the native port `system.clusters` gives:
        `shardPorts` maps it; else the default 9000 is the default of this connection."""
        if port in self.shard_ports:
            return self.shard_ports[port]
        return self.default_port if port == 9000 else port

    def client(self, url: Optional[str] = None) -> Any:
        import chwire

        return chwire.connect(url or self.url, settings=self.settings, **self.connect)


def _settings(text: Optional[str]) -> Dict[str, str]:
    """`settings` as JSON ({"max_threads": 4}) or `name=value,name=value`."""
    if not text:
        return {}
    text = text.strip()
    if text.startswith("{"):
        return {k: str(v) for k, v in json.loads(text).items()}
    out = {}
    for item in text.split(","):
        if item.strip():
            k, _, v = item.partition("=")
            out[k.strip()] = v.strip()
    return out


def _port_map(text: Optional[str]) -> Dict[int, int]:
    """`shardPorts`: `from:to` pairs, comma-separated (e.g. `9000:9440`)."""
    out: Dict[int, int] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        a, sep, b = item.partition(":")
        try:
            if not sep:
                raise ValueError(item)
            out[int(a)] = int(b)
        except ValueError:
            raise ValueError(f"shardPorts takes from:to port pairs, e.g. 9000:9440, not {item.strip()!r}") from None
    return out


def url_with_hosts(url: str, hosts: Sequence[Tuple[str, int]]) -> str:
    """`url` with its host list replaced by `hosts` (user, password, database and options kept),
    e.g. one shard's replicas: tcp://u@a:9000,b:9000/db."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    hostlist = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in hosts)
    netloc = f"{userinfo}@{hostlist}" if userinfo else hostlist
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def url_first_host(url: str) -> str:
    """`url` with only its first host (the servers of a multi-host URL must not be mixed up
    where a table created by one statement is used by the next)."""
    parts = urlsplit(url)
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    first = hostlist.split(",")[0]
    netloc = f"{userinfo}@{first}" if userinfo else first
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


__all__ = ["Options", "url_with_hosts", "url_first_host", "sql_string", "quote"]
