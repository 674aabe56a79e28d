defmodule Chwire.Connection do
  @moduledoc """
  The process that owns one ClickHouse connection (`Chwire.start_link/1`). Queries do not go
  through it: callers fetch its NIF handle and run on chwire's threads, the terms built in the
  caller. One connection runs one query at a time; callers from several processes queue on it
  (use `Chwire.Pool` for parallel queries). The connection is closed when this process exits.
  """
  use GenServer

  alias Chwire.Native

  def start_link(opts) do
    {gen, opts} = Keyword.split(opts, [:name])
    GenServer.start_link(__MODULE__, opts, gen)
  end

  @doc "The connection's `%Chwire.Handle{}`."
  def handle(conn), do: %Chwire.Handle{ref: GenServer.call(conn, :chwire_handle)}

  @impl true
  def init(opts) do
    {url, opts} = Keyword.pop(opts, :url)
    id = :erlang.unique_integer([:positive])

    with {:ok, kv} <- Chwire.Connection.options(opts),
         {:ok, op} <- Native.connect(url, kv, id),
         {:ok, h} <- Chwire.await(op, id, false) do
      Process.flag(:trap_exit, true)
      {:ok, h}
    else
      {:error, e} -> {:stop, e}
    end
  end

  @impl true
  def handle_call(:chwire_handle, _from, h), do: {:reply, h, h}

  @impl true
  def terminate(_reason, h), do: Native.close(h)

  @doc false
  # Connection options other than the URL, by their URL keys, as text; `settings:` are the
  # settings sent with every query.
  def options(opts) do
    {settings, opts} = Keyword.pop(opts, :settings, [])

    with {:ok, s} <- Chwire.settings(settings: settings) do
      kv =
        Enum.map(opts, fn
          {k, true} -> {to_string(k), "true"}
          {k, false} -> {to_string(k), "false"}
          {k, v} -> {to_string(k), to_string(v)}
        end)

      {:ok, kv ++ s}
    end
  end
end
