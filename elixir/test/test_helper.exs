defmodule Chwire.TestHelper do
  @moduledoc false

  def url, do: System.get_env("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")

  # A table name of this suite's own (tests run beside other suites on the same server).
  def table(tag), do: "ex_#{tag}_#{System.unique_integer([:positive])}"

  # The Python with pyarrow that checks Arrow output, if any (CHWIRE_PYARROW_PYTHON).
  def pyarrow do
    case System.get_env("CHWIRE_PYARROW_PYTHON") do
      nil -> nil
      "" -> nil
      py -> py
    end
  end
end

ExUnit.start(timeout: 120_000)
