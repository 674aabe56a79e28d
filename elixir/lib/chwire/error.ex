defmodule Chwire.Error do
  @moduledoc """
  An error of chwire or of the server.

    * `kind`: `:server` (a ClickHouse exception; the connection stays usable), `:timeout`,
      `:connection`, `:tls`, `:protocol`, `:config`, `:data` (a value or argument that does
      not fit; nothing was sent), `:arrow`, `:closed`, `:busy` (a query on a connection from
      inside its own stream), `:limit` (a result over `max_collected_rows:`/`max_collected_bytes:`; the query was
      cancelled, the connection is usable), `:panic` (a bug in chwire caught at the NIF boundary; the VM is
      unaffected), `:client`;
    * `code`: ClickHouse's error code for server errors (e.g. 60), else `nil`;
    * `name`: ClickHouse's name of the code (e.g. `"UNKNOWN_TABLE"`), else the kind in capitals;
    * `message`: the text;
    * `rows_inserted`: for data an insert refused, the rows before it, which were committed
      (the insert ended there); else `nil`.
  """
  defexception [:kind, :code, :name, :message, :rows_inserted]

  @impl true
  def message(%__MODULE__{code: nil, message: m}), do: m
  def message(%__MODULE__{code: c, name: n, message: m}), do: "#{n} (#{c}): #{m}"
end
