defmodule ChwireFeaturesTest do
  # The current server's features as users reach for them, from the cases every front end
  # shares (tests/features/*.json, read through tests/features/features.py: Elixir 1.14 has no
  # JSON parser and the binding takes no Hex packages): MergeTree tables of sparse columns at
  # every depth, JSON with typed paths and SKIP hints, Dynamic, Variant, Time/Time64, QBit,
  # BFloat16, LowCardinality across parts and Nested, read by query, query_columns, stream and
  # query_arrow over both transports and written back by insert and insert_arrow (the copy
  # equal to the table in the server's own text); server-side parameters of every type; HTTP
  # sessions; bad input against the current server.
  use ExUnit.Case, async: false
  import Chwire.TestHelper

  @features Path.expand("../../tests/features/features.py", __DIR__)

  setup_all do
    {etf, 0} = System.cmd("python3", [@features, "etf"])
    shared = :erlang.binary_to_term(etf)

    %{
      tables: shared["tables"],
      params: shared["params"],
      refusals: shared["refusals"],
      dynamic: shared["dynamic"],
      statements: shared["statements"],
      texts: shared["texts"],
      nulls: shared["nulls"],
      limits: shared["limits"],
      pool: shared["pool"],
      blocks: shared["blocks"]
    }
  end

  defp http_url,
    do: System.get_env("CHWIRE_TEST_HTTP_URL", "http://default@127.0.0.1:18123/default")

  defp http_url_18, do: System.get_env("CHWIRE_TEST_HTTP_URL_18")

  # The server's own text of every row of `t` (what a copy must equal).
  defp text(c, t, settings) do
    {:ok, %{rows: rows}} =
      Chwire.query(c, "SELECT formatRow('TSV', *) FROM #{t} ORDER BY k", %{}, settings: settings)

    rows
  end

  # (case, path) where a round trip cannot give the same values, by design, with the reason:
  # Arrow carries Dynamic values as their JSON text. A known one that starts passing fails.
  @known %{{"dynamic", :arrow} => "Dynamic values are JSON text in Arrow"}

  defp settings_of(c, "18.16"), do: c["settings_18"] || %{}
  defp settings_of(c, _), do: c["settings"] || %{}

  defp check_tables(tables, server, native, http) do
    {:ok, admin} = Chwire.start_link(url: native)

    for c <- tables, server in c["servers"] do
      set = settings_of(c, server)
      read_set = Map.merge(set, c["select_settings"] || %{})
      t = table("feat")

      Chwire.execute!(admin, "CREATE TABLE #{t} (#{c["columns"]}) ENGINE = #{c["engine"]}", %{},
        settings: set
      )

      try do
        for ins <- c["inserts"],
            do: Chwire.execute!(admin, String.replace(ins, "{t}", t), %{}, settings: set)

        # formatRow exists from 20.x: 18.16's rows are compared as read by the native protocol.
        want =
          if server == "18.16",
            do: Chwire.query!(admin, "SELECT * FROM #{t} ORDER BY k").rows,
            else: text(admin, t, set)

        sql = "SELECT * FROM #{t} ORDER BY k"

        for {transport, url} <- [native: native, http: http] do
          {:ok, cl} = Chwire.start_link(url: url)
          {:ok, %{rows: rows}} = Chwire.query(cl, sql, %{}, settings: read_set)
          {:ok, columns} = Chwire.query_columns(cl, sql, %{}, settings: read_set)

          assert Enum.zip_with(Enum.map(columns, &elem(&1, 1)), & &1) == rows,
                 "#{c["name"]} #{transport}"

          streamed = Enum.flat_map(Chwire.stream(cl, sql, %{}, settings: read_set), & &1.rows)
          assert streamed == rows, "#{c["name"]} #{transport} stream"
          {:ok, ipc} = Chwire.query_arrow(cl, sql, %{}, settings: read_set)

          for how <- [:rows, :arrow] do
            cp = "#{t}_#{transport}_#{how}"
            Chwire.execute!(admin, "CREATE TABLE #{cp} AS #{t}", %{}, settings: set)

            try do
              res =
                case how do
                  :rows -> Chwire.insert(cl, cp, rows, settings: set)
                  :arrow -> Chwire.insert_arrow(cl, cp, ipc)
                end

              got =
                if server == "18.16",
                  do: Chwire.query!(admin, "SELECT * FROM #{cp} ORDER BY k").rows,
                  else: text(admin, cp, set)

              same = match?({:ok, _}, res) and got == want
              what = "#{server} #{c["name"]}: #{how} over #{transport}: #{inspect(res)}"

              if Map.has_key?(@known, {c["name"], how}),
                do: refute(same, "now passes: remove it from @known: " <> what),
                else: assert(same, what)
            after
              Chwire.execute(admin, "DROP TABLE IF EXISTS #{cp}")
            end
          end

          GenServer.stop(cl)
        end
      after
        Chwire.execute(admin, "DROP TABLE IF EXISTS #{t}")
      end
    end

    GenServer.stop(admin)
  end

  @tag :current_server
  @tag timeout: 600_000
  test "feature tables read every way over both transports and written back", %{tables: tables} do
    check_tables(tables, "26.9", url(), http_url())
  end

  @tag timeout: 300_000
  test "feature tables of the oldest server", %{tables: tables} do
    if http_url_18(), do: check_tables(tables, "18.16", url_18(), http_url_18())
  end

  # A value of params.json as Elixir.
  defp host(v) when is_list(v), do: Enum.map(v, &host/1)
  defp host(%{"int" => i}), do: String.to_integer(i)

  defp host(%{"float" => f}),
    do: %{"nan" => :nan, "inf" => :infinity, "-inf" => :neg_infinity}[f]

  defp host(%{"decimal" => d}), do: Chwire.Decimal.new(d)
  defp host(%{"tuple" => t}), do: t |> Enum.map(&host/1) |> List.to_tuple()
  defp host(%{"map" => kv}), do: Map.new(kv, fn [k, v] -> {host(k), host(v)} end)
  defp host(m) when is_map(m), do: Map.new(m, fn {k, v} -> {k, host(v)} end)
  defp host(v), do: v

  @new_types [
    allow_experimental_json_type: 1,
    allow_experimental_dynamic_type: 1,
    allow_experimental_variant_type: 1,
    enable_time_time64_type: 1,
    allow_experimental_qbit_type: 1
  ]

  @tag :current_server
  test "server-side parameters of every type, over both transports", %{params: params} do
    for url <- [url(), http_url()] do
      {:ok, c} = Chwire.start_link(url: url)

      wrong =
        Enum.flat_map(params, fn p ->
          text = p["text"]

          case Chwire.query(c, "SELECT toString({p:#{p["type"]}})", %{p: host(p["value"])},
                 settings: @new_types
               ) do
            {:ok, %{rows: [[^text]]}} -> []
            other -> ["#{p["type"]} #{inspect(p["value"])}: #{inspect(other)}"]
          end
        end)

      assert wrong == [], Enum.join(wrong, "\n")
      GenServer.stop(c)
    end
  end

  # tests/features/statements.json: a query's own FORMAT clause is taken off by the core's
  # rule; words that only look like one stay.
  test "a query's own FORMAT clause", %{statements: statements} do
    for url <- [url(), http_url()] do
      {:ok, c} = Chwire.start_link(url: url)

      for case <- statements["format"] do
        assert Enum.map(Chwire.query!(c, case["sql"]).rows, &hd/1) == case["rows"],
               url <> ": " <> case["sql"]
      end

      GenServer.stop(c)
    end
  end

  # tests/features/dynamic.json: Elixir values inserted into a Dynamic column take the types of
  # the core's one rule (the ones Python's, Node's and Rust's values take).
  @tag :current_server
  test "host values into Dynamic by the core's rule", %{dynamic: cases} do
    for url <- [url(), http_url()] do
      with_table(url, "dyn", "k UInt32, d Dynamic", fn c, t ->
        rows =
          cases |> Enum.with_index() |> Enum.map(fn {case, k} -> [k, host(case["value"])] end)

        assert {:ok, _} = Chwire.insert(c, t, rows)

        got = Chwire.query!(c, "SELECT dynamicType(d), toString(d) FROM #{t} ORDER BY k").rows

        assert got == Enum.map(cases, &[&1["type"], &1["text"]]), url
      end)
    end
  end

  # A client of `url` and a Memory table of `columns` for `fun.(client, table)`, both gone after.
  defp with_table(url, prefix, columns, fun) do
    {:ok, c} = Chwire.start_link(url: url)
    t = table(prefix)
    Chwire.execute!(c, "CREATE TABLE #{t} (#{columns}) ENGINE = Memory")

    try do
      fun.(c, t)
    after
      Chwire.execute!(c, "DROP TABLE IF EXISTS #{t}")
      GenServer.stop(c)
    end
  end

  # tests/features/texts.json: binaries inserted into IPv4, IPv6 and UUID columns are read by
  # the core's one parser, as ClickHouse reads them; what it refuses is refused before anything
  # is sent.
  @tag :current_server
  test "text into addresses and UUIDs by the core's parser", %{texts: texts} do
    inserted = texts["inserted"]

    for url <- [url(), http_url()] do
      with_table(url, "texts", case_columns(inserted), fn c, t ->
        assert {:ok, _} = Chwire.insert(c, t, [[1 | Enum.map(inserted, & &1["value"])]])

        cols =
          inserted |> Enum.with_index() |> Enum.map_join(", ", fn {_, i} -> "toString(c#{i})" end)

        assert Chwire.query!(c, "SELECT #{cols} FROM #{t}").rows == [
                 Enum.map(inserted, & &1["text"])
               ],
               url
      end)

      for case <- texts["refused"] do
        with_table(url, "texts", case_columns([case]), fn c, t ->
          assert {:error, %Chwire.Error{message: m}} = Chwire.insert(c, t, [[1, case["value"]]])
          assert m =~ ~r/not an IPv|not a UUID|UUID/, "#{url}: #{case["value"]}: #{m}"
          assert Chwire.query!(c, "SELECT count() FROM #{t}").rows == [[0]], case["value"]
        end)
      end
    end
  end

  # tests/features/nulls.json: nil where the column's type has no NULL. A nil Array or Map (at
  # any depth) is the empty one; a nil scalar or Tuple for a column that is not Nullable is
  # refused before anything is sent.
  @tag :current_server
  test "nulls where the type has none by the core's rule", %{nulls: nulls} do
    inserted = nulls["inserted"]

    for url <- [url(), http_url()] do
      with_table(url, "nulls", case_columns(inserted), fn c, t ->
        assert {:ok, _} = Chwire.insert(c, t, [[1 | Enum.map(inserted, & &1["value"])]])

        cols =
          inserted |> Enum.with_index() |> Enum.map_join(", ", fn {_, i} -> "toString(c#{i})" end)

        assert Chwire.query!(c, "SELECT #{cols} FROM #{t}").rows == [
                 Enum.map(inserted, & &1["text"])
               ],
               url
      end)

      for case <- nulls["refused"] do
        with_table(url, "nulls", case_columns([case]), fn c, t ->
          assert {:error, %Chwire.Error{message: m}} = Chwire.insert(c, t, [[1, case["value"]]])
          assert m =~ nulls["error"], "#{url}: #{case["type"]}: #{m}"
          assert Chwire.query!(c, "SELECT count() FROM #{t}").rows == [[0]], case["type"]
        end)
      end
    end
  end

  # tests/features/limits.json: bounds of a result collected whole (the core's tally), through
  # query/4, query_columns/4 and query_arrow/4, per call; a stream takes none.
  test "results collected whole are bounded by the core's tally", %{limits: limits} do
    opts = fn l ->
      [settings: limits["settings"]] ++ Enum.map(l, fn {k, v} -> {String.to_atom(k), v} end)
    end

    rows = limits["rows"]

    for url <- refusal_urls() do
      {:ok, c} = Chwire.start_link(url: url)
      # The whole result's IPC stream, unbounded: a bounded one that comes is the same bytes.
      {:ok, ipc} = Chwire.query_arrow(c, limits["sql"], %{}, settings: limits["settings"])

      calls = [
        {"query", &Chwire.query/4, fn %Chwire.Result{num_rows: n} -> n end},
        {"query_columns", &Chwire.query_columns/4, fn [{"n", ns} | _] -> length(ns) end},
        {"query_arrow", &Chwire.query_arrow/4, fn got -> if got == ipc, do: rows, else: got end}
      ]

      check(c, url, limits, calls, opts)
      GenServer.stop(c)
    end

    {:ok, c} = Chwire.start_link(url: url())

    streamed =
      Chwire.stream(c, limits["sql"], %{}, settings: limits["settings"])
      |> Enum.reduce(0, fn r, n -> n + r.num_rows end)

    assert streamed == rows
    GenServer.stop(c)
  end

  defp check(c, url, limits, calls, opts) do
    for {name, call, count} <- calls do
      for case <- limits["cases"] do
        label = "#{url} #{name} #{inspect(case["limits"])}"

        case {call.(c, limits["sql"], %{}, opts.(case["limits"])), case["error"]} do
          {{:ok, result}, nil} ->
            assert count.(result) == case["rows"], label

          {{:error, %Chwire.Error{kind: :limit, message: m}}, want} when is_binary(want) ->
            assert m =~ want, label

          {other, want} ->
            flunk("#{label}: want #{inspect(want)}, got #{inspect(other)}")
        end

        assert Chwire.query!(c, "SELECT 1").rows == [[1]], label
      end

      for case <- limits["refused"] do
        assert {:error, %Chwire.Error{kind: :config, message: m}} =
                 call.(c, limits["sql"], %{}, opts.(case["limits"]))

        assert m =~ case["error"], "#{url} #{name}: #{m}"
      end
    end
  end

  # tests/features/blocks.json: the blocks an Arrow insert sends (the core's ArrowInsert, with
  # `block_rows:`), seen as the parts of a table whose merges are stopped; a refused batch ends
  # the insert with the blocks before it committed (`rows_inserted`). The IPC streams come from
  # `query_arrow` of `numbers(total)` in blocks of the first batch's size: the cases whose
  # batches have that shape.
  test "Arrow inserts cut blocks by the core's rule", %{blocks: blocks} do
    uniform = fn %{"batches" => [b | _] = bs} ->
      total = Enum.sum(bs)

      bs ==
        List.duplicate(b, div(total, b)) ++ if(rem(total, b) > 0, do: [rem(total, b)], else: [])
    end

    cases = Enum.filter(blocks["cases"] ++ [blocks["refusal"]], uniform)
    assert length(cases) >= 5

    for url <- refusal_urls() do
      {:ok, c} = Chwire.start_link(url: url)
      t = "ex_blocks_#{System.unique_integer([:positive])}"

      for case <- cases do
        [b | _] = bs = case["batches"]
        total = Enum.sum(bs)

        value =
          if case["bad_batch"],
            do: "if(number = #{case["bad_batch"] * b}, NULL, number)",
            else: "toUInt64(number)"

        {:ok, ipc} =
          Chwire.query_arrow(c, "SELECT #{value} AS n FROM numbers(#{total})", %{},
            settings: %{"max_block_size" => b, "max_threads" => 1}
          )

        Chwire.query!(c, "DROP TABLE IF EXISTS #{t}")
        Chwire.query!(c, "CREATE TABLE #{t} (n UInt64) ENGINE = MergeTree ORDER BY tuple()")
        Chwire.query!(c, "SYSTEM STOP MERGES #{t}")

        opts =
          [settings: blocks["settings"]] ++
            if case["block_rows"],
              do: [block_rows: String.to_integer(case["block_rows"])],
              else: []

        label = "#{url} #{inspect(case)}"
        want = Enum.sum(case["parts"])

        case {Chwire.insert_arrow(c, t, ipc, opts), case["errors"]} do
          {{:ok, n}, nil} ->
            assert n == want, label

          {{:error, %Chwire.Error{kind: :data, message: m, rows_inserted: n}}, errors} ->
            assert Enum.all?(errors, &String.contains?(m, &1)), "#{label}: #{m}"
            assert n == case["rows_inserted"], label

          {other, _} ->
            flunk("#{label}: #{inspect(other)}")
        end

        parts = Chwire.query!(c, "SELECT count() FROM #{t} GROUP BY _part ORDER BY min(n)")
        assert List.flatten(parts.rows) == case["parts"], label
        sum = Chwire.query!(c, "SELECT count(), sum(n) FROM #{t}")
        assert sum.rows == [[want, div(want * (want - 1), 2)]], label
      end

      for case <- blocks["refused"] do
        assert {:error, %Chwire.Error{kind: :config, message: m}} =
                 Chwire.insert_arrow(c, t, "", block_rows: case["block_rows"])

        assert m =~ case["error"], "#{url}: #{m}"
      end

      Chwire.query!(c, "DROP TABLE IF EXISTS #{t}")
      GenServer.stop(c)
    end
  end

  # tests/features/pool.json: the pool's option names, aliases and spellings, sorted from the
  # connection's by the core; the mistakes it refuses, with its message.
  test "pool options by the core's names", %{pool: pool} do
    opts = fn c ->
      [url: url()] ++ Enum.map(c["options"], fn {k, v} -> {String.to_atom(k), v} end)
    end

    for c <- pool["accepted"] do
      assert {:ok, p} = Chwire.Pool.start_link(opts.(c)), inspect(c)
      assert Chwire.query!(p, "SELECT 1").rows == [[1]]
      %{size: size} = Chwire.Pool.status(p)
      assert size >= 1 and size <= c["max_size"], inspect(c)
      GenServer.stop(p)
    end

    Process.flag(:trap_exit, true)

    for c <- pool["refused"] do
      assert {:error, %Chwire.Error{message: m}} = Chwire.Pool.start_link(opts.(c))
      assert m =~ c["error"], "#{inspect(c)}: #{m}"
    end

    # Not an IPC binary: a :data error, not a FunctionClauseError.
    {:ok, c} = Chwire.start_link(url: url())
    assert {:error, %Chwire.Error{kind: :data}} = Chwire.insert_arrow(c, "t", ~c"abc")
    # Two streams in one binary: refused, not half of it inserted.
    {:ok, ipc} = Chwire.query_arrow(c, "SELECT 1 AS a")

    assert {:error, %Chwire.Error{kind: :arrow, message: m}} =
             Chwire.insert_arrow(c, "t", ipc <> ipc)

    assert m =~ "after the end-of-stream marker"
    GenServer.stop(c)

    # A float for a duration is a guess between seconds and milliseconds: refused, in any
    # spelling of the key.
    assert {:error, %Chwire.Error{kind: :config, message: m}} =
             Chwire.start_link(url: url(), connectTimeout: 1.5)

    assert m =~ "connectTimeout: 1.5 is no duration"

    # Integer durations are milliseconds, in the pool's options as in the connection's.
    {:ok, p} =
      Chwire.Pool.start_link(
        url: url(),
        max_size: 1,
        acquire_timeout: 300,
        connect_timeout: 5_000
      )

    {:ok, _} = Chwire.query(p, "SELECT 1")
    GenServer.stop(p)
  end

  # The columns of a table of texts.json's or nulls.json's cases: `k UInt32, c0 <type 0>, ...`.
  defp case_columns(cases) do
    cols = cases |> Enum.with_index() |> Enum.map(fn {c, i} -> "c#{i} #{c["type"]}" end)
    Enum.join(["k UInt32" | cols], ", ")
  end

  # tests/features/refusals.json: what every front end refuses with the core's message.
  defp refusal_urls, do: [url(), http_url()] ++ List.wrap(System.get_env("CHWIRE_TEST_URL_18"))

  # The message of a refusal (an error tuple or a raised exception), or what was accepted.
  defp refusal(fun) do
    case fun.() do
      {:error, %Chwire.Error{code: nil, message: m}} -> {:refused, m}
      other -> {:accepted, other}
    end
  rescue
    e in [ArgumentError, Chwire.Error] -> {:refused, Exception.message(e)}
  end

  # The cases that `attempt` (run on each) does not refuse with the case's `error`, each named
  # by `label`.
  defp not_refused(cases, label, attempt) do
    Enum.flat_map(cases, fn c ->
      case refusal(fn -> attempt.(c) end) do
        {:refused, m} -> if String.contains?(m, c["error"]), do: [], else: ["#{label.(c)}: #{m}"]
        {:accepted, other} -> ["#{label.(c)}: #{inspect(other)}"]
      end
    end)
  end

  test "parameters every front end refuses", %{refusals: refusals} do
    for url <- refusal_urls() do
      {:ok, c} = Chwire.start_link(url: url)

      wrong =
        not_refused(refusals["params"], &"#{&1["type"]} #{inspect(&1["value"])}", fn p ->
          Chwire.query(c, "SELECT toString({p:#{p["type"]}})", %{p: host(p["value"])})
        end)

      assert wrong == [], url <> ":\n" <> Enum.join(wrong, "\n")
      assert Chwire.query!(c, "SELECT {p:UInt8}", %{p: 7}).rows == [[7]]
      GenServer.stop(c)
    end
  end

  test "tables every front end refuses", %{refusals: refusals} do
    for url <- refusal_urls() do
      {:ok, c} = Chwire.start_link(url: url)

      wrong =
        not_refused(refusals["tables"], & &1["table"], &Chwire.insert(c, &1["table"], [[1]]))

      assert wrong == [], url <> ":\n" <> Enum.join(wrong, "\n")
      GenServer.stop(c)
    end
  end

  test "options every front end refuses", %{refusals: refusals} do
    Process.flag(:trap_exit, true)

    for url <- refusal_urls() do
      sep = if String.contains?(url, "?"), do: "&", else: "?"

      wrong =
        not_refused(refusals["options"], & &1["query"], fn o ->
          case Chwire.start_link(url: url <> sep <> o["query"]) do
            {:ok, c} ->
              r = Chwire.query(c, "SELECT 1")
              GenServer.stop(c)
              r

            error ->
              error
          end
        end)

      assert wrong == [], url <> ":\n" <> Enum.join(wrong, "\n")
    end
  end

  @tag :current_server
  test "HTTP sessions keep SET and temporary tables, with their DateTime zones" do
    sid = "ex-session-#{System.unique_integer([:positive])}"
    {:ok, c} = Chwire.start_link(url: http_url() <> "?session_id=#{sid}")
    Chwire.execute!(c, "SET max_threads = 3")
    assert Chwire.query!(c, "SELECT getSetting('max_threads')").rows == [[3]]
    Chwire.execute!(c, "CREATE TEMPORARY TABLE tmp (t DateTime('Asia/Tokyo'), n UInt8)")
    assert {:ok, 1} = Chwire.insert(c, "tmp", [[~U[1970-01-01 00:00:00Z], 1]])
    %{rows: [[t, s]], types: [ty, _]} = Chwire.query!(c, "SELECT t, toString(t) FROM tmp")
    assert {ty, s} == {"DateTime('Asia/Tokyo')", "1970-01-01 09:00:00"}
    assert DateTime.to_unix(t) == 0 and t.time_zone == "Asia/Tokyo"
    {:ok, other} = Chwire.start_link(url: http_url())
    assert {:error, %Chwire.Error{code: 60}} = Chwire.query(other, "SELECT count() FROM tmp")
  end

  @tag :current_server
  test "an exception mid-stream over HTTP is an error, never a shorter result; the connection goes on" do
    {:ok, c} = Chwire.start_link(url: http_url())
    sql = "SELECT number, throwIf(number = 250000) FROM numbers(1000000)"

    for f <- [
          fn -> Chwire.query(c, sql, %{}, settings: [max_block_size: 10000]) end,
          fn -> Chwire.query_arrow(c, sql, %{}, settings: [max_block_size: 10000]) end,
          fn -> Chwire.query_columns(c, sql, %{}, settings: [max_block_size: 10000]) end
        ] do
      assert {:error, %Chwire.Error{code: 395}} = f.()
      assert {:ok, %{rows: [[1]]}} = Chwire.query(c, "SELECT 1")
    end
  end

  @tag :current_server
  test "a block the server refuses (a CHECK constraint) commits nothing of it" do
    for u <- [url(), http_url()] do
      {:ok, c} = Chwire.start_link(url: u)
      t = table("check")

      Chwire.execute!(
        c,
        "CREATE TABLE #{t} (a UInt32, CONSTRAINT small CHECK a < 100) ENGINE = MergeTree ORDER BY a"
      )

      try do
        assert {:ok, 1} = Chwire.insert(c, t, [[1]])
        assert {:error, %Chwire.Error{code: 469}} = Chwire.insert(c, t, [[2], [500], [3]])
        assert Chwire.query!(c, "SELECT a FROM #{t} ORDER BY a").rows == [[1]]
        assert {:ok, 1} = Chwire.insert(c, t, [[4]])
      after
        Chwire.execute(c, "DROP TABLE IF EXISTS #{t}")
      end
    end
  end
end
