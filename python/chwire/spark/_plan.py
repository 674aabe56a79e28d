"""What a read runs where: the columns, and one (URL, SELECT) per Spark partition.

* a `Distributed` table, or a table with the `cluster` option: one partition per shard, reading
  the shard's local table from a multi-host URL of the shard's replicas (chwire connects to the
  first that answers; the replica order is rotated per shard to spread the load); with
  numPartitions above the number of shards, each shard's table is split further into
  ceil(numPartitions / shards) parts, as a plain table is (below), so that more tasks than
  shards keep every core busy;
* a plain table with numPartitions > 1: ranges of the first sorting-key column when it is an
  integer (the server skips the other ranges by its primary index), else
  `cityHash64(sorting key) % n`; first and last ranges are open, so that every row is read once;
* a query: one partition, or with partitionColumn/lowerBound/upperBound, numPartitions strides
  (JDBC's rule: open first and last strides, NULLs in the first).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ._options import Options, sql_string, url_with_hosts
from ._types import Column, quote_ident

_INT_TYPES = {"UInt8", "UInt16", "UInt32", "UInt64", "Int8", "Int16", "Int32", "Int64"}


def split_table(name: str) -> Tuple[Optional[str], str]:
    """`db.t`, `` `db`.`t` `` or `t` → (db or None, t)."""
    m = re.fullmatch(r"\s*(?:(`(?:[^`\\]|\\.)*`|[A-Za-z_][\w$]*)\.)?(`(?:[^`\\]|\\.)*`|[A-Za-z_][\w$]*)\s*", name)
    if not m:
        raise ValueError(f"cannot read the table name {name!r} (use db.table)")

    def unq(s: Optional[str]) -> Optional[str]:
        if s and s.startswith("`"):
            return re.sub(r"\\(.)", r"\1", s[1:-1])
        return s

    return unq(m.group(1)), unq(m.group(2))  # type: ignore[return-value]


def _engine_args(engine_full: str) -> List[str]:
    """Arguments of `Distributed(cluster, db, table[, key])`, unquoted."""
    inner = engine_full[engine_full.index("(") + 1:engine_full.rindex(")")]
    args, depth, cur, quote = [], 0, "", ""
    for ch in inner:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
        elif ch in "'`\"":
            quote = ch
            cur += ch
        elif ch == "(":
            depth += 1
            cur += ch
        elif ch == ")":
            depth -= 1
            cur += ch
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    args.append(cur.strip())
    return [a[1:-1] if len(a) >= 2 and a[0] == a[-1] and a[0] in "'`\"" else a for a in args]


class Plan:
    """Made on the driver; sent to the executors with the reader (picklable)."""

    def __init__(self, opts: Options, wanted: Optional[List[str]] = None) -> None:
        """`wanted`: the columns to read (a schema's field names), else the `columns` option's,
        else all of them."""
        self.opts = opts
        self.where: List[str] = []
        with opts.client() as client:
            self.database = client.command("SELECT currentDatabase()")
            if opts.table and opts.query:
                raise ValueError("give the chwire data source either 'table' or 'query', not both")
            if opts.table:
                db, name = split_table(opts.table)
                self.db, self.name = db or self.database, name
                self.source = f"{quote_ident(self.db)}.{quote_ident(self.name)}"
                info = client.query(
                    "SELECT engine, engine_full, sorting_key FROM system.tables WHERE database = {d:String} AND name = {n:String}",
                    parameters={"d": self.db, "n": self.name}).result_rows
                if not info:
                    raise ValueError(f"table {self.db}.{self.name} does not exist")
                self.engine, self.engine_full, self.sorting_key = info[0]
                described = client.query(f"DESCRIBE TABLE {self.source}").result_rows
            elif opts.query:
                self.engine = self.engine_full = self.sorting_key = ""
                # A trailing `;` or `-- comment` stays inside the parentheses.
                self.source = f"({opts.query.strip().rstrip(';').rstrip()}\n)"
                schema = client.query_arrow(f"SELECT * FROM {self.source} LIMIT 0").schema
                described = [(f.name, (f.metadata or {}).get(b"clickhouse.type", b"").decode(), "")
                             for f in schema]
            else:
                raise ValueError("the chwire data source needs option 'table' or 'query'")
            # DESCRIBE: name, type, default_type, default_expression, ...; MATERIALIZED and
            # ALIAS columns are not in SELECT *, so they are left out here too.
            cols = [(r[0], r[1]) for r in described if r[2] not in ("MATERIALIZED", "ALIAS")]
            # Every column's type (a split's key column need not be read).
            self.types = dict(cols)
            if wanted or opts.columns:
                cols = _select(cols, wanted or opts.columns or [], opts.table or "the query")
            self.columns = [Column(n, t, opts.uint64_long) for n, t in cols]
            self.partitions = self._partitions(client)

    # -- partitions ---------------------------------------------------------------------------

    def _partitions(self, client: Any) -> List[Dict[str, str]]:
        opts = self.opts
        if opts.table and (self.engine == "Distributed" or opts.cluster):
            if opts.partition_column:
                raise ValueError("partitionColumn splits a plain table or a query: a Distributed table or the "
                                 "cluster option is read one partition per shard (numPartitions above the "
                                 "number of shards splits each shard by its sorting key)")
            if self.engine == "Distributed":
                args = _engine_args(self.engine_full)
                cluster, rdb, rtable = args[0], args[1] or self.db, args[2]
            else:
                cluster, rdb, rtable = opts.cluster, self.db, self.name  # type: ignore[assignment]
            local = f"{quote_ident(rdb)}.{quote_ident(rtable)}"
            shards = self._shards(client, cluster, local)
            per = -(-opts.num_partitions // len(shards))
            if per == 1:
                return shards
            # The local table's sorting key (the same on every shard), ranged over the values
            # of all shards (through the Distributed table, or the cluster table function).
            key = self._sorting_key(client, rdb, rtable)
            every = self.source if self.engine == "Distributed" else f"cluster({sql_string(cluster)}, {local})"
            return [dict(shard, where=w) for shard in shards for w in self._split(client, key, every, per)]
        n = opts.num_partitions
        if opts.partition_column:
            if opts.lower_bound is None or opts.upper_bound is None:
                raise ValueError("partitionColumn needs lowerBound and upperBound")
            return [{"url": opts.url, "from": self.source, "where": w}
                    for w in _strides(quote_ident(opts.partition_column), opts.lower_bound,
                                      opts.upper_bound, n, nulls_first=True)]
        if n == 1 or not opts.table:
            return [{"url": opts.url, "from": self.source, "where": ""}]
        return [{"url": opts.url, "from": self.source, "where": w}
                for w in self._split(client, self.sorting_key or "", self.source, n)]

    def _split(self, client: Any, key: str, source: str, n: int) -> List[str]:
        """n conditions that together take every row of a table with sorting key `key` once:
        ranges of its first column when that is an integer (the bounds from `source`), else
        `cityHash64(key) % n`."""
        key = key.strip()
        first = key.split(",")[0].strip() if key else ""
        if first and re.fullmatch(r"[A-Za-z_]\w*", first) and self.types.get(first, "") in _INT_TYPES:
            lo, hi = client.query(f"SELECT min({quote_ident(first)}), max({quote_ident(first)}) FROM {source}").result_rows[0]
            if isinstance(lo, int) and isinstance(hi, int):
                return _strides(quote_ident(first), lo, hi + 1, n, nulls_first=False)
        hashed = key if key and key != "tuple()" else ", ".join(_hashable(c, t) for c, t in self.types.items())
        return [f"cityHash64({hashed}) % {n} = {i}" for i in range(n)]

    def _sorting_key(self, client: Any, db: str, table: str) -> str:
        """The sorting key of a shard's local table, as the server connected to has it ('' when
        it has no such table: the shards are then split by a hash of all columns)."""
        rows = client.query("SELECT sorting_key FROM system.tables WHERE database = {d:String} AND name = {n:String}",
                            parameters={"d": db, "n": table}).result_rows
        return rows[0][0] if rows else ""

    def _shards(self, client: Any, cluster: str, table: str) -> List[Dict[str, str]]:
        rows = client.query(
            "SELECT shard_num, replica_num, host_name, port FROM system.clusters "
            "WHERE cluster = {c:String} ORDER BY shard_num, replica_num",
            parameters={"c": cluster}).result_rows
        if not rows:
            raise ValueError(f"cluster {cluster!r} is not in system.clusters of {self.opts.url}")
        shards: Dict[int, List[Tuple[str, int]]] = {}
        for shard, _, host, port in rows:
            shards.setdefault(shard, []).append((host, self.opts.shard_port(int(port))))
        parts = []
        for i, (shard, replicas) in enumerate(sorted(shards.items())):
            k = i % len(replicas)
            order = replicas[k:] + replicas[:k]
            parts.append({"url": url_with_hosts(self.opts.url, order), "from": table, "where": "",
                          "shard": str(shard)})
        return parts

    # -- SQL ----------------------------------------------------------------------------------

    def sql(self, part: Dict[str, str]) -> str:
        select = ", ".join(c.select for c in self.columns) or "1"
        conds = [c for c in [part.get("where", "")] + self.where if c]
        where = " WHERE " + " AND ".join(f"({c})" for c in conds) if conds else ""
        return f"SELECT {select} FROM {part['from']}{where}"


def _select(cols: List[Tuple[str, str]], wanted: List[str], source: str) -> List[Tuple[str, str]]:
    """The (name, type) of each wanted column, in the wanted order: by its exact name, else by
    a name that matches it alone ignoring case (Spark resolves names so by default)."""
    by_name = dict(cols)
    by_lower: Dict[str, List[str]] = {}
    for n, _ in cols:
        by_lower.setdefault(n.lower(), []).append(n)
    out, missing = [], []
    for w in wanted:
        if w in by_name:
            out.append((w, by_name[w]))
        elif len(by_lower.get(w.lower(), [])) == 1:
            name = by_lower[w.lower()][0]
            out.append((name, by_name[name]))
        else:
            missing.append(w)
    if missing:
        raise ValueError(f"columns {missing} are not in {source} (its columns: {', '.join(n for n, _ in cols)})")
    return out


def _hashable(name: str, ch_type: str) -> str:
    """Column `name` as an argument of cityHash64 that is never NULL: in 18.16 the hash of a
    NULL is NULL, and `NULL % n = i` would take that row into no partition. LowCardinality
    columns are hashed as their plain type (18.16 cannot hash them)."""
    ref, t = quote_ident(name), ch_type
    if t.startswith("LowCardinality("):
        t = t[len("LowCardinality("):-1]
        ref = f"CAST({ref} AS {t})"
    return f"ifNull(cityHash64({ref}), 0)" if t.startswith("Nullable(") else ref


def _strides(col: str, lo: int, hi: int, n: int, nulls_first: bool) -> List[str]:
    """n conditions on `col` that cover every value once: [.., b1), [b1, b2), ..., [b(n-1), ..)."""
    n = max(1, min(n, max(1, hi - lo)))
    bounds = [lo + (hi - lo) * i // n for i in range(1, n)]
    out = []
    for i in range(n):
        conds = []
        if i > 0:
            conds.append(f"{col} >= {bounds[i - 1]}")
        if i < n - 1:
            conds.append(f"{col} < {bounds[i]}")
        cond = " AND ".join(conds) or "1"
        if nulls_first and i == 0:
            cond = f"({cond}) OR {col} IS NULL" if conds else cond
        out.append(cond)
    return out


__all__ = ["Plan", "split_table", "sql_string"]
