defmodule Chwire.TestHelper do
  @moduledoc false

  # The main server (scripts/with-server.sh: ClickHouse 26.9 by default).
  def url, do: System.get_env("CHWIRE_TEST_URL", "tcp://default@127.0.0.1:19000/default")

  # Which server `url/0` is: "26.9" or "18.16" (CHWIRE_TEST_SERVER).
  def server, do: System.get_env("CHWIRE_TEST_SERVER", "26.9")
  def server_18?, do: server() == "18.16"

  # The 18.16 server, for what only it has (TLS, the client-side binding of parameters):
  # scripts/with-server.sh --both (or --18) exports CHWIRE_TEST_URL_18.
  def url_18, do: System.get_env("CHWIRE_TEST_URL_18", "tcp://default@127.0.0.1:19100/default")

  # Both servers, each with its version, for tests that hold on every supported server.
  def servers do
    [{server(), url()}, {"18.16", url_18()}] |> Enum.uniq_by(&elem(&1, 1))
  end

  # The rig's test certificates (scripts/tls-certs.sh, used by scripts/server-18.sh).
  def tls_dir do
    System.get_env("CHWIRE_TEST_TLS_DIR") || System.get_env("CHWIRE_CH18_TLS_DIR") ||
      Path.expand("../build/clickhouse/tls", File.cwd!())
  end

  # A current server sends Progress every interactive_delay (0.1 s) while a query runs, and a
  # receive timeout fires only on a silent socket: this URL query part quiets it.
  def quiet, do: "interactive_delay=100000000"

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

# The tests of what only current servers have need one as the main server (with-server.sh's
# default and --both); with --18 alone they are left out.
ExUnit.start(
  timeout: 120_000,
  exclude: if(Chwire.TestHelper.server_18?(), do: [:current_server], else: [])
)
