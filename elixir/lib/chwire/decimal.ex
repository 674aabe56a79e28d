defmodule Chwire.Decimal do
  @moduledoc """
  A ClickHouse Decimal without loss: the value is `coef / 10^scale` (`coef` an integer of any
  size, `scale` the column's scale). Inserts also take integers and floats (by their shortest
  decimal text); a value that is not exact at the column's scale is an error.
  """
  defstruct coef: 0, scale: 0

  @type t :: %__MODULE__{coef: integer(), scale: non_neg_integer()}

  @doc "Parses decimal text such as `\"-12.345\"`."
  def new(text) when is_binary(text) do
    case Regex.run(~r/^([+-]?)(\d*)(?:\.(\d*))?$/, text) do
      [_, sign, int, frac] when int <> frac != "" -> build(sign, int, frac)
      [_, sign, int] when int != "" -> build(sign, int, "")
      _ -> raise ArgumentError, "not a decimal: #{inspect(text)}"
    end
  end

  defp build(sign, int, frac) do
    coef = String.to_integer(int <> frac <> if(int <> frac == "", do: "0", else: ""))
    %__MODULE__{coef: if(sign == "-", do: -coef, else: coef), scale: byte_size(frac)}
  end

  @doc "The decimal text (`coef` with the point `scale` digits from the right)."
  def to_string(%__MODULE__{coef: c, scale: 0}), do: Integer.to_string(c)

  def to_string(%__MODULE__{coef: c, scale: s}) do
    digits = c |> abs() |> Integer.to_string() |> String.pad_leading(s + 1, "0")
    {int, frac} = String.split_at(digits, byte_size(digits) - s)
    if(c < 0, do: "-", else: "") <> int <> "." <> frac
  end

  defimpl String.Chars do
    def to_string(d), do: Chwire.Decimal.to_string(d)
  end
end
