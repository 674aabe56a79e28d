defmodule Chwire.DateTime64 do
  @moduledoc """
  A DateTime64 of precision 7 to 9, which Elixir's `DateTime` (microseconds) cannot hold:
  the exact `ticks` (units of 10^-precision s since the epoch), the `precision`, the column's
  `time_zone`, and `datetime`, the same instant cut to microseconds. DateTime64 of precision
  0 to 6 is a plain `DateTime`. Inserts take either.
  """
  defstruct [:ticks, :precision, :time_zone, :datetime]
end
