"""The asyncio client: ``await chwire.connect_async(...)`` → ``AsyncClient``.

Each call runs the blocking client's method in a worker thread (``loop.run_in_executor``).
That is not a workaround: the Rust client already runs every query on its own tokio runtime
and releases the GIL while waiting, so the worker thread only parks on a channel, while the
event loop stays free. Bridging tokio futures into asyncio directly (pyo3-async-runtimes)
would save one thread hop per call, not per row, and would tie the package to that crate's
PyO3 version. Cancelling the awaiting task (``asyncio.wait_for`` timeouts, ``task.cancel()``)
cancels that call's query on the server (only that one: each call tags the tasks it starts);
the client stays usable. ``await chwire.create_pool_async(...)`` is the same over the core's
pool: as many calls run at once as the pool has connections.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, Optional, Sequence

from ._client import Client, Parameters, Progress, QueryResult, Settings, connect, create_pool
from ._errors import InterfaceError

# Tags of calls (RawClient.call_tag): a cancelled call cancels the tasks it started, no other's.
_CALLS = itertools.count(1)


class AsyncClient:
    """The methods of ``chwire.Client``, as coroutines: one query at a time on a client of one
    connection, as many as the pool has connections on a pool's (``create_pool_async``)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        # A thread per call that can run at once (one for a connection, the pool's max_size):
        # a query never waits behind another client's in a shared executor.
        workers = client._raw.concurrency()
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chwire-async")
        self._closed = False

    @property
    def client(self) -> Client:
        """The underlying blocking client."""
        return self._client

    async def _run(self, fn: Callable[..., Any], *args: Any, _call: Optional[int] = None, **kwargs: Any) -> Any:
        """``fn`` on a worker thread, its tasks tagged as call ``_call`` (a new one by default):
        cancelling the awaiting task cancels what that call started."""
        loop = asyncio.get_running_loop()
        tag = next(_CALLS) if _call is None else _call
        # A cancelled call that is still queued behind another one of this client must not
        # run, nor cancel the one that is running: only a running call cancels its query.
        phase = ["queued"]
        lock = threading.Lock()
        raw = self._client._raw

        def call() -> Any:
            with lock:
                if phase[0] == "skipped":
                    return None
                phase[0] = "running"
            raw.call_tag(tag)
            try:
                return fn(*args, **kwargs)
            finally:
                raw.call_tag(0)
                # Done: a late cancellation must not cancel the next call's query.
                with lock:
                    phase[0] = "done"

        try:
            fut = loop.run_in_executor(self._executor, call)
        except RuntimeError as e:  # the executor was shut down by close()
            raise InterfaceError("the client is closed") from e
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            if fut.cancelled():  # never ran: close() dropped it from the queue
                raise InterfaceError("the client is closed") from None
            with lock:
                running = phase[0] == "running"
                if not running:
                    phase[0] = "skipped"
            if not running:
                raise  # it will not run: nothing to wait for
            raw.cancel(tag)
            try:
                await fut  # ends soon: its task was aborted
            except Exception:
                pass
            raise

    async def query_arrow(self, query: str, parameters: Parameters = None, settings: Settings = None,
                          query_id: Optional[str] = None, progress: Progress = None) -> Any:
        return await self._run(self._client.query_arrow, query, parameters, settings, query_id, progress)

    async def query_df(self, query: str, parameters: Parameters = None, settings: Settings = None,
                       query_id: Optional[str] = None, progress: Progress = None,
                       dtype_backend: Optional[str] = None) -> Any:
        return await self._run(self._client.query_df, query, parameters, settings, query_id, progress,
                               dtype_backend)

    async def query_pl(self, query: str, parameters: Parameters = None, settings: Settings = None,
                       query_id: Optional[str] = None, progress: Progress = None) -> Any:
        return await self._run(self._client.query_pl, query, parameters, settings, query_id, progress)

    async def query_np(self, query: str, parameters: Parameters = None, settings: Settings = None,
                       query_id: Optional[str] = None, progress: Progress = None) -> Dict[str, Any]:
        return await self._run(self._client.query_np, query, parameters, settings, query_id, progress)

    async def query(self, query: str, parameters: Parameters = None, settings: Settings = None,
                    query_id: Optional[str] = None, progress: Progress = None) -> QueryResult:
        return await self._run(self._client.query, query, parameters, settings, query_id, progress)

    async def command(self, cmd: str, parameters: Parameters = None, settings: Settings = None,
                      query_id: Optional[str] = None) -> Any:
        return await self._run(self._client.command, cmd, parameters, settings, query_id)

    async def query_arrow_stream(self, query: str, parameters: Parameters = None, settings: Settings = None,
                                 query_id: Optional[str] = None, progress: Progress = None) -> "AsyncQueryStream":
        call = next(_CALLS)
        stream = await self._run(self._client.query_arrow_stream, query, parameters, settings, query_id, progress,
                                 _call=call)
        return AsyncQueryStream(self, stream, call)

    async def insert_arrow(self, table: str, data: Any, settings: Settings = None,
                           query_id: Optional[str] = None, *, block_rows: Optional[int] = None) -> int:
        return await self._run(self._client.insert_arrow, table, data, settings, query_id, block_rows=block_rows)

    async def insert_df(self, table: str, df: Any, settings: Settings = None, query_id: Optional[str] = None, *,
                        block_rows: Optional[int] = None) -> int:
        return await self._run(self._client.insert_df, table, df, settings, query_id, block_rows=block_rows)

    async def insert(self, table: str, data: Sequence[Sequence[Any]], column_names: Optional[Sequence[str]] = None,
                     settings: Settings = None, query_id: Optional[str] = None, *,
                     block_rows: Optional[int] = None) -> int:
        return await self._run(self._client.insert, table, data, column_names, settings, query_id,
                               block_rows=block_rows)

    async def close(self) -> None:
        """Close: running calls stop (their queries cancelled on the server; they raise), queued
        ones do not run, and the connections close."""
        if self._closed:
            return
        self._closed = True
        # Not queued behind the running calls: they are stopped first, then the client closed
        # on a thread of its own.
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._client._raw.cancel()
        await asyncio.get_running_loop().run_in_executor(None, self._client.close)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


