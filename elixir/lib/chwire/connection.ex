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

    with {:ok, s} <- Chwire.settings(settings: settings),
         {:ok, kv} <- texts(opts),
         do: {:ok, kv ++ s}
  end

  # Each option's value as the core reads it: a duration (the core's table says which keys
  # take one) given as an integer is milliseconds, as Erlang's timeouts are, `:infinity` none;
  # a float is refused there (seconds or milliseconds would be a guess). The core checks the
  # rest.
  defp texts(opts) do
    Enum.reduce_while(opts, {:ok, []}, fn {k, v}, {:ok, acc} ->
      key = to_string(k)

      case text(key, v, (is_number(v) or v == :infinity) and Native.duration_key(key)) do
        {:ok, t} -> {:cont, {:ok, acc ++ [{key, t}]}}
        {:error, _} = e -> {:halt, e}
      end
    end)
  end

  defp text(_, n, true) when is_integer(n), do: {:ok, "#{n}ms"}
  defp text(_, :infinity, true), do: {:ok, "none"}

  defp text(key, v, true),
    do:
      {:error,
       %Chwire.Error{
         kind: :config,
         name: "CONFIG",
         message:
           "#{key}: #{inspect(v)} is no duration: give whole milliseconds (an integer), " <>
             "text such as \"1.5s\", or :infinity"
       }}

  defp text(_, true, _), do: {:ok, "true"}
  defp text(_, false, _), do: {:ok, "false"}
  defp text(_, v, _), do: {:ok, to_string(v)}
end
