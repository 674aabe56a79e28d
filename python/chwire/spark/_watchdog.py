"""Stops a read's HTTP query when the Spark task that runs it is killed.

Spark kills the Python worker of a killed task with SIGKILL (pyspark/daemon.py), so no code of
the worker runs: over the native protocol the server sees the closed connection and stops the
query, but over HTTP a server notices a closed connection only when it next writes, and a query
that returns little (a selective filter, an aggregation) would run on. So a read over HTTP starts
this process, which outlives the worker: it reads the connection and the query id from its
stdin, then waits. The reader writes ``done`` when the read ends; if its stdin ends without it
(the worker died), it kills the query by its id (``KILL QUERY ... ASYNC``, as chwire's client
does for every query it gives up on) on every server of the URL, then exits.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    job = json.loads(sys.stdin.readline())
    if sys.stdin.readline().strip() == "done":
        return
    import chwire

    for url in job["urls"]:
        try:
            with chwire.connect(url, **job["connect"]) as c:
                c.command("KILL QUERY WHERE query_id = {q:String} ASYNC", parameters={"q": job["query_id"]})
        except Exception:  # the server is gone, or the query ran elsewhere: nothing to stop
            pass


if __name__ == "__main__":
    main()