class AsyncQueryStream:
    """``async for batch in stream`` over a query's record batches."""

    def __init__(self, client: AsyncClient, stream: Any, call: int) -> None:
        self._client = client
        self._stream = stream
        # The call that started the stream's task: cancelling a read cancels that task.
        self._call = call

    @property
    def schema(self) -> Any:
        return self._stream.schema

    def __aiter__(self) -> "AsyncQueryStream":
        return self

    async def __anext__(self) -> Any:
        batch = await self._client._run(next, self._stream, None, _call=self._call)
        if batch is None:
            raise StopAsyncIteration
        return batch

    async def close(self) -> None:
        """Stop reading: the query is cancelled on the server (also while another task reads
        the stream: that read then raises)."""
        self._client._client._raw.cancel(self._call)
        try:
            self._stream.close_stream()
        except RuntimeError:  # another task's read holds the stream; the cancel ends it
            pass

    async def __aenter__(self) -> "AsyncQueryStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


async def connect_async(url: Optional[str] = None, **kwargs: Any) -> AsyncClient:
    """``chwire.connect`` for asyncio (same arguments)."""
    loop = asyncio.get_running_loop()
    client = await loop.run_in_executor(None, functools.partial(connect, url, **kwargs))
    return AsyncClient(client)


async def create_pool_async(url: Optional[str] = None, pool: Optional[Dict[str, Any]] = None, **kwargs: Any) -> AsyncClient:
    """``chwire.create_pool`` for asyncio (same arguments): an ``AsyncClient`` whose calls run
    at once, each on a connection of the pool, up to its ``max_size``."""
    loop = asyncio.get_running_loop()
    client = await loop.run_in_executor(None, functools.partial(create_pool, url, pool, **kwargs))
    return AsyncClient(client)
