defmodule Chwire.Native do
  @moduledoc false
  # The NIF (elixir/native/chwire_nif). Built by Mix.Tasks.Compile.ChwireNif into
  # priv/chwire_nif.so and loaded when this module is loaded.
  @on_load :load_nif

  def load_nif do
    path = :filename.join(:code.priv_dir(:chwire), ~c"chwire_nif")
    :erlang.load_nif(path, 0)
  end

  defp nif, do: :erlang.nif_error(:nif_not_loaded)

  def connect(_url, _opts, _id), do: nif()
  def pool_new(_url, _opts), do: nif()
  def duration_key(_key), do: nif()
  def pool_status(_handle), do: nif()
  def close(_handle), do: nif()
  def ping(_handle, _id), do: nif()

  def query(_handle, _sql, _params, _settings, _query_id, _stream, _columns, _limits, _id),
    do: nif()

  def query_dirty(_handle, _sql, _params, _settings, _query_id, _stream, _columns, _limits, _id),
    do: nif()

  def query_arrow(_handle, _sql, _params, _settings, _query_id, _mapping, _limits, _id),
    do: nif()

  def insert_arrow(_handle, _table, _ipc, _settings, _query_id, _options, _id), do: nif()
  def insert_block_rows(_options), do: nif()
  def check_table(_table), do: nif()
  def insert_start(_handle, _table, _names, _settings, _query_id, _id), do: nif()
  def insert_block(_op, _layout, _data, _max_rows, _first_row), do: nif()
  def insert_block_dirty(_op, _layout, _data, _max_rows, _first_row), do: nif()
  def insert_end(_op), do: nif()
  def op_take(_op, _columns), do: nif()
  def op_take_dirty(_op, _columns), do: nif()
  def op_words(_op), do: nif()
  def op_cancel(_op), do: nif()
  def stream_open(_id), do: nif()
  def stream_owners(_handle), do: nif()
  def decode_native(_bytes, _tz), do: nif()
  def encode_native(_columns), do: nif()
  def floor_columns(_rows, _bulk), do: nif()
  def floor_fresh_bytes(_bytes), do: nif()
  def query_count(_handle, _sql, _id), do: nif()
  def panic_test(_what), do: nif()
  def panic_task(_id), do: nif()
end
