defmodule Chwire.Pool do
  @moduledoc """
  A pool of connections, accepted wherever a connection is (`Chwire.query(pool, ...)` from any
  number of processes). Plain OTP: the pool is a process that owns chwire's pool (the core's:
  connections opened on demand up to `max_size:`, a checkout waiting at most
  `acquire_timeout:` and then failing with a `:timeout` error, a broken connection closed
  instead of returned and replaced by a new one at the next checkout, idle connections pinged
  after `health_check_after:`). Each query checks a connection out for its own duration, on
  chwire's threads; the pool process is not on the data path.

  Options: `url:` and the connection options of `Chwire.start_link/1`; the core's pool options
  (docs/OPTIONS.md, the names every binding shares): `max_size:` (default 10), `min_idle:`,
  `acquire_timeout:` (default 30 s), `idle_timeout:`, `max_lifetime:`, `health_check_after:`,
  durations in milliseconds (an integer, as Erlang's timeouts) or the core's text (`"5s"`),
  `:infinity` for none; and `name:`.
  """
  use GenServer

  alias Chwire.Native

  def start_link(opts) do
    {gen, opts} = Keyword.split(opts, [:name])
    GenServer.start_link(__MODULE__, opts, gen)
  end

  @doc "The pool's `%Chwire.Handle{}`."
  def handle(pool), do: %Chwire.Handle{ref: GenServer.call(pool, :chwire_handle)}

  @doc "`%{size, idle, in_use, waiting}`: open connections, idle ones, slots taken, callers waiting."
  def status(pool), do: Native.pool_status(GenServer.call(pool, :chwire_handle))

  @impl true
  def init(opts) do
    {url, opts} = Keyword.pop(opts, :url)

    # The pool's keys and the connection's together: the core sorts them by its table.
    with {:ok, kv} <- Chwire.Connection.options(opts),
         {:ok, h} <- Native.pool_new(url, kv) do
      {:ok, h}
    else
      {:error, e} -> {:stop, e}
    end
  end

  @impl true
  def handle_call(:chwire_handle, _from, h), do: {:reply, h, h}
end
