defmodule ChwireReadmeTest do
  # The README's Elixir block runs as written, against the test server (its URL replaces the
  # rig's default one), as python/tests/test_readme.py and node/test/readme.test.mjs run theirs.
  use ExUnit.Case, async: false
  import Chwire.TestHelper

  @readme Path.expand("../../README.md", __DIR__)
  @rig_url "tcp://default@127.0.0.1:19000/default"

  defp blocks do
    Regex.scan(~r/```elixir\n(.*?)```/s, File.read!(@readme), capture: :all_but_first)
    |> Enum.map(&hd/1)
  end

  test "the README's Elixir block runs as written" do
    assert [_ | _] = blocks(), "README.md lost its Elixir example"

    {:ok, admin} = Chwire.start_link(url: url())
    {:ok, _} = Chwire.execute(admin, "DROP TABLE IF EXISTS people")

    try do
      for code <- blocks() do
        assert String.contains?(code, @rig_url), "a README block connects somewhere else"
        {_, binding} = Code.eval_string(String.replace(code, @rig_url, url()))
        assert binding[:rows] == [[42]]
        assert binding[:numbers] == Enum.to_list(0..9)
        assert is_binary(binding[:ipc]) and byte_size(binding[:ipc]) > 0
      end

      assert {:ok, %Chwire.Result{rows: [[2]]}} =
               Chwire.query(admin, "SELECT count() FROM people")
    after
      Chwire.execute(admin, "DROP TABLE IF EXISTS people")
    end
  end
end
