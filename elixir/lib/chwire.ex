defmodule Chwire do
  @moduledoc """
  A ClickHouse client for Elixir over chwire's Rust core (native protocol, TLS, failover,
  pools, Arrow), as a NIF.

      {:ok, conn} = Chwire.start_link(url: "tcp://default@127.0.0.1:9000/default")
      {:ok, %Chwire.Result{rows: rows}} = Chwire.query(conn, "SELECT {n:UInt64} + 1", %{n: 41})
      {:ok, [{"number", numbers}]} = Chwire.query_columns(conn, "SELECT number FROM system.numbers LIMIT 5")
      {:ok, 2} = Chwire.insert(conn, "t", %{"a" => [1, 2], "b" => ["x", "y"]})
      Chwire.stream(conn, "SELECT * FROM big") |> Stream.map(& &1.num_rows) |> Enum.sum()

  `conn` is anything `start_link/1` or `Chwire.Pool.start_link/1` returned (a pid or a
  registered name). Every function returns `{:ok, _}` or `{:error, %Chwire.Error{}}`, and has
  a `!` variant that raises; `stream/4` returns a lazy `Stream` (raising on errors while it
  is enumerated).

  The network runs on chwire's own threads, never on a BEAM scheduler: the calling process
  waits in `receive` and then builds the result's terms itself (on a dirty CPU scheduler when
  they are many), so results are never copied between processes.
  """

  alias Chwire.Native

  # Items holding more values than this are built on a dirty CPU scheduler.
  @dirty_cells 20_000
  # The options each reading call takes (a stream is never bounded: memory is a block).
  @stream_opts [:settings, :query_id]
  @query_opts @stream_opts ++ [:max_collected_rows, :max_collected_bytes]
  @arrow_opts @query_opts ++ [:arrow_mapping]
  @insert_arrow_opts @stream_opts ++ [:block_rows]
  @insert_opts @insert_arrow_opts ++ [:columns]

  @type conn :: GenServer.server()
  @type params :: map() | keyword()

  @doc """
  Connects (the process owns the connection): `url:` is chwire's URL
  (`tcp://user:pass@host:9000,host2:9000/db?secure=true&connect_timeout=5s&...`: every option of
  the core, hosts with failover, TLS, settings and timeouts); other keys override the URL's
  options by their URL names (`host:`, `port:`, `user:`, `password:`, `database:`,
  `compression:`, `query_timeout:`, ...). A duration given as an integer is milliseconds, as
  Erlang's timeouts are (`connect_timeout: 5_000`), or the core's text (`"5s"`), `:infinity`
  for none. `name:` registers the process.
  """
  def start_link(opts), do: Chwire.Connection.start_link(opts)

  @doc false
  def child_spec(opts), do: Chwire.Connection.child_spec(opts)

  @doc """
  Runs `sql` and returns `%Chwire.Result{columns, types, rows, num_rows}`.

  `params` bind `{name:Type}` placeholders (a map or keyword list): integers, floats, strings,
  booleans, `nil`, `Date`, `Time`, `DateTime`, `NaiveDateTime` (as UTC), `Chwire.Decimal`,
  `Chwire.DateTime64`, and lists, tuples and maps of them, each built by the placeholder's
  declared type (an integer out of its range is an error); values arrive as data, never as
  SQL. `opts`: `settings:` (a map or keyword list of ClickHouse settings), `query_id:`,
  `max_collected_rows:`, `max_collected_bytes:`; another key is an error.

  The whole result is collected before it is returned; it can be bounded (the core's options
  of docs/OPTIONS.md, the same in every binding; `:infinity` or `0` by default, so set them
  where a runaway result must not fill the VM's memory): `max_collected_rows:` and
  `max_collected_bytes:` of decoded column data
  (as chwire holds it: fixed-width values at their width, strings their bytes plus 8 per value,
  arrays 8 per row (and 8 more per block) plus their elements, Nullable 1 per row more; the terms built from it are
  larger). A result that goes over either is not read further: the query is cancelled on the
  server and the result is `{:error, %Chwire.Error{kind: :limit, name: "MAX_ROWS_EXCEEDED"}}`
  (or `"MAX_BYTES_EXCEEDED"`), the connection usable at once. These are not ClickHouse's
  `max_result_rows`/`max_result_bytes` settings (those go in `settings:`). `stream/4` reads
  results of any size in memory bounded by a block.
  """
  def query(conn, sql, params \\ %{}, opts \\ []), do: run_query(conn, sql, params, opts, false)

  def query!(conn, sql, params \\ %{}, opts \\ []), do: bang(query(conn, sql, params, opts))

  @doc """
  Runs `sql` and returns its columns in query order as `[{name, values}]`. `opts` as `query/4`'s
  (`max_collected_rows:`, `max_collected_bytes:` bound the result the same way).
  """
  def query_columns(conn, sql, params \\ %{}, opts \\ []),
    do: run_query(conn, sql, params, opts, true)

  def query_columns!(conn, sql, params \\ %{}, opts \\ []),
    do: bang(query_columns(conn, sql, params, opts))

  @doc """
  Runs a statement for its effect (DDL, `INSERT ... SELECT`, ...): `{:ok, num_rows}` of whatever
  it returned (0 for most), the rows themselves dropped.
  """
  def execute(conn, sql, params \\ %{}, opts \\ []) do
    with {:ok, %Chwire.Result{num_rows: n}} <- query(conn, sql, params, opts), do: {:ok, n}
  end

  def execute!(conn, sql, params \\ %{}, opts \\ []), do: bang(execute(conn, sql, params, opts))

  @doc """
  A lazy `Stream` of `%Chwire.Result{}`, one per block the server sends. Memory is bounded by
  a block or two whatever the result's size: chwire reads the next block only once the
  consumer took the previous one. Stopping early (`Enum.take/2`, a `Stream.take_while/2`, an
  exception, the consumer's exit) cancels the query on the server; the connection is usable
  right after. Errors are raised as `Chwire.Error` while enumerating.
  """
  def stream(conn, sql, params \\ %{}, opts \\ []) do
    Stream.resource(
      fn ->
        id = unique()

        with {:ok, sql, params} <- args(sql, params, opts, @stream_opts),
             {:ok, h} <- handle(conn),
             {:ok, settings} <- settings(opts),
             {:ok, op} <-
               native_query(
                 h,
                 sql,
                 params,
                 settings,
                 qid(opts),
                 true,
                 false,
                 nil,
                 id
               ) do
          # A connection (not a pool) stays with its stream until the stream ends: a query on
          # it from the consuming process would wait for itself.
          if Native.pool_status(h) == nil, do: Process.put({:chwire_streaming, h}, id)
          {op, id, h, self()}
        else
          {:error, e} -> raise e
        end
      end,
      fn
        {_, _, _, pid} when pid != self() ->
          # The op's messages go to the process that started it: waiting here would hang.
          raise %Chwire.Error{
            kind: :busy,
            name: "BUSY",
            message:
              "a stream is enumerated by the process that started it (#{inspect(pid)}), " <>
                "not continued in another"
          }

        {op, id, _, _} = acc ->
          case await(op, id, false) do
            {:header, _} -> {[], acc}
            {:block, result} -> {[result], acc}
            :done -> {:halt, acc}
            {:error, e} -> raise e
          end
      end,
      fn {op, id, h, _} ->
        cancel(op, id)
        if Process.get({:chwire_streaming, h}) == id, do: Process.delete({:chwire_streaming, h})
      end
    )
  end

  def stream!(conn, sql, params \\ %{}, opts \\ []), do: stream(conn, sql, params, opts)

  @doc """
  Runs `sql` and returns its whole result as one Arrow IPC stream (a binary):
  `Explorer.DataFrame.load_ipc_stream!/1` reads it. The binary is chwire's buffer handed to the
  VM without a copy. `opts`: `arrow_mapping:` `:rich` (default: natural Arrow types) or `:clickhouse`
  (ClickHouse's own Arrow output; docs/ARROW.md), `settings:` (`output_format_arrow_*` ones
  shape the batches and are not sent), `query_id:`, `max_collected_rows:` and
  `max_collected_bytes:` (of decoded column data, as for `query/4`; both `:infinity` by
  default): past either the query is cancelled and the result is a `:limit` error.
  """
  def query_arrow(conn, sql, params \\ %{}, opts \\ []) do
    id = unique()

    with {:ok, sql, params} <- args(sql, params, opts, @arrow_opts),
         {:ok, limits} <- limits(opts),
         {:ok, h} <- handle(conn),
         {:ok, settings} <- settings(opts),
         {:ok, op} <-
           Native.query_arrow(
             h,
             sql,
             params,
             settings,
             qid(opts),
             to_string(Keyword.get(opts, :arrow_mapping, :rich)),
             limits,
             id
           ) do
      await(op, id, false)
    end
  end

  def query_arrow!(conn, sql, params \\ %{}, opts \\ []),
    do: bang(query_arrow(conn, sql, params, opts))

  @doc """
  Inserts an Arrow IPC stream into `table` (columns by name, converted losslessly to the
  table's types): `{:ok, rows}`. `table` as for `insert/4`. The stream's batches are gathered
  and cut into blocks of `block_rows:` rows (default 1048576, the core's). Data that does not
  fit ends the insert with the blocks before it committed: the error's `rows_inserted` says
  how many rows that was. `opts`: `block_rows:`, `settings:`, `query_id:`.
  """
  def insert_arrow(conn, table, ipc, opts \\ [])

  def insert_arrow(conn, table, ipc, opts) when is_binary(ipc) do
    id = unique()

    with :ok <- known_opts(opts, @insert_arrow_opts),
         {:ok, _} <- block_rows(opts),
         {:ok, h} <- handle(conn),
         {:ok, settings} <- settings(opts),
         {:ok, op} <-
           Native.insert_arrow(h, table, ipc, settings, qid(opts), insert_options(opts), id) do
      await(op, id, false)
    end
  end

  def insert_arrow(_conn, _table, ipc, _opts),
    do:
      {:error,
       data_error("insert_arrow/4 takes an Arrow IPC stream as a binary, not #{inspect(ipc)}")}

  def insert_arrow!(conn, table, ipc, opts \\ []), do: bang(insert_arrow(conn, table, ipc, opts))

  @doc """
  Inserts `data` into `table`: `{:ok, rows}`.

  `table` is a name, `"events"` or `"db.events"` (backquoted parts for other characters:
  ``"`my db`.`a.b`"``), or a tuple `{"db", "events"}` whose parts are taken as they are
  (names with dots). The name is read and quoted again, never pasted into SQL: one that does
  not read as a table (`"t; DROP TABLE x"`, quotes, an empty name) is a `:data` error and
  nothing runs.

  `data` is columns — `[{name, values}]` or a map `%{name => values}` — or rows: a list of
  lists (in the table's column order, or `columns:`'s) or a list of maps (`%{name => value}`,
  string or atom keys). Data is sent in blocks of `block_rows:` rows (default 1048576, the
  core's) while the next block is built. A value that does not fit its column is an error
  naming the column and the row; nothing of that block is sent, and the insert ends with the
  blocks before it committed (as every front end's insert: ClickHouse has no transactions, so
  what was sent is committed and counted): the error's `rows_inserted` says how many rows.
  `opts`: `columns:`, `block_rows:`, `settings:`, `query_id:`.
  """
  def insert(conn, table, data, opts \\ []) do
    case known_opts(opts, @insert_opts) == :ok && shape(data, opts) do
      false ->
        known_opts(opts, @insert_opts)

      {:error, e} ->
        {:error, e}

      :empty ->
        with {:ok, _} <- block_rows(opts), :ok <- Native.check_table(table), do: {:ok, 0}

      {layout, names, payload} ->
        id = unique()

        with {:ok, rows} <- block_rows(opts),
             {:ok, h} <- handle(conn),
             {:ok, settings} <- settings(opts),
             {:ok, op} <- Native.insert_start(h, table, names, settings, qid(opts), id) do
          case await(op, id, false) do
            {:insert_header, _cols} ->
              # The op holds the connection until it ends: an error or a raise while feeding
              # (a bad value the NIF raises on) aborts it at once, not when it is collected.
              result =
                try do
                  feed(op, id, layout, payload, rows, 0, 0)
                rescue
                  e ->
                    cancel(op, id)
                    reraise e, __STACKTRACE__
                end

              case result do
                {:refused, e} ->
                  {:error, e}

                {:error, _} ->
                  cancel(op, id)
                  result

                ok ->
                  ok
              end

            {:error, e} ->
              {:error, e}
          end
        end
    end
  end

  def insert!(conn, table, data, opts \\ []), do: bang(insert(conn, table, data, opts))

  @doc "Pings the server through `conn`: `{:ok, :pong}`."
  def ping(conn) do
    id = unique()

    with {:ok, h} <- handle(conn), {:ok, op} <- Native.ping(h, id) do
      with {:ok, _} <- await(op, id, false), do: {:ok, :pong}
    end
  end

  @doc """
  Decodes Native-format bytes (`FORMAT Native`, or files ClickHouse wrote) with chwire's
  decoders: `{:ok, [%Chwire.Result{}]}`, one per block. `tz` is the zone of DateTime columns
  without their own (default UTC).
  """
  def decode_native(bytes, tz \\ nil), do: Native.decode_native(bytes, tz)

  @doc """
  Encodes `[{name, type, values}]` as one Native block with the same value rules as `insert/4`.
  """
  def encode_native(columns), do: Native.encode_native(columns)

  # ------------------------------------------------------------------ internals

  defp run_query(conn, sql, params, opts, columns) do
    id = unique()

    with {:ok, sql, params} <- args(sql, params, opts, @query_opts),
         {:ok, limits} <- limits(opts),
         {:ok, h} <- handle(conn),
         {:ok, settings} <- settings(opts),
         {:ok, op} <-
           native_query(
             h,
             sql,
             params,
             settings,
             qid(opts),
             false,
             columns,
             limits,
             id
           ) do
      await(op, id, columns)
    end
  end

  # Parameters with lists, tuples or maps are converted on a dirty scheduler (their
  # conversion takes as long as they are long); plain ones, the common case, are not.
  # `limits`: the bounds of a result collected whole, as `{key, text}` pairs (nil: none).
  defp native_query(h, sql, params, settings, query_id, stream, columns, limits, id) do
    limits = limits || []

    if Enum.any?(params, fn {_, v} -> is_list(v) or is_tuple(v) or is_map(v) end),
      do: Native.query_dirty(h, sql, params, settings, query_id, stream, columns, limits, id),
      else: Native.query(h, sql, params, settings, query_id, stream, columns, limits, id)
  end

  # An insert's options as the core's `{key, text}` pairs (`block_rows:`; the core reads them).
  defp insert_options(opts) do
    case Keyword.fetch(opts, :block_rows) do
      {:ok, n} -> [{"block_rows", option_text(n)}]
      :error -> []
    end
  end

  # `block_rows:` of an insert as the core reads it (a whole number, 1 or more; else a
  # `:config` error).
  defp block_rows(opts), do: Native.insert_block_rows(insert_options(opts))

  # An option's value as text for the core to read (which refuses what is not of its kind).
  defp option_text(v) when is_binary(v), do: v
  defp option_text(v) when is_integer(v), do: Integer.to_string(v)
  defp option_text(v) when is_atom(v), do: Atom.to_string(v)
  defp option_text(v), do: inspect(v)

  # `max_collected_rows:` and `max_collected_bytes:` as the core's `{key, text}` pairs (the core
  # reads them: `0` or `:infinity` for no bound, a whole number otherwise).
  defp limits(opts) do
    Enum.reduce_while([:max_collected_rows, :max_collected_bytes], {:ok, []}, fn key,
                                                                                 {:ok, acc} ->
      case Keyword.get(opts, key, :infinity) do
        :infinity ->
          {:cont, {:ok, acc}}

        # The core reads the value (a bad one is its `:config` error).
        v ->
          {:cont, {:ok, [{to_string(key), option_text(v)} | acc]}}
      end
    end)
  end

  defp feed(op, id, layout, data, block_rows, row, inflight) do
    cond do
      data == [] ->
        Native.insert_end(op)
        finish(op, id, inflight)

      inflight >= 2 ->
        case await(op, id, false) do
          :sent -> feed(op, id, layout, data, block_rows, row, inflight - 1)
          {:error, e} -> {:error, e}
        end

      true ->
        case Native.insert_block_dirty(op, layout, data, block_rows, row) do
          {:ok, 0, rest} -> feed(op, id, layout, rest, block_rows, row, inflight)
          {:ok, n, rest} -> feed(op, id, layout, rest, block_rows, row + n, inflight + 1)
          # The insert task ended: its error is the op's next item.
          {:error, :done} -> finish(op, id, inflight)
          {:error, e} -> refused(op, id, inflight, e)
        end
    end
  end

  # Data refused mid-insert: the blocks before it are committed (the core's rule, every front
  # end's: ClickHouse has no transactions) and the error says how many rows went in.
  defp refused(op, id, inflight, e) do
    Native.insert_end(op)

    case finish(op, id, inflight) do
      {:ok, 0} ->
        {:refused, %{e | rows_inserted: 0, message: e.message <> "; nothing was inserted"}}

      {:ok, 1} ->
        {:refused,
         %{e | rows_inserted: 1, message: e.message <> "; the 1 row before it was inserted"}}

      {:ok, n} ->
        {:refused,
         %{e | rows_inserted: n, message: e.message <> "; the #{n} rows before it were inserted"}}

      {:error, e2} ->
        {:error, e2}
    end
  end

  defp finish(op, id, inflight) do
    case await(op, id, false) do
      :sent -> finish(op, id, inflight - 1)
      {:ok, n} -> {:ok, n}
      {:error, e} -> {:error, e}
    end
  end

  defp shape(data, opts) do
    cols = Keyword.get(opts, :columns)

    cond do
      is_map(data) and not is_struct(data) ->
        {names, values} = data |> Enum.map(fn {k, v} -> {to_string(k), v} end) |> Enum.unzip()
        if names == [], do: :empty, else: columns(names, values)

      data == [] ->
        :empty

      is_list(data) ->
        case hd(data) do
          {_name, values} when is_list(values) ->
            {names, values} = data |> Enum.map(fn {k, v} -> {to_string(k), v} end) |> Enum.unzip()
            columns(names, values)

          row when is_list(row) ->
            {:rows, cols && Enum.map(cols, &to_string/1), data}

          # Without `columns:`, a row's key that is no column is an error (a typo would
          # silently drop its values); with it, the other keys are ignored.
          row when is_map(row) ->
            names = cols || Map.keys(row)
            {if(cols, do: :maps_subset, else: :maps), Enum.map(names, &to_string/1), data}

          other ->
            {:error,
             data_error(
               "insert data must be columns or rows (lists or maps), not #{inspect(other)}"
             )}
        end

      true ->
        {:error, data_error("insert data must be a map or a list, not #{inspect(data)}")}
    end
  end

  # Columns of different lengths are an error before anything is sent (found block by block,
  # the blocks before the short column's end would be in the table already).
  defp columns(names, values) do
    lengths = Enum.map(values, &proper_length/1)

    case Enum.find_index(lengths, &(&1 == nil)) do
      nil ->
        case Enum.uniq(lengths) do
          [_] ->
            {:columns, names, values}

          _ ->
            desc = Enum.zip_with(names, lengths, &"`#{&1}`: #{&2}") |> Enum.join(", ")
            {:error, data_error("the columns have different numbers of values (#{desc})")}
        end

      i ->
        {:error, data_error("column `#{Enum.at(names, i)}`: not a proper list")}
    end
  end

  defp proper_length(l) when is_list(l) do
    length(l)
  rescue
    ArgumentError -> nil
  end

  defp proper_length(_), do: nil

  defp data_error(msg), do: %Chwire.Error{kind: :data, name: "DATA", message: msg}

  @doc false
  def await(op, id, columns) do
    receive do
      {:chwire, ^id, cells} ->
        item =
          if cells > @dirty_cells,
            do: take_large(op, columns, cells),
            else: Native.op_take(op, columns)

        case item do
          :empty -> await(op, id, columns)
          item -> item
        end
    end
  end

  # A large result's terms are built on a dirty scheduler, straight into the caller's heap:
  # the heap is grown to hold them first (one small GC now), so they are not written to heap
  # fragments that a GC would copy again right after the call (that copy was as long as
  # building the terms: docs/BENCHMARKS.md).
  # The words are the NIF's count of what the terms take when it encoded them whole (strings
  # as their heap part, not their bytes: a string of 100 MB is a few words), else a bound
  # from the number of values.
  defp take_large(op, columns, cells) do
    words =
      case Native.op_words(op) do
        nil -> cells * if(columns, do: 4, else: 6)
        w -> w + div(w, 8) + 1024
      end

    with_heap(words, fn -> Native.op_take_dirty(op, columns) end)
  end

  @doc false
  # Run `fun` (a NIF that builds about `words` words of terms) with the heap grown to hold them.
  def with_heap(words, fun) do
    old = Process.flag(:min_heap_size, words)
    # A minor collection: it grows the young heap without copying the caller's old data.
    :erlang.garbage_collect(self(), type: :minor)

    try do
      fun.()
    after
      Process.flag(:min_heap_size, old)
    end
  end

  defp cancel(op, id) do
    Native.op_cancel(op)
    flush(id)
  end

  defp flush(id) do
    receive do
      {:chwire, ^id, _} -> flush(id)
    after
      0 -> :ok
    end
  end

  @doc false
  def handle(conn) do
    h =
      case conn do
        %Chwire.Handle{ref: ref} -> ref
        _ -> GenServer.call(conn, :chwire_handle)
      end

    if streaming?(h) do
      {:error,
       %Chwire.Error{
         kind: :busy,
         name: "BUSY",
         message:
           "this process is streaming a query on this connection: finish or stop the stream " <>
             "first, or use a Chwire.Pool (a connection runs one query at a time)"
       }}
    else
      collect_owners(h)
      {:ok, h}
    end
  catch
    :exit, reason ->
      {:error,
       %Chwire.Error{
         kind: :closed,
         name: "CLOSED",
         message: "no chwire connection or pool at #{inspect(conn)}: #{inspect(reason)}"
       }}
  end

  # Whether this process has a stream open on the connection `h`. A stream driven by hand
  # (`Enumerable.reduce/3` suspended, a `Stream.transform/3` consumer) and dropped without
  # being halted never ran its `after` step: its op is alive until a garbage collection frees
  # it, and then its destructor cancels the query and frees the connection. So before saying
  # `:busy` the process collects its garbage and asks whether the stream's op survived (the
  # VM may run a collected resource's destructor a moment after the collection: it is asked
  # again for up to about 50 ms).
  defp streaming?(h) do
    case Process.get({:chwire_streaming, h}) do
      nil ->
        false

      id ->
        :erlang.garbage_collect(self())

        if stream_alive?(id, 50) do
          true
        else
          Process.delete({:chwire_streaming, h})
          false
        end
    end
  end

  # Another process's stream abandoned on the connection `h` holds it until that process
  # collects its garbage, which an idle process may never do: it is asked to now (a stream it
  # still consumes survives that, and this query queues behind it).
  defp collect_owners(h) do
    me = self()
    for pid <- Native.stream_owners(h), pid != me, do: :erlang.garbage_collect(pid)
    :ok
  end

  defp stream_alive?(id, tries) do
    cond do
      not Native.stream_open(id) -> false
      tries == 0 -> true
      true -> Process.sleep(1) == :ok and stream_alive?(id, tries - 1)
    end
  end

  defp unique, do: :erlang.unique_integer([:positive])

  defp qid(opts), do: Keyword.get(opts, :query_id)

  # The arguments every query takes, checked (a bad one is a :data error, not a raise): the
  # SQL as iodata, the parameters as a map or keyword list by name, the options as a keyword
  # list with a string query_id. Returns the SQL as a binary and the parameters prepared.
  defp args(sql, params, opts, allowed) do
    cond do
      (bad = known_opts(opts, allowed)) != :ok ->
        bad

      not by_name?(params) ->
        {:error,
         data_error(
           "params: must be a map or keyword list of name => value, not #{inspect(params)}"
         )}

      true ->
        with {:ok, sql} <- sql_text(sql),
             {:ok, params} <- prep_params(params),
             do: {:ok, sql, params}
    end
  end

  defp insert_opts(opts),
    do: Keyword.keyword?(opts) and (qid(opts) == nil or is_binary(qid(opts)))

  # A call's options: a keyword list of `allowed` keys, each given once, with a string
  # query_id:.
  defp known_opts(opts, allowed) do
    cond do
      not insert_opts(opts) ->
        {:error,
         data_error("opts: must be a keyword list with a string query_id:, not #{inspect(opts)}")}

      (unknown = Enum.uniq(Keyword.keys(opts)) -- allowed) != [] ->
        {:error,
         data_error(
           "unknown option #{inspect(hd(unknown))}: this call takes " <>
             Enum.map_join(allowed, ", ", &"#{&1}:") <> " (ClickHouse settings go in settings:)"
         )}

      (twice = Keyword.keys(opts) -- Enum.uniq(Keyword.keys(opts))) != [] ->
        {:error, data_error("option #{inspect(hd(twice))} is given twice")}

      true ->
        :ok
    end
  end

  defp by_name?(params) when is_map(params),
    do: Enum.all?(Map.keys(params), &(is_atom(&1) or is_binary(&1)))

  defp by_name?(params) when is_list(params),
    do: Enum.all?(params, &match?({k, _} when is_atom(k) or is_binary(k), &1))

  defp by_name?(_), do: false

  defp sql_text(sql) when is_binary(sql), do: {:ok, sql}

  defp sql_text(sql) do
    {:ok, IO.iodata_to_binary(sql)}
  rescue
    ArgumentError -> {:error, data_error("sql: must be a string (iodata), not #{inspect(sql)}")}
  end

  @doc false
  def settings(opts) do
    given = Keyword.get(opts, :settings, [])

    if by_name?(given) do
      Enum.reduce_while(given, {:ok, []}, fn
        {k, true}, {:ok, acc} ->
          {:cont, {:ok, [{to_string(k), "1"} | acc]}}

        {k, false}, {:ok, acc} ->
          {:cont, {:ok, [{to_string(k), "0"} | acc]}}

        {k, v}, {:ok, acc} when is_binary(v) or is_number(v) or is_atom(v) ->
          {:cont, {:ok, [{to_string(k), to_string(v)} | acc]}}

        {k, v}, _ ->
          {:halt,
           {:error,
            data_error(
              "settings: #{k} must be a string, number, atom or boolean, not #{inspect(v)}"
            )}}
      end)
      |> case do
        {:ok, s} -> {:ok, Enum.reverse(s)}
        e -> e
      end
    else
      {:error,
       data_error(
         "settings: must be a map or keyword list of name => value, not #{inspect(given)}"
       )}
    end
  end

  @doc false
  def prep_params(params) do
    {:ok, Enum.map(params, fn {k, v} -> {to_string(k), prep(v)} end)}
  rescue
    e in Protocol.UndefinedError ->
      {:error, data_error("params: #{inspect(e.value)} has no text to bind")}
  end

  defp prep(%Date{} = d), do: Date.to_iso8601(d)
  # As inserts take it: UTC. Its text would be read in the server's time zone (or the
  # placeholder's), another instant on a server that is not in UTC.
  defp prep(%NaiveDateTime{} = d), do: d |> DateTime.from_naive!("Etc/UTC") |> prep()
  defp prep(%Time{} = t), do: Time.to_string(t)
  defp prep(%Chwire.Decimal{} = d), do: Chwire.Decimal.to_string(d)

  defp prep(%Chwire.DateTime64{ticks: t, precision: p}) do
    Chwire.Decimal.to_string(%Chwire.Decimal{coef: t, scale: p})
  end

  defp prep(%DateTime{} = d) do
    us = DateTime.to_unix(d, :microsecond)

    if rem(us, 1_000_000) == 0,
      do: div(us, 1_000_000),
      else: prep(%Chwire.Decimal{coef: us, scale: 6})
  end

  defp prep(%_{} = s), do: to_string(s)
  defp prep(l) when is_list(l), do: prep_list(l)
  defp prep(t) when is_tuple(t), do: t |> Tuple.to_list() |> Enum.map(&prep/1) |> List.to_tuple()
  defp prep(m) when is_map(m), do: Map.new(m, fn {k, v} -> {prep(k), prep(v)} end)
  defp prep(v), do: v

  # An improper list's tail is left as it is: the NIF rejects it as a :data error.
  defp prep_list([h | t]), do: [prep(h) | prep_list(t)]
  defp prep_list(tail), do: tail

  defp bang({:ok, v}), do: v
  defp bang({:error, e}), do: raise(e)
end
