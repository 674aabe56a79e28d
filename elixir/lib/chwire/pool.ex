defmodule Chwire.Pool do
  @moduledoc """
  A pool of connections, accepted wherever a connection is (`Chwire.query(pool, ...)` from any
  number of processes). Plain OTP: the pool is a process that owns chwire's pool (the core's:
  connections opened on demand up to `size:`, a checkout waiting at most `checkout_timeout:`
  ms and then failing with a `:timeout` error, a broken connection closed instead of returned
  and replaced by a new one at the next checkout, idle connections pinged after
  `health_check_after:` ms). Each query checks a connection out for its own duration, on
  chwire's threads; the pool process is not on the data path.

  Options: `url:` and the connection options of `Chwire.start_link/1`; `size:` (default 10),
  `min_idle:`, `checkout_timeout:` (ms, default 30000), `idle_timeout:`, `max_lifetime:`,
  `health_check_after:`, `name:`.
  """
  use GenServer

  alias Chwire.Native

  @pool_keys [
    :size,
    :min_idle,
    :checkout_timeout,
    :idle_timeout,
    :max_lifetime,
    :health_check_after
  ]

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
    {pool_opts, opts} = Keyword.split(opts, @pool_keys)
    pool_opts = Enum.map(pool_opts, fn {k, v} -> {to_string(k), v} end)

    with {:ok, kv} <- Chwire.Connection.options(opts),
         {:ok, h} <- Native.pool_new(url, kv, pool_opts) do
      {:ok, h}
    else
      {:error, e} -> {:stop, e}
    end
  end

  @impl true
  def handle_call(:chwire_handle, _from, h), do: {:reply, h, h}
end
