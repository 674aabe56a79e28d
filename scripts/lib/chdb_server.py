"""ClickHouse 26.9 as a server, from PyPI's chdb-core (scripts/server.sh runs this).

chdb's module-level query runs a whole clickhouse-local, which reads ./config.xml (the
current directory is the instance's) with its listeners, users and clusters. It starts the
native and HTTP listeners and then runs one statement that never ends on its own: while it
runs, the listeners serve every other connection. `scripts/server.sh stop` ends it with
KILL QUERY (this process then exits 0) and SIGKILLs what does not exit.

usage: python chdb_server.py DATA_DIR
"""
import sys

# The statement that keeps the process up: one row a second for ~31 years. Its comment is
# what `scripts/server.sh stop` kills it by.
KEEPALIVE = (
    "SELECT sleepEachRow(1) FROM numbers(1000000000) "
    "SETTINGS max_block_size = 1 FORMAT Null /* chwire-rig-keepalive */"
)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    import chdb._chdb as chdb  # the engine alone; chdb's Python API needs pandas

    try:
        # A KILL QUERY of the keep-alive statement returns normally (clickhouse-local prints
        # the cancellation on stderr); anything else that ends it is an error.
        chdb.query(f"SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; {KEEPALIVE}", "Null", path=sys.argv[1])
    except Exception as e:  # noqa: BLE001 - chdb raises its own RuntimeError subclasses
        print(f"chdb_server: {e}", file=sys.stderr, flush=True)
        return 1
    print("chdb_server: stopped", flush=True)
    return 0

if __name__ == "__main__":
    sys.exit(main())
