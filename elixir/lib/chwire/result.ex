defmodule Chwire.Result do
  @moduledoc """
  A query's result: column names, their ClickHouse types (as the server names them), the rows
  (each a list of values in column order) and their count.
  """
  defstruct columns: [], types: [], rows: [], num_rows: 0

  @type t :: %__MODULE__{
          columns: [String.t()],
          types: [String.t()],
          rows: [[term()]],
          num_rows: non_neg_integer()
        }
end
