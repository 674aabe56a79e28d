defmodule Chwire.Handle do
  @moduledoc """
  The NIF resource of a connection or pool, accepted wherever a connection is (it saves the
  `GenServer.call/2` that looks it up from the owning process). Get it with
  `Chwire.Connection.handle/1` or `Chwire.Pool.handle/1`; it stays valid while its owner lives.
  """
  defstruct [:ref]
end
